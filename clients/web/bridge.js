// Bridge values as the protocol writes them ("N", "SA", "3NT", "4SX"), and how a player
// reads them, in the page's language: seat names, suit symbols, contracts with their result.
// No DOM here.

import { localized, t } from "./i18n.js";

export const SEATS = ["N", "E", "S", "W"];
export const SEAT_NAME = localized({ N: "North", E: "East", S: "South", W: "West" });
/** A seat's letter as the page's language writes it (Russian С В Ю З, Swedish N Ö S V). */
export const SEAT_LETTER = localized({ N: "N", E: "E", S: "S", W: "W" });
export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAME = localized({ S: "spades", H: "hearts", D: "diamonds", C: "clubs" });
export const STRAINS = ["C", "D", "H", "S", "NT"];
const RANKS = "AKQJT98765432";
const RANK_NAME = localized({
  A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", 9: "nine", 8: "eight",
  7: "seven", 6: "six", 5: "five", 4: "four", 3: "three", 2: "two",
});
/** The honours' letters as the page's language prints them (Russian Т К Д В, Swedish E K D Kn). */
const HONOUR = localized({ A: "A", K: "K", Q: "Q", J: "J" });

/** The seat `steps` places clockwise from `seat`: next("N") is "E", next("N", 2) is "S". */
export function next(seat, steps = 1) {
  return SEATS[(SEATS.indexOf(seat) + steps) % 4];
}

export function partner(seat) {
  return next(seat, 2);
}

/** "NS" or "EW": the side a seat belongs to. */
export function sideOf(seat) {
  return seat === "N" || seat === "S" ? "NS" : "EW";
}

/** Whether `seat` is vulnerable under the board's vulnerability ("None", "NS", "EW", "All"). */
export function isVulnerable(seat, vulnerability) {
  return vulnerability === "All" || vulnerability === sideOf(seat);
}

/** "N-S", "E-W", "None", "All": vulnerability the way a scorecard writes it. */
export function vulnerabilityText(vulnerability) {
  return VULNERABILITY[vulnerability] ?? vulnerability;
}

const VULNERABILITY = localized({ None: "None", NS: "N-S", EW: "E-W", All: "All" });

/** "N-S" or "E-W" in the page's language. */
export function sideText(side) {
  return VULNERABILITY[side];
}

/** A card's rank as printed: "10" for the ten. */
export function rankText(rank) {
  return rank === "T" ? "10" : rank in HONOUR ? HONOUR[rank] : rank;
}

/** "ace of spades", for screen readers (each language names a card its own way). */
export function cardName(card) {
  return CARD_NAME[card[0]](RANK_NAME[card[1]]);
}

const CARD_NAME = {
  S: (rank) => t("{rank} of spades", { rank }),
  H: (rank) => t("{rank} of hearts", { rank }),
  D: (rank) => t("{rank} of diamonds", { rank }),
  C: (rank) => t("{rank} of clubs", { rank }),
};

/** The cards of a hand grouped by suit (spades first), each suit from the ace down. */
export function bySuit(cards) {
  const groups = { S: [], H: [], D: [], C: [] };
  for (const card of cards) groups[card[0]].push(card);
  for (const suit of SUITS) groups[suit].sort((a, b) => RANKS.indexOf(a[1]) - RANKS.indexOf(b[1]));
  return groups;
}

/** A hand sorted the usual way: spades, hearts, diamonds, clubs, each from the ace down. */
export function sortHand(cards) {
  const groups = bySuit(cards);
  return SUITS.flatMap((suit) => groups[suit]);
}

/** Splits a call or contract into its parts: "4SX" -> {level: 4, strain: "S", doubled: "X"}. */
export function parseCall(call) {
  const match = /^([1-7])(C|D|H|S|NT)(X{0,2})$/.exec(call);
  if (!match) return null;
  return { level: Number(match[1]), strain: match[2], doubled: match[3] };
}

/** Words for a call, for screen readers: "1 notrump", "pass", "double". */
export function callName(call) {
  if (call === "P") return t("pass");
  if (call === "X") return t("double");
  if (call === "XX") return t("redouble");
  const bid = parseCall(call);
  // "1 spade", "2 spades": as players say their bids.
  const named = BID_NAME[bid.strain](bid.level);
  if (bid.doubled === "X") return t("{call} doubled", { call: named });
  return bid.doubled ? t("{call} redoubled", { call: named }) : named;
}

const BID_NAME = {
  C: (n) => t("{n} clubs", { n }),
  D: (n) => t("{n} diamonds", { n }),
  H: (n) => t("{n} hearts", { n }),
  S: (n) => t("{n} spades", { n }),
  NT: (n) => t("{n} notrump", { n }),
};

/** Tricks over or under the contract: "=", "+1", "−2". */
export function overtricks(contract, tricks) {
  const bid = parseCall(contract);
  const difference = tricks - (bid.level + 6);
  if (difference === 0) return "=";
  return difference > 0 ? `+${difference}` : `−${-difference}`;
}

/** A score from North-South's side, as a scorecard writes it: "N-S +400" or "E-W +50". */
export function scoreText(nsScore) {
  if (nsScore === 0) return "0";
  return nsScore > 0 ? `${sideText("NS")} +${nsScore}` : `${sideText("EW")} +${-nsScore}`;
}

/** "NT" as the page's language writes it in a call (Russian БК). */
export function notrumpText() {
  return t("NT");
}

/** A call as a scorecard prints it: "2♣", "3NT", "Pass", "Dbl", "Rdbl". */
export function callText(call) {
  if (call === "P") return t("Pass");
  if (call === "X") return t("Dbl");
  if (call === "XX") return t("Rdbl");
  const bid = parseCall(call);
  return `${bid.level}${bid.strain === "NT" ? notrumpText() : SUIT_SYMBOL[bid.strain]}${bid.doubled}`;
}

/** A card as a scorecard prints it: "♠4", "♥10". */
export function cardPlain(card) {
  return `${SUIT_SYMBOL[card[0]]}${rankText(card[1])}`;
}

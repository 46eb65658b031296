// One table drawn as a compass: four seats (their players, their cards when visible) around
// the middle (the auction, the trick). Used for the live table, the spectators' and
// director's tables and the replay of a finished board. Draws only what it is given.

import { SEAT_LETTER, SEAT_NAME, SUITS, SUIT_SYMBOL, bySuit, callName, cardName, isVulnerable, next, partner, rankText, sideOf, sideText, vulnerabilityText } from "./bridge.js";
import { callNode, cardTile, clock, h, isAway, personAt } from "./dom.js";
import { localized, t, tx } from "./i18n.js";
import { isTeamMatch } from "./movement.js";

export function teamOf(table, seat) {
  const nsTeam = table === 1 ? "A" : "B";
  return sideOf(seat) === "NS" ? nsTeam : nsTeam === "A" ? "B" : "A";
}

/** A team's name; the names the server gives teams nobody named, in the page's language. */
export function teamName(match, team) {
  const name = team === "A" ? match.team_a : match.team_b;
  return Object.hasOwn(UNNAMED_TEAMS, name) ? UNNAMED_TEAMS[name] : name;
}

const UNNAMED_TEAMS = localized({ "Team A": "Team A", "Team B": "Team B" });

/** Where each seat sits on screen when `bottom` is drawn at the bottom. */
export function placesFor(bottom) {
  return { bottom, left: next(bottom), top: partner(bottom), right: next(bottom, 3) };
}

/**
 * One table as a compass. `bottom` is the seat drawn at the bottom (the player, or South for
 * watchers); `me` the player's seat (null for watchers), whose own hand is drawn below the
 * table rather than in it (unless `ownHand`). `hands` are the hands to draw (seat -> cards),
 * `middle` what goes in the middle, `players` the view's PlayerInfo list, `dummyEnabled`
 * whether declarer may click dummy's legal cards now.
 */
export function compass(board, { bottom, me, match, players, hands, middle, dummyEnabled = false, ownHand = false, live = true }) {
  const places = placesFor(bottom);
  const shows = (place) => places[place] in hands && (ownHand || !(me !== null && places[place] === me));
  const many = Object.keys(hands).length > 2;
  // One hand at a side (dummy at the player's left or right): a narrow table puts the
  // middle beside it, under the other side's tag.
  const side = many ? "" : shows("left") ? " hand-at-left" : shows("right") ? " hand-at-right" : "";
  const grid = h("div", {
    class: `compass-grid${many ? " many-hands" : ""}${side}`,
    "data-board": board.board,
    "data-table": board.table,
  });
  grid.append(boardInfo(board), contractInfo(board));
  const legal = new Set(live && board.phase === "play" && me && board.acting === me ? board.legal : []);
  for (const [place, seat] of Object.entries(places)) {
    const playable = live && me !== null && board.declarer === me && seat === board.dummy && seat !== me;
    const drawHand = shows(place);
    grid.append(
      h(
        "div",
        { class: `seat-box place-${place}${drawHand ? " with-hand" : ""}`, "data-seat": seat },
        seatTag(board, seat, { me, match, players, hidden: !(seat in hands), live }),
        drawHand ? handRows(hands[seat], seat, { playable, legal, enabled: dummyEnabled }) : null,
      ),
    );
  }
  grid.append(h("div", { class: "centre" }, middle));
  return h("div", { class: "compass-box" }, grid);
}

export function boardInfo(board) {
  const vulnerable = board.vulnerability;
  return h(
    "div",
    {
      class: "board-info",
      role: "group",
      "aria-label": t("Board {board}, dealer {dealer}, vulnerable {vulnerable}", {
        board: board.board,
        dealer: SEAT_NAME[board.dealer],
        vulnerable: vulnerabilityText(vulnerable),
      }),
    },
    h("span", { class: "board-number", "data-test": "board-number" }, t("Board {board}", { board: board.board })),
    h("span", { class: "dealer" }, t("Dealer {seat}", { seat: SEAT_LETTER[board.dealer] })),
    h(
      "span",
      { class: `vulnerability vul-${vulnerable}`, "data-vulnerability": vulnerable },
      t("Vul {vulnerable}", { vulnerable: vulnerabilityText(vulnerable) }),
    ),
  );
}

export function contractInfo(board) {
  const box = h("div", { class: "contract-info" });
  if (board.contract) {
    box.append(
      h(
        "span",
        { class: "contract", "data-contract": board.contract, "data-shown-contract": board.contract },
        tx("{contract} by {seat}", { contract: callNode(board.contract), seat: SEAT_LETTER[board.declarer] }),
      ),
    );
  } else if (board.phase === "auction") {
    box.append(h("span", { class: "contract" }, t("Auction")));
  } else {
    box.append(h("span", { class: "contract" }, t("Passed out")));
  }
  if (board.phase !== "auction" && board.contract) {
    box.append(
      h(
        "span",
        { class: "trick-count", "data-tricks-ns": board.tricks_ns, "data-tricks-ew": board.tricks_ew },
        `${sideText("NS")} ${board.tricks_ns} · ${sideText("EW")} ${board.tricks_ew}`,
      ),
    );
  }
  return box;
}

/** The names the server gives its robots, by level (create_match's robot_level). */
const ROBOT_NAMES = localized({ Robot: "Robot", "Robot (strong)": "Robot (strong)" });

/** A seat's tag: the seat, its player (name, robot, away since when), roles and turn. */
export function seatTag(board, seat, { me, match, players, hidden, live = true }) {
  const onTurn = live && board.turn === seat && ["auction", "play"].includes(board.phase) && !board.undo;
  const vulnerable = isVulnerable(seat, board.vulnerability);
  const info = personAt(players, board.table, seat);
  const roles = [];
  if (me !== null && seat === me) roles.push(t("You"));
  if (board.declarer === seat && board.phase !== "auction") roles.push(t("Declarer"));
  if (board.dummy === seat) roles.push(t("Dummy"));
  if (board.dealer === seat && board.phase === "auction") roles.push(t("Dealer"));
  const teams = match ? isTeamMatch(match) : false;
  const team = teams ? teamName(match, teamOf(board.table, seat)) : null;
  // Without teams, a player is known by number too (their table and seat change).
  const number = match && !teams && info?.player != null ? info.player : null;
  const count = board.hand_sizes[seat];
  const away = live && isAway(info) && !match?.finished;
  // The server names its robots by their level ("Robot", "Robot (strong)"): shown as the mark.
  const serverRobot = Boolean(info?.robot && Object.hasOwn(ROBOT_NAMES, info.name));
  return h(
    "div",
    {
      class: `seat-tag${vulnerable ? " vulnerable" : ""}${onTurn ? " on-turn" : ""}${me === seat ? " me" : ""}${away ? " away" : ""}`,
      "aria-current": onTurn ? "step" : null,
      "data-seat-tag": seat,
    },
    h("span", { class: "seat-name" }, SEAT_NAME[seat]),
    info?.name && !serverRobot ? h("span", { class: "player-name", "data-name": info.name }, info.name) : null,
    info?.robot ? h("span", { class: "robot-mark", title: t("a program plays this seat") }, serverRobot ? ROBOT_NAMES[info.name] : t("Robot")) : null,
    away
      ? info.since == null
        ? h("span", { class: "away-mark", "data-away": seat }, t("not here yet"))
        : clock(info.since, "away", { class: "away-mark", "data-away": seat })
      : null,
    roles.length ? h("span", { class: "roles" }, roles.join(" · ")) : null,
    team ? h("span", { class: "team" }, team) : null,
    number !== null ? h("span", { class: "player-number", "data-player": number }, t("player {number}", { number })) : null,
    hidden && board.phase !== "finished" ? h("span", { class: "count" }, t("{n} cards", { n: count })) : null,
    onTurn ? h("span", { class: "turn-mark" }, board.phase === "auction" ? t("to call") : t("to play")) : null,
  );
}

/** A hand in four suit rows; dummy's cards are buttons for declarer. */
export function handRows(cards, seat, { playable = false, legal = new Set(), enabled = false } = {}) {
  const groups = bySuit(cards);
  return h(
    "div",
    { class: "hand-rows", role: "group", "aria-label": t("{seat}'s cards", { seat: SEAT_NAME[seat] }) },
    SUITS.map((suit) =>
      h(
        "div",
        { class: `suit-row suit-${suit}` },
        h("span", { class: "row-symbol", "aria-hidden": "true" }, SUIT_SYMBOL[suit]),
        groups[suit].length
          ? groups[suit].map((card) =>
              playable
                ? h(
                    "button",
                    {
                      type: "button",
                      class: `rank-button suit-${suit}`,
                      "data-card": card,
                      "aria-label": t("{card}, from {seat}", { card: cardName(card), seat: SEAT_NAME[seat] }),
                      disabled: !(enabled && legal.has(card)),
                    },
                    rankText(card[1]),
                  )
                : h("span", { class: "rank-text", "data-card": card, role: "img", "aria-label": cardName(card) }, rankText(card[1])),
            )
          : h("span", { class: "void", role: "img", "aria-label": t("none") }, "—"),
      ),
    ),
  );
}

/**
 * A trick in the middle of the table. `state`: "live" (being played: the seat to play gets
 * a placeholder), "complete" (all four cards, just won), "gathered" (quitted: nothing
 * shown), "last" (the last trick looked at again) or "replay".
 */
export function trickNode(trick, bottom, { state = "live", turn = null, id = null, caption = null, faceDown = null } = {}) {
  const places = placesFor(bottom);
  const shown = state === "gathered" ? [] : trick?.cards ?? [];
  const played = new Map(shown.map((entry) => [entry.seat, entry.card]));
  const leader = shown[0]?.seat;
  const slots = h("div", {
    class: `trick trick-${state}`,
    id,
    "data-trick-state": state,
    role: "group",
    "aria-label": caption ?? t("The trick"),
  });
  for (const [place, seat] of Object.entries(places)) {
    const card = played.get(seat);
    const waiting = !card && state === "live" && turn === seat;
    const down = !card && faceDown?.seat === seat;
    slots.append(
      h(
        "div",
        {
          class: `trick-slot slot-${place}${state !== "live" && trick?.winner === seat && card ? " winner" : ""}`,
          "data-seat": seat,
          "data-led": card && seat === leader ? card : null,
        },
        card
          ? cardTile(card, { "data-card": null, "data-trick-card": card, "aria-label": `${SEAT_NAME[seat]}: ${cardName(card)}` })
          : down
            ? faceDownTile(seat, faceDown.card)
          : waiting
            ? h("span", { class: "card placeholder", role: "img", "aria-label": t("{seat} to play", { seat: SEAT_NAME[seat] }) }, "?")
            : null,
      ),
    );
  }
  return [slots, caption ? h("p", { class: "centre-note", "data-caption": state }, caption) : null];
}

/** An opening lead face down (law 41A): its back, or, for those who may see it, the card
 * turned down. */
function faceDownTile(seat, card) {
  if (card) {
    return cardTile(card, {
      "data-card": null,
      "data-face-down": card,
      class: `card suit-${card[0]} face-down`,
      "aria-label": t("{seat}: {card}, face down", { seat: SEAT_NAME[seat], card: cardName(card) }),
    });
  }
  return h("span", { class: "card card-back", "data-face-down": "", role: "img", "aria-label": t("{seat}: a card face down", { seat: SEAT_NAME[seat] }) });
}

// -- the auction ----------------------------------------------------------------------------

const AUCTION_ORDER = ["W", "N", "E", "S"];

/**
 * The auction in four columns (W N E S). For a player (`me`), opponents' calls are buttons
 * that ask what they mean and the player's own calls buttons to explain them.
 */
export function auctionGrid(board, me, id, { live = true } = {}) {
  const head = h(
    "tr",
    {},
    AUCTION_ORDER.map((seat) =>
      h(
        "th",
        { scope: "col", class: isVulnerable(seat, board.vulnerability) ? "vulnerable" : null, title: SEAT_NAME[seat] },
        SEAT_LETTER[seat],
      ),
    ),
  );
  const cells = [];
  for (let i = 0; i < AUCTION_ORDER.indexOf(board.dealer); i += 1) cells.push(h("td", {}));
  const opponents = me === null ? new Set() : new Set([next(me), next(me, 3)]);
  board.auction.forEach((entry, index) => {
    const content = [callNode(entry.call), entry.alert ? h("sup", { class: "alert-mark", title: entry.alert }, "!") : null];
    let cell;
    if (live && me !== null && opponents.has(entry.seat) && entry.call !== "P") {
      cell = h(
        "button",
        {
          type: "button",
          class: "auction-call",
          "data-ask": index,
          "aria-label": entry.alert
            ? t("{seat}: {call}, alerted: {alert}. Ask what it means", { seat: SEAT_NAME[entry.seat], call: callName(entry.call), alert: entry.alert })
            : t("{seat}: {call}. Ask what it means", { seat: SEAT_NAME[entry.seat], call: callName(entry.call) }),
        },
        content,
      );
    } else if (live && me !== null && entry.seat === me) {
      cell = h(
        "button",
        {
          type: "button",
          class: "auction-call own",
          "data-explain": index,
          "aria-label": entry.alert
            ? t("Your {call}, explained: {alert}. Explain it", { call: callName(entry.call), alert: entry.alert })
            : t("Your {call}. Explain it", { call: callName(entry.call) }),
        },
        content,
      );
    } else {
      cell = h("span", { class: "auction-call" }, content);
    }
    cells.push(
      h("td", { "data-index": index, "data-seat": entry.seat, "data-called": entry.call, class: entry.alert ? "alerted" : null }, cell),
    );
  });
  if (live && board.phase === "auction" && board.turn) {
    cells.push(h("td", { class: "to-call", "aria-label": t("{seat} to call", { seat: SEAT_NAME[board.turn] }) }, "?"));
  }
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(h("tr", {}, cells.slice(i, i + 4)));
  const explanations = board.auction
    .map((entry, index) => ({ ...entry, index }))
    .filter((entry) => entry.alert);
  const askable = live && me !== null && board.auction.some((entry) => opponents.has(entry.seat) && entry.call !== "P");
  return h(
    "div",
    { class: "auction", id },
    h("table", { class: "auction-grid" }, h("caption", { class: "visually-hidden" }, t("Auction")), h("thead", {}, head), h("tbody", {}, rows)),
    askable ? h("p", { class: "auction-hint" }, t("Tap an opponent's call to ask what it means.")) : null,
    explanations.length
      ? h(
          "ul",
          { class: "explanations" },
          explanations.map((entry) => h("li", {}, callNode(entry.call), ` (${SEAT_LETTER[entry.seat]}): ${entry.alert}`)),
        )
      : null,
  );
}

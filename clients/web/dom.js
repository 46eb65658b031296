// Building the page: the `h()` helper and the small pieces every part of the table draws
// (calls, results, cards, people, times). No state here: each takes what it draws.

import { SEAT_LETTER, SEAT_NAME, SUIT_SYMBOL, callText, cardName, notrumpText, overtricks, parseCall, rankText, scoreText } from "./bridge.js";
import { t } from "./i18n.js";

/** h("button", {class: "call", "data-call": "1NT"}, "1NT"): an element with its children. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key === "value") element.value = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export const $ = (id) => document.getElementById(id);

/**
 * Make `element`'s children `nodes` (as `h()` takes them), in order, without taking out a
 * node that is there already and stays. `replaceChildren` takes every node out and puts the
 * kept ones back: a button taken out between the press and the release of a click loses the
 * click (Chromium drops it, even when the button is back at once), a field its focus.
 */
export function place(element, ...nodes) {
  const wanted = nodes
    .flat(Infinity)
    .filter((node) => node !== null && node !== undefined && node !== false)
    .map((node) => (node instanceof Node ? node : document.createTextNode(String(node))));
  const staying = new Set(wanted);
  for (const child of [...element.childNodes]) {
    if (!staying.has(child)) child.remove();
  }
  let next = element.firstChild;
  for (const node of wanted) {
    if (node === next) next = next.nextSibling;
    else element.insertBefore(node, next);
  }
}

export function suitSymbol(suit) {
  return h("span", { class: `suit suit-${suit}` }, SUIT_SYMBOL[suit]);
}

/** A call or contract with its suit symbol in the suit's colour: 4♠X, 3NT, Pass, Dbl. */
export function callNode(call) {
  if (call === "P") return h("span", { class: "call-text pass" }, callText(call));
  if (call === "X") return h("span", { class: "call-text double" }, callText(call));
  if (call === "XX") return h("span", { class: "call-text redouble" }, callText(call));
  const bid = parseCall(call);
  return h(
    "span",
    { class: "call-text bid" },
    String(bid.level),
    bid.strain === "NT" ? h("span", { class: "nt" }, notrumpText()) : suitSymbol(bid.strain),
    bid.doubled,
  );
}

/** A card as text in its suit's colour: ♠K, ♥10. */
export function cardText(card) {
  return h(
    "span",
    { class: `card-text suit-${card[0]}`, "data-card-text": card, role: "img", "aria-label": cardName(card) },
    SUIT_SYMBOL[card[0]],
    rankText(card[1]),
  );
}

/**
 * "4♠ N =  N-S +420": a table's result as a scorecard writes it (a result the director
 * assigned, or whose tricks the director's ruling set, says so).
 */
export function resultNode(result) {
  if (!result) return h("span", { class: "result" }, "–");
  const assigned = result.assigned
    ? h("span", { class: "assigned", "data-decided": "assigned", title: t("assigned by the director") }, " ", t("(assigned)"))
    : result.ruled
      ? h("span", { class: "assigned", "data-decided": "ruled", title: t("the tricks were ruled by the director") }, " ", t("(ruled)"))
      : null;
  if (result.contract === null) return h("span", { class: "result" }, t("Passed out, 0"), assigned);
  return h(
    "span",
    { class: "result" },
    callNode(result.contract),
    ` ${SEAT_LETTER[result.declarer]} ${overtricks(result.contract, result.tricks)}`,
    h("span", { class: "score" }, ` ${scoreText(result.ns_score)}`),
    assigned,
  );
}

export function cardTile(card, props = {}, tag = "span") {
  return h(
    tag,
    {
      class: `card suit-${card[0]}`,
      "data-card": card,
      role: tag === "button" ? null : "img", // a card shown: spoken by its name
      "aria-label": cardName(card),
      title: tag === "button" ? cardName(card) : null,
      ...props,
    },
    h("span", { class: "rank", "aria-hidden": "true" }, rankText(card[1])),
    h("span", { class: "pip", "aria-hidden": "true" }, SUIT_SYMBOL[card[0]]),
  );
}

// -- people --------------------------------------------------------------------------------

/** The PlayerInfo of a seat at a table, from a view's `players` (or undefined). */
export function personAt(players, table, seat) {
  return (players ?? []).find((p) => p.table === table && p.seat === seat);
}

/** "East (Bob)", or "East" when the seat has no name yet. */
export function seatWithName(info, seat) {
  return info?.name ? t("{seat} ({name})", { seat: SEAT_NAME[seat], name: info.name }) : SEAT_NAME[seat];
}

/** Whether the seat's player is away: not connected (robots included: a robot can drop too). */
export function isAway(info) {
  return info !== undefined && !info.connected;
}

// -- times -----------------------------------------------------------------------------------

let skew = 0;

/** The server's clock, as its `welcome.now` told it: every moment of the views is by it. */
export function setServerNow(now) {
  skew = typeof now === "number" ? now - Date.now() : 0;
}

export function serverNow() {
  return Date.now() + skew;
}

/** "7:30", "1:02:05": a countdown's time left, to the second. */
export function countdownText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}:${two(seconds % 60)}`;
  return `${Math.floor(minutes / 60)}:${two(minutes % 60)}:${two(seconds % 60)}`;
}

/** "45 s", "2 min", "1 h 5 min": how long `ms` milliseconds is, as people say it. */
export function durationText(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return t("{n} s", { n: seconds });
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return t("{n} min", { n: minutes });
  const rest = minutes % 60;
  const hours = Math.floor(minutes / 60);
  return rest ? t("{hours} h {n} min", { hours, n: rest }) : t("{hours} h", { hours });
}

/** "away 2 min" (or "not here yet" for a seat nobody has joined). */
export function awayText(info, now = serverNow()) {
  if (info.since == null) return t("not here yet");
  return t("away {time}", { time: durationText(now - info.since) });
}

/**
 * A piece of text that follows the clock: `clock(ms, "ago")` reads "2 min ago",
 * `clock(ms, "in")` "12 s", `clock(info.since, "away")` "away 2 min" ("away-minutes": to
 * the minute), `clock(ms, "left")` "7:30 left", `clock(ms, "slow")` "behind time" once past
 * (empty before). Moments are the server's (serverNow). tickClocks() keeps every one of them up to date without drawing the page
 * again.
 */
export function clock(at, kind, props = {}) {
  const element = h("span", { ...props, "data-clock": kind, "data-at": at });
  element.textContent = clockText(at, kind);
  return element;
}

function clockText(at, kind, now = serverNow()) {
  if (kind === "in") return durationText(Math.max(0, at - now));
  if (kind === "left") return t("{time} left", { time: countdownText(at - now) });
  if (kind === "slow") return now > at ? t("behind time") : "";
  if (kind === "away") return t("away {time}", { time: durationText(now - at) });
  if (kind === "away-minutes") {
    // In a live region: a screen reader hears it change once a minute, not every second.
    const minutes = Math.floor((now - at) / 60000);
    return minutes < 1 ? t("away less than a minute") : t("away {time}", { time: durationText(minutes * 60000) });
  }
  const passed = now - at;
  return passed < 5000 ? t("just now") : t("{time} ago", { time: durationText(passed) });
}

export function tickClocks() {
  const now = serverNow();
  for (const element of document.querySelectorAll("[data-clock]")) {
    const text = clockText(Number(element.dataset.at), element.dataset.clock, now);
    if (element.textContent !== text) element.textContent = text;
  }
}

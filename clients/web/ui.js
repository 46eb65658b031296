// What the page itself remembers between two views: never the game (each view holds all of
// it), only the viewer's own choices (a claim being composed, a replay step, a draft), a few
// moments (when a trick was completed, when the view last changed) and the server's
// answers that are not in the view (a board as both tables played it).

import { $, h } from "./dom.js";
import { t } from "./i18n.js";

export const state = {
  welcome: null,
  view: null,
  busy: false, // an action is on its way and not answered yet
  showLastTrick: false,
  claimOpen: false,
  /** The player asked to withdraw the concession and is asked to confirm it. */
  confirmWithdrawal: false,
  claimTricks: null,
  explainIndex: null,
  directorFormOpen: false,
  chosenCall: null, // "Confirm my bid": the call picked, not sent yet
  turnKey: "",
  wasLost: false,
  guardUntil: 0, // clicks on cards and calls are ignored until then (the view just changed)
  boardKey: null,
  tricksSeen: new Map(), // table -> {key, at}: when its latest trick was seen completed
  replay: new Map(), // replay key -> step shown
  recordTable: new Map(), // board -> the table whose play the record panel replays
  records: new Map(), // board -> the server's board_record
  recordBoard: null, // the board whose record the viewer chose to look at
  nameOffered: false, // the name this browser remembers was offered to a seat without one
  namePending: false, // a set_name is on its way
  nameDismissed: false, // the player chose to stay without a name for now
  substituted: null, // the director's last substitution: {table, seat, link}
  drafts: new Map(), // input id -> text typed there (inputs are drawn afresh)
  deals: null, // the finished match's deals checked against the commitment: {ok, ...} or "checking"
};

/** The pieces the modules share without importing the page's main module. */
export const app = {
  connection: null,
  render: () => {},
};

export const GUARD_MS = 300;
export const TRICK_HOLD_MS = 1000;

export function canAct() {
  return app.connection !== null && app.connection.connected && !state.busy;
}

/** Whether a click on a card or a call now would land on a view that just changed. */
export function guarded() {
  return Date.now() < state.guardUntil;
}

let guardTimer = null;

/** The view changed under the pointer: ignore clicks on cards and calls for a moment. */
export function startGuard() {
  state.guardUntil = Date.now() + GUARD_MS;
  document.body.dataset.guard = "on";
  clearTimeout(guardTimer);
  guardTimer = setTimeout(() => {
    document.body.dataset.guard = "off";
  }, GUARD_MS);
}

/** Actions after which the table's buttons wait for the server's answer. */
export const BUSY = new Set(["call", "card", "claim", "claim_answer", "undo", "undo_answer", "withdraw_claim"]);

/** Send an action (answered by an ack or an error); calls and cards wait for the answer. */
export function send(message, label) {
  const connection = app.connection;
  if (!connection || !connection.connected) {
    say(t("Not connected: wait until the connection is back."), "error");
    return null;
  }
  const ref = connection.send(message, label);
  if (ref !== null && BUSY.has(message.type)) {
    state.busy = true;
    app.render();
  }
  return ref;
}

/** A short message over the top bar, for a few seconds. */
export function say(text, kind = "info") {
  const line = h("p", { class: `message ${kind}` }, h("span", { class: "message-text" }, text));
  const box = $("messages");
  box.append(line);
  while (box.children.length > 3) box.firstChild.remove();
  setTimeout(() => line.remove(), kind === "error" ? 8000 : 5000);
}

/**
 * Say `text` to a screen reader through the hidden live region (a log: each line is read
 * once, as it comes), not on the screen: the calls and cards as they are made.
 */
export function speak(text) {
  spokenLines.push(text);
  if (spokenLines.length === 1) setTimeout(flushSpoken, 50);
}

const SPOKEN_KEPT = 8;
const spokenLines = [];

/** Put what was said since the last time into the live region at once (a burst of robots'
 * cards is one change of the page, not a hundred), keeping its last few lines. */
function flushSpoken() {
  const box = $("spoken");
  box.append(...spokenLines.splice(0).slice(-SPOKEN_KEPT).map((text) => h("p", {}, text)));
  while (box.children.length > SPOKEN_KEPT) box.firstChild.remove();
}

/** An input drawn afresh keeps what was typed in it: its value comes from the drafts. */
export function draftInput(id, props = {}) {
  return h("input", { id, "data-draft": "", autocomplete: "off", type: "text", ...props, value: state.drafts.get(id) ?? props.value ?? "" });
}

export function takeDraft(id) {
  const value = (state.drafts.get(id) ?? $(id)?.value ?? "").trim();
  state.drafts.delete(id);
  const input = $(id);
  if (input) input.value = "";
  return value;
}

// -- local settings: the viewer's own, kept in this browser --------------------------------

const NAME_KEY = "duplicate.name";
const CONFIRM_KEY = "duplicate.confirm-bid";

const memory = new Map(); // when the browser keeps nothing (storage off), the page does

function stored(key) {
  try {
    return localStorage.getItem(key) ?? memory.get(key) ?? null;
  } catch {
    return memory.get(key) ?? null;
  }
}

function store(key, value) {
  if (value === null) memory.delete(key);
  else memory.set(key, value);
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // storage is off: the setting lasts as long as the page
  }
}

export const settings = {
  get name() {
    return stored(NAME_KEY);
  },
  set name(value) {
    store(NAME_KEY, value);
  },
  get confirmBid() {
    return stored(CONFIRM_KEY) === "1";
  },
  set confirmBid(on) {
    store(CONFIRM_KEY, on ? "1" : null);
  },
};

// One seat's connection to the server (protocol/SPEC.md): msgpack maps in binary WebSocket
// frames, `hello` first, updates numbered without gaps, and after a drop a reconnection
// with backoff that resumes from the last update applied (`hello` with `last_seq`). Every
// action carries an `action_id`: one whose answer a drop took is sent again with it once
// the connection is back and the table is up to date, if the table has not moved on from
// the moment it was meant for; the server applies it at most once. The page asks for
// heartbeats: the server then sends something every few seconds (a `heartbeat` when it has
// nothing else, answered with `heartbeat_answer`), and a socket that has brought nothing for HEARTBEAT_SILENCE_MS
// is dead whatever it says (traffic silently dropped): the page says so and opens a new one.

import { applyUpdate, ChangeError } from "./changes.js";
import { decode, encode } from "./vendor/msgpack.mjs";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";

export const PROTOCOL_VERSION = 7;
const CLIENT_NAME = "duplicate-web";
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
/** Silence after which a connection with heartbeats is dead (SPEC.md: HEARTBEAT_SILENCE_S). */
const HEARTBEAT_SILENCE_MS = 10000;
const WATCH_EVERY_MS = 1000;
/** How long an action the store could not take waits before it is sent again, unless the
 * refusal says (`retry_after_ms`: a server past what it can serve, SPEC.md section 2). */
const RESEND_AFTER_MS = 2000;
/** Refusals after which the server cannot say whether it stored the action (SPEC.md 6). */
const UNKNOWN_OUTCOME = new Set(["unavailable", "internal"]);
/** Hello errors after which trying again cannot help. */
const FATAL = new Set(["bad_token", "unsupported_version", "forbidden"]);
/** The messages that act on the match (SPEC.md section 6): each carries an action_id. */
const ACTIONS = new Set([
  "call", "card", "claim", "claim_answer", "withdraw_claim", "withdraw_concession", "undo",
  "undo_answer", "next_board", "set_name", "call_director", "ask", "explain", "chat", "rule",
  "assign_result", "adjust_score", "void_board", "start_round", "see_calls", "close_calls",
  "decide_withdrawal",
]);

/** Actions meant for as long as the board lasts, whatever else happens at the table. */
const LOOSE_ACTIONS = new Set(["chat", "ask", "explain", "call_director", "set_name"]);

/**
 * The moment of the table an action is meant for, as the view shows it (as the Python client
 * library's `Client._moment`): for a call, card, claim or answer the board, its phase, the
 * calls and cards so far and the claim and undo in question; for chat and the like the board.
 */
function momentOf(view, type) {
  const board = view?.board;
  if (!board) return null;
  // Replay duplicate plays a board again at the same table in round 2: another moment.
  const which = (board.round ?? 1) > 1 ? [board.board, board.round] : [board.board];
  if (LOOSE_ACTIONS.has(type)) return JSON.stringify(which);
  const played = Object.values(board.hand_sizes).reduce((sum, size) => sum + size, 0);
  return JSON.stringify([...which, board.phase, board.auction.length, played, board.claim ?? null, board.undo ?? null]);
}

/** Eight random hex digits: this page's actions are `${prefix}-${number}`. */
function randomPrefix() {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The WebSocket address for a page: same host, same path prefix, the page's own name
 * (/play, /watch, /direct) replaced by /ws; https pages use wss.
 */
export function socketUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  let prefix = location.pathname.replace(/\/+$/, "");
  for (const page of ["/play", "/watch", "/direct", "/index.html", "/web"]) {
    if (prefix.endsWith(page)) prefix = prefix.slice(0, -page.length);
  }
  return `${scheme}//${location.host}${prefix}/ws`;
}

export class Connection {
  /**
   * `handlers`: welcome(message), update(message), answer(message, request) for an answer
   * with a ref (an ack, an error, a board or match record, a new link), refused(message)
   * for an error without one, status(state, detail) with state "connecting", "connected",
   * "lost" or "failed".
   */
  constructor(url, token, handlers) {
    this.url = url;
    this.token = token;
    this.handlers = handlers;
    this.seq = 0;
    this.socket = null;
    this.authenticated = false;
    this.attempts = 0;
    this.failed = false;
    this.everConnected = false;
    this.nextRef = 1;
    this.pending = new Map();
    this.actionPrefix = randomPrefix();
    this.nextAction = 1;
    /** Actions sent whose answer a drop took: sent again, same action_id, once back. */
    this.inDoubt = [];
    /** The ref of the ping sent after a welcome: its pong comes after the catch-up. */
    this.syncRef = null;
    /** The latest view (an update's), for the moment each action is meant for. */
    this.view = null;
    this.retryTimer = null;
    this.resendTimer = null;
    this.watchTimer = null;
    /** When the socket last brought a frame (performance.now(): a monotonic clock, which a
     * change of the wall clock does not move). */
    this.heardAt = 0;
  }

  start() {
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
    this.open();
  }

  get connected() {
    return this.authenticated && this.socket?.readyState === WebSocket.OPEN;
  }

  /**
   * Sends a client message with a fresh ref (and an action with an action_id of its own);
   * returns the ref, or null when not connected.
   */
  send(message, label = message.type) {
    if (!this.connected) return null;
    let moment;
    if (ACTIONS.has(message.type) && message.action_id == null) {
      message = { ...message, action_id: `${this.actionPrefix}-${this.nextAction++}` };
      moment = momentOf(this.view, message.type);
    }
    return this.sendRequest({ ...message, label, moment });
  }

  sendRequest(request) {
    const { label, moment, ...message } = request;
    const ref = this.nextRef++;
    this.pending.set(ref, request);
    this.socket.send(encode({ ...message, ref }));
    return ref;
  }

  open() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.handlers.status("connecting", this.attempts);
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.handlers.status("failed", String(error));
      this.failed = true;
      return;
    }
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.authenticated = false;
    socket.addEventListener("open", () => this.hello());
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data); // not one given up for its silence
    });
    socket.addEventListener("close", () => this.dropped(socket));
  }

  hello() {
    this.raw({
      type: "hello",
      version: PROTOCOL_VERSION,
      token: this.token,
      last_seq: this.seq > 0 ? this.seq : null,
      client: CLIENT_NAME,
      heartbeat: true,
    });
  }

  raw(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(encode(message));
  }

  receive(data) {
    if (!(data instanceof ArrayBuffer)) return; // the server sends binary frames only
    this.heardAt = performance.now();
    let message;
    try {
      message = decode(new Uint8Array(data));
    } catch {
      this.restart();
      return;
    }
    switch (message.type) {
      case "welcome":
        this.authenticated = true;
        this.attempts = 0;
        this.everConnected = true;
        this.handlers.welcome(message);
        this.handlers.status("connected");
        this.keepAlive();
        // What the drop left in doubt waits for the catch-up, which comes before the answer
        // to this ping: then the view shows whether the table has moved on.
        this.syncRef = this.nextRef++;
        this.raw({ type: "ping", ref: this.syncRef });
        break;
      case "update":
        this.applyUpdate(message);
        break;
      case "heartbeat":
        this.raw({ type: "heartbeat_answer", ref: message.ref });
        break;
      case "pong":
        if (message.ref != null && message.ref === this.syncRef) {
          this.syncRef = null;
          this.resendInDoubt();
        }
        break;
      case "ack":
      case "error":
      case "board_record":
      case "match_record":
      case "substituted":
        this.answer(message);
        break;
      default:
        break; // match_created (never asked for here), and any message of a newer server: ignored
    }
  }

  applyUpdate(update) {
    const snapshot = update.events.some((event) => event.type === "snapshot");
    if (update.seq === this.seq + 1 || (snapshot && update.seq >= this.seq)) {
      if (update.view == null) {
        // Only what changed since the update before: the handlers get the whole view.
        try {
          if (this.view === null) throw new ChangeError("changes to a view never received");
          update.view = applyUpdate(this.view, update);
        } catch (error) {
          if (!(error instanceof ChangeError)) throw error;
          console.warn(`update ${update.seq}: ${error.message}; starting afresh`);
          this.seq = 0;
          this.view = null;
          this.restart();
          return;
        }
      }
      this.seq = update.seq;
      this.view = update.view;
      this.handlers.update(update);
    } else if (update.seq > this.seq) {
      this.restart(); // frames were lost: resume from the last update applied
    }
  }

  answer(message) {
    if (message.type === "error" && !this.authenticated) {
      if (message.code === "bad_sequence") {
        this.seq = 0; // the server never sent what we think we saw: start afresh
        this.hello();
        return;
      }
      if (FATAL.has(message.code)) {
        this.failed = true;
        const outdated = message.code === "unsupported_version"; // a page cached before an update
        this.handlers.status("failed", outdated ? t("the server was updated: reload this page") : errorText(message));
        this.socket?.close();
        return;
      }
    }
    const request = message.ref == null ? undefined : this.pending.get(message.ref);
    if (message.ref != null) this.pending.delete(message.ref);
    if (request && message.type === "error" && UNKNOWN_OUTCOME.has(message.code) && ACTIONS.has(request.type)) {
      // The server cannot tell whether its store took it: in doubt, sent again shortly.
      this.inDoubt.push(request);
      clearTimeout(this.resendTimer);
      this.resendTimer = setTimeout(() => this.resendInDoubt(), message.retry_after_ms ?? RESEND_AFTER_MS);
      this.handlers.refused({ ...message, message: t("The server could not store your {what} just now: it is sent again in a moment.", { what: request.label }) });
    } else if (request) this.handlers.answer(message, request);
    else if (message.type === "error") this.handlers.refused(message);
  }

  /**
   * Sends again, each with its own action_id, the actions whose answer is in doubt; one whose
   * moment has passed is forgotten instead (it took, and the table shows it, or it is no
   * longer meant: an answer must not accept a claim its player never saw).
   */
  resendInDoubt() {
    if (!this.connected || this.syncRef !== null) return; // after the welcome's catch-up
    for (const request of this.inDoubt.splice(0)) {
      if (request.moment !== undefined && request.moment !== momentOf(this.view, request.type)) {
        this.handlers.answer({ type: "moved_on" }, request);
      } else {
        this.sendRequest(request);
      }
    }
  }

  /**
   * Watches the heartbeats: a socket silent for HEARTBEAT_SILENCE_MS is given up at once. A
   * phone that slept or changed networks may keep a dead socket "open" for minutes, and its
   * closing handshake could take as long: the page does not wait for it.
   */
  keepAlive() {
    clearInterval(this.watchTimer);
    this.watchTimer = setInterval(() => {
      if (!this.connected || performance.now() - this.heardAt < HEARTBEAT_SILENCE_MS) return;
      const socket = this.socket;
      this.dropped(socket, true);
      socket.close();
    }, WATCH_EVERY_MS);
  }

  restart() {
    this.socket?.close();
  }

  /** The socket is gone (`silent`: given up for its silence); try again after a backoff. */
  dropped(socket, silent = false) {
    if (socket !== this.socket) return;
    this.socket = null; // a late close event of a socket given up is not a second drop
    clearInterval(this.watchTimer);
    this.authenticated = false;
    for (const [ref, request] of this.pending) {
      if (ACTIONS.has(request.type)) this.inDoubt.push(request); // its answer comes later
      else this.handlers.answer({ type: "lost", ref }, request);
    }
    this.pending.clear();
    if (this.failed) return;
    const delay = silent ? 0 : BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)];
    this.attempts += 1;
    const jittered = Math.round(delay * (0.8 + Math.random() * 0.4));
    this.handlers.status("lost", jittered);
    this.retryTimer = setTimeout(() => this.open(), jittered);
  }

  /** Try at once (the network is back, or the page is visible again). */
  reconnectNow() {
    if (this.failed || this.retryTimer === null) return;
    this.open();
  }
}

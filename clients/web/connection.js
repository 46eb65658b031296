// One seat's connection to the server (protocol/SPEC.md): msgpack maps in binary WebSocket
// frames, `hello` first, updates numbered without gaps, and after a drop a reconnection
// with backoff that resumes from the last update applied (`hello` with `last_seq`).

import { decode, encode } from "./vendor/msgpack.mjs";

export const PROTOCOL_VERSION = 2;
const CLIENT_NAME = "duplicate-web";
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const PING_EVERY_MS = 15000;
const PONG_WITHIN_MS = 10000;
/** Hello errors after which trying again cannot help. */
const FATAL = new Set(["bad_token", "unsupported_version", "forbidden"]);

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
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
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

  /** Sends a client message with a fresh ref; returns the ref, or null when not connected. */
  send(message, label = message.type) {
    if (!this.connected) return null;
    const ref = this.nextRef++;
    this.pending.set(ref, { ...message, label });
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
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => this.dropped(socket));
  }

  hello() {
    this.raw({
      type: "hello",
      version: PROTOCOL_VERSION,
      token: this.token,
      last_seq: this.seq > 0 ? this.seq : null,
      client: CLIENT_NAME,
    });
  }

  raw(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(encode(message));
  }

  receive(data) {
    if (!(data instanceof ArrayBuffer)) return; // the server sends binary frames only
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
        break;
      case "update":
        this.applyUpdate(message);
        break;
      case "pong":
        clearTimeout(this.pongTimer);
        break;
      case "ack":
      case "error":
      case "board_record":
      case "match_record":
      case "substituted":
        this.answer(message);
        break;
      default:
        break; // match_created: never asked for here
    }
  }

  applyUpdate(update) {
    const snapshot = update.events.some((event) => event.type === "snapshot");
    if (update.seq === this.seq + 1 || (snapshot && update.seq >= this.seq)) {
      this.seq = update.seq;
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
        this.handlers.status("failed", message.message);
        this.socket?.close();
        return;
      }
    }
    const request = message.ref == null ? undefined : this.pending.get(message.ref);
    if (message.ref != null) this.pending.delete(message.ref);
    if (request) this.handlers.answer(message, request);
    else if (message.type === "error") this.handlers.refused(message);
  }

  keepAlive() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (!this.connected) return;
      this.raw({ type: "ping", ref: null });
      clearTimeout(this.pongTimer);
      // A phone that slept or changed networks may keep a dead socket "open" for minutes.
      this.pongTimer = setTimeout(() => this.restart(), PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  restart() {
    this.socket?.close();
  }

  dropped(socket) {
    if (socket !== this.socket) return;
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.authenticated = false;
    for (const [ref, request] of this.pending) {
      this.handlers.answer({ type: "lost", ref }, request);
    }
    this.pending.clear();
    if (this.failed) return;
    const delay = BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)];
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

// The organiser's connection (protocol/SPEC.md, sections 2 and 4, and the organiser's
// messages): msgpack maps in binary WebSocket frames, `hello` first. The organiser signs in
// once with the organiser key, typed into the page, and asks at once for a session
// (`open_session`): from then on the page says `hello` with the session's token, which it
// keeps in this tab's sessionStorage, and forgets the key. The key is never stored, never
// put in an address, never written to the console.
//
// Unlike a seat's connection (connection.js) there is no view log to resume: after a drop
// the page says hello again with the session's token, and the page asks for its list
// again. Every request is answered by its `ref`; a request whose answer a drop took is
// sent again once the connection is back (the organiser's creations carry a request_id,
// which makes that safe: the server answers a repeated one as it answered the first).

import { decode, encode } from "./vendor/msgpack.mjs";

export const PROTOCOL_VERSION = 7;
/** Where this tab keeps the organiser's session token (never the key). */
export const SESSION_KEY = "duplicate-organiser-session";
const CLIENT_NAME = "duplicate-organise";
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
/** Silence after which a connection with heartbeats is dead (SPEC.md: HEARTBEAT_SILENCE_S). */
const HEARTBEAT_SILENCE_MS = 10000;
const WATCH_EVERY_MS = 1000;
/** Answers to a `hello` after which trying again with the same token cannot help. */
const REFUSED = new Set(["bad_token", "forbidden", "unsupported_version"]);
/** The answers the page waits for, each to the request with its `ref`. */
const ANSWERS = new Set([
  "session", "session_closed", "match_list", "match_links", "match_created", "deals_sealed",
  "match_record", "substituted", "match_archived", "pong", "error",
  "event_list", "event_created", "event",
]);

/** A refusal from the server (an `error` frame), or the connection lost before the answer. */
export class RequestError extends Error {
  constructor(answer) {
    super(answer.message ?? answer.code);
    this.code = answer.code;
    /** The refused message's field the error concerns (create_match's "boards"...), or null. */
    this.field = answer.field ?? null;
    this.answer = answer;
  }
}

/**
 * The WebSocket address for the organiser's page: same host, same path prefix, /organise
 * replaced by /ws; https pages use wss.
 */
export function socketUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const prefix = location.pathname.replace(/\/+$/, "").replace(/\/organise$/, "");
  return `${scheme}//${location.host}${prefix}/ws`;
}

function storedSession() {
  try {
    return sessionStorage.getItem(SESSION_KEY);
  } catch {
    return null; // storage is off: the organiser signs in with each page
  }
}

function storeSession(token) {
  try {
    if (token === null) sessionStorage.removeItem(SESSION_KEY);
    else sessionStorage.setItem(SESSION_KEY, token);
  } catch {
    // storage is off: the session lasts as long as the page
  }
}

export class OrganiserConsole {
  /**
   * `handlers`: status(state, detail) with state "signed-out", "connecting", "connected" or
   * "lost" (detail: the milliseconds until the next attempt); ready(welcome) once signed in
   * (again, after each reconnection); signedOut(error) when the session is over (error: the
   * server's refusal, or null when the organiser signed out); pushed(message) for what the
   * server sends unasked (the live list); refused(error) for an error with no request.
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.token = storedSession();
    this.socket = null;
    this.authenticated = false;
    this.attempts = 0;
    this.nextRef = 1;
    /** ref -> {message, resolve, reject}: sent, not answered yet. */
    this.pending = new Map();
    /** Requests waiting for the connection (made while it was down, or sent again after a drop). */
    this.queue = [];
    /** While signing in with the key: {key, resolve, reject}. */
    this.signing = null;
    /** Signed in with the key, the session's connection not welcomed yet: {session, resolve, reject}. */
    this.arriving = null;
    this.retryTimer = null;
    this.watchTimer = null;
    this.heardAt = 0;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  /** Whether this tab holds a session (it may not be connected just now). */
  get hasSession() {
    return this.token !== null;
  }

  get connected() {
    return this.authenticated && this.socket?.readyState === WebSocket.OPEN;
  }

  /** Connect with the session this tab keeps, if it keeps one. */
  resume() {
    if (this.token === null) {
      this.handlers.status("signed-out");
      return false;
    }
    this.open();
    return true;
  }

  /**
   * Sign in with the organiser key: resolves once the session is open, rejects with a
   * RequestError (a wrong key: `bad_token`; the page of another site: `forbidden`; the
   * server out of reach: `lost`). The key is kept only until the server answers.
   */
  signIn(key) {
    this.close();
    this.token = null;
    storeSession(null);
    return new Promise((resolve, reject) => {
      this.signing = { key, resolve, reject };
      this.open();
    });
  }

  /** End the session (the server refuses its token from then on), then sign out here. */
  async signOut() {
    if (this.connected) {
      try {
        await this.request({ type: "close_session" });
      } catch {
        // gone already, or the connection dropped: forgotten here all the same
      }
    }
    this.end(null);
  }

  /** Send a request; resolves with its answer, rejects with a RequestError. */
  request(message) {
    return new Promise((resolve, reject) => {
      const entry = { message, resolve, reject };
      if (this.connected) this.send(entry);
      else this.queue.push(entry);
    });
  }

  send(entry) {
    const ref = this.nextRef++;
    this.pending.set(ref, entry);
    this.socket.send(encode({ ...entry.message, ref }));
  }

  raw(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(encode(message));
  }

  open() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.handlers.status("connecting", this.attempts);
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.failSignIn({ code: "lost", message: String(error) });
      this.handlers.status("lost", null);
      return;
    }
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.authenticated = false;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      const token = this.signing ? this.signing.key : this.token;
      socket.send(encode({
        type: "hello",
        version: PROTOCOL_VERSION,
        versions: [PROTOCOL_VERSION],
        token,
        client: CLIENT_NAME,
        heartbeat: true,
      }));
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener("close", () => this.dropped(socket));
  }

  receive(data) {
    if (!(data instanceof ArrayBuffer)) return; // the server sends binary frames only
    this.heardAt = performance.now();
    let message;
    try {
      message = decode(new Uint8Array(data));
    } catch {
      this.socket?.close();
      return;
    }
    if (message.type === "heartbeat") {
      this.raw({ type: "heartbeat_answer", ref: message.ref });
      return;
    }
    if (!this.authenticated) {
      if (message.type === "welcome") this.welcomed(message);
      else if (message.type === "error") this.helloRefused(message);
      return;
    }
    const entry = message.ref == null ? undefined : this.pending.get(message.ref);
    if (entry && ANSWERS.has(message.type)) {
      this.pending.delete(message.ref);
      if (message.type === "error") entry.reject(new RequestError(message));
      else entry.resolve(message);
      if (message.type === "match_list") this.handlers.pushed(message);
      return;
    }
    if (message.type === "error") {
      // Unasked: the session expired (or was closed elsewhere), or the server refused a
      // frame it could not read far enough to find its ref.
      if (message.code === "bad_token") this.end(message);
      else this.handlers.refused(message);
      return;
    }
    this.handlers.pushed(message); // the live list; what a newer server sends: ignored there
  }

  async welcomed(welcome) {
    if (welcome.role !== "organiser") {
      // A player's or a director's token, typed as the key: not the organiser's.
      this.authenticated = false;
      const refusal = { code: "bad_token", message: "that is not the organiser key", ref: null };
      if (this.signing) this.failSignIn(refusal);
      else this.end(refusal);
      return;
    }
    this.authenticated = true;
    this.attempts = 0;
    this.keepAlive();
    if (this.signing) {
      const signing = this.signing;
      let session;
      try {
        const ref = this.nextRef++;
        session = await new Promise((resolve, reject) => {
          this.pending.set(ref, { message: { type: "open_session" }, resolve, reject });
          this.raw({ type: "open_session", ref });
        });
      } catch (error) {
        this.failSignIn(error instanceof RequestError ? error.answer : { code: "lost", message: String(error) });
        return;
      }
      signing.key = null;
      this.signing = null;
      this.token = session.token;
      storeSession(session.token);
      // Signed in once the session's own connection is welcomed (or refused: see end()).
      this.arriving = { session, resolve: signing.resolve, reject: signing.reject };
      // From now on the page speaks with the session, on a connection of its own: it ends
      // when the session does (expired, or closed from another page), and signing out
      // closes it. The key's connection has done its work.
      this.close();
      this.open();
      return;
    }
    this.handlers.status("connected");
    this.handlers.ready(welcome);
    for (const entry of this.queue.splice(0)) this.send(entry);
    const arriving = this.arriving;
    this.arriving = null;
    arriving?.resolve(arriving.session);
  }

  helloRefused(error) {
    if (this.signing) {
      this.failSignIn(error);
      return;
    }
    if (REFUSED.has(error.code)) {
      this.end(error);
    } else if (error.code === "rate_limited" || error.code === "unavailable") {
      const socket = this.socket;
      this.socket = null;
      socket?.close();
      this.retry(error.retry_after_ms ?? null);
    } else {
      this.end(error);
    }
  }

  /** Signing in with the key failed: the key is forgotten, the form says why. */
  failSignIn(error) {
    const signing = this.signing;
    if (!signing) return;
    signing.key = null;
    this.signing = null;
    this.close();
    this.handlers.status("signed-out");
    signing.reject(new RequestError(error));
  }

  /** The session is over: forget its token, refuse what waits, say so. */
  end(error) {
    this.token = null;
    storeSession(null);
    this.close();
    const waiting = [...this.pending.values(), ...this.queue.splice(0)];
    this.pending.clear();
    for (const entry of waiting) entry.reject(new RequestError({ code: "signed_out", message: "signed out" }));
    this.handlers.status("signed-out");
    this.handlers.signedOut(error);
    const arriving = this.arriving;
    this.arriving = null;
    arriving?.reject(new RequestError(error ?? { code: "signed_out", message: "signed out" }));
  }

  /** Close the socket without trying again. */
  close() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    clearInterval(this.watchTimer);
    const socket = this.socket;
    this.socket = null;
    this.authenticated = false;
    socket?.close();
  }

  /** A socket silent for HEARTBEAT_SILENCE_MS is given up at once (SPEC.md, section 2). */
  keepAlive() {
    clearInterval(this.watchTimer);
    this.watchTimer = setInterval(() => {
      if (!this.connected || performance.now() - this.heardAt < HEARTBEAT_SILENCE_MS) return;
      const socket = this.socket;
      this.dropped(socket, true);
      socket.close();
    }, WATCH_EVERY_MS);
  }

  /** The socket is gone: requests in flight wait to be sent again; try again after a backoff. */
  dropped(socket, silent = false) {
    if (socket !== this.socket) return;
    this.socket = null;
    clearInterval(this.watchTimer);
    this.authenticated = false;
    this.queue.unshift(...[...this.pending.values()].filter((entry) => entry.message.type !== "open_session"));
    for (const entry of this.pending.values()) {
      if (entry.message.type === "open_session") entry.reject(new RequestError({ code: "lost", message: "connection lost" }));
    }
    this.pending.clear();
    if (this.signing) {
      this.failSignIn({ code: "lost", message: "the connection to the server was lost" });
      return;
    }
    if (this.token === null) return;
    this.retry(silent ? 0 : null);
  }

  retry(delay) {
    const wait = delay ?? BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)];
    this.attempts += 1;
    const jittered = Math.round(wait * (0.8 + Math.random() * 0.4));
    this.handlers.status("lost", jittered);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), jittered);
  }

  /** Try at once (the network is back, or the page is visible again). */
  reconnectNow() {
    if (this.retryTimer === null || this.token === null) return;
    this.open();
  }
}

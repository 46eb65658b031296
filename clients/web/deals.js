// Deals nobody can doubt: the check, in the browser, that a finished match's deals are the
// ones the server committed to before the first card (protocol/SPEC.md, "Deals nobody can
// doubt"). The record publishes the deal set as PBN escape lines ("% " and the line); its
// SHA-256 must be the commitment this page was shown from its first view, and every game's
// deal must be the set's deal of that board. SHA-256 is computed here (crypto.subtle is
// only there on https or localhost pages, and a club's server is often neither).

import { t } from "./i18n.js";

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The SHA-256 of `text` (as UTF-8), in 64 lowercase hex digits (FIPS 180-4). */
export function sha256(text) {
  return Array.from(sha256Bytes(new TextEncoder().encode(text)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The SHA-256 digest (32 bytes) of `data` (a Uint8Array). */
function sha256Bytes(data) {
  const length = Math.ceil((data.length + 9) / 64) * 64;
  const bytes = new Uint8Array(length);
  bytes.set(data);
  bytes[data.length] = 0x80;
  const view = new DataView(bytes.buffer);
  view.setUint32(length - 8, Math.floor(data.length / 0x20000000));
  view.setUint32(length - 4, (data.length * 8) >>> 0);
  const hash = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotate = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, hh] = hash;
    for (let i = 0; i < 64; i++) {
      const t1 = hh + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      const t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const next = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) hash[i] = (hash[i] + next[i]) >>> 0;
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  hash.forEach((word, i) => out.setUint32(4 * i, word));
  return digest;
}

/** HMAC-SHA256 (RFC 2104) of `message` under `key`, both Uint8Arrays: 32 bytes. */
function hmacSha256(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Bytes(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256Bytes(inner), 64);
  return sha256Bytes(outer);
}

const RANKS = "23456789TJQKA";
const SUIT_ORDER = "CDHS"; // the order of the cards drawn: C2 ... CA D2 ... SA

/**
 * The deal the server's `seed` (64 hex digits) and the organiser's `publicValue` draw for
 * board `board`, as PBN from North: the draw of bridge.commitment.seeded_deal (HMAC-SHA256
 * words, rejection sampling, Fisher-Yates; SPEC.md, "Deals nobody can doubt").
 */
export function seededDeal(seed, publicValue, board) {
  const key = Uint8Array.from(seed.match(/../g), (pair) => parseInt(pair, 16));
  const encoder = new TextEncoder();
  const words = [];
  let counter = 0;
  const next = () => {
    if (!words.length) {
      const digest = new DataView(hmacSha256(key, encoder.encode(`${publicValue}\n${board}\n${counter++}`)).buffer);
      for (let i = 0; i < 8; i++) words.push(digest.getUint32(4 * i));
    }
    return words.shift();
  };
  const deck = Array.from({ length: 52 }, (_, index) => index);
  for (let i = 51; i > 0; i--) {
    const span = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % span);
    let word = next();
    while (word >= limit) word = next();
    const j = word % span;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const hands = [0, 1, 2, 3].map((seat) => {
    const cards = deck.filter((_, position) => position % 4 === seat);
    return ["S", "H", "D", "C"]
      .map((suit) =>
        cards
          .filter((index) => SUIT_ORDER[Math.floor(index / 13)] === suit)
          .sort((a, b) => b - a)
          .map((index) => RANKS[index % 13])
          .join(""),
      )
      .join(".");
  });
  return `N:${hands.join(" ")}`;
}

const HEADER = "duplicate deal set 1";
const HEADER_V2 = "duplicate deal set 2"; // sealed with the public value's form
const STATED = "% deal commitment sha256 ";
const SEED_STATED = "% deal seed commitment sha256 ";
const SEATS = "NESW";

/** A PBN deal ("E:hand hand hand hand") written from North, as the deal set writes it. */
function fromNorth(deal) {
  const match = /^([NESW]):(\S+) (\S+) (\S+) (\S+)$/.exec(deal.trim());
  if (!match) return null;
  const first = SEATS.indexOf(match[1]);
  const hands = match.slice(2);
  return `N:${[0, 1, 2, 3].map((seat) => hands[(seat - first + 4) % 4]).join(" ")}`;
}

/**
 * Checks a PBN match record against `commitment` (the one this page held from the start)
 * and, for boards drawn from a sealed seed, `expectedSeed` (the seed's commitment shown):
 * `{ ok: true, boards, games, seeded }`, or `{ ok: false, reason }` saying what does not
 * match: `reason()` says it in the page's language of the moment (the result is kept, and
 * the page may change language after).
 */
export function checkRecord(pbn, commitment, expectedSeed = null) {
  const lines = pbn.split("\n").map((line) => line.replace(/\r$/, ""));
  const stated = lines.filter((line) => line.startsWith(STATED)).map((line) => line.slice(STATED.length));
  if (stated.length !== 1) return { ok: false, reason: () => t("the record does not state one deal commitment") };
  if (stated[0] !== commitment) return { ok: false, reason: () => t("the record states another commitment than the one shown here ({commitment})", { commitment: stated[0] }) };
  const start = lines.findIndex((line) => line === `% ${HEADER}` || line === `% ${HEADER_V2}`);
  if (start < 0) return { ok: false, reason: () => t("the record does not publish the deal set yet") };
  const set = [lines[start].slice(2)];
  for (const line of lines.slice(start + 1)) {
    if (!["% salt ", "% seed ", "% form ", "% public ", "% board "].some((start) => line.startsWith(start))) break;
    set.push(line.slice(2));
  }
  const text = set.map((line) => `${line}\n`).join("");
  const hashed = sha256(text);
  if (hashed !== commitment) return { ok: false, reason: () => t("the deal set hashes to {hash}, not to the commitment", { hash: hashed }) };
  const committed = new Map();
  for (const line of set.filter((entry) => entry.startsWith("board "))) {
    const [, number, , , ...deal] = line.split(" ");
    committed.set(Number(number), deal.join(" "));
  }
  // Boards drawn from a sealed seed and a public value: each must be their draw.
  const seed = set.find((entry) => entry.startsWith("seed "))?.slice(5);
  const publicValue = set.find((entry) => entry.startsWith("public "))?.slice(7);
  const form = set.find((entry) => entry.startsWith("form "))?.slice(5);
  if (seed !== undefined) {
    const stated = lines.find((line) => line.startsWith(SEED_STATED))?.slice(SEED_STATED.length);
    // The seed was committed to with the public value's form (a version-2 set), or alone.
    const sealed = sha256(form === undefined ? `duplicate deal seed 1\n${seed}\n` : `duplicate deal seed 2\n${seed}\nform ${form}\n`);
    if (stated !== sealed || (expectedSeed && expectedSeed !== sealed)) {
      return { ok: false, reason: () => t("the deal seed hashes to {hash}, not to the seed commitment shown", { hash: sealed }) };
    }
    for (const [number, deal] of committed) {
      if (seededDeal(seed, publicValue, number) !== deal) {
        return { ok: false, reason: () => t("board {board} is not the deal the seed and the public value draw", { board: number }) };
      }
    }
  }
  let games = 0;
  const gamePattern = /\[Board "(\d+)"\][\s\S]*?\[Deal "([^"]*)"\]/g;
  for (const [, number, deal] of pbn.matchAll(gamePattern)) {
    games += 1;
    const expected = committed.get(Number(number));
    if (expected === undefined) return { ok: false, reason: () => t("board {board} was played but not committed to", { board: number }) };
    if (fromNorth(deal) !== expected) return { ok: false, reason: () => t("board {board} was played with another deal", { board: number }) };
  }
  return { ok: true, boards: committed.size, games, seeded: seed !== undefined, form: form ?? null };
}

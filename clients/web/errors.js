// What the server writes, in the page's language: a refusal (the server writes its errors'
// details in English, protocol/SPEC.md, "Errors": an English page shows them as they are;
// a page in another language says what the error's code means), and the texts it writes
// into a call for the director.

import { language, localized } from "./i18n.js";

/** Each error code of the protocol, as a player or a director reads it. */
const MEANING = localized({
  malformed: "The server could not read what the page sent.",
  binary_only: "The server could not read what the page sent.",
  too_large: "That was too long for the server.",
  unknown_type: "The server does not know that request.",
  invalid_message: "The server did not understand that request.",
  unsupported_version: "The server was updated: reload this page.",
  not_authenticated: "The page is not connected to a seat yet.",
  already_authenticated: "The page is already connected.",
  bad_token: "This link is not valid, or its match is no longer kept.",
  forbidden: "You may not do that.",
  bad_sequence: "The page lost its place in the match: it starts again.",
  out_of_turn: "It is not your turn.",
  illegal_call: "That call is not allowed now.",
  illegal_card: "That card may not be played now.",
  illegal_claim: "That claim is not possible.",
  wrong_phase: "That cannot be done at this point.",
  rate_limited: "Too fast: wait a moment and try again.",
  bad_deals: "The deals could not be read.",
  bad_record: "The record could not be read.",
  unavailable: "The server could not store it just now: try again in a moment.",
  internal: "The server failed to do it; nothing was changed.",
});

/** The texts the server itself writes into a call for the director (a player's own words
 * are shown as written). */
const SERVER_CALL_TEXT = localized({
  "asks to withdraw the concession (laws 69 and 71)": "asks to withdraw the concession (laws 69 and 71)",
  "disputes the claim: play has stopped until the director rules (law 68D)":
    "disputes the claim: play has stopped until the director rules (law 68D)",
});

/** A call's text in the page's language when the server wrote it. */
export function serverCallText(text) {
  return text !== null && Object.hasOwn(SERVER_CALL_TEXT, text) ? SERVER_CALL_TEXT[text] : text;
}

/** The error's text for the page: `message` is the server's `error` frame. */
export function errorText(message) {
  if (language() === "en" || !Object.hasOwn(MEANING, message.code)) return message.message;
  return MEANING[message.code];
}

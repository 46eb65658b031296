// The page's words in English, Russian and Swedish (the languages of the rules this project
// comes from). Every text a person reads or hears is written in English in the code, through
// t() or tx(); the catalogues under lang/ give each in Russian and Swedish. The language is
// the one this browser chose on the page, else the first of the browser's languages we
// have, else English. A text with no translation is shown in English and reported once on
// the console as an error (the tests fail on it).
//
// Placeholders: t("Board {board}", {board: 7}). Plurals: a catalogue entry may be an object
// of the language's plural forms (Intl.PluralRules: one, few, many, other), chosen by the
// parameter `n`; English forms go under "en" when the English text itself has a plural.
// No DOM here, and no import of the other modules (they all import this one).

import board from "./lang/board.js";
import director from "./lang/director.js";
import event from "./lang/event.js";
import match from "./lang/match.js";
import organise from "./lang/organise.js";
import page from "./lang/page.js";
import table from "./lang/table.js";

/** The languages the page speaks, each in its own words (the switch lists them so). */
export const LANGUAGES = { en: "English", ru: "Русский", sv: "Svenska" };

const CATALOGUE = Object.assign({}, board, director, event, match, organise, page, table);

const LANGUAGE_KEY = "duplicate.language";

let current = chooseLanguage();
const reported = new Set();
const listeners = [];

function chooseLanguage() {
  let chosen = null;
  try {
    chosen = localStorage.getItem(LANGUAGE_KEY);
  } catch {
    // storage is off: the browser's languages decide
  }
  if (chosen && chosen in LANGUAGES) return chosen;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (code in LANGUAGES) return code;
  }
  return "en";
}

/** The language the page speaks now: "en", "ru" or "sv". */
export function language() {
  return current;
}

/** Speak `code` from now on (remembered in this browser); the listeners redraw the page. */
export function setLanguage(code) {
  if (!(code in LANGUAGES) || code === current) return;
  current = code;
  try {
    localStorage.setItem(LANGUAGE_KEY, code);
  } catch {
    // storage is off: the choice lasts as long as the page
  }
  for (const listener of listeners) listener(code);
}

/** Call `listener(code)` whenever the language changes. */
export function onLanguage(listener) {
  listeners.push(listener);
}

/** The text in the page's language, its {placeholders} filled from `params`. */
export function t(text, params = {}) {
  return fill(phrase(text, params), params)
    .map((part) => (typeof part === "string" ? part : part.textContent ?? String(part)))
    .join("");
}

/**
 * Like t(), for a text with parts that are nodes (a card, a call, a name in bold): a list
 * of strings and the nodes given in `params`, in the language's order, for h().
 */
export function tx(text, params = {}) {
  return fill(phrase(text, params), params).filter((part) => part !== "");
}

/**
 * A table of words (seat names, suit names, a state's headline) read in the page's language
 * each time it is read: localized({N: "North"}).N is "Север" in Russian.
 */
export function localized(words) {
  return new Proxy(words, {
    get(target, key) {
      const value = target[key];
      if (typeof value === "string") return t(value);
      if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? t(item) : item));
      return value;
    },
  });
}

/** The text's form in the page's language (before its placeholders are filled). */
function phrase(text, params) {
  const entry = CATALOGUE[text];
  let form = entry?.[current];
  if (current === "en") form = entry?.en ?? text;
  else if (form === undefined) {
    report(text);
    form = entry?.en ?? text;
  }
  if (typeof form === "object" && form !== null) {
    const n = Number(params.n ?? 0);
    form = form[new Intl.PluralRules(current).select(n)] ?? form.other;
  }
  return form;
}

function fill(form, params) {
  const parts = [];
  let last = 0;
  for (const found of form.matchAll(/\{(\w+)\}/g)) {
    parts.push(form.slice(last, found.index));
    const value = params[found[1]];
    parts.push(value === undefined || value === null ? "" : typeof value === "object" ? value : String(value));
    last = found.index + found[0].length;
  }
  parts.push(form.slice(last));
  return parts;
}

function report(text) {
  const key = `${current}\u0000${text}`;
  if (reported.has(key)) return;
  reported.add(key);
  console.error(`No ${LANGUAGES[current]} text for: ${text}`);
}

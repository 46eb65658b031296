// The page's own words in the page's language: the texts written in index.html (marked
// data-i18n for an element's text, data-i18n-attrs for its attributes), the keyboard help,
// and the language switch in the top bar. A change of language redraws the whole page.

import { $, h } from "./dom.js";
import { language, onLanguage, setLanguage, t, tx } from "./i18n.js";
import { app } from "./ui.js";

/** Each marked element's English, as index.html wrote it (read once, before any change). */
const sources = new Map();

function source(element, key) {
  let texts = sources.get(element);
  if (!texts) {
    texts = {};
    sources.set(element, texts);
  }
  if (!(key in texts)) texts[key] = key === "text" ? element.textContent.trim() : element.getAttribute(key);
  return texts[key];
}

function translatePage() {
  document.documentElement.lang = language();
  document.title = t("Duplicate bridge");
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = t(source(element, "text"));
  }
  for (const element of document.querySelectorAll("[data-i18n-attrs]")) {
    for (const name of element.dataset.i18nAttrs.split(" ")) element.setAttribute(name, t(source(element, name)));
  }
  const key = (text) => h("kbd", {}, text);
  $("keyboard-keys").replaceChildren(
    ...tx(
      "When it is your turn: {s} {h} {d} {c} go to your first playable card of that suit; in the auction {p} goes to Pass and a level {one}–{seven} to its cheapest bid. {l} shows the last trick.",
      { s: key("s"), h: key("h"), d: key("d"), c: key("c"), p: key("p"), one: key("1"), seven: key("7"), l: key("l") },
    ),
  );
  $("language").value = language();
}

translatePage();
$("language").addEventListener("change", (event) => setLanguage(event.target.value));
onLanguage(() => {
  translatePage();
  app.render();
});

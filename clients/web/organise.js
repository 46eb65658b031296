// The organiser's console (issue #25): the club's director signs in with the organiser
// key, makes the evening's matches (newmatch.js), hands out their links (each with its QR
// code, and printable table cards, one page a table), and watches every table of every
// match as it plays: the board, the trick, the contract, who is there and who is away, the
// calls for the director and the round's clock. A finished match shows its standings, its
// record to download, and is put away (archived) when the evening is over.
//
// What the page knows comes from the server's live list (`list_matches` with `live`: the
// list again whenever it changes) and the links it asks for (`get_links`); it draws it
// again on each change, keeping what did not change (a button pressed while a table of
// robots plays must keep its click).

import { SEATS, SEAT_LETTER, SEAT_NAME } from "./bridge.js";
import { OrganiserConsole, RequestError, socketUrl } from "./console.js";
import { $, callNode, clock, h, setServerNow, tickClocks } from "./dom.js";
import { errorText } from "./errors.js";
import { eventsShown, renderEvents, resetEvents } from "./events-console.js";
import { language, localized, onLanguage, setLanguage, t, tx } from "./i18n.js";
import { FORMAT_SHORT, renderCreate, renderImport } from "./newmatch.js";

const state = {
  /** "signed-out", "connecting" (resuming a session) or "console". */
  view: "signed-out",
  /** The console's tab: "matches", "create", "import" or "events". */
  tab: "matches",
  /** The matches of the last `match_list`, newest first (null before the first). */
  matches: null,
  showArchived: false,
  /** "all", "playing", "waiting" or "finished". */
  filter: "all",
  /** match id -> the links of its `match_links`. */
  links: new Map(),
  /** Match ids whose links are being fetched. */
  fetching: new Set(),
  /** Match ids whose panel of links is open. */
  openLinks: new Set(),
  /** The last `match_created` (or import), shown above the list until dismissed. */
  created: null,
  /** The match whose table cards are shown (the print view), or null. */
  cards: null,
  /** The server's refusal of the last sign-in, or the reason the session ended. */
  signInError: null,
  signingIn: false,
  /** Links renewed just now: "matchId:player" (the item says so). */
  renewed: new Set(),
  /** Actions under way, by key ("pbn-ID", "archive-ID"...): their buttons wait. */
  busy: new Set(),
  connection: "signed-out",
};

const STATUS = localized({
  waiting: "Waiting to start",
  playing: "Playing",
  finished: "Finished",
});

const GROUP_HEADING = localized({
  playing: "Playing",
  waiting: "Waiting to start",
  finished: "Finished",
  archived: "Archived",
});

const FILTERS = localized({
  all: "All",
  playing: "Playing",
  waiting: "Waiting to start",
  finished: "Finished",
});

const SCORING = localized({
  imps: "IMPs",
  matchpoints: "Matchpoints",
  board_a_match: "Board-a-match",
  total_points: "Total points",
});

const UNIT = localized({ imps: "IMPs", matchpoints: "MP", board_a_match: "BAM", total_points: "points" });

const PHASE = localized({ auction: "Auction", claim: "A claim is being decided", finished: "finished" });

const CALL_STATE = localized({ open: "new", seen: "seen: on your way", answered: "answered in the chat" });

/** The names the server gives its robots, in the page's language. */
const ROBOT_NAMES = localized({ Robot: "Robot", "Robot (strong)": "Robot (strong)" });

function robotName(name) {
  if (name == null) return ROBOT_NAMES.Robot;
  return Object.hasOwn(ROBOT_NAMES, name) ? ROBOT_NAMES[name] : name;
}

const TEAM_FORMATS = new Set(["teams", "robot-table", "team-of-four"]);

const conn = new OrganiserConsole(socketUrl(window.location), {
  status(kind) {
    state.connection = kind;
    drawStatus();
  },
  ready(welcome) {
    setServerNow(welcome.now);
    state.view = "console";
    state.signInError = null;
    listMatches();
    render();
    if (state.tab === "events") eventsShown();
  },
  signedOut(error) {
    state.view = "signed-out";
    state.signInError = error;
    state.matches = null;
    state.links.clear();
    state.openLinks.clear();
    state.created = null;
    state.cards = null;
    // Nothing of the console stays in the page once signed out.
    cards.clear();
    resetEvents();
    for (const view of ["matches-view", "cards", "tabs"]) {
      $(view).replaceChildren();
      partKeys.delete($(view));
    }
    render();
    $("organiser-key")?.focus();
  },
  pushed(message) {
    if (message.type !== "match_list") return;
    // The answer to an older request (the archived ones shown or not) is not the list now.
    if (message.archived !== state.showArchived) return;
    state.matches = message.matches;
    render();
  },
  refused(error) {
    flash(errorText(error), true);
  },
});

// -- the frame of the page ------------------------------------------------------------------

function drawStatus() {
  const status = $("status");
  status.dataset.state = state.connection;
  const words = {
    "signed-out": () => t("Not signed in"),
    connecting: () => t("Connecting…"),
    connected: () => t("Connected"),
    lost: () => t("Reconnecting…"),
  };
  $("status-text").textContent = (words[state.connection] ?? words["signed-out"])();
  const notice = $("notice");
  const lost = state.connection === "lost" && state.view === "console";
  notice.hidden = !lost;
  notice.className = lost ? "notice lost" : "notice";
  notice.textContent = lost ? t("The connection to the server was lost: trying again. What is shown may be out of date.") : "";
}

function drawFrame() {
  document.documentElement.lang = language();
  document.title = t("Organiser's console");
  $("title").textContent = t("Organiser's console");
  const select = $("language");
  select.value = language();
  select.setAttribute("aria-label", t("Language"));
  const signOut = $("sign-out");
  signOut.textContent = t("Sign out");
  signOut.hidden = state.view !== "console";
  document.body.dataset.view = state.cards !== null && state.view === "console" ? "cards" : state.view;
  drawStatus();
}

let flashTimer = null;

/** A short message at the top of the console (and said to a screen reader). */
function flash(text, error = false) {
  const box = $("flash");
  box.className = error ? "flash error" : "flash";
  box.textContent = text;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => {
    box.textContent = "";
  }, error ? 12000 : 5000);
}

/** The refusal's text for the organiser (a page in English shows the server's words). */
function refusalText(error) {
  if (error.code === "lost") return t("The server could not be reached: check the address and try again.");
  if (error.code === "signed_out") return t("You are signed out.");
  if (error.code === "bad_token" && error.key) {
    return language() === "en" ? t("The server refused the key: {reason}", { reason: error.message }) : t("The server refused the key.");
  }
  if (language() === "en") return error.message;
  if (error.code === "bad_token") return t("The key is not right, or the session has ended: sign in again.");
  if (error.code === "forbidden") return t("The server refuses a sign-in from this page: open the console from the server's own address.");
  return errorText(error);
}

// -- drawing ------------------------------------------------------------------------------------

function render() {
  const focused = document.activeElement?.dataset?.key ?? null;
  drawFrame();
  $("sign-in").hidden = state.view === "console";
  $("console").hidden = state.view !== "console" || state.cards !== null;
  $("cards").hidden = state.view !== "console" || state.cards === null;
  if (state.view !== "console") {
    drawSignIn();
  } else if (state.cards !== null) {
    drawCards();
  } else {
    drawTabs();
    for (const tab of TAB_ORDER) $(`${tab}-view`).hidden = state.tab !== tab;
    if (state.tab === "matches") drawMatches();
    else if (state.tab === "create") renderCreate($("create-view"), forms);
    else if (state.tab === "events") renderEvents($("events-view"), events);
    else renderImport($("import-view"), forms);
  }
  if (focused !== null && (document.activeElement === document.body || document.activeElement === null)) {
    document.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }
}

function drawSignIn() {
  const section = $("sign-in");
  const typed = $("organiser-key")?.value ?? "";
  const resuming = state.view === "connecting";
  const error = state.signInError;
  const key = JSON.stringify([resuming, error, state.signingIn]);
  if (!replacePart(section, "sign-in", key, () => [
    h("h2", { id: "sign-in-heading" }, t("Sign in as the organiser")),
    resuming
      ? h("p", { class: "sign-in-note", role: "status" }, t("Connecting…"))
      : h(
          "form",
          { id: "sign-in-form", class: "sign-in-form", "aria-describedby": "sign-in-about" },
          h(
            "p",
            { id: "sign-in-about", class: "sign-in-note" },
            tx("The organiser key is the server's secret: {command} keeps it in the file {file} of its data folder, unless it was given one. It is sent to the server only, and never kept by this page.", {
              command: h("code", {}, "duplicate serve"),
              file: h("code", {}, "organiser.key"),
            }),
          ),
          h("label", { for: "organiser-key" }, t("Organiser key")),
          h("input", {
            id: "organiser-key",
            name: "organiser-key",
            "data-key": "organiser-key",
            type: "password",
            autocomplete: "off",
            spellcheck: "false",
            required: true,
            maxlength: 200,
            "aria-invalid": error ? "true" : null,
            "aria-describedby": error ? "sign-in-error" : null,
          }),
          h("button", { type: "submit", id: "sign-in-send", class: "primary", disabled: state.signingIn }, state.signingIn ? t("Signing in…") : t("Sign in")),
          h("p", { id: "sign-in-error", class: "form-error", role: "alert" }, error ? refusalText(error) : ""),
        ),
  ])) return;
  const input = $("organiser-key");
  if (input) input.value = typed;
}

async function signIn(event) {
  event.preventDefault();
  const input = $("organiser-key");
  const key = input.value;
  if (!key || state.signingIn) return;
  input.value = ""; // the key stays in the page no longer than it must
  state.signingIn = true;
  state.signInError = null;
  render();
  try {
    await conn.signIn(key);
  } catch (error) {
    // (`key`: the refusal answers the key typed here, not a session that ended.)
    state.signInError = error instanceof RequestError ? { ...error.answer, key: true } : { code: "lost", message: String(error) };
  } finally {
    state.signingIn = false;
  }
  render();
  if (state.view !== "console") $("organiser-key")?.focus();
}

const TABS = localized({ matches: "Matches", create: "New match", import: "Import a match", events: "Events" });
const TAB_ORDER = ["matches", "create", "import", "events"];

function drawTabs() {
  const nav = $("tabs");
  nav.setAttribute("aria-label", t("The console"));
  const count = state.matches ? state.matches.filter((m) => !m.archived).length : null;
  replacePart(nav, "tabs", JSON.stringify([state.tab, count]), () => [
    h(
      "div",
      { role: "tablist", class: "tab-list", "aria-label": t("The console") },
      ...TAB_ORDER.map((tab) =>
        h(
          "button",
          {
            type: "button",
            role: "tab",
            id: `tab-${tab}`,
            class: "tab",
            "data-tab": tab,
            "data-key": `tab-${tab}`,
            "aria-selected": String(state.tab === tab),
            "aria-controls": `${tab}-view`,
            tabindex: state.tab === tab ? "0" : "-1",
          },
          TABS[tab],
          tab === "matches" && count !== null ? h("span", { class: "tab-count" }, ` (${count})`) : null,
        ),
      ),
    ),
  ]);
  for (const tab of TAB_ORDER) {
    const panel = $(`${tab}-view`);
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", `tab-${tab}`);
  }
}

function chooseTab(tab, focus = false) {
  const shown = state.tab === tab;
  state.tab = tab;
  render();
  if (tab === "events" && !shown) eventsShown();
  if (focus) $(`tab-${tab}`)?.focus();
}

// -- the matches -----------------------------------------------------------------------------

/** Each match's card, kept between two lists: match id -> {element, keys, parts}. */
const cards = new Map();

function matchTitle(entry) {
  if (TEAM_FORMATS.has(entry.format)) return t("{team_a} – {team_b}", { team_a: entry.team_a, team_b: entry.team_b });
  return FORMAT_SHORT[entry.format] ?? entry.format;
}

function groupOf(entry) {
  return entry.archived ? "archived" : entry.status;
}

function drawMatches() {
  const view = $("matches-view");
  if (!view.firstChild) {
    view.append(
      h("div", { id: "matches-head", class: "matches-head" }),
      h("div", { id: "created", class: "created-banner", tabindex: "-1", hidden: true }),
      h("div", { id: "match-groups", class: "match-groups" }),
    );
  }
  const matches = state.matches ?? [];
  const counts = { all: 0, playing: 0, waiting: 0, finished: 0 };
  for (const entry of matches) {
    if (entry.archived) continue;
    counts.all += 1;
    counts[entry.status] += 1;
  }
  replacePart($("matches-head"), "head", JSON.stringify([counts, state.filter, state.showArchived]), () => matchesHead(counts));
  const banner = $("created");
  banner.hidden = state.created === null;
  if (state.created) banner.dataset.matchId = state.created.match_id;
  else delete banner.dataset.matchId;
  const madeEntry = state.created && matches.find((m) => m.match_id === state.created.match_id);
  replacePart(banner, "created", JSON.stringify([state.created, madeEntry ? matchTitle(madeEntry) : null]), () => (state.created ? createdBanner(state.created) : []));

  const groups = $("match-groups");
  groups.setAttribute("aria-busy", String(state.matches === null));
  if (state.matches === null) {
    replacePart(groups, "groups", "loading", () => [h("p", { class: "empty-note" }, t("Loading the matches…"))]);
    return;
  }
  if (matches.length === 0 && !state.showArchived) {
    replacePart(groups, "groups", "none", () => [h("p", { class: "empty-note" }, t("No match yet: make one under “New match”."))]);
    return;
  }
  const order = state.showArchived ? ["playing", "waiting", "finished", "archived"] : ["playing", "waiting", "finished"];
  const shown = order.filter((group) => state.filter === "all" || group === state.filter || (group === "archived" && state.showArchived));
  const present = new Set(matches.map((entry) => entry.match_id));
  for (const id of cards.keys()) if (!present.has(id)) cards.delete(id);
  const sections = [];
  for (const group of shown) {
    const entries = matches.filter((entry) => groupOf(entry) === group);
    if (group === "archived" && state.filter !== "all") {
      entries.splice(0, entries.length, ...entries.filter((entry) => entry.status === state.filter));
    }
    // All of them: a group with nothing in it says nothing.
    if (entries.length || state.filter !== "all") sections.push([group, entries]);
  }
  const key = JSON.stringify([language(), sections.map(([group, entries]) => [group, entries.length])]);
  replacePart(groups, "groups", key, () =>
    sections.map(([group, entries]) =>
      h(
        "section",
        { class: "match-group", "data-group": group, "aria-labelledby": `group-${group}` },
        h("h2", { id: `group-${group}`, class: "group-heading" }, GROUP_HEADING[group], h("span", { class: "group-count" }, ` (${entries.length})`)),
        h("div", { class: "group-list", "data-list": group }),
        entries.length ? null : h("p", { class: "empty-note" }, emptyText(group)),
      ),
    ),
  );
  for (const [group, entries] of sections) {
    const list = groups.querySelector(`[data-list="${group}"]`);
    const elements = entries.map((entry) => matchCard(entry));
    const same = list.children.length === elements.length && elements.every((element, index) => list.children[index] === element);
    if (!same) list.replaceChildren(...elements);
  }
  // Links, once, for every match on show: its director's page and its table cards need them.
  for (const entry of matches) {
    if (!entry.archived && !state.links.has(entry.match_id)) fetchLinks(entry.match_id);
  }
}

function emptyText(group) {
  if (group === "playing") return t("No match is being played.");
  if (group === "waiting") return t("No match is waiting to start.");
  if (group === "archived") return t("No match is archived.");
  return t("No match has finished yet.");
}

/** Keeps the nodes of `element` while `key` is unchanged; else draws them with `build()`. */
const partKeys = new WeakMap();

function replacePart(element, name, key, build) {
  const keys = partKeys.get(element) ?? {};
  const full = `${language()} ${key}`;
  if (keys[name] === full) return false;
  keys[name] = full;
  partKeys.set(element, keys);
  element.replaceChildren(...build().filter((node) => node !== null && node !== undefined && node !== false));
  return true;
}

function matchesHead(counts) {
  return [
    h("h2", { id: "matches-heading", class: "visually-hidden" }, t("Matches")),
    h(
      "div",
      { class: "filters", role: "group", "aria-label": t("Which matches to show") },
      ...["all", "playing", "waiting", "finished"].map((filter) =>
        h(
          "button",
          { type: "button", class: "filter", "data-filter": filter, "data-key": `filter-${filter}`, "aria-pressed": String(state.filter === filter) },
          FILTERS[filter],
          h("span", { class: "filter-count" }, ` ${counts[filter]}`),
        ),
      ),
    ),
    h(
      "label",
      { class: "check archived-toggle", for: "show-archived" },
      h("input", { type: "checkbox", id: "show-archived", "data-key": "show-archived", checked: state.showArchived }),
      " ",
      t("Show archived matches"),
    ),
  ];
}

function createdBanner(created) {
  const entry = (state.matches ?? []).find((m) => m.match_id === created.match_id);
  return [
    h("p", { class: "created-title" }, t("The match is made: {title}.", { title: entry ? matchTitle(entry) : created.match_id })),
    h("p", {}, t("Hand out its links: each player's, the spectators' and the director's are under the match, with their QR codes and table cards to print.")),
    h("p", { class: "commitment" }, t("Deals sealed before play: {commitment}", { commitment: `sha256 ${created.deals_commitment}` })),
    h("button", { type: "button", class: "quiet-button", "data-action": "dismiss-created", "data-key": "dismiss-created" }, t("Dismiss")),
  ];
}

function matchCard(entry) {
  let card = cards.get(entry.match_id);
  if (!card) {
    const id = entry.match_id;
    const element = h(
      "article",
      { class: "org-match", "data-match-id": id, "aria-labelledby": `match-title-${id}` },
      h("header", { class: "org-match-head" }),
      h("div", { class: "org-actions" }),
      h("div", { class: "org-tables" }),
      h("div", { class: "org-standings" }),
      h("section", { class: "org-links", id: `links-${id}` }),
    );
    card = { element };
    cards.set(id, card);
  }
  const element = card.element;
  element.dataset.status = entry.status;
  element.dataset.archived = String(entry.archived);
  const [head, actions, tables, standings, links] = element.children;
  replacePart(head, "head", JSON.stringify([entry.format, entry.scoring, entry.status, entry.archived, entry.team_a, entry.team_b, entry.boards, entry.rounds, entry.compared, entry.created_at]), () => matchHead(entry));
  const linkList = state.links.get(entry.match_id);
  const director = linkList?.find((link) => link.role === "director")?.link ?? null;
  const open = state.openLinks.has(entry.match_id);
  const busy = [...state.busy].filter((key) => key.endsWith(entry.match_id));
  replacePart(actions, "actions", JSON.stringify([entry.status, entry.archived, director, open, busy]), () => matchActions(entry, director, open));
  replacePart(tables, "tables", JSON.stringify([entry.tables, entry.format, entry.status]), () => entry.tables.map((table) => tableCard(entry, table)));
  replacePart(standings, "standings", JSON.stringify([entry.standings, entry.winner, entry.status, entry.compared]), () => standingsPart(entry));
  standings.hidden = entry.standings.length === 0 || (entry.compared === 0 && entry.status !== "finished");
  links.hidden = !open;
  links.setAttribute("aria-label", t("Links")); // in the page's language now
  const renewed = [...state.renewed].filter((key) => key.startsWith(entry.match_id));
  if (open) replacePart(links, "links", JSON.stringify([linkList ?? null, renewed, state.fetching.has(entry.match_id)]), () => linksPart(entry, linkList));
  return element;
}

function dateText(ms) {
  if (ms == null) return "";
  return new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));
}

function matchHead(entry) {
  const facts = [
    FORMAT_SHORT[entry.format] ?? entry.format,
    SCORING[entry.scoring] ?? entry.scoring,
    t("{n} boards", { n: entry.boards }),
    entry.rounds > 1 ? t("{n} rounds", { n: entry.rounds }) : null,
    t("{compared} of {boards} compared", { compared: entry.compared, boards: entry.boards }),
    entry.created_at != null ? t("made {when}", { when: dateText(entry.created_at) }) : null,
  ].filter(Boolean);
  return [
    h(
      "div",
      { class: "org-title-row" },
      h("h3", { id: `match-title-${entry.match_id}`, class: "org-title" }, matchTitle(entry)),
      h("span", { class: "status-badge", "data-status": entry.status }, STATUS[entry.status]),
      entry.archived ? h("span", { class: "status-badge", "data-status": "archived" }, t("Archived")) : null,
    ),
    h("p", { class: "org-meta" }, facts.join(" · "), h("span", { class: "match-id" }, ` · ${t("match {id}", { id: entry.match_id })}`)),
  ];
}

function matchActions(entry, director, open) {
  const id = entry.match_id;
  const busy = (key) => state.busy.has(`${key}-${id}`);
  return [
    h(
      "button",
      { type: "button", "data-action": "links", "data-match": id, "data-key": `links-${id}`, "aria-expanded": String(open), "aria-controls": `links-${id}` },
      t("Links and QR codes"),
    ),
    h("button", { type: "button", "data-action": "cards", "data-match": id, "data-key": `cards-${id}`, disabled: busy("cards") }, t("Table cards")),
    director
      ? h("a", { class: "button-link", href: director, target: "_blank", rel: "noopener", "data-key": `director-${id}`, "data-director": id }, t("Director's page"))
      : null,
    h("button", { type: "button", "data-action": "record", "data-format": "pbn", "data-match": id, "data-key": `pbn-${id}`, title: t("The match's record as PBN"), disabled: busy("pbn") }, t("Download PBN")),
    h("button", { type: "button", "data-action": "record", "data-format": "lin", "data-match": id, "data-key": `lin-${id}`, title: t("The match's record as LIN, for BBO"), disabled: busy("lin") }, t("Download LIN")),
    entry.status === "finished" || entry.archived
      ? h(
          "button",
          { type: "button", "data-action": "archive", "data-match": id, "data-archived": String(!entry.archived), "data-key": `archive-${id}`, disabled: busy("archive") },
          entry.archived ? t("Unarchive") : t("Archive"),
        )
      : null,
  ];
}

// -- a table -------------------------------------------------------------------------------

function boardText(table) {
  if (table.board == null) return [t("No board started yet")];
  const parts = [t("Board {board}", { board: table.board })];
  if (table.phase === "play") parts.push(table.trick != null ? t("play, trick {trick}", { trick: table.trick }) : t("play"));
  else if (table.phase) parts.push(PHASE[table.phase]);
  return parts;
}

function tableCard(entry, table) {
  const calls = table.director_calls ?? [];
  const open = calls.filter((call) => call.state !== "answered");
  const seats = SEATS.map((seat) => table.players.find((p) => p.seat === seat) ?? { table: table.table, seat, connected: false, since: null });
  return h(
    "section",
    {
      class: `org-table${open.length ? " calling" : ""}`,
      "data-table": table.table,
      "data-board": table.board ?? "",
      "data-phase": table.phase ?? "",
      "data-trick": table.trick ?? "",
      "data-contract": table.contract ?? "",
      "data-calls": calls.length,
      "aria-label": t("Table {table}", { table: table.table }),
    },
    h(
      "div",
      { class: "org-table-head" },
      h("h4", {}, t("Table {table}", { table: table.table })),
      table.round != null && entry.rounds > 1 ? h("span", { class: "org-round" }, t("Round {round} of {rounds}", { round: table.round, rounds: entry.rounds })) : null,
      clockPart(table.clock),
    ),
    h(
      "p",
      { class: "org-board" },
      h("span", { class: "org-board-where" }, boardText(table).join(" · ")),
      table.contract ? h("span", { class: "org-contract" }, " · ", tx("{contract} by {seat}", { contract: callNode(table.contract), seat: SEAT_LETTER[table.declarer] ?? "" })) : null,
    ),
    h("p", { class: "org-played" }, t("{n} boards finished here", { n: table.boards_played })),
    table.waiting_for?.length
      ? h("p", { class: "org-waits" }, t("Waiting for {seats}.", { seats: table.waiting_for.map((seat) => SEAT_NAME[seat]).join(", ") }))
      : null,
    h("ul", { class: "org-seats", "aria-label": t("Who sits at table {table}", { table: table.table }) }, ...seats.map(seatItem)),
    calls.length ? h("div", { class: "org-calls", role: "status" }, ...calls.map((call) => callItem(call))) : null,
  );
}

function clockPart(roundClock) {
  // Once the table has played the round's boards, its clock has nothing more to say.
  if (!roundClock || (roundClock.played >= roundClock.boards && !roundClock.time_up)) return null;
  if (roundClock.time_up) return h("span", { class: "org-clock", "data-time-up": "true" }, t("Time is up"));
  return h(
    "span",
    { class: "org-clock" },
    clock(roundClock.ends_at, "left"),
    " ",
    clock(roundClock.due_at, "slow", { class: "slow-badge" }),
  );
}

function seatItem(info) {
  const robot = info.robot;
  const here = info.connected;
  return h(
    "li",
    {
      class: "org-seat",
      "data-seat": info.seat,
      "data-connected": String(Boolean(here)),
      "data-robot": String(Boolean(robot)),
    },
    h("span", { class: "seat-letter", title: SEAT_NAME[info.seat] }, h("span", { "aria-hidden": "true" }, SEAT_LETTER[info.seat]), h("span", { class: "visually-hidden" }, SEAT_NAME[info.seat])),
    // A robot named only by its level ("Robot", "Robot (strong)") says so once.
    robot && (info.name == null || info.name.startsWith("Robot")) ? null : h("span", { class: "seat-person" }, info.name ?? t("no name yet")),
    robot
      ? h("span", { class: "robot-mark" }, robotName(info.name))
      : here
        ? h("span", { class: "here-mark" }, t("here"))
        : info.since == null
          ? h("span", { class: "away-mark" }, t("not here yet"))
          : clock(info.since, "away", { class: "away-mark gone" }),
  );
}

function callItem(call) {
  const who = SEAT_NAME[call.seat];
  const text = call.board != null
    ? call.text
      ? t("{seat} called the director on board {board}: “{text}”", { seat: who, board: call.board, text: call.text })
      : t("{seat} called the director on board {board}", { seat: who, board: call.board })
    : call.text
      ? t("{seat} called the director: “{text}”", { seat: who, text: call.text })
      : t("{seat} called the director", { seat: who });
  return h(
    "p",
    { class: "org-call", "data-call-state": call.state },
    h("span", { class: "org-call-text" }, text),
    " ",
    h("span", { class: "org-call-state" }, `(${CALL_STATE[call.state] ?? call.state}, `, clock(call.at, "ago"), ")"),
  );
}

// -- standings -----------------------------------------------------------------------------

function pointsText(points) {
  return Number.isInteger(points) ? String(points) : points.toFixed(1);
}

function winnerText(entry) {
  if (entry.winner == null) return null;
  if (entry.winner === "draw") return t("The match is a draw.");
  const names = { A: entry.team_a, B: entry.team_b };
  const name = entry.standings.find((s) => s.competitor === entry.winner)?.name ?? names[entry.winner] ?? entry.winner;
  return t("Winner: {name}.", { name });
}

function standingsPart(entry) {
  if (!entry.standings.length) return [];
  const unit = UNIT[entry.scoring] ?? "";
  return [
    entry.status === "finished" ? h("p", { class: "org-winner" }, winnerText(entry) ?? "") : null,
    h(
      "table",
      { class: "standings org-standings-table" },
      h("caption", {}, entry.status === "finished" ? t("Final standings ({unit})", { unit }) : t("Standings so far ({unit})", { unit })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Name")), h("th", { scope: "col", class: "points" }, t("Points")))),
      h(
        "tbody",
        {},
        ...entry.standings.map((standing) =>
          h("tr", { "data-competitor": standing.competitor }, h("td", {}, standing.name), h("td", { class: "points" }, pointsText(standing.points))),
        ),
      ),
    ),
  ];
}

// -- links -----------------------------------------------------------------------------------

async function fetchLinks(matchId) {
  if (state.fetching.has(matchId)) return state.links.get(matchId) ?? null;
  state.fetching.add(matchId);
  try {
    const answer = await conn.request({ type: "get_links", match_id: matchId });
    state.links.set(matchId, answer.links);
    return answer.links;
  } catch (error) {
    if (error instanceof RequestError && error.code !== "signed_out") flash(t("The links could not be fetched: {reason}", { reason: refusalText(error) }), true);
    return null;
  } finally {
    state.fetching.delete(matchId);
    if (state.view === "console") render();
  }
}

function whoText(link) {
  const name = link.name ? ` · ${link.name}` : "";
  if (link.role === "spectator") return t("Spectators");
  if (link.role === "director") return t("The director");
  const team = link.team ? ` · ${t("team {team}", { team: link.team })}` : "";
  return `${SEAT_NAME[link.seat] ?? ""}${team}${name}`;
}

function linkAltText(link) {
  if (link.role === "spectator") return t("QR code of the spectators' link");
  if (link.role === "director") return t("QR code of the director's link");
  return t("QR code of the link of {seat}, table {table}", { seat: SEAT_NAME[link.seat], table: link.table });
}

function linkItem(entry, link, prefix = "") {
  const id = entry.match_id;
  const key = `${prefix}${link.role === "player" ? `${id}-p${link.player}` : `${id}-${link.role}`}`;
  const renewed = link.role === "player" && state.renewed.has(`${id}:${link.player}`);
  const text = `link-${key}`;
  return h(
    "div",
    {
      class: `link-item${renewed ? " renewed" : ""}`,
      "data-role": link.role,
      "data-player": link.player ?? "",
      "data-table": link.table ?? "",
      "data-seat": link.seat ?? "",
    },
    h("p", { class: "link-who" }, whoText(link)),
    link.qr
      ? h("img", { class: "qr", src: link.qr, alt: linkAltText(link), width: 160, height: 160, "data-qr": key })
      : null,
    link.link
      ? h(
          "div",
          { class: "link-copy" },
          h("code", { id: text, class: "link-text", "aria-label": t("Link of {who}", { who: whoText(link) }) }, link.link),
          h("button", { type: "button", "data-action": "copy", "data-link": text, "data-key": `copy-${key}`, "aria-label": t("Copy the link of {who}", { who: whoText(link) }) }, t("Copy")),
        )
      : h("p", { class: "link-none" }, t("This link cannot be shown again: make a new one to hand out.")),
    renewed ? h("p", { class: "link-renewed", role: "status" }, t("A new link: the old one no longer works.")) : null,
    link.role === "player"
      ? h(
          "button",
          { type: "button", class: "quiet-button", "data-action": "new-link", "data-match": id, "data-player": link.player, "data-key": `new-${key}`, disabled: state.busy.has(`new-${link.player}-${id}`) },
          t("New link for player {player}", { player: link.player }),
        )
      : null,
  );
}

/** A match's links (`prefix`: before the ids, when another view shows them too). */
function linksPart(entry, links, prefix = "") {
  if (!links) return [h("p", { class: "empty-note" }, t("Fetching the links…"))];
  const players = links.filter((l) => l.role === "player");
  const tables = [...new Set([...entry.tables.map((table) => table.table), ...players.map((l) => l.table)])].sort();
  const bySeat = (a, b) => SEATS.indexOf(a.seat) - SEATS.indexOf(b.seat);
  return [
    h("p", { class: "links-note" }, t("Each player keeps their link for the whole match, wherever the movement takes them: a phone opens it from its QR code.")),
    ...tables.map((table) => {
      const people = players.filter((l) => l.table === table && !l.robot).sort(bySeat);
      const robots = players.filter((l) => l.table === table && l.robot).sort(bySeat);
      const robotsNote = !people.length
        ? t("The server's robots play every seat here: no links to hand out.")
        : t("The server's robots play {seats}: no links to hand out.", { seats: robots.map((l) => SEAT_NAME[l.seat]).join(", ") });
      return h(
        "div",
        { class: "link-table", "data-table": table },
        h("h4", {}, t("Table {table}", { table })),
        people.length ? h("div", { class: "link-grid" }, ...people.map((link) => linkItem(entry, link, prefix))) : null,
        robots.length || !people.length ? h("p", { class: "link-robots", "data-robots": robots.length }, robotsNote) : null,
      );
    }),
    h(
      "div",
      { class: "link-table" },
      h("h4", {}, t("Spectators and the director")),
      h("div", { class: "link-grid" }, ...links.filter((l) => l.role !== "player").map((link) => linkItem(entry, link, prefix))),
    ),
  ];
}

async function newLink(matchId, player) {
  if (!window.confirm(t("Make a new link for player {player}? Their old link stops working at once (and the server's robot, if it plays for them, stops too).", { player }))) return;
  const key = `new-${player}-${matchId}`;
  state.busy.add(key);
  render();
  try {
    await conn.request({ type: "new_link", match_id: matchId, player });
    state.renewed.add(`${matchId}:${player}`);
    flash(t("Player {player} has a new link: hand it out.", { player }));
    await fetchLinks(matchId);
  } catch (error) {
    flash(t("No new link: {reason}", { reason: refusalText(error) }), true);
  } finally {
    state.busy.delete(key);
    render();
  }
}

async function copyLink(textId) {
  const shown = $(textId);
  if (!shown) return;
  const link = shown.textContent;
  // Selected, so that it can be copied by hand when the clipboard is not open to the page.
  const range = document.createRange();
  range.selectNodeContents(shown);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  let copied = false;
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(link);
      copied = true;
    }
  } catch {
    copied = false;
  }
  if (!copied) {
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
  }
  flash(copied ? t("Link copied.") : t("Select the link and copy it."), !copied);
}

// -- records and archiving -------------------------------------------------------------------

async function downloadRecord(matchId, format) {
  const key = `${format}-${matchId}`;
  state.busy.add(key);
  render();
  try {
    const answer = await conn.request({ type: "get_record", match_id: matchId, format });
    const blob = new Blob([answer.record], { type: "text/plain;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: `match-${matchId}.${format}`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    flash(t("The record is saved ({format}).", { format: format.toUpperCase() }));
  } catch (error) {
    flash(t("No record: {reason}", { reason: refusalText(error) }), true);
  } finally {
    state.busy.delete(key);
    render();
  }
}

async function archive(matchId, archived) {
  const key = `archive-${matchId}`;
  state.busy.add(key);
  render();
  try {
    await conn.request({ type: "archive_match", match_id: matchId, archived });
    flash(archived ? t("The match is archived: “Show archived matches” shows it again.") : t("The match is back among the others."));
  } catch (error) {
    flash(t("Not archived: {reason}", { reason: refusalText(error) }), true);
  } finally {
    state.busy.delete(key);
    render();
  }
}

function listMatches() {
  conn.request({ type: "list_matches", live: true, archived: state.showArchived }).catch((error) => {
    if (error.code !== "signed_out") flash(t("The list of matches could not be fetched: {reason}", { reason: refusalText(error) }), true);
  });
}

// -- table cards, to print ---------------------------------------------------------------------

async function showCards(matchId) {
  const key = `cards-${matchId}`;
  state.busy.add(key);
  render();
  const links = await fetchLinks(matchId);
  state.busy.delete(key);
  if (links) {
    state.cards = matchId;
    window.scrollTo(0, 0);
  }
  render();
  if (links) $("cards-print")?.focus();
}

function drawCards() {
  const section = $("cards");
  const entry = (state.matches ?? []).find((m) => m.match_id === state.cards);
  const links = state.links.get(state.cards) ?? [];
  if (!entry) {
    state.cards = null;
    render();
    return;
  }
  const players = links.filter((l) => l.role === "player");
  const tables = [...new Set([...entry.tables.map((table) => table.table), ...players.map((l) => l.table)])].sort();
  const key = JSON.stringify([entry.match_id, entry.team_a, entry.team_b, links, tables]);
  replacePart(section, "cards", key, () => [
    h(
      "div",
      { class: "cards-toolbar" },
      h("h2", { id: "cards-heading" }, t("Table cards: {title}", { title: matchTitle(entry) })),
      h("p", {}, t("One page a table: put each on its table. A player opens their seat's link from its QR code.")),
      h(
        "div",
        { class: "button-row" },
        h("button", { type: "button", id: "cards-print", class: "primary", "data-action": "print", "data-key": "cards-print" }, t("Print")),
        h("button", { type: "button", "data-action": "cards-back", "data-key": "cards-back" }, t("Back to the console")),
      ),
    ),
    h("div", { class: "card-pages" }, ...tables.map((table) => tableCardPage(entry, table, players))),
  ]);
}

function tableCardPage(entry, table, players) {
  const seats = SEATS.map((seat) => players.find((l) => l.table === table && l.seat === seat) ?? null);
  return h(
    "article",
    { class: "table-card", "data-table": table, "aria-label": t("Table {table}", { table }) },
    h(
      "header",
      { class: "table-card-head" },
      h("p", { class: "table-card-match" }, matchTitle(entry)),
      h("h3", { class: "table-card-table" }, t("Table {table}", { table })),
    ),
    h(
      "div",
      { class: "table-card-seats" },
      ...seats.map((link, index) => {
        const seat = SEATS[index];
        const robot = link === null || link.robot;
        return h(
          "section",
          { class: "table-card-seat", "data-seat": seat },
          h("h4", {}, SEAT_NAME[seat]),
          h("p", { class: "table-card-name" }, link?.name ?? (robot ? t("Robot") : t("no name yet"))),
          !robot && link.qr ? h("img", { class: "qr", src: link.qr, alt: linkAltText(link), width: 150, height: 150 }) : null,
          robot
            ? h("p", { class: "table-card-note" }, t("The server's robot plays this seat."))
            : link.link
              ? h("p", { class: "table-card-link" }, link.link)
              : h("p", { class: "table-card-note" }, t("No link: make a new one in the console.")),
        );
      }),
    ),
    h("p", { class: "table-card-foot" }, t("Open your seat's link (scan its QR code with a phone's camera): it is yours for the whole match.")),
  );
}

// -- clicks and typing ---------------------------------------------------------------------------

const forms = {
  request: (message) => conn.request(message),
  refusalText,
  created(answer) {
    state.created = answer;
    state.openLinks.add(answer.match_id);
    state.links.delete(answer.match_id);
    state.filter = "all";
    state.tab = "matches";
    render();
    fetchLinks(answer.match_id);
    $("created")?.scrollIntoView({ block: "start" });
    $("created")?.focus?.();
  },
};

/** What the events view (events-console.js) asks of the console. */
const events = {
  request: (message) => conn.request(message),
  refusalText,
  flash,
  shown: () => state.view === "console" && state.tab === "events" && state.cards === null && document.visibilityState === "visible",
  fetchLinks,
  /** What a match's links panel shows: while it is unchanged, the panel is kept. */
  linksKey: (matchId) =>
    JSON.stringify([
      state.links.get(matchId) ?? null,
      state.fetching.has(matchId),
      [...state.renewed].filter((key) => key.startsWith(matchId)),
      [...state.busy].filter((key) => key.endsWith(matchId)),
    ]),
  linksPart: (matchId) => {
    const entry = (state.matches ?? []).find((m) => m.match_id === matchId) ?? { match_id: matchId, tables: [] };
    return linksPart(entry, state.links.get(matchId), "ev-");
  },
};

document.addEventListener("submit", (event) => {
  if (event.target.id === "sign-in-form") signIn(event);
});

document.addEventListener("click", (event) => {
  const target = event.target.closest("button");
  if (!target) return;
  if (target.id === "sign-out") {
    conn.signOut();
    return;
  }
  if (target.dataset.tab) {
    chooseTab(target.dataset.tab);
    return;
  }
  if (target.dataset.filter) {
    state.filter = target.dataset.filter;
    render();
    return;
  }
  const id = target.dataset.match;
  switch (target.dataset.action) {
    case "links":
      if (state.openLinks.has(id)) state.openLinks.delete(id);
      else {
        state.openLinks.add(id);
        fetchLinks(id); // afresh: the director may have put someone else in a seat
      }
      render();
      break;
    case "cards":
      showCards(id);
      break;
    case "record":
      downloadRecord(id, target.dataset.format);
      break;
    case "archive":
      archive(id, target.dataset.archived === "true");
      break;
    case "copy":
      copyLink(target.dataset.link);
      break;
    case "new-link":
      newLink(id, Number(target.dataset.player));
      break;
    case "dismiss-created":
      state.created = null;
      render();
      break;
    case "print":
      window.print();
      break;
    case "cards-back": {
      const matchId = state.cards;
      state.cards = null;
      render();
      document.querySelector(`[data-key="cards-${matchId}"]`)?.focus();
      break;
    }
    default:
      break;
  }
});

document.addEventListener("change", (event) => {
  if (event.target.id === "show-archived") {
    state.showArchived = event.target.checked;
    state.matches = null;
    listMatches();
    render();
  }
});

document.addEventListener("keydown", (event) => {
  const tab = event.target.closest?.('[role="tab"]');
  if (!tab || !["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
  const order = TAB_ORDER;
  const index = order.indexOf(tab.dataset.tab);
  const next = {
    ArrowLeft: (index + order.length - 1) % order.length,
    ArrowRight: (index + 1) % order.length,
    Home: 0,
    End: order.length - 1,
  }[event.key];
  event.preventDefault();
  chooseTab(order[next], true);
});

$("language").addEventListener("change", (event) => setLanguage(event.target.value));
onLanguage(() => render());
setInterval(tickClocks, 1000);

if (conn.resume()) state.view = "connecting";
render();

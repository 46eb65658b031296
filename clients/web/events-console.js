// The console's events (protocol/SPEC.md, "Events of many matches"): a round robin or a
// Swiss of many two-table team matches, each converted to victory points. The organiser
// lists the events (`list_events`), makes one from a form (`create_event`: the teams typed
// one a line, as `duplicate new-event --teams` reads them), and follows one on its page
// (`get_event`): the standings, each round's matches with their links, the bye, the next
// round begun by the director (`start_event_round`, maybe re-paired by hand), the
// director's adjustments of the VPs (`adjust_event`) and the event's results link.
//
// The organiser's connection has no live feed of events: while the view is shown it asks
// again every few seconds, and after each action. What the organiser types is kept here, so
// that a redraw (a new answer, a change of language) loses none of it.

import { $, h } from "./dom.js";
import { language, localized, t, tx } from "./i18n.js";

/** How often the view asks again while it is shown. */
const POLL_MS = 3000;
/** A line of the teams, as the errors show it (duplicate/events.py: TEAMS_FILE_FORM). */
function teamsForm() {
  return t("Team name: Player 1, Player 2, Player 3, Player 4 (up to 6), or Team name: robots");
}
const MAX_NAME = 40;

const KIND = localized({ swiss: "Swiss", round_robin: "Round robin" });
const EVENT_STATUS = localized({ waiting: "Waiting to start", playing: "Playing", finished: "Finished" });
const ROUND_STATUS = localized({ drawn: "Drawn", playing: "Playing", finished: "Finished" });
const FIRST_ROUND = localized({ seeded: "Seeded, in the order typed", drawn: "Drawn at random" });
const START = localized({ auto: "At once, when the round before ends", director: "When the director begins it" });
const LEVEL = localized({
  seed: "Seed: natural, play by rules",
  strong: "Strong: conventions, double dummy",
});

/** The fields of the new-event form, each a control's id; a refusal's field shows beside it. */
const FORM_FIELDS = ["name", "kind", "teams", "rounds", "boards_per_round", "first_round", "bye_vps", "start", "robot_level"];
const ADJUST_FIELDS = ["team", "vps", "reason", "round"];

const ev = {
  /** "list", "new" or "event". */
  view: "list",
  /** The events of the last `event_list` (null before the first). */
  events: null,
  /** The event shown (its id), and its last `event`. */
  current: null,
  event: null,
  /** Set after `create_event`: {event_id, results, rounds}, shown above the event. */
  created: null,
  /** Match ids whose links are open under the event's rounds. */
  openLinks: new Set(),
  /** Actions under way: "create", "begin", "adjust". */
  busy: new Set(),
  /** field -> message, for the new-event form ("" for the form's own). */
  errors: {},
  adjustErrors: {},
  beginError: "",
  /** The next round paired by hand: {round, on, matches: [[home, away]...], bye}. */
  repair: null,
};

const form = {
  name: "",
  kind: "swiss",
  teams: "",
  rounds: "",
  boards_per_round: "8",
  first_round: "seeded",
  bye_vps: "12",
  start: "auto",
  robot_level: "seed",
};

const adjust = { team: "", vps: "", reason: "", round: "" };

let context = null;
let polling = false;

/** A fresh request id (16 random bytes, hex): the same request sent again makes one event. */
function requestId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// -- the teams, typed one a line (duplicate/events.py: parse_teams) -----------------------------

/** One line -> {name, players, robots}, or {problem} in words. */
function teamLine(line) {
  const colon = line.indexOf(":");
  if (colon < 0) return { problem: t("no “:” after the team's name; write {form}", { form: teamsForm() }) };
  const name = line.slice(0, colon).trim();
  if (!name) return { problem: t("the team has no name before the “:”") };
  const items = line.slice(colon + 1).split(",").map((item) => item.trim());
  if (items.length > 1 && !items[items.length - 1]) items.pop(); // a comma at the end of the line
  if (items.length === 1 && items[0].toLowerCase() === "robots") return { name, players: [], robots: true };
  if (items.some((item) => item.toLowerCase() === "robots")) {
    return { problem: t("team “{name}”: “robots” stands alone, for a whole team of robots", { name }) };
  }
  const players = items.filter(Boolean);
  if (players.length && players.length !== items.length) {
    return { problem: t("team “{name}”: an empty player's name (two commas together?)", { name }) };
  }
  if (players.length < 4 || players.length > 6) {
    return {
      problem: players.length
        ? t("team “{name}” has {n} players: a team has four to six players, or robots", { name, n: players.length })
        : t("team “{name}” has no players: a team has four to six players, or robots", { name }),
    };
  }
  const seen = new Set();
  for (const player of players) {
    const folded = player.toLowerCase();
    if (seen.has(folded)) return { problem: t("team “{name}”: “{player}” is named twice", { name, player }) };
    seen.add(folded);
  }
  if ([name, ...players].some((text) => [...text].length > MAX_NAME)) {
    return { problem: t("team “{name}”: a name is at most 40 characters", { name }) };
  }
  return { name, players, robots: false };
}

/** The teams of the text: {teams} or {error} (naming the line). */
export function parseTeams(text) {
  const teams = [];
  const linesOf = new Map();
  const lines = text.split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index].trim();
    const number = index + 1;
    if (!line || line.startsWith("#")) continue;
    const team = teamLine(line);
    if (team.problem) return { error: t("Line {line}: {problem}", { line: number, problem: team.problem }) };
    const folded = team.name.toLowerCase();
    if (linesOf.has(folded)) {
      return {
        error: t("Line {line}: {problem}", {
          line: number,
          problem: t("a second team named “{name}” (the first is on line {first})", { name: team.name, first: linesOf.get(folded) }),
        }),
      };
    }
    linesOf.set(folded, number);
    teams.push(team);
  }
  if (teams.length < 2) return { error: t("{n} teams typed: an event needs two or more, one a line: {form}", { n: teams.length, form: teamsForm() }) };
  if (teams.length > 40) return { error: t("{n} teams typed: an event has at most 40", { n: teams.length }) };
  return { teams };
}

// -- numbers and names ----------------------------------------------------------------------------

function vpText(vps) {
  return new Intl.NumberFormat(language(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(vps);
}

function signed(value, format = String) {
  if (value > 0) return `+${format(value)}`;
  if (value < 0) return `−${format(-value)}`;
  return format(0);
}

function teamName(number) {
  return ev.event?.teams.find((entry) => entry.team === number)?.name ?? `#${number}`;
}

function dateText(ms) {
  if (ms == null) return "";
  return new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));
}

function badge(status, text) {
  return h("span", { class: "status-badge", "data-status": status }, text);
}

function roundText(round, rounds) {
  return round ? t("Round {round} of {rounds}", { round, rounds }) : t("Not begun: {n} rounds", { n: rounds });
}

/** The round drawn and waiting for the director, or null. */
function drawnRound(event) {
  const last = event?.schedule[event.schedule.length - 1];
  return last && last.status === "drawn" && event.status !== "finished" ? last : null;
}

// -- talking to the server ---------------------------------------------------------------------------

async function listEvents() {
  try {
    const answer = await context.request({ type: "list_events" });
    ev.events = answer.events;
  } catch (error) {
    if (error.code !== "signed_out") context.flash(t("The list of events could not be fetched: {reason}", { reason: context.refusalText(error) }), true);
  }
  redraw();
}

async function getEvent(eventId) {
  try {
    const answer = await context.request({ type: "get_event", event_id: eventId });
    if (ev.current === eventId) ev.event = answer;
  } catch (error) {
    if (error.code !== "signed_out") context.flash(t("The event could not be fetched: {reason}", { reason: context.refusalText(error) }), true);
  }
  redraw();
}

/** Ask again for what is shown (the poll, and after an action). */
async function refresh() {
  if (!context || polling || !context.shown()) return;
  polling = true;
  try {
    if (ev.view === "event" && ev.current) await getEvent(ev.current);
    else if (ev.view === "list") await listEvents();
  } finally {
    polling = false;
  }
}

/** The events view is shown (again): what it shows is asked for at once. */
export function eventsShown() {
  refresh();
}

/** Signed out: nothing of the events stays in the page. */
export function resetEvents() {
  Object.assign(ev, { view: "list", events: null, current: null, event: null, created: null, errors: {}, adjustErrors: {}, beginError: "", repair: null });
  ev.openLinks.clear();
  ev.busy.clear();
  const section = $("events-view");
  if (section) {
    section.replaceChildren();
    partKeys.delete(section);
  }
}

setInterval(refresh, POLL_MS);

function openEvent(eventId) {
  if (ev.current !== eventId) {
    ev.event = null;
    ev.openLinks.clear();
    ev.repair = null;
    ev.adjustErrors = {};
    ev.beginError = "";
    Object.assign(adjust, { team: "", vps: "", reason: "", round: "" });
  }
  ev.current = eventId;
  ev.view = "event";
  redraw();
  getEvent(eventId);
  window.scrollTo(0, 0);
  $("events-heading")?.focus();
}

function showList() {
  ev.view = "list";
  ev.created = null;
  redraw();
  listEvents();
  $("events-heading")?.focus();
}

// -- drawing ------------------------------------------------------------------------------------------

const partKeys = new WeakMap();

/** Keeps the nodes of `element` while `key` is unchanged; else draws them with `build()`. */
function replacePart(element, name, key, build) {
  const keys = partKeys.get(element) ?? {};
  const full = `${language()} ${key}`;
  if (keys[name] === full) return false;
  keys[name] = full;
  partKeys.set(element, keys);
  element.replaceChildren(...build().flat().filter((node) => node !== null && node !== undefined && node !== false));
  return true;
}

function redraw() {
  const section = $("events-view");
  if (section && context && !section.hidden) renderEvents(section, context);
}

/**
 * Draw the events view into `section`. `ctx`: request(message), refusalText(error),
 * flash(text, error), shown(), fetchLinks(matchId), linksKey(matchId), linksPart(matchId).
 */
export function renderEvents(section, ctx) {
  context = ctx;
  if (!section.firstChild) {
    section.append(
      h("div", { id: "ev-top", class: "ev-top" }),
      h("div", { id: "ev-list-part", class: "ev-part" }),
      h("div", { id: "ev-new-part", class: "ev-part" }),
      h("div", { id: "ev-event-part", class: "ev-part ev-page" }),
    );
  }
  const focusedId = section.contains(document.activeElement) ? document.activeElement.id : null;
  replacePart($("ev-top"), "top", JSON.stringify([ev.view, ev.event?.name ?? null]), topPart);
  $("ev-list-part").hidden = ev.view !== "list";
  $("ev-new-part").hidden = ev.view !== "new";
  $("ev-event-part").hidden = ev.view !== "event";
  if (ev.view === "list") drawList();
  else if (ev.view === "new") drawForm();
  else drawEvent();
  if (focusedId && (document.activeElement === document.body || document.activeElement === null)) $(focusedId)?.focus();
}

function topPart() {
  const heading = ev.view === "new" ? t("A new event") : ev.view === "event" ? (ev.event?.name ?? t("The event")) : t("Events");
  return [
    h(
      "div",
      { class: "ev-top-row" },
      ev.view === "list"
        ? null
        : h("button", { type: "button", class: "quiet-button", id: "ev-back", "data-ev": "back" }, t("← All events")),
      h("h2", { id: "events-heading", tabindex: "-1" }, heading),
      ev.view === "list" ? h("button", { type: "button", class: "primary", id: "ev-new", "data-ev": "new" }, t("New event")) : null,
    ),
    ev.view === "list"
      ? h("p", { class: "hint" }, t("An event is a round robin or a Swiss of many two-table team matches, each converted to victory points (VPs)."))
      : null,
  ];
}

// -- the list -----------------------------------------------------------------------------------------

function drawList() {
  const part = $("ev-list-part");
  part.setAttribute("aria-busy", String(ev.events === null));
  replacePart(part, "list", JSON.stringify(ev.events), () => {
    if (ev.events === null) return [h("p", { class: "empty-note" }, t("Loading the events…"))];
    if (!ev.events.length) return [h("p", { class: "empty-note" }, t("No event yet: make one with “New event”."))];
    return [
      h(
        "div",
        { class: "ev-scroll", role: "region", tabindex: "0", "aria-label": t("Events") },
        h(
          "table",
          { id: "ev-list", class: "standings ev-table" },
          h("caption", { class: "visually-hidden" }, t("Events")),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, t("Name")),
              h("th", { scope: "col" }, t("Kind")),
              h("th", { scope: "col" }, t("Status")),
              h("th", { scope: "col" }, t("Round")),
              h("th", { scope: "col", class: "points" }, t("Teams")),
              h("th", { scope: "col" }, t("Leader")),
            ),
          ),
          h(
            "tbody",
            {},
            ...ev.events.map((entry) =>
              h(
                "tr",
                { "data-event-id": entry.event_id, "data-status": entry.status },
                h(
                  "th",
                  { scope: "row" },
                  h("button", { type: "button", class: "quiet-button ev-open", "data-ev": "open", "data-event": entry.event_id, id: `ev-open-${entry.event_id}` }, entry.name),
                  h("span", { class: "ev-made" }, t("made {when}", { when: dateText(entry.created_at) })),
                ),
                h("td", {}, KIND[entry.kind] ?? entry.kind),
                h("td", {}, badge(entry.status, EVENT_STATUS[entry.status] ?? entry.status)),
                h("td", { class: "ev-round-of" }, roundText(entry.round, entry.rounds)),
                h("td", { class: "points" }, String(entry.teams)),
                h("td", { class: "ev-leader" }, entry.leader ?? "–"),
              ),
            ),
          ),
        ),
      ),
    ];
  });
}

// -- the new-event form -------------------------------------------------------------------------------

function errorFor(errors, prefix, name) {
  const text = errors[name];
  return h("p", { id: `${prefix}error-${name}`, class: "field-error", role: text ? "alert" : null, hidden: !text }, text ?? "");
}

function invalid(errors, prefix, name, hint = null) {
  const described = [hint, errors[name] ? `${prefix}error-${name}` : null].filter(Boolean).join(" ");
  return { "aria-invalid": errors[name] ? "true" : null, "aria-describedby": described || null };
}

function field(errors, prefix, name, label, control, hint = null) {
  return h(
    "div",
    { class: "field", "data-field": name },
    h("label", { for: control.id }, label),
    control,
    hint ? h("p", { class: "hint", id: `hint-${control.id}` }, hint) : null,
    errorFor(errors, prefix, name),
  );
}

function select(id, value, choices, names, props = {}) {
  return h("select", { id, ...props }, ...choices.map((choice) => h("option", { value: choice, selected: String(choice) === String(value) }, names[choice])));
}

function drawForm() {
  const part = $("ev-new-part");
  const key = JSON.stringify([ev.errors, ev.busy.has("create"), form.kind]);
  const focused = part.contains(document.activeElement) ? document.activeElement.id : null;
  if (!replacePart(part, "form", key, formPart)) return;
  if (focused) $(focused)?.focus();
}

function formPart() {
  const errors = ev.errors;
  const p = "ev-";
  const swiss = form.kind === "swiss";
  const hinted = new Set(["rounds", "boards_per_round", "first_round", "bye_vps", "start", "teams"]);
  const ctl = (name) => ({ id: `ev-${name}`, "data-ev-form": name, ...invalid(errors, p, name, hinted.has(name) ? `hint-ev-${name}` : null) });
  return [
    h(
      "form",
      { id: "ev-form", class: "create-form", novalidate: true },
      h("p", { id: "ev-error-form", class: "form-error", role: errors[""] ? "alert" : null, hidden: !errors[""] }, errors[""] ?? ""),
      h(
        "fieldset",
        { class: "group" },
        h("legend", {}, t("The event")),
        field(errors, p, "name", t("Name"), h("input", { type: "text", value: form.name, maxlength: MAX_NAME, autocomplete: "off", placeholder: t("Teams"), ...ctl("name") })),
        field(errors, p, "kind", t("Kind"), select("ev-kind", form.kind, ["swiss", "round_robin"], KIND, ctl("kind"))),
        swiss
          ? field(
              errors,
              p,
              "rounds",
              t("Rounds"),
              h("input", { type: "number", value: form.rounds, min: 1, max: 39, step: 1, inputmode: "numeric", ...ctl("rounds") }),
              t("At most the number of teams less one (as many as the teams when they are odd)."),
            )
          : h("p", { class: "hint ev-rr-hint" }, t("A round robin plays every other team once: its rounds follow from the teams.")),
        field(
          errors,
          p,
          "boards_per_round",
          t("Boards a round"),
          h("input", { type: "number", value: form.boards_per_round, min: 1, max: 32, step: 1, inputmode: "numeric", ...ctl("boards_per_round") }),
          t("1 to 32; every match of a round plays the same boards."),
        ),
        swiss
          ? field(
              errors,
              p,
              "first_round",
              t("The first round"),
              select("ev-first_round", form.first_round, ["seeded", "drawn"], FIRST_ROUND, ctl("first_round")),
              t("Seeded: the top half of the teams, in the order typed, meets the bottom half."),
            )
          : null,
        field(
          errors,
          p,
          "bye_vps",
          t("VPs for a bye"),
          h("input", { type: "number", value: form.bye_vps, min: 0, max: 20, step: 0.01, inputmode: "decimal", ...ctl("bye_vps") }),
          t("What a team sitting out a round scores (0 to 20)."),
        ),
        field(
          errors,
          p,
          "start",
          t("Rounds begin"),
          select("ev-start", form.start, ["auto", "director"], START, ctl("start")),
          t("When the director begins it: each round waits for “Begin round” on the event's page."),
        ),
        field(errors, p, "robot_level", t("The robots' level"), select("ev-robot_level", form.robot_level, ["seed", "strong"], LEVEL, ctl("robot_level"))),
      ),
      h(
        "fieldset",
        { class: "group" },
        h("legend", {}, t("The teams")),
        h(
          "div",
          { class: "field ev-teams-field", "data-field": "teams" },
          h("label", { for: "ev-teams" }, t("The teams, one a line")),
          h("textarea", { rows: 8, spellcheck: "false", ...ctl("teams") }, form.teams),
          h(
            "p",
            { class: "hint", id: "hint-ev-teams" },
            tx("Write each team as {form}. The first four players play every match; blank lines and lines beginning with # are skipped.", { form: h("code", {}, teamsForm()) }),
          ),
          errorFor(errors, p, "teams"),
        ),
      ),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "submit", id: "ev-create-send", class: "primary", disabled: ev.busy.has("create") }, ev.busy.has("create") ? t("Making the event…") : t("Make the event")),
      ),
    ),
  ];
}

/** The create_event the form says, or the form's own refusals: [message, errors]. */
function createMessage() {
  const found = {};
  const message = { type: "create_event", kind: form.kind, request_id: requestId() };
  const name = form.name.trim();
  if (name) message.name = name;
  const parsed = parseTeams(form.teams);
  if (parsed.error) found.teams = parsed.error;
  else message.teams = parsed.teams.map((team) => ({ name: team.name, players: team.players, robots: team.robots }));
  if (form.kind === "swiss") {
    const rounds = Number(form.rounds);
    if (form.rounds.trim() === "") found.rounds = t("How many rounds the Swiss plays.");
    else if (!Number.isInteger(rounds) || rounds < 1 || rounds > 39) found.rounds = t("A whole number of rounds, 1 to 39.");
    else message.rounds = rounds;
    message.first_round = form.first_round;
  }
  const boards = Number(form.boards_per_round.trim() === "" ? 8 : form.boards_per_round);
  if (!Number.isInteger(boards) || boards < 1 || boards > 32) found.boards_per_round = t("A whole number of boards, 1 to 32.");
  else message.boards_per_round = boards;
  const bye = Number(form.bye_vps.trim() === "" ? 12 : form.bye_vps);
  if (!(bye >= 0 && bye <= 20)) found.bye_vps = t("From 0 to 20 VPs.");
  else message.bye_vps = Math.round(bye * 100) / 100;
  message.start = form.start;
  message.robot_level = form.robot_level;
  return [message, found];
}

function focusFirstError(selector) {
  const first = document.querySelector(selector);
  if (!first) return;
  if (!first.matches("input, select, textarea")) first.setAttribute("tabindex", "-1");
  first.focus();
  first.scrollIntoView({ block: "center" });
}

async function submitCreate() {
  if (ev.busy.has("create")) return;
  const [message, found] = createMessage();
  ev.errors = found;
  if (Object.keys(found).length) {
    redraw();
    focusFirstError("#ev-form [aria-invalid='true'], #ev-error-form:not([hidden])");
    return;
  }
  ev.busy.add("create");
  redraw();
  try {
    const answer = await context.request(message);
    ev.busy.delete("create");
    ev.errors = {};
    ev.created = answer;
    Object.assign(form, { name: "", teams: "", rounds: "" });
    partKeys.delete($("ev-new-part")); // drawn afresh, empty, next time
    context.flash(t("The event is made."));
    openEvent(answer.event_id);
  } catch (error) {
    ev.busy.delete("create");
    const name = FORM_FIELDS.includes(error.field) ? error.field : "";
    ev.errors = { [name]: context.refusalText(error) };
    redraw();
    focusFirstError("#ev-form [aria-invalid='true'], #ev-error-form:not([hidden])");
  }
}

// -- one event ----------------------------------------------------------------------------------------

function drawEvent() {
  const page = $("ev-event-part");
  if (!page.firstChild) {
    page.append(
      h("div", { id: "ev-head", class: "ev-head" }),
      h("div", { id: "ev-results", class: "ev-box ev-results" }),
      h("section", { id: "ev-begin", class: "ev-box ev-begin", "aria-labelledby": "ev-begin-heading" }),
      h("section", { id: "ev-standings", class: "ev-box", "aria-labelledby": "ev-standings-heading" }),
      h("section", { id: "ev-adjust", class: "ev-box", "aria-labelledby": "ev-adjust-heading" }),
      h("section", { id: "ev-rounds", class: "ev-rounds", "aria-labelledby": "ev-rounds-heading" }),
    );
  }
  const event = ev.event;
  page.dataset.eventId = ev.current ?? "";
  page.dataset.status = event?.status ?? "";
  page.setAttribute("aria-busy", String(event === null));
  const [head, results, begin, standings, adjustPart, rounds] = page.children;
  if (event === null) {
    replacePart(head, "head", "loading", () => [h("p", { class: "empty-note" }, t("Loading the event…"))]);
    for (const part of [results, begin, standings, adjustPart, rounds]) part.hidden = true;
    return;
  }
  for (const part of [results, standings, adjustPart, rounds]) part.hidden = false;
  replacePart(head, "head", JSON.stringify([event.event_id, event.kind, event.status, event.round, event.rounds, event.boards_per_round, event.teams.length, ev.created?.event_id === event.event_id]), () => headPart(event));
  const link = event.results ?? (ev.created?.event_id === event.event_id ? ev.created.results : null);
  results.hidden = !link;
  replacePart(results, "results", JSON.stringify([link]), () => resultsPart(link));
  const drawn = drawnRound(event);
  begin.hidden = drawn === null;
  if (drawn && ev.repair?.round !== drawn.round) {
    ev.repair = { round: drawn.round, on: false, matches: drawn.matches.map((m) => [m.home, m.away]), bye: drawn.bye };
    ev.beginError = "";
  }
  replacePart(begin, "begin", JSON.stringify([drawn, ev.repair, ev.busy.has("begin"), ev.beginError, event.kind, event.teams]), () => (drawn ? beginPart(event, drawn) : []));
  replacePart(standings, "standings", JSON.stringify([event.status, event.standings, event.teams, event.adjustments]), () => standingsPart(event));
  const adjustFocus = adjustPart.contains(document.activeElement) ? document.activeElement.id : null;
  if (replacePart(adjustPart, "adjust", JSON.stringify([event.teams.map((team) => team.name), event.rounds, ev.adjustErrors, ev.busy.has("adjust")]), () => adjustFormPart(event)) && adjustFocus) {
    $(adjustFocus)?.focus();
  }
  const linkKeys = [...ev.openLinks].map((id) => [id, context.linksKey(id)]);
  replacePart(rounds, "rounds", JSON.stringify([event.schedule, event.teams, linkKeys]), () => roundsPart(event));
}

function headPart(event) {
  const facts = [
    KIND[event.kind] ?? event.kind,
    roundText(event.round, event.rounds),
    t("{n} boards a round", { n: event.boards_per_round }),
    t("{n} teams", { n: event.teams.length }),
  ];
  const created = ev.created?.event_id === event.event_id;
  return [
    h(
      "div",
      { class: "org-title-row" },
      badge(event.status, EVENT_STATUS[event.status] ?? event.status),
      h("p", { class: "org-meta" }, facts.join(" · "), h("span", { class: "match-id" }, ` · ${t("event {id}", { id: event.event_id })}`)),
    ),
    created
      ? h(
          "p",
          { class: "created-banner ev-created" },
          event.round
            ? t("The event is made and round 1 has begun: hand out the results link, and each match's links (under “Links”).")
            : t("The event is made: hand out the results link, and each match's links once its round has begun."),
        )
      : null,
  ];
}

function resultsPart(link) {
  if (!link) return [];
  return [
    h("h3", {}, t("The results link")),
    h(
      "div",
      { class: "link-copy ev-results-copy" },
      h("code", { id: "ev-results-link", class: "link-text", "aria-label": t("The results link") }, link),
      h("button", { type: "button", "data-action": "copy", "data-link": "ev-results-link", id: "ev-results-copy" }, t("Copy")),
      h("a", { class: "button-link", id: "ev-results-open", href: link, target: "_blank", rel: "noopener" }, t("Open the results page")),
    ),
    h("p", { class: "hint" }, t("Anyone may have this link: it shows the standings and each match once it has ended, never a board still being played. Put it on the club's screen or send it to the players.")),
  ];
}

function teamOptions(event, value, props) {
  return h(
    "select",
    props,
    ...event.teams.map((team) => h("option", { value: team.team, selected: team.team === value }, team.name)),
  );
}

function beginPart(event, drawn) {
  const repair = ev.repair;
  const busy = ev.busy.has("begin");
  const byHand = event.kind === "swiss" && repair.on;
  return [
    h("h3", { id: "ev-begin-heading" }, t("Round {round} is drawn", { round: drawn.round })),
    h(
      "p",
      { class: "ev-drawn" },
      drawn.matches.map((m) => t("{team_a} – {team_b}", { team_a: teamName(m.home), team_b: teamName(m.away) })).join(" · "),
      drawn.bye != null ? ` · ${t("{team} sits out", { team: teamName(drawn.bye) })}` : "",
    ),
    event.kind === "swiss"
      ? h(
          "label",
          { class: "check", for: "ev-repair" },
          h("input", { type: "checkbox", id: "ev-repair", checked: repair.on }),
          " ",
          t("Pair this round by hand"),
        )
      : h("p", { class: "hint" }, t("A round robin keeps its schedule.")),
    byHand
      ? h(
          "fieldset",
          { class: "ev-pairs" },
          h("legend", {}, t("The matches of round {round}", { round: drawn.round })),
          ...repair.matches.map(([home, away], index) =>
            h(
              "div",
              { class: "ev-pair" },
              h("label", { for: `ev-pair-${index}-home`, class: "visually-hidden" }, t("Match {n}: home", { n: index + 1 })),
              teamOptions(event, home, { id: `ev-pair-${index}-home`, "data-pair": index, "data-side": "0" }),
              h("span", { "aria-hidden": "true" }, "–"),
              h("label", { for: `ev-pair-${index}-away`, class: "visually-hidden" }, t("Match {n}: away", { n: index + 1 })),
              teamOptions(event, away, { id: `ev-pair-${index}-away`, "data-pair": index, "data-side": "1" }),
            ),
          ),
          repair.bye != null
            ? h("div", { class: "ev-pair" }, h("label", { for: "ev-pair-bye" }, t("Sits out")), teamOptions(event, repair.bye, { id: "ev-pair-bye", "data-pair": "bye" }))
            : null,
        )
      : null,
    h("p", { id: "ev-begin-error", class: "form-error", role: ev.beginError ? "alert" : null }, ev.beginError),
    h(
      "button",
      { type: "button", class: "primary", id: "ev-begin-send", "data-ev": "begin", "data-round": drawn.round, disabled: busy },
      t("Begin round {round}", { round: drawn.round }),
    ),
  ];
}

function standingsPart(event) {
  const leader = event.standings[0];
  const winner = event.status === "finished" && leader && !leader.tied ? teamName(leader.team) : null;
  return [
    h("h3", { id: "ev-standings-heading" }, event.status === "finished" ? t("Final standings") : t("Standings")),
    winner ? h("p", { class: "org-winner" }, t("Winner: {name}.", { name: winner })) : null,
    h(
      "div",
      { class: "ev-scroll", role: "region", tabindex: "0", "aria-label": t("Standings") },
      h(
        "table",
        { id: "ev-standings-table", class: "standings ev-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col", class: "points" }, t("Rank")),
            h("th", { scope: "col" }, t("Team")),
            h("th", { scope: "col", class: "points" }, t("VPs")),
            h("th", { scope: "col", class: "points" }, t("Played")),
            h("th", { scope: "col", class: "points" }, h("abbr", { title: t("IMPs won") }, t("IMPs +"))),
            h("th", { scope: "col", class: "points" }, h("abbr", { title: t("IMPs lost") }, t("IMPs −"))),
          ),
        ),
        h(
          "tbody",
          {},
          ...event.standings.map((standing) =>
            h(
              "tr",
              { "data-team": standing.team, "data-rank": standing.rank },
              h("td", { class: "points" }, standing.tied ? `${standing.rank}=` : String(standing.rank)),
              h("th", { scope: "row" }, teamName(standing.team)),
              h("td", { class: "points vps" }, vpText(standing.vps)),
              h("td", { class: "points" }, String(standing.played)),
              h("td", { class: "points" }, String(standing.imps_for)),
              h("td", { class: "points" }, String(standing.imps_against)),
            ),
          ),
        ),
      ),
    ),
    event.adjustments.length
      ? h(
          "div",
          { class: "ev-adjustments" },
          h("h4", {}, t("The director's adjustments")),
          h(
            "ul",
            { id: "ev-adjustments" },
            ...event.adjustments.map((entry) =>
              h(
                "li",
                { "data-team": entry.team },
                `${teamName(entry.team)}: ${signed(entry.vps, vpText)} ${t("VPs")} · `,
                entry.round == null ? t("the whole event") : t("Round {round}", { round: entry.round }),
                ` · ${entry.reason}`,
              ),
            ),
          ),
        )
      : null,
  ];
}

function adjustFormPart(event) {
  const errors = ev.adjustErrors;
  const p = "ev-adj-";
  const ctl = (name) => ({ id: `ev-adj-${name}`, "data-ev-adjust": name, ...invalid(errors, p, name) });
  const rounds = Array.from({ length: event.rounds }, (_, index) => String(index + 1));
  const roundNames = Object.fromEntries([["", t("the whole event")], ...rounds.map((round) => [round, t("Round {round}", { round })])]);
  const teamNames = Object.fromEntries([["", t("Choose a team")], ...event.teams.map((team) => [String(team.team), team.name])]);
  return [
    h("h3", { id: "ev-adjust-heading" }, t("Adjust VPs")),
    h(
      "form",
      { id: "ev-adjust-form", class: "ev-adjust-form", novalidate: true },
      h("p", { class: "hint ev-adjust-hint" }, t("A penalty below 0, an award above: it counts in the standings at once.")),
      h("p", { id: "ev-adj-error-form", class: "form-error", role: errors[""] ? "alert" : null, hidden: !errors[""] }, errors[""] ?? ""),
      field(errors, p, "team", t("Team"), select("ev-adj-team", adjust.team, ["", ...event.teams.map((team) => String(team.team))], teamNames, ctl("team"))),
      field(errors, p, "vps", t("VPs"), h("input", { type: "number", value: adjust.vps, min: -20, max: 20, step: 0.01, inputmode: "decimal", placeholder: "-1", ...ctl("vps") })),
      field(errors, p, "reason", t("Reason"), h("input", { type: "text", value: adjust.reason, maxlength: 300, autocomplete: "off", placeholder: t("late start"), ...ctl("reason") })),
      field(errors, p, "round", t("Round"), select("ev-adj-round", adjust.round, ["", ...rounds], roundNames, ctl("round"))),
      h("div", { class: "form-actions" }, h("button", { type: "submit", id: "ev-adjust-send", disabled: ev.busy.has("adjust") }, t("Adjust"))),
    ),
  ];
}

function roundsPart(event) {
  return [
    h("h3", { id: "ev-rounds-heading" }, t("Rounds")),
    event.schedule.length
      ? [...event.schedule].reverse().map((round) => roundSection(round))
      : h("p", { class: "empty-note" }, t("No round has been drawn yet.")),
  ];
}

function roundSection(round) {
  const id = `ev-round-${round.round}`;
  return h(
    "section",
    { class: "ev-round", "data-round": round.round, "data-status": round.status, "aria-labelledby": id },
    h(
      "div",
      { class: "org-title-row" },
      h("h4", { id }, t("Round {round}", { round: round.round })),
      badge(round.status, ROUND_STATUS[round.status] ?? round.status),
      h("span", { class: "org-meta" }, round.boards.length === 1 ? t("Board {board}", { board: round.boards[0] }) : t("Boards {first}–{last}", { first: round.boards[0], last: round.boards[round.boards.length - 1] })),
    ),
    h("div", { class: "ev-matches" }, ...round.matches.map((match) => matchRow(match))),
    round.bye != null
      ? h(
          "p",
          { class: "ev-bye", "data-bye": round.bye },
          round.status === "finished"
            ? t("{team} sat out: {vps} VPs", { team: teamName(round.bye), vps: vpText(round.bye_vps ?? 0) })
            : t("{team} sits out: {vps} VPs once the round has ended", { team: teamName(round.bye), vps: vpText(round.bye_vps ?? 0) }),
        )
      : null,
  );
}

function matchRow(match) {
  const id = match.match_id;
  const ended = match.status === "finished" && match.home_vps != null;
  const open = id !== null && ev.openLinks.has(id);
  return h(
    "div",
    { class: "ev-match", "data-match-id": id ?? "", "data-status": match.status, "data-home": match.home, "data-away": match.away },
    h(
      "div",
      { class: "ev-match-row" },
      h("span", { class: "ev-teams" }, t("{team_a} – {team_b}", { team_a: teamName(match.home), team_b: teamName(match.away) })),
      id !== null ? badge(match.status, EVENT_STATUS[match.status] ?? match.status) : null,
      ended
        ? h(
            "span",
            { class: "ev-score" },
            t("IMPs {home}–{away}", { home: match.home_imps, away: match.away_imps }),
            " · ",
            t("VPs {home}–{away}", { home: vpText(match.home_vps), away: vpText(match.away_vps) }),
          )
        : h("span", { class: "ev-score pending" }, id === null ? t("Not begun") : t("IMPs and VPs once it has ended")),
      id !== null
        ? h(
            "button",
            { type: "button", class: "ev-links-button", "data-ev": "links", "data-match": id, id: `ev-links-${id}`, "aria-expanded": String(open), "aria-controls": `ev-links-panel-${id}` },
            t("Links"),
          )
        : null,
    ),
    id !== null
      ? h("section", { class: "org-links ev-links", id: `ev-links-panel-${id}`, hidden: !open, "aria-label": t("Links") }, ...(open ? context.linksPart(id) : []))
      : null,
  );
}

// -- actions --------------------------------------------------------------------------------------------

async function begin(round) {
  if (ev.busy.has("begin") || !ev.event) return;
  const message = { type: "start_event_round", event_id: ev.event.event_id, round, matches: null, bye: null };
  if (ev.event.kind === "swiss" && ev.repair?.on) {
    message.matches = ev.repair.matches.map(([home, away]) => ({ home, away }));
    message.bye = ev.repair.bye;
  }
  ev.busy.add("begin");
  ev.beginError = "";
  redraw();
  try {
    const answer = await context.request(message);
    if (ev.current === answer.event_id) ev.event = answer;
    context.flash(t("Round {round} has begun.", { round }));
  } catch (error) {
    ev.beginError = context.refusalText(error);
  } finally {
    ev.busy.delete("begin");
    redraw();
  }
  if (ev.beginError) $("ev-begin-error")?.focus();
}

async function submitAdjust() {
  if (ev.busy.has("adjust") || !ev.event) return;
  const found = {};
  const team = Number(adjust.team);
  if (!adjust.team) found.team = t("Choose the team.");
  const vps = Number(adjust.vps);
  if (adjust.vps.trim() === "" || !(vps >= -20 && vps <= 20) || vps === 0) found.vps = t("From −20 to 20 VPs, not 0: below 0 a penalty, above an award.");
  const reason = adjust.reason.trim();
  if (!reason) found.reason = t("Say why.");
  ev.adjustErrors = found;
  if (Object.keys(found).length) {
    redraw();
    focusFirstError("#ev-adjust-form [aria-invalid='true']");
    return;
  }
  ev.busy.add("adjust");
  redraw();
  try {
    const answer = await context.request({
      type: "adjust_event",
      event_id: ev.event.event_id,
      team,
      vps: Math.round(vps * 100) / 100,
      reason,
      round: adjust.round ? Number(adjust.round) : null,
    });
    if (ev.current === answer.event_id) ev.event = answer;
    Object.assign(adjust, { vps: "", reason: "" });
    ev.adjustErrors = {};
    partKeys.delete($("ev-adjust")); // drawn afresh, without what was sent
    context.flash(t("The VPs of {team} are adjusted.", { team: teamName(team) }));
  } catch (error) {
    const name = ADJUST_FIELDS.includes(error.field) ? error.field : "";
    ev.adjustErrors = { [name]: context.refusalText(error) };
  } finally {
    ev.busy.delete("adjust");
    redraw();
  }
}

function toggleLinks(matchId) {
  if (ev.openLinks.has(matchId)) ev.openLinks.delete(matchId);
  else {
    ev.openLinks.add(matchId);
    context.fetchLinks(matchId); // afresh: the director may have put someone else in a seat
  }
  redraw();
}

function mended(errors, name, prefix) {
  if (!errors[name]) return;
  delete errors[name];
  const control = $(`${prefix}${name}`);
  control?.removeAttribute("aria-invalid");
  const shown = $(`${prefix}error-${name}`);
  if (shown) {
    shown.hidden = true;
    shown.textContent = "";
  }
}

document.addEventListener("click", (event) => {
  const target = event.target.closest?.("[data-ev]");
  if (!target || !context) return;
  switch (target.dataset.ev) {
    case "new":
      ev.view = "new";
      redraw();
      $("ev-name")?.focus();
      break;
    case "back":
      showList();
      break;
    case "open":
      openEvent(target.dataset.event);
      break;
    case "begin":
      begin(Number(target.dataset.round));
      break;
    case "links":
      toggleLinks(target.dataset.match);
      break;
    default:
      break;
  }
});

function onInput(event) {
  const target = event.target;
  const name = target.dataset?.evForm;
  const adjusting = target.dataset?.evAdjust;
  if (name) {
    form[name] = target.value;
    mended(ev.errors, name, "ev-");
    if (name === "kind" && event.type === "change") redraw();
  } else if (adjusting) {
    adjust[adjusting] = target.value;
    mended(ev.adjustErrors, adjusting, "ev-adj-");
  } else if (target.id === "ev-repair" && event.type === "change" && ev.repair) {
    ev.repair.on = target.checked;
    redraw();
    if (ev.repair.on) $("ev-pair-0-home")?.focus();
  } else if (target.dataset?.pair !== undefined && event.type === "change" && ev.repair) {
    if (target.dataset.pair === "bye") ev.repair.bye = Number(target.value);
    else ev.repair.matches[Number(target.dataset.pair)][Number(target.dataset.side)] = Number(target.value);
  }
}

document.addEventListener("input", onInput);
document.addEventListener("change", onInput);
document.addEventListener("submit", (event) => {
  if (event.target.id === "ev-form") {
    event.preventDefault();
    submitCreate();
  } else if (event.target.id === "ev-adjust-form") {
    event.preventDefault();
    submitAdjust();
  }
});

// The organiser's forms: a new match (`create_match`, every option of `duplicate
// new-match`), its deals drawn from a sealed seed (`seal_deals` first), and a match played
// elsewhere imported from its record (`import_match`). What the organiser typed is kept
// here while the page lives, so that a change of language (which draws the form again)
// loses none of it. A refusal is shown beside the field the server names (`error.field`),
// else at the top of the form.

import { SEATS, SEAT_NAME } from "./bridge.js";
import { $, h } from "./dom.js";
import { language, localized, t } from "./i18n.js";

/** The formats, as a list of matches names them. */
export const FORMAT_SHORT = localized({
  teams: "Teams",
  "robot-table": "Robot table",
  "team-of-four": "Team of four",
  replay: "Replay duplicate",
  individual: "Individual",
});

const FORMAT_CHOICE = localized({
  teams: "Teams: eight players at two tables",
  "robot-table": "Robot table: four people, the same cards played by robots at table 2",
  "team-of-four": "Team of four: board exchange, team B's pairs change tables at half-time",
  replay: "Replay duplicate: four players, every board replayed turned one seat",
  individual: "Individual: 8 or 12 players, a new partner each round",
});

const BOARDS_HINT = localized({
  teams: "Any number of boards; 4 if left empty.",
  "robot-table": "4, 8 or 16 boards; 8 if left empty.",
  "team-of-four": "A multiple of 4; 8 if left empty.",
  replay: "Any number of boards; 4 if left empty.",
  individual8: "14, 21 or 28 boards; 14 if left empty.",
  individual12: "11, 22 or 33 boards; 11 if left empty.",
  series: "The new boards each meeting plays; 4 if left empty. At most 64 in all (new boards × the meetings after the first).",
});

const SCORING_CHOICE = localized({
  "": "As the format scores it",
  imps: "IMPs",
  matchpoints: "Matchpoints",
  board_a_match: "Board-a-match",
  total_points: "Total points",
});

/** The scorings each format takes (SPEC.md, `create_match`). */
const SCORINGS = {
  teams: ["imps"],
  "robot-table": ["imps"],
  "team-of-four": ["imps"],
  replay: ["board_a_match", "total_points"],
  individual: ["imps", "matchpoints"],
};

const SPECTATORS = localized({
  live: "Live: both tables as they are played",
  delayed: "Delayed: each board once every table has finished it",
  off: "Off: no spectators' link",
});

const CHAT = localized({
  opponents: "To the opponents only",
  table: "To the whole table",
  off: "Off",
});

const DISPUTED = localized({
  director: "The director rules (law 68D)",
  play_on: "Play goes on from the claim",
});

const STAGE_TWO = localized({
  now: "As soon as stage 1 is over",
  director: "When the director starts it",
});

/** The same choice in a series: it holds each meeting after the first. */
const SERIES_START = localized({
  now: "As soon as the one before is over",
  director: "When the director starts it",
});

const LEVEL = localized({
  "": "As the match's robots",
  seed: "Seed (natural)",
  strong: "Strong (conventions)",
});

const MATCH_LEVEL = localized({
  seed: "Seed: natural, play by rules",
  strong: "Strong: conventions, double dummy",
});

const DEALS = localized({
  random: "Dealt by the server, at random",
  pbn: "From a PBN file",
  seal: "From a sealed seed and a public value",
});

const PUBLIC_KIND = localized({ digits: "Digits", words: "Words" });

/** What the organiser has typed and chosen (the form is drawn from it). */
const form = {
  format: "teams",
  players: "8",
  boards: "",
  scoring: "",
  stage_two: "now",
  imposed_auction: false,
  sessions: "",
  wait_for_players: false,
  minutes_per_board: "7.5",
  face_down_lead: true,
  disputed_claims: "director",
  team_a: "",
  team_b: "",
  deals: "random",
  deals_pbn: "",
  spectators: "live",
  names: {},
  robotSeats: {},
  robotTables: {},
  seatLevels: {},
  tableLevels: {},
  roster: "",
  chat: "opponents",
  review_seconds: "20",
  robot_delay: "",
  robot_level: "seed",
  seal: "",
  public_value: "",
  public_kind: "digits",
  public_digits: "5",
  public_how: "",
};

/** The last seal_deals answer, shown until the match is made. */
let sealed = null;
/** field -> the server's message about it; "" for the form's own. */
let errors = {};
let sending = false;
let importErrors = "";
let importing = false;
const importForm = { format: "pbn", record: "", file: "", spectators: "live" };

/** A fresh request id (16 random bytes, hex): the same request sent again is made once. */
function requestId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether the form asks for a series of meetings: replay duplicate with Meetings filled in
 * (even wrongly: the form then already reads as a series, and says what is wrong). */
function isSeries() {
  return form.format === "replay" && form.sessions.trim() !== "";
}

function tablesOf(format, players) {
  if (format === "replay") return 1;
  if (format === "individual") return Number(players) / 4;
  return 2;
}

/** "A" or "B": the team sitting at a seat in the team formats (SPEC.md, Values: Team). */
function teamAt(table, seat) {
  const northSouth = seat === "N" || seat === "S";
  return (table === 1) === northSouth ? "A" : "B";
}

// -- drawing -----------------------------------------------------------------------------------

function errorFor(field) {
  const text = errors[field];
  return h("p", { id: `error-${field}`, class: "field-error", role: text ? "alert" : null, hidden: !text }, text ?? "");
}

/** The attributes of a control the server refused (`hint`: the id of its hint, if any). */
function invalid(field, hint = null) {
  const described = [hint, errors[field] ? `error-${field}` : null].filter(Boolean).join(" ");
  return { "aria-invalid": errors[field] ? "true" : null, "aria-describedby": described || null };
}

function select(id, value, choices, names, props = {}) {
  return h(
    "select",
    { id, "data-form": id, ...props },
    ...choices.map((choice) => h("option", { value: choice, selected: choice === value }, names[choice])),
  );
}

function field(name, label, control, hint = null) {
  return h(
    "div",
    { class: "field", "data-field": name },
    h("label", { for: control.id }, label),
    control,
    hint ? h("p", { class: "hint", id: `hint-${control.id}` }, hint) : null,
    errorFor(name),
  );
}

function check(id, checked, label, props = {}) {
  return h("label", { class: "check", for: id }, h("input", { type: "checkbox", id, "data-form": id, checked, ...props }), " ", label);
}

function number(id, value, props = {}) {
  return h("input", { id, "data-form": id, type: "number", inputmode: "decimal", value, ...props });
}

/** File pickers are kept between two drawings of a form: a picker drawn afresh would
 * forget the file it holds. */
const pickers = new Map();

function picker(id, accept, props = {}) {
  let input = pickers.get(id);
  if (!input) {
    input = h("input", { id, type: "file", accept });
    pickers.set(id, input);
  }
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined) input.removeAttribute(name);
    else input.setAttribute(name, value);
  }
  return input;
}

function text(id, value, props = {}) {
  return h("input", { id, "data-form": id, type: "text", value, autocomplete: "off", ...props });
}

/** Draw the new-match form into `section`; `ctx`: request(message), refusalText(error), created(answer). */
export function renderCreate(section, ctx, force = false) {
  context = ctx;
  // Drawn again only when it must be: a live list a few times a second must not take the
  // caret from the organiser's typing.
  if (!force && section.dataset.drawn === language()) return;
  section.dataset.drawn = language();
  const focused = document.activeElement;
  const focusId = section.contains(focused) ? focused.id : null;
  const tables = tablesOf(form.format, form.players);
  const teams = ["teams", "robot-table", "team-of-four"].includes(form.format);
  const series = isSeries();
  const boardsHint = series ? BOARDS_HINT.series : form.format === "individual" ? BOARDS_HINT[`individual${form.players}`] : BOARDS_HINT[form.format];
  section.replaceChildren(
    h("h2", { id: "create-heading" }, t("A new match")),
    h(
      "form",
      { id: "create-form", class: "create-form", novalidate: true },
      h("p", { id: "error-form", class: "form-error", role: errors[""] ? "alert" : null, hidden: !errors[""] }, errors[""] ?? ""),
      h(
        "fieldset",
        { class: "group" },
        h("legend", {}, t("The match")),
        field("format", t("Format"), select("format", form.format, Object.keys(SCORINGS), FORMAT_CHOICE, invalid("format"))),
        form.format === "individual"
          ? field("players", t("Players"), select("players", form.players, ["8", "12"], { 8: t("8 players, 2 tables"), 12: t("12 players, 3 tables") }, invalid("players")))
          : null,
        field("boards", series ? t("New boards per meeting") : t("Boards"), number("boards", form.boards, { min: 1, max: 64, step: 1, inputmode: "numeric", ...invalid("boards", "hint-boards") }), boardsHint),
        form.format === "replay"
          ? field(
              "sessions",
              t("Meetings"),
              number("sessions", form.sessions, { min: 2, max: 12, step: 1, inputmode: "numeric", ...invalid("sessions", "hint-sessions") }),
              t("Empty: a single replay match. 2 to 12: a series, in which each meeting replays the last one's new boards, turned, then plays new ones (the first only plays, the last only replays); Boards then counts each meeting's new boards."),
            )
          : null,
        field("scoring", t("Scoring"), select("scoring", form.scoring, ["", ...SCORINGS[form.format]], SCORING_CHOICE, invalid("scoring"))),
        field("team_a", teams ? t("Team A's name (players 1-4)") : t("Team A's name"), text("team_a", form.team_a, { maxlength: 40, placeholder: t("Team A"), ...invalid("team_a") })),
        field("team_b", teams ? t("Team B's name (players 5-8)") : t("Team B's name"), text("team_b", form.team_b, { maxlength: 40, placeholder: t("Team B"), ...invalid("team_b") })),
        form.format === "replay"
          ? h(
              "div",
              { class: "field-row" },
              series
                ? field("stage_two", t("Each later meeting starts"), select("stage_two", form.stage_two, ["now", "director"], SERIES_START, invalid("stage_two")))
                : field("stage_two", t("Stage 2 starts"), select("stage_two", form.stage_two, ["now", "director"], STAGE_TWO, invalid("stage_two"))),
              h(
                "div",
                { class: "field", "data-field": "imposed_auction" },
                check(
                  "imposed_auction",
                  form.imposed_auction,
                  series ? t("A replayed board keeps its first auction: only the play is compared") : t("Stage 2 keeps each board's stage-1 auction: only the play is compared"),
                ),
                errorFor("imposed_auction"),
              ),
            )
          : null,
      ),
      playersGroup(tables, teams),
      dealsGroup(),
      h(
        "fieldset",
        { class: "group" },
        h("legend", {}, t("At the tables")),
        field(
          "minutes_per_board",
          t("Minutes per board (the round's clock)"),
          number("minutes_per_board", form.minutes_per_board, { min: 0, max: 60, step: 0.5, ...invalid("minutes_per_board", "hint-minutes_per_board") }),
          t("The director is told when a round's time is up; 0 or empty: no clock."),
        ),
        h(
          "div",
          { class: "field", "data-field": "face_down_lead" },
          check("face_down_lead", form.face_down_lead, t("The opening lead is made face down (law 41A)")),
          errorFor("face_down_lead"),
        ),
        field("disputed_claims", t("When a claim is disputed"), select("disputed_claims", form.disputed_claims, ["director", "play_on"], DISPUTED, invalid("disputed_claims"))),
        h(
          "div",
          { class: "field", "data-field": "wait_for_players" },
          check("wait_for_players", form.wait_for_players, t("Each board starts only once its table's four players are there")),
          errorFor("wait_for_players"),
        ),
        field("chat", t("Table chat during a board"), select("chat", form.chat, ["opponents", "table", "off"], CHAT, invalid("chat"))),
        field(
          "review_seconds",
          t("Review after each board (seconds)"),
          number("review_seconds", form.review_seconds, { min: 0, max: 600, step: 1, inputmode: "numeric", ...invalid("review_seconds", "hint-review_seconds") }),
          t("The next board starts sooner when all four players ask for it; 0: at once."),
        ),
        field("spectators", t("Spectators"), select("spectators", form.spectators, ["live", "delayed", "off"], SPECTATORS, invalid("spectators"))),
      ),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "submit", id: "create-send", class: "primary", disabled: sending }, sending ? t("Making the match…") : t("Make the match")),
      ),
    ),
  );
  if (focusId) $(focusId)?.focus();
}

function playersGroup(tables, teams) {
  const rows = [];
  for (let table = 1; table <= tables; table += 1) {
    const robotsTable = form.format === "robot-table" && table === 2;
    if (robotsTable) {
      rows.push(h("fieldset", { class: "table-seats", "data-table": table }, h("legend", {}, t("Table {table}", { table })), h("p", { class: "hint" }, t("The robots' table: they play the same cards as table 1."))));
      continue;
    }
    const whole = Boolean(form.robotTables[table]);
    rows.push(
      h(
        "fieldset",
        { class: "table-seats", "data-table": table },
        h("legend", {}, t("Table {table}", { table })),
        h(
          "div",
          { class: "table-robots" },
          check(`robots-t${table}`, whole, t("The server's robots play this table")),
          h(
            "label",
            { class: "level-field", for: `level-t${table}` },
            t("Their level"),
            " ",
            select(`level-t${table}`, form.tableLevels[table] ?? "", ["", "seed", "strong"], LEVEL),
          ),
        ),
        h(
          "div",
          { class: "seat-rows" },
          ...SEATS.map((seat) => {
            const key = `${table}${seat}`;
            const robot = whole || Boolean(form.robotSeats[key]);
            return h(
              "div",
              { class: "seat-row", "data-seat": key },
              h(
                "label",
                { for: `name-${key}`, class: "seat-label" },
                h("span", { "aria-hidden": "true" }, SEAT_NAME[seat]),
                teams ? h("span", { class: "seat-team", "aria-hidden": "true" }, t("team {team}", { team: teamAt(table, seat) })) : null,
                h("span", { class: "visually-hidden" }, t("{seat}, table {table}", { seat: SEAT_NAME[seat], table })),
              ),
              text(`name-${key}`, form.names[key] ?? "", { maxlength: 40, placeholder: t("name"), "data-seat": key }),
              check(`robot-${key}`, robot, t("Robot"), { disabled: whole, "aria-label": t("A robot plays {seat}, table {table}", { seat: SEAT_NAME[seat], table }) }),
              robot && !whole
                ? select(`level-${key}`, form.seatLevels[key] ?? "", ["", "seed", "strong"], LEVEL, { "aria-label": t("Robot level, {seat}, table {table}", { seat: SEAT_NAME[seat], table }) })
                : null,
            );
          }),
        ),
      ),
    );
  }
  return h(
    "fieldset",
    { class: "group" },
    h("legend", {}, t("Players and robots")),
    h("p", { class: "hint" }, t("By their seat in the first round: each keeps their link, and their name, wherever they move later. A player without a name may give their own at the table.")),
    h("div", { class: "seat-tables", "data-field": "names" }, ...rows),
    errorFor("names"),
    errorFor("robots"),
    errorFor("robot_levels"),
    h(
      "div",
      { class: "field", "data-field": "roster" },
      h("label", { for: "roster" }, t("Or paste a roster")),
      h("textarea", { id: "roster", "data-form": "roster", rows: 5, spellcheck: "false", ...invalid("roster", "hint-roster") }, form.roster),
      errorFor("roster"),
      h(
        "p",
        { class: "hint", id: "hint-roster" },
        t("A PBN-style roster: a game per table, [Table \"1\"] (or [Room \"Open\"]) then [North \"Ann\"] [East \"Bo\"]…, a blank line before the next table. A name typed above wins over the roster's."),
      ),
      h("label", { class: "file-field", for: "roster-file" }, t("Read a roster from a file"), " ", picker("roster-file", ".pbn,.txt,text/plain")),
    ),
    h(
      "div",
      { class: "field-row" },
      field("robot_level", t("The robots' level"), select("robot_level", form.robot_level, ["seed", "strong"], MATCH_LEVEL, invalid("robot_level"))),
      field(
        "robot_delay_ms",
        t("The robots wait before each call or card (seconds)"),
        number("robot_delay", form.robot_delay, { min: 0, max: 10, step: 0.1, placeholder: t("the server's setting"), ...invalid("robot_delay_ms") }),
      ),
    ),
  );
}

function dealsGroup() {
  const choice = form.deals;
  return h(
    "fieldset",
    { class: "group", "data-field": "deals" },
    h("legend", {}, t("Deals")),
    h(
      "div",
      { class: "radios", role: "radiogroup", "aria-label": t("Where the deals come from") },
      ...["random", "pbn", "seal"].map((value) =>
        h("label", { class: "check", for: `deals-${value}` }, h("input", { type: "radio", name: "deals", id: `deals-${value}`, value, "data-form": "deals", checked: choice === value }), " ", DEALS[value]),
      ),
    ),
    choice === "pbn"
      ? h(
          "div",
          { class: "field", "data-field": "deals_pbn" },
          h("label", { class: "file-field", for: "deals-file" }, t("A PBN file of prepared boards"), " ", picker("deals-file", ".pbn,.txt,text/plain")),
          h("label", { for: "deals_pbn" }, t("The PBN text (or paste it here)")),
          h("textarea", { id: "deals_pbn", "data-form": "deals_pbn", rows: 5, spellcheck: "false", ...invalid("deals_pbn") }, form.deals_pbn),
          h("p", { class: "hint" }, t("The match plays the file's first games that have a deal, in the file's order.")),
          errorFor("deals_pbn"),
        )
      : null,
    choice === "seal" ? sealPart() : null,
    choice === "random" ? h("p", { class: "hint" }, t("The server deals from the operating system's secure random source, and commits to the deals before play.")) : null,
  );
}

function sealPart() {
  return h(
    "div",
    { class: "seal" },
    h("p", { class: "hint" }, t("Neither the server nor you choose the deals alone: the server seals a secret seed first; you publish its commitment; then a public value nobody could know before (a lottery draw, dice thrown in front of the players) draws the boards with it.")),
    h(
      "div",
      { class: "seal-step" },
      h("h3", {}, t("1. Seal a seed")),
      h(
        "div",
        { class: "field-row" },
        field("public_kind", t("The public value will be written in"), select("public_kind", form.public_kind, ["digits", "words"], PUBLIC_KIND)),
        form.public_kind === "digits" ? field("public_digits", t("How many digits"), number("public_digits", form.public_digits, { min: 1, max: 200, step: 1, inputmode: "numeric" })) : null,
      ),
      field("public_form", t("How it will be drawn (optional)"), text("public_how", form.public_how, { maxlength: 200, placeholder: t("five dice thrown by the director, read left to right") })),
      h("button", { type: "button", id: "seal-send", "data-seal": "send", disabled: sending }, t("Seal the seed")),
      sealed
        ? h(
            "div",
            { class: "sealed", role: "status" },
            h("p", {}, t("Sealed. Publish this before the public value is known:")),
            h("p", { class: "commitment" }, t("Seed commitment: {commitment}", { commitment: `sha256 ${sealed.seed_commitment}` })),
            sealed.public_form ? h("p", {}, t("The public value's form: {form}", { form: sealed.public_form })) : null,
          )
        : null,
    ),
    h(
      "div",
      { class: "seal-step" },
      h("h3", {}, t("2. The public value")),
      field("seal", t("Seal"), text("seal", form.seal, { maxlength: 64, spellcheck: "false", ...invalid("seal") })),
      field("public_value", t("Public value"), text("public_value", form.public_value, { maxlength: 200, ...invalid("public_value") })),
    ),
  );
}

// -- sending -----------------------------------------------------------------------------------

let context = null;

function publicForm() {
  const kind = form.public_kind === "digits" ? `digits ${Number(form.public_digits) || 1}` : "words";
  const how = form.public_how.trim();
  return how ? `${kind}: ${how}` : kind;
}

/** The create_match message the form says, or a refusal of the form's own: [message, errors]. */
function createMessage() {
  const found = {};
  const message = { type: "create_match", format: form.format, request_id: requestId() };
  const tables = tablesOf(form.format, form.players);
  if (form.format === "individual") message.players = Number(form.players);
  if (form.boards.trim() !== "") {
    const boards = Number(form.boards);
    if (!Number.isInteger(boards) || boards < 1 || boards > 64) found.boards = t("A whole number of boards, 1 to 64.");
    else message.boards = boards;
  }
  if (form.scoring) message.scoring = form.scoring;
  if (form.format === "replay") {
    message.stage_two = form.stage_two;
    message.imposed_auction = form.imposed_auction;
    if (isSeries()) {
      const sessions = Number(form.sessions);
      if (!Number.isInteger(sessions) || sessions < 2 || sessions > 12) found.sessions = t("A whole number of meetings, 2 to 12 (empty: a single match).");
      else {
        message.sessions = sessions;
        // The server counts the same (and says so beside Boards): said here before sending.
        const total = (message.boards ?? 4) * (sessions - 1);
        if (total > 64 && !found.boards) found.boards = t("{boards} new boards in each of {n} meetings make {total} boards: at most 64.", { boards: message.boards ?? 4, n: sessions - 1, total });
      }
    }
  }
  message.wait_for_players = form.wait_for_players;
  if (form.minutes_per_board.trim() !== "") {
    const minutes = Number(form.minutes_per_board);
    if (!(minutes >= 0 && minutes <= 60)) found.minutes_per_board = t("From 0 to 60 minutes.");
    else if (minutes > 0) message.minutes_per_board = minutes;
  }
  message.face_down_lead = form.face_down_lead;
  message.disputed_claims = form.disputed_claims;
  if (form.team_a.trim()) message.team_a = form.team_a.trim();
  if (form.team_b.trim()) message.team_b = form.team_b.trim();
  if (form.deals === "pbn") {
    if (!form.deals_pbn.trim()) found.deals_pbn = t("Choose a PBN file, or paste its text.");
    else message.deals_pbn = form.deals_pbn;
  } else if (form.deals === "seal") {
    if (!form.seal.trim()) found.seal = t("Seal a seed first (step 1), or paste a seal you made before.");
    if (!form.public_value.trim()) found.public_value = t("The public value, once it is known.");
    message.seal = form.seal.trim();
    message.public_value = form.public_value.trim();
  }
  message.spectators = form.spectators;
  message.chat = form.chat;
  const review = Number(form.review_seconds.trim() === "" ? 20 : form.review_seconds);
  if (!Number.isInteger(review) || review < 0 || review > 600) found.review_seconds = t("A whole number of seconds, 0 to 600.");
  else message.review_seconds = review;
  if (form.robot_delay.trim() !== "") {
    const seconds = Number(form.robot_delay);
    if (!(seconds >= 0 && seconds <= 10)) found.robot_delay_ms = t("From 0 to 10 seconds.");
    else message.robot_delay_ms = Math.round(seconds * 1000);
  }
  message.robot_level = form.robot_level;
  const robots = [];
  const names = {};
  const levels = {};
  for (let table = 1; table <= tables; table += 1) {
    if (form.format === "robot-table" && table === 2) continue;
    if (form.robotTables[table]) {
      robots.push(`t${table}`);
      if (form.tableLevels[table]) levels[`t${table}`] = form.tableLevels[table];
    }
    for (const seat of SEATS) {
      const key = `${table}${seat}`;
      const name = (form.names[key] ?? "").trim();
      if (name) names[key] = name;
      if (!form.robotTables[table] && form.robotSeats[key]) {
        robots.push(key);
        if (form.seatLevels[key]) levels[key] = form.seatLevels[key];
      }
    }
  }
  message.robots = robots;
  message.names = names;
  message.robot_levels = levels;
  if (form.roster.trim()) message.roster = form.roster;
  return [message, found];
}

/** Where a refusal is shown: the field the server named, when the form has it. */
function placeError(error, refusal) {
  const known = new Set([
    "format", "players", "boards", "scoring", "stage_two", "imposed_auction", "sessions", "wait_for_players",
    "minutes_per_board", "face_down_lead", "disputed_claims", "team_a", "team_b", "deals_pbn",
    "spectators", "robots", "names", "roster", "chat", "review_seconds", "robot_delay_ms",
    "robot_level", "robot_levels", "seal", "public_value",
  ]);
  let name = error.field ?? "";
  if (name === "seal" && form.deals !== "seal") name = "";
  if (name === "public_value" && form.deals !== "seal") name = "";
  if (name === "deals_pbn" && form.deals !== "pbn") name = "";
  if (name === "sessions" && form.format !== "replay") name = "";
  return { [known.has(name) ? name : ""]: refusal };
}

async function submitCreate() {
  if (sending) return;
  const [message, found] = createMessage();
  errors = found;
  if (Object.keys(found).length) {
    redraw();
    focusFirstError();
    return;
  }
  sending = true;
  redraw();
  try {
    const answer = await context.request(message);
    sending = false;
    errors = {};
    sealed = null;
    form.seal = "";
    form.public_value = "";
    redraw();
    context.created(answer);
  } catch (error) {
    sending = false;
    errors = placeError(error, context.refusalText(error));
    redraw();
    focusFirstError();
  }
}

async function submitSeal() {
  if (sending) return;
  sending = true;
  errors = {};
  redraw();
  try {
    sealed = await context.request({ type: "seal_deals", public_form: publicForm(), request_id: requestId() });
    form.seal = sealed.seal;
  } catch (error) {
    errors = { public_form: context.refusalText(error) };
  }
  sending = false;
  redraw();
}

function redraw() {
  const section = $("create-view");
  if (section && context) renderCreate(section, context, true);
}

function focusFirstError() {
  const first = document.querySelector("#create-form [aria-invalid='true'], #create-form .field-error:not([hidden]), #error-form:not([hidden])");
  if (first) {
    if (!first.matches("input, select, textarea")) first.setAttribute("tabindex", "-1");
    first.focus();
    first.scrollIntoView({ block: "center" });
  }
}

// -- importing ---------------------------------------------------------------------------------

/** Draw the import form into `section`. */
export function renderImport(section, ctx, force = false) {
  context = ctx;
  if (!force && section.dataset.drawn === language()) return;
  section.dataset.drawn = language();
  const focused = document.activeElement;
  const focusId = section.contains(focused) ? focused.id : null;
  section.replaceChildren(
    h("h2", { id: "import-heading" }, t("Import a match played elsewhere")),
    h("p", { class: "hint" }, t("A team match's record, PBN or LIN (BBO's vugraph file): it becomes a finished match here, each board at both tables, with links for its players, spectators and director.")),
    h(
      "form",
      { id: "import-form", class: "import-form", novalidate: true },
      h(
        "div",
        { class: "field", "data-field": "record" },
        h("label", { for: "import-file" }, t("The record's file")),
        picker("import-file", ".pbn,.lin,.txt,text/plain"),
      ),
      field("import-format", t("Its format"), select("import-format", importForm.format, ["pbn", "lin"], { pbn: "PBN", lin: "LIN" })),
      field("import-spectators", t("Spectators"), select("import-spectators", importForm.spectators, ["live", "delayed", "off"], SPECTATORS)),
      h("p", { id: "import-error", class: "form-error", role: importErrors ? "alert" : null, hidden: !importErrors }, importErrors),
      h("div", { class: "form-actions" }, h("button", { type: "submit", id: "import-send", class: "primary", disabled: importing }, importing ? t("Importing…") : t("Import the match"))),
    ),
  );
  if (focusId) $(focusId)?.focus();
}

async function submitImport() {
  if (importing) return;
  if (!importForm.record) {
    importErrors = t("Choose the record's file first.");
    redrawImport();
    return;
  }
  importing = true;
  importErrors = "";
  redrawImport();
  try {
    const answer = await context.request({
      type: "import_match",
      format: importForm.format,
      record: importForm.record,
      spectators: importForm.spectators,
      request_id: requestId(),
    });
    importing = false;
    importForm.record = "";
    importForm.file = "";
    pickers.get("import-file").value = "";
    redrawImport();
    context.created(answer);
  } catch (error) {
    importing = false;
    importErrors = context.refusalText(error);
    redrawImport();
    $("import-error")?.focus();
  }
}

function redrawImport() {
  const section = $("import-view");
  if (section && context) renderImport(section, context, true);
}

// -- what the organiser types -------------------------------------------------------------------

const REDRAWN = new Set(["format", "players", "deals", "public_kind"]);

function onInput(event) {
  const target = event.target;
  const name = target.dataset?.form;
  if (!name || !target.closest("#create-form")) return;
  const id = target.id;
  const wasSeries = isSeries();
  if (id.startsWith("name-")) form.names[id.slice(5)] = target.value;
  else if (id.startsWith("robots-t")) form.robotTables[Number(id.slice(8))] = target.checked;
  else if (id.startsWith("robot-")) form.robotSeats[id.slice(6)] = target.checked;
  else if (id.startsWith("level-t")) form.tableLevels[Number(id.slice(7))] = target.value;
  else if (id.startsWith("level-")) form.seatLevels[id.slice(6)] = target.value;
  else if (name === "deals") form.deals = target.value;
  else if (target.type === "checkbox") form[name] = target.checked;
  else if (name === "public_how") form.public_how = target.value;
  else if (name === "robot_delay") form.robot_delay = target.value;
  else form[name] = target.value;
  if (name === "format") {
    form.scoring = "";
    form.boards = "";
  }
  const refused = target.closest("[data-field]")?.dataset.field;
  if (refused && errors[refused]) {
    // Mended: the message goes once the organiser changes what it was about.
    delete errors[refused];
    target.removeAttribute("aria-invalid");
    const shown = $(`error-${refused}`);
    if (shown) {
      shown.hidden = true;
      shown.textContent = "";
    }
  }
  if (event.type === "change" && (REDRAWN.has(name) || target.type === "checkbox")) redraw();
  // Meetings filled in or emptied: Boards and the start of what follows read as a series or
  // not. Drawn at once (on the keystroke, not on leaving the field: a form drawn afresh
  // between a press and its release would lose a click on "Make the match").
  else if (isSeries() !== wasSeries) redraw();
}

async function readFile(input) {
  const file = input.files?.[0];
  if (!file) return null;
  return { name: file.name, text: await file.text() };
}

document.addEventListener("input", onInput);
document.addEventListener("change", async (event) => {
  const target = event.target;
  if (target.id === "roster-file" || target.id === "deals-file") {
    const read = await readFile(target);
    if (!read) return;
    if (target.id === "roster-file") form.roster = read.text;
    else form.deals_pbn = read.text;
    redraw();
    return;
  }
  if (target.id === "import-file") {
    const read = await readFile(target);
    if (!read) return;
    importForm.record = read.text;
    importForm.file = read.name;
    importForm.format = /\.lin$/i.test(read.name) ? "lin" : "pbn";
    importErrors = "";
    redrawImport();
    return;
  }
  if (target.id === "import-format") importForm.format = target.value;
  else if (target.id === "import-spectators") importForm.spectators = target.value;
  else onInput(event);
});
document.addEventListener("submit", (event) => {
  if (event.target.id === "create-form") {
    event.preventDefault();
    submitCreate();
  } else if (event.target.id === "import-form") {
    event.preventDefault();
    submitImport();
  }
});
document.addEventListener("click", (event) => {
  if (event.target.closest?.("[data-seal='send']")) submitSeal();
});

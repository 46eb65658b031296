// An event's results page (/event#TOKEN): a round robin or a Swiss of many two-table team
// matches, for anyone with the event's results link (protocol/SPEC.md, "Events of many
// matches"). The page says `hello` with the link's token; the server answers with the
// `event` at once and again whenever it changes. Nothing here is worked out from a match in
// play: the server sends a match's IMPs and VPs once it has ended, and a board's results
// (its traveller, the Butler figures) once every table of the event has played it. The page
// shows what it is sent, and says what it waits for.
//
// The connection is a seat's (connection.js: heartbeats, a new socket with backoff after a
// drop), with its own `hello` and the `event` frames handed to the page.

import { SEATS, SEAT_LETTER, SEAT_NAME, SUITS, isVulnerable, next, scoreText, sideText } from "./bridge.js";
import { boardInfo, handRows } from "./compass.js";
import { Connection, PROTOCOL_VERSION, socketUrl } from "./connection.js";
import { $, callNode, h, setServerNow } from "./dom.js";
import { errorText } from "./errors.js";
import { language, localized, onLanguage, setLanguage, t } from "./i18n.js";
import { decode } from "./vendor/msgpack.mjs";

const CLIENT_NAME = "event-page";
/** How a results link's token begins (SPEC.md, "The results link"): another link's token is
 * never sent from this page (it would mark a player at the table, say). */
const TOKEN_PREFIX = "ev_";
/** Hello refusals that say the link itself is wrong (not the server's state just now). */
const UNKNOWN_LINK = new Set(["bad_token", "forbidden"]);
/** How long after a hello the store could not answer (`unavailable`) the page tries again. */
const RETRY_HELLO_MS = 2000;

const state = {
  /** The latest `event` message (null until the first). */
  event: null,
  /** The tab shown: "standings", "rounds", "cross", "butler" or "boards". */
  tab: "standings",
  /** The board whose traveller is shown (null: the first there is). */
  board: null,
  /** The connection: "connecting", "connected", "lost" or "failed". */
  connection: "connecting",
  /** Why the page cannot show the event: {kind: "unknown" | "no-link" | "refused", detail}. */
  failure: null,
  /** A refusal from the server that is not the end of the page (shown above the results). */
  refusal: null,
};

const TAB_ORDER = ["standings", "rounds", "cross", "butler", "boards"];
const TABS = localized({
  standings: "Standings",
  rounds: "Rounds",
  cross: "Cross-table",
  butler: "Butler",
  boards: "Boards",
});
const KIND = localized({ round_robin: "Round robin", swiss: "Swiss" });
const EVENT_STATUS = localized({ waiting: "Waiting to start", playing: "Playing", finished: "Finished" });
const ROUND_STATUS = localized({ drawn: "Drawn", playing: "Playing", finished: "Finished" });
const MATCH_STATUS = localized({ waiting: "Waiting to start", playing: "Playing", finished: "Finished" });
const CONNECTION_STATE = localized({
  connecting: "Connecting…",
  connected: "Connected",
  lost: "Reconnecting…",
  failed: "Not connected",
});

// -- the connection ------------------------------------------------------------------------

/** A results link's connection: a seat's, but for its hello and the `event` frames. */
class EventConnection extends Connection {
  hello() {
    this.raw({
      type: "hello",
      version: PROTOCOL_VERSION,
      versions: [PROTOCOL_VERSION],
      token: this.token,
      client: CLIENT_NAME,
      heartbeat: true,
    });
  }

  receive(data) {
    if (data instanceof ArrayBuffer) {
      let message = null;
      try {
        message = decode(new Uint8Array(data));
      } catch {
        // the seat's connection starts afresh on a frame it cannot read
      }
      if (message?.type === "event") {
        this.heardAt = performance.now();
        if (message.ref != null) this.pending.delete(message.ref);
        this.handlers.event(message);
        return;
      }
      if (message?.type === "error" && !this.authenticated) this.refusal = message;
    }
    super.receive(data);
  }
}

/** The page's own address with /event taken off: connection.js's socketUrl does the rest. */
function eventSocketUrl(location) {
  const pathname = location.pathname.replace(/\/+$/, "").replace(/\/event$/, "");
  return socketUrl({ protocol: location.protocol, host: location.host, pathname });
}

const token = window.location.hash.replace(/^#/, "");
let conn = null;

const handlers = {
  welcome(message) {
    if (message.role !== "event") {
      // Some other link's token: not an event's results link (nothing more is said with it).
      conn.failed = true;
      state.failure = { kind: "unknown", detail: null };
      state.connection = "failed";
      conn.socket?.close();
      render();
      return;
    }
    setServerNow(message.now);
    state.failure = null;
    state.refusal = null;
  },
  update() {
    // a match's updates never come to a results link
  },
  event(message) {
    state.event = message;
    state.refusal = null;
    render();
  },
  answer() {
    // the page asks nothing that waits for an answer
  },
  refused(message) {
    state.refusal = message;
    if (!conn.authenticated && message.code === "unavailable") {
      // The store could not look the link up just now: a new connection, a new hello.
      setTimeout(() => conn.restart(), RETRY_HELLO_MS);
    }
    render();
  },
  status(kind, detail) {
    if (state.failure !== null && kind !== "failed") return;
    state.connection = kind;
    if (kind === "failed") {
      const refusal = conn.refusal;
      if (refusal && UNKNOWN_LINK.has(refusal.code)) state.failure = { kind: "unknown", detail: null };
      else if (state.failure === null) state.failure = { kind: "refused", detail: typeof detail === "string" ? detail : null };
    }
    render();
  },
};

// -- numbers and names ---------------------------------------------------------------------------

function decimal(value) {
  return new Intl.NumberFormat(language(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
}

/** VPs to two decimals: 14.68. */
function vpText(vps) {
  return decimal(vps);
}

/** A number with its sign (a true minus): +3, −1.50, 0. */
function signed(value, format = String) {
  if (value > 0) return `+${format(value)}`;
  if (value < 0) return `−${format(-value)}`;
  return format(0);
}

function team(number) {
  return state.event?.teams.find((entry) => entry.team === number) ?? null;
}

function teamName(number) {
  return team(number)?.name ?? `#${number}`;
}

/** A player's name; the names the server gives a team of its robots, in the page's language. */
function personName(name, robots) {
  const robot = robots ? /^Robot (\d+)$/.exec(name) : null;
  return robot ? t("Robot {n}", { n: robot[1] }) : name;
}

/** A pair's names, "Ann & Bo" (on a phone's traveller: a name a line). */
function pairNames(players, robots) {
  return players.flatMap((name, index) => [
    index ? " " : null,
    h("span", { class: "person" }, index ? h("span", { class: "amp" }, "& ") : null, personName(name, robots)),
  ]);
}

/** Who sat North-South and East-West at a match's table: home N-S at table 1, away N-S at 2. */
function sidesOf(matchId, table) {
  for (const round of state.event?.schedule ?? []) {
    for (const match of round.matches) {
      if (match.match_id !== matchId) continue;
      return table === 1 ? { ns: match.home, ew: match.away } : { ns: match.away, ew: match.home };
    }
  }
  return { ns: null, ew: null };
}

function badge(status, text) {
  return h("span", { class: "status-badge", "data-status": status }, text);
}

function boardsText(boards) {
  if (!boards.length) return "";
  if (boards.length === 1) return t("Board {board}", { board: boards[0] });
  return t("Boards {first}–{last}", { first: boards[0], last: boards[boards.length - 1] });
}

/** The hands of a PBN deal ("N:AKQ.T98.. ..."), seat -> cards ("SA", "HT"...). */
function handsOf(deal) {
  const [first, rest = ""] = deal.split(":");
  const hands = {};
  let seat = first.trim().toUpperCase();
  if (!SEATS.includes(seat)) seat = "N";
  for (const part of rest.trim().split(/\s+/).slice(0, 4)) {
    const suits = part.split(".");
    hands[seat] = SUITS.flatMap((suit, index) =>
      (suits[index] ?? "").replace(/-/g, "").toUpperCase().split("").filter(Boolean).map((rank) => suit + rank),
    );
    seat = next(seat);
  }
  return hands;
}

/** A wide table in a box of its own, which scrolls sideways on a narrow screen. */
function scroller(label, table) {
  return h("div", { class: "table-scroll", role: "region", tabindex: "0", "aria-label": label }, table);
}

// -- drawing -----------------------------------------------------------------------------------------

/** What each part of the page was last drawn from: an unchanged part is not drawn again. */
const drawnFrom = new WeakMap();

function replacePart(element, key, build) {
  const full = `${language()} ${key}`;
  if (drawnFrom.get(element) === full) return false;
  drawnFrom.set(element, full);
  element.replaceChildren(...build().flat().filter((node) => node !== null && node !== undefined && node !== false));
  return true;
}

function render() {
  const focused = document.activeElement?.dataset?.key ?? null;
  drawFrame();
  const event = state.event;
  const failure = state.failure;
  $("failure").hidden = failure === null;
  if (failure !== null) drawFailure(failure);
  $("loading").hidden = failure !== null || event !== null;
  setText($("loading"), t("Connecting…"));
  $("summary").hidden = failure !== null || event === null;
  $("results").hidden = failure !== null || event === null;
  document.body.dataset.state = failure !== null ? "failed" : event === null ? "connecting" : "shown";
  if (failure === null && event !== null) {
    drawSummary(event);
    drawTabs();
    for (const tab of TAB_ORDER) $(`${tab}-view`).hidden = state.tab !== tab;
    drawStandings(event);
    drawRounds(event);
    drawCrossTable(event);
    drawButler(event);
    drawBoards(event);
  }
  if (focused !== null && (document.activeElement === document.body || document.activeElement === null)) {
    document.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }
}

function drawFrame() {
  const event = state.event;
  document.documentElement.lang = language();
  const heading = event && state.failure === null ? event.name : t("Event results");
  document.title = event && state.failure === null ? t("{event}: results", { event: event.name }) : t("Event results");
  setText($("title"), heading);
  const select = $("language");
  select.value = language();
  select.setAttribute("aria-label", t("Language"));
  const status = $("status");
  status.dataset.state = state.connection;
  setText($("status-text"), CONNECTION_STATE[state.connection] ?? CONNECTION_STATE.connecting);
  const notice = $("notice");
  let text = "";
  let kind = "";
  if (state.failure === null && state.connection === "lost" && state.event !== null) {
    text = t("The connection to the server was lost: trying again. What is shown may be out of date.");
    kind = "lost";
  } else if (state.failure === null && state.refusal !== null) {
    text = errorText(state.refusal);
    kind = "failed";
  }
  notice.hidden = text === "";
  notice.className = kind ? `notice ${kind}` : "notice";
  setText(notice, text); // the same words again are not said again
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

function drawFailure(failure) {
  replacePart($("failure"), JSON.stringify(failure), () => {
    if (failure.kind === "no-link") {
      return [
        h("h2", {}, t("This page needs an event's results link")),
        h("p", {}, t("Open the link the organiser handed out: it ends in # and a long code.")),
      ];
    }
    if (failure.kind === "unknown") {
      return [
        h("h2", {}, t("This results link is not known here")),
        h("p", {}, t("Check that the whole link was copied, or ask the organiser for the event's results link.")),
      ];
    }
    return [
      h("h2", {}, t("The results cannot be shown")),
      failure.detail ? h("p", {}, failure.detail) : null,
    ];
  });
}

function drawSummary(event) {
  const key = JSON.stringify([event.name, event.kind, event.status, event.round, event.rounds, event.boards_per_round, event.teams.length]);
  replacePart($("summary"), key, () => [
    h(
      "p",
      { class: "event-facts" },
      badge("kind", KIND[event.kind] ?? event.kind),
      badge(event.status, EVENT_STATUS[event.status] ?? event.status),
      h(
        "span",
        { class: "event-round", "data-round": event.round },
        event.round > 0 ? t("Round {round} of {rounds}", { round: event.round, rounds: event.rounds }) : t("{n} rounds", { n: event.rounds }),
      ),
      h("span", {}, t("{n} boards a round", { n: event.boards_per_round })),
      h("span", {}, t("{n} teams", { n: event.teams.length })),
    ),
    h(
      "p",
      { class: "hint" },
      event.status === "finished"
        ? t("The event is over: these are its final results.")
        : t("The results update by themselves as the matches end. A match's IMPs and VPs appear once it has ended."),
    ),
  ]);
}

function drawTabs() {
  const nav = $("tabs");
  nav.setAttribute("aria-label", t("Results"));
  replacePart(nav, state.tab, () => [
    h(
      "div",
      { role: "tablist", class: "tab-list", "aria-label": t("Results") },
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
  state.tab = tab;
  render();
  if (focus) $(`tab-${tab}`)?.focus();
}

// -- standings -------------------------------------------------------------------------------------

function rankText(rank, tied) {
  return tied ? `${rank}=` : String(rank);
}

function drawStandings(event) {
  const key = JSON.stringify([event.status, event.standings, event.teams, event.adjustments]);
  replacePart($("standings-view"), key, () => {
    const leader = event.standings[0];
    const winner = event.status === "finished" && leader && !leader.tied ? teamName(leader.team) : null;
    return [
      h("h2", {}, event.status === "finished" ? t("Final standings") : t("Standings")),
      winner ? h("p", { class: "event-winner" }, t("Winner: {name}.", { name: winner })) : null,
      event.standings.length
        ? scroller(
            t("Standings"),
            h(
              "table",
              { class: "event-table standings-table" },
              h("caption", { class: "visually-hidden" }, t("Standings")),
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  h("th", { scope: "col", class: "num" }, t("Rank")),
                  h("th", { scope: "col" }, t("Team")),
                  h("th", { scope: "col", class: "num" }, t("VPs")),
                  h("th", { scope: "col", class: "num" }, t("Played")),
                  h("th", { scope: "col", class: "num" }, h("abbr", { title: t("IMPs won") }, t("IMPs +"))),
                  h("th", { scope: "col", class: "num" }, h("abbr", { title: t("IMPs lost") }, t("IMPs −"))),
                ),
              ),
              h(
                "tbody",
                {},
                ...event.standings.map((standing) => {
                  const entry = team(standing.team);
                  return h(
                    "tr",
                    { "data-team": standing.team, "data-rank": standing.rank, "data-tied": String(standing.tied) },
                    h("td", { class: "num rank" }, rankText(standing.rank, standing.tied)),
                    h(
                      "th",
                      { scope: "row", class: "team-cell" },
                      h("span", { class: "team-name" }, teamName(standing.team)),
                      entry
                        ? h("span", { class: "team-players" }, entry.robots ? t("the server's robots") : entry.players.join(", "))
                        : null,
                    ),
                    h("td", { class: "num vps" }, vpText(standing.vps)),
                    h("td", { class: "num" }, String(standing.played)),
                    h("td", { class: "num" }, String(standing.imps_for)),
                    h("td", { class: "num" }, String(standing.imps_against)),
                  );
                }),
              ),
            ),
          )
        : h("p", { class: "empty-note" }, t("No team has played yet.")),
      event.adjustments.length ? adjustmentsPart(event) : null,
    ];
  });
}

function adjustmentsPart(event) {
  return h(
    "section",
    { class: "adjustments", "aria-labelledby": "adjustments-heading" },
    h("h3", { id: "adjustments-heading" }, t("The director's adjustments")),
    scroller(
      t("The director's adjustments"),
      h(
        "table",
        { class: "event-table adjustments-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, t("Team")),
            h("th", { scope: "col", class: "num" }, t("VPs")),
            h("th", { scope: "col" }, t("Round")),
            h("th", { scope: "col" }, t("Reason")),
          ),
        ),
        h(
          "tbody",
          {},
          ...event.adjustments.map((adjustment) =>
            h(
              "tr",
              { "data-team": adjustment.team },
              h("th", { scope: "row" }, teamName(adjustment.team)),
              h("td", { class: `num vps ${adjustment.vps < 0 ? "minus" : "plus"}` }, signed(adjustment.vps, vpText)),
              h("td", {}, adjustment.round == null ? t("the whole event") : t("Round {round}", { round: adjustment.round })),
              h("td", { class: "reason" }, adjustment.reason),
            ),
          ),
        ),
      ),
    ),
  );
}

// -- rounds ------------------------------------------------------------------------------------------

function drawRounds(event) {
  const key = JSON.stringify([event.schedule, event.teams]);
  replacePart($("rounds-view"), key, () => [
    h("h2", {}, t("Rounds")),
    h("p", { class: "hint" }, t("A match's IMPs and VPs appear once it has ended.")),
    event.schedule.length
      ? h("div", { class: "round-list" }, ...[...event.schedule].reverse().map(roundPart))
      : h("p", { class: "empty-note" }, t("No round has been drawn yet.")),
  ]);
}

function roundPart(round) {
  const id = `round-${round.round}-heading`;
  return h(
    "section",
    { class: "event-round-part", "data-round": round.round, "data-status": round.status, "aria-labelledby": id },
    h(
      "div",
      { class: "round-head" },
      h("h3", { id }, t("Round {round}", { round: round.round })),
      badge(round.status, ROUND_STATUS[round.status] ?? round.status),
      h("span", { class: "round-boards" }, boardsText(round.boards)),
    ),
    scroller(
      t("Round {round}", { round: round.round }),
      h(
        "table",
        { class: "event-table matches-table" },
        h("caption", { class: "visually-hidden" }, t("The matches of round {round}", { round: round.round })),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, t("Home")),
            h("th", { scope: "col" }, t("Away")),
            h("th", { scope: "col", class: "num" }, t("IMPs")),
            h("th", { scope: "col", class: "num" }, t("VPs")),
          ),
        ),
        h("tbody", {}, ...round.matches.map(matchRow)),
      ),
    ),
    round.bye != null
      ? h(
          "p",
          { class: "bye", "data-bye": round.bye },
          round.status === "finished"
            ? t("{team} sat out: {vps} VPs", { team: teamName(round.bye), vps: vpText(round.bye_vps ?? 0) })
            : t("{team} sits out: {vps} VPs once the round has ended", { team: teamName(round.bye), vps: vpText(round.bye_vps ?? 0) }),
        )
      : null,
  );
}

function matchRow(match) {
  const ended = match.status === "finished" && match.home_vps != null;
  return h(
    "tr",
    { class: "match-row", "data-match-id": match.match_id ?? "", "data-status": match.status, "data-home": match.home, "data-away": match.away },
    h("td", { class: "team-cell" }, teamName(match.home)),
    h("td", { class: "team-cell" }, teamName(match.away)),
    ended
      ? [
          h("td", { class: "num imps" }, match.home_imps != null ? `${match.home_imps}–${match.away_imps}` : "–"),
          h("td", { class: "num vps" }, `${vpText(match.home_vps)}–${vpText(match.away_vps)}`),
        ]
      : h("td", { class: "num pending", colspan: "2" }, badge(match.status, MATCH_STATUS[match.status] ?? match.status)),
  );
}

// -- the cross-table -----------------------------------------------------------------------------

function drawCrossTable(event) {
  const key = JSON.stringify([event.cross_table, event.teams]);
  replacePart($("cross-view"), key, () => {
    const met = new Map();
    for (const entry of event.cross_table) {
      const cell = `${entry.team}:${entry.opponent}`;
      if (!met.has(cell)) met.set(cell, []);
      met.get(cell).push(entry);
    }
    for (const entries of met.values()) entries.sort((a, b) => a.round - b.round);
    const teams = [...event.teams].sort((a, b) => a.team - b.team);
    return [
      h("h2", {}, t("Cross-table")),
      h("p", { class: "hint" }, t("Each cell: the VPs of the row's team against the column's team, the IMPs and the round they met in.")),
      scroller(
        t("Cross-table"),
        h(
          "table",
          { class: "event-table cross-table" },
          h("caption", { class: "visually-hidden" }, t("Cross-table")),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, t("Team")),
              ...teams.map((entry) =>
                h(
                  "th",
                  { scope: "col", class: "ct-column", title: entry.name, "data-team": entry.team },
                  h("span", { "aria-hidden": "true" }, String(entry.team)),
                  h("span", { class: "visually-hidden" }, entry.name),
                ),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            ...teams.map((row) =>
              h(
                "tr",
                { "data-team": row.team },
                h("th", { scope: "row", class: "team-cell" }, h("span", { class: "team-number" }, String(row.team)), " ", row.name),
                ...teams.map((column) => crossCell(row, column, met.get(`${row.team}:${column.team}`) ?? [])),
              ),
            ),
          ),
        ),
      ),
    ];
  });
}

function crossCell(row, column, entries) {
  if (row.team === column.team) return h("td", { class: "ct-self", "data-opponent": column.team });
  return h(
    "td",
    { class: "ct-cell", "data-opponent": column.team, "data-meetings": entries.length },
    ...entries.map((entry) =>
      h(
        "span",
        { class: "ct-meeting", "data-round": entry.round },
        h("span", { class: "ct-vps" }, vpText(entry.vps)),
        h("span", { class: "ct-imps" }, `${entry.imps_for}–${entry.imps_against}`),
        h("abbr", { class: "ct-round", title: t("Round {round}", { round: entry.round }) }, t("R{round}", { round: entry.round })),
      ),
    ),
  );
}

// -- the Butler ranking ------------------------------------------------------------------------------

function drawButler(event) {
  const key = JSON.stringify([event.butler, event.teams]);
  replacePart($("butler-view"), key, () => {
    const shared = new Map();
    for (const entry of event.butler) shared.set(entry.rank, (shared.get(entry.rank) ?? 0) + 1);
    return [
      h("h2", {}, t("Butler ranking")),
      h("p", { class: "hint" }, t("Each pair's IMPs against the datum of every board it played (the mean score of the tables).")),
      h("p", { class: "hidden-note" }, t("Board results appear once every table has played the board.")),
      event.butler.length
        ? scroller(
            t("Butler ranking"),
            h(
              "table",
              { class: "event-table butler-table" },
              h("caption", { class: "visually-hidden" }, t("Butler ranking")),
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  h("th", { scope: "col", class: "num" }, t("Rank")),
                  h("th", { scope: "col" }, t("Pair")),
                  h("th", { scope: "col", class: "wide-only" }, t("Team")),
                  h("th", { scope: "col", class: "num" }, t("Boards")),
                  h("th", { scope: "col", class: "num" }, t("IMPs")),
                  h("th", { scope: "col", class: "num" }, t("IMPs a board")),
                ),
              ),
              h(
                "tbody",
                {},
                ...event.butler.map((entry) =>
                  h(
                    "tr",
                    { "data-team": entry.team, "data-rank": entry.rank },
                    h("td", { class: "num rank" }, rankText(entry.rank, shared.get(entry.rank) > 1)),
                    h(
                      "th",
                      { scope: "row", class: "pair-cell" },
                      h("span", { class: "pair-names" }, pairNames(entry.players, team(entry.team)?.robots)),
                      h("span", { class: "pair-team narrow-only" }, teamName(entry.team)),
                    ),
                    h("td", { class: "team-cell wide-only" }, teamName(entry.team)),
                    h("td", { class: "num" }, String(entry.boards)),
                    h("td", { class: "num" }, signed(entry.imps)),
                    h("td", { class: "num" }, signed(entry.per_board, decimal)),
                  ),
                ),
              ),
            ),
          )
        : h("p", { class: "empty-note" }, t("No board has been played at every table yet.")),
    ];
  });
}

// -- the travellers -------------------------------------------------------------------------------

/** The boards of the rounds begun that some table has still to play. */
function boardsPending(event) {
  const shown = new Set(event.travellers.map((traveller) => traveller.board));
  return event.schedule
    .filter((round) => round.status !== "drawn")
    .flatMap((round) => round.boards)
    .filter((board) => !shown.has(board));
}

function drawBoards(event) {
  const travellers = event.travellers;
  const chosen = travellers.find((traveller) => traveller.board === state.board) ?? travellers[0] ?? null;
  const pending = boardsPending(event);
  const key = JSON.stringify([travellers, pending, chosen?.board ?? null, event.schedule, event.teams]);
  replacePart($("boards-view"), key, () => [
    h("h2", {}, t("Board results")),
    h("p", { class: "hidden-note" }, t("Board results appear once every table has played the board.")),
    pending.length
      ? h("p", { class: "hint pending-boards" }, t("Boards still being played: {boards}", { boards: pending.join(", ") }))
      : null,
    travellers.length > 1
      ? h(
          "div",
          { class: "board-picker", role: "group", "aria-label": t("Choose a board") },
          ...travellers.map((traveller) =>
            h(
              "button",
              {
                type: "button",
                class: "board-choice",
                "data-board": traveller.board,
                "data-key": `board-${traveller.board}`,
                "aria-pressed": String(traveller === chosen),
                "aria-label": t("Board {board}", { board: traveller.board }),
              },
              String(traveller.board),
            ),
          ),
        )
      : null,
    chosen ? travellerPart(chosen) : h("p", { class: "empty-note" }, t("No board has been played at every table yet.")),
  ]);
}

function travellerPart(traveller) {
  const id = `traveller-${traveller.board}-heading`;
  return h(
    "article",
    { class: "traveller", "data-board": traveller.board, "aria-labelledby": id },
    h("h3", { id }, t("Board {board}", { board: traveller.board })),
    h(
      "div",
      { class: "traveller-body" },
      diagram(traveller),
      h(
        "div",
        { class: "traveller-results" },
        h("p", { class: "datum", "data-datum": traveller.datum }, t("Datum: {score}", { score: scoreText(traveller.datum) })),
        h("p", { class: "hint" }, t("Every table's result. Scores and IMPs are North-South's; the IMPs are against the datum.")),
        scroller(
          t("Results of board {board}", { board: traveller.board }),
          h(
            "table",
            { class: "event-table traveller-lines" },
            h("caption", { class: "visually-hidden" }, t("Results of board {board}", { board: traveller.board })),
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", { scope: "col" }, sideText("NS")),
                h("th", { scope: "col" }, sideText("EW")),
                h("th", { scope: "col" }, t("Contract")),
                h("th", { scope: "col", class: "num" }, t("Tricks")),
                h("th", { scope: "col", class: "num" }, t("Score")),
                h("th", { scope: "col", class: "num" }, t("IMPs")),
              ),
            ),
            h("tbody", {}, ...traveller.lines.map(lineRow)),
          ),
        ),
      ),
    ),
  );
}

function lineRow(line) {
  const sides = sidesOf(line.match_id, line.table);
  const pair = (players, number) =>
    h(
      "td",
      { class: "pair-cell" },
      h("span", { class: "pair-names" }, pairNames(players, team(number)?.robots)),
      number != null ? h("span", { class: "pair-team" }, teamName(number)) : null,
    );
  return h(
    "tr",
    { class: "traveller-line", "data-match-id": line.match_id, "data-table": line.table },
    pair(line.north_south, sides.ns),
    pair(line.east_west, sides.ew),
    h(
      "td",
      { class: "contract-cell" },
      line.contract == null
        ? t("Passed out")
        : [callNode(line.contract), " ", h("span", { class: "declarer", title: SEAT_NAME[line.declarer] ?? "" }, SEAT_LETTER[line.declarer] ?? "")],
    ),
    h("td", { class: "num" }, line.tricks == null ? "–" : String(line.tricks)),
    h("td", { class: "num score" }, signed(line.score)),
    h("td", { class: "num imps" }, signed(line.ns_imps)),
  );
}

/** The four hands around the board's number, dealer and vulnerability. */
function diagram(traveller) {
  const hands = handsOf(traveller.deal);
  const board = { board: traveller.board, dealer: traveller.dealer, vulnerability: traveller.vulnerability };
  return h(
    "div",
    { class: "diagram", role: "group", "aria-label": t("The hands as dealt"), "data-board": traveller.board },
    h("div", { class: "diagram-info" }, boardInfo(board)),
    ...SEATS.map((seat) =>
      h(
        "div",
        { class: `diagram-seat diagram-${seat}`, "data-seat": seat },
        h(
          "span",
          { class: `diagram-name${isVulnerable(seat, traveller.vulnerability) ? " vulnerable" : ""}` },
          SEAT_NAME[seat],
        ),
        handRows(hands[seat] ?? [], seat),
      ),
    ),
  );
}

// -- what the reader does ------------------------------------------------------------------------------

document.addEventListener("click", (event) => {
  const tab = event.target.closest?.('[role="tab"]');
  if (tab) {
    chooseTab(tab.dataset.tab);
    return;
  }
  const choice = event.target.closest?.(".board-choice");
  if (choice) {
    state.board = Number(choice.dataset.board);
    render();
  }
});

document.addEventListener("keydown", (event) => {
  const tab = event.target.closest?.('[role="tab"]');
  if (!tab || !["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
  const index = TAB_ORDER.indexOf(tab.dataset.tab);
  const chosen = {
    ArrowLeft: (index + TAB_ORDER.length - 1) % TAB_ORDER.length,
    ArrowRight: (index + 1) % TAB_ORDER.length,
    Home: 0,
    End: TAB_ORDER.length - 1,
  }[event.key];
  event.preventDefault();
  chooseTab(TAB_ORDER[chosen], true);
});

$("language").addEventListener("change", (event) => setLanguage(event.target.value));
onLanguage(() => render());

if (!token.startsWith(TOKEN_PREFIX)) {
  state.failure = { kind: token === "" ? "no-link" : "unknown", detail: null };
  state.connection = "failed";
  render();
} else {
  conn = new EventConnection(eventSocketUrl(window.location), token, handlers);
  render();
  conn.start();
}

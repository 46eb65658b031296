// A match that follows a movement: the player's round, table, seat, partner and opponents,
// the wait for the other tables (or for the director), and where the player goes next; and
// how the formats that are not team matches score (standings and each board's points). No
// state here: each function takes the view it reads.

import { SEAT_NAME } from "./bridge.js";
import { $, h } from "./dom.js";
import { localized, t, tx } from "./i18n.js";

/** The formats that are a match of two teams, A and B, scored in IMPs. */
const TEAM_FORMATS = new Set(["teams", "robot-table", "team-of-four"]);

/** Whether `match` (a MatchSummary) is a match of two teams: swings, "Team A", "Team B". */
export function isTeamMatch(match) {
  return TEAM_FORMATS.has(match?.format ?? "teams");
}

const UNITS = localized({ imps: "IMPs", matchpoints: "MP", board_a_match: "BAM", total_points: "points" });
const SCORING_NAMES = localized({
  imps: "IMPs",
  matchpoints: "Matchpoints",
  board_a_match: "Board-a-match",
  total_points: "Total points",
});

/** "IMPs", "MP", "BAM", "points": the unit points are counted in. */
export function scoringUnit(scoring) {
  return UNITS[scoring] ?? t("points");
}

/** "IMPs", "Matchpoints", "Board-a-match", "Total points": how the match is scored. */
export function scoringName(scoring) {
  return SCORING_NAMES[scoring] ?? scoring;
}

/**
 * Points as the scoring counts them: IMPs with one decimal when fractional (cross-IMPs),
 * matchpoints and board-a-match like 1.5, total points whole. `signed`: a plus on a gain
 * (IMPs and total points, which can be negative).
 */
export function pointsText(points, scoring, { signed = false } = {}) {
  let text;
  if (scoring === "total_points") text = String(Math.round(points));
  else if (scoring === "imps") text = Number.isInteger(points) ? String(points) : points.toFixed(1);
  else text = String(Number(points.toFixed(2)));
  if (text === "-0" || text === "-0.0") text = text.slice(1);
  if (text.startsWith("-")) return `−${text.slice(1)}`;
  const mayBeNegative = scoring === "imps" || scoring === "total_points";
  return signed && mayBeNegative && points > 0 ? `+${text}` : text;
}

/** "1st", "2nd", "3rd", "11th" (Swedish 1:a, 2:a, 3:e, 11:e follow the same endings). */
function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return t("{n}th", { n });
  const ending = n % 10;
  if (ending === 1) return t("{n}st", { n });
  if (ending === 2) return t("{n}nd", { n });
  if (ending === 3) return t("{n}rd", { n });
  return t("{n}th", { n });
}

/** A competitor's place in the standings: "2nd", "=2nd" when tied. */
export function placeOf(standings, competitor) {
  const own = standings.find((s) => s.competitor === competitor);
  if (!own) return null;
  const better = standings.filter((s) => s.points > own.points).length;
  const tied = standings.filter((s) => s.points === own.points).length > 1;
  return `${tied ? "=" : ""}${ordinal(better + 1)}`;
}

// -- people by number ------------------------------------------------------------------------

/** The name of player `number` as the view knows it (their PlayerInfo), else "player 5". */
export function playerName(view, number) {
  const info = (view.players ?? []).find((p) => p.player === number);
  return info?.name ?? t("player {number}", { number });
}

function seatOfPlayer(view, number) {
  return (view.players ?? []).find((p) => p.player === number && p.table === view.table)?.seat ?? null;
}

/** "Bo (North)": a player at the viewer's table, by name and seat. */
function atTable(view, number) {
  const seat = seatOfPlayer(view, number);
  return seat ? `${playerName(view, number)} (${SEAT_NAME[seat]})` : playerName(view, number);
}

// -- the round ---------------------------------------------------------------------------------

/**
 * Whether the player's table has played every board of the round (the last may still be
 * on review): the view's `played_round`, the moment to show where the player goes next.
 */
export function hasPlayedRound(view) {
  return view?.type === "player_view" && view.played_round === true;
}

/** The tables still playing the round the player's table has played (`waiting_for`). */
function tablesPlaying(view) {
  return view.waiting_for ?? [];
}

/** Whether the page shows the player's round, partner and opponents: a match of rounds. */
export function hasRounds(view) {
  return view.type === "player_view" && (view.match.rounds ?? 1) > 1;
}

// -- a series of meetings (replay duplicate over several sessions) ----------------------------

/** Whether the match is a series of meetings (`match.sessions`: one entry a meeting). */
export function isSeries(match) {
  return (match?.sessions ?? []).length > 0;
}

/** The meeting of a series that `round` belongs to (its number), else null. */
export function meetingOf(match, round) {
  const found = (match?.sessions ?? []).find((session) => session.rounds.includes(round));
  return found ? found.session : null;
}

/**
 * "Round 3 of 4", or in a series "Meeting 2 of 3 · round 3 of 4": a meeting is what the
 * players arrange their evenings by, the round what the movement counts. `lower`: the same
 * in the middle of a heading ("meeting 2 of 3 · round 3 of 4").
 */
export function roundText(match, round, { lower = false } = {}) {
  const rounds = match.rounds ?? 1;
  const meeting = meetingOf(match, round);
  if (meeting === null) return lower ? t("round {round} of {rounds}", { round, rounds }) : t("Round {round} of {rounds}", { round, rounds });
  const params = { meeting, meetings: match.sessions.length, round, rounds };
  return lower ? t("meeting {meeting} of {meetings} · round {round} of {rounds}", params) : t("Meeting {meeting} of {meetings} · round {round} of {rounds}", params);
}

/** "Bo and Eva", "North and East and South": names joined by "and", in the page's language. */
export function andText(items) {
  return items.length ? items.reduce((first, second) => t("{first} and {second}", { first, second })) : "";
}

/** "Waiting for table 2 to finish round 3", or null while no table is waited for. */
export function waitingText(view) {
  const tables = tablesPlaying(view);
  if (!tables.length) return null;
  const round = view.round;
  if (tables.length === 1) return t("Waiting for table {table} to finish round {round}", { table: tables[0], round });
  return t("Waiting for tables {tables} and {last} to finish round {round}", {
    tables: tables.slice(0, -1).join(", "),
    last: tables[tables.length - 1],
    round,
  });
}

/**
 * "Round 2 waits for the director" ("Meeting 3 waits for the director" in a series):
 * every table has played the round, and the next one starts when the director says so
 * (`match.held_round`); null otherwise.
 */
export function heldText(match) {
  const held = match?.held_round;
  if (held == null || match.finished) return null;
  // In a series the director starts each meeting: the meeting is what the players wait for.
  const meeting = meetingOf(match, held);
  if (meeting !== null) return t("Meeting {meeting} waits for the director", { meeting });
  return t("Round {round} waits for the director", { round: held });
}

/**
 * "Round 4: go to table 2, East; your partner is Bo" (or "stay at table 1" when the table
 * stays the same), once the player's table has played the round (`played_round`); null
 * before, and in the last round.
 */
export function moveText(view) {
  const next = view?.next_seat;
  if (!next || !hasPlayedRound(view)) return null;
  const partner = next.names?.[String(next.partner)] ?? t("player {number}", { number: next.partner });
  const params = { round: next.round, table: next.table, seat: SEAT_NAME[next.seat], partner };
  return next.table === view.table
    ? t("Round {round}: stay at table {table}, {seat}; your partner is {partner}", params)
    : t("Round {round}: go to table {table}, {seat}; your partner is {partner}", params);
}

/** The round bar of a player's page: round, table and seat, partner, opponents; the move. */
export function renderSeating(view) {
  const box = $("seating");
  const show = hasRounds(view);
  box.hidden = !show;
  if (!show) {
    box.replaceChildren();
    return;
  }
  const match = view.match;
  const opponents = (view.opponents ?? []).map((n) => atTable(view, n));
  const info = h(
    "p",
    { id: "round-info", class: "round-info", "data-round": view.round, "data-table": view.table, "data-seat": view.seat },
    h("strong", { class: "round", "data-meeting": meetingOf(match, view.round) }, roundText(match, view.round)),
    h("span", { class: "where" }, ` · ${t("Table {table}, {seat}", { table: view.table, seat: SEAT_NAME[view.seat] })}`),
    view.partner != null ? h("span", { class: "partner", "data-partner": view.partner }, ` · ${t("Partner: {partner}", { partner: atTable(view, view.partner) })}`) : null,
    opponents.length ? h("span", { class: "opponents", "data-opponents": view.opponents.join(" ") }, ` · ${t("Opponents: {opponents}", { opponents: andText(opponents) })}`) : null,
  );
  const waiting = waitingText(view);
  const held = heldText(match);
  const move = moveText(view);
  const next = view.next_seat;
  const parts = [
    info,
    waiting ? h("p", { id: "waiting", class: "waiting", "data-waiting-for": tablesPlaying(view).join(" ") }, waiting) : null,
    held ? h("p", { id: "held-round", class: "held-round", "data-round": match.held_round }, held) : null,
    move
      ? h(
          "p",
          { id: "move", class: "move", "data-round": next.round, "data-table": next.table, "data-seat": next.seat, "data-partner": next.partner },
          h("span", { class: "move-arrow", "aria-hidden": "true" }, "➜ "),
          move,
        )
      : null,
  ];
  box.replaceChildren(...parts.filter(Boolean));
}

// -- standings -----------------------------------------------------------------------------------

/** The standings, best first, the viewer's own competitor marked "(you)". */
export function standingsTable(match, competitor = null) {
  const unit = scoringUnit(match.scoring);
  const standings = match.standings ?? [];
  return h(
    "table",
    { id: "standings", class: "standings" },
    h("caption", {}, t("Standings ({scoring})", { scoring: scoringName(match.scoring) })),
    h(
      "thead",
      {},
      h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("Name")), h("th", { scope: "col", class: "points" }, unit)),
    ),
    h(
      "tbody",
      {},
      standings.map((standing) => {
        const own = standing.competitor === competitor;
        return h(
          "tr",
          { "data-competitor": standing.competitor, "data-points": standing.points, class: own ? "own" : null },
          h("td", { class: "place" }, placeOf(standings, standing.competitor)),
          h("th", { scope: "row" }, ...(own ? tx("{name} (you)", { name: standing.name }) : [standing.name]), competitorLabel(standing) ? h("span", { class: "competitor" }, ` ${competitorLabel(standing)}`) : null),
          h("td", { class: "points" }, pointsText(standing.points, match.scoring)),
        );
      }),
    ),
  );
}

/** "pair 1-3", "player 7", "team A": who a line of the standings is, by number. */
function competitorLabel(standing) {
  // The server names a player with no name of their own "Player 7" (in English).
  if (standing.players.length === 1) return standing.name === `Player ${standing.players[0]}` ? "" : t("player {number}", { number: standing.players[0] });
  return standing.players.length === 2 ? t("pair {pair}", { pair: standing.competitor }) : t("team {team}", { team: standing.competitor });
}

/**
 * The name of a competitor ("A", "1-3", "7") as the standings give it; "Robot & Robot
 * (pair 1-3)" when another has the same name.
 */
export function competitorName(match, competitor) {
  const standings = match.standings ?? [];
  const standing = standings.find((s) => s.competitor === competitor);
  if (!standing) return competitor;
  const shared = standings.some((s) => s !== standing && s.name === standing.name);
  const label = competitorLabel(standing);
  return shared && label ? `${standing.name} (${label})` : standing.name;
}

/** "1–4", "1–2, 5": board numbers as runs of consecutive ones. */
function boardRuns(boards) {
  const runs = [];
  for (const number of [...boards].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && number === last[1] + 1) last[1] = number;
    else runs.push([number, number]);
  }
  return runs.map(([first, last]) => (first === last ? String(first) : `${first}–${last}`)).join(", ");
}

/**
 * A series' meetings, one row each: the boards it replays (a board is scored in the meeting
 * that replays it, so the first has none), each pair's points on them, and the series'
 * total (the standings, which are their sum). The meeting of `round` is marked while the
 * match goes on (the meeting held for the director as next); a meeting with nothing
 * compared yet shows no points rather than 0s. The pairs keep their columns (their ids'
 * order) whoever leads. Null for any other match.
 */
export function meetingsTable(match, { competitor = null, round = null } = {}) {
  if (!isSeries(match)) return null;
  const scoring = match.scoring;
  const sessions = match.sessions;
  const standings = match.standings ?? [];
  const pairs = [...new Set([...standings.map((s) => s.competitor), ...sessions.flatMap((s) => Object.keys(s.points))])].sort();
  const compared = new Set(match.comparisons.map((c) => c.board));
  // Between two meetings held for the director no meeting is being played: the one that
  // waits is marked next instead (the last round played is over).
  const next = match.finished ? null : meetingOf(match, match.held_round);
  const current = match.finished || match.held_round != null ? null : meetingOf(match, round);
  const pairHead = (pair) => {
    const name = competitorName(match, pair);
    return h("th", { scope: "col", class: pair === competitor ? "points own" : "points", "data-competitor": pair }, ...(pair === competitor ? tx("{name} (you)", { name }) : [name]));
  };
  const rows = sessions.map((session) => {
    const scored = session.boards.some((board) => compared.has(board));
    const now = session.session === current;
    const waits = session.session === next;
    return h(
      "tr",
      { "data-session": session.session, "data-rounds": session.rounds.join(" "), class: now ? "current" : waits ? "next" : null, "aria-current": now ? "true" : null },
      h(
        "th",
        { scope: "row" },
        h("span", { class: "meeting-name" }, t("Meeting {meeting}", { meeting: session.session })),
        now ? h("span", { class: "meeting-now" }, ` ${t("(now)")}`) : null,
        waits ? h("span", { class: "meeting-now" }, ` ${t("(next)")}`) : null,
      ),
      h("td", { class: "meeting-boards", "data-boards": session.boards.join(" ") }, session.boards.length ? boardRuns(session.boards) : "–"),
      pairs.map((pair) => {
        const points = session.points[pair] ?? 0;
        return h("td", { class: pair === competitor ? "points own" : "points", "data-competitor": pair, "data-points": scored ? points : null }, scored ? pointsText(points, scoring) : "–");
      }),
    );
  });
  const total = (pair) => standings.find((s) => s.competitor === pair)?.points ?? 0;
  return h(
    "table",
    { id: "meetings", class: "standings meetings" },
    h(
      "caption",
      {},
      t("Meetings ({scoring})", { scoring: scoringName(scoring) }),
      // Why meeting 2 lists board 1 but not board 2, which it also plays.
      h("span", { class: "meetings-note" }, t("A board counts in the meeting that replays it.")),
    ),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("Meeting"))), h("th", { scope: "col" }, t("Boards")), pairs.map(pairHead))),
    h("tbody", {}, rows),
    h(
      "tfoot",
      {},
      h(
        "tr",
        { class: "meetings-total" },
        h("th", { scope: "row", colspan: 2 }, t("Series total")),
        pairs.map((pair) => h("td", { class: pair === competitor ? "points own" : "points", "data-competitor": pair, "data-points": total(pair) }, pointsText(total(pair), scoring))),
      ),
    ),
  );
}

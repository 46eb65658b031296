// The match panel: the score, the latest comparison with both tables side by side, the score
// sheet, the final result and the match record; and the replay of a finished board, trick
// by trick, used here and for the board on review at the table.

import { SEATS, SEAT_LETTER, SEAT_NAME, notrumpText, scoreText, sideOf } from "./bridge.js";
import { auctionGrid, compass, teamName, teamOf, trickNode } from "./compass.js";
import { $, cardText, h, resultNode, suitSymbol } from "./dom.js";
import { t, tx } from "./i18n.js";
import { competitorName, isTeamMatch, meetingsTable, placeOf, pointsText, scoringUnit, standingsTable } from "./movement.js";
import { state } from "./ui.js";

// -- the replay of a finished board --------------------------------------------------------

/** The steps of a replay after the deal: each trick, and the trick in progress at a claim. */
export function replaySteps(board) {
  const steps = [...board.tricks];
  if (board.current_trick && board.current_trick.cards.length) steps.push(board.current_trick);
  return steps;
}

/** The step a replay shows now (0: the hands as dealt). */
export function replayStep(key, board) {
  return Math.min(state.replay.get(key) ?? 0, replaySteps(board).length);
}

/**
 * A finished board replayed trick by trick: the four hands as they stood after `step`
 * tricks, that trick in the middle, and Previous/Next. `key` names the replay (its step is
 * the viewer's choice, kept in the page's state).
 */
export function replayView(board, { key, bottom, me = null, match = null, players = [] }) {
  const steps = replaySteps(board);
  const step = replayStep(key, board);
  const played = new Set(steps.slice(0, step).flatMap((trick) => trick.cards.map((entry) => entry.card)));
  const hands = Object.fromEntries(SEATS.map((seat) => [seat, board.deal[seat].filter((card) => !played.has(card))]));
  const won = steps.slice(0, step).filter((trick) => trick.winner);
  const shown = {
    ...board,
    tricks_ns: won.filter((trick) => sideOf(trick.winner) === "NS").length,
    tricks_ew: won.filter((trick) => sideOf(trick.winner) === "EW").length,
  };
  let middle;
  let where;
  if (step === 0) {
    where = board.contract ? t("The hands as dealt") : t("Passed out: the hands as dealt");
    middle = [
      h("p", { class: "centre-note replay-note" }, where),
      board.result ? h("p", { class: "centre-note final-result" }, resultNode(board.result)) : null,
    ];
  } else {
    const trick = steps[step - 1];
    where = trick.winner
      ? t("Trick {step}: {leader} led, {winner} won", { step, leader: SEAT_NAME[trick.leader], winner: SEAT_NAME[trick.winner] })
      : t("Trick {step}: in progress when the play stopped", { step });
    middle = trickNode(trick, bottom, { state: "replay", caption: where });
  }
  const move = (name, target, label, text, disabled) =>
    h("button", { type: "button", "data-replay": key, "data-move": name, "data-step": target, "aria-label": label, disabled }, text);
  const controls = h(
    "div",
    { class: "replay-controls", role: "group", "aria-label": t("Replay of board {board}", { board: board.board }) },
    move("first", 0, t("Back to the deal"), "«", step === 0),
    move("previous", step - 1, t("Previous trick"), t("◀ Previous"), step === 0),
    h("span", { class: "replay-where", "aria-live": "polite", "data-replay-step": step }, steps.length ? `${step} / ${steps.length}` : t("no play")),
    move("next", step + 1, t("Next trick"), t("Next ▶"), step >= steps.length),
    move("last", steps.length, t("To the last trick"), "»", step >= steps.length),
  );
  return h(
    "div",
    { class: "replay", "data-replay-key": key, "data-step": step },
    controls,
    compass(shown, { bottom, me, match, players, hands, middle, ownHand: true, live: false }),
  );
}

// -- a board as both tables played it ------------------------------------------------------

const PLAY_ORDER = ["N", "E", "S", "W"];

/** The play, trick by trick: the card led marked, the winning card in bold. */
function playTable(board) {
  const tricks = replaySteps(board);
  if (!board.contract) return h("p", { class: "no-play" }, t("No play: passed out."));
  if (!tricks.length) return h("p", { class: "no-play" }, t("No card was played."));
  return h(
    "table",
    { class: "play-table" },
    h("caption", { class: "visually-hidden" }, t("The play")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), PLAY_ORDER.map((seat) => h("th", { scope: "col" }, SEAT_LETTER[seat])))),
    h(
      "tbody",
      {},
      tricks.map((trick, index) => {
        const cards = new Map(trick.cards.map((entry) => [entry.seat, entry.card]));
        return h(
          "tr",
          { "data-trick": index + 1 },
          h("th", { scope: "row" }, String(index + 1)),
          PLAY_ORDER.map((seat) => {
            const card = cards.get(seat);
            const classes = [seat === trick.leader ? "led" : "", seat === trick.winner ? "won" : ""].join(" ").trim();
            return h("td", { class: classes || null }, card ? cardText(card) : "");
          }),
        );
      }),
    ),
  );
}

function claimLine(board) {
  const claim = board.claim;
  if (!claim || claim.status !== "accepted") return null;
  const params = { seat: SEAT_NAME[claim.claimer], tricks: claim.tricks, remaining: claim.remaining, statement: claim.statement };
  return h(
    "p",
    { class: "claim-note" },
    claim.statement
      ? t("{seat} claimed {tricks} of the last {remaining}: “{statement}”", params)
      : t("{seat} claimed {tricks} of the last {remaining}", params),
  );
}

function tableHeading(match, board, viewerTable, ownPlays) {
  const table = board.table;
  if (!isTeamMatch(match)) {
    const own = ownPlays?.has(playKey(board));
    return h(
      "h4",
      {},
      t("Table {table}", { table }),
      h("span", { class: "teams" }, ` ${t("round {round}", { round: board.round ?? 1 })}`),
      own ? ` ${t("(yours)")}` : "",
    );
  }
  const ns = teamName(match, teamOf(table, "N"));
  return h(
    "h4",
    {},
    t("Table {table}", { table }),
    viewerTable === table ? ` ${t("(yours)")}` : "",
    h("span", { class: "teams" }, ` ${t("{team} N-S", { team: ns })}`),
  );
}

/** "2:1": one play of a board, by round and table (a board is replayed at one table in
 * replay duplicate). */
export function playKey(play) {
  return `${play.round ?? 1}:${play.table}`;
}

/** The plays (round:table) of `results` on board `number`: a player's own plays of it. */
function playsOf(results, number) {
  return new Set(results.filter((r) => r.board === number).map(playKey));
}

/** Where the record panel's replay of a board is kept: `record:2:1` (`record:2:1:2` in round 2). */
function recordKey(number, board) {
  const round = board.round ?? 1;
  return `record:${number}:${board.table}${round > 1 ? `:${round}` : ""}`;
}

function recordHeading(match, number) {
  if (isTeamMatch(match)) return t("Board {board} at both tables", { board: number });
  return match.format === "replay" ? t("Board {board} in both rounds", { board: number }) : t("Board {board} at every table", { board: number });
}

/**
 * A board as both tables played it, side by side (the answer to `get_board`): each table's
 * result, auction and play; the comparison; and a replay of either table's play.
 */
export function recordPanel(record, { match, viewerTable = null, me = null, players = [], swingFor, competitor = null, ownResults = [], round = null }) {
  const teams = isTeamMatch(match);
  const chosen = state.recordTable.get(record.board) ?? (record.tables[0] ? playKey(record.tables[0]) : null);
  const replayed = record.tables.find((board) => playKey(board) === chosen) ?? record.tables[0];
  const ownPlays = playsOf(ownResults, record.board);
  const heading = recordHeading(match, record.board);
  // A player's names are of the players at the table now: they fit another round's play
  // only in a team match (nobody moves).
  const seated = (board) => players.filter((p) => p.table === board.table && (teams || (board.round ?? 1) === round));
  return h(
    "section",
    { class: "record", "data-record-board": record.board, "aria-label": heading },
    h("h3", {}, heading),
    record.comparison ? boardSummary(record.comparison, match, { swingFor, competitor, ownPlays, doubleDummy: false }) : null,
    h(
      "div",
      { class: "record-tables" },
      record.tables.map((board) =>
        h(
          "article",
          { class: "record-table", "data-table": board.table, "data-round": teams ? null : board.round ?? 1 },
          tableHeading(match, board, viewerTable, ownPlays),
          h("p", { class: "record-result" }, resultNode(board.result)),
          auctionGrid(board, null, null, { live: false }),
          claimLine(board),
          playTable(board),
          handviewerLink(board),
        ),
      ),
    ),
    record.comparison?.double_dummy ? doubleDummyTable(record.comparison.double_dummy) : null,
    replayed
      ? h(
          "div",
          { class: "record-replay" },
          record.tables.length > 1
            ? h(
                "div",
                { class: "replay-tables", role: "group", "aria-label": t("Replay the play of") },
                record.tables.map((board) =>
                  h(
                    "button",
                    {
                      type: "button",
                      "data-record-table": board.table,
                      "data-record-round": board.round ?? 1,
                      "data-record-board": record.board,
                      "aria-pressed": String(board === replayed),
                    },
                    teams
                      ? t("Replay table {table}", { table: board.table })
                      : t("Replay round {round}, table {table}", { round: board.round ?? 1, table: board.table }),
                  ),
                ),
              )
            : null,
          replayView(replayed, {
            key: recordKey(record.board, replayed),
            bottom: me ?? "S",
            match,
            players: seated(replayed),
          }),
        )
      : null,
  );
}

/** A finished board's link to BBO's hand viewer (in a new tab), as its table played it. */
export function handviewerLink(board) {
  if (!board.handviewer) return null;
  const where = { board: board.board, round: board.round, table: board.table };
  return h(
    "a",
    {
      class: "handviewer",
      href: board.handviewer,
      target: "_blank",
      rel: "noopener noreferrer",
      "data-handviewer": board.table,
      "aria-label":
        board.round && board.round > 1
          ? t("Board {board} at round {round}, table {table} in BBO's hand viewer (opens a new tab)", where)
          : t("Board {board} at table {table} in BBO's hand viewer (opens a new tab)", where),
    },
    t("Open in BBO's hand viewer"),
  );
}

/**
 * What a compared board came to: in a team match the swing and the running total
 * (`swingFor` turns team A's swing into the viewer's); else each play's result and the
 * points, the viewer's `competitor`'s first.
 */
export function boardSummary(comparison, match, { swingFor = null, competitor = null, ownPlays = new Set(), doubleDummy = true } = {}) {
  if (isTeamMatch(match)) return comparisonSummary(comparison, match, swingFor, { doubleDummy });
  return pointsSummary(comparison, match, { competitor, ownPlays, doubleDummy });
}

/** The swing, the running total, par and double dummy of one compared board. */
export function comparisonSummary(comparison, match, swingFor, { doubleDummy = true } = {}) {
  const gainer = comparison.swing === 0 ? null : comparison.swing > 0 ? "A" : "B";
  const swing = comparison.void
    ? t("Void: the board counts for neither team")
    : comparison.artificial !== null && comparison.artificial !== undefined
      ? t("Artificial adjusted score: {score}", { score: artificialText(comparison.artificial, match) })
      : gainer
        ? t("{n} IMPs to {team}", { n: Math.abs(comparison.swing), team: teamName(match, gainer) })
        : t("0 IMPs (no swing)");
  return h(
    "div",
    { class: "comparison-summary" },
    h(
      "dl",
      { class: "comparison-list", "data-board": comparison.board, "data-swing": comparison.swing },
      h("dt", {}, t("Swing")),
      h("dd", { class: "swing", "data-your-swing": swingFor ? swingFor(comparison.swing) : null }, swing),
      h("dt", {}, t("Running total")),
      h("dd", {}, leadText(comparison.running_total, match)),
      comparison.par ? [h("dt", {}, t("Par")), h("dd", { class: "par" }, `${scoreText(comparison.par.score)}: ${comparison.par.contracts.join(", ") || "–"}`)] : null,
    ),
    doubleDummy && comparison.double_dummy ? doubleDummyTable(comparison.double_dummy) : null,
  );
}

/** A compared board without teams: each play's result, and the points it brought. */
function pointsSummary(comparison, match, { competitor, ownPlays, doubleDummy }) {
  const scoring = match.scoring;
  const unit = scoringUnit(scoring);
  const points = comparison.points ?? {};
  const own = competitor !== null ? points[competitor] : undefined;
  const others = Object.entries(points)
    .filter(([name]) => name !== competitor)
    .sort((a, b) => b[1] - a[1]);
  let verdict;
  if (comparison.void) verdict = t("Void: the board counts for no one");
  else if (own !== undefined) verdict = `${pointsText(own, scoring, { signed: true })} ${unit}`;
  else verdict = null;
  return h(
    "div",
    { class: "comparison-summary" },
    h(
      "dl",
      { class: "comparison-list", "data-board": comparison.board, "data-points": own ?? null },
      h("dt", {}, comparison.results.length > 1 ? t("Results") : t("Result")),
      h(
        "dd",
        {},
        h(
          "ul",
          { class: "plays" },
          comparison.results.map((result) =>
            h(
              "li",
              { "data-play": playKey(result), class: ownPlays.has(playKey(result)) ? "own" : null },
              h(
                "span",
                { class: "play-where" },
                `${
                  ownPlays.has(playKey(result))
                    ? t("Round {round}, table {table} (yours)", { round: result.round ?? 1, table: result.table })
                    : t("Round {round}, table {table}", { round: result.round ?? 1, table: result.table })
                }: `,
              ),
              resultNode(result),
            ),
          ),
        ),
      ),
      verdict !== null ? [h("dt", {}, own !== undefined ? t("Your points") : t("Points")), h("dd", { class: "points", "data-your-points": own ?? null }, verdict)] : null,
      !comparison.void && others.length
        ? [
            h("dt", {}, own !== undefined ? t("The others") : t("Points")),
            h("dd", { class: "others" }, others.map(([name, value]) => `${competitorName(match, name)} ${pointsText(value, scoring, { signed: true })}`).join(", ")),
          ]
        : null,
      comparison.par ? [h("dt", {}, t("Par")), h("dd", { class: "par" }, `${scoreText(comparison.par.score)}: ${comparison.par.contracts.join(", ") || "–"}`)] : null,
    ),
    doubleDummy && comparison.double_dummy ? doubleDummyTable(comparison.double_dummy) : null,
  );
}

function artificialText(imps, match) {
  if (imps === 0) return t("average to both teams");
  const plus = imps > 0 ? "A" : "B";
  const minus = plus === "A" ? "B" : "A";
  const magnitude = Math.abs(imps);
  // (Always "IMPs" here, even for 1: a separate text from the swing's "{n} IMPs to {team}".)
  return magnitude === 3
    ? t("Avg+ to {plus}, Avg− to {minus}", { plus: teamName(match, plus), minus: teamName(match, minus) })
    : t("{imps} IMPs to {team}", { imps: magnitude, team: teamName(match, plus) });
}

function leadText(total, match) {
  if (total === 0) return t("The teams are level.");
  const leader = total > 0 ? "A" : "B";
  return t("{team} lead by {n} IMPs.", { team: teamName(match, leader), n: Math.abs(total) });
}

function doubleDummyTable(doubleDummy) {
  const strains = ["NT", "S", "H", "D", "C"];
  return h(
    "details",
    { class: "double-dummy", open: true },
    h("summary", {}, t("Double-dummy tricks")),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("td", {}), strains.map((strain) => h("th", { scope: "col" }, strain === "NT" ? notrumpText() : suitSymbol(strain))))),
      h(
        "tbody",
        {},
        SEATS.map((seat) => h("tr", {}, h("th", { scope: "row" }, SEAT_LETTER[seat]), strains.map((strain) => h("td", {}, String(doubleDummy[seat][strain]))))),
      ),
    ),
  );
}

// -- the match panel ------------------------------------------------------------------------

/** Which board's record the panel shows: the one the viewer chose, else the latest compared. */
export function recordBoard(view) {
  const comparisons = view.match.comparisons;
  if (state.recordBoard !== null) return state.recordBoard;
  return comparisons.length ? comparisons[comparisons.length - 1].board : null;
}

export function renderMatch(view) {
  const match = view.match;
  const player = view.type === "player_view";
  const teams = isTeamMatch(match);
  const myTeam = player ? view.team : null;
  const competitor = player ? view.competitor ?? null : null;
  const name = (team) => teamName(match, team);
  const marked = (team) => (team === myTeam ? t("{name} (you)", { name: name(team) }) : name(team));
  if (teams) {
    $("score").replaceChildren(
      h("span", { class: "team-a" }, `${marked("A")} `),
      h("strong", { "data-imps-a": match.imps_a }, String(match.imps_a)),
      " – ",
      h("strong", { "data-imps-b": match.imps_b }, String(match.imps_b)),
      h("span", { class: "team-b" }, ` ${marked("B")}`),
    );
  } else {
    $("score").replaceChildren(...standingLine(match, competitor));
  }
  document.body.dataset.finished = String(match.finished);
  $("deals").replaceChildren(...dealsLine(match));
  const final = $("final");
  final.hidden = !match.finished;
  if (match.finished) {
    const verdict =
      match.winner === "draw"
        ? t("The match is a draw.")
        : match.winner === myTeam
          ? t("{team} win — well played!", { team: name(match.winner) })
          : t("{team} win.", { team: name(match.winner) });
    final.replaceChildren(
      h("h3", {}, t("Final result")),
      teams
        ? h("p", { "data-winner": match.winner }, `${teamName(match, "A")} ${match.imps_a} – ${match.imps_b} ${teamName(match, "B")}. ${verdict}`)
        : h("p", { "data-winner": match.winner }, winnerText(match, competitor)),
      dealsCheck(match),
      h("button", { type: "button", id: "download-record", class: "primary" }, t("Download the match record (PBN)")),
      h("button", { type: "button", id: "download-lin", class: "secondary" }, t("Download it as LIN (BBO)")),
    );
  }
  const swingFor = (swing) => (myTeam === "B" ? -swing : swing);
  const ownResults = player ? view.results : [];

  // The board as every table played it: the latest comparison, or the board chosen.
  const box = $("comparison");
  box.replaceChildren();
  const shown = recordBoard(view);
  if (shown !== null) {
    const record = state.records.get(shown);
    const comparison = match.comparisons.find((c) => c.board === shown);
    if (record) {
      box.append(
        recordPanel(record, {
          match,
          viewerTable: player ? view.table : null,
          me: player ? view.seat : null,
          players: view.players,
          swingFor: player ? swingFor : null,
          competitor,
          ownResults,
          round: player ? view.round ?? 1 : watchRound(view),
        }),
      );
    } else if (comparison) {
      const summary = boardSummary(comparison, match, { swingFor: player ? swingFor : null, competitor, ownPlays: playsOf(ownResults, shown) });
      const loading = teams ? t("Loading both tables' play…") : t("Loading every table's play…");
      box.append(h("h3", {}, recordHeading(match, shown)), summary, h("p", { class: "loading" }, loading));
    }
    if (state.recordBoard !== null) box.prepend(h("button", { type: "button", id: "record-close", class: "close" }, t("Close")));
  }
  if (teams) $("boards").replaceChildren(scoreSheet(view, swingFor));
  else {
    // A series: its meetings under the standings they add up to (before the board list,
    // which grows long over a dozen meetings).
    const meetings = meetingsTable(match, { competitor, round: player ? view.round ?? 1 : watchRound(view) });
    $("boards").replaceChildren(...[standingsTable(match, competitor), meetings, movementSheet(view)].filter(Boolean));
  }
}

/** The commitment to the deals, shown from the first view on (the hash, shortened). */
function dealsLine(match) {
  const commitment = match.deals_commitment;
  if (!commitment) return [];
  const sealed = h("code", { title: `SHA-256 ${commitment}`, "data-commitment": commitment }, `${commitment.slice(0, 16)}…`);
  if (!match.deals_seed_commitment) return tx("Deals sealed before play: {commitment}", { commitment: sealed });
  return tx("Deals sealed before play: {commitment}, drawn from the seed {seed} and the public value {value}{form}", {
    commitment: sealed,
    seed: h("code", { title: `SHA-256 ${match.deals_seed_commitment}`, "data-seed-commitment": match.deals_seed_commitment }, `${match.deals_seed_commitment.slice(0, 16)}…`),
    value: h("q", { "data-public-value": "" }, match.deals_public_value ?? ""),
    form: match.deals_public_form
      ? h("span", { "data-public-form": match.deals_public_form }, ` ${t("(read as sealed: {form})", { form: match.deals_public_form })}`)
      : h("span", { class: "warning", "data-public-form": "" }, ` ${t("(sealed without a form: its spelling could have been chosen)")}`),
  });
}

/** The end of the match: whether the deals played are the ones committed to. */
function dealsCheck(match) {
  const checked = state.deals;
  if (!match.deals_commitment) return null;
  if (checked === null || checked === "checking") {
    return h("p", { class: "deals-check", "data-deals": "checking" }, t("Checking the deals against their commitment…"));
  }
  if (checked.ok) {
    const seeded = checked.seeded
      ? ` ${t("Each board is the one drawn from the seed committed to (SHA-256 {seed}) and the public value “{value}”.", {
          seed: match.deals_seed_commitment,
          value: match.deals_public_value,
        })}`
      : "";
    const verified = t("Deals verified: the {games} tables' deals are the {boards} boards committed to when the match was created (SHA-256 {commitment}).", {
      games: checked.games,
      boards: checked.boards,
      commitment: match.deals_commitment,
    });
    return h("p", { class: "deals-check", "data-deals": "verified" }, `${verified}${seeded}`);
  }
  // deals.js gives its reason as a function, to be said in the language of the moment.
  const reason = typeof checked.reason === "function" ? checked.reason() : checked.reason;
  return h("p", { class: "deals-check error", "data-deals": "failed", role: "alert" }, t("The deals do not match their commitment: {reason}.", { reason }));
}

/** The round a watcher's tables are in now (the latest of their boards'). */
function watchRound(view) {
  return Math.max(1, ...(view.tables ?? []).map((board) => board.round ?? 1));
}

/**
 * Why a board the player's table finished is not compared yet: its review at their own
 * table (the board is still on review there), else `waiting` (for the other table or tables).
 */
function waitingWords(view, number, waiting) {
  return view.review?.board === number ? t("on review at your table") : waiting;
}

/** The top bar without teams: the viewer's points and place (a watcher: the leader's). */
function standingLine(match, competitor) {
  const standings = match.standings ?? [];
  const unit = scoringUnit(match.scoring);
  const own = standings.find((s) => s.competitor === competitor);
  const compared = match.comparisons.length > 0;
  // (replaceChildren writes a null as the word "null": the parts left out are dropped.)
  if (own) {
    const place = compared
      ? h("span", { class: "place", "data-place": placeOf(standings, competitor) }, ` · ${t("{place} of {count}", { place: placeOf(standings, competitor), count: standings.length })}`)
      : null;
    return [h("span", { class: "own-name" }, `${t("{name} (you)", { name: own.name })} `), h("strong", { "data-points": own.points }, pointsText(own.points, match.scoring)), ` ${unit}`, place].filter(
      (part) => part !== null,
    );
  }
  const leader = standings[0];
  if (!leader || !compared) return [`${t("{n} competitors", { n: standings.length })} · ${scoringUnit(match.scoring)}`];
  const level = standings.filter((s) => s.points === leader.points).length;
  if (level > 1) {
    // Nobody leads while the best are level (at the start: everyone at 0).
    const who = level === standings.length ? t("All level at") : t("{n} level at", { n: level });
    return [h("span", {}, `${who} `), h("strong", { "data-points": leader.points }, pointsText(leader.points, match.scoring)), ` ${unit}`];
  }
  return [h("span", {}, `${t("Leader: {name}", { name: competitorName(match, leader.competitor) })} `), h("strong", { "data-points": leader.points }, pointsText(leader.points, match.scoring)), ` ${unit}`];
}

/** "Bo wins with 12.5 IMPs." at the end of a match without teams. */
function winnerText(match, competitor) {
  const unit = scoringUnit(match.scoring);
  const standings = match.standings ?? [];
  if (match.winner === "draw" || !match.winner) {
    const top = standings[0];
    if (!top) return t("The match is a draw.");
    const leaders = standings.filter((s) => s.points === top.points).map((s) => competitorName(match, s.competitor));
    return t("A draw: {leaders} share the lead with {points} {unit}.", { leaders: leaders.join(", "), points: pointsText(top.points, match.scoring), unit });
  }
  const standing = standings.find((s) => s.competitor === match.winner);
  const params = { name: competitorName(match, match.winner), points: standing ? pointsText(standing.points, match.scoring) : null, unit };
  const own = match.winner === competitor;
  if (standing) return own ? t("Winner: {name} with {points} {unit} — well played!", params) : t("Winner: {name} with {points} {unit}.", params);
  return own ? t("Winner: {name} — well played!", params) : t("Winner: {name}.", params);
}

/**
 * Every board of a match without teams: for a player, their own result, every other play's
 * and their points on it; for a watcher, every play's result. And a replay.
 */
function movementSheet(view) {
  const match = view.match;
  const player = view.type === "player_view";
  const scoring = match.scoring;
  const rows = match.boards.map((number) => {
    const comparison = match.comparisons.find((c) => c.board === number);
    const mine = player ? view.results.filter((r) => r.board === number) : [];
    const ownPlays = new Set(mine.map(playKey));
    const plays = comparison ? comparison.results : player ? mine : view.results.filter((r) => r.board === number);
    const others = plays.filter((r) => !ownPlays.has(playKey(r)));
    const playing = player && view.board?.board === number && view.board.phase !== "finished";
    const points = comparison && player ? comparison.points?.[view.competitor] : undefined;
    const line = (result) => h("li", { "data-play": playKey(result) }, h("span", { class: "play-where" }, `${t("T{table} R{round}", { table: result.table, round: result.round ?? 1 })}: `), resultNode(result));
    const waiting = player && mine.length && !comparison ? waitingWords(view, number, t("waiting for the other tables")) : "–";
    const cells = player
      ? [
          h("td", { "data-own-result": "" }, mine.length ? h("ul", { class: "plays" }, mine.map((r) => h("li", { "data-play": playKey(r) }, resultNode(r)))) : playing ? t("playing") : "–"),
          h("td", { "data-other-results": "" }, others.length ? h("ul", { class: "plays" }, others.map(line)) : comparison ? "–" : waiting),
          h("td", { class: "swing", "data-points": points ?? null }, comparison ? (comparison.void ? t("void") : points !== undefined ? pointsText(points, scoring, { signed: true }) : "") : ""),
        ]
      : [h("td", { "data-results": "" }, plays.length ? h("ul", { class: "plays" }, plays.map(line)) : "–"), h("td", {}, comparison?.void ? t("void") : "")];
    const replayable = comparison || plays.length > 0;
    return h(
      "tr",
      { "data-board": number, class: playing ? "current" : null },
      h("th", { scope: "row" }, String(number)),
      cells,
      h(
        "td",
        { class: "replay-cell" },
        replayable ? replayButton(number) : null,
      ),
    );
  });
  const head = player
    ? [h("th", { scope: "col" }, t("Yours")), h("th", { scope: "col" }, t("Other tables")), h("th", { scope: "col" }, scoringUnit(scoring))]
    : [h("th", { scope: "col" }, t("Results")), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("Void")))];
  return h(
    "table",
    { class: "boards-table movement-sheet" },
    h("caption", {}, match.finished ? t("Score sheet") : t("Boards")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Bd")), head, h("th", { scope: "col", class: "replay-cell" }, h("span", { class: "visually-hidden" }, t("Replay"))))),
    h("tbody", {}, rows),
    match.finished
      ? h(
          "tfoot",
          {},
          h(
            "tr",
            { class: "final-row" },
            h("th", { scope: "row" }, t("Final")),
            h("td", { colspan: player ? 4 : 3, "data-final": "" }, winnerText(match, player ? view.competitor : null)),
          ),
        )
      : null,
  );
}

/** A board's replay button: its word, or in a narrow sheet (a phone) a mark (its name says the board). */
function replayButton(number) {
  return h(
    "button",
    { type: "button", class: "replay-board", "data-get-board": number, "aria-label": t("Replay board {board}", { board: number }) },
    h("span", { class: "replay-word" }, t("Replay")),
    h("span", { class: "replay-mark", "aria-hidden": "true" }, "▶"),
  );
}

/** Every board: each table's result, the swing and the running total, and a replay. */
function scoreSheet(view, swingFor) {
  const match = view.match;
  const player = view.type === "player_view";
  const comparisons = match.comparisons;
  const swingText = (comparison) => {
    if (comparison.void) return t("void");
    const swing = comparison.swing;
    const artificial = comparison.artificial !== null && comparison.artificial !== undefined ? ` ${t("(adj.)")}` : "";
    if (swing === 0) return `0${artificial}`;
    if (player) return `${swingFor(swing) > 0 ? `+${swingFor(swing)}` : `−${-swingFor(swing)}`}${artificial}`;
    return `${Math.abs(swing)} ${teamName(match, swing > 0 ? "A" : "B")}${artificial}`;
  };
  const totalText = (total) => (total === 0 ? t("level") : `${teamName(match, total > 0 ? "A" : "B")} +${Math.abs(total)}`);
  const resultAt = (table, number) => view.results.find((r) => r.table === table && r.board === number) ?? null;
  const first = player ? view.table : 1;
  const second = first === 1 ? 2 : 1;
  const rows = match.boards.map((number) => {
    const comparison = comparisons.find((c) => c.board === number);
    const live = player ? view.board : view.tables?.find((b) => b.table === first && b.board === number);
    const playing = player && live?.board === number && live.phase !== "finished";
    const here = comparison ? (first === 1 ? comparison.table1 : comparison.table2) ?? resultAt(first, number) : resultAt(first, number);
    const there = comparison ? (first === 1 ? comparison.table2 : comparison.table1) : resultAt(second, number);
    const waiting = player && here && !comparison ? waitingWords(view, number, t("waiting for the other table")) : "–";
    const replayable = comparison || (!player && (here || there)) || (player && here);
    return h(
      "tr",
      { "data-board": number, class: playing ? "current" : null },
      h("th", { scope: "row" }, String(number)),
      h("td", { "data-table-result": first }, here ? resultNode(here) : playing ? t("playing") : "–"),
      h("td", { "data-table-result": second, "data-other-table": "" }, there ? resultNode(there) : waiting),
      h("td", { class: "swing" }, comparison ? swingText(comparison) : ""),
      h("td", {}, comparison ? totalText(comparison.running_total) : ""),
      h(
        "td",
        { class: "replay-cell" },
        replayable
          ? replayButton(number)
          : null,
      ),
    );
  });
  return h(
    "table",
    { class: "boards-table" },
    h("caption", {}, match.finished ? t("Score sheet") : t("Boards")),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, t("Bd")),
        h("th", { scope: "col" }, player ? t("Your table") : t("Table {table}", { table: 1 })),
        h("th", { scope: "col" }, player ? t("Other table") : t("Table {table}", { table: 2 })),
        h("th", { scope: "col" }, player ? scoringUnit("imps") : t("Swing")),
        h("th", { scope: "col" }, t("Total")),
        h("th", { scope: "col", class: "replay-cell" }, h("span", { class: "visually-hidden" }, t("Replay"))),
      ),
    ),
    h("tbody", {}, rows),
    match.finished
      ? h(
          "tfoot",
          {},
          h(
            "tr",
            { class: "final-row" },
            h("th", { scope: "row", colspan: 3 }, t("Final")),
            h("td", { colspan: 3, "data-final": "" }, `${teamName(match, "A")} ${match.imps_a} – ${match.imps_b} ${teamName(match, "B")}`),
          ),
        )
      : null,
  );
}

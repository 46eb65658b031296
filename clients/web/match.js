// The match panel: the score, the latest comparison with both tables side by side, the score
// sheet, the final result and the match record; and the replay of a finished board, trick
// by trick, used here and for the board on review at the table.

import { SEATS, SEAT_NAME, scoreText, sideOf } from "./bridge.js";
import { auctionGrid, compass, teamName, teamOf, trickNode } from "./compass.js";
import { $, cardText, h, resultNode, suitSymbol } from "./dom.js";
import { competitorName, isTeamMatch, placeOf, pointsText, scoringUnit, standingsTable } from "./movement.js";
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
    where = board.contract ? "The hands as dealt" : "Passed out: the hands as dealt";
    middle = [
      h("p", { class: "centre-note replay-note" }, where),
      board.result ? h("p", { class: "centre-note final-result" }, resultNode(board.result)) : null,
    ];
  } else {
    const trick = steps[step - 1];
    where = trick.winner
      ? `Trick ${step}: ${SEAT_NAME[trick.leader]} led, ${SEAT_NAME[trick.winner]} won`
      : `Trick ${step}: in progress when the play stopped`;
    middle = trickNode(trick, bottom, { state: "replay", caption: where });
  }
  const move = (name, target, label, text, disabled) =>
    h("button", { type: "button", "data-replay": key, "data-move": name, "data-step": target, "aria-label": label, disabled }, text);
  const controls = h(
    "div",
    { class: "replay-controls", role: "group", "aria-label": `Replay of board ${board.board}` },
    move("first", 0, "Back to the deal", "«", step === 0),
    move("previous", step - 1, "Previous trick", "◀ Previous", step === 0),
    h("span", { class: "replay-where", "aria-live": "polite", "data-replay-step": step }, steps.length ? `${step} / ${steps.length}` : "no play"),
    move("next", step + 1, "Next trick", "Next ▶", step >= steps.length),
    move("last", steps.length, "To the last trick", "»", step >= steps.length),
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
  if (!board.contract) return h("p", { class: "no-play" }, "No play: passed out.");
  if (!tricks.length) return h("p", { class: "no-play" }, "No card was played.");
  return h(
    "table",
    { class: "play-table" },
    h("caption", { class: "visually-hidden" }, "The play"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), PLAY_ORDER.map((seat) => h("th", { scope: "col" }, seat)))),
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
  return h(
    "p",
    { class: "claim-note" },
    `${SEAT_NAME[claim.claimer]} claimed ${claim.tricks} of the last ${claim.remaining}`,
    claim.statement ? `: “${claim.statement}”` : "",
  );
}

function tableHeading(match, board, viewerTable, ownPlays) {
  const table = board.table;
  if (!isTeamMatch(match)) {
    const own = ownPlays?.has(playKey(board));
    return h("h4", {}, `Table ${table}`, h("span", { class: "teams" }, ` round ${board.round ?? 1}`), own ? " (yours)" : "");
  }
  const ns = teamName(match, teamOf(table, "N"));
  return h("h4", {}, `Table ${table}`, viewerTable === table ? " (yours)" : "", h("span", { class: "teams" }, ` ${ns} N-S`));
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
  if (isTeamMatch(match)) return `Board ${number} at both tables`;
  return match.format === "replay" ? `Board ${number} in both rounds` : `Board ${number} at every table`;
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
                { class: "replay-tables", role: "group", "aria-label": "Replay the play of" },
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
                    teams ? `Replay table ${board.table}` : `Replay round ${board.round ?? 1}, table ${board.table}`,
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
  const where = board.round && board.round > 1 ? `round ${board.round}, table ${board.table}` : `table ${board.table}`;
  return h(
    "a",
    {
      class: "handviewer",
      href: board.handviewer,
      target: "_blank",
      rel: "noopener noreferrer",
      "data-handviewer": board.table,
      "aria-label": `Board ${board.board} at ${where} in BBO's hand viewer (opens a new tab)`,
    },
    "Open in BBO's hand viewer",
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
    ? "Void: the board counts for neither team"
    : comparison.artificial !== null && comparison.artificial !== undefined
      ? `Artificial adjusted score: ${artificialText(comparison.artificial, match)}`
      : gainer
        ? `${Math.abs(comparison.swing)} IMP${Math.abs(comparison.swing) === 1 ? "" : "s"} to ${teamName(match, gainer)}`
        : "0 IMPs (no swing)";
  return h(
    "div",
    { class: "comparison-summary" },
    h(
      "dl",
      { class: "comparison-list", "data-board": comparison.board, "data-swing": comparison.swing },
      h("dt", {}, "Swing"),
      h("dd", { class: "swing", "data-your-swing": swingFor ? swingFor(comparison.swing) : null }, swing),
      h("dt", {}, "Running total"),
      h("dd", {}, leadText(comparison.running_total, match)),
      comparison.par ? [h("dt", {}, "Par"), h("dd", { class: "par" }, `${scoreText(comparison.par.score)}: ${comparison.par.contracts.join(", ") || "–"}`)] : null,
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
  if (comparison.void) verdict = "Void: the board counts for no one";
  else if (own !== undefined) verdict = `${pointsText(own, scoring, { signed: true })} ${unit}`;
  else verdict = null;
  return h(
    "div",
    { class: "comparison-summary" },
    h(
      "dl",
      { class: "comparison-list", "data-board": comparison.board, "data-points": own ?? null },
      h("dt", {}, comparison.results.length > 1 ? "Results" : "Result"),
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
              h("span", { class: "play-where" }, `Round ${result.round ?? 1}, table ${result.table}${ownPlays.has(playKey(result)) ? " (yours)" : ""}: `),
              resultNode(result),
            ),
          ),
        ),
      ),
      verdict !== null ? [h("dt", {}, own !== undefined ? "Your points" : "Points"), h("dd", { class: "points", "data-your-points": own ?? null }, verdict)] : null,
      !comparison.void && others.length
        ? [
            h("dt", {}, own !== undefined ? "The others" : "Points"),
            h("dd", { class: "others" }, others.map(([name, value]) => `${competitorName(match, name)} ${pointsText(value, scoring, { signed: true })}`).join(", ")),
          ]
        : null,
      comparison.par ? [h("dt", {}, "Par"), h("dd", { class: "par" }, `${scoreText(comparison.par.score)}: ${comparison.par.contracts.join(", ") || "–"}`)] : null,
    ),
    doubleDummy && comparison.double_dummy ? doubleDummyTable(comparison.double_dummy) : null,
  );
}

function artificialText(imps, match) {
  if (imps === 0) return "average to both teams";
  const plus = imps > 0 ? "A" : "B";
  const minus = plus === "A" ? "B" : "A";
  const magnitude = Math.abs(imps);
  const label = magnitude === 3 ? `Avg+ to ${teamName(match, plus)}, Avg− to ${teamName(match, minus)}` : `${magnitude} IMPs to ${teamName(match, plus)}`;
  return label;
}

function leadText(total, match) {
  if (total === 0) return "The teams are level.";
  const leader = total > 0 ? "A" : "B";
  return `${teamName(match, leader)} lead by ${Math.abs(total)} IMP${Math.abs(total) === 1 ? "" : "s"}.`;
}

function doubleDummyTable(doubleDummy) {
  const strains = ["NT", "S", "H", "D", "C"];
  return h(
    "details",
    { class: "double-dummy", open: true },
    h("summary", {}, "Double-dummy tricks"),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("td", {}), strains.map((strain) => h("th", { scope: "col" }, strain === "NT" ? "NT" : suitSymbol(strain))))),
      h(
        "tbody",
        {},
        SEATS.map((seat) => h("tr", {}, h("th", { scope: "row" }, seat), strains.map((strain) => h("td", {}, String(doubleDummy[seat][strain]))))),
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
  const marker = (team) => (team === myTeam ? " (you)" : "");
  if (teams) {
    $("score").replaceChildren(
      h("span", { class: "team-a" }, `${match.team_a}${marker("A")} `),
      h("strong", { "data-imps-a": match.imps_a }, String(match.imps_a)),
      " – ",
      h("strong", { "data-imps-b": match.imps_b }, String(match.imps_b)),
      h("span", { class: "team-b" }, ` ${match.team_b}${marker("B")}`),
    );
  } else {
    $("score").replaceChildren(...standingLine(match, competitor));
  }
  document.body.dataset.finished = String(match.finished);
  $("deals").replaceChildren(...dealsLine(match));
  const final = $("final");
  final.hidden = !match.finished;
  if (match.finished) {
    const verdict = match.winner === "draw" ? "The match is a draw." : `${name(match.winner)} win${match.winner === myTeam ? " — well played!" : "."}`;
    final.replaceChildren(
      h("h3", {}, "Final result"),
      teams
        ? h("p", { "data-winner": match.winner }, `${match.team_a} ${match.imps_a} – ${match.imps_b} ${match.team_b}. ${verdict}`)
        : h("p", { "data-winner": match.winner }, winnerText(match, competitor)),
      dealsCheck(match),
      h("button", { type: "button", id: "download-record", class: "primary" }, "Download the match record (PBN)"),
      h("button", { type: "button", id: "download-lin", class: "secondary" }, "Download it as LIN (BBO)"),
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
      const loading = teams ? "Loading both tables' play…" : "Loading every table's play…";
      box.append(h("h3", {}, recordHeading(match, shown)), summary, h("p", { class: "loading" }, loading));
    }
    if (state.recordBoard !== null) box.prepend(h("button", { type: "button", id: "record-close", class: "close" }, "Close"));
  }
  if (teams) $("boards").replaceChildren(scoreSheet(view, swingFor));
  else $("boards").replaceChildren(standingsTable(match, competitor), movementSheet(view));
}

/** The commitment to the deals, shown from the first view on (the hash, shortened). */
function dealsLine(match) {
  const commitment = match.deals_commitment;
  if (!commitment) return [];
  const line = [
    "Deals sealed before play: ",
    h("code", { title: `SHA-256 ${commitment}`, "data-commitment": commitment }, `${commitment.slice(0, 16)}…`),
  ];
  if (match.deals_seed_commitment) {
    line.push(
      ", drawn from the seed ",
      h("code", { title: `SHA-256 ${match.deals_seed_commitment}`, "data-seed-commitment": match.deals_seed_commitment }, `${match.deals_seed_commitment.slice(0, 16)}…`),
      " and the public value ",
      h("q", { "data-public-value": "" }, match.deals_public_value ?? ""),
      match.deals_public_form
        ? h("span", { "data-public-form": match.deals_public_form }, ` (read as sealed: ${match.deals_public_form})`)
        : h("span", { class: "warning", "data-public-form": "" }, " (sealed without a form: its spelling could have been chosen)"),
    );
  }
  return line;
}

/** The end of the match: whether the deals played are the ones committed to. */
function dealsCheck(match) {
  const checked = state.deals;
  if (!match.deals_commitment) return null;
  if (checked === null || checked === "checking") {
    return h("p", { class: "deals-check", "data-deals": "checking" }, "Checking the deals against their commitment…");
  }
  if (checked.ok) {
    const seeded = checked.seeded ? ` Each board is the one drawn from the seed committed to (SHA-256 ${match.deals_seed_commitment}) and the public value “${match.deals_public_value}”.` : "";
    return h(
      "p",
      { class: "deals-check", "data-deals": "verified" },
      `Deals verified: the ${checked.games} tables' deals are the ${checked.boards} boards committed to when the match was created (SHA-256 ${match.deals_commitment}).${seeded}`,
    );
  }
  return h("p", { class: "deals-check error", "data-deals": "failed", role: "alert" }, `The deals do not match their commitment: ${checked.reason}.`);
}

/** The round a watcher's tables are in now (the latest of their boards'). */
function watchRound(view) {
  return Math.max(1, ...(view.tables ?? []).map((board) => board.round ?? 1));
}

/**
 * Why a board the player's table finished is not compared yet: its review at their own
 * table (the board is still on review there), else the other table or tables.
 */
function waitingWords(view, number, others) {
  return view.review?.board === number ? "on review at your table" : `waiting for ${others}`;
}

/** The top bar without teams: the viewer's points and place (a watcher: the leader's). */
function standingLine(match, competitor) {
  const standings = match.standings ?? [];
  const unit = scoringUnit(match.scoring);
  const own = standings.find((s) => s.competitor === competitor);
  const compared = match.comparisons.length > 0;
  // (replaceChildren writes a null as the word "null": the parts left out are dropped.)
  if (own) {
    const place = compared ? h("span", { class: "place", "data-place": placeOf(standings, competitor) }, ` · ${placeOf(standings, competitor)} of ${standings.length}`) : null;
    return [h("span", { class: "own-name" }, `${own.name} (you) `), h("strong", { "data-points": own.points }, pointsText(own.points, match.scoring)), ` ${unit}`, place].filter(
      (part) => part !== null,
    );
  }
  const leader = standings[0];
  if (!leader || !compared) return [`${standings.length} competitors · ${scoringUnit(match.scoring)}`];
  const level = standings.filter((s) => s.points === leader.points).length;
  if (level > 1) {
    // Nobody leads while the best are level (at the start: everyone at 0).
    const who = level === standings.length ? "All level" : `${level} level`;
    return [h("span", {}, `${who} at `), h("strong", { "data-points": leader.points }, pointsText(leader.points, match.scoring)), ` ${unit}`];
  }
  return [h("span", {}, `Leader: ${competitorName(match, leader.competitor)} `), h("strong", { "data-points": leader.points }, pointsText(leader.points, match.scoring)), ` ${unit}`];
}

/** "Bo wins with 12.5 IMPs." at the end of a match without teams. */
function winnerText(match, competitor) {
  const unit = scoringUnit(match.scoring);
  const standings = match.standings ?? [];
  if (match.winner === "draw" || !match.winner) {
    const top = standings[0];
    if (!top) return "The match is a draw.";
    const leaders = standings.filter((s) => s.points === top.points).map((s) => competitorName(match, s.competitor));
    return `A draw: ${leaders.join(", ")} share the lead with ${pointsText(top.points, match.scoring)} ${unit}.`;
  }
  const winner = standings.find((s) => s.competitor === match.winner);
  const text = `Winner: ${competitorName(match, match.winner)}${winner ? ` with ${pointsText(winner.points, match.scoring)} ${unit}` : ""}`;
  return `${text}${match.winner === competitor ? " — well played!" : "."}`;
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
    const line = (result) => h("li", { "data-play": playKey(result) }, h("span", { class: "play-where" }, `T${result.table} R${result.round ?? 1}: `), resultNode(result));
    const waiting = player && mine.length && !comparison ? waitingWords(view, number, "the other tables") : "–";
    const cells = player
      ? [
          h("td", { "data-own-result": "" }, mine.length ? h("ul", { class: "plays" }, mine.map((r) => h("li", { "data-play": playKey(r) }, resultNode(r)))) : playing ? "playing" : "–"),
          h("td", { "data-other-results": "" }, others.length ? h("ul", { class: "plays" }, others.map(line)) : comparison ? "–" : waiting),
          h("td", { class: "swing", "data-points": points ?? null }, comparison ? (comparison.void ? "void" : points !== undefined ? pointsText(points, scoring, { signed: true }) : "") : ""),
        ]
      : [h("td", { "data-results": "" }, plays.length ? h("ul", { class: "plays" }, plays.map(line)) : "–"), h("td", {}, comparison?.void ? "void" : "")];
    const replayable = comparison || plays.length > 0;
    return h(
      "tr",
      { "data-board": number, class: playing ? "current" : null },
      h("th", { scope: "row" }, String(number)),
      cells,
      h(
        "td",
        {},
        replayable ? h("button", { type: "button", class: "replay-board", "data-get-board": number, "aria-label": `Replay board ${number}` }, "Replay") : null,
      ),
    );
  });
  const head = player
    ? [h("th", { scope: "col" }, "Yours"), h("th", { scope: "col" }, "Other tables"), h("th", { scope: "col" }, scoringUnit(scoring))]
    : [h("th", { scope: "col" }, "Results"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Void"))];
  return h(
    "table",
    { class: "boards-table movement-sheet" },
    h("caption", {}, match.finished ? "Score sheet" : "Boards"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Bd"), head, h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Replay")))),
    h("tbody", {}, rows),
    match.finished
      ? h(
          "tfoot",
          {},
          h(
            "tr",
            { class: "final-row" },
            h("th", { scope: "row" }, "Final"),
            h("td", { colspan: player ? 4 : 3, "data-final": "" }, winnerText(match, player ? view.competitor : null)),
          ),
        )
      : null,
  );
}

/** Every board: each table's result, the swing and the running total, and a replay. */
function scoreSheet(view, swingFor) {
  const match = view.match;
  const player = view.type === "player_view";
  const comparisons = match.comparisons;
  const swingText = (comparison) => {
    if (comparison.void) return "void";
    const swing = comparison.swing;
    const artificial = comparison.artificial !== null && comparison.artificial !== undefined ? " (adj.)" : "";
    if (swing === 0) return `0${artificial}`;
    if (player) return `${swingFor(swing) > 0 ? `+${swingFor(swing)}` : `−${-swingFor(swing)}`}${artificial}`;
    return `${Math.abs(swing)} ${swing > 0 ? match.team_a : match.team_b}${artificial}`;
  };
  const totalText = (total) => (total === 0 ? "level" : `${teamName(match, total > 0 ? "A" : "B")} +${Math.abs(total)}`);
  const resultAt = (table, number) => view.results.find((r) => r.table === table && r.board === number) ?? null;
  const first = player ? view.table : 1;
  const second = first === 1 ? 2 : 1;
  const rows = match.boards.map((number) => {
    const comparison = comparisons.find((c) => c.board === number);
    const live = player ? view.board : view.tables?.find((b) => b.table === first && b.board === number);
    const playing = player && live?.board === number && live.phase !== "finished";
    const here = comparison ? (first === 1 ? comparison.table1 : comparison.table2) ?? resultAt(first, number) : resultAt(first, number);
    const there = comparison ? (first === 1 ? comparison.table2 : comparison.table1) : resultAt(second, number);
    const waiting = player && here && !comparison ? waitingWords(view, number, "the other table") : "–";
    const replayable = comparison || (!player && (here || there)) || (player && here);
    return h(
      "tr",
      { "data-board": number, class: playing ? "current" : null },
      h("th", { scope: "row" }, String(number)),
      h("td", { "data-table-result": first }, here ? resultNode(here) : playing ? "playing" : "–"),
      h("td", { "data-table-result": second, "data-other-table": "" }, there ? resultNode(there) : waiting),
      h("td", { class: "swing" }, comparison ? swingText(comparison) : ""),
      h("td", {}, comparison ? totalText(comparison.running_total) : ""),
      h(
        "td",
        {},
        replayable
          ? h("button", { type: "button", class: "replay-board", "data-get-board": number, "aria-label": `Replay board ${number}` }, "Replay")
          : null,
      ),
    );
  });
  return h(
    "table",
    { class: "boards-table" },
    h("caption", {}, match.finished ? "Score sheet" : "Boards"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Bd"),
        h("th", { scope: "col" }, player ? "Your table" : "Table 1"),
        h("th", { scope: "col" }, player ? "Other table" : "Table 2"),
        h("th", { scope: "col" }, player ? "IMPs" : "Swing"),
        h("th", { scope: "col" }, "Total"),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Replay")),
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
            h("th", { scope: "row", colspan: 3 }, "Final"),
            h("td", { colspan: 3, "data-final": "" }, `${match.team_a} ${match.imps_a} – ${match.imps_b} ${match.team_b}`),
          ),
        )
      : null,
  );
}

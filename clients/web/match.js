// The match panel: the score, the latest comparison with both tables side by side, the score
// sheet, the final result and the match record; and the replay of a finished board, trick
// by trick, used here and for the board on review at the table.

import { SEATS, SEAT_NAME, scoreText, sideOf } from "./bridge.js";
import { auctionGrid, compass, teamName, teamOf, trickNode } from "./compass.js";
import { $, cardText, h, resultNode, suitSymbol } from "./dom.js";
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

function tableHeading(match, table, viewerTable) {
  const ns = teamName(match, teamOf(table, "N"));
  return h("h4", {}, `Table ${table}`, viewerTable === table ? " (yours)" : "", h("span", { class: "teams" }, ` ${ns} N-S`));
}

/**
 * A board as both tables played it, side by side (the answer to `get_board`): each table's
 * result, auction and play; the comparison; and a replay of either table's play.
 */
export function recordPanel(record, { match, viewerTable = null, me = null, players = [], swingFor }) {
  const chosen = state.recordTable.get(record.board) ?? record.tables[0]?.table;
  const replayed = record.tables.find((board) => board.table === chosen) ?? record.tables[0];
  return h(
    "section",
    { class: "record", "data-record-board": record.board, "aria-label": `Board ${record.board} at both tables` },
    h("h3", {}, `Board ${record.board} at both tables`),
    record.comparison ? comparisonSummary(record.comparison, match, swingFor, { doubleDummy: false }) : null,
    h(
      "div",
      { class: "record-tables" },
      record.tables.map((board) =>
        h(
          "article",
          { class: "record-table", "data-table": board.table },
          tableHeading(match, board.table, viewerTable),
          h("p", { class: "record-result" }, resultNode(board.result)),
          auctionGrid(board, null, null, { live: false }),
          claimLine(board),
          playTable(board),
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
                    { type: "button", "data-record-table": board.table, "data-record-board": record.board, "aria-pressed": String(board.table === replayed.table) },
                    `Replay table ${board.table}`,
                  ),
                ),
              )
            : null,
          replayView(replayed, {
            key: `record:${record.board}:${replayed.table}`,
            bottom: me ?? "S",
            match,
            players: players.filter((p) => p.table === replayed.table),
          }),
        )
      : null,
  );
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
  const myTeam = player ? view.team : null;
  const name = (team) => teamName(match, team);
  const marker = (team) => (team === myTeam ? " (you)" : "");
  $("score").replaceChildren(
    h("span", { class: "team-a" }, `${match.team_a}${marker("A")} `),
    h("strong", { "data-imps-a": match.imps_a }, String(match.imps_a)),
    " – ",
    h("strong", { "data-imps-b": match.imps_b }, String(match.imps_b)),
    h("span", { class: "team-b" }, ` ${match.team_b}${marker("B")}`),
  );
  document.body.dataset.finished = String(match.finished);
  const final = $("final");
  final.hidden = !match.finished;
  if (match.finished) {
    const verdict = match.winner === "draw" ? "The match is a draw." : `${name(match.winner)} win${match.winner === myTeam ? " — well played!" : "."}`;
    final.replaceChildren(
      h("h3", {}, "Final result"),
      h("p", { "data-winner": match.winner }, `${match.team_a} ${match.imps_a} – ${match.imps_b} ${match.team_b}. ${verdict}`),
      h("button", { type: "button", id: "download-record", class: "primary" }, "Download the match record (PBN)"),
    );
  }
  const swingFor = (swing) => (myTeam === "B" ? -swing : swing);

  // The board as both tables played it: the latest comparison, or the board chosen.
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
        }),
      );
    } else if (comparison) {
      box.append(h("h3", {}, `Board ${shown} at both tables`), comparisonSummary(comparison, match, player ? swingFor : null), h("p", { class: "loading" }, "Loading both tables' play…"));
    }
    if (state.recordBoard !== null) box.prepend(h("button", { type: "button", id: "record-close", class: "close" }, "Close"));
  }
  $("boards").replaceChildren(scoreSheet(view, swingFor));
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
    const waiting = player && here && !comparison ? "waiting for the other table" : "–";
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

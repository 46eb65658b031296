// The spectators' and the director's page: both tables as the watch view shows them, with
// their players and the round that waits for the director; for the director also the calls
// for the director, each table's chat and the director's tools (rulings, undo, assigned and
// adjusted scores, substitutes, starting a round held for them).

import { SEATS, SEAT_LETTER, SEAT_NAME, sideOf, sideText } from "./bridge.js";
import { auctionGrid, compass, teamName, teamOf } from "./compass.js";
import { $, callNode, cardText, clock, h, personAt, place, seatWithName } from "./dom.js";
import { serverCallText } from "./errors.js";
import { language, localized, t, tx } from "./i18n.js";
import { liveMiddle } from "./live.js";
import { andText, heldText, isTeamMatch, meetingOf, roundText } from "./movement.js";
import { draftInput, state } from "./ui.js";

const MODES = localized({
  live: "Watching live: both tables as they are played.",
  delayed: "Watching with a delay: each board appears once both tables have finished it.",
  director: "Directing: both tables, every hand.",
});

/** The same, for a match that is not between two teams (one, two or three tables). */
const MOVEMENT_MODES = localized({
  live: "Watching live: every table as it is played.",
  delayed: "Watching with a delay: each board appears once every table has finished it.",
  director: "Directing: every table, every hand.",
});

const kept = new Map();

/**
 * The part `name` built by `build()`, or the same nodes again while `parts` is unchanged: a
 * table of robots sends many updates a second, and a button drawn afresh between the
 * director's press and release would lose the click. A change of language draws it afresh.
 * The nodes go in with `place()`, which leaves them where they are: put in again (taken out
 * and back), they would lose the click as well.
 */
function memo(name, parts, build) {
  const key = `${language()} ${parts}`;
  const old = kept.get(name);
  if (old && old.key === key) return old.nodes;
  const nodes = build();
  kept.set(name, { key, nodes });
  return nodes;
}

export function renderWatch(view) {
  $("player").hidden = true;
  $("watch").hidden = false;
  $("auction-review").hidden = true;
  const director = view.mode === "director";
  const teams = isTeamMatch(view.match);
  $("watch-mode").textContent = (teams ? MODES : MOVEMENT_MODES)[view.mode] ?? "";
  $("tables").dataset.count = String(view.tables.length);
  const hold = $("round-hold");
  const held = heldText(view.match);
  hold.hidden = !held;
  place(hold, memo("round-hold", JSON.stringify([held, director]), () => (held ? roundHold(view.match, director) : [])));
  const queue = $("director-queue");
  queue.hidden = !director;
  if (director) {
    place(queue, memo("queue", JSON.stringify([view.director_calls, view.answered_calls, view.players]), () => directorQueue(view)));
  }
  const tables = $("tables");
  if (!view.tables.length) {
    const note = teams
      ? t("Nothing to show yet: boards appear here once both tables have finished them.")
      : t("Nothing to show yet: boards appear here once every table has finished them.");
    place(tables, h("p", { class: "centre-note" }, note));
  } else {
    place(tables, view.tables.map((board) => watchTable(view, board, director)));
  }
  const tools = $("match-tools");
  tools.hidden = !director;
  if (director) {
    const match = view.match;
    place(tools, memo("match-tools", JSON.stringify([match.boards, match.team_a, match.team_b, match.format]), () => matchTools(view)));
  }
}

function watchTable(view, board, director) {
  const match = view.match;
  const players = view.players.filter((p) => p.table === board.table);
  const teams = isTeamMatch(match);
  // A delayed spectator of replay duplicate sees a board's two plays at table 1.
  const id = teams ? `table-${board.table}` : `table-${board.table}-round-${board.round ?? 1}`;
  const section = tableSection({ class: "watch-table", id, "data-table": board.table, "data-round": teams ? null : board.round ?? 1, "aria-label": t("Table {table}", { table: board.table }) });
  place(
    section,
    h(
      "h2",
      {},
      t("Table {table}", { table: board.table }),
      teams
        ? h("span", { class: "teams" }, ` ${teamName(match, teamOf(board.table, "N"))} ${sideText("NS")}, ${teamName(match, teamOf(board.table, "E"))} ${sideText("EW")}`)
        : h("span", { class: "teams", "data-meeting": meetingOf(match, board.round ?? 1) }, ` ${roundText(match, board.round ?? 1, { lower: true })}`),
      tableClock(view, board),
    ),
    compass(board, {
      bottom: "S",
      me: null,
      match,
      players,
      hands: board.phase === "finished" && board.deal ? board.deal : board.hands,
      middle: liveMiddle(board, "S", null, (view.face_down_leads ?? []).find((lead) => lead.table === board.table)),
    }),
    board.phase !== "auction" ? auctionGrid(board, null, null) : null,
    tableWaits(view, board, director),
    memo(`claim-${id}`, JSON.stringify([board.claim, director]), () => watchClaim(board, director)),
    memo(`undo-${id}`, JSON.stringify([board.undo, director]), () => watchUndo(board, director)),
    director && players.length ? keptTableTools(view, board) : null, // not at a robots' table
  );
  return section;
}

/**
 * The table's section drawn before (with what it holds that stays, the director's buttons:
 * see `memo`), else a new one; its attributes as `props` (as `h()` takes them) says.
 */
function tableSection(props) {
  const drawn = $(props.id);
  const section = drawn?.parentElement === $("tables") ? drawn : document.createElement("section");
  const fresh = h("section", props);
  for (const name of section.getAttributeNames()) {
    if (!fresh.hasAttribute(name)) section.removeAttribute(name);
  }
  for (const name of fresh.getAttributeNames()) {
    if (section.getAttribute(name) !== fresh.getAttribute(name)) section.setAttribute(name, fresh.getAttribute(name));
  }
  return section;
}

/** A table whose board waits for its players before its first call: who is missing. */
function tableWaits(view, board, director) {
  const seats = (view.waiting ?? []).find((w) => w.table === board.table)?.seats ?? [];
  if (!seats.length) return null;
  const who = andText(seats.map((s) => SEAT_NAME[s]));
  const text = director
    ? t("Waits for {seats} to come: the board starts when all four are here (or seat a robot).", { seats: who })
    : t("Waits for {seats} to come: the board starts when all four are here.", { seats: who });
  return h("p", { class: "table-waits", "data-waiting-for": seats.join("") }, text);
}

/**
 * The table's round clock (a match with minutes per board): the board it is on, the round's
 * time left, "behind time" once the board in play is past its due moment; "Time is up"
 * once the server said so. Nothing once the round's boards are played.
 */
function tableClock(view, board) {
  const round = (view.clocks ?? []).find((c) => c.table === board.table && c.round === (board.round ?? 1));
  if (!round || round.played >= round.boards) return null;
  const left = round.boards - round.played;
  if (round.time_up) {
    return h("span", { class: "table-clock", "data-time-up": "true" }, t("Time is up: {left} of {n} boards still to play.", { left, n: round.boards }));
  }
  return h(
    "span",
    { class: "table-clock" },
    ...tx("Board {board} of {boards} in the round · {left} {slow}", {
      board: round.played + 1,
      boards: round.boards,
      left: clock(round.ends_at, "left"),
      slow: clock(round.due_at, "slow", { class: "slow-badge" }),
    }),
  );
}

function keptTableTools(view, board) {
  const key = JSON.stringify([
    board.board,
    board.phase,
    board.auction.length,
    board.tricks_ns + board.tricks_ew,
    board.declarer,
    view.chat.filter((line) => line.table === board.table),
    view.players.filter((p) => p.table === board.table),
    state.substituted,
  ]);
  return memo(`tools-${board.table}`, key, () => tableTools(view, board));
}

/** Where a claim stands, as the spectators' page says it. */
const CLAIM_STATUS_WORDS = localized({
  pending: "waiting for the answer",
  accepted: "accepted",
  rejected: "rejected: play goes on",
  withdrawn: "withdrawn: play goes on",
  disputed: "disputed: play has stopped for your ruling (law 68D)",
});

function watchClaim(board, director) {
  const claim = board.claim;
  if (!claim) return null;
  const status = CLAIM_STATUS_WORDS[claim.status] ?? claim.status;
  return h(
    "div",
    { class: "claim-panel", "data-claim-status": claim.status },
    h("p", {}, t("{seat} claims {tricks} of the {n} remaining tricks: {status}.", { seat: SEAT_NAME[claim.claimer], tricks: claim.tricks, n: claim.remaining, status })),
    claim.statement ? h("p", { class: "claim-statement" }, t("“{text}”", { text: claim.statement })) : null,
    claim.withdrawal
      ? h(
          "div",
          { class: "withdrawal-panel", "data-withdrawal-seat": claim.withdrawal },
          h("p", { class: "withdrawal-note" }, t("{seat} asks to withdraw the concession (laws 69 and 71): the board is held for your decision.", { seat: SEAT_NAME[claim.withdrawal] })),
          director ? decisionButtons(board.table, "withdrawal", t("Allow the withdrawal: play on"), t("Refuse: the concession stands")) : null,
        )
      : null,
  );
}

function undoWhat(undo) {
  return h("span", {}, ...(undo.call ? tx("their {call}", { call: callNode(undo.call) }) : tx("their {card}", { card: cardText(undo.card) })));
}

function watchUndo(board, director) {
  const undo = board.undo;
  if (!undo) return null;
  const waiting = undo.deciders.filter((seat) => !undo.accepted.includes(seat));
  return h(
    "div",
    { class: "undo-panel", "data-undo-seat": undo.seat },
    h(
      "p",
      {},
      ...tx("{seat} asks to take back {what}: waiting for {seats}.", {
        seat: SEAT_NAME[undo.seat],
        what: undoWhat(undo),
        seats: andText(waiting.map((s) => SEAT_NAME[s])),
      }),
    ),
    director ? decisionButtons(board.table, "undo", t("Allow the undo"), t("Refuse it")) : null,
  );
}

/** The director's two answers to a request at a table (`${kind}-allow`, `${kind}-refuse`). */
function decisionButtons(table, kind, allow, refuse) {
  return h(
    "div",
    { class: "button-row" },
    h("button", { type: "button", class: "primary", "data-director": `${kind}-allow`, "data-table": table }, allow),
    h("button", { type: "button", class: "danger", "data-director": `${kind}-refuse`, "data-table": table }, refuse),
  );
}

/**
 * Every table has played the round and the next waits for the director: spectators are told
 * so; the director gets the button that starts it (`start_round`), in a series the meeting.
 */
function roundHold(match, director) {
  const round = match.held_round;
  // A series holds each meeting after the first: the director starts the meeting.
  const meeting = meetingOf(match, round);
  const said = { "data-round": round, "data-meeting": meeting };
  if (!director) return [h("p", { class: "held-round", ...said }, heldText(match))];
  return [
    h(
      "p",
      { class: "held-round", ...said },
      meeting !== null
        ? t("Meeting {played} is over: meeting {meeting} (round {round}) waits for you.", { played: meeting - 1, meeting, round })
        : t("Every table has played round {played}: round {round} waits for you.", { played: round - 1, round }),
    ),
    h(
      "button",
      { type: "button", class: "primary", id: "start-round", "data-director": "start-round", ...said },
      meeting !== null ? t("Start meeting {meeting}", { meeting }) : t("Start round {round}", { round }),
    ),
  ];
}

// -- the director's queue -------------------------------------------------------------------

/** Where a call stands, as the director's queue says it. */
const CALL_STATE_WORDS = localized({ open: "new", seen: "seen: on your way", answered: "answered in the chat" });

function directorQueue(view) {
  const waiting = view.director_calls;
  const calls = [...waiting, ...(view.answered_calls ?? [])];
  const heading = h("h2", { id: "queue-heading" }, waiting.length ? t("Calls for the director ({n})", { n: waiting.length }) : t("Calls for the director"));
  if (!calls.length) return [heading, h("p", { class: "queue-empty" }, t("No table is calling."))];
  return [
    heading,
    h(
      "ol",
      { class: "queue", "aria-labelledby": "queue-heading" },
      calls.map((call) =>
        h(
          "li",
          {
            class: `queue-call call-${call.state ?? "open"}`,
            "data-call-table": call.table,
            "data-call-seat": call.seat,
            "data-call-state": call.state ?? "open",
          },
          h("strong", {}, t("Table {table}", { table: call.table })),
          call.board !== null ? ` · ${t("board {board}", { board: call.board })}` : "",
          ` · ${seatWithName(personAt(view.players, call.table, call.seat), call.seat)}`,
          call.text ? h("span", { class: "queue-text" }, `: ${t("“{text}”", { text: serverCallText(call.text) })}`) : null,
          " · ",
          clock(call.at, "ago", { class: "queue-ago" }),
          h("span", { class: "queue-state" }, ` · ${CALL_STATE_WORDS[call.state ?? "open"] ?? call.state}`),
          (call.state ?? "open") === "open"
            ? h("button", { type: "button", "data-director": "see-calls", "data-table": call.table }, t("On my way"))
            : null,
          h("button", { type: "button", "data-answer-table": call.table }, t("Answer in chat")),
          h("button", { type: "button", "data-director": "close-calls", "data-table": call.table }, t("Close")),
        ),
      ),
    ),
  ];
}

// -- the director's tools at one table -------------------------------------------------------

function tableTools(view, board) {
  const table = board.table;
  const inPlay = board.phase === "play" || board.phase === "claim";
  const inProgress = board.phase !== "finished";
  return h(
    "div",
    { class: "director-tools", "aria-label": t("Director's tools, table {table}", { table }) },
    tableChat(view, table),
    h(
      "details",
      { class: "tools", open: true },
      h("summary", {}, t("Tools for table {table}, board {board}", { table, board: board.board })),
      h(
        "div",
        { class: "tool" },
        h("h3", {}, t("Take back")),
        h(
          "button",
          { type: "button", "data-director": "undo", "data-table": table, disabled: !inProgress || (board.auction.length === 0) },
          t("Undo the table's last call or card"),
        ),
      ),
      inPlay ? ruleTool(board) : null,
      assignTool(board),
      substituteTool(view, table),
    ),
  );
}

function ruleTool(board) {
  const declarerSide = sideOf(board.declarer);
  const already = declarerSide === "NS" ? board.tricks_ns : board.tricks_ew;
  const remaining = 13 - board.tricks_ns - board.tricks_ew;
  const options = [];
  for (let tricks = already; tricks <= already + remaining; tricks += 1) {
    options.push(h("button", { type: "button", "data-rule-table": board.table, "data-rule-tricks": tricks }, String(tricks)));
  }
  return h(
    "div",
    { class: "tool" },
    h("h3", {}, t("Rule: end the play")),
    h("p", {}, t("Declarer's side ({seat}) takes, in all:", { seat: SEAT_NAME[board.declarer] })),
    h("div", { class: "claim-numbers" }, options),
  );
}

function assignTool(board) {
  const table = board.table;
  const id = (name) => `assign-${name}-${table}`;
  return h(
    "form",
    { class: "tool assign-form", "data-form": "assign", "data-table": table },
    h("h3", {}, t("Assign a result")),
    h(
      "div",
      { class: "fields" },
      h("label", { for: id("board") }, t("Board"), draftInput(id("board"), { type: "number", min: 1, value: String(board.board), class: "narrow" })),
      h("label", { for: id("contract") }, t("Contract"), draftInput(id("contract"), { placeholder: t("4SX, or Pass"), pattern: "([1-7]([CDHS]|NT)(X|XX)?|[Pp]ass|[Пп]ас)", class: "narrow" })),
      h(
        "label",
        { for: id("declarer") },
        t("Declarer"),
        h("select", { id: id("declarer"), "data-draft": "" }, SEATS.map((seat) => h("option", { value: seat, selected: (state.drafts.get(id("declarer")) ?? "N") === seat }, SEAT_LETTER[seat]))),
      ),
      h("label", { for: id("tricks") }, t("Tricks"), draftInput(id("tricks"), { type: "number", min: 0, max: 13, value: "", class: "narrow" })),
    ),
    h("button", { type: "submit" }, t("Assign")),
  );
}

function substituteTool(view, table) {
  const id = `substitute-seat-${table}`;
  const chosen = state.drafts.get(id) ?? "N";
  const done = state.substituted?.table === table ? state.substituted : null;
  return h(
    "div",
    { class: "tool substitute" },
    h("h3", {}, t("Substitute a player")),
    h(
      "div",
      { class: "fields" },
      h(
        "label",
        { for: id },
        t("Seat"),
        h(
          "select",
          { id, "data-draft": "" },
          SEATS.map((seat) => h("option", { value: seat, selected: chosen === seat }, seatWithName(personAt(view.players, table, seat), seat))),
        ),
      ),
      h("button", { type: "button", "data-director": "substitute", "data-table": table }, t("New player: a new link")),
      h("button", { type: "button", "data-director": "substitute-robot", "data-table": table }, t("Seat a robot")),
    ),
    done
      ? h(
          "div",
          { class: "new-link", "data-substituted": `${done.table}${done.seat}` },
          done.link
            ? [
                h("label", { for: `new-link-${table}` }, t("New link for {seat} (the old one no longer works):", { seat: SEAT_NAME[done.seat] })),
                h("input", { id: `new-link-${table}`, type: "text", readonly: true, value: done.link }),
                h("button", { type: "button", "data-copy": `new-link-${table}` }, t("Copy")),
              ]
            : h("p", {}, t("A robot now plays {seat}.", { seat: SEAT_NAME[done.seat] })),
        )
      : null,
  );
}

function tableChat(view, table) {
  const lines = view.chat.filter((line) => line.table === table);
  const players = view.players;
  const input = `director-chat-${table}`;
  return h(
    "section",
    { class: "chat director-chat", "aria-label": t("Chat at table {table}", { table }) },
    h("h3", {}, t("Chat at table {table}", { table })),
    h(
      "ol",
      { class: "chat-log", "data-chat-table": table },
      lines.map((line) =>
        h(
          "li",
          { class: line.seat === null ? "from-director" : null },
          h("span", { class: "chat-seat" }, line.seat === null ? t("Director") : seatWithName(personAt(players, table, line.seat), line.seat)),
          line.to.length < 4 ? h("span", { class: "chat-to" }, ` → ${line.to.filter((seat) => seat !== line.seat).map((seat) => SEAT_LETTER[seat]).join(" ")}`) : null,
          ": ",
          line.text,
        ),
      ),
    ),
    h(
      "form",
      { class: "chat-form", "data-form": "director-chat", "data-table": table },
      h("label", { class: "visually-hidden", for: input }, t("Message to table {table}", { table })),
      draftInput(input, { maxlength: 300, placeholder: t("To everyone at table {table}", { table }) }),
      h("button", { type: "submit" }, t("Send")),
    ),
  );
}

// -- the director's tools for the match ---------------------------------------------------

function matchTools(view) {
  const match = view.match;
  const id = "adjust-board";
  const chosen = Number(state.drafts.get(id) ?? match.boards[0]);
  const options = match.boards.map((n) => h("option", { value: n, selected: n === chosen }, String(n)));
  const boardField = h("label", { for: id }, t("Board"), h("select", { id, "data-draft": "" }, options));
  if (!isTeamMatch(match)) {
    // An artificial adjusted score is in team A's IMPs: without teams the director voids.
    return [
      h("summary", {}, t("Void a board")),
      h(
        "form",
        { class: "tool adjust-form", "data-form": "void" },
        h(
          "div",
          { class: "fields" },
          boardField,
          h("button", { type: "button", class: "danger", "data-director": "void" }, t("Void the board")),
        ),
      ),
    ];
  }
  const a = teamName(match, "A");
  const b = teamName(match, "B");
  return [
    h("summary", {}, t("Adjusted scores")),
    h(
      "form",
      { class: "tool adjust-form", "data-form": "adjust" },
      h(
        "div",
        { class: "fields" },
        boardField,
      ),
      h(
        "div",
        { class: "button-row" },
        h("button", { type: "button", "data-adjust": 3 }, t("Avg+ to {team} ({imps})", { team: a, imps: "+3" })),
        h("button", { type: "button", "data-adjust": -3 }, t("Avg+ to {team} ({imps})", { team: b, imps: "−3" })),
        h("button", { type: "button", "data-adjust": 0 }, t("Average (0)")),
      ),
      h(
        "div",
        { class: "fields" },
        h("label", { for: "adjust-imps" }, t("IMPs to {team}", { team: a }), draftInput("adjust-imps", { type: "number", min: -24, max: 24, class: "narrow" })),
        h("button", { type: "submit" }, t("Give")),
        h("button", { type: "button", class: "danger", "data-director": "void" }, t("Void the board")),
      ),
    ),
  ];
}

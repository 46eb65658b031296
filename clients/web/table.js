// The browser table: one page for the three join links (/play, /watch, /direct). It reads
// the token after '#', connects, and draws the latest view the server sent; every action
// is a protocol message with a ref, answered by an ack or an error (protocol/SPEC.md).

import { SEAT_NAME, STRAINS, SUITS, bySuit, callName, callText, cardName, cardPlain, partner, sideOf, sortHand } from "./bridge.js";
import { auctionGrid, compass } from "./compass.js";
import { Connection, socketUrl } from "./connection.js";
import { renderWatch } from "./director.js";
import { checkRecord } from "./deals.js";
import {
  $, awayText, callNode, cardText, cardTile, clock, h, isAway, personAt, resultNode, seatWithName, setServerNow, tickClocks,
} from "./dom.js";
import { liveMiddle } from "./live.js";
import { handviewerLink, recordBoard, renderMatch, replayView } from "./match.js";
import { hasPlayedRound, hasRounds, heldText, isTeamMatch, moveText, pointsText, renderSeating, scoringUnit, waitingText } from "./movement.js";
import { BUSY, app, canAct, draftInput, guarded, say, send, settings, speak, startGuard, state, takeDraft } from "./ui.js";

// -- what the viewer sees of the board ------------------------------------------------------

/** The hands this board lets the viewer see, as they are now (the deal once finished). */
function visibleHands(board) {
  if (board.phase === "finished" && board.deal) return board.deal;
  return board.hands;
}

function remainingTricks(board) {
  return 13 - board.tricks_ns - board.tricks_ew;
}

/** Whether the board on the table is the finished one under review. */
function isReviewing(view) {
  return view.review != null && view.board?.phase === "finished" && view.review.board === view.board.board;
}

function person(view, seat) {
  return personAt(view.players, view.table, seat);
}

function seatsText(view, seats) {
  return seats.map((seat) => seatWithName(person(view, seat), seat)).join(" and ");
}

/** "their 1♣" / "their ♠4": what an undo request would take back. */
function undoWhat(undo, own) {
  const whose = own ? "your " : "their ";
  return undo.call ? h("span", {}, whose, callNode(undo.call)) : h("span", {}, whose, cardText(undo.card));
}

// -- the player's page ------------------------------------------------------------------------

function renderPlayer(view) {
  $("player").hidden = false;
  $("watch").hidden = true;
  const board = view.board;
  const seat = view.seat;
  const reviewing = isReviewing(view);
  document.body.dataset.phase = board?.phase ?? "none";
  document.body.dataset.acting = board?.acting ?? "";
  document.body.dataset.review = reviewing ? "on" : "off";
  if (!board?.last_trick) state.showLastTrick = false;
  renderNamePrompt(view);
  renderDirectorCalls(view);
  renderSeating(view);
  const area = $("compass");
  area.replaceChildren();
  if (!board) {
    area.append(h("p", { class: "centre-note" }, view.match.finished ? "The match is over." : waitingText(view) ?? heldText(view.match) ?? "Waiting for the next board…"));
  } else if (reviewing) {
    // A board replayed at the same table in a later round (replay duplicate) is another review.
    const key = `review:${board.table}:${board.board}${(board.round ?? 1) > 1 ? `:${board.round}` : ""}`;
    area.append(replayView(board, { key, bottom: seat, me: seat, match: view.match, players: view.players }));
  } else {
    area.append(
      compass(board, {
        bottom: seat,
        me: seat,
        match: view.match,
        players: view.players,
        hands: visibleHands(board),
        middle: liveMiddle(board, seat, seat),
        dummyEnabled: canAct(),
      }),
    );
  }
  $("hand-area").hidden = reviewing;
  renderHand(board, seat);
  renderBiddingBox(board, seat);
  renderControls(board, seat, reviewing);
  renderClaimChoices(board);
  renderClaimPanel(view);
  renderUndoPanel(view);
  renderReview(view, reviewing);
  renderQuestions(board);
  renderDirectorForm(board);
  const played = board !== null && board.phase !== "auction";
  $("auction-review").hidden = !played;
  $("auction-side").replaceChildren(played ? auctionGrid(board, seat, "auction-played") : "");
  renderChat(view);
  placeMatchPanel(view.match.finished);
}

/** A player's match panel sits beside the table; at the end of the match, above it. */
function placeMatchPanel(finished) {
  const panel = $("match");
  if (finished && panel.parentElement !== $("main")) $("player").before(panel);
  else if (!finished && panel.previousElementSibling !== $("auction-review")) $("auction-review").after(panel);
}

function renderNamePrompt(view) {
  const info = person(view, view.seat);
  const show = info !== undefined && !info.name && !state.namePending && !state.nameDismissed;
  $("name-form").hidden = !show;
  $("name-send").disabled = !canAct();
}

/** What the table is told of a call for the director, by where the call stands. */
const CALL_STATES = {
  open: ["The director has been called", ". The director answers in the table chat."],
  seen: ["The director is on the way", ": the call has been seen."],
  answered: ["The director answered in the chat", "."],
};

function renderDirectorCalls(view) {
  const box = $("director-calls");
  // Not answered yet, then answered (a server before the calls' states sends no state).
  const calls = [...view.director_calls, ...(view.answered_calls ?? [])];
  box.hidden = !calls.length;
  box.replaceChildren(
    ...calls.map((call) => {
      const state = call.state ?? "open";
      const [headline, rest] = CALL_STATES[state] ?? CALL_STATES.open;
      return h(
        "p",
        { class: `director-call call-${state}`, "data-called-by": call.seat, "data-call-state": state },
        h("strong", {}, headline),
        ` (called by ${call.seat === view.seat ? "you" : seatWithName(person(view, call.seat), call.seat)}`,
        call.board !== null ? `, board ${call.board}` : "",
        call.text ? `: “${call.text}”` : "",
        ", ",
        clock(call.at, "ago"),
        `)${rest}`,
      );
    }),
  );
}

function renderHand(board, seat) {
  const hand = $("hand");
  hand.replaceChildren();
  if (!board) return;
  const cards = visibleHands(board)[seat] ?? [];
  const myTurn = board.phase === "play" && board.acting === seat && board.turn === seat;
  const legal = new Set(myTurn ? board.legal : []);
  const enabled = myTurn && canAct();
  hand.classList.toggle("my-turn", myTurn);
  hand.style.setProperty("--cards", String(Math.max(cards.length, 2)));
  hand.setAttribute("aria-label", `Your hand, ${SEAT_NAME[seat]}`);
  const groups = bySuit(cards);
  for (const suit of SUITS) {
    if (!groups[suit].length) continue;
    hand.append(
      h(
        "div",
        { class: `hand-suit suit-${suit}`, role: "group", "aria-label": { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" }[suit] },
        groups[suit].map((card) =>
          cardTile(card, { type: "button", disabled: !(enabled && legal.has(card)), class: `card suit-${card[0]}${legal.has(card) ? " legal" : ""}` }, "button"),
        ),
      ),
    );
  }
  if (!cards.length) hand.append(h("p", { class: "empty" }, "No cards left"));
}

function renderBiddingBox(board, seat) {
  const box = $("bidding-box");
  const show = board !== null && board.phase === "auction" && board.acting === seat && board.legal.length > 0;
  const wasHidden = box.hidden;
  box.hidden = !show;
  const specials = $("call-specials");
  const calls = $("calls");
  specials.replaceChildren();
  calls.replaceChildren();
  if (!show) {
    state.chosenCall = null;
    return;
  }
  const legal = new Set(board.legal);
  if (state.chosenCall !== null && !legal.has(state.chosenCall)) state.chosenCall = null;
  const confirming = settings.confirmBid;
  if (!confirming) state.chosenCall = null;
  $("confirm-bid").checked = confirming;
  const enabled = canAct();
  const button = (call, extra = "") =>
    h(
      "button",
      {
        type: "button",
        class: `call-button${extra}${state.chosenCall === call ? " chosen" : ""}`,
        "data-call": call,
        "aria-label": callName(call),
        "aria-pressed": confirming ? String(state.chosenCall === call) : null,
        disabled: !(enabled && legal.has(call)),
      },
      callNode(call),
    );
  specials.append(button("P", " pass"), button("X", " double"), button("XX", " redouble"));
  for (let level = 1; level <= 7; level += 1) {
    const bids = STRAINS.map((strain) => `${level}${strain}`);
    const any = bids.some((bid) => legal.has(bid));
    calls.append(h("div", { class: "call-row level", "data-level": level, hidden: !any }, bids.map((bid) => button(bid))));
  }
  $("confirm-row").hidden = !confirming;
  const confirm = $("call-confirm");
  confirm.disabled = !(confirming && state.chosenCall !== null && enabled);
  confirm.replaceChildren(...(state.chosenCall === null ? ["Choose a call, then confirm"] : ["Confirm ", callNode(state.chosenCall)]));
  $("call-cancel").disabled = state.chosenCall === null;
  // The box's first screen: Pass, Dbl, Rdbl, the alert and the three lowest levels open.
  if (wasHidden) scrollIntoViewIfNeeded([...calls.querySelectorAll(".level:not([hidden])")].slice(0, 3).pop() ?? box);
}

/** The row of buttons under the hand: the last trick, claim, undo, the director. */
function renderControls(board, seat, reviewing) {
  const controls = $("table-controls");
  controls.hidden = board === null;
  if (board === null) return;
  const inProgress = !reviewing && board.phase !== "finished";
  const inPlay = inProgress && board.contract !== null && board.phase !== "auction";
  if (!inPlay) {
    state.claimOpen = false;
    state.showLastTrick = false;
  }
  const ours = sideOf(seat) === "NS" ? board.tricks_ns : board.tricks_ew;
  const theirs = sideOf(seat) === "NS" ? board.tricks_ew : board.tricks_ns;
  $("tricks").textContent = inPlay ? `Tricks: you ${ours}, they ${theirs}` : "";
  $("tricks").hidden = !inPlay;
  const lastTrick = $("last-trick");
  lastTrick.hidden = !inPlay;
  lastTrick.disabled = !board.last_trick;
  lastTrick.setAttribute("aria-pressed", String(state.showLastTrick));
  const claim = $("claim");
  claim.hidden = !inPlay;
  const mayClaim = board.actions.includes("claim");
  claim.disabled = !(mayClaim && canAct());
  if (!mayClaim) state.claimOpen = false;
  claim.setAttribute("aria-expanded", String(state.claimOpen));
  const undo = $("undo");
  undo.hidden = !inProgress;
  undo.disabled = !(board.actions.includes("undo") && canAct());
  undo.title = board.actions.includes("undo") ? "Ask the opponents to let you take back your last call or card" : "You may take back only the table's last call or card, and only your own";
  $("call-director").disabled = !app.connection?.connected;
  $("call-director").setAttribute("aria-expanded", String(state.directorFormOpen));
}

function renderClaimChoices(board) {
  const choices = $("claim-choices");
  choices.hidden = !state.claimOpen;
  if (!state.claimOpen) {
    choices.replaceChildren();
    return;
  }
  const remaining = remainingTricks(board);
  if (state.claimTricks !== null && state.claimTricks > remaining) state.claimTricks = null;
  const numbers = [];
  for (let tricks = remaining; tricks >= 0; tricks -= 1) {
    numbers.push(
      h(
        "button",
        { type: "button", class: "claim-number", "data-claim": tricks, "aria-pressed": String(state.claimTricks === tricks) },
        String(tricks),
      ),
    );
  }
  const input = draftInput("claim-statement", { maxlength: 300, placeholder: "e.g. “draw trumps, then the clubs are good”" });
  choices.replaceChildren(
    h("p", { id: "claim-question" }, `Claim how many of the ${remaining} remaining tricks for your side?`),
    h("div", { class: "claim-numbers", role: "group", "aria-labelledby": "claim-question" }, numbers),
    h("label", { for: "claim-statement", class: "statement-field" }, h("span", {}, "How you will play the rest (optional)"), input),
    h(
      "div",
      { class: "claim-confirm" },
      h(
        "button",
        { type: "button", id: "claim-send", class: "primary", disabled: state.claimTricks === null || !canAct() },
        state.claimTricks === null ? "Choose a number" : state.claimTricks === 0 ? "Concede the rest" : `Claim ${state.claimTricks}`,
      ),
      h("button", { type: "button", id: "claim-cancel" }, "Cancel"),
    ),
  );
}

function renderClaimPanel(view) {
  const board = view.board;
  const panel = $("claim-panel");
  const claim = board?.claim;
  const show = claim && board.phase !== "finished" && ["pending", "rejected", "withdrawn"].includes(claim.status);
  panel.hidden = !show;
  panel.replaceChildren();
  if (!show) return;
  panel.dataset.claimStatus = claim.status;
  const seat = view.seat;
  const who = claim.claimer === seat ? "You claim" : `${seatWithName(person(view, claim.claimer), claim.claimer)} claims`;
  const what = `${claim.tricks} of the ${claim.remaining} remaining tricks`;
  if (claim.status !== "pending") {
    const verdict = claim.status === "rejected" ? "was rejected: play goes on." : "was withdrawn: play goes on.";
    panel.append(h("p", { class: "claim-status", "data-claim-status": claim.status }, `The claim (${what}) ${verdict}`));
    return;
  }
  panel.append(h("p", { class: "claim-text", "data-claim-tricks": claim.tricks }, `${who} ${what}.`));
  if (claim.statement) panel.append(h("p", { class: "claim-statement" }, h("span", { class: "label" }, "Line of play: "), `“${claim.statement}”`));
  if (claim.cards) {
    panel.append(
      h("div", { class: "claim-cards", role: "group", "aria-label": "The claimer's cards" }, sortHand(claim.cards).map((card) => cardTile(card, { "data-card": null }))),
    );
  }
  const waiting = claim.deciders.filter((s) => !claim.accepted.includes(s));
  if (board.actions.includes("claim_answer")) {
    panel.append(
      h(
        "div",
        { class: "claim-answer" },
        h("button", { type: "button", id: "claim-accept", class: "primary", disabled: !canAct() }, "Accept"),
        h("button", { type: "button", id: "claim-reject", class: "danger", disabled: !canAct() }, "Reject: play on"),
      ),
    );
  } else {
    panel.append(h("p", { class: "claim-status" }, `Waiting for ${seatsText(view, waiting)}.`));
  }
  if (board.actions.includes("withdraw_claim")) {
    panel.append(h("div", { class: "claim-answer" }, h("button", { type: "button", id: "claim-withdraw", disabled: !canAct() }, "Withdraw my claim")));
  }
}

function renderUndoPanel(view) {
  const board = view.board;
  const panel = $("undo-panel");
  const undo = board?.undo;
  const show = undo != null && board.phase !== "finished";
  panel.hidden = !show;
  panel.replaceChildren();
  if (!show) return;
  const seat = view.seat;
  const waiting = undo.deciders.filter((s) => !undo.accepted.includes(s));
  panel.dataset.undoSeat = undo.seat;
  if (board.actions.includes("undo_answer")) {
    panel.append(
      h("p", { class: "undo-text" }, `${seatWithName(person(view, undo.seat), undo.seat)} asks to take back `, undoWhat(undo, false), "."),
      h(
        "div",
        { class: "claim-answer" },
        h("button", { type: "button", id: "undo-agree", class: "primary", disabled: !canAct() }, "Agree"),
        h("button", { type: "button", id: "undo-refuse", class: "danger", disabled: !canAct() }, "Refuse"),
      ),
    );
    return;
  }
  const asker = undo.seat === seat ? "You ask" : `${seatWithName(person(view, undo.seat), undo.seat)} asks`;
  panel.append(
    h("p", { class: "undo-text" }, `${asker} to take back `, undoWhat(undo, undo.seat === seat), `: waiting for ${seatsText(view, waiting)}.`),
  );
}

/** What the review box was last drawn from: drawn again only when that changes. */
let reviewDrawn = null;

function renderReview(view, reviewing) {
  const box = $("review-controls");
  box.hidden = !reviewing;
  // Every render used to draw the box afresh: a click whose press and release fell on
  // either side of a render (the update of any action at the table) hit a button that was
  // no longer there, and was lost. The box is drawn only when what it shows changed (its
  // countdown ticks by itself, in place). Unlike director.js's memo, which hands the same
  // nodes back to be put in again, the box is not touched at all.
  const drawn = reviewing
    ? JSON.stringify([view.board, view.review, view.next_seat, view.players, view.waiting_for, view.played_round, canAct(), state.confirmWithdrawal])
    : null;
  if (drawn === reviewDrawn && box.childElementCount > 0) return;
  reviewDrawn = drawn;
  box.replaceChildren();
  if (!reviewing) return;
  const board = view.board;
  const review = view.review;
  const seat = view.seat;
  const claim = board.claim;
  // The table has played the round's boards: the match's last board when no round follows.
  const last = view.next_seat == null && hasPlayedRound(view);
  const roundOver = view.next_seat != null && hasPlayedRound(view);
  const ready = new Set(review.ready);
  const mayGo = board.actions.includes("next_board");
  const parts = [
    h("p", { class: "review-result" }, `Board ${board.board}: `, resultNode(board.result)),
    handviewerLink(board),
    claim && claim.status === "accepted"
      ? h(
          "p",
          { class: "claim-note" },
          `${claim.claimer === seat ? "You" : seatWithName(person(view, claim.claimer), claim.claimer)} claimed ${claim.tricks} of the last ${claim.remaining}`,
          claim.statement ? `: “${claim.statement}”` : "",
          ".",
        )
      : null,
    claim?.withdrawal
      ? h(
          "p",
          { class: "withdrawal-note", role: "status" },
          claim.withdrawal === seat ? "You asked" : `${seatWithName(person(view, claim.withdrawal), claim.withdrawal)} asked`,
          " the director to let the concession be withdrawn: the board stays as it is until the director decides.",
        )
      : null,
    h(
      "ul",
      { class: "ready-list", "aria-label": "Ready for the next board" },
      ["N", "E", "S", "W"].map((s) =>
        h(
          "li",
          { "data-ready": ready.has(s) ? "yes" : "no", "data-seat": s },
          ready.has(s) ? "✓ " : "… ",
          s === seat ? "You" : seatWithName(person(view, s), s),
        ),
      ),
    ),
    h(
      "div",
      { class: "button-row" },
      h(
        "button",
        { type: "button", id: "next-board", class: "primary", disabled: !(mayGo && canAct()) },
        mayGo ? (last ? "Done with the last board" : roundOver ? `On to round ${view.next_seat.round}` : "Next board") : "Waiting for the others…",
      ),
      claim?.withdrawal
        ? h("span", { class: "countdown" }, "(held for the director)")
        : h("span", { class: "countdown" }, last ? "(the match ends by itself in " : roundOver ? "(the round ends by itself in " : "(it starts by itself in ", clock(review.until, "in", { "data-countdown": "" }), ")"),
    ),
    withdrawalOffer(board),
  ];
  box.append(...parts.filter(Boolean));
}

/**
 * Withdrawing a concession (laws 69 and 71) is for the director to allow: the offer is a
 * quiet button under the review, and it asks first, saying so; never a one-tap change of a
 * finished board.
 */
function withdrawalOffer(board) {
  if (!board.actions.includes("withdraw_concession")) {
    state.confirmWithdrawal = false;
    return null;
  }
  if (!state.confirmWithdrawal) {
    return h("button", { type: "button", id: "withdraw-concession", class: "quiet", disabled: !canAct() }, "Withdraw the concession…");
  }
  return h(
    "div",
    { class: "withdraw-confirm", role: "group", "aria-labelledby": "withdraw-question" },
    h("p", { id: "withdraw-question" }, "Withdrawing a concession needs the director (laws 69 and 71): the director is called to your table, and the board stays finished until they decide. Call the director?"),
    h(
      "div",
      { class: "button-row" },
      h("button", { type: "button", id: "withdraw-confirm", class: "danger", disabled: !canAct() }, "Call the director to withdraw it"),
      h("button", { type: "button", id: "withdraw-cancel" }, "Keep the result"),
    ),
  );
}

function renderQuestions(board) {
  const box = $("questions");
  box.replaceChildren();
  if (!board || !board.questions.length) return;
  for (const index of board.questions) {
    const entry = board.auction[index];
    box.append(
      h(
        "p",
        { class: "question" },
        "An opponent asks what your ",
        callNode(entry.call),
        " means. ",
        h("button", { type: "button", "data-explain": index }, "Explain"),
      ),
    );
  }
}

function renderDirectorForm(board) {
  $("director-form").hidden = !state.directorFormOpen;
  $("director-send").disabled = !app.connection?.connected;
  if (!board) state.directorFormOpen = false;
}

function renderChat(view) {
  const seat = view.seat;
  const mode = view.match.chat;
  const between = !view.board || view.board.phase === "finished";
  const off = mode === "off" && !between;
  const input = $("chat-input");
  input.disabled = off;
  $("chat-send").disabled = off;
  $("chat-area").dataset.chat = off ? "off" : mode;
  const note = $("chat-note");
  if (off) note.textContent = "Chat is off during a board in this match: it opens between boards.";
  else if (between) note.textContent = "Between boards your lines reach all four players.";
  else if (mode === "opponents") note.textContent = "During a board your lines reach your opponents only, not your partner.";
  else note.textContent = "";
  note.hidden = !note.textContent;
  input.placeholder = off ? "Chat is off during the board" : between || mode === "table" ? "Message to your table" : "Message to your opponents";
  const log = $("chat-log");
  const key = JSON.stringify(view.chat);
  if (log.dataset.key === key) return;
  log.dataset.key = key;
  log.replaceChildren(
    ...view.chat.map((line) => {
      const from = line.seat === null ? "Director" : line.seat === seat ? "You" : seatWithName(person(view, line.seat), line.seat);
      const missesPartner = line.seat !== null && !line.to.includes(partner(line.seat));
      return h(
        "li",
        { class: line.seat === null ? "from-director" : null, "data-to": line.to.join("") },
        h("span", { class: "chat-seat" }, from),
        ": ",
        line.text,
        missesPartner ? h("span", { class: "chat-to" }, line.seat === seat ? " (to your opponents)" : " (not to their partner)") : null,
      );
    }),
  );
  log.scrollTop = log.scrollHeight;
}

// -- whose turn ------------------------------------------------------------------------------

/** Who the table waits for now, and a word of it. */
function turnText(view) {
  if (view.type !== "player_view") return { text: "", mine: false };
  const board = view.board;
  const seat = view.seat;
  const waitingFor = (seats, doing) => {
    const away = seats.map((s) => [s, person(view, s)]).find(([, info]) => isAway(info));
    if (!away) return null;
    const [s, info] = away;
    return { text: `Waiting for ${seatWithName(info, s)}, ${doing}`, away: info, mine: false };
  };
  if (view.match.finished && (!board || board.phase === "finished") && !isReviewing(view)) return { text: "The match is over.", mine: false };
  if (isReviewing(view)) {
    return { text: `Board ${board.board} is over: look it over, then go on when you are ready.`, mine: false };
  }
  if (hasRounds(view) && hasPlayedRound(view)) {
    const text = waitingText(view) ?? heldText(view.match) ?? moveText(view);
    if (text) return { text, mine: false };
  }
  if (!board) return { text: "Waiting for the next board…", mine: false };
  if (view.waiting_for_seats?.length) {
    const who = seatsText(view, view.waiting_for_seats);
    return { text: `Waiting for ${who} to come to the table: the board starts when all four are here.`, mine: false };
  }
  if (board.undo && board.phase !== "finished") {
    const undo = board.undo;
    const waiting = undo.deciders.filter((s) => !undo.accepted.includes(s));
    if (board.actions.includes("undo_answer")) return { text: `Your answer: ${SEAT_NAME[undo.seat]} asks to take back a ${undo.call ? "call" : "card"}`, mine: true };
    return waitingFor(waiting, "who must answer the undo request") ?? { text: `Waiting for ${seatsText(view, waiting)} to answer the undo request`, mine: false };
  }
  switch (board.phase) {
    case "auction":
      if (board.acting === seat) return { text: "Your turn to call", mine: true };
      return waitingFor([board.acting], "who must call") ?? { text: `${SEAT_NAME[board.turn]} to call`, mine: false };
    case "play":
      if (board.acting === seat) {
        if (board.turn === seat) return { text: "Your turn: play a card", mine: true };
        return { text: `Your turn: play from dummy (${SEAT_NAME[board.turn]})`, mine: true };
      }
      return (
        waitingFor([board.acting], "who must play") ??
        (board.turn === board.dummy
          ? { text: `${SEAT_NAME[board.declarer]} to play from dummy`, mine: false }
          : { text: `${SEAT_NAME[board.turn]} to play`, mine: false })
      );
    case "claim": {
      const claim = board.claim;
      if (board.actions.includes("claim_answer")) {
        return { text: `Your turn: accept or reject ${SEAT_NAME[claim.claimer]}'s claim`, mine: true };
      }
      const waiting = claim.deciders.filter((s) => !claim.accepted.includes(s));
      return waitingFor(waiting, "who must answer the claim") ?? { text: `${SEAT_NAME[claim.claimer]} claims ${claim.tricks}: waiting for the answer`, mine: false };
    }
    default:
      return { text: view.match.finished ? "The match is over." : "Board finished", mine: false };
  }
}

function renderTurn(view) {
  const { text, mine, away } = turnText(view);
  const turn = $("turn");
  turn.classList.toggle("mine", mine);
  turn.classList.toggle("waiting-away", Boolean(away));
  turn.hidden = !text;
  const key = `${text}|${away?.since ?? ""}`;
  if (state.turnKey !== key) {
    const since = away ? [" (", away.since == null ? awayText(away) : clock(away.since, "away-minutes", { class: "away-mark" }), ")"] : [];
    turn.replaceChildren(text, ...since);
    state.turnKey = key;
  }
  const board = view.type === "player_view" ? view.board : view.tables?.[0];
  const where = board ? `Board ${board.board} · ` : "";
  document.title = `${mine ? "▶ Your turn · " : ""}${where}Duplicate bridge`;
}

// -- rendering, keeping the focus where it was ----------------------------------------------

const FOCUS_KEYS = ["card", "call", "claim", "ask", "explain", "ruleTricks", "getBoard", "recordTable", "adjust", "answerTable"];

function focusSelector(element) {
  if (!element || element === document.body) return null;
  const data = element.dataset ?? {};
  if (data.replay !== undefined && data.move !== undefined) {
    return { selector: `[data-replay="${data.replay}"][data-move="${data.move}"]`, kind: "replay" };
  }
  if (data.director !== undefined) {
    return { selector: `[data-director="${data.director}"][data-table="${data.table ?? ""}"]`, kind: "director" };
  }
  for (const key of FOCUS_KEYS) {
    if (data[key] !== undefined) {
      const attribute = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      return { selector: `[data-${attribute}="${data[key]}"]`, kind: key };
    }
  }
  if (!element.id) return null;
  const caret = typeof element.selectionStart === "number" ? [element.selectionStart, element.selectionEnd] : null;
  return { selector: `#${CSS.escape(element.id)}`, kind: "id", caret };
}

let renderTimer = null;

/** Draw the page soon: a burst of updates (a table of robots) is drawn once. */
function renderSoon() {
  if (renderTimer === null) renderTimer = setTimeout(render, 15);
}

function render() {
  clearTimeout(renderTimer);
  renderTimer = null;
  const view = state.view;
  if (!view) return;
  const focused = focusSelector(document.activeElement);
  if (view.type === "player_view") renderPlayer(view);
  else renderWatch(view);
  renderTitle(view);
  renderRoundClock(view);
  checkDeals(view);
  renderMatch(view);
  renderTurn(view);
  if (focused && (document.activeElement === document.body || !document.activeElement?.isConnected)) {
    restoreFocus(focused);
  }
}

/**
 * The player's round clock in the top bar: the round's time left (a countdown by the
 * server's clock), "Time is up" once the server said so; nothing without a clock, before
 * the round's first call, or once the round's boards are played.
 */
function renderRoundClock(view) {
  const element = $("round-clock");
  const round = view.type === "player_view" ? view.clock : null;
  const shown = Boolean(round) && round.played < round.boards;
  element.hidden = !shown;
  const key = shown ? JSON.stringify([round.ends_at, round.due_at, round.time_up]) : "";
  if (element.dataset.key === key) return;
  element.dataset.key = key;
  element.dataset.timeUp = String(Boolean(round?.time_up));
  if (!shown) element.replaceChildren();
  else if (round.time_up) element.replaceChildren("Time is up");
  else element.replaceChildren(h("span", { class: "visually-hidden" }, "The round: "), clock(round.ends_at, "left"));
}

/** Once the match is over, its record is asked for once: are its deals the ones committed to? */
function checkDeals(view) {
  if (!view.match.finished || !view.match.deals_commitment || state.deals !== null) return;
  if (app.connection?.connected && app.connection.send({ type: "get_record" }, "deals check") !== null) {
    state.deals = "checking";
  }
}

/** The top bar names the player's seat and table: they change between rounds. */
function renderTitle(view) {
  if (view.type !== "player_view") return;
  const role = `${SEAT_NAME[view.seat]}, table ${view.table}`;
  const title = $("title");
  if (title.dataset.seat === role) return;
  title.dataset.seat = role;
  title.replaceChildren(h("span", { class: "app-name" }, "Duplicate bridge · "), role);
}

function restoreFocus({ selector, kind, caret }) {
  const same = document.querySelector(selector);
  if (same && !same.disabled && same.offsetParent !== null) {
    same.focus({ preventScroll: true });
    if (caret && typeof same.setSelectionRange === "function") same.setSelectionRange(caret[0], caret[1]);
    return;
  }
  const fallback =
    kind === "card" ? document.querySelector("button[data-card]:enabled") ?? $("hand")
      : kind === "call" ? document.querySelector("button[data-call]:enabled") ?? $("main")
        : $("main");
  fallback?.focus({ preventScroll: true });
}

function scrollIntoViewIfNeeded(element) {
  requestAnimationFrame(() => {
    const box = element.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) element.scrollIntoView({ block: "nearest", behavior: "smooth" });
  });
}

// -- messages to the user ---------------------------------------------------------------------

function who(view, seat) {
  if (seat === null || seat === undefined) return "The director";
  if (view.type === "player_view") {
    if (seat === view.seat) return "You";
    return seatWithName(person(view, seat), seat);
  }
  return SEAT_NAME[seat];
}

/** "Your 2♣" / "East's ♠4": the call or card an undo event is about, and whose it is. */
function taken(view, event) {
  const what = event.call ? callText(event.call) : cardPlain(event.card);
  const whose = view.type === "player_view" && event.seat === view.seat ? "Your" : `${SEAT_NAME[event.seat]}'s`;
  return `${whose} ${what}`;
}

/**
 * What to tell the viewer of each event: `(event, view, before)` gives a message, a
 * [message, kind] pair, or nothing. Table events reach a player of their own table only.
 */
const ANNOUNCEMENTS = {
  board_compared({ comparison: c }, view) {
    if (c.void) return `Board ${c.board} is void.`;
    if (!isTeamMatch(view.match)) {
      const points = view.type === "player_view" ? c.points?.[view.competitor] : undefined;
      if (points === undefined) return `Board ${c.board} compared.`;
      return `Board ${c.board} compared: you score ${pointsText(points, view.match.scoring, { signed: true })} ${scoringUnit(view.match.scoring)}.`;
    }
    if (c.swing === 0) return `Board ${c.board} compared: no swing.`;
    return `Board ${c.board} compared: ${Math.abs(c.swing)} IMPs to ${c.swing > 0 ? view.match.team_a : view.match.team_b}.`;
  },
  match_finished: () => "The match is over.",
  board_started: (event, view) => (view.type === "player_view" ? `Board ${event.board} has started.` : null),
  claim_answered: (event, view) => (event.accept ? null : [`${who(view, event.seat)} rejected the claim: play goes on.`, "error"]),
  claim_withdrawn: (event, view) => `${who(view, event.seat)} withdrew the claim: play goes on.`,
  concession_withdrawn: (event, view) => `${who(view, event.seat)} withdrew the concession: the play resumes.`,
  undo_requested(event, view) {
    const asker = who(view, event.seat);
    return `${asker} asked to take back ${asker === "You" ? "your" : "their"} ${event.call ? callText(event.call) : cardPlain(event.card)}.`;
  },
  undo_answered: (event, view) => [`${who(view, event.seat)} ${event.accept ? "agreed to" : "refused"} the undo.`, event.accept ? "info" : "error"],
  undone: (event, view) => `${taken(view, event)} was taken back.`,
  director_ruled: (event) => `The director ruled: declarer's side takes ${event.declarer_tricks} tricks.`,
  result_assigned: (event) => `The director assigned the result of board ${event.result.board} at table ${event.table}.`,
  director_called: (event, view) => (event.seat === view.seat ? null : `${who(view, event.seat)} called the director.`),
  director_calls_seen: (event) => `The director has seen the call at table ${event.table} and is on the way.`,
  director_calls_closed: (event) => `The director closed the call at table ${event.table}.`,
  time_up: (event, view) =>
    view.type === "player_view"
      ? ["The round's time is up: the director decides what happens (play on until told).", "info"]
      : [`Table ${event.table}: the round's time is up with boards still to play.`, view.mode === "director" ? "error" : "info"],
  seat_substituted: (event) => `${SEAT_NAME[event.seat]} at table ${event.table} has a new ${event.robot ? "robot" : "player"}.`,
  presence_changed(event, view, before) {
    if (view.type !== "player_view" || event.seat === view.seat || event.robot) return null;
    const joined = event.connected && before && person(before, event.seat)?.since == null;
    return `${who(view, event.seat)} ${joined ? "has joined the table" : event.connected ? "is back" : "is away"}.`;
  },
  question_asked: (event, view) => (view.type === "player_view" && event.seat !== view.seat ? `${SEAT_NAME[event.seat]} asks what your call means.` : null),
  chat_sent: (event, view) => (view.type === "player_view" && event.seat !== view.seat ? [`${who(view, event.seat)}: ${event.text}`, "chat"] : null),
};

/**
 * What a screen reader hears of each call and card (the live region #spoken): "East bids
 * 1 notrump", "East plays the queen of hearts", "North wins the trick"; a watcher hears the
 * table too. The turn, the results and the comparisons are spoken where they are shown.
 */
const SPOKEN = {
  call_made(event, view) {
    const [who, s] = spokenWho(view, event.seat);
    const call = { P: `pass${s ? "es" : ""}`, X: `double${s}`, XX: `redouble${s}` }[event.call] ?? `bid${s} ${callName(event.call)}`;
    return `${who} ${call}${event.alert ? `, alerted: ${event.alert}` : ""}.`;
  },
  card_played(event, view) {
    const [who, s] = spokenWho(view, event.seat);
    const spoken = `${who} play${s} the ${cardName(event.card)}.`;
    if (!event.trick_winner) return spoken;
    const [winner, ws] = spokenWho(view, event.trick_winner);
    return `${spoken} ${winner} win${ws} the trick.`;
  },
};

/** Who did it, and the verb's ending: ["You", ""] for the player, ["East", "s"]. */
function spokenWho(view, seat) {
  return view.type === "player_view" && seat === view.seat ? ["You", ""] : [SEAT_NAME[seat], "s"];
}

function announce(update, before) {
  const view = update.view;
  for (const event of update.events) {
    const spoken = SPOKEN[event.type];
    if (!spoken || (view.type === "player_view" && event.table !== view.table)) continue;
    const text = spoken(event, view);
    speak(view.type === "player_view" ? text : `Table ${event.table}: ${text}`);
  }
  if (view.type === "player_view" && before?.type === "player_view" && (view.round ?? 1) !== (before.round ?? 1)) {
    say(`Round ${view.round} has started: you are at table ${view.table}, ${SEAT_NAME[view.seat]}.`);
  }
  if (hasRounds(view)) {
    const move = moveText(view);
    if (move && move !== moveText(before)) say(move);
  }
  const held = heldText(view.match);
  if (held && held !== heldText(before?.match)) {
    say(view.mode === "director" ? `Round ${view.match.held_round} waits for you: start it when the tables are ready.` : held);
  }
  for (const event of update.events) {
    const tell = ANNOUNCEMENTS[event.type];
    if (!tell || (view.type === "player_view" && event.table !== undefined && event.table !== view.table)) continue;
    const message = tell(event, view, before);
    if (message) say(...(Array.isArray(message) ? message : [message]));
  }
}

function setStatus(kind, text) {
  const status = $("status");
  status.dataset.state = kind;
  $("status-text").textContent = text;
}

function showNotice(text, kind) {
  const notice = $("notice");
  clearTimeout(notice.timer);
  notice.className = `notice ${kind}`;
  notice.textContent = text;
  notice.hidden = false;
  if (kind === "back") notice.timer = setTimeout(() => { notice.hidden = true; }, 5000);
}

// -- after each update: what the page asks for itself -----------------------------------------

/** What is under the pointer on a player's board: when it changes, clicks wait a moment. */
function boardKey(view) {
  const board = view.type === "player_view" ? view.board : null;
  if (!board) return "";
  return JSON.stringify([board.board, board.phase, board.auction.length, board.current_trick?.cards, board.tricks_ns + board.tricks_ew, board.legal, board.actions]);
}

const requested = new Set();

/** Ask for the board the record panel shows (both tables' play), unless already there. */
function fetchRecord(view) {
  const board = recordBoard(view);
  if (board === null || state.records.has(board) || requested.has(board)) return;
  if (send({ type: "get_board", board }, `board ${board}`) !== null) requested.add(board);
}

/** A seat with no name: send the name this browser remembers, once per page. */
function offerName(view) {
  if (view.type !== "player_view" || state.nameOffered) return;
  const info = person(view, view.seat);
  const name = settings.name;
  if (!info || info.name || !name) return;
  state.nameOffered = true;
  sendName(name);
}

function sendName(name) {
  if (send({ type: "set_name", name }, "name") !== null) state.namePending = true;
}

function download(text, filename, lin = false) {
  const url = URL.createObjectURL(new Blob([text], { type: lin ? "text/plain" : "application/x-bridge-pbn" }));
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// -- the connection's handlers ----------------------------------------------------------------

const handlers = {
  welcome(message) {
    state.welcome = message;
    setServerNow(message.now);
    const role = { player: `${SEAT_NAME[message.seat]}, table ${message.table}`, spectator: "Spectator", director: "Director" }[message.role];
    $("title").replaceChildren(h("span", { class: "app-name" }, role ? "Duplicate bridge · " : "Duplicate bridge"), role ?? "");
    document.body.dataset.role = message.role;
    // A player's match panel sits beside the table, below the auction; a watcher's below both tables.
    if (message.role === "player") $("auction-review").after($("match"));
    if (message.role !== "player" && message.seq === 0 && state.view === null) {
      // A delayed spectator's log is empty until the first comparison.
      $("watch").hidden = false;
      $("tables").replaceChildren(h("p", { class: "centre-note" }, "Nothing to show yet: boards appear here once both tables have finished them."));
    }
  },
  update(update) {
    const before = state.view;
    const first = before === null;
    state.view = update.view;
    const key = boardKey(update.view);
    if (key !== state.boardKey) startGuard();
    state.boardKey = key;
    for (const event of update.events) {
      if (event.type === "board_compared") {
        state.records.delete(event.comparison.board);
        requested.delete(event.comparison.board);
      }
    }
    if (!first) announce(update, before);
    offerName(update.view);
    fetchRecord(update.view);
    renderSoon();
  },
  answer(message, request) {
    if (BUSY.has(request.type)) state.busy = false;
    if (request.type === "set_name") state.namePending = false;
    if (message.type === "lost") {
      if (request.type === "get_board") requested.delete(request.board); // asked again once back
      else say(`The connection dropped before the server answered your ${request.label}: check the table once it is back.`, "error");
    } else if (message.type === "moved_on") {
      say(`Your ${request.label} was not sent again: the table has moved on since (it shows whether it was made).`, "info");
    } else if (message.type === "error") {
      if (request.type === "get_board") requested.delete(request.board);
      say(`${request.label} refused: ${message.message}`, "error");
    } else {
      answered(message, request);
    }
    render();
  },
  refused(message) {
    say(message.message, "error");
  },
  status(kind, detail) {
    if (kind === "connected") {
      setStatus("connected", "Connected");
      if (state.wasLost) showNotice("Connection is back: the table is up to date.", "back");
      else $("notice").hidden = true;
      state.wasLost = false;
    } else if (kind === "connecting") {
      // Offline until the server has welcomed the page again.
      if (state.wasLost) setStatus("lost", "Offline");
      else setStatus("connecting", detail ? "Reconnecting…" : "Connecting…");
    } else if (kind === "lost") {
      setStatus("lost", "Offline");
      if (state.deals === "checking") state.deals = null; // its answer went with the connection: ask again once back
      if (!state.wasLost) document.body.dataset.drops = String(Number(document.body.dataset.drops ?? 0) + 1);
      state.wasLost = true;
      const when = detail > 0 ? `in ${Math.max(1, Math.round(detail / 1000))} s` : "now";
      showNotice(`Connection lost. Reconnecting ${when}… Your seat is kept and the table waits for you.`, "lost");
    } else if (kind === "failed") {
      setStatus("failed", "Not connected");
      showNotice(`Cannot join the table: ${detail}`, "failed");
    }
    render();
  },
};

/** A request the server accepted (an ack) or answered (a record, a new link). */
function answered(message, request) {
  if (request.label === "deals check") {
    state.deals =
      message.type === "match_record"
        ? checkRecord(message.record, state.view?.match.deals_commitment ?? "", state.view?.match.deals_seed_commitment ?? null)
        : { ok: false, reason: `the record could not be fetched (${message.message ?? message.type})` };
    render();
    return;
  }
  switch (message.type) {
    case "board_record":
      state.records.set(message.board, message);
      requested.delete(message.board);
      return;
    case "match_record": {
      const lin = message.format === "lin";
      download(message.record, `match-${state.view?.match.match_id ?? "record"}.${lin ? "lin" : "pbn"}`, lin);
      say(`The match record is saved (${lin ? "LIN" : "PBN"}).`);
      return;
    }
    case "substituted":
      state.substituted = { table: message.table, seat: message.seat, link: message.link };
      return;
    default:
      break;
  }
  switch (request.type) {
    case "call":
      $("alert-text").value = "";
      state.chosenCall = null;
      break;
    case "chat":
      if (request.table == null) $("chat-input").value = "";
      break;
    case "claim":
      state.claimOpen = false;
      state.claimTricks = null;
      state.drafts.delete("claim-statement");
      break;
    case "explain":
      closeExplain();
      break;
    case "ask":
      say("Asked: the explanation will show under the auction.");
      break;
    case "set_name":
      settings.name = request.name;
      say(`Welcome, ${request.name}.`);
      break;
    case "call_director":
      state.directorFormOpen = false;
      $("director-text").value = "";
      say("The director has been called to your table.");
      break;
    case "next_board":
      say("Ready: the next board starts when all four are.");
      break;
    default:
      break;
  }
}

// -- actions -----------------------------------------------------------------------------------

function openExplain(index) {
  const board = state.view?.board;
  if (!board) return;
  const entry = board.auction[index];
  state.explainIndex = index;
  const form = $("explain-form");
  $("explain-label").textContent = `Explain your ${callName(entry.call)} (to your opponents only):`;
  $("explain-text").value = entry.alert ?? "";
  form.hidden = false;
  $("explain-text").focus();
}

function closeExplain() {
  state.explainIndex = null;
  $("explain-form").hidden = true;
}

function makeCall(call) {
  const alert = $("alert-text").value.trim();
  send({ type: "call", call, alert: alert ? alert : null }, `call ${call}`);
}

/** A click on a card or a call: ignored while the view just changed under it. */
function playOrCall(data) {
  if (guarded()) {
    document.body.dataset.ignored = String(Number(document.body.dataset.ignored ?? 0) + 1);
    return;
  }
  if (data.card !== undefined) {
    state.showLastTrick = false;
    send({ type: "card", card: data.card }, `card ${data.card}`);
  } else if (settings.confirmBid) {
    state.chosenCall = state.chosenCall === data.call ? null : data.call;
    render();
  } else {
    makeCall(data.call);
  }
}

/** The director's buttons at a table (and "void" for the match). */
function directorAction(button) {
  const table = Number(button.dataset.table);
  switch (button.dataset.director) {
    case "undo":
      if (window.confirm(`Take back the last call or card at table ${table}?`)) send({ type: "undo", table }, "undo");
      break;
    case "undo-allow":
      send({ type: "undo_answer", accept: true, table }, "decision on the undo");
      break;
    case "undo-refuse":
      send({ type: "undo_answer", accept: false, table }, "decision on the undo");
      break;
    case "withdrawal-allow":
      if (window.confirm(`Allow the withdrawal of the concession at table ${table}? The play resumes where the claim stopped it.`)) {
        send({ type: "decide_withdrawal", table, allow: true }, "decision on the withdrawal");
      }
      break;
    case "withdrawal-refuse":
      send({ type: "decide_withdrawal", table, allow: false }, "decision on the withdrawal");
      break;
    case "substitute":
    case "substitute-robot": {
      const seat = $(`substitute-seat-${table}`).value;
      const robot = button.dataset.director === "substitute-robot";
      const what = robot ? "the server's robot" : "a new player (a new link; the old one stops working)";
      if (window.confirm(`Give ${SEAT_NAME[seat]} at table ${table} to ${what}?`)) {
        send({ type: "substitute", table, seat, robot }, "substitution");
      }
      break;
    }
    case "start-round": {
      const round = Number(button.dataset.round);
      if (window.confirm(`Start round ${round} now? Every table starts it at once.`)) {
        send({ type: "start_round", round }, `start of round ${round}`);
      }
      break;
    }
    case "see-calls":
      send({ type: "see_calls", table }, "call seen");
      break;
    case "close-calls":
      if (window.confirm(`Close the calls for the director at table ${table}? The banner goes from the players' screens.`)) {
        send({ type: "close_calls", table }, "calls closed");
      }
      break;
    case "void": {
      const board = Number($("adjust-board").value);
      const nobody = isTeamMatch(state.view.match) ? "neither team" : "no one";
      if (window.confirm(`Void board ${board}? It then counts for ${nobody}.`)) send({ type: "void_board", board }, "void board");
      break;
    }
    default:
      break;
  }
}

function adjust(imps) {
  const board = Number($("adjust-board").value);
  if (Number.isNaN(imps) || imps < -24 || imps > 24) {
    say("An adjusted score is between −24 and 24 IMPs.", "error");
    return;
  }
  if (window.confirm(`Board ${board}: artificial adjusted score, ${imps} IMPs to ${state.view.match.team_a}?`)) {
    send({ type: "adjust_score", board, imps_a: imps }, "adjusted score");
  }
}

function onClick(event) {
  const button = event.target.closest("button");
  if (!button || button.disabled) return;
  const data = button.dataset;
  if (data.card !== undefined || data.call !== undefined) {
    playOrCall(data);
  } else if (data.claim !== undefined) {
    state.claimTricks = Number(data.claim);
    render();
  } else if (data.ask !== undefined) {
    const entry = state.view.board.auction[Number(data.ask)];
    if (entry.alert) say(`${SEAT_NAME[entry.seat]}'s ${callName(entry.call)}: ${entry.alert}`);
    else send({ type: "ask", index: Number(data.ask) }, `question about ${SEAT_NAME[entry.seat]}'s ${callName(entry.call)}`);
  } else if (data.explain !== undefined) {
    openExplain(Number(data.explain));
  } else if (data.ruleTricks !== undefined) {
    const table = Number(data.ruleTable);
    const tricks = Number(data.ruleTricks);
    if (window.confirm(`Rule: declarer's side takes ${tricks} tricks in all at table ${table}?`)) {
      send({ type: "rule", table, declarer_tricks: tricks }, "ruling");
    }
  } else if (data.replay !== undefined) {
    state.replay.set(data.replay, Number(data.step));
    render();
  } else if (data.recordTable !== undefined) {
    state.recordTable.set(Number(data.recordBoard), `${data.recordRound ?? 1}:${data.recordTable}`);
    render();
  } else if (data.getBoard !== undefined) {
    state.recordBoard = Number(data.getBoard);
    fetchRecord(state.view);
    render();
    $("comparison").scrollIntoView({ block: "start" });
  } else if (data.director !== undefined) {
    directorAction(button);
  } else if (data.adjust !== undefined) {
    adjust(Number(data.adjust));
  } else if (data.answerTable !== undefined) {
    $(`director-chat-${data.answerTable}`)?.focus();
  } else if (data.copy !== undefined) {
    const input = $(data.copy);
    input.select();
    navigator.clipboard?.writeText(input.value).then(() => say("Link copied."), () => say("Select the link and copy it."));
  } else {
    onButton(button);
  }
}

function onButton(button) {
  switch (button.id) {
    case "last-trick":
      state.showLastTrick = !state.showLastTrick;
      render();
      break;
    case "claim":
      state.claimOpen = !state.claimOpen;
      state.claimTricks = null;
      render();
      if (state.claimOpen) document.querySelector("[data-claim]")?.focus();
      break;
    case "claim-send":
      if (state.claimTricks !== null) {
        const statement = (state.drafts.get("claim-statement") ?? "").trim();
        send({ type: "claim", tricks: state.claimTricks, statement: statement || null }, "claim");
      }
      break;
    case "claim-cancel":
      state.claimOpen = false;
      render();
      $("claim").focus();
      break;
    case "claim-accept":
      send({ type: "claim_answer", accept: true }, "answer to the claim");
      break;
    case "claim-reject":
      send({ type: "claim_answer", accept: false }, "answer to the claim");
      break;
    case "claim-withdraw":
      send({ type: "withdraw_claim" }, "withdrawal of the claim");
      break;
    case "withdraw-concession":
      state.confirmWithdrawal = true;
      render();
      $("withdraw-cancel")?.focus();
      break;
    case "withdraw-confirm":
      state.confirmWithdrawal = false;
      send({ type: "withdraw_concession" }, "request to withdraw the concession");
      break;
    case "withdraw-cancel":
      state.confirmWithdrawal = false;
      render();
      break;
    case "undo":
      send({ type: "undo" }, "undo request");
      break;
    case "undo-agree":
      send({ type: "undo_answer", accept: true }, "answer to the undo");
      break;
    case "undo-refuse":
      send({ type: "undo_answer", accept: false }, "answer to the undo");
      break;
    case "next-board":
      send({ type: "next_board" }, "next board");
      break;
    case "call-confirm":
      if (guarded()) return;
      if (state.chosenCall !== null) makeCall(state.chosenCall);
      break;
    case "call-cancel":
      state.chosenCall = null;
      render();
      break;
    case "call-director":
      state.directorFormOpen = !state.directorFormOpen;
      render();
      if (state.directorFormOpen) $("director-text").focus();
      break;
    case "director-cancel":
      state.directorFormOpen = false;
      render();
      $("call-director").focus();
      break;
    case "download-record":
      send({ type: "get_record" }, "match record");
      break;
    case "download-lin":
      send({ type: "get_record", format: "lin" }, "match record");
      break;
    case "name-later":
      state.nameDismissed = true;
      render();
      break;
    case "record-close":
      state.recordBoard = null;
      render();
      break;
    case "explain-cancel":
      closeExplain();
      break;
    default:
      break;
  }
}

function onSubmit(event) {
  const form = event.target;
  event.preventDefault();
  switch (form.id || form.dataset.form) {
    case "chat-form": {
      const text = $("chat-input").value.trim();
      if (text) send({ type: "chat", text }, "chat message");
      break;
    }
    case "explain-form": {
      const text = $("explain-text").value.trim();
      if (text && state.explainIndex !== null) send({ type: "explain", index: state.explainIndex, text }, "explanation");
      break;
    }
    case "name-form": {
      const name = $("name-input").value.trim();
      if (name) sendName(name);
      break;
    }
    case "director-form": {
      const text = $("director-text").value.trim();
      send({ type: "call_director", text: text || null }, "call for the director");
      break;
    }
    case "director-chat": {
      const table = Number(form.dataset.table);
      const text = takeDraft(`director-chat-${table}`);
      if (text) send({ type: "chat", text, table }, `message to table ${table}`);
      break;
    }
    case "assign":
      assignResult(Number(form.dataset.table));
      break;
    case "adjust":
      adjust(Number($("adjust-imps").value));
      break;
    default:
      break;
  }
}

function assignResult(table) {
  const field = (name) => $(`assign-${name}-${table}`).value.trim();
  const board = Number(field("board"));
  const contract = field("contract").toUpperCase();
  const passed = contract === "PASS" || contract === "P";
  if (!passed && !/^[1-7]([CDHS]|NT)(X|XX)?$/.test(contract)) {
    say("Write the contract like 4S, 3NTX or 2HXX, or Pass.", "error");
    return;
  }
  const tricks = passed ? 0 : Number(field("tricks"));
  if (!passed && !(Number.isInteger(tricks) && tricks >= 0 && tricks <= 13)) {
    say("Declarer's tricks: a number from 0 to 13.", "error");
    return;
  }
  const declarer = passed ? null : field("declarer");
  const what = passed ? "passed out" : `${contract} by ${declarer}, ${tricks} tricks`;
  if (window.confirm(`Assign table ${table}'s result on board ${board}: ${what}?`)) {
    send({ type: "assign_result", table, board, contract: passed ? null : contract, declarer, tricks }, "assigned result");
  }
}

function onInput(event) {
  const input = event.target;
  if (input.dataset?.draft !== undefined && input.id) state.drafts.set(input.id, input.value);
  if (input.id === "confirm-bid" && event.type === "change") {
    settings.confirmBid = input.checked;
    state.chosenCall = null;
    render();
  }
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select")) return;
  const board = state.view?.type === "player_view" ? state.view.board : null;
  const key = event.key.toLowerCase();
  if (key === "l" && !$("last-trick").disabled && !$("table-controls").hidden) {
    $("last-trick").click();
    return;
  }
  if (!board) return;
  let target = null;
  if (board.phase === "play" && "shdc".includes(key) && key.length === 1) {
    target = document.querySelector(`button[data-card^="${key.toUpperCase()}"]:enabled`);
  } else if (board.phase === "auction" && key === "p") {
    target = document.querySelector('button[data-call="P"]:enabled');
  } else if (board.phase === "auction" && /^[1-7]$/.test(key)) {
    target = document.querySelector(`[data-level="${key}"] button[data-call]:enabled`);
  } else if (board.phase === "auction" && key === "x") {
    target = document.querySelector('button[data-call="X"]:enabled, button[data-call="XX"]:enabled');
  }
  if (target) {
    event.preventDefault();
    target.focus();
  }
}

function start() {
  app.render = render;
  document.body.dataset.guard = "off";
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("submit", onSubmit);
  document.addEventListener("input", onInput);
  document.addEventListener("change", onInput);
  setInterval(() => {
    tickClocks();
    if (state.view) renderTurn(state.view);
  }, 1000);
  const token = decodeURIComponent(location.hash.slice(1));
  if (!token) {
    setStatus("failed", "No link");
    showNotice("This page needs a join link with its token, like …/play#TOKEN: ask the organiser for yours.", "failed");
    return;
  }
  app.connection = new Connection(socketUrl(location), token, handlers);
  app.connection.start();
}

start();

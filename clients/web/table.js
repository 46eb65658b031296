// The browser table: one page for the three join links (/play, /watch, /direct). It reads
// the token after '#', connects, and draws the latest view the server sent; every action
// is a protocol message with a ref, answered by an ack or an error (protocol/SPEC.md).

import { SEAT_LETTER, SEAT_NAME, STRAINS, SUITS, bySuit, callName, callText, cardName, cardPlain, partner, sideOf, sortHand } from "./bridge.js";
import { auctionGrid, compass, teamName } from "./compass.js";
import { Connection, socketUrl } from "./connection.js";
import { renderWatch } from "./director.js";
import { checkRecord } from "./deals.js";
import { serverCallText } from "./errors.js";
import { errorText } from "./errors.js";
import { language, localized, t, tx } from "./i18n.js";
import {
  $, awayText, callNode, cardText, cardTile, clock, h, isAway, personAt, resultNode, seatWithName, setServerNow, tickClocks,
} from "./dom.js";
import { liveMiddle } from "./live.js";
import { handviewerLink, recordBoard, renderMatch, replayView } from "./match.js";
import { hasPlayedRound, hasRounds, heldText, isTeamMatch, meetingOf, moveText, pointsText, renderSeating, scoringUnit, waitingText } from "./movement.js";
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

/** "East and West": the seats, each with its player's name. */
function seatsText(view, seats) {
  const names = seats.map((seat) => seatWithName(person(view, seat), seat));
  return names.length ? names.reduce((first, second) => t("{first} and {second}", { first, second })) : "";
}

/** The call or card (1♣, ♠4) an undo request would take back. */
function undoWhat(undo) {
  return undo.call ? callNode(undo.call) : cardText(undo.card);
}

/** Whether `seat` is the viewer's own seat (the texts then say "You"). */
function isMine(view, seat) {
  return view.type === "player_view" && seat != null && seat === view.seat;
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
    area.append(h("p", { class: "centre-note" }, view.match.finished ? t("The match is over.") : waitingText(view) ?? heldText(view.match) ?? t("Waiting for the next board…")));
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
        middle: liveMiddle(board, seat, seat, view.face_down_lead),
        dummyEnabled: canAct(),
      }),
    );
  }
  $("hand-area").hidden = reviewing;
  renderHand(board, seat);
  renderBiddingBox(board, seat);
  renderControls(board, seat, reviewing);
  renderFaceLead(view);
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

/**
 * What the table is told of a call for the director, by where the call stands: the headline
 * (in bold) and the details (who called, the board, the words, when) in one sentence.
 */
function callStateLine(state, details) {
  switch (state) {
    case "seen":
      return tx("{headline} {details}: the call has been seen.", { headline: h("strong", {}, t("The director is on the way")), details });
    case "answered":
      return tx("{headline} {details}.", { headline: h("strong", {}, t("The director answered in the chat")), details });
    default:
      return tx("{headline} {details}. The director answers in the table chat.", { headline: h("strong", {}, t("The director has been called")), details });
  }
}

/** "(called by East (Bob), board 3: “revoke?”, 2 min ago)". */
function callDetails(view, call) {
  const by = call.seat === view.seat ? t("called by you") : t("called by {who}", { who: seatWithName(person(view, call.seat), call.seat) });
  const when = clock(call.at, "ago");
  const text = serverCallText(call.text);
  if (call.board !== null && text) return tx("({by}, board {board}: “{text}”, {when})", { by, board: call.board, text, when });
  if (call.board !== null) return tx("({by}, board {board}, {when})", { by, board: call.board, when });
  if (text) return tx("({by}: “{text}”, {when})", { by, text, when });
  return tx("({by}, {when})", { by, when });
}

function renderDirectorCalls(view) {
  const box = $("director-calls");
  // Not answered yet, then answered (a server before the calls' states sends no state).
  const calls = [...view.director_calls, ...(view.answered_calls ?? [])];
  box.hidden = !calls.length;
  box.replaceChildren(
    ...calls.map((call) => {
      const state = call.state ?? "open";
      return h(
        "p",
        { class: `director-call call-${state}`, "data-called-by": call.seat, "data-call-state": state },
        callStateLine(state, callDetails(view, call)),
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
  hand.setAttribute("aria-label", t("Your hand, {seat}", { seat: SEAT_NAME[seat] }));
  const groups = bySuit(cards);
  for (const suit of SUITS) {
    if (!groups[suit].length) continue;
    hand.append(
      h(
        "div",
        { class: `hand-suit suit-${suit}`, role: "group", "aria-label": SUIT_GROUP[suit] },
        groups[suit].map((card) =>
          cardTile(card, { type: "button", disabled: !(enabled && legal.has(card)), class: `card suit-${card[0]}${legal.has(card) ? " legal" : ""}` }, "button"),
        ),
      ),
    );
  }
  if (!cards.length) hand.append(h("p", { class: "empty" }, t("No cards left")));
}

/** The name of each suit's group of cards in the hand. */
const SUIT_GROUP = localized({ S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" });

function renderBiddingBox(board, seat) {
  const box = $("bidding-box");
  const show = board !== null && board.phase === "auction" && board.acting === seat && board.legal.length > 0;
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
  confirm.replaceChildren(...(state.chosenCall === null ? [t("Choose a call, then confirm")] : tx("Confirm {call}", { call: callNode(state.chosenCall) })));
  $("call-cancel").disabled = state.chosenCall === null;
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
  $("tricks").textContent = inPlay ? t("Tricks: you {ours}, they {theirs}", { ours, theirs }) : "";
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
  undo.title = board.actions.includes("undo")
    ? t("Ask the opponents to let you take back your last call or card")
    : t("You may take back only the table's last call or card, and only your own");
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
  const input = draftInput("claim-statement", { maxlength: 300, placeholder: t("e.g. “draw trumps, then the clubs are good”") });
  choices.replaceChildren(
    h("p", { id: "claim-question" }, t("Claim how many of the {n} remaining tricks for your side?", { n: remaining })),
    h("div", { class: "claim-numbers", role: "group", "aria-labelledby": "claim-question" }, numbers),
    h("label", { for: "claim-statement", class: "statement-field" }, h("span", {}, t("How you will play the rest (optional)")), input),
    h(
      "div",
      { class: "claim-confirm" },
      h(
        "button",
        { type: "button", id: "claim-send", class: "primary", disabled: state.claimTricks === null || !canAct() },
        state.claimTricks === null ? t("Choose a number") : state.claimTricks === 0 ? t("Concede the rest") : t("Claim {n}", { n: state.claimTricks }),
      ),
      h("button", { type: "button", id: "claim-cancel" }, t("Cancel")),
    ),
  );
}

/**
 * The opening lead made face down (law 41A): the leader's partner may ask about the
 * auction (a tap on an opponent's call), then faces it; the others wait.
 */
function renderFaceLead(view) {
  const panel = $("face-lead");
  const lead = view.face_down_lead;
  const board = view.board;
  const mine = Boolean(lead && board?.actions.includes("face_lead"));
  panel.hidden = !mine;
  if (!mine) {
    panel.replaceChildren();
    delete panel.dataset.key;
    return;
  }
  const key = JSON.stringify([lead, canAct(), language()]);
  if (panel.dataset.key === key) return; // drawn once: a render must not swallow the tap
  panel.dataset.key = key;
  panel.replaceChildren(
    h("p", {}, t("Your partner led face down. Ask about the opponents' calls now if you wish (tap a call in the auction), then face the lead.")),
    h("button", { type: "button", id: "face-lead-send", class: "primary", disabled: !canAct() }, t("Face the lead")),
  );
}

function renderClaimPanel(view) {
  const board = view.board;
  const panel = $("claim-panel");
  const claim = board?.claim;
  const show = claim && board.phase !== "finished" && ["pending", "rejected", "withdrawn", "disputed"].includes(claim.status);
  panel.hidden = !show;
  panel.replaceChildren();
  if (!show) return;
  panel.dataset.claimStatus = claim.status;
  const seat = view.seat;
  const counts = { tricks: claim.tricks, n: claim.remaining };
  if (claim.status === "disputed") {
    // Law 68D: play has ceased; the director rules (law 70) on the claim and its statement.
    panel.append(
      h(
        "p",
        { class: "claim-status", "data-claim-status": "disputed", role: "status" },
        claim.disputed_by === seat
          ? t("You disputed the claim ({tricks} of the {n} remaining tricks): play has stopped, and the director is called to rule on it.", counts)
          : t("{who} disputed the claim ({tricks} of the {n} remaining tricks): play has stopped, and the director is called to rule on it.", {
              who: seatWithName(person(view, claim.disputed_by), claim.disputed_by),
              ...counts,
            }),
      ),
    );
    if (claim.statement) {
      panel.append(h("p", { class: "claim-statement" }, h("span", { class: "label" }, t("Line of play:"), " "), t("“{text}”", { text: claim.statement })));
    }
    if (claim.cards) {
      panel.append(
        h("div", { class: "claim-cards", role: "group", "aria-label": t("The claimer's cards") }, sortHand(claim.cards).map((card) => cardTile(card, { "data-card": null }))),
      );
    }
    return;
  }
  if (claim.status !== "pending") {
    const verdict =
      claim.status === "rejected"
        ? t("The claim ({tricks} of the {n} remaining tricks) was rejected: play goes on.", counts)
        : t("The claim ({tricks} of the {n} remaining tricks) was withdrawn: play goes on.", counts);
    panel.append(h("p", { class: "claim-status", "data-claim-status": claim.status }, verdict));
    return;
  }
  const text =
    claim.claimer === seat
      ? t("You claim {tricks} of the {n} remaining tricks.", counts)
      : t("{who} claims {tricks} of the {n} remaining tricks.", { who: seatWithName(person(view, claim.claimer), claim.claimer), ...counts });
  panel.append(h("p", { class: "claim-text", "data-claim-tricks": claim.tricks }, text));
  if (claim.statement) {
    panel.append(h("p", { class: "claim-statement" }, h("span", { class: "label" }, t("Line of play:"), " "), t("“{text}”", { text: claim.statement })));
  }
  if (claim.cards) {
    panel.append(
      h("div", { class: "claim-cards", role: "group", "aria-label": t("The claimer's cards") }, sortHand(claim.cards).map((card) => cardTile(card, { "data-card": null }))),
    );
  }
  const waiting = claim.deciders.filter((s) => !claim.accepted.includes(s));
  if (board.actions.includes("claim_answer")) {
    panel.append(
      h(
        "div",
        { class: "claim-answer" },
        h("button", { type: "button", id: "claim-accept", class: "primary", disabled: !canAct() }, t("Accept")),
        h("button", { type: "button", id: "claim-reject", class: "danger", disabled: !canAct() }, t("Reject: play on")),
      ),
    );
  } else {
    panel.append(h("p", { class: "claim-status" }, t("Waiting for {seats}.", { seats: seatsText(view, waiting) })));
  }
  if (board.actions.includes("withdraw_claim")) {
    panel.append(h("div", { class: "claim-answer" }, h("button", { type: "button", id: "claim-withdraw", disabled: !canAct() }, t("Withdraw my claim"))));
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
  const who = seatWithName(person(view, undo.seat), undo.seat);
  if (board.actions.includes("undo_answer")) {
    panel.append(
      h("p", { class: "undo-text" }, ...tx("{who} asks to take back their {what}.", { who, what: undoWhat(undo) })),
      h(
        "div",
        { class: "claim-answer" },
        h("button", { type: "button", id: "undo-agree", class: "primary", disabled: !canAct() }, t("Agree")),
        h("button", { type: "button", id: "undo-refuse", class: "danger", disabled: !canAct() }, t("Refuse")),
      ),
    );
    return;
  }
  const seats = seatsText(view, waiting);
  panel.append(
    h(
      "p",
      { class: "undo-text" },
      ...(undo.seat === seat
        ? tx("You ask to take back your {what}: waiting for {seats}.", { what: undoWhat(undo), seats })
        : tx("{who} asks to take back their {what}: waiting for {seats}.", { who, what: undoWhat(undo), seats })),
    ),
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
  // countdown ticks by itself, in place), and is not touched at all otherwise (as
  // director.js's parts: put in again, even the same nodes, a button loses the click).
  const drawn = reviewing
    ? JSON.stringify([view.board, view.review, view.next_seat, view.players, view.waiting_for, view.played_round, canAct(), state.confirmWithdrawal, language()])
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
  const countdown = () => {
    const time = clock(review.until, "in", { "data-countdown": "" });
    if (last) return tx("(the match ends by itself in {time})", { time });
    if (roundOver) return tx("(the round ends by itself in {time})", { time });
    return tx("(it starts by itself in {time})", { time });
  };
  const parts = [
    h("p", { class: "review-result" }, ...tx("Board {board}: {result}", { board: board.board, result: resultNode(board.result) })),
    handviewerLink(board),
    claim && claim.status === "accepted" ? h("p", { class: "claim-note" }, claimNote(view, claim), ".") : null,
    claim?.withdrawal
      ? h(
          "p",
          { class: "withdrawal-note", role: "status" },
          claim.withdrawal === seat
            ? t("You asked the director to let the concession be withdrawn: the board stays as it is until the director decides.")
            : t("{who} asked the director to let the concession be withdrawn: the board stays as it is until the director decides.", {
                who: seatWithName(person(view, claim.withdrawal), claim.withdrawal),
              }),
        )
      : null,
    h(
      "ul",
      { class: "ready-list", "aria-label": t("Ready for the next board") },
      ["N", "E", "S", "W"].map((s) =>
        h(
          "li",
          { "data-ready": ready.has(s) ? "yes" : "no", "data-seat": s },
          ready.has(s) ? "✓ " : "… ",
          s === seat ? t("You") : seatWithName(person(view, s), s),
        ),
      ),
    ),
    h(
      "div",
      { class: "button-row" },
      h(
        "button",
        { type: "button", id: "next-board", class: "primary", disabled: !(mayGo && canAct()) },
        mayGo
          ? last
            ? t("Done with the last board")
            : roundOver
              ? t("On to round {round}", { round: view.next_seat.round })
              : t("Next board")
          : t("Waiting for the others…"),
      ),
      claim?.withdrawal ? h("span", { class: "countdown" }, t("(held for the director)")) : h("span", { class: "countdown" }, ...countdown()),
    ),
    withdrawalOffer(board),
  ];
  box.append(...parts.filter(Boolean));
}

/** "You claimed 9 of the last 10: “…”": an accepted claim, as the review tells it. */
function claimNote(view, claim) {
  const counts = { tricks: claim.tricks, remaining: claim.remaining };
  if (claim.claimer === view.seat) {
    return claim.statement
      ? t("You claimed {tricks} of the last {remaining}: “{statement}”", { ...counts, statement: claim.statement })
      : t("You claimed {tricks} of the last {remaining}", counts);
  }
  const seat = seatWithName(person(view, claim.claimer), claim.claimer);
  return claim.statement
    ? t("{seat} claimed {tricks} of the last {remaining}: “{statement}”", { seat, ...counts, statement: claim.statement })
    : t("{seat} claimed {tricks} of the last {remaining}", { seat, ...counts });
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
    return h("button", { type: "button", id: "withdraw-concession", class: "quiet", disabled: !canAct() }, t("Withdraw the concession…"));
  }
  return h(
    "div",
    { class: "withdraw-confirm", role: "group", "aria-labelledby": "withdraw-question" },
    h(
      "p",
      { id: "withdraw-question" },
      t("Withdrawing a concession needs the director (laws 69 and 71): the director is called to your table, and the board stays finished until they decide. Call the director?"),
    ),
    h(
      "div",
      { class: "button-row" },
      h("button", { type: "button", id: "withdraw-confirm", class: "danger", disabled: !canAct() }, t("Call the director to withdraw it")),
      h("button", { type: "button", id: "withdraw-cancel" }, t("Keep the result")),
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
        ...tx("An opponent asks what your {call} means.", { call: callNode(entry.call) }),
        " ",
        h("button", { type: "button", "data-explain": index }, t("Explain")),
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
  if (off) note.textContent = t("Chat is off during a board in this match: it opens between boards.");
  else if (between) note.textContent = t("Between boards your lines reach all four players.");
  else if (mode === "opponents") note.textContent = t("During a board your lines reach your opponents only, not your partner.");
  else note.textContent = "";
  note.hidden = !note.textContent;
  input.placeholder = off
    ? t("Chat is off during the board")
    : between || mode === "table"
      ? t("Message to your table")
      : t("Message to your opponents");
  const log = $("chat-log");
  const key = JSON.stringify([view.chat, language()]);
  if (log.dataset.key === key) return;
  log.dataset.key = key;
  log.replaceChildren(
    ...view.chat.map((line) => {
      const from = line.seat === null ? t("Director") : line.seat === seat ? t("You") : seatWithName(person(view, line.seat), line.seat);
      const missesPartner = line.seat !== null && !line.to.includes(partner(line.seat));
      return h(
        "li",
        { class: line.seat === null ? "from-director" : null, "data-to": line.to.join("") },
        h("span", { class: "chat-seat" }, from),
        ": ",
        line.text,
        missesPartner ? h("span", { class: "chat-to" }, " ", line.seat === seat ? t("(to your opponents)") : t("(not to their partner)")) : null,
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
  /** The first of `seats` whose player is away: "Waiting for East (Bob), who must call". */
  const waitingFor = (seats, text) => {
    const away = seats.map((s) => [s, person(view, s)]).find(([, info]) => isAway(info));
    if (!away) return null;
    const [s, info] = away;
    return { text: text(seatWithName(info, s)), away: info, mine: false };
  };
  if (view.match.finished && (!board || board.phase === "finished") && !isReviewing(view)) return { text: t("The match is over."), mine: false };
  if (isReviewing(view)) {
    return { text: t("Board {board} is over: look it over, then go on when you are ready.", { board: board.board }), mine: false };
  }
  if (hasRounds(view) && hasPlayedRound(view)) {
    const text = waitingText(view) ?? heldText(view.match) ?? moveText(view);
    if (text) return { text, mine: false };
  }
  if (!board) return { text: t("Waiting for the next board…"), mine: false };
  if (view.waiting_for_seats?.length) {
    const seats = seatsText(view, view.waiting_for_seats);
    return { text: t("Waiting for {seats} to come to the table: the board starts when all four are here.", { seats }), mine: false };
  }
  if (board.undo && board.phase !== "finished") {
    const undo = board.undo;
    const waiting = undo.deciders.filter((s) => !undo.accepted.includes(s));
    if (board.actions.includes("undo_answer")) {
      const asker = SEAT_NAME[undo.seat];
      return {
        text: undo.call
          ? t("Your answer: {seat} asks to take back a call", { seat: asker })
          : t("Your answer: {seat} asks to take back a card", { seat: asker }),
        mine: true,
      };
    }
    return (
      waitingFor(waiting, (who) => t("Waiting for {who}, who must answer the undo request", { who })) ?? {
        text: t("Waiting for {seats} to answer the undo request", { seats: seatsText(view, waiting) }),
        mine: false,
      }
    );
  }
  switch (board.phase) {
    case "auction":
      if (board.acting === seat) return { text: t("Your turn to call"), mine: true };
      return (
        waitingFor([board.acting], (who) => t("Waiting for {who}, who must call", { who })) ?? {
          text: t("{seat} to call", { seat: SEAT_NAME[board.turn] }),
          mine: false,
        }
      );
    case "play":
      if (view.face_down_lead) {
        const lead = view.face_down_lead;
        const faces = SEAT_NAME[partner(lead.seat)];
        if (board.actions.includes("face_lead")) return { text: t("Your partner led face down: face the lead when you are ready"), mine: true };
        if (lead.seat === seat) return { text: t("You led face down: waiting for {seat} to face it", { seat: faces }), mine: false };
        return { text: t("{leader} led face down: waiting for {seat} to face it", { leader: SEAT_NAME[lead.seat], seat: faces }), mine: false };
      }
      if (board.acting === seat) {
        if (board.turn === seat) return { text: t("Your turn: play a card"), mine: true };
        return { text: t("Your turn: play from dummy ({seat})", { seat: SEAT_NAME[board.turn] }), mine: true };
      }
      return (
        waitingFor([board.acting], (who) => t("Waiting for {who}, who must play", { who })) ??
        (board.turn === board.dummy
          ? { text: t("{seat} to play from dummy", { seat: SEAT_NAME[board.declarer] }), mine: false }
          : { text: t("{seat} to play", { seat: SEAT_NAME[board.turn] }), mine: false })
      );
    case "claim": {
      const claim = board.claim;
      if (claim.status === "disputed") return { text: t("The claim is disputed: waiting for the director's ruling"), mine: false };
      if (board.actions.includes("claim_answer")) {
        return { text: t("Your turn: accept or reject {seat}'s claim", { seat: SEAT_NAME[claim.claimer] }), mine: true };
      }
      const waiting = claim.deciders.filter((s) => !claim.accepted.includes(s));
      return (
        waitingFor(waiting, (who) => t("Waiting for {who}, who must answer the claim", { who })) ?? {
          text: t("{seat} claims {tricks}: waiting for the answer", { seat: SEAT_NAME[claim.claimer], tricks: claim.tricks }),
          mine: false,
        }
      );
    }
    default:
      return { text: view.match.finished ? t("The match is over.") : t("Board finished"), mine: false };
  }
}

function renderTurn(view) {
  const { text, mine, away } = turnText(view);
  const turn = $("turn");
  turn.classList.toggle("mine", mine);
  turn.classList.toggle("waiting-away", Boolean(away));
  turn.hidden = !text;
  const board = view.type === "player_view" ? view.board : view.tables?.[0];
  // In the play the contract rides in the bar too: in view wherever the page is scrolled
  // (a screen reader has it from the table; the bar's news is the turn).
  const contract = view.type === "player_view" && board?.phase === "play" && board.contract ? board : null;
  const key = `${text}|${away?.since ?? ""}|${contract ? `${contract.contract}${contract.declarer}|${language()}` : ""}`;
  if (state.turnKey !== key) {
    const since = away ? [" (", away.since == null ? awayText(away) : clock(away.since, "away-minutes", { class: "away-mark" }), ")"] : [];
    const shown = contract
      ? h(
          "span",
          { class: "turn-contract", "data-shown-contract": contract.contract, "aria-hidden": "true" },
          tx("{contract} by {seat}", { contract: callNode(contract.contract), seat: SEAT_LETTER[contract.declarer] }),
        )
      : null;
    turn.replaceChildren(text, ...since, ...(shown ? [" ", shown] : []));
    state.turnKey = key;
  }
  // "▶ Your turn · Board 3 · Duplicate bridge"
  document.title = [mine ? `▶ ${t("Your turn")}` : null, board ? t("Board {board}", { board: board.board }) : null, t("Duplicate bridge")]
    .filter(Boolean)
    .join(" · ");
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
  redrawStatus();
  const view = state.view;
  if (!view) {
    if (state.welcome) drawWelcome(state.welcome); // the language may have changed
    return;
  }
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
  followTurn();
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
  const key = shown ? JSON.stringify([round.ends_at, round.due_at, round.time_up, language()]) : "";
  if (element.dataset.key === key) return;
  element.dataset.key = key;
  element.dataset.timeUp = String(Boolean(round?.time_up));
  if (!shown) element.replaceChildren();
  else if (round.time_up) element.replaceChildren(t("Time is up"));
  else element.replaceChildren(h("span", { class: "visually-hidden" }, t("The round:"), " "), clock(round.ends_at, "left"));
}

/** The ref of the request for the record whose deals are checked (its label is in the page's language). */
let dealsCheckRef = null;

/** Once the match is over, its record is asked for once: are its deals the ones committed to? */
function checkDeals(view) {
  if (!view.match.finished || !view.match.deals_commitment || state.deals !== null) return;
  const ref = app.connection?.connected ? app.connection.send({ type: "get_record" }, t("deals check")) : null;
  if (ref != null) {
    dealsCheckRef = ref;
    state.deals = "checking";
  }
}

/** "North, table 2", "Spectator", "Director": the viewer's role, as the top bar names it. */
function roleText(role, seat, table) {
  if (role === "player") return t("{seat}, table {table}", { seat: SEAT_NAME[seat], table });
  if (role === "spectator") return t("Spectator");
  if (role === "director") return t("Director");
  return null;
}

/** The top bar: the app's name, then the viewer's role (if known). */
function drawTitle(role) {
  $("title").replaceChildren(h("span", { class: "app-name" }, t("Duplicate bridge"), role ? " · " : ""), role ?? "");
}

/** The top bar names the player's seat and table: they change between rounds (and the words with the language). */
function renderTitle(view) {
  const role =
    view.type === "player_view" ? roleText("player", view.seat, view.table) : roleText(state.welcome?.role, state.welcome?.seat, state.welcome?.table);
  const title = $("title");
  if (view.type !== "player_view" && role === null) return;
  const key = JSON.stringify([role, language()]);
  if (title.dataset.key === key) return;
  title.dataset.key = key;
  drawTitle(role);
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

/**
 * Scroll so that `needed` (elements) is in view below the header that stays at the top, with
 * as many of the `wanted` tiers (lists of elements, the first first) as the screen has room
 * for; nothing moves when they are in view already.
 */
function reveal(needed, wanted = [], behavior = "smooth") {
  const span = (elements) =>
    elements.filter((e) => e.getClientRects().length > 0).map((e) => e.getBoundingClientRect()).reduce(([top, bottom], r) => [Math.min(top, r.top), Math.max(bottom, r.bottom)], [Infinity, -Infinity]);
  if (!needed.some((e) => e.getClientRects().length > 0)) return;
  const header = $("header").getBoundingClientRect().bottom;
  const margin = 6;
  let shown = needed;
  let [top, bottom] = span(needed);
  for (const tier of wanted) {
    const [wantedTop, wantedBottom] = span([...shown, ...tier]);
    if (wantedBottom - wantedTop > innerHeight - header - 2 * margin) break;
    shown = [...shown, ...tier];
    [top, bottom] = [wantedTop, wantedBottom];
  }
  let by = 0;
  if (top < header) by = top - header - margin;
  else if (bottom > innerHeight) by = Math.min(bottom - innerHeight + margin, top - header - margin);
  if (by === 0) return;
  const still = behavior === "instant" || matchMedia("(prefers-reduced-motion: reduce)").matches;
  window.scrollBy({ top: by, behavior: still ? "instant" : "smooth" });
}

/**
 * What the player must act on now, and what they want to see with it (then, room allowing,
 * the whole table): an answer the table waits for (its buttons; its panel); on their turn in
 * the auction, Pass and the lowest open level (the auction so far, and the box's first three
 * levels); in the play, the cards they may play, from their hand or dummy's (that hand, the
 * trick and the table's controls). Null when nothing waits for them.
 */
function actionInView() {
  const table = () => [...document.querySelectorAll("#compass .compass-grid")];
  // An answer the table waits for (a claim, an undo, the face-down lead): its panel.
  for (const [where, panel, buttons] of [
    ["claim", "claim-panel", "#claim-accept, #claim-reject"],
    ["undo", "undo-panel", "#undo-agree, #undo-refuse"],
    ["face", "face-lead", "#face-lead-send"],
  ]) {
    const needed = [...$(panel).querySelectorAll(buttons)];
    if (!$(panel).hidden && needed.length) return { where, needed, wanted: [[$(panel)], table()] };
  }
  if (!$("turn").classList.contains("mine")) return null;
  const box = $("bidding-box");
  if (!box.hidden) {
    const levels = [...$("calls").querySelectorAll(".level:not([hidden])")];
    const needed = [box.querySelector('[data-call="P"]'), levels[0]].filter(Boolean);
    return { where: "calls", needed, wanted: [[levels[2] ?? levels.at(-1), document.querySelector("#compass .auction")].filter(Boolean), table()] };
  }
  const cards = [...document.querySelectorAll("#hand button[data-card]:enabled, #compass button[data-card]:enabled")];
  if (!cards.length) return null;
  // From dummy: all of dummy's hand is wanted in view too; and the table's controls (claim, undo).
  const hand = cards[0].closest("#hand") ?? cards[0].closest(".hand-rows");
  const wanted = [hand, document.querySelector("#compass .trick"), $("table-controls")].filter((e) => e && !e.hidden);
  return { where: hand.id === "hand" ? "hand" : "dummy", needed: cards, wanted: [wanted, table()] };
}

/** Keep what the player must act on in view when the screen changes size (a phone turned). */
function bringActionIntoView(behavior) {
  const action = actionInView();
  if (action) reveal(action.needed, action.wanted, behavior);
}

/** Where the player acts now ("claim", "undo", "face", "calls", "hand", "dummy"; "" when nothing waits for them). */
let actingAt = "";

/** After a drawing: when the player's turn comes, or moves (from dummy's cards to their own),
 * what they must act on scrolls into view. */
function followTurn() {
  const action = actionInView();
  if (action && action.where !== actingAt) reveal(action.needed, action.wanted);
  actingAt = action?.where ?? "";
}

// The header's height: what a scroll into view must stay below.
new ResizeObserver(() => {
  document.documentElement.style.setProperty("--header", `${$("header").offsetHeight}px`);
}).observe($("header"));
window.addEventListener("resize", () => bringActionIntoView("instant"));

// -- messages to the user ---------------------------------------------------------------------

/** Who did it, for a message: "The director", "You", "East (Bob)"; a watcher reads the seat. */
function who(view, seat) {
  if (seat === null || seat === undefined) return t("The director");
  if (view.type === "player_view") {
    if (seat === view.seat) return t("You");
    return seatWithName(person(view, seat), seat);
  }
  return SEAT_NAME[seat];
}

/** "Your 2♣ was taken back." / "East's ♠4 was taken back.": an undo event's call or card, and whose it was. */
function takenBack(view, event) {
  const what = event.call ? callText(event.call) : cardPlain(event.card);
  if (isMine(view, event.seat)) return t("Your {what} was taken back.", { what });
  return t("{seat}'s {what} was taken back.", { seat: SEAT_NAME[event.seat], what });
}

/**
 * What to tell the viewer of each event: `(event, view, before)` gives a message, a
 * [message, kind] pair, or nothing. Table events reach a player of their own table only.
 * What the viewer did is said in sentences of its own ("You withdrew…"): in Russian the verb
 * agrees with "вы".
 */
const ANNOUNCEMENTS = {
  board_compared({ comparison: c }, view) {
    if (c.void) return t("Board {board} is void.", { board: c.board });
    if (!isTeamMatch(view.match)) {
      const points = view.type === "player_view" ? c.points?.[view.competitor] : undefined;
      if (points === undefined) return t("Board {board} compared.", { board: c.board });
      return t("Board {board} compared: you score {points} {unit}.", {
        board: c.board,
        points: pointsText(points, view.match.scoring, { signed: true }),
        unit: scoringUnit(view.match.scoring),
      });
    }
    if (c.swing === 0) return t("Board {board} compared: no swing.", { board: c.board });
    return t("Board {board} compared: {imps} IMPs to {team}.", {
      board: c.board,
      imps: Math.abs(c.swing),
      team: teamName(view.match, c.swing > 0 ? "A" : "B"),
    });
  },
  match_finished: () => t("The match is over."),
  board_started: (event, view) => (view.type === "player_view" ? t("Board {board} has started.", { board: event.board }) : null),
  claim_answered(event, view) {
    if (event.accept) return null;
    const board = view.type === "player_view" ? view.board : view.tables.find((b) => b.table === event.table);
    if (board?.claim?.status === "disputed") {
      const disputed = isMine(view, event.seat)
        ? t("You disputed the claim: play has stopped until the director rules.")
        : t("{who} disputed the claim: play has stopped until the director rules.", { who: who(view, event.seat) });
      return [disputed, "error"];
    }
    const text = isMine(view, event.seat)
      ? t("You rejected the claim: play goes on.")
      : t("{who} rejected the claim: play goes on.", { who: who(view, event.seat) });
    return [text, "error"];
  },
  claim_withdrawn: (event, view) =>
    isMine(view, event.seat) ? t("You withdrew the claim: play goes on.") : t("{who} withdrew the claim: play goes on.", { who: who(view, event.seat) }),
  concession_withdrawn: (event, view) =>
    isMine(view, event.seat)
      ? t("You withdrew the concession: the play resumes.")
      : t("{who} withdrew the concession: the play resumes.", { who: who(view, event.seat) }),
  undo_requested(event, view) {
    const what = event.call ? callText(event.call) : cardPlain(event.card);
    if (isMine(view, event.seat)) return t("You asked to take back your {what}.", { what });
    return t("{who} asked to take back their {what}.", { who: who(view, event.seat), what });
  },
  undo_answered(event, view) {
    const mine = isMine(view, event.seat);
    const asker = { who: who(view, event.seat) };
    if (event.accept) return [mine ? t("You agreed to the undo.") : t("{who} agreed to the undo.", asker), "info"];
    return [mine ? t("You refused the undo.") : t("{who} refused the undo.", asker), "error"];
  },
  undone: (event, view) => takenBack(view, event),
  director_ruled: (event) => t("The director ruled: declarer's side takes {n} tricks.", { n: event.declarer_tricks }),
  result_assigned: (event) => t("The director assigned the result of board {board} at table {table}.", { board: event.result.board, table: event.table }),
  director_called: (event, view) => (event.seat === view.seat ? null : t("{who} called the director.", { who: who(view, event.seat) })),
  director_calls_seen: (event) => t("The director has seen the call at table {table} and is on the way.", { table: event.table }),
  director_calls_closed: (event) => t("The director closed the call at table {table}.", { table: event.table }),
  time_up: (event, view) =>
    view.type === "player_view"
      ? [t("The round's time is up: the director decides what happens (play on until told)."), "info"]
      : [t("Table {table}: the round's time is up with boards still to play.", { table: event.table }), view.mode === "director" ? "error" : "info"],
  seat_substituted: (event) =>
    event.robot
      ? t("{seat} at table {table} has a new robot.", { seat: SEAT_NAME[event.seat], table: event.table })
      : t("{seat} at table {table} has a new player.", { seat: SEAT_NAME[event.seat], table: event.table }),
  presence_changed(event, view, before) {
    if (view.type !== "player_view" || event.seat === view.seat || event.robot) return null;
    const joined = event.connected && before && person(before, event.seat)?.since == null;
    const seat = { who: who(view, event.seat) };
    if (joined) return t("{who} has joined the table.", seat);
    return event.connected ? t("{who} is back.", seat) : t("{who} is away.", seat);
  },
  question_asked: (event, view) =>
    view.type === "player_view" && event.seat !== view.seat ? t("{seat} asks what your call means.", { seat: SEAT_NAME[event.seat] }) : null,
  chat_sent: (event, view) => (view.type === "player_view" && event.seat !== view.seat ? [`${who(view, event.seat)}: ${event.text}`, "chat"] : null),
};

/**
 * What a screen reader hears of each call and card (the live region #spoken): "East bids
 * 1 notrump", "East plays the queen of hearts", "North wins the trick"; a watcher hears the
 * table too. The turn, the results and the comparisons are spoken where they are shown.
 * The player's own are said as "You bid…", "You play…".
 */
const SPOKEN = {
  lead_face_down(event, view) {
    return isMine(view, event.seat) ? t("You lead face down.") : t("{seat} leads face down.", { seat: SEAT_NAME[event.seat] });
  },
  call_made(event, view) {
    const action = spokenCall(view, event.seat, event.call);
    return event.alert ? t("{action}, alerted: {alert}.", { action, alert: event.alert }) : `${action}.`;
  },
  card_played(event, view) {
    const card = cardName(event.card);
    const spoken = isMine(view, event.seat) ? t("You play the {card}.", { card }) : t("{seat} plays the {card}.", { seat: SEAT_NAME[event.seat], card });
    if (!event.trick_winner) return spoken;
    const won = isMine(view, event.trick_winner) ? t("You win the trick.") : t("{seat} wins the trick.", { seat: SEAT_NAME[event.trick_winner] });
    return `${spoken} ${won}`;
  },
};

/** "You pass", "East bids 1 notrump": a call as spoken, without its full stop. */
function spokenCall(view, seat, call) {
  const mine = isMine(view, seat);
  const name = { seat: SEAT_NAME[seat] };
  switch (call) {
    case "P":
      return mine ? t("You pass") : t("{seat} passes", name);
    case "X":
      return mine ? t("You double") : t("{seat} doubles", name);
    case "XX":
      return mine ? t("You redouble") : t("{seat} redoubles", name);
    default:
      return mine ? t("You bid {call}", { call: callName(call) }) : t("{seat} bids {call}", { ...name, call: callName(call) });
  }
}

function announce(update, before) {
  const view = update.view;
  for (const event of update.events) {
    const spoken = SPOKEN[event.type];
    if (!spoken || (view.type === "player_view" && event.table !== view.table)) continue;
    const text = spoken(event, view);
    speak(view.type === "player_view" ? text : t("Table {table}: {text}", { table: event.table, text }));
  }
  if (view.type === "player_view" && before?.type === "player_view" && (view.round ?? 1) !== (before.round ?? 1)) {
    say(t("Round {round} has started: you are at table {table}, {seat}.", { round: view.round, table: view.table, seat: SEAT_NAME[view.seat] }));
  }
  if (hasRounds(view)) {
    const move = moveText(view);
    if (move && move !== moveText(before)) say(move);
  }
  const held = heldText(view.match);
  if (held && held !== heldText(before?.match)) {
    say(view.mode === "director" ? heldForDirector(view.match) : held);
  }
  for (const event of update.events) {
    const tell = ANNOUNCEMENTS[event.type];
    if (!tell || (view.type === "player_view" && event.table !== undefined && event.table !== view.table)) continue;
    const message = tell(event, view, before);
    if (message) say(...(Array.isArray(message) ? message : [message]));
  }
}

/** The director's word that a round waits for them (in a series: the next meeting). */
function heldForDirector(match) {
  const meeting = meetingOf(match, match.held_round);
  return meeting !== null
    ? t("Meeting {meeting} waits for you: start it when the players are ready.", { meeting })
    : t("Round {round} waits for you: start it when the tables are ready.", { round: match.held_round });
}

/**
 * The connection's state in the top bar and the notice under it, each kept as a function that
 * gives its words: a change of language draws them again (redrawStatus).
 */
let statusWords = null;
let noticeWords = null;

function setStatus(kind, words) {
  const status = $("status");
  status.dataset.state = kind;
  statusWords = words;
  $("status-text").textContent = words();
}

function showNotice(words, kind) {
  const notice = $("notice");
  clearTimeout(notice.timer);
  notice.className = `notice ${kind}`;
  noticeWords = words;
  notice.textContent = words();
  notice.hidden = false;
  if (kind === "back") notice.timer = setTimeout(() => { notice.hidden = true; }, 5000);
}

/** The status and the notice in the page's language (the words may have changed since). */
function redrawStatus() {
  const status = $("status-text");
  const text = statusWords?.();
  if (text !== undefined && status.textContent !== text) status.textContent = text;
  const notice = $("notice");
  const said = noticeWords?.();
  if (said !== undefined && !notice.hidden && notice.textContent !== said) notice.textContent = said;
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
  if (send({ type: "get_board", board }, t("board {board}", { board })) !== null) requested.add(board);
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
  if (send({ type: "set_name", name }, t("name")) !== null) state.namePending = true;
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

/** What the welcome shows before the first view: the top bar, and a delayed spectator's empty log. */
function drawWelcome(message) {
  drawTitle(roleText(message.role, message.seat, message.table));
  if (message.role !== "player" && message.seq === 0 && state.view === null) {
    // A delayed spectator's log is empty until the first comparison.
    $("watch").hidden = false;
    $("tables").replaceChildren(h("p", { class: "centre-note" }, t("Nothing to show yet: boards appear here once both tables have finished them.")));
  }
}

const handlers = {
  welcome(message) {
    state.welcome = message;
    setServerNow(message.now);
    document.body.dataset.role = message.role;
    // A player's match panel sits beside the table, below the auction; a watcher's below both tables.
    if (message.role === "player") $("auction-review").after($("match"));
    drawWelcome(message);
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
      else say(t("The connection dropped before the server answered your {what}: check the table once it is back.", { what: request.label }), "error");
    } else if (message.type === "moved_on") {
      say(t("Your {what} was not sent again: the table has moved on since (it shows whether it was made).", { what: request.label }), "info");
    } else if (message.type === "error") {
      if (request.type === "get_board") requested.delete(request.board);
      say(t("{what} refused: {message}", { what: request.label, message: errorText(message) }), "error");
    } else {
      answered(message, request);
    }
    render();
  },
  refused(message) {
    say(errorText(message), "error");
  },
  status(kind, detail) {
    if (kind === "connected") {
      setStatus("connected", () => t("Connected"));
      if (state.wasLost) showNotice(() => t("Connection is back: the table is up to date."), "back");
      else $("notice").hidden = true;
      state.wasLost = false;
    } else if (kind === "connecting") {
      // Offline until the server has welcomed the page again.
      if (state.wasLost) setStatus("lost", () => t("Offline"));
      else setStatus("connecting", detail ? () => t("Reconnecting…") : () => t("Connecting…"));
    } else if (kind === "lost") {
      setStatus("lost", () => t("Offline"));
      if (state.deals === "checking") state.deals = null; // its answer went with the connection: ask again once back
      if (!state.wasLost) document.body.dataset.drops = String(Number(document.body.dataset.drops ?? 0) + 1);
      state.wasLost = true;
      const seconds = Math.max(1, Math.round(detail / 1000));
      showNotice(
        detail > 0
          ? () => t("Connection lost. Reconnecting in {n} s… Your seat is kept and the table waits for you.", { n: seconds })
          : () => t("Connection lost. Reconnecting now… Your seat is kept and the table waits for you."),
        "lost",
      );
    } else if (kind === "failed") {
      setStatus("failed", () => t("Not connected"));
      showNotice(() => t("Cannot join the table: {reason}", { reason: detail }), "failed");
    }
    render();
  },
};

/** A request the server accepted (an ack) or answered (a record, a new link). */
function answered(message, request) {
  if (message.ref != null && message.ref === dealsCheckRef) {
    dealsCheckRef = null;
    state.deals =
      message.type === "match_record"
        ? checkRecord(message.record, state.view?.match.deals_commitment ?? "", state.view?.match.deals_seed_commitment ?? null)
        : { ok: false, reason: t("the record could not be fetched ({error})", { error: message.type === "error" ? errorText(message) : message.type }) };
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
      say(t("The match record is saved ({format}).", { format: lin ? "LIN" : "PBN" }));
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
      say(t("Asked: the explanation will show under the auction."));
      break;
    case "set_name":
      settings.name = request.name;
      say(t("Welcome, {name}.", { name: request.name }));
      break;
    case "call_director":
      state.directorFormOpen = false;
      $("director-text").value = "";
      say(t("The director has been called to your table."));
      break;
    case "next_board":
      say(t("Ready: the next board starts when all four are."));
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
  $("explain-label").textContent = t("Explain your {call} (to your opponents only):", { call: callName(entry.call) });
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
  send({ type: "call", call, alert: alert ? alert : null }, t("call {call}", { call }));
}

/** A click on a card or a call: ignored while the view just changed under it. */
function playOrCall(data) {
  if (guarded()) {
    document.body.dataset.ignored = String(Number(document.body.dataset.ignored ?? 0) + 1);
    return;
  }
  if (data.card !== undefined) {
    state.showLastTrick = false;
    send({ type: "card", card: data.card }, t("card {card}", { card: data.card }));
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
      if (window.confirm(t("Take back the last call or card at table {table}?", { table }))) send({ type: "undo", table }, t("undo"));
      break;
    case "undo-allow":
      send({ type: "undo_answer", accept: true, table }, t("decision on the undo"));
      break;
    case "undo-refuse":
      send({ type: "undo_answer", accept: false, table }, t("decision on the undo"));
      break;
    case "withdrawal-allow":
      if (window.confirm(t("Allow the withdrawal of the concession at table {table}? The play resumes where the claim stopped it.", { table }))) {
        send({ type: "decide_withdrawal", table, allow: true }, t("decision on the withdrawal"));
      }
      break;
    case "withdrawal-refuse":
      send({ type: "decide_withdrawal", table, allow: false }, t("decision on the withdrawal"));
      break;
    case "substitute":
    case "substitute-robot": {
      const seat = $(`substitute-seat-${table}`).value;
      const robot = button.dataset.director === "substitute-robot";
      const question = robot
        ? t("Give {seat} at table {table} to the server's robot?", { seat: SEAT_NAME[seat], table })
        : t("Give {seat} at table {table} to a new player (a new link; the old one stops working)?", { seat: SEAT_NAME[seat], table });
      if (window.confirm(question)) {
        send({ type: "substitute", table, seat, robot }, t("substitution"));
      }
      break;
    }
    case "start-round": {
      const round = Number(button.dataset.round);
      const meeting = button.dataset.meeting;
      const question = meeting
        ? t("Start meeting {meeting} now? It begins at once.", { meeting })
        : t("Start round {round} now? Every table starts it at once.", { round });
      if (window.confirm(question)) {
        send({ type: "start_round", round }, t("start of round {round}", { round }));
      }
      break;
    }
    case "see-calls":
      send({ type: "see_calls", table }, t("call seen"));
      break;
    case "close-calls":
      if (window.confirm(t("Close the calls for the director at table {table}? The banner goes from the players' screens.", { table }))) {
        send({ type: "close_calls", table }, t("calls closed"));
      }
      break;
    case "void": {
      const board = Number($("adjust-board").value);
      const question = isTeamMatch(state.view.match)
        ? t("Void board {board}? It then counts for neither team.", { board })
        : t("Void board {board}? It then counts for no one.", { board });
      if (window.confirm(question)) send({ type: "void_board", board }, t("void board"));
      break;
    }
    default:
      break;
  }
}

function adjust(imps) {
  const board = Number($("adjust-board").value);
  if (Number.isNaN(imps) || imps < -24 || imps > 24) {
    say(t("An adjusted score is between −24 and 24 IMPs."), "error");
    return;
  }
  if (window.confirm(t("Board {board}: artificial adjusted score, {imps} IMPs to {team}?", { board, imps, team: teamName(state.view.match, "A") }))) {
    send({ type: "adjust_score", board, imps_a: imps }, t("adjusted score"));
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
    const asked = { seat: SEAT_NAME[entry.seat], call: callName(entry.call) };
    if (entry.alert) say(t("{seat}'s {call}: {alert}", { ...asked, alert: entry.alert }));
    else send({ type: "ask", index: Number(data.ask) }, t("question about {seat}'s {call}", asked));
  } else if (data.explain !== undefined) {
    openExplain(Number(data.explain));
  } else if (data.ruleTricks !== undefined) {
    const table = Number(data.ruleTable);
    const tricks = Number(data.ruleTricks);
    if (window.confirm(t("Rule: declarer's side takes {n} tricks in all at table {table}?", { n: tricks, table }))) {
      send({ type: "rule", table, declarer_tricks: tricks }, t("ruling"));
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
    navigator.clipboard?.writeText(input.value).then(() => say(t("Link copied.")), () => say(t("Select the link and copy it.")));
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
        send({ type: "claim", tricks: state.claimTricks, statement: statement || null }, t("claim"));
      }
      break;
    case "claim-cancel":
      state.claimOpen = false;
      render();
      $("claim").focus();
      break;
    case "claim-accept":
      send({ type: "claim_answer", accept: true }, t("answer to the claim"));
      break;
    case "face-lead-send":
      send({ type: "face_lead" }, t("facing of the lead"));
      break;
    case "claim-reject":
      send({ type: "claim_answer", accept: false }, t("answer to the claim"));
      break;
    case "claim-withdraw":
      send({ type: "withdraw_claim" }, t("withdrawal of the claim"));
      break;
    case "withdraw-concession":
      state.confirmWithdrawal = true;
      render();
      $("withdraw-cancel")?.focus();
      break;
    case "withdraw-confirm":
      state.confirmWithdrawal = false;
      send({ type: "withdraw_concession" }, t("request to withdraw the concession"));
      break;
    case "withdraw-cancel":
      state.confirmWithdrawal = false;
      render();
      break;
    case "undo":
      send({ type: "undo" }, t("undo request"));
      break;
    case "undo-agree":
      send({ type: "undo_answer", accept: true }, t("answer to the undo"));
      break;
    case "undo-refuse":
      send({ type: "undo_answer", accept: false }, t("answer to the undo"));
      break;
    case "next-board":
      send({ type: "next_board" }, t("next board"));
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
      send({ type: "get_record" }, t("match record"));
      break;
    case "download-lin":
      send({ type: "get_record", format: "lin" }, t("match record"));
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
      if (text) send({ type: "chat", text }, t("chat message"));
      break;
    }
    case "explain-form": {
      const text = $("explain-text").value.trim();
      if (text && state.explainIndex !== null) send({ type: "explain", index: state.explainIndex, text }, t("explanation"));
      break;
    }
    case "name-form": {
      const name = $("name-input").value.trim();
      if (name) sendName(name);
      break;
    }
    case "director-form": {
      const text = $("director-text").value.trim();
      send({ type: "call_director", text: text || null }, t("call for the director"));
      break;
    }
    case "director-chat": {
      const table = Number(form.dataset.table);
      const text = takeDraft(`director-chat-${table}`);
      if (text) send({ type: "chat", text, table }, t("message to table {table}", { table }));
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
  const passed = contract === "PASS" || contract === "P" || contract === "ПАС"; // a Russian director writes пас
  if (!passed && !/^[1-7]([CDHS]|NT)(X|XX)?$/.test(contract)) {
    say(t("Write the contract like 4S, 3NTX or 2HXX, or Pass."), "error");
    return;
  }
  const tricks = passed ? 0 : Number(field("tricks"));
  if (!passed && !(Number.isInteger(tricks) && tricks >= 0 && tricks <= 13)) {
    say(t("Declarer's tricks: a number from 0 to 13."), "error");
    return;
  }
  const declarer = passed ? null : field("declarer");
  const question = passed
    ? t("Assign table {table}'s result on board {board}: passed out?", { table, board })
    : t("Assign table {table}'s result on board {board}: {contract} by {declarer}, {n} tricks?", { table, board, contract, declarer, n: tricks });
  if (window.confirm(question)) {
    send({ type: "assign_result", table, board, contract: passed ? null : contract, declarer, tricks }, t("assigned result"));
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
    setStatus("failed", () => t("No link"));
    showNotice(() => t("This page needs a join link with its token, like …/play#TOKEN: ask the organiser for yours."), "failed");
    return;
  }
  app.connection = new Connection(socketUrl(location), token, handlers);
  app.connection.start();
}

start();

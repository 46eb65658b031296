// The browser table: one page for the three join links (/play, /watch, /direct). It reads
// the token after '#', connects, and draws the latest view the server sent; every action
// is a protocol message with a ref, answered by an ack or an error (protocol/SPEC.md).

import {
  SEAT_NAME, SEATS, STRAINS, SUITS, SUIT_SYMBOL,
  bySuit, callName, cardName, isVulnerable, next, overtricks, parseCall, partner,
  rankText, scoreText, sideOf, sortHand, vulnerabilityText,
} from "./bridge.js";
import { Connection, socketUrl } from "./connection.js";

const $ = (id) => document.getElementById(id);

const state = {
  welcome: null,
  view: null,
  busy: false, // an action is on its way and not answered yet
  showLastTrick: false,
  claimOpen: false,
  claimTricks: null,
  explainIndex: null,
  turnText: "",
  wasLost: false,
  seenComparisons: 0,
};
let connection = null;

// -- building the DOM -----------------------------------------------------------------------

/** h("button", {class: "call", "data-call": "1NT"}, "1NT"): an element with its children. */
function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function suitSymbol(suit) {
  return h("span", { class: `suit suit-${suit}` }, SUIT_SYMBOL[suit]);
}

/** A call or contract with its suit symbol in the suit's colour: 4♠X, 3NT, Pass, Dbl. */
function callNode(call) {
  if (call === "P") return h("span", { class: "call-text pass" }, "Pass");
  if (call === "X") return h("span", { class: "call-text double" }, "Dbl");
  if (call === "XX") return h("span", { class: "call-text redouble" }, "Rdbl");
  const bid = parseCall(call);
  return h(
    "span",
    { class: "call-text bid" },
    String(bid.level),
    bid.strain === "NT" ? h("span", { class: "nt" }, "NT") : suitSymbol(bid.strain),
    bid.doubled,
  );
}

/** "3NT by N" with the result once known: "3NT by N, 9 tricks (=), N-S +400". */
function resultNode(result) {
  if (!result) return h("span", { class: "result" }, "–");
  if (result.contract === null) return h("span", { class: "result" }, "Passed out, 0");
  return h(
    "span",
    { class: "result" },
    callNode(result.contract),
    ` ${result.declarer} ${overtricks(result.contract, result.tricks)}`,
    h("span", { class: "score" }, ` ${scoreText(result.ns_score)}`),
  );
}

function cardTile(card, props = {}, tag = "span") {
  return h(
    tag,
    {
      class: `card suit-${card[0]}`,
      "data-card": card,
      "aria-label": cardName(card),
      title: tag === "button" ? cardName(card) : null,
      ...props,
    },
    h("span", { class: "rank", "aria-hidden": "true" }, rankText(card[1])),
    h("span", { class: "pip", "aria-hidden": "true" }, SUIT_SYMBOL[card[0]]),
  );
}

// -- what the viewer may do now -----------------------------------------------------------

function canAct() {
  return connection !== null && connection.connected && !state.busy;
}

function teamOf(table, seat) {
  const nsTeam = table === 1 ? "A" : "B";
  return sideOf(seat) === "NS" ? nsTeam : nsTeam === "A" ? "B" : "A";
}

function teamName(match, team) {
  return team === "A" ? match.team_a : match.team_b;
}

/** The hands this board lets the viewer see, as they are now (the deal once finished). */
function visibleHands(board) {
  if (board.phase === "finished" && board.deal) return board.deal;
  return board.hands;
}

function remainingTricks(board) {
  return 13 - board.tricks.length;
}

// -- the compass: four seats around the trick ---------------------------------------------

/**
 * One table as a compass. `bottom` is the seat drawn at the bottom (the player, or South for
 * watchers); `me` the player's seat (null for watchers), whose own hand is drawn below the
 * table rather than in it.
 */
function compass(board, { bottom, me, match }) {
  const places = { bottom, left: next(bottom), top: partner(bottom), right: next(bottom, 3) };
  const grid = h("div", { class: "compass-grid", "data-board": board.board, "data-table": board.table });
  grid.append(boardInfo(board), contractInfo(board));
  const hands = visibleHands(board);
  const legal = new Set(board.phase === "play" && me && board.acting === me ? board.legal : []);
  for (const [place, seat] of Object.entries(places)) {
    const playable = me !== null && board.declarer === me && seat === board.dummy && seat !== me;
    const drawHand = seat in hands && !(me !== null && seat === me);
    grid.append(
      h(
        "div",
        { class: `seat-box place-${place}`, "data-seat": seat },
        seatTag(board, seat, { me, match, hidden: !(seat in hands) }),
        drawHand ? handRows(hands[seat], seat, { playable, legal }) : null,
      ),
    );
  }
  grid.append(centre(board, places, me));
  return grid;
}

function boardInfo(board) {
  const vulnerable = board.vulnerability;
  return h(
    "div",
    { class: "board-info", "aria-label": `Board ${board.board}, dealer ${SEAT_NAME[board.dealer]}, vulnerable ${vulnerabilityText(vulnerable)}` },
    h("span", { class: "board-number", "data-test": "board-number" }, `Board ${board.board}`),
    h("span", { class: "dealer" }, `Dealer ${board.dealer}`),
    h(
      "span",
      { class: `vulnerability vul-${vulnerable}`, "data-vulnerability": vulnerable },
      `Vul ${vulnerabilityText(vulnerable)}`,
    ),
  );
}

function contractInfo(board) {
  const box = h("div", { class: "contract-info" });
  if (board.contract) {
    box.append(
      h("span", { class: "contract", "data-contract": board.contract }, callNode(board.contract), ` by ${board.declarer}`),
    );
  } else if (board.phase === "auction") {
    box.append(h("span", { class: "contract" }, "Auction"));
  } else {
    box.append(h("span", { class: "contract" }, "Passed out"));
  }
  if (board.phase !== "auction" && board.contract) {
    box.append(
      h(
        "span",
        { class: "trick-count", "data-tricks-ns": board.tricks_ns, "data-tricks-ew": board.tricks_ew },
        `N-S ${board.tricks_ns} · E-W ${board.tricks_ew}`,
      ),
    );
  }
  return box;
}

function seatTag(board, seat, { me, match, hidden }) {
  const onTurn = board.turn === seat;
  const vulnerable = isVulnerable(seat, board.vulnerability);
  const roles = [];
  if (me !== null && seat === me) roles.push("You");
  if (board.declarer === seat && board.phase !== "auction") roles.push("Declarer");
  if (board.dummy === seat) roles.push("Dummy");
  if (board.dealer === seat && board.phase === "auction") roles.push("Dealer");
  const team = match ? teamName(match, teamOf(board.table, seat)) : null;
  const count = board.hand_sizes[seat];
  return h(
    "div",
    {
      class: `seat-tag${vulnerable ? " vulnerable" : ""}${onTurn ? " on-turn" : ""}${me === seat ? " me" : ""}`,
      "aria-current": onTurn ? "step" : null,
    },
    h("span", { class: "seat-name" }, SEAT_NAME[seat]),
    roles.length ? h("span", { class: "roles" }, roles.join(" · ")) : null,
    team ? h("span", { class: "team" }, team) : null,
    hidden && board.phase !== "finished" ? h("span", { class: "count" }, `${count} cards`) : null,
    onTurn ? h("span", { class: "turn-mark" }, board.phase === "auction" ? "to call" : "to play") : null,
  );
}

/** A hand in four suit rows; dummy's cards are buttons for declarer. */
function handRows(cards, seat, { playable, legal }) {
  const groups = bySuit(cards);
  const enabled = playable && canAct();
  return h(
    "div",
    { class: "hand-rows", role: "group", "aria-label": `${SEAT_NAME[seat]}'s cards` },
    SUITS.map((suit) =>
      h(
        "div",
        { class: `suit-row suit-${suit}` },
        h("span", { class: "row-symbol", "aria-hidden": "true" }, SUIT_SYMBOL[suit]),
        groups[suit].length
          ? groups[suit].map((card) =>
              playable
                ? h(
                    "button",
                    {
                      type: "button",
                      class: `rank-button suit-${suit}`,
                      "data-card": card,
                      "aria-label": `${cardName(card)}, from ${SEAT_NAME[seat]}`,
                      disabled: !(enabled && legal.has(card)),
                    },
                    rankText(card[1]),
                  )
                : h("span", { class: "rank-text", "data-card": card, "aria-label": cardName(card) }, rankText(card[1])),
            )
          : h("span", { class: "void", "aria-label": "none" }, "—"),
      ),
    ),
  );
}

/** The middle of the table: the auction while it lasts, then the trick. */
function centre(board, places, me) {
  const middle = h("div", { class: "centre" });
  if (board.phase === "auction") {
    middle.append(auctionGrid(board, me, "auction"));
    return middle;
  }
  if (board.contract === null) {
    middle.append(h("p", { class: "centre-note" }, "Passed out"));
    return middle;
  }
  let trick = board.current_trick;
  let caption = null;
  let faded = false;
  const last = board.tricks[board.tricks.length - 1];
  if (state.showLastTrick && last && me !== null) {
    trick = last;
    caption = `Last trick: won by ${SEAT_NAME[last.winner]}`;
  } else if ((!trick || trick.cards.length === 0) && last) {
    trick = last;
    faded = true;
    caption = board.phase === "finished" ? `Last trick: ${SEAT_NAME[last.winner]}` : `${SEAT_NAME[last.winner]} won the trick`;
  }
  const slots = h("div", { class: `trick${faded ? " faded" : ""}`, id: me !== null ? "trick" : null, "aria-label": "The trick" });
  const played = new Map((trick?.cards ?? []).map((entry) => [entry.seat, entry.card]));
  const leader = trick?.cards[0]?.seat;
  for (const [place, seat] of Object.entries(places)) {
    const card = played.get(seat);
    const waiting = !card && !faded && board.turn === seat && board.phase === "play";
    slots.append(
      h(
        "div",
        {
          class: `trick-slot slot-${place}${trick?.winner === seat ? " winner" : ""}`,
          "data-seat": seat,
          "data-led": card && seat === leader ? card : null,
        },
        card
          ? cardTile(card, { "data-card": null, "data-trick-card": card, "aria-label": `${SEAT_NAME[seat]}: ${cardName(card)}` })
          : waiting
            ? h("span", { class: "card placeholder", "aria-label": `${SEAT_NAME[seat]} to play` }, "?")
            : null,
      ),
    );
  }
  middle.append(slots);
  if (board.phase === "finished" && board.result) {
    middle.append(h("p", { class: "centre-note final-result" }, resultNode(board.result)));
  } else if (caption) {
    middle.append(h("p", { class: "centre-note" }, caption));
  }
  return middle;
}

// -- the auction ----------------------------------------------------------------------------

const AUCTION_ORDER = ["W", "N", "E", "S"];

function auctionGrid(board, me, id) {
  const head = h(
    "tr",
    {},
    AUCTION_ORDER.map((seat) =>
      h(
        "th",
        { scope: "col", class: isVulnerable(seat, board.vulnerability) ? "vulnerable" : null, title: SEAT_NAME[seat] },
        seat,
      ),
    ),
  );
  const cells = [];
  for (let i = 0; i < AUCTION_ORDER.indexOf(board.dealer); i += 1) cells.push(h("td", {}));
  const opponents = me === null ? new Set() : new Set([next(me), next(me, 3)]);
  board.auction.forEach((entry, index) => {
    const content = [callNode(entry.call), entry.alert ? h("sup", { class: "alert-mark", title: entry.alert }, "!") : null];
    let cell;
    if (me !== null && opponents.has(entry.seat) && entry.call !== "P") {
      cell = h(
        "button",
        { type: "button", class: "auction-call", "data-ask": index, "aria-label": `${SEAT_NAME[entry.seat]}: ${callName(entry.call)}${entry.alert ? `, alerted: ${entry.alert}` : ""}. Ask what it means` },
        content,
      );
    } else if (me !== null && entry.seat === me) {
      cell = h(
        "button",
        { type: "button", class: "auction-call own", "data-explain": index, "aria-label": `Your ${callName(entry.call)}${entry.alert ? `, explained: ${entry.alert}` : ""}. Explain it` },
        content,
      );
    } else {
      cell = h("span", { class: "auction-call" }, content);
    }
    cells.push(
      h("td", { "data-index": index, "data-seat": entry.seat, "data-called": entry.call, class: entry.alert ? "alerted" : null }, cell),
    );
  });
  if (board.phase === "auction" && board.turn) {
    cells.push(h("td", { class: "to-call", "aria-label": `${SEAT_NAME[board.turn]} to call` }, "?"));
  }
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(h("tr", {}, cells.slice(i, i + 4)));
  const explanations = board.auction
    .map((entry, index) => ({ ...entry, index }))
    .filter((entry) => entry.alert);
  return h(
    "div",
    { class: "auction", id },
    h("table", { class: "auction-grid" }, h("caption", { class: "visually-hidden" }, "Auction"), h("thead", {}, head), h("tbody", {}, rows)),
    explanations.length
      ? h(
          "ul",
          { class: "explanations" },
          explanations.map((entry) => h("li", {}, callNode(entry.call), ` (${entry.seat}): ${entry.alert}`)),
        )
      : null,
  );
}

// -- the player's page ------------------------------------------------------------------------

function renderPlayer(view) {
  $("player").hidden = false;
  $("watch").hidden = true;
  const board = view.board;
  const me = view.seat;
  document.body.dataset.phase = board?.phase ?? "none";
  document.body.dataset.acting = board?.acting ?? "";
  const area = $("compass");
  area.replaceChildren();
  if (!board) {
    area.append(h("p", { class: "centre-note" }, view.match.finished ? "The match is over." : "Waiting for the next board…"));
  } else {
    area.append(compass(board, { bottom: me, me, match: view.match }));
  }
  renderHand(board, me);
  renderBiddingBox(board, me);
  renderPlayControls(board, me);
  renderClaimPanel(board, me);
  renderQuestions(board);
  const reviewing = board !== null && board.phase !== "auction";
  $("auction-review").hidden = !reviewing;
  $("auction-side").replaceChildren(reviewing ? auctionGrid(board, me, "auction-played") : "");
  renderChat(view.chat, me);
}

function renderHand(board, me) {
  const hand = $("hand");
  hand.replaceChildren();
  if (!board) return;
  const cards = visibleHands(board)[me] ?? [];
  const myTurn = board.phase === "play" && board.acting === me && board.turn === me;
  const legal = new Set(myTurn ? board.legal : []);
  const enabled = myTurn && canAct();
  hand.classList.toggle("my-turn", myTurn);
  hand.style.setProperty("--cards", String(Math.max(cards.length, 2)));
  hand.setAttribute("aria-label", `Your hand, ${SEAT_NAME[me]}`);
  const groups = bySuit(cards);
  for (const suit of SUITS) {
    if (!groups[suit].length) continue;
    hand.append(
      h(
        "div",
        { class: `hand-suit suit-${suit}`, role: "group", "aria-label": `${suit === "S" ? "Spades" : suit === "H" ? "Hearts" : suit === "D" ? "Diamonds" : "Clubs"}` },
        groups[suit].map((card) =>
          cardTile(card, { type: "button", disabled: !(enabled && legal.has(card)), class: `card suit-${card[0]}${legal.has(card) ? " legal" : ""}` }, "button"),
        ),
      ),
    );
  }
  if (!cards.length) hand.append(h("p", { class: "empty" }, "No cards left"));
}

function renderBiddingBox(board, me) {
  const box = $("bidding-box");
  const show = board !== null && board.phase === "auction" && board.acting === me;
  const wasHidden = box.hidden;
  box.hidden = !show;
  const calls = $("calls");
  calls.replaceChildren();
  if (!show) return;
  const legal = new Set(board.legal);
  const enabled = canAct();
  const button = (call, extra = "") =>
    h(
      "button",
      { type: "button", class: `call-button${extra}`, "data-call": call, "aria-label": callName(call), disabled: !(enabled && legal.has(call)) },
      callNode(call),
    );
  calls.append(
    h("div", { class: "call-row specials" }, button("P", " pass"), button("X", " double"), button("XX", " redouble")),
  );
  for (let level = 1; level <= 7; level += 1) {
    const bids = STRAINS.map((strain) => `${level}${strain}`);
    const any = bids.some((bid) => legal.has(bid));
    calls.append(h("div", { class: "call-row level", "data-level": level, hidden: !any }, bids.map((bid) => button(bid))));
  }
  if (wasHidden) scrollIntoViewIfNeeded(box);
}

function renderPlayControls(board, me) {
  const controls = $("play-controls");
  const inPlay = board !== null && board.contract !== null && ["play", "claim", "director"].includes(board.phase);
  controls.hidden = !inPlay;
  if (!inPlay) {
    state.claimOpen = false;
    state.showLastTrick = false;
  }
  const ours = sideOf(me) === "NS" ? board?.tricks_ns : board?.tricks_ew;
  const theirs = sideOf(me) === "NS" ? board?.tricks_ew : board?.tricks_ns;
  $("tricks").textContent = inPlay ? `Tricks: you ${ours}, they ${theirs}` : "";
  const lastTrick = $("last-trick");
  lastTrick.disabled = !inPlay || board.tricks.length === 0;
  lastTrick.setAttribute("aria-pressed", String(state.showLastTrick));
  const claim = $("claim");
  const mayClaim = inPlay && board.phase === "play" && board.dummy !== me;
  claim.disabled = !(mayClaim && canAct());
  if (!mayClaim) state.claimOpen = false;
  claim.setAttribute("aria-expanded", String(state.claimOpen));
  const choices = $("claim-choices");
  choices.hidden = !state.claimOpen;
  choices.replaceChildren();
  if (!state.claimOpen) return;
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
  choices.append(
    h("p", { id: "claim-question" }, `Claim how many of the ${remaining} remaining tricks for your side?`),
    h("div", { class: "claim-numbers", role: "group", "aria-labelledby": "claim-question" }, numbers),
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

function renderClaimPanel(board, me) {
  const panel = $("claim-panel");
  const claim = board?.claim;
  const show = claim && ["claim", "director"].includes(board.phase);
  panel.hidden = !show;
  panel.replaceChildren();
  if (!show) return;
  const who = claim.claimer === me ? "You claim" : `${SEAT_NAME[claim.claimer]} claims`;
  panel.append(
    h("p", { class: "claim-text", "data-claim-tricks": claim.tricks }, `${who} ${claim.tricks} of the ${claim.remaining} remaining tricks.`),
  );
  if (claim.cards) {
    panel.append(h("div", { class: "claim-cards", "aria-label": "The claimer's cards" }, sortHand(claim.cards).map((card) => cardTile(card, { "data-card": null }))));
  }
  if (board.phase === "director") {
    panel.append(h("p", { class: "claim-status" }, "The claim was rejected: the director has been called."));
    return;
  }
  const waiting = claim.deciders.filter((seat) => !claim.accepted.includes(seat));
  if (claim.deciders.includes(me) && !claim.accepted.includes(me)) {
    panel.append(
      h(
        "div",
        { class: "claim-answer" },
        h("button", { type: "button", id: "claim-accept", class: "primary", disabled: !canAct() }, "Accept"),
        h("button", { type: "button", id: "claim-reject", class: "danger", disabled: !canAct() }, "Reject (call the director)"),
      ),
    );
  } else {
    panel.append(h("p", { class: "claim-status" }, `Waiting for ${waiting.map((seat) => SEAT_NAME[seat]).join(" and ")}.`));
  }
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

function renderChat(chat, me) {
  const log = $("chat-log");
  const key = JSON.stringify(chat);
  if (log.dataset.key === key) return;
  log.dataset.key = key;
  log.replaceChildren(
    ...chat.map((line) =>
      h("li", {}, h("span", { class: "chat-seat" }, line.seat === me ? "You" : SEAT_NAME[line.seat]), ": ", line.text),
    ),
  );
  log.scrollTop = log.scrollHeight;
}

// -- the spectator's and director's page ----------------------------------------------------

function renderWatch(view) {
  $("player").hidden = true;
  $("watch").hidden = false;
  $("auction-review").hidden = true;
  const modes = {
    live: "Watching live: both tables as they are played.",
    delayed: "Watching with a delay: each board appears once both tables have finished it.",
    director: "Directing: both tables, every hand.",
  };
  $("watch-mode").textContent = modes[view.mode] ?? "";
  const tables = $("tables");
  tables.replaceChildren();
  if (!view.tables.length) {
    tables.append(h("p", { class: "centre-note" }, "Nothing to show yet: boards appear here once both tables have finished them."));
  }
  for (const board of view.tables) {
    const match = view.match;
    tables.append(
      h(
        "section",
        { class: "watch-table", id: `table-${board.table}`, "data-table": board.table, "aria-label": `Table ${board.table}` },
        h(
          "h2",
          {},
          `Table ${board.table}`,
          h("span", { class: "teams" }, ` ${teamName(match, teamOf(board.table, "N"))} N-S, ${teamName(match, teamOf(board.table, "E"))} E-W`),
        ),
        compass(board, { bottom: "S", me: null, match }),
        board.phase !== "auction" ? auctionGrid(board, null, null) : null,
        watchClaim(board, view.mode),
      ),
    );
  }
}

function watchClaim(board, mode) {
  const claim = board.claim;
  if (!claim || !["claim", "director"].includes(board.phase)) return null;
  const box = h(
    "div",
    { class: "claim-panel" },
    h("p", {}, `${SEAT_NAME[claim.claimer]} claims ${claim.tricks} of the ${claim.remaining} remaining tricks.`),
  );
  if (board.phase === "director") {
    box.append(h("p", {}, "The claim was rejected: the director must rule."));
    if (mode === "director") {
      const declarerSide = sideOf(board.declarer);
      const already = declarerSide === "NS" ? board.tricks_ns : board.tricks_ew;
      const remaining = remainingTricks(board);
      const options = [];
      for (let tricks = already; tricks <= already + remaining; tricks += 1) {
        options.push(h("button", { type: "button", "data-rule-table": board.table, "data-rule-tricks": tricks }, String(tricks)));
      }
      box.append(h("p", {}, "Declarer's side takes, in all:"), h("div", { class: "claim-numbers" }, options));
    }
  }
  return box;
}

// -- the match panel ------------------------------------------------------------------------

function renderMatch(view) {
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
  const final = $("final");
  final.hidden = !match.finished;
  if (match.finished) {
    const verdict = match.winner === "draw" ? "The match is a draw." : `${name(match.winner)} win${match.winner === myTeam ? " — well played!" : "."}`;
    final.replaceChildren(
      h("h3", {}, "Final result"),
      h("p", { "data-winner": match.winner }, `${match.team_a} ${match.imps_a} – ${match.imps_b} ${match.team_b}. ${verdict}`),
    );
  }

  const swingFor = (swing) => (myTeam === "B" ? -swing : swing);
  const swingText = (swing) => {
    if (swing === 0) return "0";
    if (player) return swingFor(swing) > 0 ? `+${swingFor(swing)}` : `−${-swingFor(swing)}`;
    return `${Math.abs(swing)} ${swing > 0 ? match.team_a : match.team_b}`;
  };
  const totalText = (total) => {
    if (total === 0) return "level";
    const leader = total > 0 ? "A" : "B";
    return `${name(leader)} +${Math.abs(total)}`;
  };

  const leadText = (total) => {
    if (total === 0) return "The teams are level.";
    const leader = total > 0 ? "A" : "B";
    return `${name(leader)} lead by ${Math.abs(total)} IMP${Math.abs(total) === 1 ? "" : "s"}.`;
  };

  // The latest comparison in full: both tables, the swing and the running total.
  const comparisons = match.comparisons;
  const box = $("comparison");
  box.replaceChildren();
  if (comparisons.length) {
    const latest = comparisons[comparisons.length - 1];
    const mine = player ? (view.table === 1 ? latest.table1 : latest.table2) : latest.table1;
    const other = player ? (view.table === 1 ? latest.table2 : latest.table1) : latest.table2;
    const gainer = latest.swing === 0 ? null : latest.swing > 0 ? "A" : "B";
    box.append(
      h("h3", {}, `Board ${latest.board}: both tables finished`),
      h(
        "dl",
        { class: "comparison-list", "data-board": latest.board, "data-swing": latest.swing },
        h("dt", {}, player ? "Your table" : "Table 1"),
        h("dd", {}, resultNode(mine)),
        h("dt", {}, player ? "Other table" : "Table 2"),
        h("dd", { "data-other-table": "" }, resultNode(other)),
        h("dt", {}, "Swing"),
        h("dd", { class: "swing" }, gainer ? `${Math.abs(latest.swing)} IMP${Math.abs(latest.swing) === 1 ? "" : "s"} to ${name(gainer)}` : "0 IMPs (no swing)"),
        h("dt", {}, "Running total"),
        h("dd", {}, leadText(latest.running_total)),
        latest.par ? [h("dt", {}, "Par"), h("dd", {}, `${scoreText(latest.par.score)}: ${latest.par.contracts.join(", ")}`)] : null,
      ),
    );
    if (latest.double_dummy) box.append(doubleDummyTable(latest.double_dummy));
  }

  const rows = match.boards.map((number) => {
    const comparison = comparisons.find((c) => c.board === number);
    const current = player ? view.board?.board === number && view.board.phase !== "finished" : false;
    let here = null;
    let there = null;
    if (comparison) {
      here = player && view.table === 2 ? comparison.table2 : comparison.table1;
      there = player && view.table === 2 ? comparison.table1 : comparison.table2;
    } else if (player) {
      here = view.results.find((r) => r.board === number) ?? null;
    } else {
      // Live spectators and the director see each table's result as it comes.
      const at = (table) => view.tables.find((b) => b.table === table && b.board === number)?.result ?? null;
      here = at(1);
      there = at(2);
    }
    const status = comparison || !player ? null : current ? "playing" : here ? "waiting for the other table" : "";
    return h(
      "tr",
      { "data-board": number, class: current ? "current" : null },
      h("th", { scope: "row" }, String(number)),
      h("td", {}, here ? resultNode(here) : status === "playing" ? "playing" : "–"),
      h("td", {}, there ? resultNode(there) : comparison ? "–" : status && status !== "playing" ? status : "–"),
      h("td", { class: "swing" }, comparison ? swingText(comparison.swing) : ""),
      h("td", {}, comparison ? totalText(comparison.running_total) : ""),
    );
  });
  $("boards").replaceChildren(
    h(
      "table",
      { class: "boards-table" },
      h("caption", {}, "Boards"),
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
        ),
      ),
      h("tbody", {}, rows),
    ),
  );
}

function doubleDummyTable(doubleDummy) {
  const strains = ["NT", "S", "H", "D", "C"];
  return h(
    "details",
    { class: "double-dummy" },
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

// -- whose turn ------------------------------------------------------------------------------

function turnText(view) {
  if (view.type !== "player_view") return { text: "", mine: false };
  const board = view.board;
  const me = view.seat;
  if (view.match.finished && (!board || board.phase === "finished")) return { text: "The match is over.", mine: false };
  if (!board) return { text: "Waiting for the next board…", mine: false };
  switch (board.phase) {
    case "auction":
      if (board.acting === me) return { text: "Your turn to call", mine: true };
      return { text: `${SEAT_NAME[board.turn]} to call`, mine: false };
    case "play":
      if (board.acting === me) {
        if (board.turn === me) return { text: "Your turn: play a card", mine: true };
        return { text: `Your turn: play from dummy (${SEAT_NAME[board.turn]})`, mine: true };
      }
      if (board.turn === board.dummy) return { text: `${SEAT_NAME[board.declarer]} to play from dummy`, mine: false };
      return { text: `${SEAT_NAME[board.turn]} to play`, mine: false };
    case "claim": {
      const claim = board.claim;
      if (claim.deciders.includes(me) && !claim.accepted.includes(me)) {
        return { text: `Your turn: accept or reject ${SEAT_NAME[claim.claimer]}'s claim`, mine: true };
      }
      return { text: `${SEAT_NAME[claim.claimer]} claims ${claim.tricks}: waiting for the answer`, mine: false };
    }
    case "director":
      return { text: "A claim was rejected: waiting for the director", mine: false };
    default:
      return { text: view.match.finished ? "The match is over." : "Board finished", mine: false };
  }
}

function renderTurn(view) {
  const { text, mine } = turnText(view);
  const turn = $("turn");
  turn.classList.toggle("mine", mine);
  turn.hidden = !text;
  if (state.turnText !== text) {
    turn.textContent = text;
    state.turnText = text;
  }
  const board = view.type === "player_view" ? view.board : view.tables?.[0];
  const where = board ? `Board ${board.board} · ` : "";
  document.title = `${mine ? "▶ Your turn · " : ""}${where}Duplicate bridge`;
}

// -- rendering, keeping the focus where it was ----------------------------------------------

const FOCUS_KEYS = ["card", "call", "claim", "ask", "explain", "ruleTricks"];

function focusSelector(element) {
  if (!element || element === document.body) return null;
  for (const key of FOCUS_KEYS) {
    if (element.dataset?.[key] !== undefined) {
      const attribute = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      return { selector: `[data-${attribute}="${element.dataset[key]}"]`, kind: key };
    }
  }
  return element.id ? { selector: `#${element.id}`, kind: "id" } : null;
}

function render() {
  const view = state.view;
  if (!view) return;
  const focused = focusSelector(document.activeElement);
  if (view.type === "player_view") renderPlayer(view);
  else renderWatch(view);
  renderMatch(view);
  renderTurn(view);
  if (focused && (document.activeElement === document.body || !document.activeElement?.isConnected)) {
    restoreFocus(focused);
  }
}

function restoreFocus({ selector, kind }) {
  const same = document.querySelector(selector);
  if (same && !same.disabled && same.offsetParent !== null) {
    same.focus({ preventScroll: true });
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

function say(text, kind = "info") {
  const line = h("p", { class: `message ${kind}` }, text);
  const box = $("messages");
  box.append(line);
  while (box.children.length > 3) box.firstChild.remove();
  setTimeout(() => line.remove(), kind === "error" ? 8000 : 4000);
}

function announce(update) {
  const view = update.view;
  for (const event of update.events) {
    switch (event.type) {
      case "board_compared": {
        const c = event.comparison;
        const match = view.match;
        const gainer = c.swing > 0 ? match.team_a : match.team_b;
        say(c.swing === 0 ? `Board ${c.board} compared: no swing.` : `Board ${c.board} compared: ${Math.abs(c.swing)} IMPs to ${gainer}.`);
        break;
      }
      case "match_finished":
        say("The match is over.");
        break;
      case "board_started":
        if (view.type === "player_view") say(`Board ${event.board} has started.`);
        break;
      case "claim_answered":
        if (!event.accept) say(`${SEAT_NAME[event.seat]} rejected the claim: the director is called.`, "error");
        break;
      case "question_asked":
        if (view.type === "player_view" && event.seat !== view.seat) say(`${SEAT_NAME[event.seat]} asks what your call means.`);
        break;
      case "chat_sent":
        if (view.type === "player_view" && event.seat !== view.seat) say(`${SEAT_NAME[event.seat]}: ${event.text}`, "chat");
        break;
      default:
        break;
    }
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

// -- the connection's handlers ----------------------------------------------------------------

const handlers = {
  welcome(message) {
    state.welcome = message;
    const role = { player: `${SEAT_NAME[message.seat]}, table ${message.table}`, spectator: "Spectator", director: "Director" }[message.role];
    $("title").textContent = role ? `Duplicate bridge · ${role}` : "Duplicate bridge";
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
    const first = state.view === null;
    state.view = update.view;
    if (!first) announce(update);
    render();
  },
  answer(message, request) {
    state.busy = false;
    if (message.type === "ack") {
      if (request.type === "call") $("alert-text").value = "";
      if (request.type === "chat") $("chat-input").value = "";
      if (request.type === "claim") {
        state.claimOpen = false;
        state.claimTricks = null;
      }
      if (request.type === "explain") closeExplain();
      if (request.type === "ask") say("Asked: the explanation will show under the auction.");
    } else if (message.type === "lost") {
      say(`The connection dropped before the server answered your ${request.label}: check the table once it is back.`, "error");
    } else {
      say(`${request.label} refused: ${message.message}`, "error");
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
      setStatus("connecting", detail ? "Reconnecting…" : "Connecting…");
    } else if (kind === "lost") {
      setStatus("lost", "Offline");
      if (!state.wasLost) document.body.dataset.drops = String(Number(document.body.dataset.drops ?? 0) + 1);
      state.wasLost = true;
      const seconds = Math.max(1, Math.round(detail / 1000));
      showNotice(`Connection lost. Reconnecting in ${seconds} s… Your seat is kept and the table waits for you.`, "lost");
    } else if (kind === "failed") {
      setStatus("failed", "Not connected");
      showNotice(`Cannot join the table: ${detail}`, "failed");
    }
    render();
  },
};

// -- actions -----------------------------------------------------------------------------------

function send(message, label) {
  if (!connection || !connection.connected) {
    say("Not connected: wait until the connection is back.", "error");
    return;
  }
  const ref = connection.send(message, label);
  if (ref !== null && ["call", "card", "claim", "claim_answer"].includes(message.type)) {
    state.busy = true;
    render();
  }
}

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

function onClick(event) {
  const button = event.target.closest("button");
  if (!button || button.disabled) return;
  const data = button.dataset;
  if (data.card !== undefined) {
    send({ type: "card", card: data.card }, `card ${data.card}`);
  } else if (data.call !== undefined) {
    const alert = $("alert-text").value.trim();
    send({ type: "call", call: data.call, alert: alert ? alert : null }, `call ${data.call}`);
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
  } else {
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
        if (state.claimTricks !== null) send({ type: "claim", tricks: state.claimTricks }, "claim");
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
      case "explain-cancel":
        closeExplain();
        break;
      default:
        break;
    }
  }
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select")) return;
  const board = state.view?.type === "player_view" ? state.view.board : null;
  const key = event.key.toLowerCase();
  if (key === "l" && !$("last-trick").disabled) {
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
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  $("bidding-box").addEventListener("submit", (event) => event.preventDefault());
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-input").value.trim();
    if (text) send({ type: "chat", text }, "chat message");
  });
  $("explain-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("explain-text").value.trim();
    if (text && state.explainIndex !== null) send({ type: "explain", index: state.explainIndex, text }, "explanation");
  });
  const token = decodeURIComponent(location.hash.slice(1));
  if (!token) {
    setStatus("failed", "No link");
    showNotice("This page needs a join link with its token, like …/play#TOKEN: ask the organiser for yours.", "failed");
    return;
  }
  connection = new Connection(socketUrl(location), token, handlers);
  connection.start();
}

start();

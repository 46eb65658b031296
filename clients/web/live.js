// The middle of a live table: the auction while it lasts, then the trick. A completed trick
// stays in the middle for a moment (TRICK_HOLD_MS) before it is gathered; a player may look
// at the last trick again while the view carries it (law 66).

import { SEAT_NAME } from "./bridge.js";
import { auctionGrid, trickNode } from "./compass.js";
import { h, resultNode } from "./dom.js";
import { t } from "./i18n.js";
import { TRICK_HOLD_MS, app, state } from "./ui.js";

const holdTimers = new Map();

/** When this table's latest completed trick was first seen (keeps the moment, not the trick). */
function completedAt(board) {
  const count = board.tricks_ns + board.tricks_ew;
  const key = `${board.board}:${count}`;
  const seen = state.tricksSeen.get(board.table);
  if (seen?.key === key) return seen.at;
  const at = Date.now();
  state.tricksSeen.set(board.table, { key, at });
  return at;
}

/** Draw the page again when a held trick is due to be gathered. */
function gatherLater(table, delay) {
  clearTimeout(holdTimers.get(table));
  holdTimers.set(table, setTimeout(() => app.render(), delay + 20));
}

/** The last completed trick this viewer may see: `last_trick` (law 66), or the record's last. */
function lastTrickOf(board) {
  return board.last_trick ?? board.tricks[board.tricks.length - 1] ?? null;
}

/**
 * What goes in the middle of `board` seen from `bottom` by `me` (null for watchers): the
 * auction; the opening lead face down (`faceDown`, the view's FaceDownLead: law 41A); the
 * trick being played; the trick just completed, for a moment; the last trick when the
 * player asked to see it; the end of the board.
 */
export function liveMiddle(board, bottom, me, faceDown = null) {
  if (board.phase === "auction") return auctionGrid(board, me, me !== null ? "auction" : null);
  if (board.contract === null) return h("p", { class: "centre-note" }, t("Passed out"));
  const id = me !== null ? "trick" : null;
  if (faceDown && board.phase === "play") {
    return trickNode(board.current_trick, bottom, {
      state: "live",
      id,
      faceDown,
      caption: t("{seat} led face down", { seat: SEAT_NAME[faceDown.seat] }),
    });
  }
  const current = board.current_trick;
  const last = lastTrickOf(board);
  const held = last && (!current || current.cards.length === 0);
  const at = last ? completedAt(board) : 0;
  if (board.phase === "finished") {
    const shown = current && current.cards.length ? current : last;
    return [
      trickNode(shown, bottom, { state: current && current.cards.length ? "replay" : "complete", id }),
      board.result ? h("p", { class: "centre-note final-result" }, resultNode(board.result)) : null,
    ];
  }
  if (me !== null && state.showLastTrick && board.last_trick) {
    return trickNode(board.last_trick, bottom, {
      state: "last",
      id,
      caption: t("Last trick: won by {seat}", { seat: SEAT_NAME[board.last_trick.winner] }),
    });
  }
  const remaining = at + TRICK_HOLD_MS - Date.now();
  if (held && remaining > 0) {
    gatherLater(board.table, remaining);
    return trickNode(last, bottom, { state: "complete", id, caption: t("{seat} wins the trick", { seat: SEAT_NAME[last.winner] }) });
  }
  const caption =
    held && last ? t("Trick {number} to {seat}", { number: board.tricks_ns + board.tricks_ew, seat: SEAT_NAME[last.winner] }) : null;
  return trickNode(current, bottom, { state: "live", turn: board.turn, id, caption });
}

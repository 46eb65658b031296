"""The delta reference of ``bench/load.py``: a bare ``websockets`` server that builds each
recipient's changes by hand, straight from the action, to price our CPU per delivered frame
against the least a server of this protocol must do.

    .venv/bin/python -m bench.load_deltas --port 9000 --boards 4

It speaks the same subset of the protocol as the views reference (``bench/load_baseline.py``,
whose matches, rules and views it shares): the load's scripted players play it unchanged. A
snapshot (the first update after ``hello``) carries the whole view, built by the views
reference's builders. For a call, a card, a claim, a claim's answer and a ``next_board``, no
view is built and nothing is diffed: the action's ``events`` (as our server projects them to
each viewer) and its ``changes`` (the JSON Patch operations that our server's diff,
``protocol.changes.diff_into``, would make, its rule that a map or list more than half of
whose entries changed, two at least, is replaced whole included) are written out field by
field from what the action changed: the auction's entry, the turn, the hand a card left,
the trick, the last trick each player may still see (law 66), the claim, the legal calls or
cards of the seat to act, each seat's actions, the review's ready seats; and after a
review's end the next board's start (the board whole, as ours sends it), the comparison
(the summary's fields it moves: its event carries it) and the match's end. Each distinct
frame is packed once and shared by the recipients it is for (the table's players differ in
what they hold and may do; the spectator's paths are its table's); a recipient's own ``seq``
is put in front of the packed rest. ``tests/bench/test_load_deltas.py`` checks that those
frames equal ours for the same actions.

A board's end (its last card, the claim's last acceptance, the pass that passes it out), once
a board, is built more simply: the board replaced whole (by the views reference's builder),
its result and review added; of the same shape and size as ours.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection

from bench.load_baseline import (
    SEATS,
    Baseline,
    Data,
    Match,
    Recipient,
    Table,
    actions,
    board_phase,
    claim_data,
    claim_shown,
    current_trick,
    held,
    legal,
    options,
    run,
    sees_last_trick,
    side_tricks,
    trick_data,
    turn_and_acting,
)
from bridge import Seat, Trick

Op = dict[str, Any]

_UPDATE = msgpack.packb("type") + msgpack.packb("update") + msgpack.packb("seq")
UPDATE_HEAD = b"\x85" + _UPDATE
"""An update's first bytes, as msgpack packs ``{"type": "update", "seq": ...`` (a map of
five entries: type, seq, events, view, changes, in our server's order)."""
EVENTS_KEY = msgpack.packb("events")
CHANGES_KEYS = msgpack.packb("view") + msgpack.packb(None) + msgpack.packb("changes")


def replaced(path: str, value: Any) -> Op:
    """A ``replace`` operation (the keys in our server's order)."""
    return {"op": "replace", "path": path, "value": value}


def added(path: str, value: Any) -> Op:
    """An ``add`` operation: a new key, or an item put in a list at its place."""
    return {"op": "add", "path": path, "value": value}


def whole_or_parts(path: str, value: Any, size: int, parts: list[Op]) -> list[Op]:
    """The changes of a map or list at ``path`` (now ``value``, of ``size`` entries) whose
    changed entries made ``parts``, one operation each: the whole value when more than half
    of its entries changed, two at least (``protocol.changes.diff_into``'s rule).

    >>> whole_or_parts("/a", {"x": 1, "y": 2}, 2, [replaced("/a/x", 1), replaced("/a/y", 2)])
    [{'op': 'replace', 'path': '/a', 'value': {'x': 1, 'y': 2}}]
    """
    if len(parts) > 1 and 2 * len(parts) > size:
        return [replaced(path, value)]
    return parts


def list_changes(path: str, old: Sequence[str], new: Sequence[str], ops: list[Op]) -> None:
    """Append the changes from ``old`` to ``new``, two lists of strings, as our diff makes
    them: replaced whole when ``old`` was empty or ``new`` is shorter, else item by item.

    >>> ops: list[Op] = []
    >>> list_changes("/actions", ["claim"], ["claim", "undo"], ops)
    >>> ops
    [{'op': 'add', 'path': '/actions/1', 'value': 'undo'}]
    """
    if old == new:
        return
    if not old or len(new) < len(old):
        ops.append(replaced(path, list(new)))
        return
    parts = [
        added(f"{path}/{index}", value) if index >= len(old) else replaced(f"{path}/{index}", value)
        for index, value in enumerate(new)
        if index >= len(old) or old[index] != value
    ]
    ops += whole_or_parts(path, list(new), len(new), parts)


@dataclass(frozen=True, slots=True)
class Before:
    """What the updates of an action at a table need to know of it before the action."""

    phase: str
    calls: int
    turn: str | None
    acting: str | None
    legal: list[str] | None
    """The acting seat's legal calls or cards when it may act again after this action, else
    None (not needed)."""
    actions: dict[str, list[str]]
    trick: Trick | None
    last: Trick | None
    tricks: int
    """Tricks completed."""
    tricks_ns: int
    tricks_ew: int
    exposed: bool
    ready: list[str]

    @classmethod
    def of(cls, table: Table) -> Before:
        play = table.play
        trick = current_trick(play)
        turn, acting = turn_and_acting(table)
        # The seat that acts may act again: after the last call (the opening leader made it)
        # and after a trick's last card (its winner leads).
        calls = len(table.auction.calls)
        again = (play is None and calls >= 3) or (trick is not None and len(trick.cards) == 3)
        return cls(
            phase=board_phase(table),
            calls=calls,
            turn=turn,
            acting=acting,
            legal=legal(table) if again else None,
            actions={seat: actions(table, seat) for seat in SEATS},
            trick=trick,
            last=None if play is None else play.last_trick,
            tricks=0 if play is None else len(play.tricks),
            tricks_ns=side_tricks(play, north_south=True),
            tricks_ew=side_tricks(play, north_south=False),
            exposed=play is not None and play.is_dummy_exposed,
            ready=list(table.ready),
        )


@dataclass(eq=False)
class DeltaLink(Recipient):
    """A connection of the delta reference: its updates come packed but for their ``seq``."""

    def send(self, packed: bytes) -> None:
        """Queue an update whose fields after ``seq`` are ``packed``."""
        self.seq += 1
        self.put(UPDATE_HEAD + msgpack.packb(self.seq) + packed)


class Frames:
    """One action's updates: its events packed once, and each distinct list of changes."""

    def __init__(self, events: list[Data]) -> None:
        self.events: bytes = EVENTS_KEY + msgpack.packb(events)
        self.packed: list[tuple[list[Op], bytes]] = []

    def send(self, recipient: Recipient, changes: list[Op]) -> None:
        assert isinstance(recipient, DeltaLink)
        recipient.send(self._packed(changes))

    def _packed(self, changes: list[Op]) -> bytes:
        for known, packed in self.packed:
            if known == changes:
                return packed
        made: bytes = self.events + CHANGES_KEYS + msgpack.packb(changes)
        self.packed.append((changes, made))
        return made


def _viewers(match: Match, table: Table) -> list[tuple[str | None, str, Recipient]]:
    """The table's viewers: each player (seat, the path of their board) and each spectator
    (None, the path of the table's board in the spectator's view)."""
    found: list[tuple[str | None, str, Recipient]] = [
        (seat, "/board", link) for (at, seat), link in match.players.items() if at == table.number
    ]
    path = f"/tables/{table.number - 1}"
    found += [(None, path, link) for link in match.spectators]
    return found


SUMMARY_START: Data = {
    "standings": [
        {"competitor": "A", "name": "Team A", "players": [1, 2, 3, 4], "points": 0.0},
        {"competitor": "B", "name": "Team B", "players": [5, 6, 7, 8], "points": 0.0},
    ],
    "imps_a": 0,
    "imps_b": 0,
    "finished": False,
    "winner": None,
}
"""The match summary's fields that a comparison moves, as a match starts."""


class Deltas(Baseline):
    """The delta reference's server."""

    def __init__(self, boards: int, review_seconds: int) -> None:
        super().__init__(boards, review_seconds)
        self.shown: dict[str, Data] = {}
        """Each match's summary fields as last sent (:data:`SUMMARY_START` at first)."""
        self.waiting: dict[tuple[str, int], list[int]] = {}
        """What each table's players were last told they wait for, by match and table."""

    def recipient(self, websocket: ServerConnection) -> Recipient:
        return DeltaLink(websocket)

    def before(self, table: Table) -> Before:
        return Before.of(table)

    def publish_action(self, match: Match, table: Table, events: list[Data], before: Any) -> None:
        assert isinstance(before, Before)
        kind = events[0]["type"]
        frames = Frames(events)
        if kind == "ready_for_next":
            self._ready(match, table, frames, before)
        elif table.result is not None:
            self._board_end(match, table, frames)
        else:
            for seat, path, link in _viewers(match, table):
                if kind == "call_made":
                    changes = self._call(table, seat, path, before)
                elif kind == "card_played":
                    changes = self._card(table, seat, path, before)
                elif kind == "claim_made":
                    changes = self._claim(table, seat, path, before)
                else:
                    changes = self._answer(table, seat, path, before, events[0]["seat"])
                frames.send(link, changes)

    # -- by hand ----------------------------------------------------------------------------

    def _call(self, table: Table, seat: str | None, path: str, before: Before) -> list[Op]:
        auction = table.auction
        ops: list[Op] = []
        phase = board_phase(table)
        if phase != before.phase:
            ops.append(replaced(f"{path}/phase", phase))
        index = before.calls
        caller = SEATS[(auction.dealer + index) % 4]
        entry = {"seat": caller, "call": str(auction.calls[index]), "alert": None}
        if index:
            ops.append(added(f"{path}/auction/{index}", entry))
        else:
            ops.append(replaced(f"{path}/auction", [entry]))
        play = table.play
        if play is not None:  # the auction is over: the play starts
            ops.append(replaced(f"{path}/contract", str(play.contract)))
            ops.append(replaced(f"{path}/declarer", play.declarer.letter))
            ops.append(replaced(f"{path}/dummy", play.dummy.letter))
            trick = play.current_trick
            assert trick is not None
            ops.append(replaced(f"{path}/current_trick", trick_data(trick)))
        self._turn(table, path, before, ops)
        self._choices(table, seat, path, before, ops)
        return ops

    def _card(self, table: Table, seat: str | None, path: str, before: Before) -> list[Op]:
        play = table.play
        assert play is not None
        played = play.last_played
        assert played is not None
        owner = played[0]
        ops: list[Op] = []
        # The hands: the card's hand shrank; the opening lead shows dummy's to the players.
        deal = play.deal
        if seat is None:
            ops.append(replaced(f"{path}/hands/{owner.letter}", held(deal, play, owner)))
        else:
            mine = Seat.parse(seat)
            was = {mine, play.dummy} if before.exposed else {mine}
            now = {mine, play.dummy}
            parts = []
            for hand in Seat:
                if hand in now and hand not in was:
                    parts.append(added(f"{path}/hands/{hand.letter}", held(deal, play, hand)))
                elif hand in now and hand == owner:
                    parts.append(replaced(f"{path}/hands/{hand.letter}", held(deal, play, hand)))
            if parts:
                value = {s.letter: held(deal, play, s) for s in Seat if s in now}
                ops += whole_or_parts(f"{path}/hands", value, len(value), parts)
        ops.append(replaced(f"{path}/hand_sizes/{owner.letter}", len(play.remaining(owner))))
        # The tricks: a spectator sees them all, a player the last one (law 66).
        completed = len(play.tricks) > before.tricks
        last = play.last_trick
        if completed and seat is None:
            assert last is not None
            if before.tricks:
                ops.append(added(f"{path}/tricks/{before.tricks}", trick_data(last)))
            else:
                ops.append(replaced(f"{path}/tricks", [trick_data(last)]))
        trick = current_trick(play)
        self._last_trick(table, seat, path, before, trick, ops)
        old = before.trick
        assert old is not None
        assert trick is not None
        if completed:
            if trick.leader != old.leader:
                ops.append(replaced(f"{path}/current_trick", trick_data(trick)))
            else:
                ops.append(replaced(f"{path}/current_trick/cards", []))
        else:
            entry = {"seat": owner.letter, "card": str(trick.cards[-1])}
            if old.cards:
                ops.append(added(f"{path}/current_trick/cards/{len(old.cards)}", entry))
            else:
                ops.append(replaced(f"{path}/current_trick/cards", [entry]))
        self._turn(table, path, before, ops)
        self._choices(table, seat, path, before, ops)
        return ops

    def _last_trick(
        self,
        table: Table,
        seat: str | None,
        path: str,
        before: Before,
        trick: Trick | None,
        ops: list[Op],
    ) -> None:
        """The last trick's change for ``seat``: the one just completed, or gone from a
        player's view as their side plays to the next trick."""
        play = table.play
        assert play is not None
        last = play.last_trick
        was = before.last if sees_last_trick(table, seat, before.trick) else None
        now = last if sees_last_trick(table, seat, trick) else None
        if was == now:
            return
        if was is None or now is None:
            ops.append(replaced(f"{path}/last_trick", None if now is None else trick_data(now)))
            return
        value = trick_data(now)
        parts = []
        if was.leader != now.leader:
            parts.append(replaced(f"{path}/last_trick/leader", value["leader"]))
        parts.append(replaced(f"{path}/last_trick/cards", value["cards"]))  # four new cards
        if was.winner != now.winner:
            parts.append(replaced(f"{path}/last_trick/winner", value["winner"]))
        ops += whole_or_parts(f"{path}/last_trick", value, 3, parts)

    def _claim(self, table: Table, seat: str | None, path: str, before: Before) -> list[Op]:
        play = table.play
        claim = table.claim
        assert play is not None
        assert claim is not None
        ops = [replaced(f"{path}/phase", "claim")]
        claimer = claim.claimer
        if seat is not None and claim_shown(table, seat):
            mine = Seat.parse(seat)
            seen = {mine, play.dummy}
            if claimer not in seen:
                ops.append(added(f"{path}/hands/{claimer.letter}", held(play.deal, play, claimer)))
        self._turn(table, path, before, ops)
        ops.append(replaced(f"{path}/claim", claim_data(table, seat)))
        self._choices(table, seat, path, before, ops)
        return ops

    def _answer(
        self, table: Table, seat: str | None, path: str, before: Before, answered: str
    ) -> list[Op]:
        claim = table.claim
        assert claim is not None
        accepted = [s.letter for s in sorted(claim.accepted)]
        ops: list[Op] = []
        was = [letter for letter in accepted if letter != answered]
        list_changes(f"{path}/claim/accepted", was, accepted, ops)
        if seat is not None:
            list_changes(f"{path}/actions", before.actions[seat], actions(table, seat), ops)
        return ops

    def _turn(self, table: Table, path: str, before: Before, ops: list[Op]) -> None:
        """The turn, who acts, and the tricks each side has won."""
        turn, acting = turn_and_acting(table)
        if turn != before.turn:
            ops.append(replaced(f"{path}/turn", turn))
        if acting != before.acting:
            ops.append(replaced(f"{path}/acting", acting))
        play = table.play
        north_south = side_tricks(play, north_south=True)
        if north_south != before.tricks_ns:
            ops.append(replaced(f"{path}/tricks_ns", north_south))
        east_west = side_tricks(play, north_south=False)
        if east_west != before.tricks_ew:
            ops.append(replaced(f"{path}/tricks_ew", east_west))

    def _choices(
        self, table: Table, seat: str | None, path: str, before: Before, ops: list[Op]
    ) -> None:
        """A player's legal calls or cards and other actions."""
        if seat is None:
            return
        _turn, acting = turn_and_acting(table)
        was = seat == before.acting
        now = seat == acting
        if was and now:
            assert before.legal is not None
            list_changes(f"{path}/legal", before.legal, legal(table), ops)
        elif was:
            ops.append(replaced(f"{path}/legal", []))
        elif now:
            ops.append(replaced(f"{path}/legal", legal(table)))
        list_changes(f"{path}/actions", before.actions[seat], actions(table, seat), ops)

    def _ready(self, match: Match, table: Table, frames: Frames, before: Before) -> None:
        over = len(table.ready) == 4
        waiting = self._waiting(match, table)
        for seat, path, link in _viewers(match, table):
            changes: list[Op] = []
            if seat is not None:
                changes += waiting
                list_changes(f"{path}/actions", before.actions[seat], actions(table, seat), changes)
                if over:
                    changes.append(replaced("/review", None))
                else:
                    list_changes("/review/ready", before.ready, table.ready, changes)
            frames.send(link, changes)

    def _waiting(self, match: Match, table: Table) -> list[Op]:
        """The change of ``table``'s players' wait for the other table, if it changed since
        they were last told."""
        key = (match.match_id, table.number)
        now = match.waiting_for(table)
        if self.waiting.get(key, []) == now:
            return []
        self.waiting[key] = now
        return [replaced("/waiting_for", now)]

    def publish_started(self, match: Match, table: Table, events: list[Data]) -> None:
        frames = Frames(events)
        for seat, path, link in _viewers(match, table):
            frames.send(link, [replaced(path, match.board_view(table, seat))])

    def publish_match(self, match: Match, events: list[Data]) -> None:
        """A comparison (its event carries it) or the match's end: the summary's fields that
        moved, and the players' wait for the other table once both are done."""
        summary = match.summary()
        shown = self.shown.setdefault(match.match_id, dict(SUMMARY_START))
        changes: list[Op] = []
        for name, value in shown.items():
            if summary[name] == value:
                continue
            if name == "standings":
                changes += _standings(value, summary[name])
            else:
                changes.append(replaced(f"/match/{name}", summary[name]))
            shown[name] = summary[name]
        frames = Frames(events)
        for link in match.spectators:
            frames.send(link, changes)
        for table in match.tables.values():
            told = [*changes, *self._waiting(match, table)]
            for (at, _seat), link in match.players.items():
                if at == table.number:
                    frames.send(link, told)

    # -- a board's end: more simply ---------------------------------------------------

    def _board_end(self, match: Match, table: Table, frames: Frames) -> None:
        """A board's end: the board replaced whole, its result and review added."""
        result = table.result
        assert result is not None
        played = [replaced("/played_round", True)] if match.played(table) else []
        played += self._waiting(match, table)
        review = match.review(table)
        count = len(table.results)
        for seat, path, link in _viewers(match, table):
            changes: list[Op] = []
            if seat is not None:
                changes += played
                changes.append(replaced(path, match.board_view(table, seat)))
                if count > 1:
                    changes.append(added(f"/results/{count - 1}", result))
                else:
                    changes.append(replaced("/results", [result]))
                changes.append(replaced("/review", review))
            else:
                changes.append(replaced(path, match.board_view(table, None)))
                # The spectator's results: table 1's, then table 2's.
                place = sum(len(t.results) for t in match.tables.values() if t is not table)
                place = len(table.results) - 1 + (place if table.number == 2 else 0)
                if sum(len(t.results) for t in match.tables.values()) > 1:
                    changes.append(added(f"/results/{place}", result))
                else:
                    changes.append(replaced("/results", [result]))
            frames.send(link, changes)


def _standings(old: list[Data], new: list[Data]) -> list[Op]:
    """The standings' changes: a team's points, or both teams when the leader changed."""
    parts = []
    for index, (was, now) in enumerate(zip(old, new, strict=True)):
        if was == now:
            continue
        if was["competitor"] == now["competitor"]:
            parts.append(replaced(f"/match/standings/{index}/points", now["points"]))
        else:
            parts.append(replaced(f"/match/standings/{index}", now))
    return whole_or_parts("/match/standings", new, len(new), parts)


def main() -> None:
    args = options((__doc__ or "").split("\n\n")[0])
    asyncio.run(run(Deltas(args.boards, args.review_seconds), args.port, "Delta reference"))


if __name__ == "__main__":
    main()

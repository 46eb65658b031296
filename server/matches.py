"""One match in one process: the single writer of its logs, and the fan-out to its viewers.

Every action runs under the match's lock: check it by applying it to the state (the laws
refuse it: an error, nothing changed), append it to the store (only then is it accepted),
then give each connected viewer its update (:mod:`server.views` says what it is told and
sees, :mod:`server.frames` sends what changed in its view), and acknowledge. Per-viewer
sequence numbers count the entries of the viewer's log that reach the viewer (a player: at
the tables where they sat, round by round), so they survive restarts: a client that comes
back with the last number it saw (and the view it left) gets exactly what it missed,
regenerated from the logs.

Besides the players' and the director's actions, the runtime logs what happens to the
table by itself: a seat's player connecting or going away, and the end of a finished
board's review when its time is up.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import math
import random
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgpack
from redis.exceptions import RedisError

from bridge import BridgeError, Claim, IllegalCall, IllegalPlay, OutOfTurn, Seat, WrongPhase
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    AdjustScore,
    AnswerClaim,
    AnswerUndo,
    AskAboutCall,
    AssignResult,
    BoardRecord,
    CallDirector,
    CloseCalls,
    DecideWithdrawal,
    ExplainCall,
    FaceLead,
    MakeCall,
    MakeClaim,
    NextBoard,
    PlayCard,
    Rule,
    SeeCalls,
    SendChat,
    SetName,
    StartRound,
    TableAction,
    Undo,
    VoidBoard,
    WithdrawClaim,
    WithdrawConcession,
)
from robots.play import surely_taken
from server.config import Analysis, BoardSpec, MatchConfig
from server.fanout import CLOSE_WAIT, stop
from server.frames import Publication, Sent
from server.state import (
    EXTRA_EVENTS,
    MATCH_EVENTS,
    PLAY_EVENTS,
    BoardState,
    Checkpoint,
    Effect,
    MatchState,
    StoredEvent,
    result_to_json,
)
from server.store import Appended, Conflict, MatchLogs, ResultChange, Store
from server.views import (
    Player,
    Seated,
    Viewer,
    Watcher,
    board_record,
    receives,
    seated,
)

if TYPE_CHECKING:
    from server.fanout import Fanout

__all__ = [
    "RESUME_LIMIT",
    "MatchRuntime",
    "Subscriber",
    "TableAction",
    "fold",
    "now_ms",
    "players_of",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

CONFLICT_RETRIES = 16
"""How often an action is checked again after another process appended to its match first,
before it is refused as ``unavailable`` (a table acts one seat at a time: rarely more than
once)."""
CONFLICT_BACKOFF = 0.002
"""Seconds: after its n-th conflict an attempt waits up to n times this (at random) before
the next, so that two processes writing one match flat out do not keep colliding."""
RESUME_LIMIT = 64
"""A viewer that missed more updates than this gets one snapshot instead of each of them."""
RESUME_EVERY = 128
"""Entries of the watchers' log between two resume points (:class:`ResumePoint`)."""
REGENERATION_SLICE = 0.001
"""Seconds a regeneration works before it lets the event loop serve everything else."""
RESUME_POINTS = 4
"""Resume points kept: a resume folds from the latest one before what the viewer missed
(folding the whole log only when it missed more than these reach back)."""

WATCH_MODES: tuple[Literal["live", "delayed", "director"], ...] = ("live", "delayed", "director")

Entry = bytes
"""An entry of the watchers' log as a runtime keeps it: its table (0: the match's) and its
event, packed together (:func:`pack_entry`). A match's log grows by an entry an action,
and is read again only to regenerate a resuming viewer's updates: packed, it costs a fifth
of the memory of its events as dicts (a 16-board match's 2,000 entries: about 200 KiB
against 970 KiB as the store's read decodes them), and nothing for the collector to walk."""


def pack_entry(table: int, event: StoredEvent) -> Entry:
    packed: bytes = msgpack.packb((table, event), use_bin_type=True)
    return packed


def unpack_entry(entry: Entry) -> tuple[int, StoredEvent]:
    table, event = msgpack.unpackb(entry, raw=False, strict_map_key=False)
    return table, event


def players_of(config: MatchConfig) -> tuple[Player, ...]:
    """Every player of the match's movement."""
    return tuple(Player(number) for number in config.movement.players)


def now_ms() -> int:
    """The server's clock, in milliseconds since the epoch (the ``at`` of logged events)."""
    return int(time.time() * 1000)


@dataclass(eq=False)
class Subscriber:
    """A connected viewer: where its frames go, and the last sequence number it was sent."""

    viewer: Viewer
    send: Callable[[bytes], None]
    """Queues a frame for the connection; never blocks (a connection that falls too far
    behind is closed by its owner and resumes later)."""
    sent_seq: int = 0
    robot: bool = False
    """The client said it is a program playing by itself."""
    close: Callable[[], None] = field(default=lambda: None)
    """Closes the connection (its seat was given to someone else)."""


def wire_error(error: BridgeError, action: object) -> ProtocolError:
    """The one table from the laws' refusals to the protocol's error codes."""
    message = str(error)
    if isinstance(error, OutOfTurn):
        return ProtocolError(ErrorCode.OUT_OF_TURN, message)
    if isinstance(error, WrongPhase):
        return ProtocolError(ErrorCode.WRONG_PHASE, message)
    if isinstance(error, IllegalCall):
        return ProtocolError(ErrorCode.ILLEGAL_CALL, message)
    if isinstance(error, IllegalPlay):
        claims = isinstance(
            action,
            MakeClaim | AnswerClaim | WithdrawClaim | WithdrawConcession | DecideWithdrawal | Rule,
        )
        return ProtocolError(ErrorCode.ILLEGAL_CLAIM if claims else ErrorCode.ILLEGAL_CARD, message)
    return ProtocolError(ErrorCode.INVALID_MESSAGE, message)


def _forbidden(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.FORBIDDEN, message)


EXTRA_LIMIT = 60
"""How many events besides calls and cards (chat lines, claims, undo requests, questions...)
one seat may log per board: enough for any game, and a bound on any log."""
PRESENCE_LIMIT = 60
"""Changes of one seat's presence logged per board (a seat that keeps reconnecting)."""
DIRECTOR_CHAT_LIMIT = 100
"""How many chat lines the director may send one table per board. A director answers a
call or announces the time in a line or two, and explains a ruling in a few: a hundred is a
line every six seconds through a ten-minute board, at that one table, which no director
types. It bounds what the director's link (a credential that can leak like any other) can
add to a match's logs: at most this many lines of 300 characters per table and board."""


def fold(
    config: MatchConfig,
    tables: dict[int, list[StoredEvent]],
    entries: Iterable[tuple[int, StoredEvent]],
) -> MatchState:
    """A state folded from ``entries``. In a robot-table match table 2 is the robots' whole
    table, stored at creation: it is folded first (its boards are shown only once compared,
    by the views)."""
    state = MatchState(config)
    if config.format == "robot-table":
        for event in tables[2]:
            if event["type"] not in MATCH_EVENTS:
                state.apply(2, event)
    for table, event in entries:
        state.apply(table, event)
    return state


def _audience(state: MatchState, table: int) -> list[Viewer]:
    """Who may receive an entry of ``table``'s log now: the watchers and the players who
    sit there in its round (:func:`receives` says which of them do)."""
    sitting = state.config.movement.at(state.table_round(table), table)
    players = [] if sitting is None else [Player(p) for p in sitting.players]
    return [*(Watcher(mode) for mode in WATCH_MODES), *players]


def _actor(state: MatchState, table: int, event: StoredEvent) -> Viewer:
    """Who logged a table event: the player at the seat named in it, else the director."""
    seat = event.get("seat")
    if seat is None:
        return Watcher("director")
    player = state.player_at(table, Seat.parse(seat))
    return Watcher("director") if player is None else Player(player)


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """The match as it stood after the first ``index`` entries of the watchers' log: its
    state (a fork, never folded further: each resume forks it again) and each viewer's
    sequence number then. A resume regenerates a viewer's missed updates from the latest
    point before them, so that its cost does not grow with the log."""

    index: int
    state: MatchState
    seq: dict[Viewer, int]

    @classmethod
    def of(cls, index: int, state: MatchState, seq: dict[Viewer, int]) -> ResumePoint:
        return cls(index, state.fork(), dict(seq))


@dataclass
class Loaded:
    """A match read back and folded (pure, so it may run off the event loop): its watchers'
    log (packed), its state, each viewer's newest sequence number, the sequence number of
    the update that recorded each action with an ``action_id``, and where a resume can
    fold from."""

    watch: list[Entry]
    state: MatchState
    seq: dict[Viewer, int]
    acked: dict[Viewer, dict[str, int]]
    origin: ResumePoint
    """The match before the watchers' log's first entry."""
    last_id: str = "0-0"
    """The store's id of the watchers' log's last entry folded."""
    points: list[ResumePoint] = field(default_factory=list)
    """The resume points of the log's last entries."""

    @classmethod
    def of(cls, logs: MatchLogs) -> Loaded:
        """Fold the watchers' log once, counting each viewer's updates on the way (who
        receives an entry depends on who sat at its table then), and keep resume points."""
        viewers: list[Viewer] = [Watcher(mode) for mode in WATCH_MODES]
        viewers += players_of(logs.config)
        seq: dict[Viewer, int] = dict.fromkeys(viewers, 0)
        acked: dict[Viewer, dict[str, int]] = {}
        state = fold(logs.config, logs.tables, ())
        origin = ResumePoint.of(0, state, seq)
        points: list[ResumePoint] = []
        watch: list[Entry] = []
        kept_from = len(logs.watch) - RESUME_EVERY * RESUME_POINTS
        for index, (table, event) in enumerate(logs.watch, start=1):
            state.apply(table, event)
            count(state, table, event, seq, acked)
            watch.append(pack_entry(table, event))
            if index % RESUME_EVERY == 0 and index > kept_from:
                points.append(ResumePoint.of(index, state, seq))
        return cls(watch, state, seq, acked, origin, logs.last_id, points)


def count(
    state: MatchState,
    table: int,
    event: StoredEvent,
    seq: dict[Viewer, int],
    acked: dict[Viewer, dict[str, int]],
) -> set[Viewer]:
    """Count a folded entry in the sequence numbers of the viewers who receive it, and
    record the number at which its actor's update recorded an action's ``action_id``;
    returns those viewers."""
    actor = None
    if "id" in event:  # the director's match events (start_round) are theirs
        actor = Watcher("director") if table == 0 else _actor(state, table, event)
    received: set[Viewer] = set()
    for viewer in seq if table == 0 else _audience(state, table):
        if not receives(state, viewer, table, event):
            continue
        received.add(viewer)
        seq[viewer] += 1
        if actor == viewer:
            acked.setdefault(viewer, {})[event["id"]] = seq[viewer]
    fixed = event.get("fix") if event["type"] == "compared" else None
    if fixed and "id" in fixed:
        # The first comparison that carries the fix records it (a board compared again
        # later carries it too).
        director = Watcher("director")
        acked.setdefault(director, {}).setdefault(fixed["id"], seq[director])
    return received


Regenerated = tuple[list[bytes], MatchState, int, Sent | None]
"""What :func:`regenerate` gives: frames, the state folded, the last number, the view sent."""


def regenerate(
    entries: Iterable[Entry], viewer: Viewer, after: int, point: ResumePoint
) -> Regenerated:
    """The frames of ``viewer``'s updates after ``after`` (> 0) in ``entries`` (the
    watchers' log from ``point`` on), each as it was first sent (the changes since the view
    of the update before); the state folded through them, the last number, and the view
    sent last. Pure."""
    result = _run(regenerating(entries, viewer, after, point), math.inf)
    assert result is not None
    return result


def regenerating(
    entries: Iterable[Entry], viewer: Viewer, after: int, point: ResumePoint
) -> Generator[None, None, Regenerated]:
    """:func:`regenerate`, an entry at a time: it yields after each (its caller lets other
    work run in between) and returns what :func:`regenerate` returns."""
    state, seq = point.state.fork(), point.seq.get(viewer, 0)
    assert seq < after, (seq, after)
    frames = []
    sent: Sent | None = None
    for entry in entries:
        table, event = unpack_entry(entry)
        effect = state.apply(table, event)
        if receives(state, viewer, table, event):
            seq += 1
            if seq == after:
                sent = Publication(state, table, event, effect).sent(viewer)
            elif seq > after:
                frame, sent = Publication(state, table, event, effect).frame(viewer, seq, sent)
                frames.append(frame)
        yield
    return frames, state, seq, sent


_REGENERATING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


async def regenerate_in_slices(steps: Generator[None, None, Regenerated]) -> Regenerated:
    """Run a regeneration on the event loop, :data:`REGENERATION_SLICE` at a time and one at
    a time in the process: a resume storm costs every other connection at most a slice per
    turn of the loop. (In a thread it cost them far more: a thread that computes holds the
    GIL, and the loop waits for it after every socket call. Measured by ``bench.hostile``.)"""
    lock = _REGENERATING.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    async with lock:
        while (result := _run(steps, time.perf_counter() + REGENERATION_SLICE)) is None:
            await asyncio.sleep(0)
        return result


def _run(steps: Generator[None, None, Regenerated], until: float) -> Regenerated | None:
    """Step a regeneration until it ends (what it gives) or ``time.perf_counter()`` passes
    ``until`` (None: not over yet)."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: Regenerated = done.value
            return result
        if time.perf_counter() >= until:
            return None


class MatchRuntime:
    """The live match: logs mirrored from the store, the folded state, the subscribers."""

    def __init__(
        self,
        store: Store,
        logs: MatchLogs,
        *,
        loaded: Loaded | None = None,
        presence_grace: float = 2.0,
        fanout: Fanout | None = None,
    ) -> None:
        self.store = store
        self.fanout = fanout
        """This process among others on the store: where the news of other processes'
        appends comes from, and where players' connections elsewhere are counted (None: this
        process alone serves the match)."""
        self.config = logs.config
        self.lock = asyncio.Lock()
        self.subscribers: set[Subscriber] = set()
        self.presence_grace = presence_grace
        """Seconds a seat whose last connection closed waits before it shows as away: a
        connection that blinks shows nothing (and logs nothing)."""
        self._timers: dict[int, tuple[int, asyncio.Task[None]]] = {}
        """Each table's review timer: (board, task)."""
        self._clocks: dict[int, tuple[int, asyncio.Task[None]]] = {}
        """Each table's round clock timer: (round, task)."""
        self._rulings: dict[int, tuple[int, asyncio.Task[None]]] = {}
        """Each table's ruling on a claim a program disputed, to be logged: (board, task)."""
        self._away: dict[Player, asyncio.Task[None]] = {}
        self._marking: set[asyncio.Task[None]] = set()
        """The away marks past their grace, logging the seat's presence: no longer in
        :attr:`_away` (a player back meanwhile does not cancel them), but waited for when
        the runtime closes (cancelled in the middle, a Redis command may leave its
        connection open; left running, one would use the store after the server closed)."""
        self._generation = 0
        self._sent: dict[Viewer, Sent] = {}
        """The view each viewer with a connection here was last sent (its next update
        carries what changed since; a viewer without one here gets its whole view)."""
        self._load(loaded or Loaded.of(logs))
        self._stale = False
        self._news = 0
        """The longest the store said the match's log is."""
        self._reader: asyncio.Task[None] | None = None
        self._regenerations: dict[tuple[Viewer, int, int, int], asyncio.Future[Regenerated]] = {}
        """The regenerations under way, by viewer, ``last_seq``, generation and log length."""
        self._counted: dict[int, tuple[int, int]] = {}
        """Each player's connections here (and robots' among them) as last recorded in the
        store."""

    @classmethod
    async def open(
        cls,
        store: Store,
        logs: MatchLogs,
        *,
        presence_grace: float = 2.0,
        fanout: Fanout | None = None,
    ) -> MatchRuntime:
        """A runtime for ``logs``, folded off the event loop (a long log takes a while)."""
        loaded = await asyncio.to_thread(Loaded.of, logs)
        return cls(store, logs, loaded=loaded, presence_grace=presence_grace, fanout=fanout)

    def _load(self, loaded: Loaded) -> None:
        self.watch = loaded.watch
        self._origin = loaded.origin
        self.state = loaded.state
        self._seq = loaded.seq
        self._acked = loaded.acked
        self.last_id = loaded.last_id
        self._points = collections.deque(loaded.points, maxlen=RESUME_POINTS)
        self._generation += 1

    def _point_before(self, viewer: Viewer, after: int) -> ResumePoint:
        """The latest resume point before ``viewer``'s update ``after`` (the match's origin
        when none reaches back that far)."""
        for point in reversed(self._points):
            if point.seq.get(viewer, 0) < after:
                return point
        return self._origin

    async def close(self) -> None:
        """Stop the review and clock timers and the pending away marks (a stopped server's
        successor restarts the timers and marks every seat away)."""
        timed = (*self._timers.values(), *self._clocks.values(), *self._rulings.values())
        tasks = [task for _key, task in timed]
        tasks += self._away.values()
        if self._reader is not None:
            tasks.append(self._reader)
        await stop(*tasks)
        if self._marking:  # a few commands each: let them end
            await asyncio.wait(list(self._marking), timeout=CLOSE_WAIT)
            await stop(*self._marking)
        self._timers.clear()
        self._clocks.clear()
        self._rulings.clear()
        self._away.clear()

    # -- sequence numbers and catching up ----------------------------------------------

    def _entries(self, viewer: Viewer) -> list[Entry]:
        """The log ``viewer``'s updates come from: the watchers' log, all of it (a player's
        are the entries of the tables where they sat, and the match events)."""
        return self.watch

    def seq_of(self, viewer: Viewer) -> int:
        """The newest sequence number of ``viewer``'s log."""
        return self._seq[viewer]

    def _needs_regenerating(self, viewer: Viewer, after: int) -> bool:
        current = self.seq_of(viewer)
        return 0 < after < current and current - after <= RESUME_LIMIT

    def _quick_catch_up(self, viewer: Viewer, after: int) -> list[bytes]:
        """What a viewer that saw ``after`` missed, when no update is to be regenerated:
        nothing, or one snapshot (a fresh start, or more than RESUME_LIMIT missed)."""
        current = self.seq_of(viewer)
        if after >= current:
            return []
        frame, self._sent[viewer] = Publication(self.state).frame(viewer, current, None)
        return [frame]

    async def join(
        self, subscriber: Subscriber, last_seq: int | None, welcome: Callable[[int], bytes]
    ) -> None:
        """Start live delivery to a viewer: queue ``welcome(newest seq)``, then what it missed
        since ``last_seq``: every update regenerated from the logs as it was first sent, or one
        snapshot when that is shorter (a fresh start, or more than RESUME_LIMIT missed); then
        every update from now on. A player's seat is marked connected.

        Regenerating means folding the viewer's log from the latest resume point before what
        it missed: that runs outside the match's lock, in slices between which the event loop
        serves everyone else, so that it costs the resuming client time and nobody else much
        (only the entries logged meanwhile are folded under the lock). The viewer's other
        devices, and every spectator of one kind (one viewer), resuming from the same update
        meanwhile share one regeneration."""
        viewer = subscriber.viewer
        after = last_seq or 0
        async with self.holding():
            await self._ensure_fresh()
            await self._pull()  # what other processes appended: the client may have seen it
            current = self.seq_of(viewer)
            if after > current:
                raise ProtocolError(
                    ErrorCode.BAD_SEQUENCE, f"last_seq {after} is ahead of this log ({current})"
                )
            if not self._needs_regenerating(viewer, after):
                self._start_delivery(subscriber, welcome, self._quick_catch_up(viewer, after))
                await self._note_joined(subscriber)
                return
            generation = self._generation
            folded = len(self._entries(viewer))
            key = (viewer, after, generation, folded)
            shared = self._regenerations.get(key)
            if shared is None:
                point = self._point_before(viewer, after)
                entries = self._entries(viewer)[point.index :]
                shared = asyncio.ensure_future(
                    regenerate_in_slices(regenerating(entries, viewer, after, point))
                )
                self._regenerations[key] = shared
                shared.add_done_callback(lambda _done: self._regenerations.pop(key, None))
        regenerated, state, seq, sent = await asyncio.shield(shared)
        frames = list(regenerated)
        async with self.holding():
            await self._ensure_fresh()
            await self._pull()
            if generation != self._generation:
                # The logs were read back from the store meanwhile: start again, simply.
                frames = self._quick_catch_up(viewer, after)
            else:
                newer = self._entries(viewer)[folded:]
                if newer:
                    state = state.fork()  # others may share the regenerated state
                for entry in newer:
                    table, event = unpack_entry(entry)
                    effect = state.apply(table, event)
                    if receives(state, viewer, table, event):
                        seq += 1
                        publication = Publication(state, table, event, effect)
                        frame, sent = publication.frame(viewer, seq, sent)
                        frames.append(frame)
                assert seq == self.seq_of(viewer), (seq, self.seq_of(viewer))
                assert sent is not None
                self._sent[viewer] = sent
            self._start_delivery(subscriber, welcome, frames)
            await self._note_joined(subscriber)

    async def _note_joined(self, subscriber: Subscriber) -> None:
        """Log a joining seat's presence. When the store cannot take it, the join fails as a
        whole: the connection, welcomed already, is closed (its client comes back and
        resumes), and no delivery is left running to it.

        The connection is counted first: another process that settles the match's presence
        meanwhile must not find the seat connected in the log and nowhere in the counts."""
        await self._count_connections(subscriber.viewer)
        try:
            await self._note_presence(subscriber.viewer)
        except ProtocolError:
            self._unsubscribe(subscriber)
            subscriber.close()
            await self._count_connections(subscriber.viewer)
            raise

    def _start_delivery(
        self, subscriber: Subscriber, welcome: Callable[[int], bytes], frames: list[bytes]
    ) -> None:
        subscriber.send(welcome(self.seq_of(subscriber.viewer)))
        for frame in frames:
            subscriber.send(frame)
        subscriber.sent_seq = self.seq_of(subscriber.viewer)
        self.subscribers.add(subscriber)
        away = (
            self._away.pop(subscriber.viewer, None)
            if isinstance(subscriber.viewer, Player)
            else None
        )
        if away is not None:
            away.cancel()  # back within the grace: nobody was told it had gone

    def catch_up(self, viewer: Viewer, after: int) -> list[bytes]:
        """The frames after ``after`` up to now, computed here and now (after a reload)."""
        if not self._needs_regenerating(viewer, after):
            return self._quick_catch_up(viewer, after)
        point = self._point_before(viewer, after)
        entries = self._entries(viewer)[point.index :]
        frames, _state, _seq, sent = regenerate(entries, viewer, after, point)
        assert sent is not None
        self._sent[viewer] = sent
        return frames

    def _unsubscribe(self, subscriber: Subscriber) -> None:
        """Stop delivery to a subscriber; the view its viewer was sent is forgotten with the
        viewer's last subscriber here."""
        self.subscribers.discard(subscriber)
        if not any(s.viewer == subscriber.viewer for s in self.subscribers):
            self._sent.pop(subscriber.viewer, None)

    async def leave(self, subscriber: Subscriber) -> None:
        """Stop delivery to a viewer. A player's seat with no connection left is marked away,
        after :attr:`presence_grace` seconds if it is still so then."""
        self._unsubscribe(subscriber)
        viewer = subscriber.viewer
        await self._count_connections(viewer)
        if not isinstance(viewer, Player) or any(s.viewer == viewer for s in self.subscribers):
            return
        pending = self._away.pop(viewer, None)
        if pending is not None:
            pending.cancel()
        self._away[viewer] = asyncio.create_task(self._mark_away(viewer))

    async def _mark_away(self, player: Player) -> None:
        await asyncio.sleep(self.presence_grace)
        me = asyncio.current_task()
        assert me is not None
        async with self.holding():
            if self._away.get(player) is me:
                del self._away[player]
            self._marking.add(me)
            try:
                await self._ensure_fresh()
                await self._note_presence(player)
            except ProtocolError as error:
                log.warning("match %s: presence not logged: %s", self.config.match_id, error)
            finally:
                self._marking.discard(me)

    async def settle_presence(self) -> None:
        """Make the log's presence agree with the connections: mark away the seats the log
        says are connected but have no connection here or on another live process (after a
        restart, or when a process died), and connected again those with one here that the
        log says are away (the other processes counted this one dead while it stalled). A
        seat whose last connection here closed within the grace is left to its away mark."""
        async with self.holding():
            await self._ensure_fresh()
            await self._pull()  # what other processes appended since the match was read
            here = {s.viewer for s in self.subscribers}
            for player in players_of(self.config):
                if player in self._away:
                    continue
                if self.state.people[player.number].connected or player in here:
                    await self._note_presence(player)

    async def _count_connections(self, viewer: Viewer) -> None:
        """Record in the store how many connections a player has here, for the other
        processes serving the match to know (a failure is logged: presence errs, no more)."""
        if self.fanout is None or not isinstance(viewer, Player):
            return
        mine = [s for s in self.subscribers if s.viewer == viewer]
        counted = (len(mine), sum(s.robot for s in mine))
        if self._counted.get(viewer.number, (0, 0)) == counted:
            return
        self._counted[viewer.number] = counted
        try:
            await self.store.set_connections(
                self.config.match_id, viewer.number, self.fanout.process, *counted
            )
        except (RedisError, OSError) as error:
            self._counted.pop(viewer.number, None)
            log.warning("match %s: connections not counted: %s", self.config.match_id, error)

    async def _elsewhere(self, player: int) -> tuple[bool, bool]:
        """Whether ``player`` has a connection on another live process, and a robot's."""
        if self.fanout is None:
            return False, False
        try:
            alive = await self.fanout.alive()
            counts = await self.store.connections(self.config.match_id)
        except (RedisError, OSError):
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the match store is unavailable; try again"
            ) from None
        found = [
            value
            for (who, process), value in counts.items()
            if who == player and process != self.fanout.process and process in alive
        ]
        return any(c for c, _r in found), any(r for _c, r in found)

    async def _note_presence(self, viewer: Viewer) -> None:
        """Log the seat's presence if it changed: connected while any connection of the seat
        is here or on another live process, a robot when one of them says so."""
        if not isinstance(viewer, Player):
            return
        mine = [s for s in self.subscribers if s.viewer == viewer]
        person = self.state.people[viewer.number]
        connected = bool(mine)
        robot = any(s.robot for s in mine) or person.server_robot
        if (person.connected, person.robot) == (connected, robot):
            return
        if not connected or (person.robot and not robot):
            # Going away, or no longer a robot's: unless so on another process too.
            there, robot_there = await self._elsewhere(viewer.number)
            connected, robot = connected or there, robot or robot_there
            if (person.connected, person.robot) == (connected, robot):
                return

        async def note() -> None:
            person = self.state.people[viewer.number]
            if (person.connected, person.robot) == (connected, robot):
                return  # another process noted it meanwhile
            at = self._seated(viewer)
            if self.state.presences(at.table, at.seat) >= PRESENCE_LIMIT:
                # A connection that comes and goes without end grows the log no further this
                # board: its seat shows as it was last noted until the next board.
                return
            event: StoredEvent = {
                "type": "presence",
                "seat": at.seat.letter,
                "connected": connected,
                "robot": robot,
                "at": now_ms(),
            }
            await self._append(at.table, event, None)

        await self._retrying(note)

    def _seated(self, player: Player) -> Seated:
        """Where ``player`` sits now (every movement here seats every player every round)."""
        at = seated(self.state, player.number)
        if at is None:
            raise ProtocolError(ErrorCode.WRONG_PHASE, "you do not play in this round")
        return at

    # -- actions -------------------------------------------------------------------------

    async def act(self, viewer: Viewer, action: TableAction) -> tuple[int, bool]:
        """Check, store and publish one action; returns the acting viewer's sequence number
        of the update that records it, and whether the action's ``action_id`` had been
        applied already (then nothing is done again). Raises ProtocolError, changing nothing.

        What can be refused is refused before waiting for the match's lock: how long a
        refusal takes then tells nothing of what the other table is doing. (A lock that is
        free, with no news to read first, is taken at once: the same checks under it, the
        laws in the fold itself, refuse as soon, and an action that is accepted is not
        tried twice.)"""
        action_id = action.action_id
        acked = self._acked_at(viewer, action_id)
        if acked is not None:
            return acked, True
        if isinstance(action, AdjustScore | VoidBoard):
            self._require_director(viewer)
        elif self._checked_before_lock():
            self._check(viewer, action, *self._event_for(viewer, action))

        async def attempt() -> tuple[int, bool]:
            acked = self._acked_at(viewer, action_id)
            if acked is not None:
                return acked, True
            if isinstance(action, AdjustScore | VoidBoard):
                seq = await self._fix(viewer, action)
            else:
                table, event = self._event_for(viewer, action)
                self._check(viewer, action, table, event, laws=False)
                if action_id is not None:
                    event["id"] = action_id
                seq = await self._append(table, event, action, viewer)
            if action_id is not None:
                self._acked.setdefault(viewer, {})[action_id] = seq
            return seq, False

        async with self.holding():
            return await self._retrying(attempt)

    def _acked_at(self, viewer: Viewer, action_id: str | None) -> int | None:
        """The sequence number of ``viewer``'s update that recorded its action ``action_id``
        (None: no such action was applied, or it has no id)."""
        return None if action_id is None else self._acked.get(viewer, {}).get(action_id)

    def _checked_before_lock(self) -> bool:
        """Whether an action is checked before the lock is taken: it would wait before the
        state is tried under the lock (the lock is held, or news is to be read first), and
        the state is not stale (a stale state is read back under the lock before anything
        is checked: nothing can be refused before that)."""
        return not self._stale and (self.lock.locked() or self._news > len(self.watch))

    async def _retrying(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run ``attempt`` (under the lock) against the state as the store has it: when
        another process appended to the match first, the attempt stored nothing; it runs
        again on the state with those entries folded in (and may be refused now)."""
        for conflicts in range(CONFLICT_RETRIES):
            if conflicts:
                await asyncio.sleep(random.uniform(0, CONFLICT_BACKOFF * conflicts))
            await self._ensure_fresh()
            if self._news > len(self.watch):
                await self._pull()  # announced already: no need to learn it by a conflict
            try:
                return await attempt()
            except Conflict:
                continue
        raise ProtocolError(
            ErrorCode.UNAVAILABLE, "the match is too busy to take this now; try again"
        )

    def _check(
        self,
        viewer: Viewer,
        action: TableAction,
        table: int,
        event: StoredEvent,
        *,
        laws: bool = True,
    ) -> None:
        """Refuse an action the match's state or limits refuse now (``laws``: also what the
        laws refuse, tried on a copy of the board: the fold checks that again when it
        applies it)."""
        kind = event["type"]
        if self.state.finished and kind in PLAY_EVENTS:
            raise ProtocolError(ErrorCode.WRONG_PHASE, "the match is over")
        seat = Seat.parse(event["seat"]) if isinstance(viewer, Player) else None
        if (
            seat is not None
            and kind in EXTRA_EVENTS
            and self.state.extras(table, seat) >= EXTRA_LIMIT
        ):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"too much for one board: a seat may send {EXTRA_LIMIT} chat lines, "
                "claims, undo requests, questions and the like per board",
            )
        if (
            kind == "chat"
            and seat is None
            and self.state.director_lines(table) >= DIRECTOR_CHAT_LIMIT
        ):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"too much for one board: the director may send {DIRECTOR_CHAT_LIMIT} chat "
                "lines per table per board",
            )
        if kind == "ready" and seat is not None:
            board = self.state.tables[table].current
            if board is not None and seat in board.ready:
                raise ProtocolError(
                    ErrorCode.WRONG_PHASE, "you have asked for the next board already"
                )
        if laws and isinstance(viewer, Player):
            try:
                self.state.check(table, event)
            except BridgeError as error:
                raise wire_error(error, action) from None

    async def _append(
        self,
        table: int,
        event: StoredEvent,
        action: object,
        viewer: Viewer | None = None,
    ) -> int:
        """Apply ``event`` at ``table``, store it with what it entails, publish it; returns
        ``viewer``'s sequence number of the update recording it (0 without a viewer)."""
        saved = self.state.checkpoint(table, event)
        try:
            effect = self.state.apply(table, event)
        except BridgeError as error:
            self.state.restore(saved)
            raise wire_error(error, action) from None
        board = effect.board
        change = None
        starts: list[tuple[int, StoredEvent]] = []
        if effect.committed and board is not None:
            if board.result is not None:
                result = result_to_json(board.result, board.decided)
                change = self._change("commit", board, table, result)
            starts = self.state.starts(event.get("at", now_ms()))
        elif event["type"] == "assign" and board is not None and board.committed:
            assert board.result is not None
            result = result_to_json(board.result, "assigned")
            change = self._change("assign", board, table, result)
        elif event["type"] == "release":
            starts = self.state.starts(event.get("at", now_ms()))
        appended = await self._store(table, event, change, starts, saved)
        self._publish(table, event, effect)
        seq = 0 if viewer is None else self.seq_of(viewer)
        await self._after(appended)
        return seq

    def _change(
        self,
        kind: Literal["commit", "assign"],
        board: BoardState,
        table: int,
        result: dict[str, Any],
    ) -> ResultChange:
        """Store ``table``'s result of ``board``, to be compared with its other plays."""
        number = board.spec.number
        plays = self.config.movement.plays(number)
        return ResultChange(kind, number, result, plays, (board.round, table))

    async def _fix(self, viewer: Viewer, action: AdjustScore | VoidBoard) -> int:
        """The director voids a board or gives it an artificial score: published to everyone
        at once; a table playing the board stops and goes on to its next one."""
        self._require_director(viewer)
        if isinstance(action, AdjustScore) and not self.config.teams:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                "adjust_score gives a team IMPs: this match is not between teams; void the "
                "board or assign the tables' results",
            )
        self._board_in_match(action.board)
        payload: dict[str, object] = (
            {"kind": "void"}
            if isinstance(action, VoidBoard)
            else {"kind": "artificial", "imps_a": action.imps_a}
        )
        if action.action_id is not None:
            payload["id"] = action.action_id
        plays = self.config.movement.plays(action.board)
        appended = await self._store(0, None, ResultChange("fix", action.board, payload, plays), [])
        return await self._after(appended, viewer)

    async def _store(
        self,
        table: int,
        event: StoredEvent | None,
        change: ResultChange | None,
        starts: list[tuple[int, StoredEvent]],
        saved: Checkpoint | None = None,
    ) -> Appended:
        """Store what an event entails (``saved``: the state before the event, which it
        holds already). On a conflict nothing was stored: the state is restored, the other
        processes' entries are read, and :class:`Conflict` tells the caller to try again."""
        # From here the state may hold the event; until the store confirms it, a failure
        # leaves it unknown whether it was stored: reload before the next action.
        self._stale = True
        try:
            appended = await self.store.append(
                self.config.match_id,
                table,
                event,
                change,
                starts,
                len(self.config.boards),
                self.config.tables,
                expected=len(self.watch),
                listening=self.fanout is not None and self.fanout.listening(self.config.match_id),
            )
        except Conflict:
            if saved is not None:
                self.state.restore(saved)
            self._stale = False
            await self._pull()
            raise
        except (RedisError, OSError) as error:
            log.warning("match %s: store unavailable: %s", self.config.match_id, error)
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the match store is unavailable; try again"
            ) from None
        self._stale = False
        if appended.last_id:
            self.last_id = appended.last_id
        return appended

    async def _pull(self) -> None:
        """Read the entries other processes appended to the match since the last one folded
        here, fold them, and give each subscriber here its updates. (Under the lock.)"""
        try:
            entries, last_id = await self.store.entries_after(self.config.match_id, self.last_id)
        except (RedisError, OSError):
            self._stale = True  # read back whole once the store is there
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the match store is unavailable; try again"
            ) from None
        for table, event in entries:
            try:
                effect = self.state.apply(table, event)
            except BridgeError as error:
                log.error("match %s: a stored entry does not fold: %s", self.config.match_id, error)
                self._stale = True
                return
            self._publish(table, event, effect)
            if event["type"] == "substitute":
                # The director gave the seat to someone else (on another process): the old
                # link's connections here close.
                gone = _actor(self.state, table, event)
                for subscriber in [s for s in self.subscribers if s.viewer == gone]:
                    self._unsubscribe(subscriber)
                    subscriber.close()
                await self._count_connections(gone)
        self.last_id = last_id
        if entries:
            self._time()

    def notify(self, length: int) -> None:
        """The store says the match's log has ``length`` entries now: read those not folded
        here yet, soon (once, however many notifications come meanwhile). While the lock
        is held, that waits for its release: the holder may be appending, and the news be
        of its own append, which needs no reading."""
        self._news = max(self._news, length)
        if not self.lock.locked():
            self._read_news_soon()

    def _doubt(self) -> None:
        """The news could not be read now: the fan-out looks at the log's length again at
        its next heartbeat (no other notification may come)."""
        if self.fanout is not None:
            self.fanout.doubt(self.config.match_id)

    def _read_news_soon(self) -> None:
        if self._news > len(self.watch) and (self._reader is None or self._reader.done()):
            self._reader = asyncio.create_task(self._read_news())

    @contextlib.asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """Hold the match's lock (every change to the match is made holding it). On its
        release, the entries the store announced meanwhile and not folded here are read
        (:meth:`notify`)."""
        try:
            async with self.lock:
                yield
        finally:
            self._read_news_soon()

    async def _read_news(self) -> None:
        """Read what the store announced, and what it announces meanwhile; a failure is
        logged, and the fan-out's comparison of lengths tries again later."""
        async with self.holding():
            while self._news > len(self.watch):
                folded = len(self.watch)
                try:
                    await self._ensure_fresh()
                    await self._pull()
                    await self._start_due()
                except ProtocolError as error:
                    log.warning("match %s: news not read: %s", self.config.match_id, error)
                    self._doubt()
                    return
                if len(self.watch) == folded:
                    self._doubt()  # announced, not readable yet: looked at again soon
                    return

    async def _after(self, appended: Appended, viewer: Viewer | None = None) -> int:
        """Fold and publish what the store appended after an event: the comparison, the end
        of the match, the boards started; then start the boards a director's decision freed,
        and time the reviews. Returns ``viewer``'s sequence number of the comparison's update (a
        director's fix is recorded there), or of the last one before, if none."""
        freed = False
        seq = 0 if viewer is None else self.seq_of(viewer)
        if appended.compared is not None:
            effect = self.state.apply(0, appended.compared)
            self._publish(0, appended.compared, effect)
            freed = bool(effect.abandoned) or appended.compared.get("fix") is not None
            seq = 0 if viewer is None else self.seq_of(viewer)
        if appended.finished:
            finished: StoredEvent = {"type": "finished"}
            self._publish(0, finished, self.state.apply(0, finished))
        ended: list[tuple[int, BoardState]] = []
        for table, start in appended.starts:
            effect = self.state.apply(table, start)
            self._publish(table, start, effect)
            if effect.committed and effect.board is not None:
                ended.append((table, effect.board))  # an imposed auction passed it out
        for table, board in ended:
            assert board.result is not None
            change = self._change("commit", board, table, result_to_json(board.result))

            async def commit(table: int = table, change: ResultChange = change) -> None:
                # Stored once however often tried (the script keeps the first result).
                starts = self.state.starts(now_ms())
                await self._after(await self._store(table, None, change, starts))

            await self._follow_up(commit)
        if freed:
            # A voided or scored board needs no play: tables that waited for it (or played
            # it) go on.
            await self._start_due()
        self._time()
        return seq

    async def _follow_up(self, attempt: Callable[[], Awaitable[None]]) -> None:
        """What an action stored entails, tried again on conflict like the action (which is
        stored already: a conflict here is not the actor's)."""
        for _ in range(CONFLICT_RETRIES):
            try:
                await attempt()
                return
            except Conflict:
                await self._ensure_fresh()
        log.warning("match %s: too many conflicts to follow up an action", self.config.match_id)

    async def _start_due(self) -> None:
        """Start the boards due at every table (a director's decision freed them, or the
        process that stored what made them due stopped before starting them)."""

        async def start() -> None:
            for table, event in self.state.starts(now_ms()):
                await self._append(table, event, None)

        await self._follow_up(start)

    # -- what each action logs -----------------------------------------------------------

    @staticmethod
    def _require_director(viewer: Viewer) -> None:
        if not (isinstance(viewer, Watcher) and viewer.mode == "director"):
            raise _forbidden("only the director may do that")

    def _table_in_match(self, table: int) -> int:
        """``table``, if the match has it (a table that has none is a bad message, like a
        table above 3)."""
        if table not in self.config.tables:
            raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"this match has no table {table}")
        return table

    def _board_in_match(self, number: int) -> int:
        """``number``, if it is one of the match's boards."""
        if all(spec.number != number for spec in self.config.boards):
            raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"board {number} is not in this match")
        return number

    def _event_for(self, viewer: Viewer, action: TableAction) -> tuple[int, StoredEvent]:
        at = now_ms()
        director = isinstance(viewer, Watcher) and viewer.mode == "director"
        if isinstance(action, Rule | AssignResult):
            self._require_director(viewer)
            table = self._table_in_match(action.table)
            if isinstance(action, Rule):
                return table, {"type": "rule", "tricks": action.declarer_tricks, "at": at}
            return table, {
                "type": "assign",
                "board": self._board_in_match(action.board),
                "contract": action.contract,
                "declarer": action.declarer,
                "tricks": action.tricks,
                "at": at,
            }
        if director and isinstance(action, SendChat | Undo | AnswerUndo):
            if action.table is None:
                raise ProtocolError(
                    ErrorCode.INVALID_MESSAGE, "the director names the table: set 'table'"
                )
            table = self._table_in_match(action.table)
            ruling: StoredEvent
            if isinstance(action, SendChat):
                ruling = {"type": "chat", "seat": None, "text": action.text, "to": "NESW"}
            elif isinstance(action, Undo):
                ruling = {"type": "undo"}
            else:
                ruling = {"type": "undo_answer", "accept": action.accept}
            return table, {**ruling, "at": at}
        if isinstance(action, StartRound):
            self._require_director(viewer)
            return 0, {"type": "release", "round": action.round, "at": at}
        if isinstance(action, SeeCalls | CloseCalls):
            self._require_director(viewer)
            kind = "calls_seen" if isinstance(action, SeeCalls) else "calls_closed"
            return self._table_in_match(action.table), {"type": kind, "at": at}
        if isinstance(action, DecideWithdrawal):
            self._require_director(viewer)
            table = self._table_in_match(action.table)
            board = self.state.tables[table].current
            asker = None if board is None or board.claim is None else board.claim.withdrawal
            if asker is None:
                raise ProtocolError(
                    ErrorCode.WRONG_PHASE,
                    f"nobody at table {table} asked to withdraw a concession",
                )
            kind = "withdraw_concession" if action.allow else "withdrawal_refused"
            return table, {"type": kind, "seat": asker.letter, "at": at}
        if not isinstance(viewer, Player):
            raise _forbidden("only the players at a table act there")
        where = self._seated(viewer)
        table, seat = where.table, where.seat
        if isinstance(action, SendChat | Undo | AnswerUndo) and action.table not in (None, table):
            raise _forbidden("players act at their own table only")
        event: StoredEvent = {"seat": seat.letter, "at": at}
        if isinstance(action, MakeCall):
            event |= {"type": "call", "call": action.call}
            if action.alert is not None:
                event["alert"] = action.alert
        elif isinstance(action, PlayCard):
            # In a match whose opening leads go face down (law 41A), the lead does.
            board = self.state.tables[table].current
            play = None if board is None else board.play
            face_down = play is not None and play.awaits_lead_face_down
            event |= {"type": "lead_face_down" if face_down else "card", "card": action.card}
        elif isinstance(action, FaceLead):
            event |= {"type": "lead_faced"}
        elif isinstance(action, MakeClaim):
            event |= {"type": "claim", "tricks": action.tricks}
            if action.statement is not None:
                event["statement"] = action.statement
        elif isinstance(action, AnswerClaim):
            event |= {"type": "answer", "accept": action.accept}
        elif isinstance(action, WithdrawClaim):
            event |= {"type": "withdraw_claim"}
        elif isinstance(action, WithdrawConcession):
            event |= {"type": "withdrawal_asked"}  # the director decides
        elif isinstance(action, Undo):
            event |= {"type": "undo_request"}
        elif isinstance(action, AnswerUndo):
            event |= {"type": "undo_answer", "accept": action.accept}
        elif isinstance(action, NextBoard):
            event |= {"type": "ready"}
        elif isinstance(action, SetName):
            if self.state.people[viewer.number].named:
                raise _forbidden("the organiser gave you your name")
            event |= {"type": "name", "name": action.name}
        elif isinstance(action, CallDirector):
            event |= {"type": "director_call"}
            if action.text is not None:
                event["text"] = action.text
        elif isinstance(action, AskAboutCall):
            board = self.state.tables[table].current
            if board is None:
                raise ProtocolError(ErrorCode.WRONG_PHASE, "no board has started at this table")
            try:
                caller = MatchState.caller(board, action.index)
            except BridgeError as error:
                raise wire_error(error, action) from None
            event |= {"type": "ask", "index": action.index, "caller": caller.letter}
        elif isinstance(action, ExplainCall):
            event |= {"type": "explain", "index": action.index, "text": action.text}
        elif isinstance(action, SendChat):
            audience = self.state.chat_audience(table, seat)
            if not audience:
                raise _forbidden("table chat is off during a board; it opens between boards")
            to = "".join(s.letter for s in Seat if s in audience)
            event |= {"type": "chat", "text": action.text, "to": to}
        else:
            raise _forbidden(f"a player may not send {action.type}")
        return table, event

    # -- the double-dummy analysis -------------------------------------------------------

    def unanalysed(self) -> tuple[BoardSpec, ...]:
        """The boards whose analysis is still to come. A match that is over may have some:
        its boards were compared before the analysis came (it comes after, to every viewer),
        and a process that loads the match works them out if the one that created it died."""
        return tuple(b for b in self.config.boards if b.number not in self.state.analyses)

    async def unanalysed_now(self) -> tuple[BoardSpec, ...]:
        """:meth:`unanalysed`, once what other processes appended is read here too."""
        async with self.holding():
            await self._ensure_fresh()
            await self._pull()
        return self.unanalysed()

    async def note_analyses(self, analyses: dict[int, Analysis]) -> None:
        """Log the boards' double-dummy analyses, worked out after the match was created,
        for the comparisons to show (those another process logged first are left out)."""

        async def note() -> None:
            missing = {n: a for n, a in analyses.items() if n not in self.state.analyses}
            if missing:
                event: StoredEvent = {
                    "type": "analysed",
                    "boards": {str(n): a.to_json() for n, a in sorted(missing.items())},
                    "at": now_ms(),
                }
                await self._append(0, event, None)

        async with self.holding():
            await self._retrying(note)

    # -- the director's tools that are not table events -------------------------------

    def player_at(self, table: int, seat: Seat) -> int:
        """The player who sits at ``seat`` of ``table`` now (``substitute`` names them so)."""
        player = self.state.player_at(self._table_in_match(table), seat)
        if player is None:
            raise ProtocolError(ErrorCode.INVALID_MESSAGE, f"table {table} does not play now")
        return player

    async def act_substitute(
        self,
        viewer: Viewer,
        player: int,
        token: str,
        robot_nonce: str | None,
        link_nonce: str | None = None,
    ) -> int:
        """Give a player a new token (the old one stops working, its connections close) and
        log it; returns the director's sequence number of the update recording it."""
        self._require_director(viewer)
        if player in self.config.movement.robots:
            raise ProtocolError(ErrorCode.INVALID_MESSAGE, "table 2 is the robots' table")
        key = self.config.first_seat(player)
        async with self.holding():
            await self._ensure_fresh()
            self._seated(Player(player))  # they play this round: else refused here
            try:
                await self.store.substitute(
                    self.config.match_id, int(key[0]), key[1], token, robot_nonce, link_nonce
                )
            except (RedisError, OSError):
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE, "the match store is unavailable; try again"
                ) from None
            for subscriber in [s for s in self.subscribers if s.viewer == Player(player)]:
                self._unsubscribe(subscriber)
                subscriber.close()
            await self._count_connections(Player(player))

            async def log_it() -> int:
                at = self._seated(Player(player))
                event: StoredEvent = {
                    "type": "substitute",
                    "seat": at.seat.letter,
                    "robot": robot_nonce is not None,
                    "at": now_ms(),
                }
                return await self._append(at.table, event, None, viewer)

            return await self._retrying(log_it)

    def board_record(self, viewer: Viewer, number: int) -> BoardRecord:
        """``get_board``: the board as the tables played it, as ``viewer`` may see it."""
        record = board_record(self.state, viewer, self._board_in_match(number))
        if record is None:
            raise _forbidden(
                f"board {number} is not compared yet: how it was played stays hidden until then"
            )
        return record

    # -- reviews -------------------------------------------------------------------------

    def _time(self) -> None:
        """Time what ends on its own: the reviews, the rounds' clocks, and the disputes of
        claims that the server rules on."""
        self._time_reviews()
        self._time_clocks()
        self._time_rulings()

    def _time_reviews(self) -> None:
        """Start a timer for each table whose finished board is on review with a time limit."""
        for table in self.config.tables:
            held = self.state.review_held(table)
            deadline = None if held else self.state.review_deadline(table)
            board = self.state.tables[table].current
            number = None if deadline is None or board is None else board.spec.number
            if self._timing(self._timers, table, number) or number is None or deadline is None:
                continue
            self._timers[table] = (
                number,
                asyncio.create_task(
                    self._log_when_due(
                        self._timers,
                        table,
                        number,
                        max(0.0, (deadline - now_ms()) / 1000),
                        functools.partial(self._review_over, table, number),
                        f"the end of board {number}'s review at table {table}",
                    )
                ),
            )

    @staticmethod
    def _timing(
        timers: dict[int, tuple[int, asyncio.Task[None]]], table: int, key: int | None
    ) -> bool:
        """Whether ``table``'s timer in ``timers`` (the reviews', the clocks' or the
        rulings') already runs for ``key``, the board or round it times. With ``key`` None
        nothing is due: a timer there is cancelled and forgotten. (A timer for another key
        is left to find, when it fires, that its entry is no longer due.)"""
        timer = timers.get(table)
        if timer is None:
            return False
        if key is None:
            timer[1].cancel()
            del timers[table]
            return False
        return timer[0] == key and not timer[1].done()
        if key is not None and timer[0] == key and not timer[1].done():
            return True
        if key is None or timer[0] != key:
            timer[1].cancel()
        del timers[table]
        return False

    def _review_over(self, table: int, board: int) -> StoredEvent | None:
        """The entry that ends ``board``'s review at ``table``, if it is still due (every
        process serving the match times the review: the first to end it does)."""
        current = self.state.tables[table].current
        if current is None or current.spec.number != board or not current.is_reviewing:
            return None
        if self.state.review_held(table):
            return None  # the director decides on a withdrawal first: timed again after
        return {"type": "review_over", "board": board, "at": now_ms()}

    async def _log_when_due(
        self,
        timers: dict[int, tuple[int, asyncio.Task[None]]],
        table: int,
        key: int,
        delay: float,
        due: Callable[[], StoredEvent | None],
        what: str,
    ) -> None:
        """After ``delay`` seconds, log at ``table`` what ``due()`` gives then (nothing: no
        longer due), ``key`` being the board or round that ``timers`` times; tried again a
        second later while the store cannot take it."""
        await asyncio.sleep(delay)

        async def attempt() -> None:
            event = due()
            if event is not None:
                await self._append(table, event, None)

        async with self.holding():
            if timers.get(table, (None,))[0] == key:
                del timers[table]
            try:
                await self._retrying(attempt)
            except ProtocolError as error:
                log.warning("match %s: %s not logged: %s", self.config.match_id, what, error)
                # Try again shortly: the store may be back.
                timers[table] = (
                    key,
                    asyncio.create_task(self._log_when_due(timers, table, key, 1.0, due, what)),
                )

    def _time_clocks(self) -> None:
        """Start a timer for each table whose round clock runs, to say when its time is up."""
        for table in self.config.tables:
            clock = self.state.clock(table)
            number = clock.round if clock is not None and clock.running else None
            if self._timing(self._clocks, table, number) or number is None or clock is None:
                continue
            self._clocks[table] = (
                number,
                asyncio.create_task(
                    self._log_when_due(
                        self._clocks,
                        table,
                        number,
                        max(0.0, (clock.ends_at - now_ms()) / 1000),
                        functools.partial(self._time_up, table, number),
                        f"the end of round {number}'s time at table {table}",
                    )
                ),
            )

    def _time_up(self, table: int, round_number: int) -> StoredEvent | None:
        """The entry that says round ``round_number``'s time at ``table`` is up, if its clock
        still runs (every process serving the match keeps the clock: the first says it)."""
        clock = self.state.clock(table)
        if clock is None or clock.round != round_number or not clock.running:
            return None
        return {"type": "time_up", "round": round_number, "at": now_ms()}

    def _time_rulings(self) -> None:
        """Rule at once on each claim that a program disputed (law 68D): no program argues
        its case with a director, and a table of robots has no one to call one."""
        for table in self.config.tables:
            board = self.state.tables[table].current
            due = board is not None and self._robot_dispute(table, board) is not None
            number = board.spec.number if board is not None and due else None
            if self._timing(self._rulings, table, number) or number is None:
                continue
            self._rulings[table] = (
                number,
                asyncio.create_task(
                    self._log_when_due(
                        self._rulings,
                        table,
                        number,
                        0.0,
                        functools.partial(self._robot_ruling, table, number),
                        f"the ruling on board {number}'s disputed claim at table {table}",
                    )
                ),
            )

    def _robot_dispute(self, table: int, board: BoardState) -> Claim | None:
        """The claim on ``board`` that a program disputed and nobody has ruled on yet."""
        play = board.play
        claim = None if play is None or board.is_finished else play.disputed_claim
        disputer = None if board.claim is None else board.claim.disputed_by
        if claim is None or disputer is None:
            return None
        seat = self.state.people.get(self.player_at(table, disputer))
        return claim if seat is not None and seat.robot else None

    def _robot_ruling(self, table: int, number: int) -> StoredEvent | None:
        """The server's ruling on the claim a program disputed at ``table`` (law 70): the
        claimer's side takes what it surely takes from the position against any defence,
        never more than it claimed. None: no longer due (ruled, or another board)."""
        board = self.state.tables[table].current
        if board is None or board.spec.number != number:
            return None
        claim = self._robot_dispute(table, board)
        play = board.play
        if claim is None or play is None:
            return None
        trick = play.current_trick
        assert trick is not None  # the play is not over
        hands = [play.remaining(seat).mask for seat in Seat]
        strain = play.contract.strain
        taken = surely_taken(hands, strain, trick.leader, trick.cards, claim.claimer, claim.tricks)
        declarers = claim.claimer in (play.declarer, play.dummy)
        tricks = play.declarer_tricks + (taken if declarers else claim.remaining - taken)
        return {"type": "rule", "tricks": tricks, "by": "server", "at": now_ms()}

    def start_timers(self) -> None:
        """Time the reviews in progress (after loading the match)."""
        self._time()

    # -- publishing ------------------------------------------------------------------------

    def _publish(self, table: int, event: StoredEvent, effect: Effect) -> None:
        """Mirror a stored entry and send each subscriber that receives it its update."""
        self.watch.append(pack_entry(table, event))
        received = count(self.state, table, event, self._seq, self._acked)
        if len(self.watch) % RESUME_EVERY == 0:
            self._points.append(ResumePoint.of(len(self.watch), self.state, self._seq))
        frames: dict[Viewer, bytes] = {}
        publication: Publication | None = None  # the same summary for every viewer: made once
        for subscriber in list(self.subscribers):
            viewer = subscriber.viewer
            if viewer not in received:
                continue
            seq = self.seq_of(viewer)
            frame = frames.get(viewer)
            if frame is None:
                publication = publication or Publication(self.state, table, event, effect)
                frame, self._sent[viewer] = publication.frame(viewer, seq, self._sent.get(viewer))
                frames[viewer] = frame
            subscriber.sent_seq = seq
            subscriber.send(frame)

    async def _ensure_fresh(self) -> None:
        """After a failed append, reload the logs from the store (the truth) and send every
        subscriber what it has not seen, before anything else is accepted."""
        if not self._stale:
            return
        try:
            logs = await self.store.load(self.config.match_id)
        except (RedisError, OSError):
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the match store is unavailable; try again"
            ) from None
        assert logs is not None
        self._load(await asyncio.to_thread(Loaded.of, logs))
        self._stale = False
        for subscriber in self.subscribers:
            for frame in self.catch_up(subscriber.viewer, subscriber.sent_seq):
                subscriber.send(frame)
            subscriber.sent_seq = self.seq_of(subscriber.viewer)
        self._time()

"""One match in one process: the single writer of its logs, and the fan-out to its viewers.

Every action runs under the match's lock: check it by applying it to the state (the laws
refuse it: an error, nothing changed), append it to the store (only then is it accepted),
then give each connected viewer the one update :func:`server.views.project` makes for it,
and acknowledge. Per-viewer sequence numbers are positions in the viewer's log, so they
survive restarts: a client that comes back with the last number it saw gets exactly what
it missed, regenerated from the logs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from redis.exceptions import RedisError

from bridge import BridgeError, IllegalCall, IllegalPlay, OutOfTurn, WrongPhase
from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    AnswerClaim,
    AskAboutCall,
    ExplainCall,
    MakeCall,
    MakeClaim,
    PlayCard,
    Rule,
    SendChat,
)
from server.state import ENDING_EVENTS, MatchState, StoredEvent, result_to_json
from server.store import MatchLogs, Store
from server.views import Player, Viewer, Watcher, project, receives, snapshot

__all__ = ["RESUME_LIMIT", "MatchRuntime", "Subscriber", "TableAction"]

log = logging.getLogger(__name__)

RESUME_LIMIT = 64
"""A viewer that missed more updates than this gets one snapshot instead of each of them."""

TableAction = (
    MakeCall | PlayCard | MakeClaim | AnswerClaim | AskAboutCall | ExplainCall | SendChat | Rule
)
MATCH_EVENTS = frozenset({"compared", "finished"})
WATCH_MODES: tuple[Literal["live", "delayed", "director"], ...] = ("live", "delayed", "director")


@dataclass(eq=False)
class Subscriber:
    """A connected viewer: where its frames go, and the last sequence number it was sent."""

    viewer: Viewer
    send: Callable[[bytes], None]
    """Queues a frame for the connection; never blocks (a connection that falls too far
    behind is closed by its owner and resumes later)."""
    sent_seq: int = 0


def wire_error(error: BridgeError, action: TableAction) -> ProtocolError:
    """The one table from the laws' refusals to the protocol's error codes."""
    message = str(error)
    if isinstance(error, OutOfTurn):
        return ProtocolError(ErrorCode.OUT_OF_TURN, message)
    if isinstance(error, WrongPhase):
        return ProtocolError(ErrorCode.WRONG_PHASE, message)
    if isinstance(error, IllegalCall):
        return ProtocolError(ErrorCode.ILLEGAL_CALL, message)
    if isinstance(error, IllegalPlay):
        claims = isinstance(action, MakeClaim | AnswerClaim | Rule)
        return ProtocolError(ErrorCode.ILLEGAL_CLAIM if claims else ErrorCode.ILLEGAL_CARD, message)
    return ProtocolError(ErrorCode.INVALID_MESSAGE, message)


def table_entries(table: int, events: list[StoredEvent]) -> list[tuple[int, StoredEvent]]:
    """A table's log tagged like the watchers' log: match events 0, the rest the table."""
    return [(0 if e["type"] in MATCH_EVENTS else table, e) for e in events]


class MatchRuntime:
    """The live match: logs mirrored from the store, the folded state, the subscribers."""

    def __init__(self, store: Store, logs: MatchLogs) -> None:
        self.store = store
        self.config = logs.config
        self.lock = asyncio.Lock()
        self.subscribers: set[Subscriber] = set()
        self._load(logs)
        self._stale = False

    def _load(self, logs: MatchLogs) -> None:
        self.tables = logs.tables
        self.watch = logs.watch
        self.state = self._fold(self.watch)
        self._watch_seq = {
            mode: sum(1 for t, e in self.watch if receives(Watcher(mode), t, e))
            for mode in WATCH_MODES
        }

    def _fold(self, entries: Iterable[tuple[int, StoredEvent]]) -> MatchState:
        """A state folded from ``entries``. In a robot-table match table 2 is the robots'
        whole table, stored at creation: it is folded first (its boards are shown only
        once compared, by the views)."""
        state = MatchState(self.config)
        if self.config.format == "robot-table":
            for event in self.tables[2]:
                if event["type"] not in MATCH_EVENTS:
                    state.apply(2, event)
        for table, event in entries:
            state.apply(table, event)
        return state

    # -- sequence numbers and catching up ----------------------------------------------

    def _entries(self, viewer: Viewer) -> list[tuple[int, StoredEvent]]:
        """The log ``viewer``'s updates come from (watchers: all of it, to fold both tables)."""
        if isinstance(viewer, Player):
            return table_entries(viewer.table, self.tables[viewer.table])
        return self.watch

    def seq_of(self, viewer: Viewer) -> int:
        """The newest sequence number of ``viewer``'s log."""
        if isinstance(viewer, Player):
            return len(self.tables[viewer.table])
        return self._watch_seq[viewer.mode]

    def catch_up(self, viewer: Viewer, after: int) -> list[bytes]:
        """The frames after ``after`` up to now: each update regenerated from the logs, or
        one snapshot when that is shorter (a fresh start, or more than RESUME_LIMIT missed)."""
        current = self.seq_of(viewer)
        if after >= current:
            return []
        if after == 0 or current - after > RESUME_LIMIT:
            return [encode(snapshot(self.state, viewer, current))]
        state = self._fold(())
        frames = []
        seq = 0
        for table, event in self._entries(viewer):
            state.apply(table, event)
            if receives(viewer, table, event):
                seq += 1
                if seq > after:
                    frames.append(encode(project(state, viewer, table, event, seq)))
        return frames

    async def join(
        self, subscriber: Subscriber, last_seq: int | None, welcome: Callable[[int], bytes]
    ) -> None:
        """Start live delivery to a viewer: queue ``welcome(newest seq)``, then what it missed
        since ``last_seq`` (see :meth:`catch_up`), then every update from now on."""
        async with self.lock:
            await self._ensure_fresh()
            current = self.seq_of(subscriber.viewer)
            if last_seq is not None and last_seq > current:
                raise ProtocolError(
                    ErrorCode.BAD_SEQUENCE, f"last_seq {last_seq} is ahead of this log ({current})"
                )
            subscriber.send(welcome(current))
            for frame in self.catch_up(subscriber.viewer, last_seq or 0):
                subscriber.send(frame)
            subscriber.sent_seq = current
            self.subscribers.add(subscriber)

    def detach(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    # -- actions -------------------------------------------------------------------------

    async def act(self, viewer: Viewer, action: TableAction) -> int:
        """Check, store and publish one action; returns the acting viewer's sequence number
        of the update that records it. Raises ProtocolError, changing nothing."""
        async with self.lock:
            await self._ensure_fresh()
            table, event = self._event_for(viewer, action)
            if self.state.finished and event["type"] in ENDING_EVENTS:
                raise ProtocolError(ErrorCode.WRONG_PHASE, "the match is over")
            try:
                board = self.state.apply(table, event)
            except BridgeError as error:
                raise wire_error(error, action) from None
            finished_board = result = next_start = None
            if event["type"] in ENDING_EVENTS and board is not None and board.result is not None:
                finished_board = board.spec.number
                result = result_to_json(board.result)
                upcoming = self.state.next_board(table)
                next_start = None if upcoming is None else {"type": "start", "board": upcoming}
            # From here the state holds the action; until the store confirms it, a failure
            # leaves it unknown whether the action was stored: reload before the next one.
            self._stale = True
            try:
                appended = await self.store.append(
                    self.config.match_id,
                    table,
                    event,
                    finished_board,
                    result,
                    next_start,
                    len(self.config.boards),
                )
            except (RedisError, OSError) as error:
                log.warning("match %s: store unavailable: %s", self.config.match_id, error)
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE, "the match store is unavailable; try again"
                ) from None
            self._stale = False
            self._publish(table, event)
            seq = self.seq_of(viewer)
            if appended.compared is not None:
                self.state.apply(0, appended.compared)
                self._publish(0, appended.compared)
            if appended.finished:
                finished: StoredEvent = {"type": "finished"}
                self.state.apply(0, finished)
                self._publish(0, finished)
            if appended.start is not None:
                self.state.apply(table, appended.start)
                self._publish(table, appended.start)
            return seq

    def _event_for(self, viewer: Viewer, action: TableAction) -> tuple[int, StoredEvent]:
        if isinstance(action, Rule):
            if not (isinstance(viewer, Watcher) and viewer.mode == "director"):
                raise ProtocolError(ErrorCode.FORBIDDEN, "only the director rules")
            return action.table, {"type": "rule", "tricks": action.declarer_tricks}
        if not isinstance(viewer, Player):
            raise ProtocolError(ErrorCode.FORBIDDEN, "only the players at a table act there")
        seat = viewer.seat.letter
        event: StoredEvent
        if isinstance(action, MakeCall):
            event = {"type": "call", "seat": seat, "call": action.call}
            if action.alert is not None:
                event["alert"] = action.alert
        elif isinstance(action, PlayCard):
            event = {"type": "card", "seat": seat, "card": action.card}
        elif isinstance(action, MakeClaim):
            event = {"type": "claim", "seat": seat, "tricks": action.tricks}
        elif isinstance(action, AnswerClaim):
            event = {"type": "answer", "seat": seat, "accept": action.accept}
        elif isinstance(action, AskAboutCall):
            event = {"type": "ask", "seat": seat, "index": action.index}
        elif isinstance(action, ExplainCall):
            event = {"type": "explain", "seat": seat, "index": action.index, "text": action.text}
        else:
            event = {"type": "chat", "seat": seat, "text": action.text}
        return viewer.table, event

    def _publish(self, table: int, event: StoredEvent) -> None:
        """Mirror a stored entry and send each subscriber that receives it its update."""
        if table == 0:
            self.tables[1].append(event)
            self.tables[2].append(event)
        else:
            self.tables[table].append(event)
        self.watch.append((table, event))
        for mode in WATCH_MODES:
            self._watch_seq[mode] += receives(Watcher(mode), table, event)
        frames: dict[Viewer, bytes] = {}
        for subscriber in list(self.subscribers):
            viewer = subscriber.viewer
            if not receives(viewer, table, event):
                continue
            seq = self.seq_of(viewer)
            frame = frames.get(viewer)
            if frame is None:
                frame = frames[viewer] = encode(project(self.state, viewer, table, event, seq))
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
        self._load(logs)
        self._stale = False
        for subscriber in self.subscribers:
            for frame in self.catch_up(subscriber.viewer, subscriber.sent_seq):
                subscriber.send(frame)
            subscriber.sent_seq = self.seq_of(subscriber.viewer)

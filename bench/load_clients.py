"""The load of ``bench/load.py``: light scripted players, in processes of their own.

A load process holds whole matches: the eight players of each and its spectator, every one a
raw WebSocket client speaking the protocol (msgpack maps, SPEC.md) with no validation, so
that one process can hold thousands. Holding a whole match in one process lets it time, on
one monotonic clock, an action from the moment it is sent to its ``ack`` and to the moment
the last of its viewers (the four players at the table and the spectator) receives the
update that records it, and a board's comparison from the action that finished the board at
its last table to the moment the last of the nine viewers receives it.

The players act from their own views only: a legal call (most boards opened by the dealer
and raised by partner, a share passed out), a legal card (the view's ``legal``: declarer
plays dummy's), now and then declarer claims the rest (the defenders accept), and each
sends ``next_board`` when a board is over. At human pace each acts about ``pace`` seconds
(jittered) after it becomes its turn; flat out at once.

The orchestrator (``bench/load.py``) drives each load process through a pipe: ``connect``
(to our server or to a reference), ``phase`` (act until a deadline, measure a window),
``close``, ``exit``; each answer is a plain dict.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from protocol.changes import patch

PROTOCOL_VERSION = 7
"""protocol.messages.PROTOCOL_VERSION, written out: a load process does not import the
protocol's models (tests/bench/test_load.py checks that the two agree)."""
PASSED_OUT_SHARE = 0.15
"""Boards that every player at a table passes."""
CLAIM_SHARE = 0.4
"""Boards played in a contract on which declarer claims the rest, after a few tricks."""
CONNECTING_AT_ONCE = 64
"""Connections a load process opens at once (each: handshake, hello, welcome, snapshot)."""
DRAIN_SECONDS = 60.0
"""After a phase's deadline, how long a load process waits at most for the answers and
updates of the actions it sent in time (a server flat out has one action of every table
queued), before counting the ones still missing as undelivered."""
UNAVAILABLE_RETRY = 0.1
"""Seconds before an action answered ``unavailable`` is sent again when the refusal does not
say (``retry_after_ms``) (SPEC.md: action ids)."""
ACTION_EVENTS = {
    "call_made": "seat",
    "card_played": "seat",
    "claim_made": "claimer",
    "claim_answered": "seat",
    "ready_for_next": "seat",
}
"""The events that record a player's action, and the field naming the seat it is keyed by
(a card's is the hand it came from: dummy's card is dummy's)."""
SEATS = "NESW"

Key = tuple[int, str, str]
"""An action's key: (table, the event recording it, seat). At a table each key's actions
happen one after another, so the n-th event with a key a viewer receives records the n-th
action with that key."""


@dataclass(frozen=True)
class SeatLink:
    """Where one connection of a match goes: a player's seat (table, seat) or the spectator
    (table 0), the server's WebSocket URL and the token."""

    table: int
    seat: str
    ws_url: str
    token: str


@dataclass(frozen=True)
class MatchSpec:
    """One match of the load: its number and its nine links."""

    number: int
    links: tuple[SeatLink, ...]


@dataclass(frozen=True)
class PhaseOrder:
    """Act from now until ``until``; measure what is sent in [``measure_from``, ``until``).
    Times are ``time.monotonic()``, one clock for every process of the machine."""

    name: str
    pace: float
    """Mean seconds a player waits before acting (0: at once)."""
    measure_from: float
    until: float
    matches: frozenset[int] | None = None
    """The matches that act (None: all)."""


@dataclass(frozen=True)
class BoardPlan:
    """How one table plays one board: passed out, or ``opening`` by the dealer raised by
    partner to ``raise_to``; declarer claims the rest after ``claim_after`` tricks."""

    passed_out: bool
    opening: str
    raise_to: str | None
    claim_after: int | None

    @classmethod
    def draw(cls, rng: random.Random) -> BoardPlan:
        strain = rng.choice(("C", "D", "H", "S", "NT"))
        level = rng.choice((1, 2, 3, 4))
        return cls(
            passed_out=rng.random() < PASSED_OUT_SHARE,
            opening=f"1{strain}",
            raise_to=f"{level}{strain}" if level > 1 else None,
            claim_after=rng.randrange(0, 11) if rng.random() < CLAIM_SHARE else None,
        )


@dataclass(eq=False)
class Record:
    """One action sent: when, and who has received the update recording it."""

    sent: float
    expected: int
    arrived: int = 0
    last: float = 0.0


@dataclass
class Tally:
    """What one load process saw in one phase's window."""

    acked: int = 0
    frames: int = 0
    bytes: int = 0
    ack_ms: list[float] = field(default_factory=list)
    viewer_ms: list[float] = field(default_factory=list)
    compare_ms: list[float] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    refusal_examples: dict[str, str] = field(default_factory=dict)
    """The first refusal's message for each code."""
    refusal_ms: list[float] = field(default_factory=list)
    """From an action sent to its refusal."""
    refusals_timed: int = 0
    """Refusals that said when to send again (``retry_after_ms``)."""
    undelivered: int = 0
    """Actions sent in the window whose update some viewer never received."""
    boards_finished: int = 0
    compared: int = 0
    """Comparisons that reached every viewer of their match."""
    compared_partly: int = 0
    """Comparisons that reached some of the match's viewers but not all."""
    compared_untimed: int = 0
    """Comparisons whose last table's board ended with no action of ours (its review time
    ran out): delivered, but not timed."""
    playing: int = 0
    """Matches of the phase not over at its end (a match over has nothing left to play)."""
    load_cpu: float = 0.0
    """CPU seconds this load process used in the window."""

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "refusals": dict(self.refusals)}


class Viewer:
    """One connection of the load: it counts what it receives and keeps its view (the
    spectator's connection is this; a player's is :class:`Player`)."""

    def __init__(self, match: LoadMatch, link: SeatLink) -> None:
        self.match = match
        self.link = link
        self.view: dict[str, Any] | None = None
        self.seen: Counter[Key] = Counter()
        """How many events with each key this viewer has received."""
        self.websocket: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        """Open the connection, say hello and wait for the welcome and the snapshot."""
        websocket = await connect(
            self.link.ws_url,
            compression=None,
            max_size=4 * 1024 * 1024,
            open_timeout=30,
            ping_interval=None,
        )
        self.websocket = websocket
        hello = {"type": "hello", "version": PROTOCOL_VERSION, "token": self.link.token}
        await websocket.send(msgpack.packb(hello))
        welcome = msgpack.unpackb(await websocket.recv())
        if welcome.get("type") != "welcome":
            raise ConnectionError(f"{welcome.get('code')}: {welcome.get('message')}")
        if welcome["seq"]:
            self.apply(msgpack.unpackb(await websocket.recv()))
        self.reader = asyncio.create_task(self.read(websocket))

    async def read(self, websocket: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in websocket:
                self.received(frame, time.monotonic())

    def received(self, frame: bytes | str, at: float) -> None:
        """Count a frame and act on it."""
        if self.match.measuring(at):
            tally = self.match.worker.tally
            tally.frames += 1
            tally.bytes += len(frame)
        message = msgpack.unpackb(frame)
        if message["type"] == "update":
            self.apply(message)
            self.match.observe(self, message["events"], at)
            self.updated()
        else:
            self.answered(message, at)

    def apply(self, update: dict[str, Any]) -> None:
        """The one place where an update changes the view: its whole view, or its changes
        applied to the view held (each comparison of its events put in place first)."""
        if update["view"] is not None:
            self.view = update["view"]
            return
        assert self.view is not None, "changes to a view never received"
        compared = [e["comparison"] for e in update["events"] if e["type"] == "board_compared"]
        patch(self.view, update["changes"], compared)

    def updated(self) -> None:
        """A new view arrived (a player considers acting)."""

    def answered(self, message: dict[str, Any], at: float) -> None:
        """An answer arrived (a spectator sends nothing, so receives none)."""

    async def close(self) -> None:
        if self.websocket is not None:
            await self.websocket.close()
        if self.reader is not None:
            await self.reader


class Player(Viewer):
    """A player: acts from its own view, one action at a time."""

    def __init__(self, match: LoadMatch, link: SeatLink) -> None:
        super().__init__(match, link)
        self.rng = random.Random(f"{match.number} {link.table}{link.seat}")
        self.refs = itertools.count(1)
        self.action_ids = itertools.count(1)
        self.pending: tuple[dict[str, Any], Key, Record] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.stale = False
        """A refusal came: act again only once the view changes."""

    def updated(self) -> None:
        self.stale = False
        self.consider()

    def consider(self) -> None:
        """Act now, or in about ``pace`` seconds, if the view asks something of this player."""
        if self.pending is not None or self.timer is not None or self.stale:
            return
        pace = self.match.pace()
        if pace is None or self.decide() is None:
            return
        if pace:
            delay = pace * self.rng.uniform(0.5, 1.5)
            self.timer = asyncio.get_running_loop().call_later(delay, self.act)
        else:
            self.act()

    def act(self) -> None:
        """Decide from the view as it is now, and send."""
        self.timer = None
        if self.pending is not None or self.stale or self.match.pace() is None:
            return
        decided = self.decide()
        if decided is None:
            return
        message, key = decided
        message["ref"] = next(self.refs)
        message["action_id"] = f"{self.link.table}{self.link.seat}-{next(self.action_ids)}"
        record = self.match.register(key)
        self.pending = (message, key, record)
        asyncio.get_running_loop().create_task(self.send(message, record))

    async def send(self, message: dict[str, Any], record: Record) -> None:
        assert self.websocket is not None
        record.sent = time.monotonic()
        with contextlib.suppress(ConnectionClosed):
            await self.websocket.send(msgpack.packb(message))

    def decide(self) -> tuple[dict[str, Any], Key] | None:
        """The action this player's view asks for now, with its key, or None."""
        view = self.view
        board = None if view is None else view["board"]
        if view is None or board is None or view["match"]["finished"]:
            return None
        table, seat = board["table"], view["seat"]
        actions = board["actions"]
        if "claim_answer" in actions:
            return {"type": "claim_answer", "accept": True}, (table, "claim_answered", seat)
        if "next_board" in actions:
            return {"type": "next_board"}, (table, "ready_for_next", seat)
        legal = board["legal"]
        if not legal:
            return None
        plan = self.match.plan(table, board["board"])
        if board["phase"] == "auction":
            call = choose_call(board["auction"], seat, plan, legal)
            return {"type": "call", "call": call}, (table, "call_made", seat)
        done = board["tricks_ns"] + board["tricks_ew"]
        if (
            "claim" in actions
            and seat == board["declarer"]
            and plan.claim_after is not None
            and done >= plan.claim_after
        ):
            return {"type": "claim", "tricks": 13 - done}, (table, "claim_made", seat)
        # On dummy's turn declarer acts, and the card is dummy's.
        card = self.rng.choice(legal)
        return {"type": "card", "card": card}, (table, "card_played", board["turn"])

    def answered(self, message: dict[str, Any], at: float) -> None:
        # One action at a time: an error the server could not tie to a ref is its answer too.
        ref = message.get("ref")
        if self.pending is None or ref not in (self.pending[0]["ref"], None):
            return
        _message, key, record = self.pending
        tally = self.match.worker.tally
        if message["type"] == "ack":
            if self.match.measuring(record.sent):
                tally.acked += 1
                tally.ack_ms.append((at - record.sent) * 1000)
            self.pending = None
            self.consider()
            return
        code = message.get("code", message["type"])
        hinted = message.get("retry_after_ms")
        if self.match.measuring(record.sent):
            tally.refusals[code] += 1
            tally.refusal_examples.setdefault(code, str(message.get("message"))[:100])
            tally.refusal_ms.append((at - record.sent) * 1000)
            tally.refusals_timed += hinted is not None
        retry = hinted if code in ("rate_limited", "unavailable") else None
        if retry or code == "unavailable":
            # Sent again with its action id (applied at most once), when the server says it
            # may be; an action answered "unavailable" may or may not have been stored.
            delay = retry / 1000 if retry else UNAVAILABLE_RETRY
            asyncio.get_running_loop().call_later(delay, self.resend)
            return
        self.match.forget(key, record)
        self.pending = None
        self.stale = True

    def resend(self) -> None:
        if self.pending is not None:
            message, _key, record = self.pending
            asyncio.get_running_loop().create_task(self.send(message, record))


def choose_call(auction: list[dict[str, Any]], seat: str, plan: BoardPlan, legal: list[str]) -> str:
    """A call for ``seat`` by the board's plan: the dealer opens, partner raises once,
    everyone else passes (a passed-out board: everyone passes).

    >>> plan = BoardPlan(False, "1H", "4H", None)
    >>> choose_call([], "N", plan, ["P", "1C", "1H"])
    '1H'
    >>> auction = [{"seat": "N", "call": "1H"}, {"seat": "E", "call": "P"}]
    >>> choose_call(auction, "S", plan, ["P", "4H"]), choose_call(auction, "W", plan, ["P", "4H"])
    ('4H', 'P')
    """
    bids = [entry for entry in auction if entry["call"] not in ("P", "X", "XX")]
    partner = SEATS[(SEATS.index(seat) + 2) % 4]
    if plan.passed_out:
        return "P"
    if not bids:
        wanted = plan.opening
    elif len(bids) == 1 and bids[0]["seat"] == partner and plan.raise_to is not None:
        wanted = plan.raise_to
    else:
        return "P"
    return wanted if wanted in legal else "P"


class LoadMatch:
    """One match's viewers in this process, and the timing of its actions."""

    def __init__(self, worker: Worker, spec: MatchSpec) -> None:
        self.worker = worker
        self.number = spec.number
        self.players = [Player(self, link) for link in spec.links if link.table]
        self.spectators = [Viewer(self, link) for link in spec.links if not link.table]
        self.viewers: list[Viewer] = [*self.players, *self.spectators]
        self.plans: dict[tuple[int, int], BoardPlan] = {}
        self.records: dict[Key, list[Record]] = {}
        self.done: dict[tuple[int, int], float | None] = {}
        """When the action that ended each (table, board)'s review was sent (None: its review
        time ran out)."""
        self.compared: dict[int, list[float]] = {}
        self.partly_counted: set[int] = set()
        self.finished_boards: set[tuple[int, int]] = set()
        self.over = False

    def pace(self) -> float | None:
        """The phase's pace for this match, or None when it is not to act now."""
        order = self.worker.order
        if order is None or time.monotonic() >= order.until:
            return None
        if order.matches is not None and self.number not in order.matches:
            return None
        return order.pace

    def measuring(self, at: float) -> bool:
        order = self.worker.order
        return order is not None and order.measure_from <= at < order.until

    def plan(self, table: int, board: int) -> BoardPlan:
        key = (table, board)
        if key not in self.plans:
            self.plans[key] = BoardPlan.draw(random.Random(f"{self.number} {table} {board}"))
        return self.plans[key]

    def register(self, key: Key) -> Record:
        """A new action with this key: the next event with the key records it."""
        record = Record(sent=time.monotonic(), expected=4 + len(self.spectators))
        self.records.setdefault(key, []).append(record)
        return record

    def forget(self, key: Key, record: Record) -> None:
        """A refused action: no event will record it."""
        records = self.records[key]
        if records and records[-1] is record:
            records.pop()

    def observe(self, viewer: Viewer, events: list[dict[str, Any]], at: float) -> None:
        """Note what one viewer's update recorded: actions, ends of reviews, comparisons."""
        tally = self.worker.tally
        trigger: Record | None = None
        for event in events:
            kind = event["type"]
            if kind in ACTION_EVENTS:
                key = (event["table"], kind, event[ACTION_EVENTS[kind]])
                index = viewer.seen[key]
                viewer.seen[key] = index + 1
                records = self.records.get(key, ())
                if index < len(records):
                    trigger = records[index]
                    self._arrived(trigger, at)
            elif kind == "board_finished":
                done = (event["table"], event["result"]["board"])
                if done not in self.finished_boards:
                    self.finished_boards.add(done)
                    tally.boards_finished += 1
            elif kind == "review_ended":
                sent = None if trigger is None else trigger.sent
                self.done.setdefault((event["table"], event["board"]), sent)
            elif kind == "board_compared":
                self._compared(event["comparison"]["board"], at)
            elif kind == "match_finished":
                self.over = True

    def _arrived(self, record: Record, at: float) -> None:
        record.arrived += 1
        record.last = max(record.last, at)
        if record.arrived == record.expected and self.measuring(record.sent):
            self.worker.tally.viewer_ms.append((record.last - record.sent) * 1000)

    def _compared(self, board: int, at: float) -> None:
        arrivals = self.compared.setdefault(board, [])
        arrivals.append(at)
        if len(arrivals) != len(self.viewers):
            return
        ends = [self.done.get((table, board)) for table in (1, 2)]
        tally = self.worker.tally
        tally.compared += 1
        if any(end is None for end in ends):
            tally.compared_untimed += 1
            return
        finished = max(end for end in ends if end is not None)
        if self.measuring(finished):
            tally.compare_ms.append((max(arrivals) - finished) * 1000)

    def settle(self, order: PhaseOrder) -> None:
        """At the end of a phase: count what never reached every viewer."""
        tally = self.worker.tally
        tally.playing += not self.over and (order.matches is None or self.number in order.matches)
        for records in self.records.values():
            tally.undelivered += sum(
                1
                for record in records
                if record.arrived < record.expected
                and order.measure_from <= record.sent < order.until
            )
        for board, arrivals in self.compared.items():
            if len(arrivals) < len(self.viewers) and board not in self.partly_counted:
                self.partly_counted.add(board)
                tally.compared_partly += 1


class Worker:
    """A load process: its matches, the phase under way and its tally."""

    def __init__(self, pipe: Connection) -> None:
        self.pipe = pipe
        self.matches: list[LoadMatch] = []
        self.order: PhaseOrder | None = None
        self.tally = Tally()

    async def run(self) -> None:
        """Serve commands until ``exit``; a command that fails is answered with its error."""
        loop = asyncio.get_running_loop()
        while True:
            command, argument = await loop.run_in_executor(None, self.pipe.recv)
            if command == "exit":
                return
            try:
                answer = await getattr(self, command)(argument)
            except Exception as error:  # the orchestrator stops the run and says why
                answer = {"error": f"{command}: {error!r}"}
            self.pipe.send(answer)

    async def connect(self, specs: list[MatchSpec]) -> dict[str, Any]:
        """Open every connection of ``specs``' matches; say how many failed and why."""
        self.matches = [LoadMatch(self, spec) for spec in specs]
        viewers = [viewer for match in self.matches for viewer in match.viewers]
        gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
        failures: Counter[str] = Counter()

        async def opened(viewer: Viewer) -> None:
            async with gate:
                try:
                    await viewer.connect()
                except (OSError, WebSocketException) as error:
                    failures[_reason(error)] += 1

        await asyncio.gather(*(opened(viewer) for viewer in viewers))
        return {"connections": len(viewers), "failures": dict(failures)}

    async def phase(self, order: PhaseOrder) -> dict[str, Any]:
        """Act until the order's deadline, then report the window's tally."""
        self.tally = Tally()
        self.order = order
        for match in self.matches:
            for player in match.players:
                player.stale = False
                player.consider()
        await _sleep_until(order.measure_from)
        cpu = time.process_time()
        await _sleep_until(order.until)
        self.tally.load_cpu = time.process_time() - cpu
        for match in self.matches:
            for player in match.players:
                if player.timer is not None:
                    player.timer.cancel()
                    player.timer = None
        await self._drain(order.until + DRAIN_SECONDS)
        for match in self.matches:
            match.settle(order)
        return self.tally.as_dict()

    async def _drain(self, deadline: float) -> None:
        """Wait until every action sent has its answer and every viewer its update."""
        while time.monotonic() < deadline:
            waiting = any(
                player.pending is not None for match in self.matches for player in match.players
            ) or any(
                record.arrived < record.expected
                for match in self.matches
                for records in match.records.values()
                for record in records[-1:]
            )
            if not waiting:
                return
            await asyncio.sleep(0.05)

    async def close(self, _argument: object = None) -> dict[str, Any]:
        """Close every connection (the server sees its players leave)."""
        self.order = None
        viewers = [viewer for match in self.matches for viewer in match.viewers]
        await asyncio.gather(*(viewer.close() for viewer in viewers), return_exceptions=True)
        self.matches = []
        return {"closed": len(viewers)}


async def _sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.monotonic()))


def _reason(error: BaseException) -> str:
    """Why a connection failed, in a few words ("refused: HTTP 503", "too many open files")."""
    if isinstance(error, InvalidStatus):
        return f"refused: HTTP {error.response.status_code}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error)[:80] or type(error).__name__


def work(pipe: Connection) -> None:
    """The body of a load process (``multiprocessing``, spawned): serve the orchestrator's
    commands until ``exit``. A Ctrl-C at the terminal is the orchestrator's to handle: it
    stops every load process in order."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(Worker(pipe).run())

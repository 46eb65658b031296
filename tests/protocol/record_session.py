"""Record the example sessions of protocol/SPEC.md from a real server.

    python -m tests.protocol.record_session OUT.json

starts a private redis-server and the match server, plays the example matches of SPEC.md
with real clients (a one-board teams match, a three-board one where the director is at
work, a replay duplicate whose second stage waits for the director, and the first two
rounds of an 8-player individual played by one person and seven of the server's robots),
then imports the first match's record as a match played elsewhere (PBN, then the LIN of
the imported one), asks a new match for its record before any card is played, and has the
server's robots play a match whose boards come from a sealed seed, and one with robots of
both levels, a director's calls, a round clock that runs out; and writes every frame
each client sent and received, in order, labelled with the step of the story it belongs
to. SPEC.md's examples are taken from such a recording (tokens,
match ids, action ids and moments differ from run to run).

An update is recorded as it came on the wire (``"frame"``: most carry ``"view": null`` and
the view's ``changes``), with the whole view the client held after applying it
(``"view_after"``), so that a writer can say what the changes did. The double-dummy
analysis of each match comes at the same moment of the story in every run
(:class:`HeldAnalyst`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect

import clients.client
from bridge import Deal
from clients.client import Client, ClientError, Link
from protocol import codec
from protocol.messages import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    ErrorMessage,
    EventTeamSpec,
    Heartbeat,
    HeartbeatAnswer,
    Hello,
    MakeCall,
    MatchCreated,
    MatchRecord,
    Ping,
    PlayerView,
    ServerMessage,
    Update,
)
from server.analysis import Analyst
from server.app import Server
from server.config import Analysis, BoardSpec, MatchConfig
from server.house_robots import HouseRobots
from server.limits import OVERLOAD_LAG, Limits
from server.redis_process import RedisProcess
from tests.server.harness import loop_held

ORGANISER_KEY = "organiser-secret"
DEALS = (
    '[Event "Protocol example"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
    '[Deal "N:AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943 7654.8732.T76.A7"]\n'
)
SECOND = (
    '[Event "Protocol example"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
    '[Deal "N:7654.8732.T76.A7 AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943"]\n\n'
    '[Board "2"]\n[Dealer "E"]\n[Vulnerable "NS"]\n'
    '[Deal "N:7654.8732.T76.A7 AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943"]\n\n'
    '[Board "3"]\n[Dealer "S"]\n[Vulnerable "EW"]\n'
    '[Deal "N:7654.8732.T76.A7 AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943"]\n'
)
INDIVIDUAL_BOARDS = 14
INDIVIDUAL = "".join(
    f'[Board "{n}"]\n[Deal "{Deal.random(random.Random(n)).to_pbn()}"]\n\n'
    for n in range(1, INDIVIDUAL_BOARDS + 1)
)
"""The individual's boards: the same deals every run (dealer and vulnerability by number)."""
INDIVIDUAL_NAMES = {
    "1N": "Nat",
    "1E": "Eve",
    "1S": "Ann",
    "1W": "Wes",
    "2N": "Nia",
    "2E": "Eli",
    "2S": "Sam",
    "2W": "Wyn",
}
"""Every player of the individual, named by their first-round seat (Ann is player 1)."""
SLOW_TABLE = 2
SLOW_PACE = 0.1
"""In the individual, the robots who sit at table 2 in round 1 take this many seconds over
each action (the others none), so that the person's table 1 finishes round 1 first and
waits for table 2: the recording shows the waiting."""


class HeldAnalyst:
    """The server's analyst, its answers held while :attr:`released` is not set, so that the
    analysis of a match comes at a moment of the story's choosing, the same in every run.

    The recorded teams match is played right after the server started, so its board used to
    be compared before its double-dummy analysis came, in most runs: held, it always is, and
    the recording shows the analysis coming later, as changes to the comparison. So does the
    recorded individual, whose analysis comes once round 2 has started. The other matches
    wait for theirs before anyone plays (:meth:`RecordingServer.analysed`)."""

    def __init__(self, analyst: Analyst) -> None:
        self.analyst = analyst
        self.released = asyncio.Event()

    async def analyse(self, boards: tuple[BoardSpec, ...]) -> dict[int, Analysis]:
        found = await self.analyst.analyse(boards)
        await self.released.wait()
        return found


class SlowTable2(HouseRobots):
    """The server's robots, those of the individual's table 2 slowed (SLOW_PACE)."""

    def delay_for(self, config: MatchConfig, seat: str) -> float:
        if config.format == "individual" and seat.startswith(str(SLOW_TABLE)):
            return SLOW_PACE
        return super().delay_for(config, seat)


class RecordingServer(Server):
    """The match server, with the individual's table-2 robots slowed (:class:`SlowTable2`),
    and its analyses coming when the story says (:class:`HeldAnalyst`)."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.held = HeldAnalyst(self.analyses.analyst)
        self.analyses.analyst = self.held  # type: ignore[assignment]
        house = self.house
        self.house = SlowTable2(self, delay=house.delay, keep_messages=house.keep_messages)

    async def analysed(self, match_id: str) -> None:
        """Wait until the match's double-dummy analysis is logged."""
        async with asyncio.timeout(60):
            while match_id in self.analyses.under_way:
                await asyncio.sleep(0.05)

    async def finished(self, match_id: str) -> None:
        """Wait until the match is over (its robots played every board)."""
        runtime = await self.runtime(match_id)
        async with asyncio.timeout(60):
            while not runtime.state.finished:
                await asyncio.sleep(0.05)


class Recorder:
    """Every frame of every client, in order, with the story's step at the time."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.step = ""
        self.clients: dict[str, Client] = {}
        self._seen: dict[str, int] = {}
        self._wire: dict[asyncio.Task[Any] | None, list[dict[str, Any]]] = {}
        """The updates each connection's reader (a task) decoded, as they came on the wire."""
        self._updates: dict[str, tuple[list[dict[str, Any]], int]] = {}
        """Each client's wire updates, and how many of them are recorded already."""

    def decode_server(self, frame: bytes | str) -> ServerMessage:
        """``codec.decode_server``, keeping each update's frame as it came (the client library
        fills in its view once it has applied its changes)."""
        message = codec.decode_server(frame)
        if isinstance(message, Update):
            raw = frame if isinstance(frame, bytes) else frame.encode()
            wire = msgpack.unpackb(raw, raw=False)
            self._wire.setdefault(asyncio.current_task(), []).append(wire)
        return message

    @contextlib.contextmanager
    def decoding(self) -> Iterator[None]:
        """Every client of this process decodes with :meth:`decode_server` meanwhile."""
        original = codec.decode_server
        clients.client.decode_server = self.decode_server  # type: ignore[attr-defined]
        try:
            yield
        finally:
            clients.client.decode_server = original  # type: ignore[attr-defined]

    def note_received(self) -> None:
        for name, client in self.clients.items():
            for message in client.received[self._seen.get(name, 0) :]:
                entry = {
                    "step": self.step,
                    "client": name,
                    "direction": "received",
                    "frame": message.model_dump(mode="json"),
                }
                if isinstance(message, Update):
                    wire, used = self._updates[name]
                    entry["frame"] = wire[used]
                    self._updates[name] = (wire, used + 1)
                    assert wire[used]["seq"] == message.seq, (name, wire[used], message.seq)
                    assert message.view is not None  # the client library filled it in
                    entry["view_after"] = message.view.model_dump(mode="json")
                self.frames.append(entry)
            self._seen[name] = len(client.received)

    def sent(self, name: str, message: Any) -> None:
        self.frames.append(
            {
                "step": self.step,
                "client": name,
                "direction": "sent",
                "frame": message.model_dump(mode="json"),
            }
        )

    async def settle(self) -> None:
        """Every client has every frame sent to it so far (a ping's pong comes after)."""
        for client in self.clients.values():
            if client.is_connected:
                await client.ping()
                # The pings themselves are left out of the record.
                client.received.pop()
        self.note_received()

    def at(self, step: str) -> None:
        self.note_received()
        self.step = step

    async def connect(self, name: str, link: str, **options: Any) -> Client:
        original = codec.encode

        def recording(message: Any) -> bytes:
            if getattr(message, "type", None) == "hello":
                self.sent(name, message)
            return original(message)

        import clients.client as module

        module.encode = recording  # type: ignore[attr-defined,assignment]
        try:
            client = await Client.connect(
                Link.parse(link) if "#" in link else link, name=f"example-{name}", **options
            )
        finally:
            module.encode = original  # type: ignore[attr-defined]
        self.clients[name] = client
        self._seen[name] = 0  # a name may come back in a later match: a new client
        self._updates[name] = (self._wire.setdefault(client._reader, []), 0)
        self.note_received()
        return client

    async def act(
        self, name: str, send: Callable[[Client], Awaitable[object]], refused: bool = False
    ) -> None:
        """``send`` one request from client ``name`` (recording what it sent)."""
        client = self.clients[name]
        original = client._websocket.send  # type: ignore[union-attr]

        async def recording(data: bytes) -> None:
            message = codec.decode_client(data)
            if message.type != "ping":
                self.sent(name, message)
            await original(data)

        client._websocket.send = recording  # type: ignore[method-assign,union-attr]
        try:
            await send(client)
        except Exception as error:
            if not refused:
                raise
            print(f"  refused as expected: {error}", file=sys.stderr)
        finally:
            client._websocket.send = original  # type: ignore[method-assign,union-attr]
        await self.settle()


def calling(call: str) -> Callable[[Client], Awaitable[object]]:
    """An action that makes ``call``."""

    async def send(client: Client) -> object:
        return await client.call(call)

    return send


def playing(card: str) -> Callable[[Client], Awaitable[object]]:
    """An action that plays ``card``."""

    async def send(client: Client) -> object:
        return await client.play(card)

    return send


async def old_client(server: Server, record: Recorder) -> None:
    """A client of a protocol version the server no longer serves says hello, and is told to
    update (in a frame that such a client can read: the raw map is recorded, not what this
    version would read); then a client of a version newer than the server's, told the
    versions served as data."""
    record.at("old client")
    for label, version in (("old", min(SUPPORTED_VERSIONS) - 1), ("new", PROTOCOL_VERSION + 1)):
        hello = Hello(version=version, token=ORGANISER_KEY, client=f"example-{label}")
        newer = {"versions", "heartbeat"}  # fields of version 7: an older client has none
        record.frames.append(
            {
                "step": record.step,
                "client": label,
                "direction": "sent",
                "frame": hello.model_dump(mode="json", exclude=newer),
            }
        )
        async with connect(server.ws_url) as websocket:
            await websocket.send(codec.encode(hello, exclude=newer))
            answer = msgpack.unpackb(await websocket.recv(), raw=False)
        record.frames.append(
            {"step": record.step, "client": label, "direction": "received", "frame": answer}
        )


async def first_match(server: RecordingServer, record: Recorder) -> None:
    record.at("create")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            boards=1,
            team_a="Sharks",
            team_b="Minnows",
            deals_pbn=DEALS,
            names={"1N": "Ann", "1E": "Bo", "1S": "Cy", "1W": "Di"},
            review_seconds=20,
            wait_for_players=True,
        )

    await record.act("organiser", create)
    links = {f"{s.seat}{s.table}": s.link for s in created.seats}
    record.at("connect")
    for name in ("N1", "E1", "S1", "W1", "N2", "E2", "S2", "W2"):
        await record.connect(name, links[name])
    await record.connect("director", created.director)
    await record.connect("spectator", created.spectator)
    await record.settle()
    record.at("set_name")
    await record.act("W2", lambda c: c.set_name("Wendy"))
    record.at("table 2 passes out")
    for name in ("N2", "E2", "S2", "W2"):
        await record.act(name, lambda c: c.call("P"))
    record.at("table 2 next board")
    for name in ("N2", "E2", "S2", "W2"):
        await record.act(name, lambda c: c.next_board())
    record.at("table 2 own board")
    await record.act("N2", lambda c: c.board(1))
    record.at("auction")
    await record.act("N1", lambda c: c.call("1NT", "15-17 balanced"))
    await record.act("E1", lambda c: c.call("1S"), refused=True)
    await record.act("W1", lambda c: c.call("P"), refused=True)
    await record.act("E1", lambda c: c.call("P"))
    await record.act("S1", lambda c: c.call("2NT"))
    record.at("undo")
    await record.act("S1", lambda c: c.undo())
    await record.act("E1", lambda c: c.answer_undo(True))
    await record.act("W1", lambda c: c.answer_undo(True))
    record.at("ask")
    await record.act("E1", lambda c: c.ask(0))
    await record.act("N1", lambda c: c.explain(0, "15-17 HCP, balanced"))
    record.at("auction end")
    await record.act("S1", lambda c: c.call("3NT"))
    for name in ("W1", "N1", "E1"):
        await record.act(name, lambda c: c.call("P"))
    record.at("play")
    await record.act("E1", lambda c: c.play("HJ"))
    await record.act("S1", lambda c: c.play("H4"), refused=True)
    await record.act("N1", lambda c: c.play("H4"))
    await record.act("W1", lambda c: c.play("H2"))
    await record.act("N1", lambda c: c.play("HQ"))
    record.at("chat")
    await record.act("S1", lambda c: c.chat("well played"))
    record.at("claim")
    await record.act("N1", lambda c: c.claim(8, "four spade and heart winners, then the diamonds"))
    await record.act("S1", lambda c: c.answer_claim(True), refused=True)  # dummy
    await record.act("E1", lambda c: c.answer_claim(True))
    await record.act("W1", lambda c: c.answer_claim(True))
    record.at("review")
    await record.act("S1", lambda c: c.play("SA"), refused=True)
    record.at("concession withdrawal asked")
    await record.act("E1", lambda c: c.withdraw_concession())
    await record.act("W1", lambda c: c.withdraw_concession(), refused=True)  # asked already
    await record.act("director", lambda c: c.decide_withdrawal(1, False))
    record.at("concession withdrawn")
    await record.act("E1", lambda c: c.withdraw_concession())
    await record.act("director", lambda c: c.decide_withdrawal(1, True))
    await record.act("N1", lambda c: c.claim(8, "four spade and heart winners, then the diamonds"))
    for name in ("E1", "W1"):
        await record.act(name, lambda c: c.answer_claim(True))
    record.at("next board")
    for name in ("N1", "E1", "S1"):
        await record.act(name, lambda c: c.next_board())
    record.at("compared")
    await record.act("W1", lambda c: c.next_board())
    record.at("analysis")
    server.held.released.set()
    await record.clients["N1"].wait_for(
        lambda v: all(c.double_dummy is not None for c in v.match.comparisons) or None, timeout=60
    )
    await record.settle()
    record.at("after")
    await record.act("N1", lambda c: c.board(1))
    await record.act("E1", lambda c: c.record())
    await record.act("N1", lambda c: c.play("SA"), refused=True)
    record.at("resume")
    north = record.clients["N1"]
    view = north.view
    assert isinstance(view, PlayerView)
    assert view.match.finished
    await north.close()
    # Resuming after update 3 takes the view that update left: the updates after it change it.
    third = next(m for m in north.received if isinstance(m, Update) and m.seq == 3)
    client = await record.connect("N1-back", links["N1"], last_seq=3, view=third.view)
    del client
    await record.settle()
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def teams_match(
    server: RecordingServer,
    record: Recorder,
    deals: str,
    boards: int,
    seats: tuple[str, ...],
    **options: Any,
) -> Any:
    """The organiser's teams match (Sharks against Minnows, no review time, and ``options``),
    its analysis logged, the players at ``seats`` and the director connected; what it was
    created with."""
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            boards=boards,
            team_a="Sharks",
            team_b="Minnows",
            deals_pbn=deals,
            review_seconds=0,
            **options,
        )

    await record.act("organiser", create)
    await server.analysed(created.match_id)  # its comparisons come with their analysis
    links = {f"{s.seat}{s.table}": s.link for s in created.seats}
    for name in seats:
        await record.connect(name, links[name])
    await record.connect("director", created.director)
    await record.settle()
    return created


async def second_match(server: RecordingServer, record: Recorder) -> None:
    record.at("second create")
    seats = ("N1", "E1", "S1", "W1", "N2", "E2", "S2", "W2")
    created = await teams_match(server, record, SECOND, 3, seats)
    # Board 1 at table 1: East declares 3NT; South (a defender) claims five, rejected.
    record.at("second auction")
    for name, call in (("N1", "P"), ("E1", "1NT"), ("S1", "P"), ("W1", "3NT")):
        await record.act(name, calling(call))
    for name in ("N1", "E1", "S1"):
        await record.act(name, lambda c: c.call("P"))
    await record.act("S1", lambda c: c.play("ST"))
    record.at("second claim")
    await record.act("S1", lambda c: c.claim(5))
    await record.act("W1", lambda c: c.answer_claim(True), refused=True)
    await record.act("E1", lambda c: c.answer_claim(False))
    record.at("second play on")
    await record.act("E1", lambda c: c.play("S3"))
    record.at("second director")
    await record.act("N1", lambda c: c.call_director("East rejected our claim"))
    await record.act("director", lambda c: c.chat("I am looking at it: play on", table=1))
    await record.act("director", lambda c: c.rule(1, 9))
    record.at("second presence")
    west = record.clients.pop("W2")
    await west.close()
    await asyncio.sleep(server.presence_grace + 0.5)  # away once the grace is over
    await record.settle()
    record.at("second substitute")
    substituted: Any = None

    async def substitute(client: Client) -> None:
        nonlocal substituted
        substituted = await client.substitute(2, "W")

    await record.act("director", substitute)
    await record.connect("W2-new", substituted.link)
    await record.settle()
    record.at("second table 2")
    table2 = {"N": "N2", "E": "E2", "S": "S2", "W": "W2-new"}
    for seat, call in (("N", "P"), ("E", "1NT"), ("S", "P"), ("W", "P"), ("N", "P")):
        await record.act(table2[seat], calling(call))
    await record.act("S2", lambda c: c.play("ST"))
    await record.act("S2", lambda c: c.withdraw_claim(), refused=True)
    await record.act("E2", lambda c: c.claim(7))
    await record.act("E2", lambda c: c.withdraw_claim())
    await record.act("E2", lambda c: c.claim(7))
    for name in ("N2", "S2"):
        await record.act(name, lambda c: c.answer_claim(True))
    record.at("second assign")
    await record.act("director", lambda c: c.assign_result(2, 1, "1NT", "E", 8))
    record.at("second adjust")
    await record.act("director", lambda c: c.adjust_score(1, 3))
    record.at("second void")
    await record.act("director", lambda c: c.void_board(3))
    record.at("second undo refused")
    await record.act("E1", lambda c: c.call("1NT"))
    await record.act("E1", lambda c: c.undo())
    await record.act("S1", lambda c: c.answer_undo(False))
    record.at("second director undo")
    await record.act("director", lambda c: c.undo(table=1))
    record.at("second resend")

    async def call_twice(client: Client) -> None:
        # A client that lost the first answer with its connection sends the action again,
        # with the same action_id: the second is answered, not applied.
        for _ in range(2):
            await client.request(lambda ref: MakeCall(call="1NT", action_id="5d0c9e21-14", ref=ref))

    await record.act("E1", call_twice)
    record.at("second rate limited")
    await rate_limited(record, created.director)
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def replay_match(server: RecordingServer, record: Recorder) -> None:
    """Replay duplicate, one board, stage 2 held for the director: refused starts, stage 1,
    the director's start, stage 2 with everyone one seat on, the comparison."""
    record.at("replay create")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            format="replay",
            boards=1,
            deals_pbn=DEALS,
            stage_two="director",
            names={"1N": "Ann", "1E": "Bo", "1S": "Cy", "1W": "Di"},
            review_seconds=0,
        )

    await record.act("organiser", create)
    await server.analysed(created.match_id)
    links = {f"{s.seat}{s.table}": s.link for s in created.seats}
    for name in ("N1", "E1", "S1", "W1"):
        await record.connect(name, links[name])
    await record.connect("director", created.director)
    await record.settle()
    record.at("replay too early")
    await record.act("director", lambda c: c.start_round(2), refused=True)
    await record.act("director", lambda c: c.start_round(3), refused=True)
    await record.act("director", lambda c: c.adjust_score(1, 3), refused=True)
    record.at("replay stage 1")
    for name, call in (("N1", "1NT"), ("E1", "P"), ("S1", "P"), ("W1", "P")):
        await record.act(name, calling(call))
    await record.act("N1", lambda c: c.claim(7))
    for name in ("E1", "W1"):
        await record.act(name, lambda c: c.answer_claim(True))
    record.at("replay start round")
    await record.act("director", lambda c: c.start_round(2))
    record.at("replay stage 2")
    # One seat on: player 2 (East in stage 1) is North now, and so on round.
    for name in ("E1", "S1", "W1", "N1"):
        await record.act(name, calling("P"))
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


SERIES = (
    '[Event "Protocol example"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
    '[Deal "N:AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943 7654.8732.T76.A7"]\n\n'
    '[Board "2"]\n[Dealer "E"]\n[Vulnerable "NS"]\n'
    '[Deal "N:AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943 7654.8732.T76.A7"]\n'
)
"""The series' two boards: the first recorded match's deal, dealt by North, then by East."""


async def series_match(server: RecordingServer, record: Recorder) -> None:
    """Replay duplicate as a series of three meetings of one new board each, each later
    meeting begun by the director: meeting 1 plays board 1; meeting 2 replays it turned one
    seat, then plays board 2; meeting 3 replays board 2."""
    record.at("series create")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            format="replay",
            sessions=3,
            boards=1,
            deals_pbn=SERIES,
            stage_two="director",
            names={"1N": "Ann", "1E": "Bo", "1S": "Cy", "1W": "Di"},
            review_seconds=0,
        )

    await record.act("organiser", create)
    await server.analysed(created.match_id)
    links = {f"{s.seat}{s.table}": s.link for s in created.seats}
    for name in ("N1", "E1", "S1", "W1"):
        await record.connect(name, links[name])
    await record.connect("director", created.director)
    await record.settle()
    record.at("series meeting 1")
    for name, call in (("N1", "1NT"), ("E1", "P"), ("S1", "P"), ("W1", "P")):
        await record.act(name, calling(call))
    await record.act("N1", lambda c: c.claim(7))
    for name in ("E1", "W1"):
        await record.act(name, lambda c: c.answer_claim(True))
    record.at("series meeting 2")
    await record.act("director", lambda c: c.start_round(2))
    # Board 1 turned one seat (Bo is North now), passed out; then board 2, East dealing.
    for name in ("E1", "S1", "W1", "N1"):
        await record.act(name, calling("P"))
    for name in ("E1", "S1", "W1", "N1"):
        await record.act(name, calling("P"))
    record.at("series meeting 3")
    await record.act("director", lambda c: c.start_round(4))
    # Board 2 turned: Cy holds East's cards and deals.
    for name in ("S1", "W1", "N1", "E1"):
        await record.act(name, calling("P"))
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def individual_match(server: RecordingServer, record: Recorder) -> None:
    """An 8-player individual: player 1 (South at table 1 in round 1) and seven of the
    server's robots. Player 1 passes every call and plays the first legal card, through
    round 1 (table 1 finishes first and waits for table 2) to the start of round 2."""
    record.at("individual create")
    server.held.released.clear()  # its analysis comes in round 2
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            format="individual",
            players=8,
            boards=INDIVIDUAL_BOARDS,
            deals_pbn=INDIVIDUAL,
            robots=["t2", "1N", "1E", "1W"],
            names=INDIVIDUAL_NAMES,
            review_seconds=0,
            wait_for_players=True,
        )

    await record.act("organiser", create)
    link = next(seat.link for seat in created.seats if seat.player == 1)
    await record.clients.pop("organiser").close()
    record.at("individual round 1")
    me = await record.connect("P1", link)
    await record.settle()

    def due(view: Any) -> PlayerView | None:
        """The view, once it asks something of player 1 or round 1 is over for table 1."""
        if not isinstance(view, PlayerView):
            return None
        board = view.board
        if view.round > 1 or view.waiting_for:
            return view
        if board is None:
            return None
        if "claim_answer" in board.actions or "next_board" in board.actions:
            return view
        return view if board.acting == view.seat and board.legal else None

    while True:
        view = await me.wait_for(due, timeout=120)
        board = view.board
        if view.round > 1 or view.waiting_for:
            break
        assert board is not None
        if "claim_answer" in board.actions:
            await record.act("P1", lambda c: c.answer_claim(True))
        elif "next_board" in board.actions:
            await record.act("P1", lambda c: c.next_board())
        elif board.phase == "auction":
            await record.act("P1", calling("P"))
        else:
            await record.act("P1", playing(board.legal[0]))
    record.at("individual waiting")
    assert view.round == 1, "round 2 started before table 1 had finished round 1"
    assert view.waiting_for == [SLOW_TABLE], "table 2 finished round 1 first"
    await me.wait_for(lambda v: isinstance(v, PlayerView) and v.round == 2, timeout=120)
    record.at("individual round 2")
    await record.settle()
    record.at("individual analysis")
    server.held.released.set()
    await me.wait_for(
        lambda v: all(c.double_dummy is not None for c in v.match.comparisons) or None, timeout=60
    )
    await record.settle()
    await me.close()
    record.clients.clear()


def received_record(record: Recorder, step: str, client: str) -> MatchRecord:
    """The match record that ``client`` received at ``step``."""
    for entry in record.frames:
        where = (entry["step"], entry["client"], entry["direction"], entry["frame"].get("type"))
        if where == (step, client, "received", "match_record"):
            return MatchRecord.model_validate(entry["frame"])
    raise LookupError(f"{client} received no match record at {step!r}")


async def imported_match(server: RecordingServer, record: Recorder) -> None:
    """A team match played elsewhere, imported: the organiser loads the first recorded
    match's PBN record (as East received it at the end) as a finished match; a record of
    one table only is refused, and so is a card from the organiser. North of the imported
    match sees it finished, may not import, and asks for its record as LIN and as PBN (the
    deal set published); the organiser imports that LIN record too. Last, North of a new
    match asks for its record before any card is played: the commitment to the deals only."""
    pbn = received_record(record, "after", "E1").record
    record.at("import")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def import_pbn(client: Client) -> None:
        nonlocal created
        created = await client.import_match(pbn)

    await record.act("organiser", import_pbn)
    await server.analysed(created.match_id)  # North's snapshot comes with the analysis
    record.at("import refused")
    open_room = pbn[: pbn.index("\n\n") + 1]  # the header and table 1's game only
    await record.act("organiser", lambda c: c.import_match(open_room), refused=True)
    await record.act("organiser", playing("SA"), refused=True)  # the organiser plays nothing
    record.at("import view")
    link = next(seat.link for seat in created.seats if seat.player == 1)
    await record.connect("I-N1", link)
    await record.settle()
    await record.act("I-N1", lambda c: c.import_match(pbn), refused=True)
    record.at("import record")
    lin: Any = None

    async def get_lin(client: Client) -> None:
        nonlocal lin
        lin = await client.record("lin")

    await record.act("I-N1", get_lin)
    await record.act("I-N1", lambda c: c.record())
    record.at("import lin")
    await record.act("organiser", lambda c: c.import_match(lin, format="lin"))
    record.at("commitment")
    fresh: Any = None

    async def create(client: Client) -> None:
        nonlocal fresh
        fresh = await client.create_match(
            boards=1, team_a="Sharks", team_b="Minnows", deals_pbn=DEALS
        )

    await record.act("organiser", create)
    await server.analysed(fresh.match_id)
    link = next(seat.link for seat in fresh.seats if seat.player == 1)
    await record.connect("C-N1", link)
    await record.settle()
    await record.act("C-N1", lambda c: c.record())
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


PUBLIC_FORM = "digits 10: the numbers of the lottery of 2026-12-01, in the order drawn"
PUBLIC_VALUE = "Lottery: 4 8 15 16 23 42"
"""Read in the form sealed: 4815162342 (SPEC.md, "Deals nobody can doubt")."""
REQUEST_ID = "club-evening-2026-12-04"
"""The organiser's id for a creation it may send again (SPEC.md, "Requests sent again")."""
"""The organiser's public value for the sealed match's boards (announced after the seal)."""


async def sealed_match(server: RecordingServer, record: Recorder) -> None:
    """Boards neither side chooses: the organiser asks the server to seal a seed, creates a
    one-board teams match from the seal and a public value (every seat the server's robots),
    and tries the used seal again, refused; once the robots have finished it, the director
    connects and asks for the record, which publishes the seed and the public value with
    the deal set."""
    record.at("seal")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    sealed: Any = None
    created: Any = None

    async def seal(client: Client) -> None:
        nonlocal sealed
        sealed = await client.seal_deals(PUBLIC_FORM)

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            boards=1,
            team_a="Sharks",
            team_b="Minnows",
            robots=["t1", "t2"],
            review_seconds=0,
            seal=sealed.seal,
            public_value=PUBLIC_VALUE,
        )

    await record.act("organiser", seal)
    record.at("sealed create")
    await record.act("organiser", create)
    await record.act(
        "organiser",
        lambda c: c.create_match(boards=1, seal=sealed.seal, public_value=PUBLIC_VALUE),
        refused=True,
    )
    await server.analysed(created.match_id)
    await server.finished(created.match_id)
    record.at("sealed record")
    await record.connect("director", created.director)
    await record.settle()
    await record.act("director", lambda c: c.record())
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def requests_sent_again(server: RecordingServer, record: Recorder) -> None:
    """The organiser's creation with a ``request_id``, sent again (its answer lost, say): the
    same match comes back; another request under the same id is refused."""
    record.at("request sent again")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")

    def create(boards: int) -> Callable[[Client], Awaitable[object]]:
        return lambda client: client.create_match(
            boards=boards,
            deals_pbn=one_board_pbn(),
            team_a="Sharks",
            team_b="Minnows",
            request_id=REQUEST_ID,
        )

    await record.act("organiser", create(1))
    await record.act("organiser", create(1))
    await record.act("organiser", create(2), refused=True)
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def calls_match(server: RecordingServer, record: Recorder) -> None:
    """A call for the director's life at table 1 of a one-board match: seen, answered in
    the chat, closed; then another, closed by the director's ruling on its board."""
    record.at("calls create")
    await teams_match(server, record, DEALS, 1, ("N1", "E1", "S1", "W1"))
    record.at("calls seen")
    await record.act("N1", calling("1NT"))
    await record.act("W1", lambda c: c.call_director("East hesitated before passing"))
    await record.act("director", lambda c: c.see_calls(1))
    record.at("calls answered")
    await record.act("director", lambda c: c.chat("Play on; call me at the end", table=1))
    record.at("calls closed")
    await record.act("director", lambda c: c.close_calls(1))
    await record.act("director", lambda c: c.close_calls(1), refused=True)
    record.at("calls ruled")
    for name, call in (("E1", "P"), ("S1", "3NT"), ("W1", "P"), ("N1", "P"), ("E1", "P")):
        await record.act(name, calling(call))
    await record.act("W1", lambda c: c.call_director("South claimed all, then stopped"))
    await record.act("director", lambda c: c.rule(1, 10))
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def clock_match(server: RecordingServer, record: Recorder) -> None:
    """A one-board teams match with a clock of 0.05 minutes (3 s) a board: the round's
    first call at table 1 starts it, and its time runs out with the board in play."""
    record.at("clock create")
    await teams_match(server, record, DEALS, 1, ("N1", "E1", "S1", "W1"), minutes_per_board=0.05)
    record.at("clock started")
    await record.act("N1", calling("1NT"))
    record.at("clock time up")
    await record.clients["director"].wait_for(
        lambda view: any(clock.time_up for clock in view.clocks) or None, timeout=60
    )
    await record.settle()
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def disputes_match(server: RecordingServer, record: Recorder) -> None:
    """A one-board teams match whose claims a rejection disputes (law 68D): East leads
    against North's 3NT, North claims nine with a statement, West disputes; the play stops,
    the director is called, and rules nine."""
    record.at("disputes create")
    await teams_match(
        server, record, DEALS, 1, ("N1", "E1", "S1", "W1"), disputed_claims="director"
    )
    for name, call in (("N1", "1NT"), ("E1", "P"), ("S1", "3NT")):
        await record.act(name, calling(call))
    for name in ("W1", "N1", "E1"):
        await record.act(name, calling("P"))
    await record.act("E1", playing("HJ"))
    record.at("disputes claim")
    await record.act("N1", lambda c: c.claim(9, "four diamonds once the ace is out, then the rest"))
    await record.act("E1", lambda c: c.answer_claim(True))
    record.at("disputes disputed")
    await record.act("W1", lambda c: c.answer_claim(False))
    await record.act("N1", playing("H4"), refused=True)
    record.at("disputes ruled")
    await record.act("director", lambda c: c.rule(1, 9))
    await record.settle()
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def face_down_match(server: RecordingServer, record: Recorder) -> None:
    """A one-board teams match whose opening leads are made face down (law 41A): East
    leads against North's 3NT face down, West asks what South's 3NT means, then faces it."""
    record.at("face down create")
    await teams_match(server, record, DEALS, 1, ("N1", "E1", "S1", "W1"), face_down_lead=True)
    for name, call in (("N1", "1NT"), ("E1", "P"), ("S1", "3NT")):
        await record.act(name, calling(call))
    for name in ("W1", "N1", "E1"):
        await record.act(name, calling("P"))
    record.at("face down lead")
    await record.act("E1", playing("HJ"))
    await record.act("N1", playing("H4"), refused=True)
    record.at("face down question")
    await record.act("W1", lambda c: c.ask(2))
    await record.act("S1", lambda c: c.explain(2, "to play"))
    record.at("face down faced")
    await record.act("W1", lambda c: c.face_lead())
    await record.settle()
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def heartbeats(server: RecordingServer, record: Recorder) -> None:
    """A connection that asks for heartbeats: the server's first, once it has sent nothing
    for a while, and the client's answer."""
    record.at("heartbeats")
    hello = Hello(
        version=PROTOCOL_VERSION,
        versions=[PROTOCOL_VERSION],
        token=ORGANISER_KEY,
        client="example-heartbeat",
        heartbeat=True,
    )
    async with connect(server.ws_url) as websocket:
        record.sent("heartbeat", hello)
        await websocket.send(codec.encode(hello))
        for _ in range(2):  # the welcome, then the heartbeat
            received = codec.decode_server(await websocket.recv())
            record.frames.append(
                {
                    "step": record.step,
                    "client": "heartbeat",
                    "direction": "received",
                    "frame": received.model_dump(mode="json"),
                }
            )
        assert isinstance(received, Heartbeat), received
        answer = HeartbeatAnswer(ref=received.ref)
        record.sent("heartbeat", answer)
        await websocket.send(codec.encode(answer))


async def levels_match(server: RecordingServer, record: Recorder) -> None:
    """A one-board teams match of the server's robots: strong at table 1, seed at table 2;
    the organiser's request and the names the robots are given."""
    record.at("levels create")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            boards=1,
            deals_pbn=DEALS,
            robots=["t1", "t2"],
            review_seconds=0,
            robot_level="strong",
            robot_levels={"t2": "seed"},
        )

    await record.act("organiser", create)
    await record.clients.pop("organiser").close()
    await server.finished(created.match_id)


async def rate_limited(record: Recorder, link: str) -> None:
    """Pings as fast as a connection can send them, until the server says to slow down:
    the refused ping and the refusal are recorded (not the hundreds of pongs before)."""
    client = await Client.connect(link, name="example-flood")
    websocket = client._websocket
    assert websocket is not None
    ref = 1000
    refused: ErrorMessage | None = None
    while refused is None:
        for _ in range(4):  # a few in flight at a time: the refusals stay under the strikes
            ref += 1
            await websocket.send(codec.encode(Ping(ref=ref)))
        with contextlib.suppress(ClientError):
            await client.ping()  # all four are answered by the time this one is
        errors = [m for m in client.received if isinstance(m, ErrorMessage)]
        refused = errors[0] if errors else None
    first = Ping(ref=refused.ref)
    record.sent("flood", first)
    record.frames.append(
        {
            "step": record.step,
            "client": "flood",
            "direction": "received",
            "frame": refused.model_dump(mode="json"),
        }
    )
    assert refused.retry_after_ms is not None
    wait = refused.retry_after_ms
    # Served again once it waited as told. A ping still in flight after the recorded refusal
    # may have taken the token that refusal counted on: then the server names a new wait.
    for _ in range(10):
        await asyncio.sleep(wait / 1000)
        try:
            await client.ping()
            break
        except ClientError as error:
            if error.code != "rate_limited" or error.retry_after_ms is None:
                raise
            wait = error.retry_after_ms
    else:
        raise AssertionError("the server kept refusing a client that waited as told")
    await client.close()


async def refusals(server: RecordingServer, record: Recorder) -> None:
    """Frames that the server refuses, each sent on a raw connection (so that every byte and
    ``ref`` is the story's): what cannot be read, what is not a message, what comes before
    ``hello`` or from the wrong role, a ``ping`` and its ``pong``; then, in a match of one
    board whose chat is off, a spectator's call, a player's chat, a ``last_seq`` far ahead,
    a seat's old token after the director gave it away, and a deal file too short."""
    record.at("refusals")
    deals = one_board_pbn()
    organiser = await raw(server, record, "raw-organiser", ORGANISER_KEY)
    await organiser.ask({"type": "create_match", "boards": 2, "deals_pbn": deals, "ref": 5})
    created = MatchCreated.model_validate(
        await organiser.ask(
            {"type": "create_match", "boards": 1, "deals_pbn": deals, "chat": "off", "ref": 6}
        )
    )
    await organiser.ask({"type": "hello", "version": PROTOCOL_VERSION, "token": ORGANISER_KEY})
    await organiser.close()
    await server.analysed(created.match_id)
    anyone = await raw(server, record, "raw")
    await anyone.ask('{"type": "ping"}')
    await anyone.ask(b"\xc1")
    await anyone.ask(msgpack.packb([1, 2]))
    await anyone.ask(b"\x00" * (codec.MAX_CLIENT_FRAME + 1))
    await anyone.ask({"type": "bid", "call": "1S"})
    await anyone.ask({"call": "1S"})
    await anyone.ask({"type": "card", "card": "S1", "ref": 9})
    await anyone.ask({"type": "call", "call": "1S", "ref": 4})
    await anyone.ask({"type": "chat", **{f"field{n}": n for n in range(41)}})
    await anyone.ask({"type": "x" * 5000})
    await anyone.ask({"type": "ping", "ref": 1})
    await anyone.ask({"type": "hello", "version": PROTOCOL_VERSION, "token": "no-such-token"})
    await anyone.close()
    assert created.spectator is not None
    spectator = await raw(server, record, "raw-spectator", Link.parse(created.spectator).token)
    await spectator.ask({"type": "call", "call": "1C", "ref": 3})
    await spectator.close()
    north = next(s for s in created.seats if (s.table, s.seat) == (1, "N"))
    assert north.link is not None
    token = Link.parse(north.link).token
    player = await raw(server, record, "raw-N1", token)
    await player.ask({"type": "chat", "text": "hello partner", "ref": 6})
    await player.close()
    ahead = await raw(server, record, "raw-N1-ahead")
    await ahead.ask({"type": "hello", "version": PROTOCOL_VERSION, "token": token, "last_seq": 999})
    await ahead.close()
    director = await raw(server, record, "raw-director", Link.parse(created.director).token)
    await director.ask({"type": "substitute", "table": 1, "seat": "N", "ref": 1})
    await director.close()
    replaced = await raw(server, record, "raw-N1-replaced")
    await replaced.ask({"type": "hello", "version": PROTOCOL_VERSION, "token": token})
    await replaced.close()


async def overloaded(redis: Redis, record: Recorder) -> None:
    """A server past what it can serve (its loop held 120 ms a turn here, as a flood of
    actions would hold it): a player's call is refused at once, ``unavailable`` with
    ``retry_after_ms``, and the same call (its ``action_id``), sent again once the server
    keeps time, is taken."""
    record.at("overload")
    limits = Limits(overload_lag=OVERLOAD_LAG)
    server = RecordingServer(redis, ORGANISER_KEY, robot_delay=0, limits=limits)
    server.held.released.set()  # its match is analysed before anyone plays
    await server.start()
    try:
        organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
        created = await organiser.create_match(boards=1, deals_pbn=one_board_pbn())
        await organiser.close()
        await server.analysed(created.match_id)
        north = next(s for s in created.seats if (s.table, s.seat) == (1, "N"))
        assert north.link is not None
        player = await raw(server, record, "raw-N1-busy", Link.parse(north.link).token)
        call = {"type": "call", "call": "1S", "alert": None, "ref": 7, "action_id": "5f3a9c21-7"}
        with loop_held():
            await asyncio.sleep(1.0)  # every look of the server's at its loop comes late
            answer = await player.ask(dict(call))
        assert answer["code"] == "unavailable", answer
        assert answer["retry_after_ms"], answer
        while answer["type"] == "error":
            assert answer["code"] == "unavailable", answer
            # At least as long as told: long enough for the loop to show it keeps time.
            await asyncio.sleep(max(answer["retry_after_ms"] / 1000, 0.2))
            call["ref"] += 1
            answer = await player.ask(dict(call))
        assert answer["type"] == "ack", answer
        assert not answer["repeated"], answer
        await player.close()
    finally:
        await server.close()


def one_board_pbn() -> str:
    """The first recorded match's deal, as a deal file of one board."""
    return DEALS


@dataclass
class Raw:
    """A raw connection of the story: each frame sent is recorded (as the map it was, or as
    the bytes' description when it is no map), and the answers that came before the pong
    of a ping sent after it."""

    websocket: ClientConnection
    record: Recorder
    name: str
    refs: int = 2**31 - 1

    async def ask(self, frame: dict[str, Any] | bytes | str) -> dict[str, Any]:
        """Send a frame; return the last answer to it (every answer is recorded)."""
        if isinstance(frame, dict):
            shown: Any = frame
            data: bytes | str = msgpack.packb(frame)
        else:
            shown = {"raw": repr(frame[:40]), "bytes": len(frame)}
            data = frame
        self.record.frames.append(
            {"step": self.record.step, "client": self.name, "direction": "sent", "frame": shown}
        )
        await self.websocket.send(data)
        await self.websocket.send(msgpack.packb({"type": "ping", "ref": self.refs}))
        answers = []
        while True:
            answer = msgpack.unpackb(await self.websocket.recv(), raw=False)
            if answer == {"type": "pong", "ref": self.refs}:
                break
            answers.append(answer)
            self.record.frames.append(
                {
                    "step": self.record.step,
                    "client": self.name,
                    "direction": "received",
                    "frame": answer,
                }
            )
        assert answers, frame
        last: dict[str, Any] = answers[-1]
        return last

    async def close(self) -> None:
        await self.websocket.close()


async def raw(server: Server, record: Recorder, name: str, token: str | None = None) -> Raw:
    """A raw connection, after a ``hello`` with ``token`` when one is given."""
    connection = Raw(await connect(server.ws_url, max_size=None), record, name)
    if token is not None:
        await connection.ask({"type": "hello", "version": PROTOCOL_VERSION, "token": token})
    return connection


CONSOLE_ROSTER = '[Table "1"]\n[North "Ann"]\n[East "Bo"]\n[South "Cy"]\n[West "Di"]\n'


async def console(server: RecordingServer, record: Recorder) -> None:
    """The organiser's console, as the page at /organise runs it, on a server with no match
    yet: signed in with the key, it opens a session and signs in again with that; makes a
    match from a roster (North a person, the rest the server's robots, no spectators) and
    follows the list live while North connects; gives the links again and a new link for
    North; an unfinished match cannot be put away. (Its analysis comes with the first
    match's, :class:`HeldAnalyst`.)"""
    record.at("console sign in")
    await record.connect("organiser", f"{server.ws_url}#{ORGANISER_KEY}")
    session: Any = None

    async def open_session(client: Client) -> None:
        nonlocal session
        session = await client.open_session()

    await record.act("organiser", open_session)
    await record.clients.pop("organiser").close()
    await record.connect("console", f"{server.ws_url}#{session.token}")
    record.at("console create")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_match(
            boards=1,
            deals_pbn=DEALS,
            team_a="Sharks",
            team_b="Minnows",
            roster=CONSOLE_ROSTER,
            robots=["1E", "1S", "1W", "t2"],
            spectators="off",
            review_seconds=0,
        )

    await record.act("console", create)
    await record.act(
        "console",
        lambda c: c.create_match(boards=1, roster='[Table "3"]\n[North "Zed"]\n'),
        refused=True,
    )
    record.at("console list")
    await record.act("console", lambda c: c.list_matches(live=True))
    north = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
    await record.connect("N1", north)

    def connected(listed: Any) -> bool:
        entry = next(m for m in listed.matches if m.match_id == created.match_id)
        return entry.tables[0].players[0].connected

    await record.clients["console"].wait_for_list(connected)
    await record.settle()
    record.at("console links")
    await record.act("console", lambda c: c.links(created.match_id))
    await record.act("console", lambda c: c.new_link(created.match_id, 1))
    record.at("console archive")
    await record.act("console", lambda c: c.archive(created.match_id), refused=True)
    await record.act("console", lambda c: c.list_matches())
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def console_after(server: RecordingServer, record: Recorder) -> None:
    """The console at the end of the evening: puts a finished match away, downloads its
    record, and signs out."""
    record.at("console later")
    keyed = await Client.connect(Link(server.ws_url, ORGANISER_KEY), name="key")
    session = await keyed.open_session()
    await keyed.close()
    await record.connect("console", f"{server.ws_url}#{session.token}")
    finished = next(
        m.match_id
        for m in (await record.clients["console"].list_matches()).matches
        if m.status == "finished"
    )
    record.note_received()
    await record.act("console", lambda c: c.archive(finished))
    await record.act("console", lambda c: c.record("lin", match_id=finished))
    record.at("console sign out")

    async def sign_out(client: Client) -> None:
        await client.close_session()
        async with asyncio.timeout(10):  # the server closes the connection then
            while client.is_connected:
                await asyncio.sleep(0.05)

    await record.act("console", sign_out)
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def event_story(server: RecordingServer, record: Recorder) -> None:
    """An event of three teams of robots, a round robin of one-board rounds that the
    organiser begins: the event as drawn, its results link signed in with, a round begun
    out of turn refused, round 1 begun and played, an adjustment, and the event after
    round 1."""
    record.at("event create")
    keyed = await Client.connect(Link(server.ws_url, ORGANISER_KEY), name="key")
    session = await keyed.open_session()
    await keyed.close()
    await record.connect("console", f"{server.ws_url}#{session.token}")
    created: Any = None

    async def create(client: Client) -> None:
        nonlocal created
        created = await client.create_event(
            [EventTeamSpec(name=name, robots=True) for name in ("Ash", "Birch", "Cedar")],
            kind="round_robin",
            boards_per_round=1,
            name="Club teams",
            start="director",
            deals_pbn=SECOND,
            robot_delay_ms=0,
        )

    await record.act("console", create)
    event_id = created.event_id
    await record.act("console", lambda c: c.get_event(event_id))
    record.at("event results")
    await record.connect("results", created.results)
    await record.clients["results"].wait_for_event(lambda event: event)
    record.at("event round")
    await record.act("console", lambda c: c.start_event_round(event_id, 2), refused=True)
    await record.act("console", lambda c: c.start_event_round(event_id, 1))
    console = record.clients["console"]
    async with asyncio.timeout(60):
        while (await console.get_event(event_id)).schedule[0].status != "finished":
            await asyncio.sleep(0.1)
    record.note_received()
    record.at("event adjust")
    await record.act("console", lambda c: c.adjust_event(event_id, 2, -1, "late start", 1))
    record.at("event list")
    await record.act("console", lambda c: c.list_events())
    for client in record.clients.values():
        await client.close()
    record.clients.clear()


async def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder, RedisProcess(Path(folder)) as redis_process:
        redis = Redis.from_url(redis_process.url)
        server = RecordingServer(redis, ORGANISER_KEY, robot_delay=0)
        await server.start()
        record = Recorder()
        try:
            with record.decoding():
                await old_client(server, record)
                await console(server, record)
                await first_match(server, record)
                await second_match(server, record)
                await replay_match(server, record)
                await individual_match(server, record)
                await imported_match(server, record)
                await sealed_match(server, record)
                await levels_match(server, record)
                await requests_sent_again(server, record)
                await calls_match(server, record)
                await clock_match(server, record)
                await disputes_match(server, record)
                await face_down_match(server, record)
                await heartbeats(server, record)
                await refusals(server, record)
                await overloaded(redis, record)
                await console_after(server, record)
                await event_story(server, record)
                await series_match(server, record)
        finally:
            record.note_received()
            await server.close()
            await redis.aclose()
    if out.suffix == ".jsonl":
        # The frames only, one a line (tests/protocol/golden/spec.jsonl: SPEC.md's examples
        # are taken from it, and tests/protocol/test_schema.py finds each of them there).
        lines = [
            json.dumps({k: v for k, v in f.items() if k != "view_after"}) for f in record.frames
        ]
        out.write_text("\n".join(lines) + "\n")
    else:
        out.write_text(json.dumps(record.frames, indent=1))
    print(f"{len(record.frames)} frames written to {out}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1] if len(sys.argv) > 1 else "session.json")))

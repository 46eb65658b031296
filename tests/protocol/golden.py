"""Golden transcripts: whole sessions of the protocol, recorded once, replayed by the tests.

    python -m tests.protocol.golden record VERSION OUT_DIR [SCENARIO ...]

plays each scenario below against a real server (its own redis-server) with raw
WebSocket clients speaking protocol ``VERSION``: the organiser, every player at every
table, a spectator (live or delayed) and the director. Every step is one thing a client
did (opened or closed its connection, or sent a message) and every frame that each
connection received because of it, and the file of a scenario holds them all, in order,
with what was sent. A transcript is what a client of that version saw; the tests
(``tests/protocol/test_golden.py``) send the same inputs to the server of today and
require the same frames: exactly the same for a version that is no longer current (the
server's translation at the edge must give an old client what it always had), and the
same or more (new keys of a map, new items of a list, new frames) for the current one,
whose recordings only ever grow by addition (``protocol/SPEC.md``, "Versions").

Every step ends at a barrier: a ``ping`` with :data:`SYNC_REF` on the connection that
acted, then on every other, each read up to its ``pong``. The server answers one
connection's frames in order and queues every update an action causes to every viewer
before it reads that connection's next frame, so what arrived before the pongs is all
that step caused, whatever the machine's pace. Nothing else happens on its own in these
scenarios: no review time, no robots but the robot table's (played when the match is
made), a presence grace longer than any run, and each match's double-dummy analysis
logged before a connection opens (``Session.settle``).

What differs from run to run is written as placeholders, the same way in the recording
and in the replay (:class:`Normalizer`): link tokens, match ids, SHA-256 digests, seals,
moments (milliseconds since the epoch), dates, the server's address. A message sent is
recorded with placeholders too, and turned back into this run's values when replayed.

This module uses nothing of the project but the server it starts (and the test suite's
limits), so that it records an older checkout as well (the version-6 transcripts were recorded from 5471dc0, before any
change for version 7).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import random
import re
import sys
import tempfile
import types
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

SYNC_REF = 2**31 - 1
"""The ``ref`` of the barrier's pings (never one a scenario uses)."""
ORGANISER_KEY = "golden-organiser-key"
HERE = Path(__file__).resolve().parent / "golden"
DATA = Path(__file__).resolve().parents[1] / "data"

Json = Any
Step = dict[str, Any]

_HOST = re.compile(r"(https?|wss?)://127\.0\.0\.1:\d+")
_LINK_TOKEN = re.compile(r"#([A-Za-z0-9_-]{16,})")
_SHA256 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
_DATE = re.compile(r"\b20\d\d[.-][01]\d[.-][0-3]\d\b")
_PLACEHOLDER = re.compile(r"<(token|match|sha|seal):\d+>")
MILLIS = range(1_500_000_000_000, 4_000_000_000_000)
"""Integers in this range are moments (milliseconds since the epoch)."""


class Normalizer:
    """Turns one run's values into placeholders (``<token:3>``), numbered by first sight,
    and back. Two runs that see the same frames in the same order give the same
    placeholders, so frames and messages compare across runs."""

    def __init__(self) -> None:
        self.placeholder: dict[str, str] = {}
        self.real: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def _name(self, kind: str, value: str) -> str:
        known = self.placeholder.get(value)
        if known is None:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            known = f"<{kind}:{self.counts[kind]}>"
            self.placeholder[value] = known
            self.real[known] = value
        return known

    def learn(self, value: Json, key: str | None = None) -> None:
        """Note the run's secrets in a frame (in its order, so that numbering is stable)."""
        if isinstance(value, dict):
            for k, v in value.items():
                self.learn(v, k)
        elif isinstance(value, list):
            for item in value:
                self.learn(item)
        elif isinstance(value, str):
            if key == "match_id" and value:
                self._name("match", value)
            elif key == "seal" and value:
                self._name("seal", value)
            for token in _LINK_TOKEN.findall(value):
                self._name("token", token)
            for digest in _SHA256.findall(value):
                self._name("sha", digest)

    def normal(self, value: Json) -> Json:
        """``value`` with every known secret, moment, date and address as a placeholder."""
        if isinstance(value, dict):
            return {k: self.normal(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.normal(item) for item in value]
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in MILLIS:
            return "<ms>"
        if isinstance(value, str):
            text = _HOST.sub(lambda m: f"{m.group(1)}://HOST", value)
            text = _DATE.sub("<date>", text)
            for real in sorted(self.placeholder, key=len, reverse=True):
                if real in text:
                    text = text.replace(real, self.placeholder[real])
            return text
        return value

    def actual(self, value: Json) -> Json:
        """``value`` (a recorded message) with its placeholders as this run's values."""
        if isinstance(value, dict):
            return {k: self.actual(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.actual(item) for item in value]
        if isinstance(value, str) and _PLACEHOLDER.search(value):
            return _PLACEHOLDER.sub(lambda m: self.real[m.group(0)], value)
        return value


# -- a session: connections, steps, barriers ------------------------------------------


@dataclass
class Session:
    """Raw connections to one server, each step kept as it goes (:meth:`play` sends the
    steps of a recording again)."""

    url: str
    version: int
    settle: Callable[[], Awaitable[None]]
    steps: list[Step] = field(default_factory=list)
    sockets: dict[str, ClientConnection] = field(default_factory=dict)
    refs: dict[str, int] = field(default_factory=dict)
    last_seq: dict[str, int] = field(default_factory=dict)
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    norm: Normalizer = field(default_factory=Normalizer)

    async def open(self, conn: str) -> None:
        # Whoever joins a match finds its double-dummy analysis logged (it never comes while
        # anyone watches, at a moment the machine's pace would choose). Waited for before
        # the connection opens: the server closes one that has not said hello within 10 s.
        await self.settle()
        self.sockets[conn] = await connect(self.url, max_size=None, compression=None)
        await self._finish({"do": "open", "conn": conn}, conn)

    async def close(self, conn: str) -> None:
        await self.sockets.pop(conn).close()
        await self._finish({"do": "close", "conn": conn}, None)

    async def send(self, conn: str, message: dict[str, Any]) -> dict[str, list[Json]]:
        """Send a message (with a ``ref`` of the connection's own count when it takes one
        and has none); return what every connection received at the barrier after it."""
        message = dict(message)
        if "ref" not in message and message["type"] != "hello":
            self.refs[conn] = self.refs.get(conn, 0) + 1
            message["ref"] = self.refs[conn]
        step: Step = {"do": "send", "conn": conn, "message": self.norm.normal(message)}
        await self._send(conn, message)
        return await self._finish(step, conn)

    async def _send(self, conn: str, message: dict[str, Any]) -> None:
        await self.sockets[conn].send(msgpack.packb(message))

    async def play(self, steps: list[Step]) -> None:
        """Take the steps of a recording again: the same connections opened and closed, the
        same messages sent (with this run's secrets in place of the placeholders, learnt
        from this run's frames as the recording learnt them)."""
        for step in steps:
            conn = step["conn"]
            if step["do"] == "open":
                await self.open(conn)
            elif step["do"] == "close":
                await self.close(conn)
            else:
                await self._send(conn, self.norm.actual(step["message"]))
                await self._finish({"do": "send", "conn": conn, "message": step["message"]}, conn)

    async def hello(self, conn: str, token: str, last_seq: int | None = None) -> None:
        await self.send(
            conn,
            {
                "type": "hello",
                "version": self.version,
                "token": token,
                "last_seq": last_seq,
                "client": "golden",
            },
        )

    async def _finish(self, step: Step, actor: str | None) -> dict[str, list[Json]]:
        received: dict[str, list[Json]] = {}
        order = ([actor] if actor in self.sockets else []) + [c for c in self.sockets if c != actor]
        for conn in order:
            frames = await self._sync(conn)
            for frame in frames:
                self._follow(conn, frame)
            received[conn] = frames
        for conn in order:  # learnt in a fixed order: placeholders number alike
            for frame in received[conn]:
                self.norm.learn(frame)
        step["frames"] = {c: [self.norm.normal(f) for f in fs] for c, fs in received.items() if fs}
        self.steps.append(step)
        return received

    async def _sync(self, conn: str) -> list[Json]:
        socket = self.sockets[conn]
        await socket.send(msgpack.packb({"type": "ping", "ref": SYNC_REF}))
        frames: list[Json] = []
        async with asyncio.timeout(60):
            while True:
                raw = await socket.recv()
                assert isinstance(raw, bytes), "a text frame from the server"
                frame = msgpack.unpackb(raw)
                if frame.get("type") == "pong" and frame.get("ref") == SYNC_REF:
                    return frames
                frames.append(frame)

    # -- the client's side: views kept from updates, for the scenarios' players ---------

    def _follow(self, conn: str, frame: Json) -> None:
        if frame.get("type") != "update":
            return
        self.last_seq[conn] = frame["seq"]
        if frame.get("view") is not None:
            self.views[conn] = copy.deepcopy(frame["view"])
            return
        view = self.views[conn]
        for event in frame["events"]:
            if event.get("type") == "board_compared":
                _put_comparison(view, copy.deepcopy(event["comparison"]))
        for change in frame.get("changes", []):
            _apply(view, change)


def _put_comparison(view: dict[str, Any], comparison: dict[str, Any]) -> None:
    comparisons = view["match"]["comparisons"]
    for index, existing in enumerate(comparisons):
        if existing["board"] == comparison["board"]:
            comparisons[index] = comparison
            return
    order = view["match"]["boards"]
    rank = order.index(comparison["board"])
    at = sum(1 for c in comparisons if order.index(c["board"]) < rank)
    comparisons.insert(at, comparison)


def _apply(view: dict[str, Any], change: dict[str, Any]) -> None:
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in change["path"].split("/")[1:]]
    target: Any = view
    for token in tokens[:-1]:
        target = target[int(token)] if isinstance(target, list) else target[token]
    last = tokens[-1]
    value = copy.deepcopy(change["value"])
    if isinstance(target, list):
        if change["op"] == "add" and int(last) == len(target):
            target.append(value)
        else:
            target[int(last)] = value
    else:
        target[last] = value


# -- players who play by a simple policy ----------------------------------------------


@dataclass
class Table:
    """The players' connections of a scenario, each named by where it sits in round 1
    (``"1N"``): ``auctions`` gives the calls of a board at a table, in order from its
    dealer (then passes), and ``claim_after`` the cards after which declarer claims
    ``claim_tricks`` (None: play every card)."""

    session: Session
    players: list[str]
    auctions: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    alerts: dict[tuple[int, int, int], str] = field(default_factory=dict)
    claim_after: int | None = 4
    claim_tricks: int = 7

    def board(self, conn: str) -> dict[str, Any] | None:
        board: dict[str, Any] | None = self.session.views[conn].get("board")
        return board

    def next_move(self) -> tuple[str, dict[str, Any]] | None:
        """The first player (in order) who has something to do, and what."""
        for conn in self.players:
            view = self.session.views.get(conn)
            if view is None or conn not in self.session.sockets:
                continue
            move = self._move(view)
            if move is not None:
                return conn, move
        return None

    def _move(self, view: dict[str, Any]) -> dict[str, Any] | None:
        board = view.get("board")
        seat = view["seat"]
        if board is None:
            return None
        claim = board.get("claim")
        if claim and claim.get("status") == "pending":
            if seat in claim["deciders"] and seat not in claim["accepted"]:
                return {"type": "claim_answer", "accept": True}
            return None
        undo = board.get("undo")
        if undo:
            if seat in undo["deciders"] and seat not in undo["accepted"]:
                return {"type": "undo_answer", "accept": True}
            return None
        review = view.get("review")
        if review is not None:
            if seat not in review["ready"] and "next_board" in board.get("actions", []):
                return {"type": "next_board"}
            return None
        if board.get("acting") != seat or not board.get("legal"):
            return None
        key = (board["table"], board["board"])
        if board["phase"] == "auction":
            script = self.auctions.get(key, [])
            index = len(board["auction"])
            call = script[index] if index < len(script) else "P"
            message: dict[str, Any] = {"type": "call", "call": call}
            alert = self.alerts.get((*key, index))
            if alert is not None:
                message["alert"] = alert
            return message
        played = 52 - sum(board["hand_sizes"].values())
        if (
            self.claim_after is not None
            and played >= self.claim_after
            and board["turn"] in (board["declarer"], board["dummy"])
            and "claim" in board.get("actions", [])
        ):
            remaining = board["hand_sizes"][seat]
            return {"type": "claim", "tricks": min(self.claim_tricks, remaining)}
        return {"type": "card", "card": board["legal"][0]}

    async def play(self, until: Callable[[], bool] = lambda: False, limit: int = 5000) -> None:
        """Let the players act, one action a step, until nobody has anything to do, or
        ``until()`` holds."""
        for _ in range(limit):
            if until():
                return
            move = self.next_move()
            if move is None:
                return
            await self.session.send(*move)
        raise AssertionError("the players never stopped")


# -- the scenarios ------------------------------------------------------------------------


def _deals(count: int, first: int = 0) -> str:
    """``count`` boards of fixed deals (a rotation of four hands chosen once)."""
    hands = [
        "AK2.KQ5.K43.Q652",
        "T98.JT9.A98.KJT8",
        "QJ3.A64.QJ52.943",
        "7654.8732.T76.A7",
    ]
    boards = []
    for n in range(1, count + 1):
        shift = (n + first) % 4
        deal = " ".join(hands[shift:] + hands[:shift])
        boards.append(f'[Board "{n}"]\n[Deal "N:{deal}"]\n')
    return "\n".join(boards)


async def _create(session: Session, **options: Any) -> dict[str, Any]:
    received = await session.send("organiser", {"type": "create_match", **options})
    created: dict[str, Any] = next(
        f for f in received["organiser"] if f.get("type") == "match_created"
    )
    return created


def _links(created: dict[str, Any]) -> dict[str, str]:
    """Each first-round seat's token (``"1N"``), and ``spectator`` and ``director``."""
    tokens = {}
    for seat in created["seats"]:
        if seat.get("link"):
            tokens[f"{seat['table']}{seat['seat']}"] = seat["link"].rsplit("#", 1)[1]
    if created.get("spectator"):
        tokens["spectator"] = created["spectator"].rsplit("#", 1)[1]
    tokens["director"] = created["director"].rsplit("#", 1)[1]
    return tokens


async def _everyone_in(session: Session, links: dict[str, str]) -> None:
    for conn, token in links.items():
        await session.open(conn)
        await session.hello(conn, token)


async def _organiser(session: Session) -> None:
    await session.open("organiser")
    await session.hello("organiser", ORGANISER_KEY)


async def _seated(
    session: Session, claim_tricks: int = 7, **options: Any
) -> tuple[dict[str, str], Table]:
    """The organiser makes a match of ``create_match`` ``options``, every one of its links
    joins, and its players are seated at a :class:`Table`."""
    await _organiser(session)
    created = await _create(session, **options)
    links = _links(created)
    await _everyone_in(session, links)
    players = [k for k in links if k[0].isdigit()]
    return links, Table(session, players, claim_tricks=claim_tricks)


async def teams(session: Session) -> None:
    """Two boards of a teams match with live spectators and the director at work: an
    alert, a question and its answer, an undo, a claim, chat, a call for the director,
    errors, a new name, a resume, an adjusted score, the boards and the records."""
    await _organiser(session)
    created = await _create(
        session,
        format="teams",
        boards=2,
        deals_pbn=_deals(2),
        team_a="Lions",
        team_b="Tigers",
        names={"1N": "Ann", "1E": "Bo", "1S": "Cy", "1W": "Di"},
        chat="table",
        review_seconds=0,
        spectators="live",
    )
    links = _links(created)
    await _everyone_in(session, links)
    players = [k for k in links if k[0].isdigit()]
    table = Table(session, players, claim_after=None)
    table.auctions[(1, 1)] = ["1NT", "P", "3NT"]
    table.alerts[(1, 1, 0)] = "15-17"
    table.auctions[(2, 1)] = ["1C"]
    # Errors change nothing: a card in the auction, a call out of turn, a second hello.
    await session.send("1E", {"type": "card", "card": "SA"})
    await session.send("1S", {"type": "call", "call": "2C"})
    await session.hello("1N", links["1N"])
    await session.send("1N", {"type": "call", "call": "1NT", "alert": "15-17", "action_id": "a"})
    await session.send("1N", {"type": "call", "call": "1NT", "action_id": "a"})  # repeated
    await session.send("1E", {"type": "ask", "index": 0})
    await session.send("1S", {"type": "explain", "index": 0, "text": "not mine to explain"})
    await session.send("1N", {"type": "explain", "index": 0, "text": "15 to 17 points"})
    await session.send("1E", {"type": "chat", "text": "thanks"})
    await table.play(until=lambda: _played(session, "1N") >= 3)
    # The last card is taken back with the opponents' leave.
    mover = _last_player(session, "1N")
    await session.send(mover, {"type": "undo"})
    await table.play(until=lambda: _played(session, "1N") >= 8)
    await session.send("1W", {"type": "call_director", "text": "a question about the lead"})
    await session.send("director", {"type": "chat", "table": 1, "text": "coming"})
    await session.send("2N", {"type": "set_name", "name": "Ed"})
    table.claim_after = 8
    table.claim_tricks = 9
    await table.play(until=lambda: _board_no(session, "1N") == 2)
    # A player leaves and comes back: what it missed, then afresh.
    seen = session.last_seq["2E"]
    await session.close("2E")
    await table.play(until=lambda: _played(session, "2N") >= 2)
    await session.open("2E")
    await session.hello("2E", links["2E"], last_seq=seen)
    await session.close("2E")
    await session.open("2E")
    await session.hello("2E", links["2E"])
    table.claim_after = 4
    await table.play()
    await session.send("1N", {"type": "get_board", "board": 1})
    await session.send("director", {"type": "adjust_score", "board": 2, "imps_a": 3})
    await session.send("spectator", {"type": "get_record", "format": "pbn"})
    await session.send("director", {"type": "get_record", "format": "lin"})
    await session.send("2W", {"type": "get_board", "board": 2})


def _played(session: Session, conn: str) -> int:
    board = session.views[conn].get("board") or {}
    return 52 - sum(board.get("hand_sizes", {}).values()) if board else 0


def _board_no(session: Session, conn: str) -> int:
    board = session.views[conn].get("board") or {}
    return int(board.get("board", 0))


def _last_player(session: Session, conn: str) -> str:
    """The connection of the player who played the last card at ``conn``'s table (declarer
    plays dummy's cards)."""
    view = session.views[conn]
    board = view["board"]
    trick = board.get("current_trick") or board["tricks"][-1]
    seat = trick["cards"][-1]["seat"]
    if seat == board["dummy"]:
        seat = board["declarer"]
    return f"{board['table']}{seat}"


async def robot_table(session: Session) -> None:
    """Four people against the robots' table (played when the match is made), watched with
    the delay; boards played to a claim, or passed out."""
    _, table = await _seated(
        session,
        format="robot-table",
        boards=4,
        deals_pbn=_deals(4, first=1),
        review_seconds=0,
        spectators="delayed",
    )
    table.auctions[(1, 1)] = ["1C", "1H", "2C"]
    table.auctions[(1, 3)] = ["1S", "P", "2S"]
    await table.play()
    await session.send("1S", {"type": "get_record", "format": "pbn"})


async def team_of_four(session: Session) -> None:
    """Two teams of four with board exchange: team B's pairs change tables at half-time."""
    _, table = await _seated(
        session,
        claim_tricks=5,
        format="team-of-four",
        boards=4,
        deals_pbn=_deals(4, first=2),
        review_seconds=0,
        spectators="live",
    )
    table.auctions[(1, 1)] = ["1D", "P", "1H"]
    table.auctions[(2, 2)] = ["1S"]
    table.auctions[(1, 4)] = ["2C", "P", "2D"]
    await table.play()
    await session.send("director", {"type": "void_board", "board": 3})


async def replay(session: Session) -> None:
    """Replay duplicate whose second stage waits for the director, with a review: every
    player asks for the next board."""
    _, table = await _seated(
        session,
        claim_tricks=8,
        format="replay",
        boards=2,
        deals_pbn=_deals(2, first=3),
        stage_two="director",
        review_seconds=600,
        spectators="live",
        chat="opponents",
    )
    table.auctions[(1, 1)] = ["1H", "P", "4H"]
    await table.play()
    await session.send("1N", {"type": "start_round", "round": 2})  # a player may not
    await session.send("director", {"type": "start_round", "round": 2})
    await table.play()


async def individual(session: Session) -> None:
    """An individual of 8: seven rounds of two boards, a new partner every round; most
    boards passed out, one a round played to a claim."""
    _, table = await _seated(
        session,
        claim_tricks=6,
        format="individual",
        players=8,
        boards=14,
        deals_pbn=_deals(14),
        review_seconds=0,
        spectators="delayed",
        scoring="imps",
    )
    for board in range(1, 15, 2):
        for number in (1, 2):
            table.auctions[(number, board)] = ["1NT"]
    await table.play()
    await session.send("director", {"type": "get_record", "format": "pbn"})


async def organiser(session: Session) -> None:
    """The organiser alone: refusals, sealed deals, a match from a seal, and a match played
    elsewhere imported from LIN and from PBN."""
    await session.open("organiser")
    await session.send("organiser", {"type": "create_match"})  # before hello
    await session.hello("organiser", "not-the-key")
    await _organiser(session)
    await session.send("organiser", {"type": "create_match", "format": "team-of-four", "boards": 3})
    await session.send("organiser", {"type": "call", "call": "1C"})
    received = await session.send("organiser", {"type": "seal_deals"})
    sealed = next(f for f in received["organiser"] if f.get("type") == "deals_sealed")
    await _create(
        session,
        format="teams",
        boards=2,
        seal=sealed["seal"],
        public_value="2026-12-02 lottery: 4 8 15 16 23 42",
        review_seconds=0,
    )
    await session.send("organiser", {"type": "create_match", "seal": sealed["seal"]})
    lin = (DATA / "lin_2010_usbf_sf_nickell_fleisher_seg4.lin").read_text()
    await session.send("organiser", {"type": "import_match", "format": "lin", "record": lin})
    pbn = (DATA / "pbn_1998_euro_youth_teams_ger_aut_r1.pbn").read_text(encoding="latin-1")
    await session.send("organiser", {"type": "import_match", "format": "pbn", "record": pbn})
    await session.send("organiser", {"type": "import_match", "format": "pbn", "record": "x"})


SCENARIOS: dict[str, Callable[[Session], Awaitable[None]]] = {
    "teams": teams,
    "robot_table": robot_table,
    "team_of_four": team_of_four,
    "replay": replay,
    "individual": individual,
    "organiser": organiser,
}


# -- files --------------------------------------------------------------------------------


def write(path: Path, version: int, name: str, steps: list[Step]) -> None:
    """A transcript file: a header line, then one step a line (JSON)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        out.write(json.dumps({"version": version, "scenario": name}) + "\n")
        for step in steps:
            out.write(json.dumps(step, ensure_ascii=False, sort_keys=False) + "\n")


def read(path: Path) -> tuple[dict[str, Any], list[Step]]:
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def count_frames(steps: list[Step]) -> int:
    return sum(len(frames) for step in steps for frames in step.get("frames", {}).values())


@contextlib.contextmanager
def drawn_alike() -> Iterator[None]:
    """Replay duplicate's boards come in an order the server draws (``random.SystemRandom``
    in ``server.organising``): drawn from one seed while recording and replaying, they come alike."""
    import server.organising as module

    real = module.__dict__["random"]
    alike = types.SimpleNamespace(SystemRandom=lambda: random.Random(2026), Random=random.Random)
    module.__dict__["random"] = alike
    try:
        yield
    finally:
        module.__dict__["random"] = real


def quiet_server(redis: Any) -> Any:
    """A server (not started) on which nothing happens on its own: seats stay connected however
    long the run, robots act at once, and the suite's limits (no rate met)."""
    from server.app import Server
    from tests.conftest import TEST_LIMITS

    return Server(redis, ORGANISER_KEY, robot_delay=0, presence_grace=3600, limits=TEST_LIMITS)


def analyses_logged(server: Any) -> Callable[[], Awaitable[None]]:
    """A :attr:`Session.settle` for ``server``: wait until no double-dummy analysis of it is
    under way."""

    async def settle() -> None:
        async with asyncio.timeout(120):
            while server.analyses.under_way:
                await asyncio.sleep(0.02)

    return settle


# -- recording from the command line --------------------------------------------------------


async def record(version: int, out: Path, names: list[str]) -> None:
    from redis.asyncio import Redis

    from server.redis_process import RedisProcess

    with tempfile.TemporaryDirectory() as folder:
        redis_process = RedisProcess(Path(folder))
        await redis_process.astart()
        redis = Redis.from_url(redis_process.url)
        try:
            for name in names:
                server = quiet_server(redis)
                await server.start()
                try:
                    session = Session(server.ws_url, version, analyses_logged(server))
                    with drawn_alike():
                        await SCENARIOS[name](session)
                    for socket in session.sockets.values():
                        await socket.close()
                finally:
                    await server.close()
                write(out / f"{name}.jsonl", version, name, session.steps)
                print(f"{name}: {len(session.steps)} steps, {count_frames(session.steps)} frames")
        finally:
            await redis.aclose()
            await redis_process.astop()


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] != "record":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    names = argv[3:] or list(SCENARIOS)
    asyncio.run(record(int(argv[1]), Path(argv[2]), names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

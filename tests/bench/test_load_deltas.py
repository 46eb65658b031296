"""The delta reference of the load benchmark (``bench/load_deltas.py``) sends the frames our
server sends, for the same actions.

One teams match of two boards with the same deals is played through our server (the test
run's Redis, the ``server`` fixture) and through the delta reference (in this process, on a
free port), each with the nine raw connections the load has (the eight players and a live
spectator, msgpack over WebSocket, no client library), with the same actions in the same
order, each chosen from our server's views: the auctions (one to game, one with a double, one
passed out), the play of the cards (each the acting seat's legal card in turn, the opening
lead and dummy's cards included), a claim by declarer and its acceptance by each defender,
and every ``next_board`` (the review's end, the next board's start, the comparisons and the
match's end with them). After each action every connection is pinged, so that each holds
every update the action caused.

For every action but the three that end a board (its last card, the claim's last
acceptance, the pass that passes it out), each of the nine viewers must have received the
same updates from both servers, in the same order: equal decoded frames, everything compared
(``events`` and ``changes``, operation for operation, the ``view`` none) except what cannot be
equal: ``seq``, each connection's own count (ours also counts the presence updates sent while
the players came, which the reference does not send), and a comparison's ``double_dummy`` and
``par`` in its ``board_compared`` event (ours are solved; the reference's are stand-ins). A
board's end the reference builds more simply (the board replaced whole): for those three
actions, only the views they leave must be equal. Every viewer's view (its first whole view,
patched with every update since) is compared after every action and at the start, except for
the match's id and deals commitment (ours are drawn at random), the comparisons'
double-dummy analysis and par, each seat's ``connected`` and ``since`` (our presence: when each
player came) and the review's deadline (a clock). The reference's frames are also well-formed
msgpack: packed again, they give the same bytes.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import serve

from bench.load_baseline import Match
from bench.load_clients import PROTOCOL_VERSION
from bench.load_deltas import Deltas
from bridge import board_dealer, board_vulnerability
from clients.client import Link
from protocol.changes import patch
from server.app import Server
from tests.server.harness import analysed, create

Who = tuple[int, str]
"""A connection: a player's (table, seat), or the spectator's (0, "")."""
Frame = dict[str, Any]
SPECTATOR: Who = (0, "")
BOARDS = 2
REVIEW_SECONDS = 20
AUCTIONS = {
    (1, 1): ["1NT", "P", "3NT", "P", "P", "P"],
    (1, 2): ["P", "1H", "X", "2H", "P", "P", "P"],
    (2, 1): ["P", "P", "P", "P"],
    (2, 2): ["1S", "P", "2S", "P", "P", "P"],
}
"""Each (board, table)'s calls, from the dealer on."""
CLAIM_AFTER = {(1, 2): 5}
"""Where declarer claims the rest, after this many tricks, on their first turn then."""
WAIT = 20.0


class Side:
    """The nine connections to one server, each with its view as built from its updates."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.connections: dict[Who, ClientConnection] = {}
        self.frames: dict[Who, asyncio.Queue[bytes]] = {}
        self.views: dict[Who, Frame] = {}
        self.readers: list[asyncio.Task[None]] = []
        self.refs = itertools.count(1)

    async def connect(self, url: str, tokens: dict[Who, str]) -> None:
        for who, token in tokens.items():
            websocket = await connect(url, compression=None, ping_interval=None, max_size=1 << 22)
            hello = {"type": "hello", "version": PROTOCOL_VERSION, "token": token}
            await websocket.send(msgpack.packb(hello))
            welcome = msgpack.unpackb(await websocket.recv())
            assert welcome["type"] == "welcome", (self.name, welcome)
            self.connections[who] = websocket
            self.frames[who] = asyncio.Queue()
            self.readers.append(asyncio.create_task(self._read(websocket, self.frames[who])))
            snapshot, _frame = await self._next(who)
            assert snapshot["view"] is not None, (self.name, who)

    async def _read(self, websocket: ClientConnection, frames: asyncio.Queue[bytes]) -> None:
        async for frame in websocket:
            assert isinstance(frame, bytes)
            frames.put_nowait(frame)

    async def _next(self, who: Who) -> tuple[Frame, bytes]:
        """The connection's next frame, decoded; an update is applied to its view."""
        frame = await asyncio.wait_for(self.frames[who].get(), WAIT)
        message: Frame = msgpack.unpackb(frame)
        if message["type"] == "update":
            if message["view"] is not None:
                self.views[who] = copy.deepcopy(message["view"])
            else:
                events = message["events"]
                compared = [e["comparison"] for e in events if e["type"] == "board_compared"]
                patch(self.views[who], message["changes"], compared)
        return message, frame

    async def settle(self) -> dict[Who, list[tuple[Frame, bytes]]]:
        """Ping every connection; return the updates each received before its pong."""
        updates: dict[Who, list[tuple[Frame, bytes]]] = {who: [] for who in self.connections}
        for who, websocket in self.connections.items():
            ref = next(self.refs)
            await websocket.send(msgpack.packb({"type": "ping", "ref": ref}))
            while True:
                message, frame = await self._next(who)
                if message["type"] == "pong" and message["ref"] == ref:
                    break
                assert message["type"] == "update", (self.name, who, message)
                updates[who].append((message, frame))
        return updates

    async def act(self, who: Who, message: Frame) -> dict[Who, list[tuple[Frame, bytes]]]:
        """Send a player's action; return the updates each viewer received for it."""
        ref = next(self.refs)
        await self.connections[who].send(msgpack.packb({**message, "ref": ref}))
        received = []
        while True:
            answer, frame = await self._next(who)
            if answer["type"] != "update" and answer.get("ref") == ref:
                assert answer["type"] == "ack", (self.name, who, message, answer)
                break
            received.append((answer, frame))
        updates = await self.settle()
        updates[who][:0] = received
        return updates

    async def close(self) -> None:
        for websocket in self.connections.values():
            await websocket.close()
        for reader in self.readers:
            await reader


def deals_pbn(match: Match) -> str:
    """The reference's deals for ``match`` as a PBN file, for our ``create_match``."""
    return "\n".join(
        f'[Board "{number}"]\n[Dealer "{board_dealer(number).letter}"]\n'
        f'[Vulnerable "{board_vulnerability(number).value}"]\n[Deal "{deal.to_pbn()}"]\n'
        for number, deal in enumerate(match.deals, 1)
    )


def comparable(view: Frame) -> Frame:
    """A view without what cannot be equal (the module's docstring says why)."""
    view = copy.deepcopy(view)
    match = view["match"]
    del match["match_id"], match["deals_commitment"]
    for comparison in match["comparisons"]:
        del comparison["double_dummy"], comparison["par"]
    for seat in view["players"]:
        del seat["connected"], seat["since"]
    if view.get("review") is not None:
        del view["review"]["until"]
    return view


def bare(updates: list[tuple[Frame, bytes]]) -> list[Frame]:
    """Updates without what cannot be equal (the module's docstring says why)."""
    found = []
    for update, _frame in updates:
        update = copy.deepcopy(update)
        del update["seq"]
        for event in update["events"]:
            if event["type"] == "board_compared":
                del event["comparison"]["double_dummy"], event["comparison"]["par"]
        found.append(update)
    return found


def plays(views: dict[Who, Frame]) -> Iterator[tuple[Who, Frame, bool]]:
    """The match's actions, chosen from our views as they are when each is due: the
    action, who makes it, and whether its frames must be equal to ours."""
    cards = itertools.count()
    for board in range(1, BOARDS + 1):
        for table in (1, 2):
            yield from _board(views, board, table, cards)
            for seat in "NESW":
                yield (table, seat), {"type": "next_board"}, True


def _board(
    views: dict[Who, Frame], board: int, table: int, cards: Iterator[int]
) -> Iterator[tuple[Who, Frame, bool]]:
    calls = AUCTIONS[(board, table)]
    for index, call in enumerate(calls):
        shown = views[(table, "N")]["board"]
        assert (shown["board"], shown["phase"]) == (board, "auction")
        passed_out = all(c == "P" for c in calls) and index == len(calls) - 1
        yield (table, shown["acting"]), {"type": "call", "call": call}, not passed_out
    while True:
        shown = views[SPECTATOR]["tables"][table - 1]
        if shown["phase"] != "play":
            return
        acting = shown["acting"]
        done = shown["tricks_ns"] + shown["tricks_ew"]
        if acting == shown["declarer"] and done >= CLAIM_AFTER.get((board, table), 14):
            yield (table, acting), {"type": "claim", "tricks": 13 - done}, True
            deciders = views[(table, acting)]["board"]["claim"]["deciders"]
            for index, seat in enumerate(deciders):
                answer = {"type": "claim_answer", "accept": True}
                yield (table, seat), answer, index < len(deciders) - 1
            return
        legal = views[(table, acting)]["board"]["legal"]
        last = done == 12 and len(shown["current_trick"]["cards"]) == 3
        yield (table, acting), {"type": "card", "card": legal[next(cards) % len(legal)]}, not last


@pytest.mark.asyncio
async def test_the_delta_reference_sends_the_frames_we_send(server: Server) -> None:
    reference = Match(0, BOARDS, REVIEW_SECONDS)
    created = await create(
        server, deals_pbn=deals_pbn(reference), boards=BOARDS, review_seconds=REVIEW_SECONDS
    )
    # Its double-dummy analysis logged now, not in the middle of the play (another update).
    await analysed(server, created.match_id)
    tokens: dict[Who, str] = {
        (seat.table, str(seat.seat)): Link.parse(seat.link or "").token for seat in created.seats
    }
    tokens[SPECTATOR] = Link.parse(created.spectator or "").token
    ours, theirs = Side("ours"), Side("deltas")
    deltas = Deltas(BOARDS, REVIEW_SECONDS)
    async with serve(deltas.handle, "127.0.0.1", 0, compression=None) as listening:
        port = listening.sockets[0].getsockname()[1]
        try:
            await ours.connect(server.ws_url, tokens)
            await theirs.connect(
                f"ws://127.0.0.1:{port}/ws",
                {(t, s): f"base 0 {t}{s}" if t else "base 0 watch" for t, s in tokens},
            )
            await _everyone_here(ours)
            await theirs.settle()
            _assert_views_equal(ours, theirs, "the snapshots")
            compared = 0
            for who, action, equal in plays(ours.views):
                mine = await ours.act(who, action)
                their = await theirs.act(who, action)
                step = f"{action} by {who}"
                for viewer, updates in their.items():
                    for update, frame in updates:
                        assert msgpack.packb(update) == frame, (step, viewer)
                    if equal:
                        assert bare(updates) == bare(mine[viewer]), (step, viewer)
                compared += equal
                _assert_views_equal(ours, theirs, step)
            assert ours.views[SPECTATOR]["match"]["finished"]
            assert compared > 100  # calls, cards, a claim, readies
        finally:
            await ours.close()
            await theirs.close()


async def _everyone_here(side: Side) -> None:
    """Wait until our server has told every viewer that every player is connected."""
    async with asyncio.timeout(WAIT):
        while True:
            await side.settle()
            if all(seat["connected"] for seat in side.views[SPECTATOR]["players"]) and all(
                all(seat["connected"] for seat in view["players"]) for view in side.views.values()
            ):
                return
            await asyncio.sleep(0.05)


def _assert_views_equal(ours: Side, theirs: Side, step: str) -> None:
    for who, view in ours.views.items():
        assert comparable(theirs.views[who]) == comparable(view), (step, who)

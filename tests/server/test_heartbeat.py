"""Heartbeats (SPEC.md, section 2): a connection that asks for them hears a ``heartbeat`` whenever
the server has sent it nothing for a while, and one that answers nothing is dropped within
seconds (its seat shown away to the table), where a silently dead connection used to look
alive until the WebSocket keep-alive gave up on it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.client import Client, Link
from protocol.codec import decode_server, encode
from protocol.messages import (
    PROTOCOL_VERSION,
    Heartbeat,
    HeartbeatAnswer,
    Hello,
    PlayerView,
    ServerMessage,
    Welcome,
)
from server.app import Server
from server.connection import Connection
from server.limits import Limits, TokenBucket
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import create, seat_everyone

EVERY = 0.2
SILENCE = 3.0
"""Short heartbeats for the tests; the silence is long enough that a client that answers is
never taken for dead, however slow the machine (the server and the clients here share one
event loop: a pause holds up the server's clock as much as the answer)."""


@pytest_asyncio.fixture
async def beating(redis: Redis) -> AsyncIterator[Server]:
    await forget_earlier_robots(redis)
    limits = Limits(heartbeat_every=EVERY, heartbeat_silence=SILENCE)
    server = Server(redis, ORGANISER_KEY, robot_delay=0, limits=limits, presence_grace=0.2)
    await server.start()
    yield server
    await server.close()


async def hello(server: Server, token: str, version: int = PROTOCOL_VERSION) -> ClientConnection:
    """A raw connection that asked for heartbeats, once welcomed."""
    websocket = await connect(server.ws_url, compression=None)
    await websocket.send(encode(Hello(version=version, token=token, heartbeat=True)))
    assert isinstance(decode_server(await websocket.recv()), Welcome)
    return websocket


async def drain(websocket: ClientConnection) -> None:
    """Read until the connection closes (ConnectionClosed)."""
    async with asyncio.timeout(10):
        while True:
            await websocket.recv()


async def next_message(websocket: ClientConnection) -> ServerMessage:
    async with asyncio.timeout(10):
        return decode_server(await websocket.recv())


async def read_until_closed(websocket: ClientConnection) -> None:
    async with asyncio.timeout(SILENCE + 10):
        while True:
            await websocket.recv()


def seat_connected(view: PlayerView, table: int, seat: str) -> bool:
    return next(p.connected for p in view.players if (p.table, p.seat) == (table, seat))


@pytest.mark.asyncio
async def test_a_quiet_connection_gets_heartbeats_and_one_that_answers_stays(
    beating: Server,
) -> None:
    websocket = await hello(beating, ORGANISER_KEY)
    refs = []
    for _ in range(3):
        beat = await next_message(websocket)
        assert isinstance(beat, Heartbeat)
        refs.append(beat.ref)
        await websocket.send(encode(HeartbeatAnswer(ref=beat.ref)))
    assert refs == sorted(set(refs))  # each its own ref
    # Answered, for longer than the silence allowed after a heartbeat: still served.
    for _ in range(int(SILENCE / EVERY) + 5):
        beat = await next_message(websocket)
        assert isinstance(beat, Heartbeat)
        await websocket.send(encode(HeartbeatAnswer(ref=beat.ref)))
    assert [c.heartbeat for c in beating.connections] == [True]
    await websocket.close()


@pytest.mark.asyncio
async def test_a_seat_that_answers_no_heartbeat_is_dropped_and_shown_away(beating: Server) -> None:
    created = await create(beating, boards=1)
    match = await seat_everyone(beating, created)
    north = match.players[(1, "N")]
    await north.wait_for(lambda v: all(p.connected for p in v.players) or None)
    west = next(s for s in created.seats if (s.table, s.seat) == (1, "W"))
    assert west.link is not None
    await match.players[(1, "W")].close()
    # West again, through a connection whose traffic stops (a frozen page): it asked for
    # heartbeats and answers none. Its socket stays open (the WebSocket layer still answers
    # the server's WebSocket pings): only the silence tells.
    frozen = await hello(beating, Link.parse(west.link).token)
    back = await north.wait_for(lambda v: v if seat_connected(v, 1, "W") else None)
    assert seat_connected(back, 1, "W")
    with pytest.raises(ConnectionClosed):
        await read_until_closed(frozen)  # the snapshot, then heartbeats it never answers
    away = await north.wait_for(lambda v: v if not seat_connected(v, 1, "W") else None)
    assert not seat_connected(away, 1, "W")
    await match.close()


@pytest.mark.asyncio
async def test_no_heartbeat_unless_asked_and_none_for_version_6(beating: Server) -> None:
    plain = await connect(beating.ws_url, compression=None)
    await plain.send(encode(Hello(version=PROTOCOL_VERSION, token=ORGANISER_KEY)))
    assert isinstance(decode_server(await plain.recv()), Welcome)
    old = await hello(beating, ORGANISER_KEY, version=6)  # it would not know the heartbeat
    await asyncio.sleep(10 * EVERY)
    for websocket in (plain, old):
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(2 * EVERY):
                await websocket.recv()
    assert [c.heartbeat for c in beating.connections] == [False, False]
    for websocket in (plain, old):
        await websocket.close()


@pytest.mark.asyncio
async def test_the_client_library_answers_and_gives_up_a_silent_server(
    beating: Server, redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await create(beating, boards=1)
    match = await seat_everyone(beating, created)
    north = match.players[(1, "N")]
    assert created.spectator is not None
    watcher = await Client.connect(created.spectator, heartbeat=True)
    await asyncio.sleep(SILENCE + 1)  # heartbeats all along, each answered
    assert watcher.is_connected
    assert not any(m.type == "heartbeat" for m in watcher.received)  # answered, not kept
    await watcher.close()
    # A server that says nothing (its heartbeats silently lost): the client gives up on it.
    import clients.client

    monkeypatch.setattr(clients.client, "HEARTBEAT_SILENCE_S", 1.0)
    quiet = Server(redis, ORGANISER_KEY, robot_delay=0, limits=Limits(heartbeat_every=3600))
    await quiet.start()
    try:
        link = Link(quiet.ws_url, Link.parse(created.spectator).token)
        deaf = await Client.connect(link, heartbeat=True)
        async with asyncio.timeout(10):
            while deaf.is_connected:
                await asyncio.sleep(0.05)
        await deaf.reconnect()  # and comes back at once
        assert deaf.is_connected
        await deaf.close()
    finally:
        await quiet.close()
    assert north.is_connected
    await match.close()


@pytest.mark.asyncio
async def test_one_keepalive_for_all_pings_the_silent_and_drops_the_dead(redis: Redis) -> None:
    # WebSocket keepalive without heartbeats, kept by the server's one look at its
    # connections (no task each): a silent connection whose client answers pings stays; one
    # whose client reads nothing any more (a peer gone without closing) is dropped.
    await forget_earlier_robots(redis)
    limits = Limits(keepalive_every=0.2, keepalive_timeout=SILENCE)
    server = Server(redis, ORGANISER_KEY, robot_delay=0, limits=limits)
    await server.start()
    try:
        created = await create(server, boards=1, spectators="live")
        assert created.spectator is not None
        token = Link.parse(created.spectator).token
        alive, dead = [await connect(server.ws_url, compression=None) for _ in range(2)]
        for websocket in (alive, dead):
            await websocket.send(encode(Hello(version=PROTOCOL_VERSION, token=token)))
            assert isinstance(decode_server(await websocket.recv()), Welcome)
        dead.transport.pause_reading()  # it reads no more: no pong from it
        async with asyncio.timeout(SILENCE + 10):
            while len(server.connections) > 1:
                await asyncio.sleep(0.05)
        (left,) = server.connections
        assert left.pinged_at > 0  # pinged, and it answered
        dead.transport.resume_reading()
        with pytest.raises(ConnectionClosed):
            await drain(dead)
        await asyncio.sleep(3 * 0.2)
        assert left in server.connections
        await alive.close()
    finally:
        await server.close()


class _Pinged:
    """A stand-in for a connection's link whose pongs come at once; it counts the pings."""

    def __init__(self) -> None:
        self.pings = 0
        self.ping_data: bytes | None = None

    def ping(self) -> None:
        self.pings += 1  # and its pong comes before the next look: no ping_data waits


def test_a_silent_connection_is_pinged_once_an_interval_not_at_every_look() -> None:
    limits = Limits(keepalive_every=20.0, keepalive_timeout=20.0)
    link = _Pinged()
    bucket = TokenBucket(1.0, 1.0)
    connection = Connection(link, "192.0.2.1", limits, bucket, bucket, bucket)  # type: ignore[arg-type]
    connection.heard_at = 0.0
    for now in (5.0, 20.0, 22.0, 24.0, 30.0, 39.0, 40.0, 42.0):  # the server's looks
        connection.keep_alive(now)
    assert link.pings == 2  # at 20 s of silence, and 20 s after that ping
    assert not connection.overflowed

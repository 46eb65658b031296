"""A closed connection is in no reference cycle: reference counting frees the server's side
of it, whether its client closed cleanly, went without a closing handshake, reset its TCP
connection, never said hello, or only asked for a page. The serving process freezes what
outlives a young collection (server.heap): a connection left in a cycle would wait for the
deep collection, and a flood of them would grow the process until it came."""

from __future__ import annotations

import asyncio
import gc
import socket
import struct
import weakref
from collections.abc import Iterator

import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect

from clients.client import Client, Link
from protocol.codec import decode_server, encode
from protocol.messages import PROTOCOL_VERSION, Hello, Welcome
from server.app import Server
from server.transport import Link as ServerLink
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import create, http_get

pytestmark = pytest.mark.asyncio


@pytest.fixture
def lost(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[weakref.ref[object]]]:
    """A weak reference to each server-side connection once it is lost, to its protocol
    and to its transport, and no automatic collection meanwhile (it would free cycles as
    well as reference counting does)."""
    refs: list[weakref.ref[object]] = []
    real = ServerLink.connection_lost

    def noted(self: ServerLink, exc: Exception | None) -> None:
        real(self, exc)
        refs.extend(weakref.ref(part) for part in (self, self.protocol, self.transport))

    monkeypatch.setattr(ServerLink, "connection_lost", noted)
    gc.disable()
    try:
        yield refs
    finally:
        gc.enable()


def reset(websocket: ClientConnection) -> None:
    """Close the client's socket with a TCP reset (no closing handshake, no FIN)."""
    sock = websocket.transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    websocket.transport.abort()


async def test_closed_connections_are_freed_without_a_collection(
    redis: Redis, lost: list[weakref.ref[object]]
) -> None:
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, robot_delay=0)
    await server.start()
    try:
        created = await create(server, boards=1, spectators="live")
        assert created.spectator is not None
        links = [link.link for link in created.seats if link.link is not None]
        players = [await Client.connect(link, name="garbage") for link in links[:2]]
        seated: list[ClientConnection] = []
        for link in links[2:5]:
            websocket = await connect(server.ws_url, compression=None)
            token = Link.parse(link).token
            await websocket.send(encode(Hello(version=PROTOCOL_VERSION, token=token)))
            assert isinstance(decode_server(await websocket.recv()), Welcome)
            seated.append(websocket)
        token = Link.parse(created.spectator).token
        watcher = await connect(server.ws_url, compression=None)
        await watcher.send(encode(Hello(version=PROTOCOL_VERSION, token=token)))
        assert isinstance(decode_server(await watcher.recv()), Welcome)
        silent = [await connect(server.ws_url, compression=None) for _ in range(2)]
        opened = len(server.connections)
        assert opened == 2 + 3 + 1 + 2

        for player in players:
            await player.close()  # a closing handshake
        seated[0].transport.abort()  # gone without a closing handshake
        reset(seated[1])  # a TCP reset
        reset(seated[2])
        await watcher.close()
        silent[0].transport.abort()  # never said hello
        reset(silent[1])
        status, _type, _body = await asyncio.to_thread(http_get, f"{server.public_url}/health")
        assert status == 200

        async with asyncio.timeout(30):  # freed as soon as their handlers end: well within
            while len(lost) < 3 * (opened + 1) or any(ref() is not None for ref in lost):
                await asyncio.sleep(0.05)
        assert not server.connections
    finally:
        await server.close()

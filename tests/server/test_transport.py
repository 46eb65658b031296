"""The server's transport (server.transport): the handshake answered or accepted, messages
reassembled and served in order by a task only while they wait, reading paused behind a
backlog, text checked, the limits of size and time, and pings answered."""

from __future__ import annotations

import asyncio
import base64
import http
import os
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedError, InvalidStatus
from websockets.http11 import Request, Response

import server.transport
from server.sockets import listening
from server.transport import Answer, Link, Listener, binary_header
from server.web import response

pytestmark = pytest.mark.asyncio

Serve = Callable[[Link], Coroutine[Any, Any, None]]


class Closing:
    """What a closing listener asks of a link's connection."""

    def __init__(self, link: Link) -> None:
        self.link = link

    def close(self, code: int, reason: str = "") -> None:
        self.link.close(code, reason)


class Served:
    """What a listener's callbacks saw: the links opened, each message served (with its
    link), and the links closed."""

    def __init__(self) -> None:
        self.opened: list[Link] = []
        self.messages: list[tuple[Link, bytes | str]] = []
        self.closed: list[Link] = []
        self.gate = asyncio.Event()
        """Serving waits for this before each message (set: it does not wait)."""
        self.gate.set()

    def on_open(self, link: Link) -> None:
        self.opened.append(link)
        link.connection = Closing(link)  # type: ignore[assignment]  # the server's Connection

    async def serve(self, link: Link) -> None:
        try:
            while True:
                await self.gate.wait()
                message = link.take()
                if message is None:
                    return
                self.messages.append((link, message))
        finally:
            link.serving = None
        if link.lost:
            await self.on_close(link)

    async def on_close(self, link: Link) -> None:
        self.closed.append(link)


@asynccontextmanager
async def listener(
    served: Served, answer: Callable[[Link, Request], Answer] | None = None, max_size: int = 1000
) -> AsyncIterator[tuple[Listener, int]]:
    made = Listener(
        answer or (lambda link, request: None),
        served.on_open,
        served.serve,
        served.on_close,
        max_size=max_size,
    )
    (sock,) = listening("127.0.0.1", 0)
    await made.listen(sock)
    try:
        yield made, sock.getsockname()[1]
    finally:
        made.close()
        made.abort()
        await asyncio.wait_for(made.wait_closed(), 10)


async def eventually(condition: Callable[[], bool], what: str) -> None:
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0.01)


async def raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection that has done the WebSocket handshake, to send frames by hand."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = await reader.readuntil(b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 101")
    return reader, writer


def masked(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """A client's frame (masked with a key of zeros: the payload goes as it is)."""
    assert len(payload) < 126
    return bytes((opcode | (0x80 if fin else 0), 0x80 | len(payload))) + b"\0\0\0\0" + payload


async def test_a_connection_has_a_task_only_while_its_messages_wait() -> None:
    served = Served()
    async with listener(served) as (_, port):
        before = len(asyncio.all_tasks())
        clients = [await connect(f"ws://127.0.0.1:{port}/ws") for _ in range(20)]
        await eventually(lambda: len(served.opened) == 20, "opened")
        assert len(asyncio.all_tasks()) == before + 20  # the clients' own (websockets')
        for client in clients:
            await client.send(b"hello")
        await eventually(lambda: len(served.messages) == 20, "served")
        await eventually(lambda: len(asyncio.all_tasks()) == before + 20, "at rest")
        assert all(link.serving is None for link in served.opened)
        for client in clients:
            await client.close()
        await eventually(lambda: len(served.closed) == 20, "closed")


async def test_the_request_is_let_go_once_the_handshake_is_done() -> None:
    served = Served()
    requests: list[weakref.ref[Request]] = []

    def answer(link: Link, request: Request) -> Answer:
        requests.append(weakref.ref(request))
        return None

    async with listener(served, answer) as (_, port):
        _reader, writer = await raw(port)
        await eventually(lambda: len(served.opened) == 1, "opened")
        assert requests[0]() is None  # freed by reference counting, no collection needed
        writer.write(masked(0x2, b"after"))
        await eventually(lambda: len(served.messages) == 1, "served")
        # A client that sent part of a frame with its request: the parser that read the
        # request has begun the frame, and goes on with it (keeping the request).
        _, writer2 = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        early = masked(0x2, b"early")
        writer2.write(
            f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            + early[:3]
        )
        await eventually(lambda: len(served.opened) == 2, "opened the second")
        assert requests[1]() is not None
        writer2.write(early[3:])
        await eventually(lambda: len(served.messages) == 2, "served early")
        assert served.messages[1][1] == b"early"
        writer.close()
        writer2.close()


async def test_messages_are_served_in_order_and_reading_pauses_behind_a_backlog() -> None:
    served = Served()
    served.gate.clear()
    async with listener(served) as (_, port):
        _reader, writer = await raw(port)
        count = server.transport.INBOX_HIGH + 10
        writer.write(b"".join(masked(0x2, n.to_bytes(2, "big")) for n in range(count)))
        await writer.drain()
        await eventually(lambda: bool(served.opened) and served.opened[0].reading_paused, "paused")
        (link,) = served.opened
        held = len(link.inbox)
        assert held >= server.transport.INBOX_HIGH
        writer.write(b"".join(masked(0x2, n.to_bytes(2, "big")) for n in range(count, count + 10)))
        await writer.drain()
        await asyncio.sleep(0.2)
        assert len(link.inbox) == held  # the rest waits unread
        count += 10
        served.gate.set()
        await eventually(lambda: len(served.messages) == count, "all served")
        assert [message for _, message in served.messages] == [
            n.to_bytes(2, "big") for n in range(count)
        ]
        assert not link.reading_paused
        writer.close()
        await eventually(lambda: served.closed == [link], "closed")


async def test_fragments_make_one_message_and_the_size_limit_counts_them_all() -> None:
    served = Served()
    async with listener(served, max_size=1000) as (_, port):
        async with connect(f"ws://127.0.0.1:{port}/ws", compression=None) as client:
            await client.send([b"a" * 400, b"b" * 400])
            await eventually(lambda: len(served.messages) == 1, "served")
            assert served.messages[0][1] == b"a" * 400 + b"b" * 400
            await client.send([b"a" * 600, b"b" * 600])  # each fragment fits; the whole not
            with pytest.raises(ConnectionClosedError) as closed:
                await client.recv()
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1009
        assert len(served.messages) == 1


async def test_text_comes_as_text_and_text_that_is_not_utf8_closes_with_1007() -> None:
    served = Served()
    async with listener(served) as (_, port):
        reader, writer = await raw(port)
        writer.write(masked(0x1, "trèfle".encode()))
        await eventually(lambda: len(served.messages) == 1, "served")
        assert served.messages[0][1] == "trèfle"
        writer.write(masked(0x1, b"\xff\xfe"))
        close = await reader.readexactly(2)
        assert close[0] == 0x88  # a close frame
        code = await reader.readexactly(close[1] & 0x7F)
        assert int.from_bytes(code[:2], "big") == 1007
        assert await reader.read() == b""  # and the server closes TCP
        writer.close()
        assert len(served.messages) == 1


async def test_a_pong_answers_the_ping_it_echoes() -> None:
    served = Served()
    async with listener(served) as (_, port):
        reader, writer = await raw(port)
        await eventually(lambda: len(served.opened) == 1, "opened")
        (link,) = served.opened
        link.ping()
        assert link.ping_data is not None
        header = await reader.readexactly(2)
        assert header[0] == 0x89  # a ping
        payload = await reader.readexactly(header[1])
        writer.write(masked(0xA, b"not it"))
        await asyncio.sleep(0.1)
        assert link.ping_data is not None
        writer.write(masked(0xA, payload))
        await eventually(lambda: link.ping_data is None, "pong")
        writer.close()


async def test_a_closed_listener_refuses_handshakes_that_end_and_closes_open_ones() -> None:
    served = Served()
    answered = asyncio.Event()
    waiting: asyncio.Event = asyncio.Event()

    async def slow(link: Link, request: Request) -> Response | None:
        waiting.set()
        await answered.wait()
        return None

    def answer(link: Link, request: Request) -> Answer:
        return slow(link, request) if request.path == "/slow" else None

    async with listener(served, answer) as (made, port):
        client = await connect(f"ws://127.0.0.1:{port}/ws")

        async def opening() -> None:
            await connect(f"ws://127.0.0.1:{port}/slow")

        slow_one = asyncio.create_task(opening())
        await waiting.wait()
        made.close()
        answered.set()
        with pytest.raises(InvalidStatus) as refused:
            await slow_one
        assert refused.value.response.status_code == 503
        with pytest.raises(ConnectionClosed):
            await client.recv()
        assert client.close_code == 1001


async def test_plain_http_is_answered_and_a_failing_answer_is_a_500() -> None:
    served = Served()

    async def broken() -> Response | None:
        raise RuntimeError("a bug")

    def answer(link: Link, request: Request) -> Answer:
        if request.path == "/page":
            return response(http.HTTPStatus.OK, "text/plain", b"a page\n")
        if request.path == "/broken":
            return broken()
        return None

    async with listener(served, answer) as (_, port):
        for path, status, body in (("/page", b"200", b"a page\n"), ("/broken", b"500", None)):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            answer_bytes = await asyncio.wait_for(reader.read(), 10)  # then the server's FIN
            assert answer_bytes.split(b" ")[1] == status
            if body is not None:
                assert answer_bytes.endswith(body)
            writer.close()
    assert served.opened == []


async def test_a_handshake_not_done_in_time_and_a_close_not_answered_are_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server.transport, "OPEN_TIMEOUT", 0.2)
    monkeypatch.setattr(server.transport, "CLOSE_TIMEOUT", 0.2)
    served = Served()
    async with listener(served) as (made, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /ws HTTP/1.1\r\n")  # and no more
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()
        reader, writer = await raw(port)
        await eventually(lambda: len(served.opened) == 1, "opened")
        (link,) = served.opened
        link.close(1000)  # its client never answers the close
        header = await reader.readexactly(2)
        assert header[0] == 0x88
        await eventually(lambda: link.lost, "dropped")
        assert not made.links
        writer.close()


async def test_a_binary_header_says_the_length_in_the_fewest_bytes() -> None:
    assert binary_header(125) == b"\x82\x7d"
    assert binary_header(126) == b"\x82\x7e\x00\x7e"
    assert binary_header(65535) == b"\x82\x7e\xff\xff"
    assert binary_header(65536) == b"\x82\x7f" + (65536).to_bytes(8, "big")

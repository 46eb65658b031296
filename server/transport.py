"""Each client's TCP connection: HTTP, then WebSocket, as an asyncio protocol of ours around
websockets' sans-I/O :class:`~websockets.server.ServerProtocol`.

websockets' asyncio server gives every connection a task for its whole life, a queue of
messages with its futures, and locks: half of what a connection cost at rest (some 8 KiB of
23), and a task woken for every frame. Here a connection at rest is its :class:`Link`, the
sans-I/O protocol and the transport; a task runs only while a connection's messages wait
to be served (:attr:`Link.serving`, one burst at a time, in order), and frames are written
straight to the transport, from any callback.

What websockets' asyncio layer did and this one does too: the opening handshake within
:data:`OPEN_TIMEOUT` (the request answered in plain HTTP, or accepted), a 503 to a handshake
that ends while the server closes, messages reassembled from fragments (``max_size`` for the
whole message), text checked as UTF-8 (1007), reading paused while :data:`INBOX_HIGH`
messages wait, the closing handshake within :data:`CLOSE_TIMEOUT`, and a lost connection
left in no reference cycle (reference counting frees it: server.heap freezes what outlives
a young collection).
"""

from __future__ import annotations

import asyncio
import http
import logging
import struct
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol

if TYPE_CHECKING:
    from server.connection import Connection

__all__ = ["Answer", "Link", "Listener", "binary_header", "let_go"]

log = logging.getLogger(__name__)

OPEN_TIMEOUT = 10.0
"""Seconds from the TCP connection to the end of its opening handshake (or its HTTP answer)."""
CLOSE_TIMEOUT = 10.0
"""Seconds the closing handshake (or a client's reading an HTTP answer) may take before the
connection is dropped."""
WRITE_LIMIT = 32 * 1024
"""Bytes the transport holds before it asks its writers to wait (websockets' default; it
lets them go on below a quarter of it)."""
INBOX_HIGH = 16
"""Messages waiting to be served past which a connection's reading is paused."""
INBOX_LOW = 4
"""Messages waiting, at most, when a paused connection's reading goes on."""

Answer = Response | None | Coroutine[Any, Any, Response | None]
"""The answer to a request: a response to send (plain HTTP, or a refusal), None to accept
the WebSocket handshake, or a coroutine that gives one of those."""


def binary_header(size: int) -> bytes:
    """The header of a final, unmasked binary frame of ``size`` bytes (RFC 6455, 5.2)."""
    if size < 126:
        return bytes((0x82, size))
    if size < 65536:
        return struct.pack("!BBH", 0x82, 126, size)
    return struct.pack("!BBQ", 0x82, 127, size)


def let_go(protocol: Protocol, transport: asyncio.BaseTransport) -> None:
    """Leave a lost connection's protocol and transport in no reference cycle, so that
    reference counting frees them (server.heap freezes what outlives a young collection)."""
    # The exception that stopped the parser holds the parser's frame in its traceback, and
    # the parser (a generator of the protocol's, suspended for good) holds the protocol.
    if protocol.parser_exc is not None:
        protocol.parser_exc.__traceback__ = None
    protocol.parser.close()
    # asyncio before 3.12 (CPython gh-100348): the socket transport holds a bound method of
    # its own; it reads nothing more once its connection is lost.
    if hasattr(transport, "_read_ready_cb"):
        transport._read_ready_cb = None


def _drop_handshake_parser(protocol: ServerProtocol) -> None:
    """Give ``protocol`` a parser of frames alone, if its parser waits between two frames.

    The server's parser is a generator that parsed the request and then parses frames
    within its own frame, which holds the request for the connection's life (some 550 bytes
    with the generator). When it waits for a frame's first byte (in its reader's
    ``at_eof``, its buffer empty: nothing of a frame consumed), a new parser of frames takes
    its place, as websockets' own ``Protocol.parse`` begins. Else (a client that began a
    frame before the answer), or should websockets' parsers come to be nested otherwise,
    the parser is kept."""
    old = protocol.parser
    frames = getattr(old, "gi_yieldfrom", None)
    waiting = getattr(frames, "gi_yieldfrom", None)
    code = getattr(waiting, "gi_code", None)
    if (
        getattr(getattr(frames, "gi_code", None), "co_name", None) != "parse"
        or getattr(code, "co_name", None) != "at_eof"
        or protocol.reader.buffer
    ):
        return
    protocol.parser = Protocol.parse(protocol)
    next(protocol.parser)
    old.close()


class Listener:
    """The server's side of the WebSocket port: its listening sockets, its links (open, in
    their opening handshake, or closing), and the tasks they started; served by four
    callables of whoever serves:

    - ``answer(link, request)``: an :data:`Answer`;
    - ``opened(link)``: the handshake is done (the request is still there to read);
    - ``serve(link)``: serve the messages waiting (:meth:`Link.take`), in a task;
    - ``closed(link)``: the connection of an opened link is lost, and its messages served.
    """

    def __init__(
        self,
        answer: Callable[[Link, Request], Answer],
        opened: Callable[[Link], None],
        serve: Callable[[Link], Coroutine[Any, Any, None]],
        closed: Callable[[Link], Coroutine[Any, Any, None]],
        *,
        max_size: int,
    ) -> None:
        self.answer = answer
        self.opened = opened
        self.serve = serve
        self.closed = closed
        self.max_size = max_size
        """Bytes a message may have (a longer one closes its connection with 1009)."""
        self.links: set[Link] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.closing = False
        """Set by :meth:`close`: a handshake that ends now is refused with a 503."""
        self.servers: list[asyncio.Server] = []
        self._drained: asyncio.Future[None] | None = None

    async def listen(self, sock: Any) -> None:
        """Accept connections on the listening socket ``sock``."""
        loop = asyncio.get_running_loop()
        self.servers.append(await loop.create_server(lambda: Link(self), sock=sock))

    def start(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run ``work`` in a task that :meth:`wait_closed` waits for."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a connection's task failed", exc_info=task.exception())
        self.check_drained()

    def check_drained(self) -> None:
        drained = self._drained
        if drained is not None and not drained.done() and not self.links and not self.tasks:
            drained.set_result(None)

    def close(self) -> None:
        """Stop accepting connections, refuse the handshakes that end from now on, and close
        the open connections with 1001 (going away) once what is queued for them is sent."""
        self.closing = True
        for server in self.servers:
            server.close()
        for link in list(self.links):
            if link.connection is not None:
                link.connection.close(1001)

    async def wait_closed(self) -> None:
        """Wait until every connection is lost and every task of theirs has ended."""
        self._drained = asyncio.get_running_loop().create_future()
        self.check_drained()
        await self._drained

    def abort(self) -> None:
        """Drop every connection left (a shutdown that would wait no longer)."""
        for link in list(self.links):
            link.transport.abort()


class Link(asyncio.Protocol):
    """One TCP connection: its HTTP request, then its WebSocket frames, through websockets'
    sans-I/O protocol."""

    __slots__ = (
        "__weakref__",
        "connection",
        "discarding",
        "fragments",
        "inbox",
        "listener",
        "lost",
        "paused",
        "ping_data",
        "pings",
        "protocol",
        "reading_paused",
        "remote_address",
        "request",
        "serving",
        "timer",
        "transport",
    )

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.protocol = ServerProtocol(max_size=listener.max_size)
        self.transport: asyncio.Transport = None  # type: ignore[assignment]  # at connection_made
        self.remote_address: Any = None
        self.request: Request | None = None
        """The handshake's request, until :attr:`Listener.opened` has read it."""
        self.connection: Connection | None = None
        """The client's connection (set by ``opened``)."""
        self.inbox: deque[bytes | str] | None = None
        """Messages come and not yet served, oldest first (None: none; made when one comes:
        an empty deque costs a connection 700 bytes at rest)."""
        self.serving: asyncio.Task[None] | None = None
        """The task serving the inbox, while it has messages."""
        self.fragments: list[bytes] | None = None
        self.discarding = False
        self.lost = False
        self.paused = False
        """The transport holds :data:`WRITE_LIMIT` bytes: frames wait (Connection's outbox)."""
        self.reading_paused = False
        self.ping_data: bytes | None = None
        """The payload of the ping sent and not answered yet (None: none waits)."""
        self.pings = 0
        self.timer: asyncio.TimerHandle | None = None
        """When the connection is dropped: the opening or the closing handshake's end."""

    # -- asyncio's callbacks -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.set_write_buffer_limits(WRITE_LIMIT)
        self.remote_address = transport.get_extra_info("peername")
        self.listener.links.add(self)
        self.timer = asyncio.get_running_loop().call_later(OPEN_TIMEOUT, transport.abort)

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        self._write_protocol()  # its own answers: a pong, the close echoed, a refusal
        for event in events:
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Request):
                self._asked(event)
        if protocol.close_expected():
            self._expect_close()

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()
        self._write_protocol()
        return None  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        protocol = self.protocol
        protocol.receive_eof()  # idempotent: the protocol is CLOSED
        self.lost = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        let_go(protocol, self.transport)
        self.fragments = None
        self.listener.links.discard(self)
        if self.connection is not None and self.serving is None:
            self.listener.start(self.listener.closed(self), "connection closed")
        self.listener.check_drained()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self.connection is not None:
            self.connection.flush()

    # -- the opening handshake ---------------------------------------------------------

    def _asked(self, request: Request) -> None:
        self.request = request
        try:
            answer = self.listener.answer(self, request)
        except Exception:
            log.error("answering a request failed", exc_info=True)
            answer = self._failed()
        if answer is None or isinstance(answer, Response):
            self._respond(answer)
        else:
            self.listener.start(self._respond_later(answer), "answering a request")

    async def _respond_later(self, answer: Coroutine[Any, Any, Response | None]) -> None:
        try:
            response = await answer
        except Exception:
            log.error("answering a request failed", exc_info=True)
            response = self._failed()
        self._respond(response)

    def _failed(self) -> Response:
        return self.protocol.reject(
            http.HTTPStatus.INTERNAL_SERVER_ERROR, "The server failed to answer; sorry.\n"
        )

    def _respond(self, response: Response | None) -> None:
        protocol = self.protocol
        request = self.request
        if protocol.state is not State.CONNECTING or self.lost or request is None:
            return  # the client went meanwhile
        if response is None:
            response = protocol.accept(request)  # or a 4xx, for a request that is no handshake
        if response.status_code == http.HTTPStatus.SWITCHING_PROTOCOLS and self.listener.closing:
            response = protocol.reject(
                http.HTTPStatus.SERVICE_UNAVAILABLE, "The server is shutting down.\n"
            )
        protocol.send_response(response)
        self._write_protocol()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.open:
            self._expect_close()  # an answer in HTTP: the client closes once it has read it
            self.request = None
            return
        self.listener.opened(self)
        self.request = None
        # Read: its headers, a kilobyte or more, are let go (the protocol's parser holds
        # the same request for the connection's life, unless it is replaced).
        request.headers.clear()
        _drop_handshake_parser(protocol)
        if self.inbox:  # frames sent before the answer came
            self._start_serving()

    # -- frames in ---------------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        data = frame.data if isinstance(frame.data, bytes) else bytes(frame.data)
        if opcode is Opcode.BINARY or opcode is Opcode.TEXT:
            if not frame.fin:
                self.fragments = [bytes((opcode,)), data]  # the protocol checks the sequence
                return
            self._message(data, text=opcode is Opcode.TEXT)
        elif opcode is Opcode.CONT:
            fragments = self.fragments
            if fragments is None:
                return
            fragments.append(data)
            if frame.fin:
                self.fragments = None
                self._message(b"".join(fragments[1:]), text=fragments[0][0] == Opcode.TEXT)
        elif opcode is Opcode.PONG and data == self.ping_data:
            self.ping_data = None

    def _message(self, data: bytes, *, text: bool) -> None:
        message: bytes | str = data
        if text:
            try:
                message = data.decode()
            except UnicodeDecodeError as error:
                self.protocol.fail(1007, f"{error.reason} at position {error.start}")
                self._write_protocol()
                self._expect_close()
                return
        if self.discarding:
            return
        if self.inbox is None:
            self.inbox = deque((message,))
        else:
            self.inbox.append(message)
        if len(self.inbox) >= INBOX_HIGH and not self.reading_paused:
            self.reading_paused = True
            self.transport.pause_reading()
        if self.serving is None and self.connection is not None:
            self._start_serving()

    def _start_serving(self) -> None:
        self.serving = self.listener.start(self.listener.serve(self), "serving a connection")

    def take(self) -> bytes | str | None:
        """The oldest message waiting to be served (None: none waits)."""
        inbox = self.inbox
        if inbox is None:
            return None
        message = inbox.popleft()
        if not inbox:
            self.inbox = None
        if self.reading_paused and len(inbox) <= INBOX_LOW:
            self._resume_reading()
        return message

    def discard(self) -> None:
        """Serve nothing more that comes: read it and throw it away (so that a closing
        handshake completes as soon as the client answers it)."""
        self.discarding = True
        self.inbox = None
        if self.reading_paused:
            self._resume_reading()

    def _resume_reading(self) -> None:
        self.reading_paused = False
        if not self.lost:
            self.transport.resume_reading()

    # -- frames out --------------------------------------------------------------------

    @property
    def open(self) -> bool:
        return self.protocol.state is State.OPEN and not self.transport.is_closing()

    def send(self, frame: bytes) -> None:
        """Write a binary message (nothing once the connection is closing)."""
        if self.open:
            self.transport.write(binary_header(len(frame)) + frame)

    def ping(self) -> None:
        """Send a ping (:attr:`ping_data` until its pong comes)."""
        if self.open:
            self.pings += 1
            self.ping_data = struct.pack("!I", self.pings)
            self.protocol.send_ping(self.ping_data)
            self._write_protocol()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Begin the closing handshake; drop the connection if it has not ended within
        :data:`CLOSE_TIMEOUT`."""
        if self.open:
            self.protocol.send_close(code, reason)
            self._write_protocol()
            self._expect_close()

    def _expect_close(self) -> None:
        if self.timer is None and not self.lost:
            self.timer = asyncio.get_running_loop().call_later(CLOSE_TIMEOUT, self.transport.abort)

    def _write_protocol(self) -> None:
        """Write what the protocol has to send; its end of the stream half-closes TCP."""
        transport = self.transport
        for data in self.protocol.data_to_send():
            if transport.is_closing():
                return
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()
            else:
                transport.close()

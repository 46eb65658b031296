"""The server: WebSocket connections in, typed messages through, frames out.

A thin shell: decode (``protocol.codec``), authorise (the link's token), apply and store
(:class:`server.matches.MatchRuntime`), send (each connection's own queue, in order).
HTTP on the same port answers ``/health`` (the store reachable?) and serves the browser
table; the WebSocket endpoint is ``/ws``. ``/metrics`` (for Prometheus: :mod:`server.metrics`)
is served on an address of its own, when one is given, never on the public port: its counts
of actions by type would tell a player what the other table did.

Here: the server's life, each connection's frames in (rate, decode, dispatch), the hello,
and the matches loaded. Elsewhere, each a piece of one server process:

- :mod:`server.connection`: one client's outbox, budgets and liveness;
- :mod:`server.admission`: who comes in, and how fast;
- :mod:`server.web`: the pages, ``/health`` and ``/metrics``;
- :mod:`server.organising`: the matches created and imported, new players for a seat;
- :mod:`server.keys`: the tokens the organiser key derives;
- :mod:`server.house_robots`: the server's own robots;
- :mod:`server.analyses`: the boards' double-dummy analysis;
- :mod:`server.console` and :mod:`server.events`: the organiser's console and events.
"""

from __future__ import annotations

import asyncio
import hashlib
import http
import json
import logging
import math
import secrets
import time
from collections.abc import Callable

from pydantic import BaseModel
from redis.exceptions import RedisError
from websockets.asyncio.server import Server as WebSocketServer
from websockets.http11 import Request, Response

from bridge import BridgeError
from bridge.lin import LinMatch, parse_lin_match
from protocol.codec import MAX_CLIENT_FRAME, decode_client, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    SUPPORTED_VERSIONS,
    Ack,
    AdjustEvent,
    ArchiveMatch,
    CloseSession,
    CreateEvent,
    CreateMatch,
    ErrorMessage,
    GetBoard,
    GetEvent,
    GetLinks,
    GetRecord,
    HeartbeatAnswer,
    Hello,
    ImportMatch,
    ListEvents,
    ListMatches,
    MatchRecord,
    NewLink,
    OpenSession,
    Ping,
    Pong,
    SealDeals,
    StartEventRound,
    Substitute,
    Welcome,
)
from protocol.versions import OLDER, older
from server.admission import Admission, rate_limited
from server.analyses import Analyses
from server.connection import Connection
from server.console import SESSION_TOKEN_PREFIX, Console
from server.events import EVENT_TOKEN_PREFIX, Events
from server.fanout import Fanout, stop
from server.house_robots import HouseRobots
from server.keys import Keys
from server.limits import (
    LagWatch,
    Limits,
    RepeatedLogFilter,
    TokenBucket,
)
from server.matches import MatchRuntime, Subscriber, TableAction, now_ms
from server.metrics import Metrics
from server.organising import Organising
from server.records import lin_record, match_record
from server.sockets import SheddingSocket, listening
from server.store import Grant, Store, StoreClient
from server.thinking import Thinker
from server.transport import Answer, Link, Listener
from server.views import Player, Viewer, Watcher, seated
from server.web import MetricsAddressError, StoreHealth, response, serve_metrics, web_file

__all__ = ["Server"]

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 5.0
"""Seconds a shutdown waits for connections to close before dropping them."""
NEWER_ERROR_FIELDS = {"retry_after_ms", "versions", "field"}
"""An error's fields that protocol 2 did not have: left out of the answer to the ``hello`` of
a client older than version 6, which is refused in words its strict decoder can read."""
SPOKEN = sorted(SUPPORTED_VERSIONS)
"""The versions this server serves, as ``welcome`` and ``unsupported_version`` say them."""
HEARTBEATS_SINCE = 7
"""The version that brought ``hello.heartbeat`` (and the server message ``heartbeat``)."""
UNKNOWN_TOKENS = "too many unknown tokens from your address: wait retry_after_ms"
"""The close reason (code 1008) after a hello refused for its address's unknown tokens."""
BUSY = "the server is busy: nothing was done; send it again after retry_after_ms"
"""The message of an action refused by a process past what it can serve (:class:`LagWatch`)."""
TOO_FAST = "too many refusals for going too fast: wait retry_after_ms before sending again"
"""The close reason (code 1008) after :attr:`Limits.strikes` refusals in a row."""
PROTOCOL_LIMIT = MAX_CLIENT_FRAME + 64 * 1024
"""What the transport itself accepts: a bit over our limit, so that a frame between the two
gets a ``too_large`` error from the codec instead of a dropped connection."""
MIN_FRAME_COST = 64
"""Bytes a frame counts as at the least against the byte budgets (an empty frame costs work)."""
LOOKS_PER_TURN = 250
"""Connections whose reading is looked at in one turn of the event loop: each look asks the
kernel (some 4 us), and 2,250 connections at once held the loop 11-18 ms every 2 s."""

CONSOLE_ONLY = (OpenSession, CloseSession, ListMatches, GetLinks, NewLink, ArchiveMatch)
"""The console's messages that only the organiser sends."""
EVENT_REQUESTS = (CreateEvent, StartEventRound, AdjustEvent, GetEvent, ListEvents)
"""The organiser's event messages, which :class:`server.events.Events` serves."""
ORGANISER_ONLY = (*CONSOLE_ONLY, *EVENT_REQUESTS)
"""The messages that only the organiser sends, but for the creations of matches."""
ORGANISER_REQUESTS = (*CONSOLE_ONLY, GetRecord)
"""The organiser's messages that :class:`server.console.Console` serves."""


def error_frame(error: ErrorMessage, *, old: bool = False) -> bytes:
    """An error frame: ``versions`` only where it is said (``unsupported_version``), and
    (``old``) nothing newer than version 2 had, for the strict decoder of a client older
    than version 6."""
    if old:
        return encode(error, exclude=NEWER_ERROR_FIELDS)
    unsaid = {name for name in ("versions", "field") if getattr(error, name) is None}
    return encode(error, exclude=unsaid or None)


class Server:
    """The match server over one store. ``await start()``, then ``await close()``."""

    def __init__(
        self,
        redis: StoreClient,
        organiser_key: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        public_url: str | None = None,
        robot_delay: float = 1.0,
        store_status: Callable[[], str | None] | None = None,
        limits: Limits | None = None,
        presence_grace: float = 2.0,
        keep_robot_messages: bool = True,
        thinker: Thinker | None = None,
        metrics_address: tuple[str, int] | None = None,
    ) -> None:
        self.redis = redis
        self.metrics_address = metrics_address
        """Where ``/metrics`` is served (host, port; port 0: a free one, known once started),
        apart from the public port; None: nowhere."""
        self._metrics_server: WebSocketServer | None = None
        self.health = StoreHealth(redis, store_status)
        """Whether the store answers, for ``/health`` (``store_status``: why it is down right
        now, said by whoever runs it: ``duplicate serve`` supervising its embedded Redis)."""
        self.limits = limits or Limits()
        self.presence_grace = presence_grace
        """Seconds before a seat whose connection closed shows as away (a blink shows nothing)."""
        self.admission = Admission(self.limits, secrets.token_urlsafe(16))
        """Who comes in, and how fast."""
        self._lag = None if self.limits.overload_lag is None else LagWatch(self.limits.overload_lag)
        """How late the loop runs, when actions are refused past it (:attr:`Limits.overload_lag`)."""
        self._lag_watch: asyncio.Task[None] | None = None
        self.metrics = Metrics()
        """This process's counters and latencies, served at ``/metrics``."""
        self.metrics.matches.set_function(lambda: len(self.runtimes))
        self.store = Store(redis, timer=self.metrics.redis_timer)
        self.fanout = Fanout(redis, self.store)
        """This process among the others serving matches on the same store."""
        self.keys = Keys(organiser_key)
        """The tokens the organiser key derives."""
        self.host = host
        self.port = port
        self.public_url = public_url
        self.runtimes: dict[str, MatchRuntime] = {}
        self._loading = asyncio.Lock()
        self.listener = Listener(
            self._answer, self._opened, self._serve, self._closed, max_size=PROTOCOL_LIMIT
        )
        """The WebSocket (and plain HTTP) port's connections."""
        self.connections: set[Connection] = set()
        self.thinker = thinker or Thinker()
        """The worker processes in which the server's strong robots think (started at the
        first decision; ended with the server)."""
        self.house = HouseRobots(self, delay=robot_delay, keep_messages=keep_robot_messages)
        """The server's own robots."""
        self._reading_check: asyncio.Task[None] | None = None
        self._heartbeats: asyncio.Task[None] | None = None
        self.analyses = Analyses(self)
        """The double-dummy analyses of the matches' boards."""
        self.organising = Organising(self)
        """The organiser's creations, and new players for a seat."""
        self.console = Console(self)
        """The organiser's console messages, and the list it follows live."""
        self.events = Events(self)
        """The events of many matches: their creation, and each round begun when due."""
        self.stopping = False
        """Set once :meth:`close` begins: a request still being answered starts no task
        (a robot, an analysis, the organisers' list) that would outlive the server."""

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        # A filter on a logger sees only that logger's own records, not its children's: put
        # it on the handlers, which every record reaches, one instance for all of them so
        # that each record is counted once.
        handlers = logging.getLogger().handlers
        shared = next(
            (f for h in handlers for f in h.filters if isinstance(f, RepeatedLogFilter)),
            RepeatedLogFilter(),
        )
        for handler in handlers:
            if not any(isinstance(f, RepeatedLogFilter) for f in handler.filters):
                handler.addFilter(shared)
        if self.metrics_address is not None:
            try:
                self._metrics_server = await serve_metrics(*self.metrics_address, self.metrics)
            except OSError as error:
                raise MetricsAddressError(error) from error
            bound = next(iter(self._metrics_server.sockets)).getsockname()
            self.metrics_address = (self.metrics_address[0], bound[1])
        await self.fanout.start()
        # Sockets of our own: at the descriptor limit they answer 503, quietly (asyncio's
        # would log a traceback and stop accepting for a second).
        SheddingSocket.on_shed = self.metrics.refusals[ErrorCode.UNAVAILABLE].inc
        SheddingSocket.on_refused = self.metrics.refusals[ErrorCode.RATE_LIMITED].inc
        for sock in listening(self.host, self.port):
            if isinstance(sock, SheddingSocket):
                sock.refusing = self.admission.refusing
            await self.listener.listen(sock)
        self.port = self.listener.servers[0].sockets[0].getsockname()[1]
        if self.public_url is None:
            self.public_url = f"http://{self.host}:{self.port}"
        log.info("serving on %s", self.public_url)
        await self.house.begin()
        self._reading_check = asyncio.create_task(self._check_reading(), name="slow readers")
        self._heartbeats = asyncio.create_task(self._beat(), name="heartbeats")
        if self._lag is not None:
            self._lag_watch = asyncio.create_task(self._lag.run(), name="loop lag")
        self.events.start()

    async def close(self) -> None:
        self.stopping = True
        await self.house.close()
        if self._reading_check is not None:
            await stop(self._reading_check)
        if self._heartbeats is not None:
            await stop(self._heartbeats)
        if self._lag_watch is not None:
            await stop(self._lag_watch)
        await self.events.close()
        await self.console.close()
        await self.analyses.stop()
        await self.house.stop_all()
        if self._metrics_server is not None:
            self._metrics_server.close()
            await self._metrics_server.wait_closed()
            self._metrics_server = None
        listener = self.listener
        listener.close()
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await listener.wait_closed()
        except TimeoutError:
            # A client that never finishes the closing handshake must not hold up a
            # shutdown: drop what is left.
            log.warning("closing: %d connections did not close; dropping them", len(listener.links))
            listener.abort()
            await listener.wait_closed()
        # Every connection's handler has ended: what one started while the server was
        # closing (before it saw ``stopping``) is stopped now, before the store goes.
        await self.console.close()
        await self.analyses.stop()
        await self.house.stop_all()
        await self.health.close()
        # This process stops being one of those serving matches first: no settling of
        # presence runs on a runtime closed meanwhile, and the others see it gone at once.
        await self.fanout.close()
        for runtime in self.runtimes.values():
            await runtime.close()
        await self.store.close()
        self.thinker.close()

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def metrics_url(self) -> str | None:
        """Where Prometheus scrapes this process (None: it serves no metrics)."""
        if self.metrics_address is None:
            return None
        host, port = self.metrics_address
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/metrics"

    # -- HTTP --------------------------------------------------------------------------

    def _answer(self, link: Link, request: Request) -> Answer:
        """Answer a plain HTTP request, or let a WebSocket handshake on ``/ws`` go on (None).
        ``/health`` is answered by a coroutine: it may wait for the store's PING."""
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            if self.admission.own_robot(request):
                self.admission.robot_from(link)  # never reset as accepted
                return None
            # The open connections (one still in its opening handshake, as this one is, is
            # not counted: the handshake's timeout and the new connections' rate bound those).
            full = self.admission.over_capacity(link, len(self.connections))
            if full is not None:
                reason, wait = full
                refusal = response(
                    http.HTTPStatus.SERVICE_UNAVAILABLE, "text/plain", reason.encode()
                )
                refusal.headers["Retry-After"] = str(max(1, math.ceil(wait)))
                return refusal
            return None
        if path == "/health":
            return self._health()
        page = web_file(path)
        if page is not None:
            content_type, body = page
            return response(http.HTTPStatus.OK, content_type, body)
        body = b"Not found. Clients connect to /ws; see protocol/SPEC.md.\n"
        return response(http.HTTPStatus.NOT_FOUND, "text/plain", body)

    # -- looking after every connection ---------------------------------------------

    async def _check_reading(self) -> None:
        """Look at every connection a few times within the slow-reader limit: one whose
        client has read nothing for it while data waited, or which holds too much unread
        (in the kernel's buffers too), is dropped within the limit; and keep each alive
        (:meth:`Connection.keep_alive`)."""
        limits = self.limits
        every = min(2.0, limits.max_queue_age / 6, limits.keepalive_timeout / 4)
        stall = limits.max_queue_age - 2 * every
        while True:
            await asyncio.sleep(every)
            await self._look_at_reading(stall)

    async def _look_at_reading(self, stall: float) -> None:
        """One look at every connection (in its own frame: the last one looked at is not
        held until the next look, closed or not)."""
        now = time.monotonic()
        for index, connection in enumerate(list(self.connections)):
            if index and index % LOOKS_PER_TURN == 0:
                await asyncio.sleep(0)  # let what came meanwhile be served
                now = time.monotonic()
            if connection not in self.connections:
                continue  # closed meanwhile
            connection.check_reading(now, stall)
            connection.keep_alive(now)

    async def _beat(self) -> None:
        """Heartbeats (:meth:`Connection.beat`), looked after every quarter of the interval:
        a client that asked for them hears something at least every interval and a quarter."""
        every = self.limits.heartbeat_every / 4
        while True:
            await asyncio.sleep(every)
            self._beat_all(time.monotonic())
            self.console.expire(now_ms())

    def _beat_all(self, now: float) -> None:
        for connection in list(self.connections):
            if connection.heartbeat:
                connection.beat(now)

    async def _health(self) -> Response:
        """200 when the store answers, else 503 and why; with this process's connections
        and matches (counts only: nothing that names a match or a player)."""
        problem = await self.health.problem()
        health: dict[str, object] = {"status": "ok", "store": "ok"}
        status = http.HTTPStatus.OK
        if problem is not None:
            health = {"status": "store_down", "store": "unreachable", "reason": problem}
            status = http.HTTPStatus.SERVICE_UNAVAILABLE
        health |= {"connections": len(self.connections), "matches": len(self.runtimes)}
        return response(status, "application/json", json.dumps(health).encode())

    # -- connections -------------------------------------------------------------------

    def _opened(self, link: Link) -> None:
        """A WebSocket handshake is done: the client's connection begins."""
        limits = self.limits
        admission = self.admission
        address = admission.client_address(link)
        counted = not admission.own_robot(link.request)
        if counted:
            admission.opened(address)
        connection = Connection(
            link,
            address,
            limits,
            TokenBucket(limits.bytes_per_second, limits.bytes_burst),
            TokenBucket(limits.frames_per_second, limits.frames_burst),
            TokenBucket(limits.actions_per_second, limits.actions_burst),
            own_origin=admission.own_origin(link.request, self.public_url),
            counted=counted,
        )
        link.connection = connection
        self.connections.add(connection)
        (self.metrics.client_connections if counted else self.metrics.robot_connections).inc()
        connection.deadline = asyncio.get_running_loop().call_later(
            limits.hello_timeout, self._hello_overdue, connection
        )

    async def _serve(self, link: Link) -> None:
        """Serve the messages waiting on ``link``, in order, until none waits; once its
        connection is lost, end it (:meth:`_closed`)."""
        connection = link.connection
        assert connection is not None
        try:
            while (frame := link.take()) is not None:
                await self._serve_frame(connection, frame)
                if connection.deadline is not None and connection.authenticated:
                    # Let go once in: a cancelled timer is kept until its time comes.
                    connection.deadline.cancel()
                    connection.deadline = None
                if link.inbox:
                    # Let other connections in between two frames of this one, even when
                    # its frames wait queued and nothing above had to wait (refused ones
                    # too).
                    await asyncio.sleep(0)
        finally:
            link.serving = None
            if link.lost:  # (its connection_lost left the leaving to this task)
                await self._closed(link)

    async def _serve_frame(self, connection: Connection, frame: bytes | str) -> None:
        """Serve one frame from ``connection``'s client: rate, decode, dispatch, and answer
        a refusal with an error."""
        limits = self.limits
        admission = self.admission
        connection.beat_at = None  # it lives
        connection.heard_at = time.monotonic()
        ref = None
        message: object = None
        try:
            # Even an empty frame costs reading and answering: it counts as some bytes.
            cost = max(len(frame), MIN_FRAME_COST)
            wait = max(
                connection.volume.take(amount=cost),
                admission.volumes.take(connection.address, amount=cost),
            )
            if wait:
                # Refused before decoding: the cost of a flood stays at reading it.
                raise rate_limited("too many bytes from this connection", wait)
            # Every frame counts against the frame rate, one that cannot be read too.
            # Decoding costs a bounded time (protocol.codec), and a refusal can then name
            # the request's ref.
            wait = connection.frames.take()
            try:
                message = decode_client(frame)
                decoded = time.perf_counter()
            except ProtocolError:
                if wait:
                    raise rate_limited("too many messages from this connection", wait) from None
                raise
            ref = getattr(message, "ref", None)
            action = self.metrics.actions.get(message.type)
            if action is not None:
                action.inc()
            if wait:
                raise rate_limited("too many messages from this connection", wait)
            lag = self._lag
            if action is None or lag is None:
                await self._dispatch(connection, message, decoded)
            elif lag.admit():
                try:
                    await self._dispatch(connection, message, decoded)
                finally:
                    lag.done()
            else:
                # Past what the process can serve: refused before any work, and no strike
                # (the client did nothing wrong).
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE, BUSY, retry_after_ms=lag.retry_after_ms()
                )
            connection.strikes = 0
        except ProtocolError as error:
            if error.code == ErrorCode.RATE_LIMITED and error.retry_after_ms:
                # Too fast (the per-board bound, without a retry, is no strike).
                connection.strikes += 1
                if connection.strikes > limits.strikes:
                    # Closed with a reason once the refusals queued are sent; a client that
                    # does not read them either is dropped in time.
                    log.info("closing a connection from %s: too fast", connection.address)
                    self._shut(connection, TOO_FAST)
                    return
            self.metrics.refusals[error.code].inc()
            refusal = ErrorMessage(
                code=error.code,
                message=error.message,
                ref=ref if ref is not None else error.ref,
                retry_after_ms=error.retry_after_ms,
                field=error.field,
            )
            old = False
            if error.code == ErrorCode.UNSUPPORTED_VERSION:
                refusal = refusal.model_copy(update={"versions": SPOKEN})
                # A client older than version 6 is told in words its strict decoder can
                # read.
                old = (
                    isinstance(message, Hello)
                    and message.versions is None
                    and message.version < min(SUPPORTED_VERSIONS)
                )
            connection.send(error_frame(refusal, old=old))
            if error.code == ErrorCode.RATE_LIMITED and isinstance(message, Hello):
                # Too many unknown tokens from its address: the connection, good for
                # nothing else, is closed once told (another costs a new connection, and
                # those are rate-limited).
                log.info("closing a connection from %s: unknown tokens", connection.address)
                self._shut(connection, UNKNOWN_TOKENS)
        except (RedisError, OSError) as error:
            log.warning("store unavailable: %s", error)
            self.metrics.refusals[ErrorCode.UNAVAILABLE].inc()
            unavailable = ErrorMessage(
                code=ErrorCode.UNAVAILABLE, message="the store is unavailable; try again", ref=ref
            )
            connection.send(error_frame(unavailable))
        except Exception:
            log.exception("internal error")
            self.metrics.refusals[ErrorCode.INTERNAL].inc()
            internal = ErrorMessage(code=ErrorCode.INTERNAL, message="internal error", ref=ref)
            connection.send(error_frame(internal))

    def _shut(self, connection: Connection, reason: str) -> None:
        """Close ``connection`` with 1008 and ``reason`` once what is queued for it is sent,
        serving nothing it sends meanwhile (read and thrown away, so that the closing
        handshake completes as soon as its client answers the close); drop it if it has
        not ended within the queue's age limit."""
        connection.close(1008, reason)
        connection.link.discard()
        transport = connection.link.transport
        asyncio.get_running_loop().call_later(self.limits.max_queue_age, transport.abort)

    async def _closed(self, link: Link) -> None:
        """The connection of ``link`` is lost and its messages served: it leaves."""
        connection = link.connection
        assert connection is not None
        if connection.deadline is not None:
            connection.deadline.cancel()
            connection.deadline = None
        self.connections.discard(connection)
        if connection.counted:
            self.metrics.client_connections.dec()
            self.admission.closed(connection.address)
        else:
            self.metrics.robot_connections.dec()
        connection.end()
        if connection.runtime is not None and connection.subscriber is not None:
            try:
                await connection.runtime.leave(connection.subscriber)
            except (RedisError, OSError) as error:
                log.warning("presence not logged: %s", error)
            finally:
                # Its send and close are this connection's methods: a cycle, which only a
                # deep collection would find (server.heap).
                connection.subscriber = None
        link.connection = None  # a cycle too

    def _hello_overdue(self, connection: Connection) -> None:
        """A connection that has not said ``hello`` in time is closed (it holds a socket).
        One whose ``hello`` the server is still serving (loading the match, folding a long
        log) is given another while: the wait is the server's, not the client's."""
        if connection.authenticated or connection not in self.connections:
            return  # in, or gone meanwhile
        if connection.joining:
            asyncio.get_running_loop().call_later(
                self.limits.hello_timeout, self._hello_overdue, connection
            )
            return
        connection.drop(f"no hello within {self.limits.hello_timeout:g} s")

    async def _dispatch(self, connection: Connection, message: object, decoded: float) -> None:
        """Serve one decoded message (``decoded``: when, by ``time.perf_counter``)."""
        if isinstance(message, Hello):
            await self._hello(connection, message)
            return
        if isinstance(message, Ping):
            connection.send(encode(Pong(ref=message.ref)))
            return
        if connection.older is not None and isinstance(message, BaseModel):
            refused = connection.older.refusal(message)
            if refused is not None:
                raise ProtocolError(ErrorCode.INVALID_MESSAGE, refused)
        if isinstance(message, HeartbeatAnswer):
            return  # it lives (any frame says so): nothing to answer
        if connection.organiser:
            if isinstance(message, CreateMatch | ImportMatch | SealDeals):
                if connection.session is not None:
                    await self.console.session_expiry(connection.session)
                connection.send(encode(await self.organising.organise(message)))
            elif isinstance(message, GetRecord) and message.event_id is not None:
                if connection.session is not None:
                    await self.console.session_expiry(connection.session)
                if message.match_id is not None:
                    raise ProtocolError(
                        ErrorCode.INVALID_MESSAGE,
                        "a record is a match's or an event's: match_id or event_id",
                        field="event_id",
                    )
                connection.send(encode(await self.events.record(message)))
            elif isinstance(message, EVENT_REQUESTS):
                if connection.session is not None:
                    await self.console.session_expiry(connection.session)
                if isinstance(message, CreateEvent):
                    connection.send(encode(await self.events.create(message)))
                elif isinstance(message, ListEvents):
                    connection.send(encode(await self.events.list_events(message)))
                else:
                    connection.send(encode(await self.events.serve(message)))
            elif isinstance(message, ORGANISER_REQUESTS):
                await self.console.serve(connection, message)
            else:
                raise ProtocolError(
                    ErrorCode.FORBIDDEN,
                    # The words version 6 recorded (its transcripts hold them): the console's
                    # messages came later, within version 7.
                    "the organiser creates, imports and seals matches only",
                )
            return
        if connection.event_id is not None:
            if isinstance(message, GetRecord) and message.event_id == connection.event_id:
                connection.send(encode(await self.events.record(message)))
                return
            if not isinstance(message, GetEvent) or message.event_id != connection.event_id:
                raise ProtocolError(
                    ErrorCode.FORBIDDEN, "an event's results link asks for its event only"
                )
            connection.send(encode(await self.events.serve(message, organiser=False)))
            return
        if connection.subscriber is None or connection.runtime is None:
            raise ProtocolError(
                ErrorCode.NOT_AUTHENTICATED, "send hello with your link's token first"
            )
        if isinstance(message, CreateMatch | ImportMatch | SealDeals):
            raise ProtocolError(
                ErrorCode.FORBIDDEN, "only the organiser creates, imports and seals matches"
            )
        if isinstance(message, ORGANISER_ONLY):
            raise ProtocolError(ErrorCode.FORBIDDEN, f"only the organiser sends {message.type}")
        if isinstance(message, GetRecord):
            if message.event_id is not None:
                raise ProtocolError(
                    ErrorCode.FORBIDDEN, "an event's record is its organiser's and results link's"
                )
            if message.match_id not in (None, connection.runtime.config.match_id):
                raise ProtocolError(ErrorCode.FORBIDDEN, "a link gives its own match's record only")
            connection.send(encode(await self.record(connection.runtime, message)))
            return
        if isinstance(message, GetBoard):
            answer = connection.runtime.board_record(connection.subscriber.viewer, message.board)
            connection.send(encode(answer.model_copy(update={"ref": message.ref})))
            return
        if not connection.trusted:
            wait = connection.actions.take()
            if wait:
                raise rate_limited("too many actions from this connection", wait)
        if isinstance(message, Substitute):
            connection.send(encode(await self.organising.substitute(connection, message)))
            return
        assert isinstance(message, TableAction)
        seq, repeated = await connection.runtime.act(connection.subscriber.viewer, message)
        connection.send(encode(Ack(ref=message.ref, seq=seq, repeated=repeated)))
        # Every viewer here has its update queued already (MatchRuntime.act publishes it).
        self.metrics.action_delivery.observe(time.perf_counter() - decoded)

    async def record(self, runtime: MatchRuntime, request: GetRecord) -> MatchRecord:
        """The answer to ``get_record``: the match's record as PBN or LIN."""
        state = runtime.state
        if request.format == "lin":
            # An imported vugraph file gives its header, results and commentary back.
            record = lin_record(state, await self._imported_from(state.config.match_id))
        else:
            record = match_record(state)
        return MatchRecord(format=request.format, record=record, ref=request.ref)

    async def _imported_from(self, match_id: str) -> LinMatch | None:
        """The vugraph file the match was imported from, read (None: it was not)."""
        source = await self.store.source(match_id)
        if source is None:
            return None
        try:
            return parse_lin_match(source)
        except BridgeError:  # it was read at import: only a newer reader could refuse it
            log.warning("match %s: its imported LIN file no longer reads", match_id)
            return None

    async def _hello(self, connection: Connection, hello: Hello) -> None:
        if connection.organiser or connection.subscriber is not None:
            raise ProtocolError(
                ErrorCode.ALREADY_AUTHENTICATED, "this connection already said hello"
            )
        version = hello.spoken(SUPPORTED_VERSIONS)
        if version is None:
            speaks = SPOKEN
            asked = sorted(set(hello.versions or ()) | {hello.version})
            if max(asked) < min(SUPPORTED_VERSIONS):
                raise ProtocolError(
                    ErrorCode.UNSUPPORTED_VERSION,
                    f"protocol version {hello.version} is too old: this server speaks {speaks}; "
                    "update the client (protocol/SPEC.md, 'Versions', says what changed)",
                )
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {asked[-1]} is not supported; this server speaks {speaks}",
            )
        address = connection.address
        # A version 6 client never asked: it would not know the message ``heartbeat``.
        heartbeat = hello.heartbeat and version >= HEARTBEATS_SINCE
        key = self.keys.is_organiser(hello.token)
        session = not key and hello.token.startswith(SESSION_TOKEN_PREFIX)
        if (session or key) and not connection.own_origin:
            raise ProtocolError(
                ErrorCode.FORBIDDEN,
                "the organiser signs in from this server's own pages (or from a program): "
                "a page of another site may not",
            )
        if key:
            self._welcome_organiser(connection, version, heartbeat)
            return
        digest = hashlib.sha256(hello.token.encode()).digest()
        admission = self.admission
        known = admission.welcomed(digest) or self.house.trusted(hello.token)
        if not known:
            await admission.hold_lookup(address)
        connection.joining = True
        try:
            if hello.token.startswith(EVENT_TOKEN_PREFIX):
                try:
                    await self.events.welcome(connection, hello.token, version)
                except ProtocolError:
                    admission.unknown(address)
                    raise
            elif session:
                try:
                    expires = await self.console.session_expiry(hello.token)
                except ProtocolError:
                    admission.unknown(address)
                    raise
                connection.session = hello.token
                connection.session_expires = expires
                self.console.signed_in(expires)
                self._welcome_organiser(connection, version, heartbeat)
            else:
                await self._join(connection, hello, digest, version)
            connection.heartbeat = heartbeat
        finally:
            connection.joining = False
            if not known:
                admission.end_lookup(address)

    def _welcome_organiser(self, connection: Connection, version: int, heartbeat: bool) -> None:
        connection.organiser = True
        self.speak(connection, version)
        connection.send(
            encode(
                Welcome(version=version, versions=SPOKEN, role="organiser", now=now_ms()),
                exclude={"event_id"},
            )
        )
        connection.heartbeat = heartbeat

    async def _join(
        self, connection: Connection, hello: Hello, digest: bytes, version: int
    ) -> None:
        """Join the viewer of ``hello``'s token, speaking ``version`` with it."""
        grant = await self.store.grant(hello.token)
        if grant is None:
            self.admission.unknown(connection.address)
            raise ProtocolError(ErrorCode.BAD_TOKEN, "this link's token is not known here")
        connection.trusted = self.house.trusted(hello.token)
        if grant.role == "revoked":
            raise ProtocolError(
                ErrorCode.BAD_TOKEN,
                "the director gave this seat to another player: this link no longer works",
            )
        role = grant.role
        runtime = await self.runtime(grant.match_id)
        viewer = self._viewer(grant, runtime)
        subscriber = Subscriber(viewer, connection.send, robot=hello.robot, close=connection.close)

        def welcome(seq: int) -> bytes:
            at = seated(runtime.state, viewer.number) if isinstance(viewer, Player) else None
            return encode(
                Welcome(
                    version=version,
                    versions=SPOKEN,
                    role=role,
                    match_id=grant.match_id,
                    player=viewer.number if isinstance(viewer, Player) else None,
                    table=None if at is None else at.table,
                    seat=None if at is None else at.seat.letter,
                    seq=seq,
                    now=now_ms(),
                ),
                exclude={"event_id"},  # an event's results link's only
            )

        self.speak(connection, version)
        connection.view = "player_view" if isinstance(viewer, Player) else "watch_view"
        await runtime.join(subscriber, hello.last_seq, welcome)
        connection.subscriber = subscriber
        connection.runtime = runtime
        self.admission.welcome(digest)

    @staticmethod
    def speak(connection: Connection, version: int) -> None:
        """From now on the connection's frames are of ``version`` (an older one's are turned
        into it at the edge, protocol.versions)."""
        connection.older = older(version) if version in OLDER else None

    @staticmethod
    def _viewer(grant: Grant, runtime: MatchRuntime) -> Viewer:
        if grant.role == "player":
            assert grant.table is not None
            assert grant.seat is not None
            return Player(runtime.config.player_of(f"{grant.table}{grant.seat}"))
        if grant.role == "director":
            return Watcher("director")
        mode = runtime.config.spectators
        if mode == "off":
            raise ProtocolError(ErrorCode.BAD_TOKEN, "this match has no spectators")
        return Watcher(mode)

    async def runtime(self, match_id: str) -> MatchRuntime:
        """The match's runtime, loading it from the store on first use."""
        runtime = self.runtimes.get(match_id)
        if runtime is not None:
            return runtime
        async with self._loading:
            runtime = self.runtimes.get(match_id)
            if runtime is None:
                logs = await self.store.load(match_id)
                if logs is None:
                    raise ProtocolError(ErrorCode.BAD_TOKEN, "this link's match is not here")
                runtime = await MatchRuntime.open(
                    self.store, logs, presence_grace=self.presence_grace, fanout=self.fanout
                )
                await self.fanout.follow(match_id, runtime)
                await runtime.settle_presence()  # after reading what came since the load
                runtime.start_timers()
                self.runtimes[match_id] = runtime
                if unanalysed := runtime.unanalysed():  # its creator may have stopped
                    self.analyses.later(match_id, unanalysed)
            return runtime

"""The server: WebSocket connections in, typed messages through, frames out.

A thin shell: decode (``protocol.codec``), authorise (the link's token), apply and store
(:class:`server.matches.MatchRuntime`), send (each connection's own queue, in order).
HTTP on the same port answers ``/health``; the WebSocket endpoint is ``/ws``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import http
import json
import logging
import random
import secrets
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError
from websockets.asyncio.server import Server as WebSocketServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bridge import BridgeError, Deal, Seat, board_dealer, board_vulnerability
from protocol.codec import MAX_CLIENT_FRAME, decode_client, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    SUPPORTED_VERSIONS,
    Ack,
    CreateMatch,
    ErrorMessage,
    Hello,
    MatchCreated,
    Ping,
    Pong,
    SeatLink,
    Welcome,
)
from server.matches import MatchRuntime, Subscriber, TableAction
from server.state import BoardSpec, MatchConfig
from server.store import Grant, Store
from server.views import Player, Viewer, Watcher

__all__ = ["OUTBOX_LIMIT", "Server", "boards_from_pbn"]

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 2048
"""Frames queued for a connection that does not read; past this it is closed (it can resume)."""
PROTOCOL_LIMIT = MAX_CLIENT_FRAME + 64 * 1024
"""What websockets itself accepts: a bit over our limit, so that a frame between the two
gets a ``too_large`` error from the codec instead of a dropped connection."""


def boards_from_pbn(text: str, count: int) -> tuple[BoardSpec, ...]:
    """The first ``count`` boards with a deal in a PBN file (dealer and vulnerability from
    the file, else from the board number)."""
    from bridge.pbn import parse_games

    specs: list[BoardSpec] = []
    seen: set[int] = set()
    for index, game in enumerate(parse_games(text)):
        if game.deal is None:
            continue
        number = game.board if game.board is not None else index + 1
        if number in seen:
            continue
        seen.add(number)
        specs.append(
            BoardSpec(
                number,
                game.dealer if game.dealer is not None else board_dealer(number),
                game.vulnerability
                if game.vulnerability is not None
                else board_vulnerability(number),
                game.deal,
            )
        )
        if len(specs) == count:
            return tuple(specs)
    raise BridgeError(f"the deal file has {len(specs)} boards with deals; the match needs {count}")


def dealt_boards(count: int) -> tuple[BoardSpec, ...]:
    """Boards 1..count dealt from the operating system's secure random source."""
    rng = random.SystemRandom()
    return tuple(
        BoardSpec(n, board_dealer(n), board_vulnerability(n), Deal.random(rng))
        for n in range(1, count + 1)
    )


@dataclass(eq=False)
class Connection:
    """One client connection: who it speaks for (after hello) and its outbox."""

    websocket: ServerConnection
    outbox: asyncio.Queue[bytes | None]
    organiser: bool = False
    subscriber: Subscriber | None = None
    runtime: MatchRuntime | None = None
    overflowed: bool = False

    def send(self, frame: bytes) -> None:
        """Queue a frame; a client that lets OUTBOX_LIMIT frames pile up is disconnected
        (its writer stops and closes), and resumes from its last sequence number."""
        if self.overflowed:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.overflowed = True
            self.outbox.put_nowait(None)
            return
        self.outbox.put_nowait(frame)


class Server:
    """The match server over one store. ``await start()``, then ``await close()``."""

    def __init__(
        self,
        redis: Redis,
        organiser_key: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        public_url: str | None = None,
    ) -> None:
        self.redis = redis
        self.store = Store(redis)
        self.organiser_key = organiser_key
        self.host = host
        self.port = port
        self.public_url = public_url
        self.runtimes: dict[str, MatchRuntime] = {}
        self._loading = asyncio.Lock()
        self._server: WebSocketServer | None = None
        self.connections: set[Connection] = set()

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        self._server = await serve(
            self._handle,
            self.host,
            self.port,
            process_request=self._http,
            max_size=PROTOCOL_LIMIT,
            compression=None,
        )
        sockets = list(self._server.sockets)
        self.port = sockets[0].getsockname()[1]
        if self.public_url is None:
            self.public_url = f"http://{self.host}:{self.port}"
        log.info("serving on %s", self.public_url)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    # -- HTTP --------------------------------------------------------------------------

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return None
        if path == "/health":
            body = json.dumps({"status": "ok", "matches": len(self.runtimes)}).encode()
            return Response(
                http.HTTPStatus.OK.value,
                "OK",
                Headers([("Content-Type", "application/json"), ("Content-Length", str(len(body)))]),
                body,
            )
        body = b"Not found. Clients connect to /ws; see protocol/SPEC.md.\n"
        return Response(
            http.HTTPStatus.NOT_FOUND.value,
            "Not Found",
            Headers([("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]),
            body,
        )

    # -- connections -------------------------------------------------------------------

    async def _handle(self, websocket: ServerConnection) -> None:
        connection = Connection(websocket, asyncio.Queue())
        self.connections.add(connection)
        writer = asyncio.create_task(self._write(connection))
        try:
            async for frame in websocket:
                ref = None
                try:
                    message = decode_client(frame)
                    ref = getattr(message, "ref", None)
                    await self._dispatch(connection, message)
                except ProtocolError as error:
                    ref = ref if ref is not None else error.ref
                    refusal = ErrorMessage(code=error.code, message=error.message, ref=ref)
                    connection.send(encode(refusal))
                except (RedisError, OSError) as error:
                    log.warning("store unavailable: %s", error)
                    unavailable = ErrorMessage(
                        code=ErrorCode.UNAVAILABLE,
                        message="the store is unavailable; try again",
                        ref=ref,
                    )
                    connection.send(encode(unavailable))
                except Exception:
                    log.exception("internal error")
                    connection.send(
                        encode(
                            ErrorMessage(code=ErrorCode.INTERNAL, message="internal error", ref=ref)
                        )
                    )
        except ConnectionClosed:
            pass
        finally:
            self.connections.discard(connection)
            if connection.runtime is not None and connection.subscriber is not None:
                connection.runtime.detach(connection.subscriber)
            connection.outbox.put_nowait(None)
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    async def _write(self, connection: Connection) -> None:
        try:
            while True:
                frame = await connection.outbox.get()
                if frame is None:
                    break
                await connection.websocket.send(frame)
        except ConnectionClosed:
            pass
        finally:
            await connection.websocket.close()

    async def _dispatch(self, connection: Connection, message: object) -> None:
        if isinstance(message, Hello):
            await self._hello(connection, message)
            return
        if isinstance(message, Ping):
            connection.send(encode(Pong(ref=message.ref)))
            return
        if connection.organiser:
            if not isinstance(message, CreateMatch):
                raise ProtocolError(ErrorCode.FORBIDDEN, "the organiser creates matches only")
            connection.send(encode(await self.create_match(message)))
            return
        if connection.subscriber is None or connection.runtime is None:
            raise ProtocolError(
                ErrorCode.NOT_AUTHENTICATED, "send hello with your link's token first"
            )
        if isinstance(message, CreateMatch):
            raise ProtocolError(ErrorCode.FORBIDDEN, "only the organiser creates matches")
        assert isinstance(message, TableAction)
        seq = await connection.runtime.act(connection.subscriber.viewer, message)
        connection.send(encode(Ack(ref=message.ref, seq=seq)))

    async def _hello(self, connection: Connection, hello: Hello) -> None:
        if connection.organiser or connection.subscriber is not None:
            raise ProtocolError(
                ErrorCode.ALREADY_AUTHENTICATED, "this connection already said hello"
            )
        if hello.version not in SUPPORTED_VERSIONS:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {hello.version} is not supported; "
                f"this server speaks {sorted(SUPPORTED_VERSIONS)}",
            )
        version = hello.version
        if hmac.compare_digest(hello.token.encode(), self.organiser_key.encode()):
            connection.organiser = True
            connection.send(encode(Welcome(version=version, role="organiser")))
            return
        grant = await self.store.grant(hello.token)
        if grant is None:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "this link's token is not known here")
        runtime = await self.runtime(grant.match_id)
        viewer = self._viewer(grant, runtime)
        subscriber = Subscriber(viewer, connection.send)

        def welcome(seq: int) -> bytes:
            return encode(
                Welcome(
                    version=version,
                    role=grant.role,
                    match_id=grant.match_id,
                    table=grant.table,
                    seat=None if grant.seat is None else Seat.parse(grant.seat).letter,
                    seq=seq,
                )
            )

        await runtime.join(subscriber, hello.last_seq, welcome)
        connection.subscriber = subscriber
        connection.runtime = runtime

    @staticmethod
    def _viewer(grant: Grant, runtime: MatchRuntime) -> Viewer:
        if grant.role == "player":
            assert grant.table is not None
            assert grant.seat is not None
            return Player(grant.table, Seat.parse(grant.seat))
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
                runtime = self.runtimes[match_id] = MatchRuntime(self.store, logs)
            return runtime

    # -- organising ----------------------------------------------------------------------

    async def create_match(self, request: CreateMatch) -> MatchCreated:
        """Create a match: boards from the organiser's PBN or dealt here, links for everyone."""
        if request.deals_pbn is not None:
            try:
                boards = boards_from_pbn(request.deals_pbn, request.boards)
            except BridgeError as error:
                raise ProtocolError(ErrorCode.BAD_DEALS, str(error)) from None
        else:
            boards = dealt_boards(request.boards)
        match_id = secrets.token_hex(8)
        config = MatchConfig(match_id, request.team_a, request.team_b, boards, request.spectators)
        grants: dict[str, Grant] = {}
        seats: list[SeatLink] = []
        base = self.public_url
        for table in (1, 2):
            for seat in Seat:
                token = secrets.token_urlsafe(24)
                grants[token] = Grant(match_id, "player", table, seat.letter)
                seats.append(
                    SeatLink(
                        table=table,
                        seat=seat.letter,
                        team=config.team_of(table, seat),
                        link=f"{base}/play#{token}",
                    )
                )
        spectator = None
        if request.spectators != "off":
            token = secrets.token_urlsafe(24)
            grants[token] = Grant(match_id, "spectator")
            spectator = f"{base}/watch#{token}"
        director_token = secrets.token_urlsafe(24)
        grants[director_token] = Grant(match_id, "director")
        first = {"type": "start", "board": boards[0].number}
        await self.store.create_match(config, grants, first)
        log.info("match %s created: %d boards", match_id, len(boards))
        return MatchCreated(
            match_id=match_id,
            seats=seats,
            spectator=spectator,
            director=f"{base}/direct#{director_token}",
            ref=request.ref,
        )

"""The server: WebSocket connections in, typed messages through, frames out.

A thin shell: decode (``protocol.codec``), authorise (the link's token), apply and store
(:class:`server.matches.MatchRuntime`), send (each connection's own queue, in order).
HTTP on the same port answers ``/health`` (the store reachable?) and serves the browser
table; the WebSocket endpoint is ``/ws``. ``/metrics`` (for Prometheus: :mod:`server.metrics`)
is served on an address of its own, when one is given, never on the public port: its counts
of actions by type would tell a player what the other table did.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
import hmac
import http
import json
import logging
import math
import random
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from redis.exceptions import RedisError
from websockets.asyncio.server import Server as WebSocketServer
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bridge import BridgeError, MovementError, Seat
from bridge.commitment import DealSet, PublicForm, PublicValueRefused, seed_commitment
from bridge.errors import ParseError
from bridge.formats import (
    Movement,
    individual,
    replay,
    replay_series,
    robot_table,
    team_of_four,
    teams_match,
)
from bridge.formats.movements import INDIVIDUAL_BOARDS
from bridge.lin import LinMatch, parse_lin_match
from bridge.pbn import roster_names
from bridge.records import played_tables
from protocol.codec import MAX_CLIENT_FRAME, decode_client, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    SEAL_DAYS,
    SUPPORTED_VERSIONS,
    Ack,
    AdjustEvent,
    AnswerClaim,
    ArchiveMatch,
    CloseSession,
    CreateEvent,
    CreateMatch,
    DealsSealed,
    ErrorMessage,
    GetBoard,
    GetEvent,
    GetLinks,
    GetRecord,
    Heartbeat,
    HeartbeatAnswer,
    Hello,
    ImportMatch,
    ListEvents,
    ListMatches,
    MakeCall,
    MakeClaim,
    MatchCreated,
    MatchRecord,
    Name,
    NewLink,
    OpenSession,
    Ping,
    PlayCard,
    Pong,
    SealDeals,
    SeatLink,
    StartEventRound,
    Substitute,
    Substituted,
    Welcome,
)
from protocol.versions import OLDER, Older, older
from server.analysis import AnalysisError, Analyst
from server.console import SESSION_TOKEN_PREFIX, Console
from server.events import EVENT_TOKEN_PREFIX, Events
from server.fanout import HEARTBEAT, Fanout, closing_within, end, stop
from server.formats import (
    boards_from_pbn,
    dealt_boards,
    read_played_match,
    robot_table_log,
    seeded_boards,
)
from server.limits import (
    AddressBuckets,
    AddressThrottle,
    LagWatch,
    Limits,
    RepeatedLogFilter,
    TokenBucket,
    client_key,
)
from server.matches import MatchRuntime, Subscriber, TableAction, fold, now_ms
from server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.metrics import Metrics
from server.records import lin_record, match_record
from server.sockets import SheddingSocket, discard_on_close, listening, send_queue
from server.state import (
    BoardSpec,
    MatchConfig,
    StoredEvent,
    default_movement,
    mixed_partnership,
)
from server.store import Grant, Store, StoreClient
from server.thinking import Thinker
from server.views import Player, Viewer, Watcher, seated

if TYPE_CHECKING:
    from clients.robot import Robot

__all__ = ["Server", "robot_seats"]

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
"""What websockets itself accepts: a bit over our limit, so that a frame between the two
gets a ``too_large`` error from the codec instead of a dropped connection."""
MIN_FRAME_COST = 64
"""Bytes a frame counts as at the least against the byte budgets (an empty frame costs work)."""
ROBOT_HEADER = "X-Duplicate-Robot"
"""The request header by which the server's own robots pass the connection caps."""
RESERVED_PREFIXES = (SESSION_TOKEN_PREFIX, EVENT_TOKEN_PREFIX)
"""How the tokens begin that the hello tells apart before any lookup: a link's never does."""
WELCOMED_KEPT = 100_000
"""Tokens welcomed lately that the unknown-token throttle lets through (a bound)."""
LOOKS_PER_TURN = 250
"""Connections whose reading is looked at in one turn of the event loop: each look asks the
kernel (some 4 us), and 2,250 connections at once held the loop 11-18 ms every 2 s."""
ROBOT_LEASE = 5 * HEARTBEAT
"""Seconds a process's lease on playing a seat's robot lasts unless renewed (every
heartbeat): after a process dies, another takes its robots over within about this."""
ANALYSIS_LOOK = 5 * HEARTBEAT / 2
"""Seconds between a process's looks at the lease on a match's double-dummy analysis that
another process holds (and after a failure, before it tries again). One process analyses a
match: its lease stands while that process lives (its heartbeat; nothing is renewed per
match), and when it dies another that holds the match (or this one, restarted, once it
loads it) takes over at its next look after the death is seen (``ALIVE_FOR``)."""
ANALYSIS_LOGGED_FOR = 60.0
"""Seconds a lease says that its analysis is logged (:data:`server.store.LOGGED`), for the
processes that waited for it to read the analysis first; then the store forgets it."""
ANALYSIS_LEASE_TTL = 24 * 3600.0
"""Seconds after which the store forgets an analysis lease all the same (one whose holder
died, in a match no process loads again): far longer than any analysis waits for its turn."""
ANALYSIS_ATTEMPTS = 3
"""Analyses a process asks of its worker for a match before it gives up on it (the worker
died each time, or the solver refused a deal), a look apart: another process that holds or
loads the match then tries, or this one once restarted. A store that cannot be reached is
waited for as long as it takes."""
STORE_CHECKED_FOR = 1.0
"""Seconds ``/health`` answers from its last PING of the store: a flood of health checks is
not a flood of PINGs."""
STORE_PING_TIMEOUT = 0.5
"""Seconds ``/health`` waits for the store's answer to PING before calling it unreachable."""
SUPERVISOR_NOTICES = 0.3
"""Seconds a failed PING waits for the store's supervisor, if there is one, to say why: it
watches the embedded Redis's process (every 0.1 s), and its words ("was killed by SIGKILL;
restarting it") tell more than a failed PING."""


WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
"""The browser table: plain HTML, CSS and JavaScript modules, served as they are."""
_PAGES = {
    "/play": "index.html",
    "/watch": "index.html",
    "/direct": "index.html",
    "/": "index.html",
    "/organise": "organise.html",
    "/event": "event.html",
}
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
}


_NAME: TypeAdapter[str] = TypeAdapter(Name)

CONSOLE_ONLY = (OpenSession, CloseSession, ListMatches, GetLinks, NewLink, ArchiveMatch)
"""The console's messages that only the organiser sends."""
EVENT_REQUESTS = (CreateEvent, StartEventRound, AdjustEvent, GetEvent, ListEvents)
"""The organiser's event messages, which :class:`server.events.Events` serves."""
ORGANISER_ONLY = (*CONSOLE_ONLY, *EVENT_REQUESTS)
"""The messages that only the organiser sends, but for the creations of matches."""
ORGANISER_REQUESTS = (*CONSOLE_ONLY, GetRecord)
"""The organiser's messages that :class:`server.console.Console` serves."""


def web_file(path: str) -> tuple[str, bytes] | None:
    """(content type, bytes) of the browser table's file at URL ``path``, or None. The
    link's token travels after ``#``, so it never reaches the server in a page request."""
    name = _PAGES.get(
        path.rstrip("/") or "/", path.removeprefix("/web/") if path.startswith("/web/") else None
    )
    if name is None:
        return None
    if len(name) > 100 or "\x00" in name:
        return None  # no file of ours has such a name (and the OS would refuse it)
    try:
        file = (WEB_ROOT / name).resolve()
        if not file.is_relative_to(WEB_ROOT) or not file.is_file() or file.suffix not in _TYPES:
            return None
        return _TYPES[file.suffix], file.read_bytes()
    except (OSError, ValueError):
        return None


class MetricsAddressError(Exception):
    """The metrics address could not be listened on (``error`` says why)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _request_digest(request: CreateMatch | ImportMatch | SealDeals) -> str:
    """What a request asks for, whatever its ``ref``: a request sent again with the same
    ``request_id`` must ask for the same."""
    asked = request.model_dump(mode="json", exclude={"ref"})
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


def _response(status: http.HTTPStatus, content_type: str, body: bytes) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return Response(status.value, status.phrase, headers, body)


def error_frame(error: ErrorMessage, *, old: bool = False) -> bytes:
    """An error frame: ``versions`` only where it is said (``unsupported_version``), and
    (``old``) nothing newer than version 2 had, for the strict decoder of a client older
    than version 6."""
    if old:
        return encode(error, exclude=NEWER_ERROR_FIELDS)
    unsaid = {name for name in ("versions", "field") if getattr(error, name) is None}
    return encode(error, exclude=unsaid or None)


def _rate_limited(what: str, wait: float) -> ProtocolError:
    retry = max(1, round(wait * 1000))
    return ProtocolError(
        ErrorCode.RATE_LIMITED, f"{what}: try again in {retry} ms", retry_after_ms=retry
    )


MAX_IMPORTED_BOARDS = 64
CREATION_UNDER_WAY = 900.0
"""Seconds a creation with a ``request_id`` may take (an import of many boards on a busy
machine) before the same request sent again stops waiting for it."""
CREATION_KEPT = 7 * 86_400
"""Seconds the answer to a creation with a ``request_id`` is kept for the same request."""
"""The most boards an imported match may hold, as many as a created one."""


def _commit(
    boards: tuple[BoardSpec, ...],
    seed: str | None = None,
    public: str | None = None,
    form: PublicForm | None = None,
) -> DealSet:
    """The boards with a fresh secret salt (and the seed, the canonical public value and
    its form they were drawn from): the deal set a new match commits to."""
    return DealSet(
        secrets.token_hex(32),
        tuple((b.number, b.dealer, b.vulnerability, b.deal) for b in boards),
        seed,
        public,
        form,
    )


def _refused(message: str, field: str) -> ProtocolError:
    """``create_match`` refused for its ``field``."""
    return ProtocolError(ErrorCode.INVALID_MESSAGE, message, field=field)


def movement_for(request: CreateMatch) -> Movement:
    """The movement a ``create_match`` asks for (ProtocolError, naming the field, for a bad
    one)."""
    scoring = request.scoring
    if request.format in ("teams", "robot-table", "team-of-four") and scoring not in (
        None,
        "imps",
    ):
        raise _refused(f"a {request.format} match is scored in imps, not {scoring}", "scoring")
    if request.format != "replay" and (
        request.stage_two != "now" or request.imposed_auction or request.sessions is not None
    ):
        field = (
            "stage_two"
            if request.stage_two != "now"
            else "imposed_auction"
            if request.imposed_auction
            else "sessions"
        )
        raise _refused("stage_two, imposed_auction and sessions are for replay duplicate", field)
    try:
        movement = _movement(request)
    except MovementError as error:
        field = "scoring" if "scored" in str(error) else "boards"
        raise _refused(str(error), field) from None
    if len(movement.boards) > MOST_BOARDS:
        raise _refused(
            f"a series of {request.sessions} sessions of {request.boards or 4} new boards plays "
            f"{len(movement.boards)} boards in all: at most {MOST_BOARDS}",
            "boards",
        )
    return movement


MOST_BOARDS = 64
"""The most boards a match plays (``create_match.boards`` is at most this too)."""


def held_rounds(request: CreateMatch, movement: Movement) -> tuple[int, ...]:
    """The rounds that wait for the director's ``start_round``: replay duplicate's stage 2,
    or each meeting of a series after the first, when the organiser asked."""
    if request.format != "replay" or request.stage_two != "director":
        return ()
    return movement.sessions[1:] or (2,)


def _movement(request: CreateMatch) -> Movement:
    boards = request.boards
    scoring = request.scoring
    if request.format == "teams":
        return teams_match(boards or 4)
    if request.format == "robot-table":
        return robot_table(boards or 8)
    if request.format == "team-of-four":
        return team_of_four(boards or 8)
    if request.format == "replay":
        replay_scoring = scoring or "board_a_match"
        if replay_scoring not in ("board_a_match", "total_points"):
            raise MovementError(
                f"replay duplicate is scored board_a_match or total_points, not {replay_scoring}"
            )
        if request.sessions is not None:
            return replay_series(
                request.sessions, boards or 4, replay_scoring, rng=random.SystemRandom()
            )
        return replay(boards or 4, replay_scoring, rng=random.SystemRandom())
    players = request.players
    default = INDIVIDUAL_BOARDS[players][0]
    return individual(players, boards or default, scoring or "imps")


def _roster(text: str | None) -> dict[str, str]:
    """The names of ``create_match``'s roster, by first-round seat (refused, naming the
    field ``roster``, when it cannot be read or a name is not a name)."""
    if text is None:
        return {}
    try:
        names = roster_names(text)
    except BridgeError as error:
        raise _refused(f"the roster: {error}", "roster") from None
    for key, name in names.items():
        try:
            _NAME.validate_python(name)
        except ValidationError:
            raise _refused(
                f"the roster: seat {key}: a name has 1 to 40 characters, none of them a "
                "control character",
                "roster",
            ) from None
    return names


def robot_seats(names: list[str]) -> set[tuple[int, str]]:
    """``["t2", "1N"]`` -> every seat of table 2, and North at table 1."""
    seats: set[tuple[int, str]] = set()
    for name in names:
        if name.startswith("t"):
            seats |= {(int(name[1]), seat.letter) for seat in Seat}
        else:
            seats.add((int(name[0]), name[1]))
    return seats


class ClosingConnection(ServerConnection):
    """A WebSocket (or HTTP) connection that, once lost, is in no reference cycle:
    reference counting frees it, and no collection has to find it (server.heap freezes what
    outlives a young collection)."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # websockets keeps the exception that stopped its parser (a connection ended
        # without a closing handshake): its traceback holds parse()'s frame, which holds
        # the protocol.
        stopped = self.protocol.parser_exc
        if stopped is not None:
            stopped.__traceback__ = None
        # Its parser is a generator of the protocol's, left suspended for good once the
        # stream has ended (websockets' discard()): its frame holds the protocol.
        self.protocol.parser.close()
        # asyncio before 3.12 (CPython gh-100348): the socket transport holds a bound method
        # of its own; it reads nothing more once its connection is lost.
        if hasattr(self.transport, "_read_ready_cb"):
            self.transport._read_ready_cb = None


async def _pinged(websocket: ServerConnection) -> None:
    """Ping ``websocket`` and wait for its pong (or its closing)."""
    with contextlib.suppress(ConnectionClosed):
        await (await websocket.ping())


@dataclass(eq=False)
class Connection:
    """One client connection: who it speaks for (after hello), its outbox, and what it may
    still send (its token buckets)."""

    websocket: ServerConnection
    address: str
    """The client's IP address (behind a trusted proxy: the one the proxy names)."""
    limits: Limits
    volume: TokenBucket
    """Bytes it may send (its address's budget is shared with its other connections)."""
    frames: TokenBucket
    actions: TokenBucket
    organiser: bool = False
    subscriber: Subscriber | None = None
    runtime: MatchRuntime | None = None
    trusted: bool = False
    """The server's own robot: its actions are not rate-limited."""
    joining: bool = False
    """Its ``hello`` is being served (the match loading, a long log folding)."""
    overflowed: bool = False
    closing: tuple[int, str] = (1000, "")
    """The close code and reason the connection closes with once its queue is sent."""
    older: Older | None = None
    """The older protocol version the client speaks (its frames are turned into it), or
    None: the current one."""
    view: str = "player_view"
    """The type of the client's view (``watch_view`` for spectators and the director), for
    turning changes into an older version."""
    strikes: int = 0
    """Refusals for going too fast since the last frame served."""
    queued_bytes: int = 0
    outbox: list[tuple[float, bytes | None]] = field(default_factory=list)
    """(when queued, frame) of each frame not yet handed to the socket, from ``head`` on;
    None: close once the frames before it are sent. A list and one waiter rather than an
    ``asyncio.Queue`` and a deque: 4 KiB less for every connection."""
    head: int = 0
    waiting: asyncio.Future[None] | None = None
    """The writer's wait for a frame, while it has none."""
    acknowledged: int = 0
    """Bytes its client's TCP had acknowledged when last looked (:meth:`check_reading`)."""
    progress_at: float = field(default_factory=time.monotonic)
    """When its client was last seen reading: nothing left unacknowledged, or more
    acknowledged than before."""
    heartbeat: bool = False
    """Its client asked for heartbeats (``hello.heartbeat``): :meth:`beat` looks after it."""
    own_origin: bool = True
    """Its handshake came from a page of this server, or from a program (no ``Origin``): an
    organiser may sign in on it."""
    session: str | None = None
    """The organiser's session token it signed in with (None: the key, or not the
    organiser)."""
    session_expires: int | None = None
    """When that session expires (ms since 1970)."""
    live_list: bool | None = None
    """The organiser follows the list of matches live (``True``: archived ones too)."""
    last_list: bytes | None = None
    """The list last sent to it live, so that an unchanged list is not sent again."""
    event_id: str | None = None
    """The event whose results it follows (signed in with the event's results link)."""
    last_event: bytes | None = None
    """The event last sent to it, so that an unchanged one is not sent again."""
    queued_at: float = field(default_factory=time.monotonic)
    """When a frame was last queued for it."""
    beat_at: float | None = None
    """When the server sent it a ``heartbeat`` that nothing from it has followed yet (None:
    it has sent something since the last one)."""
    beats: int = 0
    heard_at: float = field(default_factory=time.monotonic)
    """When a frame last came from it."""
    ping: asyncio.Task[None] | None = None
    """The WebSocket ping it was sent, until its pong comes (:meth:`keep_alive`)."""
    pinged_at: float = 0.0

    @property
    def authenticated(self) -> bool:
        return self.organiser or self.subscriber is not None

    def send(self, frame: bytes) -> None:
        """Send a frame: straight to the socket when nothing waits before it, else queued
        for the writer. A client that does not read is dropped at once when its unsent data
        passes the byte or age limit, whether or not its socket drains; it can resume from
        its last sequence number."""
        if self.overflowed:
            return
        if self.older is not None:
            turned = self.older.encoded(frame, self.view)
            if turned is None:
                return  # a frame the client's version does not have
            frame = turned
        now = time.monotonic()
        oldest = self.outbox[self.head][0] if self.head < len(self.outbox) else now
        too_much = self.queued_bytes + len(frame) > self.limits.max_queued_bytes
        if too_much or now - oldest > self.limits.max_queue_age:
            self.drop("it does not read what the server sends")
            return
        self.queued_at = now
        if self.head == len(self.outbox) and not self.websocket.transport.get_write_buffer_size():
            # Nothing queued, nothing held by the transport: written now, the kernel takes it
            # (no task woken, no future made).
            broadcast((self.websocket,), frame)
            return
        self.queued_bytes += len(frame)
        self._queue(now, frame)

    def _queue(self, now: float, frame: bytes | None) -> None:
        self.outbox.append((now, frame))
        if self.waiting is not None and not self.waiting.done():
            self.waiting.set_result(None)

    async def next_frame(self) -> bytes | None:
        """The writer's next frame to send (it calls :meth:`sent` once it is handed over);
        None: close."""
        while self.head == len(self.outbox):
            if self.head:
                self.outbox.clear()
                self.head = 0
            self.waiting = asyncio.get_running_loop().create_future()
            try:
                await self.waiting
            finally:
                self.waiting = None
        return self.outbox[self.head][1]

    def sent(self) -> None:
        """The writer has handed the oldest queued frame to the socket."""
        frame = self.outbox[self.head][1]
        self.queued_bytes -= 0 if frame is None else len(frame)
        self.head += 1
        if self.head > 256 and self.head * 2 > len(self.outbox):
            del self.outbox[: self.head]  # a long backlog: forget what was sent, now and then
            self.head = 0

    def end(self) -> None:
        """Close once what is queued now is sent."""
        self._queue(time.monotonic(), None)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close with ``code`` and ``reason`` (the seat went to
        someone else; 1008 after too many refusals for going too fast)."""
        if not self.overflowed:
            self.overflowed = True
            self.closing = (code, reason)
            self.end()

    def drop(self, why: str) -> None:
        """Close the connection now, without waiting for its queue to drain, and without
        leaving the kernel to deliver what it holds for it (a reset)."""
        if not self.overflowed:
            self.overflowed = True
            log.info("dropping a connection from %s: %s", self.address, why)
            sock = self.websocket.transport.get_extra_info("socket")
            if sock is not None:
                discard_on_close(sock)
            self.websocket.transport.abort()
            self.end()

    def beat(self, now: float) -> None:
        """On a connection with heartbeats: drop it when it has sent nothing for the silence
        limit after a ``heartbeat`` (its traffic silently dropped, or a page frozen), else
        send a ``heartbeat`` when nothing was sent to it for the heartbeat interval."""
        if self.overflowed:
            return
        if self.beat_at is not None and now - self.beat_at > self.limits.heartbeat_silence:
            self.drop(f"it answered no heartbeat for {now - self.beat_at:.0f} s")
        elif now - self.queued_at >= self.limits.heartbeat_every:
            self.beats += 1
            self.send(encode(Heartbeat(ref=self.beats)))
            if self.beat_at is None:
                self.beat_at = now

    def keep_alive(self, now: float) -> None:
        """WebSocket keepalive, looked after by the server for all its connections at once (a
        task per connection costs memory): a connection silent for ``keepalive_every``
        seconds (since its last frame or ping) is sent a ping, and dropped when its pong has
        not come ``keepalive_timeout`` later (a peer gone without closing: a phone that lost
        its network)."""
        if self.overflowed:
            return
        if self.ping is not None:
            if self.ping.done():
                self.ping = None
            elif now - self.pinged_at > self.limits.keepalive_timeout:
                self.drop(f"it answered no ping for {now - self.pinged_at:.0f} s")
            return
        if now - max(self.heard_at, self.pinged_at) >= self.limits.keepalive_every:
            self.pinged_at = now
            self.ping = asyncio.create_task(_pinged(self.websocket), name="keepalive ping")

    def check_reading(self, now: float, stall: float) -> None:
        """Drop the connection if its client has read nothing for ``stall`` seconds while
        data waited for it, or if the data waiting for it, counting what the kernel and the
        transport hold (a client that stops reading fills those first, unseen by
        :meth:`send`), passes the byte limit."""
        transport = self.websocket.transport
        sock = transport.get_extra_info("socket")
        queue = None if sock is None else send_queue(sock)
        if queue is None or self.overflowed:
            return
        buffered = transport.get_write_buffer_size()
        if (queue.unsent == 0 and buffered == 0) or queue.acknowledged != self.acknowledged:
            self.acknowledged = queue.acknowledged
            self.progress_at = now
            return
        held = self.queued_bytes + buffered + queue.unsent
        if held > self.limits.max_queued_bytes:
            self.drop(f"it does not read what the server sends ({held} bytes unread)")
        elif now - self.progress_at > stall:
            self.drop(f"it has read nothing for {now - self.progress_at:.0f} s")


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
        self.keep_robot_messages = keep_robot_messages
        """Whether the server's robots keep every message they received (tests audit them;
        ``duplicate serve`` lets them go)."""
        self.robot_delay = robot_delay
        """Seconds the server's robots wait before each action, unless a match says otherwise
        (robots at a table of robots never wait)."""
        self.store_status = store_status
        """Why the store is down right now (None: it is up), for ``/health``; set by whoever
        runs the store (``duplicate serve`` supervising its embedded Redis)."""
        self.limits = limits or Limits()
        self.presence_grace = presence_grace
        """Seconds before a seat whose connection closed shows as away (a blink shows nothing)."""
        self._bad_hellos = AddressThrottle(self.limits.bad_hellos_per_minute, 60.0)
        self._lag = None if self.limits.overload_lag is None else LagWatch(self.limits.overload_lag)
        """How late the loop runs, when actions are refused past it (:attr:`Limits.overload_lag`)."""
        self._lag_watch: asyncio.Task[None] | None = None
        self._lookups_ended: dict[str, asyncio.Event] = {}
        """Set when a lookup of a token from the address ends (:meth:`_hold_lookup`)."""
        limits = self.limits
        self._volumes = AddressBuckets(limits.address_bytes_per_second, limits.address_bytes_burst)
        self._arrivals = AddressBuckets(limits.connections_per_second, limits.connections_burst)
        self._per_address: Counter[str] = Counter()
        """Open connections from each client address."""
        self._refused_until: dict[str, float] = {}
        """Addresses told to wait before connecting again, and until when (by the clock of
        ``time.monotonic``): their new connections are reset as they are accepted."""
        self._robot_addresses: set[str] = set()
        """Where the server's own robots connect from (never reset as accepted)."""
        self._robot_tokens: set[str] = set()
        """The tokens of the server's own robots (trusted: not rate-limited)."""
        self._robot_pass = secrets.token_urlsafe(16)
        """Sent by the server's own robots in a request header: their connections pass the
        connection caps (they all come from this host, and the server chose to run them)."""
        self._welcomed: OrderedDict[bytes, None] = OrderedDict()
        """Digests of tokens welcomed lately: an address throttled for unknown tokens still
        gets in with one of these (a player behind the same router as an attacker)."""
        self.metrics = Metrics()
        """This process's counters and latencies, served at ``/metrics``."""
        self.metrics.matches.set_function(lambda: len(self.runtimes))
        self.store = Store(redis, timer=self.metrics.redis_timer)
        self._store_problem: str | None = None
        """Why the store did not answer the last PING (None: it did)."""
        self._store_checked_at = -STORE_CHECKED_FOR
        self._store_check: asyncio.Task[str | None] | None = None
        """The PING in flight, which every ``/health`` request meanwhile waits for."""
        self.fanout = Fanout(redis, self.store)
        """This process among the others serving matches on the same store."""
        self.organiser_key = organiser_key
        self.host = host
        self.port = port
        self.public_url = public_url
        self.runtimes: dict[str, MatchRuntime] = {}
        self._loading = asyncio.Lock()
        self._servers: list[WebSocketServer] = []
        self.connections: set[Connection] = set()
        self.robots: dict[tuple[str, str], asyncio.Task[None]] = {}
        """The robot playing each (match id, seat key ``"1N"``), while it plays."""
        self.thinker = thinker or Thinker()
        """The worker processes in which the server's strong robots think (started at the
        first decision; ended with the server)."""
        self.robot_players: list[Robot] = []
        """Every robot this server started (for inspection: a correct robot has no errors)."""
        self._robot_keeper: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        """Set when the server closes: the robots' keeper ends between two of its looks."""
        self._reading_check: asyncio.Task[None] | None = None
        self._heartbeats: asyncio.Task[None] | None = None
        self.analyst = Analyst.shared()
        self.console = Console(self)
        """The organiser's console messages, and the list it follows live."""
        self.events = Events(self)
        """The events of many matches: their creation, and each round begun when due."""
        self._analysing: dict[str, asyncio.Task[None]] = {}
        """The double-dummy analysis under way of each match's boards (off the creation
        path: a comparison shows it once it is there)."""
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
                await self._serve_metrics(*self.metrics_address)
            except OSError as error:
                raise MetricsAddressError(error) from error
        await self.fanout.start()
        # Sockets of our own: at the descriptor limit they answer 503, quietly (asyncio's
        # would log a traceback and stop accepting for a second).
        SheddingSocket.on_shed = self.metrics.refusals[ErrorCode.UNAVAILABLE].inc
        SheddingSocket.on_refused = self.metrics.refusals[ErrorCode.RATE_LIMITED].inc
        for sock in listening(self.host, self.port):
            if isinstance(sock, SheddingSocket):
                sock.refusing = self._refusing
            self._servers.append(
                await serve(
                    self._handle,
                    sock=sock,
                    process_request=self._http,
                    max_size=PROTOCOL_LIMIT,
                    compression=None,
                    ping_interval=None,  # one keepalive for all: Connection.keep_alive
                    create_connection=ClosingConnection,
                )
            )
        self.port = self._servers[0].sockets[0].getsockname()[1]
        if self.public_url is None:
            self.public_url = f"http://{self.host}:{self.port}"
        log.info("serving on %s", self.public_url)
        await self.resume_robots()
        self._robot_keeper = asyncio.create_task(self._keep_robots(), name="robot leases")
        self._reading_check = asyncio.create_task(self._check_reading(), name="slow readers")
        self._heartbeats = asyncio.create_task(self._beat(), name="heartbeats")
        if self._lag is not None:
            self._lag_watch = asyncio.create_task(self._lag.run(), name="loop lag")
        self.events.start()

    async def close(self) -> None:
        self.stopping = True
        if self._robot_keeper is not None:  # between two looks, not in the middle of one
            await end(self._closing, self._robot_keeper)
        if self._reading_check is not None:
            await stop(self._reading_check)
        if self._heartbeats is not None:
            await stop(self._heartbeats)
        if self._lag_watch is not None:
            await stop(self._lag_watch)
        await self.events.close()
        await self.console.close()
        await stop(*self._analysing.values())
        await self._stop_robots()
        if self._metrics_server is not None:
            self._metrics_server.close()
            await self._metrics_server.wait_closed()
            self._metrics_server = None
        servers, self._servers = self._servers, []
        for server in servers:
            server.close()
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                for server in servers:
                    await server.wait_closed()
        except TimeoutError:
            # A client that never finishes the closing handshake must not hold up a
            # shutdown: drop what is left.
            log.warning(
                "closing: %d connections did not close; dropping them", len(self.connections)
            )
            for connection in list(self.connections):
                connection.websocket.transport.abort()
            for server in servers:
                await server.wait_closed()
        # Every connection's handler has ended: what one started while the server was
        # closing (before it saw ``stopping``) is stopped now, before the store goes.
        await self.console.close()
        await stop(*self._analysing.values())
        await self._stop_robots()
        if self._store_check is not None:
            await self._store_check  # a PING in flight: over within STORE_PING_TIMEOUT
        # This process stops being one of those serving matches first: no settling of
        # presence runs on a runtime closed meanwhile, and the others see it gone at once.
        await self.fanout.close()
        for runtime in self.runtimes.values():
            await runtime.close()
        self.thinker.close()

    async def _stop_robots(self) -> None:
        """Stop this process's robots and give up their seats' leases: another process may
        take them over at once."""
        playing = list(self.robots)
        await stop(*self.robots.values())
        for match_id, seat in playing:
            with contextlib.suppress(RedisError, OSError):
                await self.store.release_robot(match_id, seat, self.fanout.process)

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    # -- HTTP --------------------------------------------------------------------------

    async def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer a plain HTTP request, or let a WebSocket handshake on ``/ws`` go on (None).
        A coroutine (websockets awaits it): ``/health`` may wait for the store's PING."""
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            if self._own_robot(request):
                remote = connection.remote_address
                if remote:  # never reset as accepted: its robots' address
                    self._robot_addresses.add(client_key(str(remote[0])))
                return None
            full = self._over_capacity(connection)
            if full is not None:
                reason, wait = full
                response = _response(
                    http.HTTPStatus.SERVICE_UNAVAILABLE, "text/plain", reason.encode()
                )
                response.headers["Retry-After"] = str(max(1, math.ceil(wait)))
                return response
            return None
        if path == "/health":
            return await self._health()
        page = web_file(path)
        if page is not None:
            content_type, body = page
            return _response(http.HTTPStatus.OK, content_type, body)
        body = b"Not found. Clients connect to /ws; see protocol/SPEC.md.\n"
        return _response(http.HTTPStatus.NOT_FOUND, "text/plain", body)

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

    async def _serve_metrics(self, host: str, port: int) -> None:
        """Listen for Prometheus at (``host``, ``port``): ``/metrics``, and nothing else."""

        def answer(_connection: ServerConnection, request: Request) -> Response:
            if request.path.split("?", 1)[0] != "/metrics":
                body = b"Not found: this address serves /metrics only.\n"
                return _response(http.HTTPStatus.NOT_FOUND, "text/plain", body)
            return _response(http.HTTPStatus.OK, METRICS_CONTENT_TYPE, self.metrics.exposition())

        async def refuse(_connection: ServerConnection) -> None:
            """Never reached: every request is answered in HTTP."""

        self._metrics_server = await serve(
            refuse, host, port, process_request=answer, create_connection=ClosingConnection
        )
        bound = next(iter(self._metrics_server.sockets)).getsockname()
        self.metrics_address = (host, bound[1])

    @property
    def metrics_url(self) -> str | None:
        """Where Prometheus scrapes this process (None: it serves no metrics)."""
        if self.metrics_address is None:
            return None
        host, port = self.metrics_address
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/metrics"

    async def _health(self) -> Response:
        """200 when the store answers, else 503 and why; with this process's connections
        and matches (counts only: nothing that names a match or a player)."""
        problem = self._supervisor_says()
        if problem is None:
            pinged = await self.store_problem()
            problem = self._supervisor_says() or pinged  # its words, if it noticed meanwhile
        health: dict[str, object] = {"status": "ok", "store": "ok"}
        status = http.HTTPStatus.OK
        if problem is not None:
            health = {"status": "store_down", "store": "unreachable", "reason": problem}
            status = http.HTTPStatus.SERVICE_UNAVAILABLE
        health |= {"connections": len(self.connections), "matches": len(self.runtimes)}
        return _response(status, "application/json", json.dumps(health).encode())

    def _supervisor_says(self) -> str | None:
        """Why the store's supervisor says the store is down (None: up, or no supervisor)."""
        return None if self.store_status is None else self.store_status()

    async def store_problem(self) -> str | None:
        """Why the store is unreachable (None: it answered PING), as found at most
        :data:`STORE_CHECKED_FOR` seconds ago; requests that come while a PING is in flight
        all wait for that one."""
        if time.monotonic() - self._store_checked_at < STORE_CHECKED_FOR:
            return self._store_problem
        if self._store_check is None or self._store_check.done():
            self._store_check = asyncio.create_task(self._ping_store(), name="store health")
        # Shielded: a request given up (its client gone) does not cancel the others' PING.
        return await asyncio.shield(self._store_check)

    async def _ping_store(self) -> str | None:
        """PING the store, note the answer (or why there was none) and when, and log a
        change. The reason names the error's kind only: ``/health`` is public, and a
        client library's message may name the store's host."""
        try:
            await asyncio.wait_for(self.redis.ping(), STORE_PING_TIMEOUT)
            problem = None
        except TimeoutError:
            problem = f"no answer to PING within {STORE_PING_TIMEOUT:g} s"
        except (RedisError, OSError) as error:
            problem = f"PING failed: {type(error).__name__}"
        if problem is not None and self.store_status is not None:
            deadline = time.monotonic() + SUPERVISOR_NOTICES
            while self.store_status() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        if problem != self._store_problem:
            if problem is None:
                log.info("health: the store answers again")
            else:
                log.warning("health: the store is unreachable: %s", problem)
        self._store_problem = problem
        self._store_checked_at = time.monotonic()
        return problem

    def _own_robot(self, request: Request | None) -> bool:
        """Whether a connection is one of the server's own robots (by its request header)."""
        if request is None:
            return False
        given = request.headers.get_all(ROBOT_HEADER)
        return len(given) == 1 and hmac.compare_digest(given[0], self._robot_pass)

    def _own_origin(self, request: Request | None) -> bool:
        """Whether a handshake may sign an organiser in: it names no ``Origin`` (a program,
        not a page), or its page came from this server (the host it asked for, or the
        public URL's): another site's page, which a browser would let reach the server
        with the organiser's session, may not."""
        if request is None:
            return True
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        scheme, _, rest = origin.partition("://")
        host = request.headers.get("Host")
        if host is not None and rest == host and scheme in ("http", "https"):
            return True
        public = self.public_url or ""
        public_scheme, _, public_rest = public.partition("://")
        return (scheme, rest) == (public_scheme, public_rest.split("/", 1)[0])

    def _over_capacity(self, connection: ServerConnection) -> tuple[str, float] | None:
        """Why a new WebSocket connection is refused, if it is, and in how many seconds to
        try again: the server is full, or its address holds too many already, or opened too
        many lately. Refused before the handshake, cheaply."""
        # The open connections (one still in its opening handshake, as this one is, is not
        # counted: the handshake's timeout and the new connections' rate bound those).
        opened = sum(len(server.all_connections) for server in self._servers)
        if opened >= self.limits.max_connections:
            return "The server has as many connections as it can take: try again later.\n", 5.0
        address = self._client_address(connection)
        if self._per_address[address] >= self.limits.max_connections_per_address:
            return f"Too many connections from {address}: close some and try again.\n", 5.0
        wait = self._arrivals.take(address)
        if wait:
            self._refuse_for(address, wait)
            return f"Too many new connections from {address}: try again in {wait:.1f} s.\n", wait
        return None

    def _refuse_for(self, address: str, seconds: float) -> None:
        """Reset ``address``'s new connections as they are accepted for ``seconds``: it was
        just told (503, with the reason and ``Retry-After``) to wait that long before
        connecting again, and one that does not wait then costs an accept and a reset, no
        HTTP read, parsed or answered."""
        if address in self._robot_addresses or address in self.limits.trusted_proxies:
            return
        self._refused_until.pop(address, None)
        self._refused_until[address] = time.monotonic() + seconds
        if len(self._refused_until) > 100_000:  # a bound on what many addresses cost
            self._refused_until.pop(next(iter(self._refused_until)))

    def _refusing(self, address: str) -> bool:
        """Whether a connection from ``address`` (as accepted) is reset at once."""
        key = client_key(address)
        until = self._refused_until.get(key)
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self._refused_until[key]
        return False

    def _client_address(self, websocket: ServerConnection) -> str:
        """The IP address a connection comes from: behind a trusted proxy, the last one its
        ``X-Forwarded-For`` names (the address the proxy itself saw)."""
        remote = websocket.remote_address
        address = str(remote[0]) if remote else "?"
        request = websocket.request
        if address in self.limits.trusted_proxies and request is not None:
            # A proxy may add its own header line after the client's: the last one counts.
            forwarded = ",".join(request.headers.get_all("X-Forwarded-For"))
            last = forwarded.rsplit(",", 1)[-1].strip()
            if 0 < len(last) <= 45:  # an IPv6 address at its longest
                return client_key(last)
        return client_key(address)

    # -- connections -------------------------------------------------------------------

    async def _handle(self, websocket: ServerConnection) -> None:
        limits = self.limits
        address = self._client_address(websocket)
        counted = not self._own_robot(websocket.request)
        own_origin = self._own_origin(websocket.request)
        # The handshake is over and what the server needs of it is read: its headers, some
        # kilobytes a connection, are let go (websockets reads them only while shaking hands;
        # its parser holds the same request for the connection's life).
        if websocket.request is not None:
            websocket.request.headers.clear()
        websocket.response = None
        if counted:
            self._per_address[address] += 1
        connection = Connection(
            websocket,
            address,
            limits,
            TokenBucket(limits.bytes_per_second, limits.bytes_burst),
            TokenBucket(limits.frames_per_second, limits.frames_burst),
            TokenBucket(limits.actions_per_second, limits.actions_burst),
            own_origin=own_origin,
        )
        self.connections.add(connection)
        metrics = self.metrics
        counting = metrics.client_connections if counted else metrics.robot_connections
        counting.inc()
        actions = metrics.actions
        refusals = metrics.refusals
        writer = asyncio.create_task(self._write(connection))
        deadline = asyncio.get_running_loop().call_later(
            limits.hello_timeout, self._hello_overdue, connection
        )
        struck = False
        try:
            async for frame in websocket:
                connection.beat_at = None  # it lives
                connection.heard_at = time.monotonic()
                ref = None
                message: object = None
                try:
                    # Even an empty frame costs reading and answering: it counts as some bytes.
                    cost = max(len(frame), MIN_FRAME_COST)
                    wait = max(
                        connection.volume.take(amount=cost),
                        self._volumes.take(connection.address, amount=cost),
                    )
                    if wait:
                        # Refused before decoding: the cost of a flood stays at reading it.
                        raise _rate_limited("too many bytes from this connection", wait)
                    # Every frame counts against the frame rate, one that cannot be read too.
                    # Decoding costs a bounded time (protocol.codec), and a refusal can then
                    # name the request's ref.
                    wait = connection.frames.take()
                    try:
                        message = decode_client(frame)
                        decoded = time.perf_counter()
                    except ProtocolError:
                        if wait:
                            raise _rate_limited(
                                "too many messages from this connection", wait
                            ) from None
                        raise
                    ref = getattr(message, "ref", None)
                    action = actions.get(message.type)
                    if action is not None:
                        action.inc()
                    if wait:
                        raise _rate_limited("too many messages from this connection", wait)
                    lag = self._lag
                    if action is None or lag is None:
                        await self._dispatch(connection, message, decoded)
                    elif lag.admit():
                        try:
                            await self._dispatch(connection, message, decoded)
                        finally:
                            lag.done()
                    else:
                        # Past what the process can serve: refused before any work, and no
                        # strike (the client did nothing wrong).
                        raise ProtocolError(
                            ErrorCode.UNAVAILABLE, BUSY, retry_after_ms=lag.retry_after_ms()
                        )
                    connection.strikes = 0
                except ProtocolError as error:
                    if error.code == ErrorCode.RATE_LIMITED and error.retry_after_ms:
                        # Too fast (the per-board bound, without a retry, is no strike).
                        connection.strikes += 1
                        if connection.strikes > limits.strikes:
                            # Closed with a reason once the refusals queued are sent; a
                            # client that does not read them either is dropped in time.
                            log.info("closing a connection from %s: too fast", address)
                            connection.close(1008, TOO_FAST)
                            loop = asyncio.get_running_loop()
                            loop.call_later(
                                limits.max_queue_age, connection.websocket.transport.abort
                            )
                            struck = True
                            break
                    ref = ref if ref is not None else error.ref
                    refusals[error.code].inc()
                    refusal = ErrorMessage(
                        code=error.code,
                        message=error.message,
                        ref=ref,
                        retry_after_ms=error.retry_after_ms,
                        field=error.field,
                    )
                    old = False
                    if error.code == ErrorCode.UNSUPPORTED_VERSION:
                        refusal = refusal.model_copy(update={"versions": SPOKEN})
                        # A client older than version 6 is told in words its strict
                        # decoder can read.
                        old = (
                            isinstance(message, Hello)
                            and message.versions is None
                            and message.version < min(SUPPORTED_VERSIONS)
                        )
                    connection.send(error_frame(refusal, old=old))
                    if error.code == ErrorCode.RATE_LIMITED and isinstance(message, Hello):
                        # Too many unknown tokens from its address: the connection, good for
                        # nothing else, is closed once told (another costs a new connection,
                        # and those are rate-limited).
                        log.info("closing a connection from %s: unknown tokens", address)
                        connection.close(1008, UNKNOWN_TOKENS)
                        loop = asyncio.get_running_loop()
                        loop.call_later(limits.max_queue_age, connection.websocket.transport.abort)
                        struck = True
                        break
                except (RedisError, OSError) as error:
                    log.warning("store unavailable: %s", error)
                    refusals[ErrorCode.UNAVAILABLE].inc()
                    unavailable = ErrorMessage(
                        code=ErrorCode.UNAVAILABLE,
                        message="the store is unavailable; try again",
                        ref=ref,
                    )
                    connection.send(error_frame(unavailable))
                except Exception:
                    log.exception("internal error")
                    refusals[ErrorCode.INTERNAL].inc()
                    internal = ErrorMessage(
                        code=ErrorCode.INTERNAL, message="internal error", ref=ref
                    )
                    connection.send(error_frame(internal))
                # Kept until the next frame comes, they would hold a kilobyte a connection.
                del frame, message
                # Let other connections in between two frames of this one, even when its
                # frames wait queued and nothing above had to wait (refused ones too).
                await asyncio.sleep(0)
            if struck:
                # What it sent meanwhile is read and thrown away unread, so that the closing
                # handshake completes as soon as its client answers the close.
                async for _ in websocket:
                    pass
        except ConnectionClosed:
            pass
        finally:
            deadline.cancel()
            self.connections.discard(connection)
            counting.dec()
            if counted:
                self._per_address[address] -= 1
                if not self._per_address[address]:
                    del self._per_address[address]
            connection.end()
            if connection.runtime is not None and connection.subscriber is not None:
                try:
                    await connection.runtime.leave(connection.subscriber)
                except (RedisError, OSError) as error:
                    log.warning("presence not logged: %s", error)
                finally:
                    # Its send and close are this connection's methods: a cycle, which
                    # only a deep collection would find (server.heap).
                    connection.subscriber = None
            with contextlib.suppress(asyncio.CancelledError):
                await writer

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

    async def _write(self, connection: Connection) -> None:
        try:
            while True:
                frame = await connection.next_frame()
                if frame is None:
                    break
                await connection.websocket.send(frame)
                connection.sent()
        except ConnectionClosed:
            pass
        finally:
            await connection.websocket.close(*connection.closing)

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
                connection.send(encode(await self.organise(message)))
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
                raise _rate_limited("too many actions from this connection", wait)
        if isinstance(message, Substitute):
            connection.send(encode(await self.substitute(connection, message)))
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
        key = hmac.compare_digest(hello.token.encode(), self.organiser_key.encode())
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
        known = digest in self._welcomed or hello.token in self._robot_tokens
        if not known:
            await self._hold_lookup(address)
        connection.joining = True
        try:
            if hello.token.startswith(EVENT_TOKEN_PREFIX):
                try:
                    await self.events.welcome(connection, hello.token, version)
                except ProtocolError:
                    self._bad_hellos.note(address)
                    raise
            elif session:
                try:
                    expires = await self.console.session_expiry(hello.token)
                except ProtocolError:
                    self._bad_hellos.note(address)
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
                self._bad_hellos.end(address)
                ended = self._lookups_ended.pop(address, None)
                if ended is not None:
                    ended.set()

    def results_token(self, event_id: str, nonce: str) -> str:
        """The token of an event's results link: derived from the organiser key and the
        event's nonce (the store keeps its hash only)."""
        return EVENT_TOKEN_PREFIX + self._derived(f"results:{event_id}:{nonce}")

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

    async def _hold_lookup(self, address: str) -> None:
        """A place among the lookups of tokens not seen lately from ``address``: many at
        once cannot all pass before the first bad one is counted. With no place while
        others are looked up, wait for one of them to end (most tokens are good, and count
        for nothing); with none, the address has had its unknown tokens: refused without
        even looking this one up (a token welcomed lately still gets in: a player behind
        the attacker's router)."""
        while True:
            wait = self._bad_hellos.wait(address, pending=False)
            if wait:
                raise _rate_limited("too many unknown tokens from your address", wait)
            if not self._bad_hellos.begin(address):
                return
            await self._lookups_ended.setdefault(address, asyncio.Event()).wait()

    async def _join(
        self, connection: Connection, hello: Hello, digest: bytes, version: int
    ) -> None:
        """Join the viewer of ``hello``'s token, speaking ``version`` with it."""
        grant = await self.store.grant(hello.token)
        if grant is None:
            self._bad_hellos.note(connection.address)
            raise ProtocolError(ErrorCode.BAD_TOKEN, "this link's token is not known here")
        connection.trusted = hello.token in self._robot_tokens
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
        self._welcomed[digest] = None
        self._welcomed.move_to_end(digest)
        if len(self._welcomed) > WELCOMED_KEPT:
            self._welcomed.popitem(last=False)

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
                    self._analyse_later(match_id, unanalysed)
            return runtime

    # -- organising ----------------------------------------------------------------------

    async def organise(
        self, request: CreateMatch | ImportMatch | SealDeals
    ) -> MatchCreated | DealsSealed:
        """Carry out the organiser's request. One with a ``request_id`` is carried out once:
        sent again (its answer lost with a connection, a command run again), it gets the
        first one's answer, after waiting for it if it is still under way."""
        request_id = request.request_id
        if request_id is None:
            return await self._organise(request, None)
        digest = _request_digest(request)
        while True:
            nonce = secrets.token_hex(16)
            record: dict[str, Any] = {"type": request.type, "digest": digest, "nonce": nonce}
            first = await self.store.begin_creation(request_id, record, CREATION_UNDER_WAY)
            if first is None:
                break
            if first.get("digest") != digest:
                raise ProtocolError(
                    ErrorCode.INVALID_MESSAGE,
                    f"request_id {request_id!r} was used for another request: a new request "
                    "needs a new id",
                )
            answer = await self._answered_before(request, request_id)
            if answer is not None:
                return answer
            # The first one failed meanwhile (it let its id go): this one carries it out.
        try:
            answer = await self._organise(request, nonce)
        except BaseException:
            with contextlib.suppress(RedisError, OSError):
                await self.store.forget_creation(request_id)
            raise
        if isinstance(answer, MatchCreated):
            record["match_id"] = answer.match_id
        else:
            record["seed_commitment"] = answer.seed_commitment
            record["public_form"] = answer.public_form
        await self.store.end_creation(request_id, record | {"done": True}, CREATION_KEPT)
        return answer

    async def _organise(
        self, request: CreateMatch | ImportMatch | SealDeals, nonce: str | None
    ) -> MatchCreated | DealsSealed:
        if isinstance(request, CreateMatch):
            return await self.create_match(request, nonce)
        if isinstance(request, ImportMatch):
            return await self.import_match(request, nonce)
        return await self.seal_deals(request, nonce)

    async def _answered_before(
        self, request: CreateMatch | ImportMatch | SealDeals, request_id: str
    ) -> MatchCreated | DealsSealed | None:
        """The answer to the creation ``request_id`` made before (waiting while it is under
        way); None when it failed meanwhile."""
        deadline = time.monotonic() + CREATION_UNDER_WAY
        while True:
            record = await self.store.creation(request_id)
            if record is None:
                return None
            if record.get("done"):
                break
            if time.monotonic() > deadline:
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE,
                    f"the request {request_id!r} is still under way: send it again later",
                )
            await asyncio.sleep(0.2)
        nonce = str(record["nonce"])
        if isinstance(request, SealDeals):
            return DealsSealed(
                seal=self._seal_of(nonce),
                seed_commitment=str(record["seed_commitment"]),
                public_form=record.get("public_form"),
                ref=request.ref,
            )
        config = await self.store.config(str(record["match_id"]))
        if config is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"the match request {request_id!r} made is gone from the store",
            )
        nonces = await self.store.link_nonces(config.match_id)

        def again(key: str) -> str:
            # A link changed since (a new link for a seat) is given as it is now.
            return self.link_token(config.match_id, key, nonces.get(key, nonce))

        return self._created(config, again, request.ref)

    def _tokens(self, match_id: str, nonce: str) -> Callable[[str], str]:
        """The token of each link of a new match, by its key (``"1N"``, ``"spectator"``,
        ``"director"``): derived from the organiser key and the match's ``nonce`` (drawn at
        random, or a creation's that may be asked for again), so that the same answer, and
        the organiser's ``get_links``, can be given again while the store keeps only the
        tokens' hashes and the nonces."""
        return lambda key: self.link_token(match_id, key, nonce)

    def link_token(self, match_id: str, key: str, nonce: str) -> str:
        """The token of the match's link ``key`` (``"1N"``, ``"spectator"``, ``"director"``)
        made with ``nonce``: derived from the organiser key, never beginning as a session's
        or a results link's token does (the hello tells those apart by how they begin)."""
        return self._derived(f"link:{match_id}:{key}:{nonce}", RESERVED_PREFIXES)

    def _seal_of(self, nonce: str) -> str:
        """The seal of a ``seal_deals`` that may be asked for again (never starts with "-":
        it is typed after --seal on a command line)."""
        return self._derived(f"seal:{nonce}", ("-",))

    def _derived(self, message: str, unlike: tuple[str, ...] = (), size: int = 32) -> str:
        """A token-like string derived from the organiser key (``size`` characters, at most
        43; 32 as a drawn token's) that begins with none of ``unlike`` (derived again,
        counted, until so)."""
        key = self.organiser_key.encode()
        derived = message
        counter = 0
        while True:
            digest = hmac.new(key, derived.encode(), hashlib.sha256).digest()
            token = base64.urlsafe_b64encode(digest).decode()[:size]
            if not token.startswith(unlike):
                return token
            counter += 1
            derived = f"{message}:{counter}"

    async def create_match(self, request: CreateMatch, nonce: str | None = None) -> MatchCreated:
        """Create a match: its movement, boards from the organiser's PBN or dealt here, their
        double-dummy analysis, a link for each player, the robots' players (and for the
        robot-table format the robots' table 2, played now, card for card)."""
        robot_table = request.format == "robot-table"
        movement = movement_for(request)
        count = len(movement.boards)
        first = movement.round(movement.rounds[0])
        robots = robot_seats(request.robots)
        listed = _roster(request.roster)
        for key, named in (
            [(f"{t}{letter}", "robots") for t, letter in robots]
            + [(key, "roster") for key in listed]
            + [(key, "names") for key in request.names]
        ):
            if int(key[0]) > len(first):
                raise _refused(
                    f"seat {key}: this match has {len(first)} table(s) in its first round", named
                )
        for key in request.robot_levels:
            if int(key[-1] if key[0] == "t" else key[0]) > len(first):
                raise _refused(
                    f"robot level for {key}: this match has {len(first)} table(s) in its "
                    "first round",
                    "robot_levels",
                )
        levelled = [key[-1] if key[0] == "t" else key[0] for key in request.robot_levels]
        if robot_table and any(table == 2 for table, _ in robots):
            raise _refused("table 2 of a robot-table match is the robots' already", "robots")
        if robot_table and "2" in levelled:
            raise _refused(
                "table 2 of a robot-table match plays as the seeds say (RULES.md 6.2): "
                "it has no robot level to set",
                "robot_levels",
            )
        mixed = mixed_partnership(movement, request.robot_level, request.robot_levels)
        if mixed is not None:
            raise _refused(mixed, "robot_levels")
        for names, named in ((listed, "roster"), (request.names, "names")):
            if robot_table and any(key.startswith("2") for key in names):
                raise _refused("table 2 of a robot-table match has no players to name", named)
        if (request.seal is None) != (request.public_value is None):
            raise _refused(
                "a sealed seed needs its public value, and back",
                "public_value" if request.seal is not None else "seal",
            )
        if request.seal is not None and request.deals_pbn is not None:
            raise _refused(
                "boards come from the organiser's PBN or from a sealed seed, not both", "seal"
            )
        seed = public = form = None
        if request.seal is not None and request.public_value is not None:
            no_seal = _refused(
                "no such seal (unknown, used already, or older than "
                f"{SEAL_DAYS} days): ask for a new one with seal_deals",
                "seal",
            )
            kept = await self.store.read_seal(request.seal)
            if kept is None:
                raise no_seal
            if "\n" in kept:
                seed, form_text = kept.split("\n", 1)
                form = PublicForm.parse(form_text)
                try:  # before the seal is used up: a refused value leaves it for a mended one
                    public = form.canonical(request.public_value)
                except PublicValueRefused as error:
                    raise _refused(str(error), "public_value") from None
            else:
                # Sealed without a form (a client that sent none, or a seal from before
                # forms): the value as written, and the match says it had no form.
                seed, public = kept, request.public_value
            if await self.store.take_seal(request.seal) != kept:
                raise no_seal
        try:
            if request.deals_pbn is not None:
                boards = boards_from_pbn(request.deals_pbn, count)
            elif seed is not None and public is not None:
                boards = seeded_boards(seed, public, count)
            else:
                boards = dealt_boards(count)
            table2 = await asyncio.to_thread(robot_table_log, boards) if robot_table else None
        except BridgeError as error:
            raise ProtocolError(ErrorCode.BAD_DEALS, str(error), field="deals_pbn") from None
        movement = movement.renumbered([b.number for b in boards])
        match_id = secrets.token_hex(8)
        deals = _commit(boards, seed, public, form)
        names = listed | dict(request.names)
        levels = tuple(sorted(request.robot_levels.items()))
        config = MatchConfig(
            match_id,
            request.team_a,
            request.team_b,
            boards,
            request.spectators,
            request.format,
            tuple(sorted(robots)),
            tuple(sorted(names.items())),
            request.chat,
            request.review_seconds,
            request.robot_delay_ms,
            movement=movement,
            held=held_rounds(request, movement),
            imposed=request.imposed_auction,
            deals_salt=deals.salt,
            deals_commitment=deals.commitment(),
            deals_seed=deals.seed,
            deals_public=deals.public,
            deals_form=None if form is None else form.text(),
            robot_level=request.robot_level,
            robot_levels=levels,
            gather=request.wait_for_players,
            board_ms=(
                None
                if request.minutes_per_board is None
                else round(request.minutes_per_board * 60_000)
            ),
            disputes=request.disputed_claims == "director",
            face_down=request.face_down_lead,
        )
        for table, letter in robots:
            names.setdefault(f"{table}{letter}", config.robot_name(f"{table}{letter}"))
        config = replace(config, names=tuple(sorted(names.items())))
        return await self._open_match(config, table2, request.ref, nonce)

    async def seal_deals(self, request: SealDeals, nonce: str | None = None) -> DealsSealed:
        """Draw a secret seed for a match's boards and commit to it and to the form of the
        public value (see SealDeals)."""
        form = None
        if request.public_form is not None:
            try:
                form = PublicForm.parse(request.public_form)
            except ParseError as error:
                raise ProtocolError(ErrorCode.INVALID_MESSAGE, str(error)) from None
        seed = secrets.token_hex(32)
        if nonce is not None:
            seal = self._seal_of(nonce)
        else:
            seal = secrets.token_urlsafe(24)
            while seal.startswith("-"):  # typed after --seal on a command line: not an option
                seal = secrets.token_urlsafe(24)
        kept = seed if form is None else f"{seed}\n{form.text()}"
        await self.store.seal(seal, kept, SEAL_DAYS * 86_400)
        return DealsSealed(
            seal=seal,
            seed_commitment=seed_commitment(seed, form),
            public_form=None if form is None else form.text(),
            ref=request.ref,
        )

    async def import_match(self, request: ImportMatch, nonce: str | None = None) -> MatchCreated:
        """Load a team match played elsewhere as a finished match: its boards and players
        from the record, then every call, card and claim of both tables acted here in turn,
        as its players would have (so its logs, comparisons and swings are made as any
        match's). The record is checked whole through the rules before anything is stored."""
        try:
            played = read_played_match(request.format, request.record)
        except BridgeError as error:
            raise ProtocolError(ErrorCode.BAD_RECORD, str(error)) from None
        if len(played.boards) > MAX_IMPORTED_BOARDS:
            raise ProtocolError(
                ErrorCode.BAD_RECORD,
                f"{played.name}: {len(played.boards)} boards; a match holds at most "
                f"{MAX_IMPORTED_BOARDS} (split the record)",
            )
        boards = tuple(
            BoardSpec(b.number, b.dealer, b.vulnerability, b.deal) for b in played.boards
        )
        names: dict[str, str] = {}
        for table, sitting in ((1, played.boards[0].open), (2, played.boards[0].closed)):
            for seat, name in zip(Seat, sitting.names, strict=True):
                if name := " ".join((name or "").split())[:40]:
                    names[f"{table}{seat.letter}"] = name
        deals = _commit(boards)
        config = MatchConfig(
            secrets.token_hex(8),
            played.team_a[:40],
            played.team_b[:40],
            boards,
            request.spectators,
            "teams",
            names=tuple(sorted(names.items())),
            chat="off",
            review_seconds=0,
            movement=default_movement("teams", boards),
            deals_salt=deals.salt,
            deals_commitment=deals.commitment(),
        )
        if request.format == "lin":
            await self.store.keep_source(config.match_id, request.record)
        created = await self._open_match(config, None, request.ref, nonce)
        runtime = await self.runtime(config.match_id)
        for board, table, sitting in played_tables(played):
            for kind, seat, what, alert in sitting.actions(board.deal, board.dealer):
                actor = Player(config.player_of(f"{table}{seat.letter}"))
                if kind == "call":
                    text = None if alert is None else " ".join(alert.split())[:300] or "alerted"
                    await runtime.act(actor, MakeCall(call=str(what), alert=text))
                elif kind == "card":
                    await runtime.act(actor, PlayCard(card=str(what)))
                else:
                    assert isinstance(what, int)
                    await runtime.act(actor, MakeClaim(tricks=what))
                    for decider in (seat.next, seat.partner.next):
                        opponent = Player(config.player_of(f"{table}{decider.letter}"))
                        await runtime.act(opponent, AnswerClaim(accept=True))
        log.info("match %s imported: %s, %d boards", config.match_id, played.name, len(boards))
        return created

    async def _open_match(
        self,
        config: MatchConfig,
        table2: tuple[list[StoredEvent], dict[int, dict[str, Any]]] | None,
        ref: int | None,
        nonce: str | None = None,
    ) -> MatchCreated:
        """Store a new match: its players', spectators' and director's tokens (``nonce``:
        derived, :meth:`_tokens`), its first boards' starts (and the robots' table 2,
        ``table2``); start its analysis and its robots; the organiser's answer."""
        match_id = config.match_id
        nonce = nonce or secrets.token_hex(16)
        config = replace(config, created_at=now_ms())
        tokens = self._tokens(match_id, nonce)
        drawn: dict[str, str] = {}

        def token_of(key: str) -> str:
            drawn[key] = drawn.get(key) or tokens(key)
            return drawn[key]

        created = self._created(config, token_of, ref)
        robot_nonces = {
            f"{table}{letter}": secrets.token_hex(8) for table, letter in sorted(config.robots)
        }
        grants: dict[str, Grant] = {}
        for key, token in drawn.items():
            if key == "spectator":
                grants[token] = Grant(match_id, "spectator")
            elif key == "director":
                grants[token] = Grant(match_id, "director")
            else:
                grants[token] = Grant(match_id, "player", int(key[0]), key[1])
        for key, robot_nonce in robot_nonces.items():
            robot = self.robot_token(match_id, key, robot_nonce)
            grants[robot] = Grant(match_id, "player", int(key[0]), key[1])
        logs = {} if table2 is None else {2: table2[0]}
        starts = fold(config, logs, ()).starts(now_ms())
        link_nonces = dict.fromkeys(drawn, nonce)
        await self.store.create_match(config, grants, starts, robot_nonces, table2, link_nonces)
        log.info("match %s created: %s, %d boards", match_id, config.format, len(config.boards))
        self._analyse_later(config.match_id, config.boards)
        if robot_nonces:
            await self._start_robots(config, robot_nonces)
        return created

    def _created(
        self, config: MatchConfig, token_of: Callable[[str], str], ref: int | None
    ) -> MatchCreated:
        """The organiser's answer for ``config``: a link for each seat of the first round
        that is not the server's robot's, the spectators' (unless off), the director's, each
        with the token ``token_of(key)``."""
        commitment = config.deals_commitment
        assert commitment is not None  # every match made here commits to its deals
        movement = config.movement
        robots = set(config.robots)
        names = dict(config.names)
        base = self.public_url
        seats: list[SeatLink] = []
        for sitting in movement.round(movement.rounds[0]):
            if config.format == "robot-table" and sitting.table == 2:
                continue
            for seat in Seat:
                key = f"{sitting.table}{seat.letter}"
                player = sitting.player(seat)
                robot = (sitting.table, seat.letter) in robots
                seats.append(
                    SeatLink(
                        player=player,
                        table=sitting.table,
                        seat=seat.letter,
                        team=config.team_of(sitting.table, seat) if config.teams else None,
                        competitor=movement.competitors[player],
                        link=None if robot else f"{base}/play#{token_of(key)}",
                        robot=robot,
                        name=names.get(key),
                    )
                )
        spectator = None
        if config.spectators != "off":
            spectator = f"{base}/watch#{token_of('spectator')}"
        return MatchCreated(
            match_id=config.match_id,
            seats=seats,
            spectator=spectator,
            director=f"{base}/direct#{token_of('director')}",
            deals_commitment=commitment,
            ref=ref,
        )

    async def substitute(self, connection: Connection, request: Substitute) -> Substituted:
        """The director gives a seat a new player: a new link, or the server's robot."""
        assert connection.runtime is not None
        assert connection.subscriber is not None
        runtime = connection.runtime
        player = runtime.player_at(request.table, Seat.parse(request.seat))
        return await self._seat_anew(
            runtime, connection.subscriber.viewer, player, request.robot, request.ref
        )

    async def new_link(self, request: NewLink) -> Substituted:
        """The organiser's new link for a player (``new_link``): the director's substitution
        of a person for the player, by the player's number."""
        runtime = await self.runtime(request.match_id)
        if request.player not in runtime.config.movement.competitors:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"match {request.match_id} has no player {request.player}",
                field="player",
            )
        return await self._seat_anew(
            runtime, Watcher("director"), request.player, False, request.ref
        )

    async def _seat_anew(
        self, runtime: MatchRuntime, viewer: Viewer, player: int, robot: bool, ref: int | None
    ) -> Substituted:
        """Give ``player`` a new token: the server's robot (``robot``), or a person with a new
        link; the old token stops working."""
        match_id = runtime.config.match_id
        key = runtime.config.first_seat(player)
        robot_nonce = link_nonce = None
        if robot:
            robot_nonce = secrets.token_hex(8)
            token = self.robot_token(match_id, key, robot_nonce)
        else:
            link_nonce = secrets.token_hex(16)
            token = self.link_token(match_id, key, link_nonce)
        await runtime.act_substitute(viewer, player, token, robot_nonce, link_nonce)
        old = self.robots.pop((match_id, key), None)
        if old is not None:
            old.cancel()
        if robot_nonce is not None:
            await self._start_robots(runtime.config, {key: robot_nonce})
        link = None if robot else f"{self.public_url}/play#{token}"
        at = seated(runtime.state, player)
        assert at is not None  # act_substitute refuses a player who does not play now
        return Substituted(player=player, table=at.table, seat=at.seat.letter, link=link, ref=ref)

    # -- the double-dummy analysis -------------------------------------------------------

    def _analyse_later(self, match_id: str, boards: tuple[BoardSpec, ...]) -> None:
        """Have the analyst work out the boards' double-dummy analysis, then log it in the
        match: a match is created without waiting for it."""
        if match_id in self._analysing or self.stopping:
            return
        task = asyncio.create_task(self._analyse(match_id, boards), name=f"analysis {match_id}")
        self._analysing[match_id] = task

        def forget(_task: asyncio.Task[None]) -> None:
            if self._analysing.get(match_id) is task:
                del self._analysing[match_id]

        task.add_done_callback(forget)

    async def _analyse(self, match_id: str, boards: tuple[BoardSpec, ...]) -> None:
        """Analyse the boards under the match's analysis lease and log the analysis, in
        whatever state the match is (one that is over gets it too). Another process that
        holds the match (it loaded it too) waits while the lease's holder lives, and takes
        over at its first look after the holder died or gave the lease up. What fails (the
        store, the worker) is tried again a look later, until the analysis is logged, here
        or by another process; the worker at most ANALYSIS_ATTEMPTS times."""
        process = self.fanout.process
        failures = 0
        while True:
            try:
                alive = await self.fanout.alive()
                if await self.store.claim_analysis(match_id, process, alive, ANALYSIS_LEASE_TTL):
                    logged = False
                    try:
                        found = await self.analyst.analyse(boards)
                        runtime = await self.runtime(match_id)
                        await runtime.note_analyses(found)  # once, whoever else logs it
                        logged = True
                    finally:
                        with contextlib.suppress(RedisError, OSError):
                            if logged:  # a process that waited must not work it out again
                                await self.store.analysis_logged(
                                    match_id, process, ANALYSIS_LOGGED_FOR
                                )
                            else:
                                await self.store.release_analysis(match_id, process)
                    return
            except AnalysisError as error:
                failures += 1
                if failures >= ANALYSIS_ATTEMPTS:
                    log.warning("match %s: analysis not logged, given up: %s", match_id, error)
                    return
                log.warning("match %s: analysis not logged, trying again: %s", match_id, error)
            except ProtocolError as error:
                if error.code == ErrorCode.BAD_TOKEN:
                    return  # the match is no longer in the store
                log.warning("match %s: analysis not logged, trying again: %s", match_id, error)
            except (RedisError, OSError) as error:
                log.warning("match %s: analysis not logged, trying again: %s", match_id, error)
            await asyncio.sleep(ANALYSIS_LOOK)
            # Logged meanwhile (by the lease's holder), or only some boards still to come?
            with contextlib.suppress(RedisError, OSError, ProtocolError):  # then tried as it was
                boards = await (await self.runtime(match_id)).unanalysed_now()
            if not boards:
                return

    # -- the server's robots -------------------------------------------------------------

    def robot_delay_for(self, config: MatchConfig, seat: str) -> float:
        """How long the robot of the player whose first-round seat is ``seat`` (``"1N"``)
        waits before acting, as every robot of the match: nothing in a match of robots only
        (nobody plays along), else the match's pace or the server's; a table of robots too,
        which spectators watch beside the people's (it also starts a board only once a
        table of people has: :meth:`MatchState.awaits_people`)."""
        if not config.has_people():
            return 0.0
        if config.robot_delay_ms is not None:
            return config.robot_delay_ms / 1000
        return self.robot_delay

    def robot_token(self, match_id: str, seat: str, nonce: str) -> str:
        """The token of a seat the server's robot plays: derived from the organiser key, so
        that the store keeps no usable token (only the seat's nonce, and the token's hash)."""
        return self._derived(f"robot:{match_id}:{seat}:{nonce}", RESERVED_PREFIXES, size=43)

    async def _start_robots(self, config: MatchConfig, nonces: dict[str, str]) -> None:
        """Run a robot for each of a match's robot seats that no other process plays, through
        the protocol like anyone."""
        from clients.client import Link
        from clients.robot import Robot

        match_id = config.match_id
        for seat, nonce in sorted(nonces.items()):
            if self.stopping:
                return
            if (match_id, seat) in self.robots:
                continue
            try:
                mine = await self.store.claim_robot(
                    match_id, seat, self.fanout.process, ROBOT_LEASE
                )
            except (RedisError, OSError) as error:
                log.warning("robot %s %s not started: %s", match_id, seat, error)
                continue
            if not mine:
                continue  # another process plays it
            token = self.robot_token(match_id, seat, nonce)
            self._robot_tokens.add(token)
            level = config.robot_level_of(seat)
            robot = Robot(
                Link(self.ws_url, token),
                name=f"robot {match_id} {seat}",
                delay=self.robot_delay_for(config, seat),
                level=level,
                # A strong robot's thought would take the cores from the event loop: it
                # thinks in a worker process. A seed robot's takes a few milliseconds.
                think=self.thinker.think if level == "strong" else None,
                headers={ROBOT_HEADER: self._robot_pass},
                keep_messages=self.keep_robot_messages,
            )
            self.robot_players.append(robot)
            task = asyncio.create_task(self._run_robot(robot), name=f"robot {match_id} {seat}")
            self.robots[(match_id, seat)] = task
            task.add_done_callback(functools.partial(self._robot_done, (match_id, seat)))

    def _robot_done(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        if self.robots.get(key) is task:
            del self.robots[key]

    @staticmethod
    async def _run_robot(robot: object) -> None:
        from clients.robot import Robot

        assert isinstance(robot, Robot)
        try:
            await robot.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s stopped", robot.name)
        finally:
            await robot.close()

    async def resume_robots(self) -> None:
        """Start the robots of every stored match that has robots, is not over, and whose
        robots no process plays (this one starting, or the one that played them stopped)."""
        for match_id, nonces in (await self.store.robot_matches()).items():
            if all((match_id, seat) in self.robots for seat in nonces):
                continue
            config = await self.store.config(match_id)
            if config is not None:
                await self._start_robots(config, nonces)

    async def _keep_robots(self) -> None:
        """Every heartbeat, renew the leases on the robots this process plays, in one go (a
        robot whose lease is gone stops: its seat was given away, or another process took it
        over after this one stalled), and every few, take up the robots nobody plays."""
        beats = 0
        while not await closing_within(self._closing, HEARTBEAT):
            beats += 1
            try:
                playing = sorted(self.robots)
                if playing:
                    held = await self.store.renew_robots(playing, self.fanout.process, ROBOT_LEASE)
                    for key, still in zip(playing, held, strict=True):
                        task = self.robots.get(key)
                        if not still and task is not None:
                            log.info("robot %s %s: lease lost; stopping it", *key)
                            task.cancel()
                if beats % 2 == 0:
                    await self.resume_robots()
            except (RedisError, OSError) as error:
                log.warning("robot leases: store unavailable: %s", error)

"""An async, typed client of the duplicate server: what robots, tools, tests and third
parties use to play through the protocol.

    client = await Client.connect("http://127.0.0.1:8765/play#TOKEN")
    view = await client.wait_for(lambda v: v.board is not None and "1NT" in v.board.legal)
    await client.call("1NT")
    await client.close()

Every update is checked for sequence: each must be the next number (or a snapshot), and its
``changes`` are applied to the view held (:mod:`protocol.changes`): :attr:`Client.view` is
always the whole view. After a dropped connection, :meth:`Client.reconnect` resumes from the
last number seen.

Every action (a call, a card, a chat line...) carries an ``action_id`` of its own. When the
connection drops after an action was sent and before its answer came, the action is *in
doubt* (:attr:`Client.in_doubt`): the server may or may not have applied it. After
:meth:`Client.reconnect`, :meth:`Client.resend` sends each again with the same id: the
server applies it if it never got it, and otherwise answers ``ack`` with ``repeated``
without applying it twice.

A client connected with ``heartbeat=True`` asks the server for heartbeats (SPEC.md, section
2): it answers each of the server's ``heartbeat``s, and closes a connection that has brought
nothing for ``HEARTBEAT_SILENCE_S`` seconds (its traffic silently dropped), so that waiting
for it fails at once and a :meth:`Client.reconnect` can follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from protocol.changes import ChangeError, patch
from protocol.codec import MAX_SERVER_FRAME, decode_server, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    HEARTBEAT_SILENCE_S,
    PROTOCOL_VERSION,
    Ack,
    AdjustEvent,
    AdjustScore,
    AnswerClaim,
    AnswerUndo,
    ArchiveMatch,
    AskAboutCall,
    AssignResult,
    BoardCompared,
    BoardRecord,
    CallDirector,
    ChatMode,
    CloseCalls,
    CloseSession,
    CreateEvent,
    CreateMatch,
    DealsSealed,
    DecideWithdrawal,
    ErrorMessage,
    EventCreated,
    EventList,
    EventPairing,
    EventTeamSpec,
    EventView,
    ExplainCall,
    FaceLead,
    Format,
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
    MatchArchived,
    MatchCreated,
    MatchLinks,
    MatchList,
    MatchRecord,
    Message,
    NewLink,
    NextBoard,
    OpenSession,
    Ping,
    PlayCard,
    PlayerView,
    Pong,
    RobotLevel,
    Rule,
    Scoring,
    SealDeals,
    SeeCalls,
    SendChat,
    ServerMessage,
    SessionClosed,
    SessionOpened,
    SetName,
    Snapshot,
    SpectatorMode,
    StartEventRound,
    StartRound,
    Substitute,
    Substituted,
    TableAction,
    Undo,
    Update,
    View,
    VoidBoard,
    WatchView,
    Welcome,
    WithdrawClaim,
    WithdrawConcession,
)

__all__ = ["Client", "ClientError", "Link"]

T = TypeVar("T")

VIEW: TypeAdapter[PlayerView | WatchView] = TypeAdapter(View)

ACTIONS: tuple[type[Message], ...] = get_args(TableAction)
"""The messages that carry an ``action_id``."""


UNKNOWN_OUTCOME = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL})
"""Refusals after which the server cannot say whether the action was stored."""
NO_MOMENT = object()
"""An action in doubt whose moment is not known (put there by hand): sent again as it is."""
LOOSE_ACTIONS = frozenset({"chat", "ask", "explain", "call_director", "set_name"})
"""Actions that stay meant while the board lasts, whatever else happens at the table."""


class ClientError(Exception):
    """The server refused a request (``code`` is its :class:`ErrorCode`), or the link or
    connection failed (``code`` ``"bad_link"``; ``"closed"``: the connection closed or
    could not open; ``"refused"``: the server turned the connection away, HTTP 503, with
    ``retry_after_ms`` from its ``Retry-After``), or an action in doubt was not sent again
    (``"moved_on"``, :meth:`Client.resend`)."""

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        retry_after_ms: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after_ms = retry_after_ms
        """With ``rate_limited``: when to try again."""
        self.field = field
        """The refused message's field the refusal concerns, when the server names one."""


@dataclass(frozen=True, slots=True)
class Link:
    """A join link, ``http://HOST:PORT/play#TOKEN``: where to connect, and the token."""

    ws_url: str
    token: str

    @classmethod
    def parse(cls, link: str) -> Link:
        parts = urlsplit(link)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
            raise ClientError("bad_link", f"not a join link: {link!r}")
        if not parts.fragment:
            raise ClientError("bad_link", f"the link has no token after '#': {link!r}")
        scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
        # A server behind a path prefix (--public-url https://host/bridge) keeps it.
        prefix = parts.path.rstrip("/")
        for page in ("/play", "/watch", "/direct", "/event", "/organise", "/ws"):
            prefix = prefix.removesuffix(page)
        return cls(f"{scheme}://{parts.netloc}{prefix}/ws", parts.fragment)


class Client:
    """One connection to the server, speaking for one link's token."""

    def __init__(
        self,
        link: Link,
        name: str = "duplicate-client",
        robot: bool = False,
        headers: Mapping[str, str] | None = None,
        heartbeat: bool = False,
    ) -> None:
        self.link = link
        self.name = name
        self.robot = robot
        """Says to the server that a program plays (the seat is shown as a robot's)."""
        self.heartbeat = heartbeat
        """Asks the server for heartbeats, and closes a connection silent for too long."""
        self._heard_at = 0.0
        """When the connection last brought a frame (by the event loop's clock)."""
        self._watchdog: asyncio.Task[None] | None = None
        self.headers = dict(headers or {})
        """Extra headers of the opening HTTP request (a proxy's, say)."""
        self.welcome: Welcome | None = None
        self._skew_ms = 0
        """The server's clock less this machine's, as the last welcome told it."""
        self.view: PlayerView | WatchView | None = None
        self.match_list: MatchList | None = None
        """The organiser's latest list of matches (:meth:`list_matches`)."""
        self.event: EventView | None = None
        """The latest event received: an answer, or (signed in with an event's results
        link) the event sent again whenever it changes."""
        self.seq = 0
        self.received: list[ServerMessage] = []
        """Every message received, in order (kept for audits and debugging). An update is
        kept with its ``view`` filled in: the whole view after it, its changes applied."""
        self._data: dict[str, Any] | None = None
        """The view as plain data, where the next update's changes apply."""
        self._websocket: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._refs = itertools.count(1)
        self._pending: dict[int, asyncio.Future[ServerMessage]] = {}
        self._changed = asyncio.Condition()
        self._closed_error: ClientError | None = None
        self._action_prefix = secrets.token_hex(4)
        self._action_ids = itertools.count(1)
        self.in_doubt: dict[str, Any] = {}
        """Actions sent without an answer before the connection dropped, by ``action_id``:
        :meth:`resend` them once reconnected."""
        self._moments: dict[str, object] = {}
        """For each action in doubt, the moment of the table it was meant for."""

    @classmethod
    async def connect(
        cls,
        link: str | Link,
        *,
        last_seq: int | None = None,
        view: PlayerView | WatchView | None = None,
        name: str = "duplicate-client",
        robot: bool = False,
        headers: Mapping[str, str] | None = None,
        heartbeat: bool = False,
    ) -> Client:
        """Connect, say hello, and return once the view is up to date (the first snapshot, or
        every update after ``last_seq`` when resuming: ``view`` is the view that update left,
        which the updates after it change). ``robot``: a program plays the seat;
        ``headers``: extra headers of the opening request; ``heartbeat``: ask for heartbeats
        (the connection then closes within seconds of going silent)."""
        if (last_seq is None) != (view is None):
            raise ValueError("resuming takes both the last sequence number and its view")
        client = cls(link if isinstance(link, Link) else Link.parse(link), name, robot, headers)
        client.heartbeat = heartbeat  # (a subclass's constructor need not know it)
        if view is not None:
            client.view = view
            client._data = view.model_dump(mode="json")
        await client._open(last_seq)
        return client

    async def _open(self, last_seq: int | None) -> None:
        self._closed_error = None
        try:
            self._websocket = await connect(
                self.link.ws_url,
                max_size=MAX_SERVER_FRAME,
                compression=None,
                open_timeout=10,
                additional_headers=self.headers or None,
            )
        except InvalidStatus as refused:
            # The server said no before the WebSocket opened: full, or too many connections
            # from here (HTTP 503, with the reason in the body).
            response = refused.response
            reason = response.body.decode("utf-8", "replace").strip()[:200]
            after = response.headers.get("Retry-After", "")
            retry_after_ms = int(after) * 1000 if after.isdigit() and len(after) < 6 else None
            raise ClientError("refused", reason or str(refused), retry_after_ms) from None
        except InvalidHandshake as failed:
            # The server went away in the middle of the opening handshake (a restart).
            raise ClientError("closed", f"could not connect: {failed}") from None
        hello = Hello(
            version=PROTOCOL_VERSION,
            versions=[PROTOCOL_VERSION],
            token=self.link.token,
            last_seq=last_seq,
            client=self.name,
            robot=self.robot,
            heartbeat=self.heartbeat,
        )
        try:
            await self._websocket.send(encode(hello))
            async with asyncio.timeout(10):
                reply = decode_server(await self._websocket.recv())
        except ConnectionClosed as closed:
            raise ClientError("closed", f"closed before the welcome: {closed}") from None
        if isinstance(reply, ErrorMessage):
            await self._websocket.close()
            raise ClientError(reply.code, reply.message, reply.retry_after_ms)
        if not isinstance(reply, Welcome):
            raise ClientError("unexpected", f"expected welcome, got {reply.type}")
        self.welcome = reply
        if reply.now is not None:
            self._skew_ms = reply.now - int(time.time() * 1000)
        self.received.append(reply)
        if last_seq is not None and last_seq > self.seq:
            self.seq = last_seq  # a new client resuming: the next update is last_seq + 1
        self._heard_at = asyncio.get_running_loop().time()
        self._reader = asyncio.create_task(self._read(self._websocket))
        if self.heartbeat:
            self._watchdog = asyncio.create_task(self._watch(self._websocket))
        if reply.seq > self.seq:
            # What this viewer missed (or its first snapshot) follows the welcome at once:
            # return with the view up to date.
            await self.wait_for(lambda _view: self.seq >= reply.seq or None, timeout=30)

    async def reconnect(self) -> None:
        """Drop the connection (if any) and resume from the last update seen."""
        await self._drop()
        await self._open(self.seq)

    async def close(self) -> None:
        await self._drop()

    async def _drop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
            self._watchdog = None
        if self._websocket is not None:
            await self._websocket.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._websocket = None
        self._reader = None

    # -- receiving -------------------------------------------------------------------------

    async def _watch(self, websocket: ClientConnection) -> None:
        """With heartbeats, the server sends something every few seconds: a connection that
        brought nothing for ``HEARTBEAT_SILENCE_S`` is dead, whatever its socket says. It is
        aborted (a closing handshake could wait for minutes), which ends the reader."""
        loop = asyncio.get_running_loop()
        while self._reader is not None and not self._reader.done():
            silent = loop.time() - self._heard_at
            if silent >= HEARTBEAT_SILENCE_S:
                self._closed_error = ClientError(
                    "closed", f"the server was silent for {silent:.0f} s"
                )
                websocket.transport.abort()
                return
            await asyncio.sleep(HEARTBEAT_SILENCE_S - silent)

    async def _read(self, websocket: ClientConnection) -> None:
        try:
            async for frame in websocket:
                self._heard_at = asyncio.get_running_loop().time()
                try:
                    message = decode_server(frame)
                except ProtocolError as unknown:
                    if unknown.code == ErrorCode.UNKNOWN_TYPE:
                        continue  # a message of a newer server: ignored, as SPEC.md says
                    raise
                if isinstance(message, Heartbeat):
                    await websocket.send(encode(HeartbeatAnswer(ref=message.ref)))
                    continue
                self.received.append(message)
                if isinstance(message, Update):
                    is_snapshot = any(isinstance(e, Snapshot) for e in message.events)
                    if message.seq != self.seq + 1 and not (
                        is_snapshot and message.seq >= self.seq
                    ):
                        raise ClientError("bad_sequence", f"update {message.seq} after {self.seq}")
                    message = self._apply(message)
                    self.seq = message.seq
                    self.received[-1] = message
                    self.view = message.view
                    async with self._changed:
                        self._changed.notify_all()
                    continue
                if isinstance(message, MatchList):
                    self.match_list = message
                    async with self._changed:
                        self._changed.notify_all()
                if isinstance(message, EventView):
                    self.event = message
                    async with self._changed:
                        self._changed.notify_all()
                ref = getattr(message, "ref", None)
                future = self._pending.pop(ref, None) if ref is not None else None
                if future is not None and not future.done():
                    future.set_result(message)
        except ConnectionClosed:
            pass
        except ClientError as refused:
            self._closed_error = refused
        finally:
            closed = self._closed_error or ClientError("closed", "the connection is closed")
            self._closed_error = closed
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(closed)
            self._pending.clear()
            async with self._changed:
                self._changed.notify_all()

    def _apply(self, update: Update) -> Update:
        """The update with its ``view`` the whole view after it. Changes that do not fit
        the view held close the connection with ``bad_changes`` and drop the view: the next
        :meth:`reconnect` starts afresh (a snapshot)."""
        if update.view is not None:
            self._data = update.view.model_dump(mode="json")
            return update
        compared = [
            e.comparison.model_dump(mode="json")
            for e in update.events
            if isinstance(e, BoardCompared)
        ]
        try:
            if self._data is None:
                raise ChangeError("changes to a view never received")
            patch(self._data, [c.model_dump(mode="json") for c in update.changes], compared)
            view = VIEW.validate_python(self._data)
        except (ChangeError, ValidationError) as wrong:
            self._data, self.view, self.seq = None, None, 0
            raise ClientError("bad_changes", f"update {update.seq}: {wrong}") from None
        return update.model_copy(update={"view": view})

    @property
    def is_connected(self) -> bool:
        return self._reader is not None and not self._reader.done()

    def server_now(self) -> int:
        """Now by the server's clock (milliseconds since the epoch), as its ``welcome`` told
        it: the moments of the views (a round clock's ``ends_at``) are the server's."""
        return int(time.time() * 1000) + self._skew_ms

    async def wait_for(
        self, predicate: Callable[[Any], T | None], timeout: float | None = 10.0
    ) -> T:
        """Wait until ``predicate(view)`` is truthy (the view is the latest one) and return
        what it returned. Raises TimeoutError, or ClientError if the connection closes."""
        return await self._until(lambda: self.view, predicate, timeout)

    async def _until(
        self,
        latest: Callable[[], Any],
        predicate: Callable[[Any], T | None],
        timeout: float | None,
    ) -> T:
        """Wait until ``predicate(latest())`` is truthy (``latest()`` not None), looked at
        whenever something came, and return what it returned."""

        async def waiting() -> T:
            async with self._changed:
                while True:
                    value = latest()
                    if value is not None:
                        result = predicate(value)
                        if result:
                            return result
                    if not self.is_connected:
                        raise self._closed_error or ClientError("closed", "not connected")
                    await self._changed.wait()

        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation.
        async with asyncio.timeout(timeout):
            return await waiting()

    # -- requests --------------------------------------------------------------------------

    async def request(
        self, message_of: Callable[[int], Any], timeout: float | None = 10.0
    ) -> ServerMessage:
        """Send the message ``message_of(ref)`` and wait for the answer with that ref (for
        ``timeout`` seconds; None: as long as the connection lives). An action without an
        ``action_id`` gets one; an action whose answer was lost with the connection stays
        in :attr:`in_doubt`."""
        if self._websocket is None or not self.is_connected:
            raise self._closed_error or ClientError("closed", "not connected")
        ref = next(self._refs)
        message = message_of(ref)
        action_id: str | None = None
        if isinstance(message, ACTIONS):
            action_id = getattr(message, "action_id", None)
            if action_id is None:
                action_id = self.new_action_id()
                message = message.model_copy(update={"action_id": action_id})
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending[ref] = future
        if action_id is not None and action_id not in self.in_doubt:
            # In doubt from before it is sent until an answer comes: a send cut short may
            # still have reached the server.
            self.in_doubt[action_id] = message
            self._moments[action_id] = self._moment(message)
        try:
            try:
                await self._websocket.send(encode(message))
            except ConnectionClosed:
                raise self._closed_error or ClientError(
                    "closed", "the connection is closed"
                ) from None
            async with asyncio.timeout(timeout):
                reply = await future
        finally:
            self._pending.pop(ref, None)
            if future.done() and not future.cancelled():
                future.exception()  # seen: an answer nobody waits for any more is no error
        unknown = isinstance(reply, ErrorMessage) and reply.code in UNKNOWN_OUTCOME
        if action_id is not None and not unknown:
            # Answered: applied or refused. (``unavailable``, ``internal``: the server cannot
            # tell whether its store has it, so it stays in doubt, to be sent again.)
            self.in_doubt.pop(action_id, None)
            self._moments.pop(action_id, None)
        if isinstance(reply, ErrorMessage):
            raise ClientError(reply.code, reply.message, reply.retry_after_ms, reply.field)
        return reply

    async def resend(self) -> list[tuple[Any, Ack | ClientError]]:
        """Send each action :attr:`in_doubt` again, with its own ``action_id``, in the order
        they were first sent; return each with its answer: an ``ack`` (``repeated`` when the
        server had applied it before the drop) or the refusal (with ``unavailable`` it stays
        in doubt).

        An action whose moment has passed is not sent again but forgotten, answered with
        ``ClientError("moved_on")``: the view (up to date after a reconnect) shows a new
        board, another turn, another claim or undo. Either the action took, and the view
        shows it, or it did not and is no longer meant: a claim answer must not accept a
        claim its player never saw, a call must not land on the next board. Decide again
        from the view."""
        answers: list[tuple[Any, Ack | ClientError]] = []
        for action_id, message in list(self.in_doubt.items()):
            meant = self._moments.get(action_id, NO_MOMENT)
            if meant is not NO_MOMENT and meant != self._moment(message):
                del self.in_doubt[action_id]
                del self._moments[action_id]
                moved = ClientError(
                    "moved_on",
                    f"the table moved on, so the {message.type} was not sent again "
                    "(the table shows whether it was made)",
                )
                answers.append((message, moved))
                continue

            def again(ref: int, message: Any = message) -> Any:
                return message.model_copy(update={"ref": ref})

            try:
                reply = await self.request(again)
            except ClientError as refused:
                if refused.code == "closed":
                    raise
                answers.append((message, refused))
                continue
            assert isinstance(reply, Ack), reply
            answers.append((message, reply))
        return answers

    def new_action_id(self) -> str:
        """An ``action_id`` no other action of this client has: its random prefix and a
        counter."""
        return f"{self._action_prefix}-{next(self._action_ids)}"

    def _moment(self, message: Any) -> object:
        """The moment of the table an action is meant for, as the view shows it: for a call,
        card, claim or answer the board, its phase, the calls and cards so far and the claim
        and undo in question; for chat, questions and the like the board only."""
        view = self.view
        if not isinstance(view, PlayerView) or view.board is None:
            return None
        board = view.board
        if message.type in LOOSE_ACTIONS:
            return board.board
        played = sum(board.hand_sizes.values())
        return (board.board, board.phase, len(board.auction), played, board.claim, board.undo)

    async def _act(self, message_of: Callable[[int], Any]) -> Ack:
        reply = await self.request(message_of)
        assert isinstance(reply, Ack), reply
        return reply

    async def call(self, call: str, alert: str | None = None) -> Ack:
        """Make a call (``"1S"``, ``"3NT"``, ``"P"``, ``"X"``, ``"XX"``), maybe alerted."""
        return await self._act(lambda ref: MakeCall(call=call, alert=alert, ref=ref))

    async def play(self, card: str) -> Ack:
        """Play a card (``"SA"``); declarer plays dummy's cards the same way. In a match
        whose opening leads are made face down, the opening lead goes face down."""
        return await self._act(lambda ref: PlayCard(card=card, ref=ref))

    async def face_lead(self) -> Ack:
        """The leader's partner, done asking about the auction: face the opening lead made
        face down (law 41A), which plays it."""
        return await self._act(lambda ref: FaceLead(ref=ref))

    async def claim(self, tricks: int, statement: str | None = None) -> Ack:
        """Claim ``tricks`` of the remaining tricks (fewer than all: a concession), maybe
        with a statement of the line of play."""
        return await self._act(lambda ref: MakeClaim(tricks=tricks, statement=statement, ref=ref))

    async def answer_claim(self, accept: bool) -> Ack:
        return await self._act(lambda ref: AnswerClaim(accept=accept, ref=ref))

    async def withdraw_claim(self) -> Ack:
        """Withdraw your pending claim: the play goes on."""
        return await self._act(lambda ref: WithdrawClaim(ref=ref))

    async def withdraw_concession(self) -> Ack:
        """Ask, before the next board, to withdraw your side's concession: the director is
        called, and decides (``decide_withdrawal``); allowed, the play resumes."""
        return await self._act(lambda ref: WithdrawConcession(ref=ref))

    async def undo(self, table: int | None = None) -> Ack:
        """Ask to take back your last call or card (the director: take back ``table``'s)."""
        return await self._act(lambda ref: Undo(table=table, ref=ref))

    async def answer_undo(self, accept: bool, table: int | None = None) -> Ack:
        """Agree to an opponent's undo, or refuse it (the director names the ``table``)."""
        return await self._act(lambda ref: AnswerUndo(accept=accept, table=table, ref=ref))

    async def next_board(self) -> Ack:
        """Done with the finished board on review: on to the next when all four are."""
        return await self._act(lambda ref: NextBoard(ref=ref))

    async def set_name(self, name: str) -> Ack:
        """Your display name (for a seat the organiser did not name)."""
        return await self._act(lambda ref: SetName(name=name, ref=ref))

    async def call_director(self, text: str | None = None) -> Ack:
        """Call the director to your table."""
        return await self._act(lambda ref: CallDirector(text=text, ref=ref))

    async def ask(self, index: int) -> Ack:
        """Ask what an opponent's call number ``index`` (from 0) means."""
        return await self._act(lambda ref: AskAboutCall(index=index, ref=ref))

    async def explain(self, index: int, text: str) -> Ack:
        """Explain your own call number ``index`` to the opponents."""
        return await self._act(lambda ref: ExplainCall(index=index, text=text, ref=ref))

    async def chat(self, text: str, table: int | None = None) -> Ack:
        """A line of table chat (the director names the ``table``)."""
        return await self._act(lambda ref: SendChat(text=text, table=table, ref=ref))

    async def rule(self, table: int, declarer_tricks: int) -> Ack:
        """Director: end the play of a table's board, declarer's side taking this many."""
        return await self._act(
            lambda ref: Rule(table=table, declarer_tricks=declarer_tricks, ref=ref)
        )

    async def assign_result(
        self, table: int, board: int, contract: str | None, declarer: str | None, tricks: int
    ) -> Ack:
        """Director: assign ``table``'s result on ``board`` (None, None: passed out)."""
        return await self._act(
            lambda ref: AssignResult(
                table=table,
                board=board,
                contract=contract,
                declarer=declarer,  # type: ignore[arg-type]
                tricks=tricks,
                ref=ref,
            )
        )

    async def start_round(self, round_number: int) -> Ack:
        """Director: start a round the match holds for the director (replay duplicate's
        stage 2, or a series' next session, created with ``stage_two="director"``)."""
        return await self._act(lambda ref: StartRound(round=round_number, ref=ref))

    async def adjust_score(self, board: int, imps_a: int) -> Ack:
        """Director: an artificial adjusted score, ``imps_a`` to team A (B the opposite)."""
        return await self._act(lambda ref: AdjustScore(board=board, imps_a=imps_a, ref=ref))

    async def void_board(self, board: int) -> Ack:
        """Director: void ``board`` (not compared, worth nothing to either team)."""
        return await self._act(lambda ref: VoidBoard(board=board, ref=ref))

    async def see_calls(self, table: int) -> Ack:
        """Director: the open calls for the director at ``table`` are seen (on the way)."""
        return await self._act(lambda ref: SeeCalls(table=table, ref=ref))

    async def close_calls(self, table: int) -> Ack:
        """Director: the calls for the director at ``table`` are dealt with."""
        return await self._act(lambda ref: CloseCalls(table=table, ref=ref))

    async def decide_withdrawal(self, table: int, allow: bool) -> Ack:
        """Director: allow or refuse the withdrawal of a concession asked for at ``table``."""
        return await self._act(lambda ref: DecideWithdrawal(table=table, allow=allow, ref=ref))

    async def substitute(self, table: int, seat: str, robot: bool = False) -> Substituted:
        """Director: a new player for a seat; returns its new link (None for a robot)."""
        reply = await self.request(
            lambda ref: Substitute(table=table, seat=seat, robot=robot, ref=ref)  # type: ignore[arg-type]
        )
        assert isinstance(reply, Substituted)
        return reply

    async def board(self, number: int) -> BoardRecord:
        """A board as every table played it, as far as you may see it (players: once compared,
        or their own play of it)."""
        reply = await self.request(lambda ref: GetBoard(board=number, ref=ref))
        assert isinstance(reply, BoardRecord)
        return reply

    async def record(
        self,
        format: Literal["pbn", "lin"] = "pbn",
        match_id: str | None = None,
        event_id: str | None = None,
    ) -> str:
        """The match record: every board compared, as every table played it, as PBN (with
        the commitment to the deals, and once the match is over the deal set) or LIN. The
        organiser names the match (``match_id``). With ``event_id`` (the organiser, or an
        event's results link): the PBN of the whole event, once it has ended."""
        reply = await self.request(
            lambda ref: GetRecord(format=format, match_id=match_id, event_id=event_id, ref=ref)
        )
        assert isinstance(reply, MatchRecord)
        return reply.record

    # -- the organiser's console -------------------------------------------------------

    async def open_session(self) -> SessionOpened:
        """Organiser, signed in with the key: a session token to sign in with instead
        (``hello``), until ``expires_at`` or :meth:`close_session`."""
        reply = await self.request(lambda ref: OpenSession(ref=ref))
        assert isinstance(reply, SessionOpened)
        return reply

    async def close_session(self) -> None:
        """Organiser, signed in with a session: end it (the server then closes the
        connection)."""
        reply = await self.request(lambda ref: CloseSession(ref=ref))
        assert isinstance(reply, SessionClosed)

    async def list_matches(self, live: bool = False, archived: bool = False) -> MatchList:
        """Organiser: the matches, newest first (``archived``: the archived ones too).
        ``live``: the server sends the list again whenever it changes; the latest is
        :attr:`match_list` (:meth:`wait_for_list` waits for one)."""
        reply = await self.request(lambda ref: ListMatches(live=live, archived=archived, ref=ref))
        assert isinstance(reply, MatchList)
        self.match_list = reply
        return reply

    async def wait_for_list(
        self, predicate: Callable[[MatchList], T | None], timeout: float | None = 10.0
    ) -> T:
        """Wait until ``predicate(list)`` is truthy for the latest list of matches (live:
        :meth:`list_matches`) and return what it returned."""
        return await self._until(lambda: self.match_list, predicate, timeout)

    async def wait_for_event(
        self, predicate: Callable[[EventView], T | None], timeout: float | None = 10.0
    ) -> T:
        """Wait until ``predicate(event)`` is truthy for the latest event received (signed
        in with an event's results link, the server sends it whenever it changes)."""
        return await self._until(lambda: self.event, predicate, timeout)

    async def links(self, match_id: str) -> MatchLinks:
        """Organiser: every link of the match again, with their QR codes."""
        reply = await self.request(lambda ref: GetLinks(match_id=match_id, ref=ref))
        assert isinstance(reply, MatchLinks)
        return reply

    async def new_link(self, match_id: str, player: int) -> Substituted:
        """Organiser: a new link for the player (the old one stops working)."""
        reply = await self.request(lambda ref: NewLink(match_id=match_id, player=player, ref=ref))
        assert isinstance(reply, Substituted)
        return reply

    async def archive(self, match_id: str, archived: bool = True) -> MatchArchived:
        """Organiser: put a finished match away (``archived``), or back."""
        reply = await self.request(
            lambda ref: ArchiveMatch(match_id=match_id, archived=archived, ref=ref)
        )
        assert isinstance(reply, MatchArchived)
        return reply

    async def create_event(
        self,
        teams: Sequence[EventTeamSpec],
        kind: Literal["round_robin", "swiss"] = "swiss",
        rounds: int | None = None,
        boards_per_round: int = 8,
        name: str = "Teams",
        first_round: Literal["seeded", "drawn"] = "seeded",
        bye_vps: float = 12.0,
        start: Literal["auto", "director"] = "auto",
        deals_pbn: str | None = None,
        robot_level: RobotLevel = "seed",
        robot_delay_ms: int | None = None,
        request_id: str | None = None,
        timeout: float | None = 30.0,
    ) -> EventCreated:
        """Organiser: an event of many matches (see :class:`protocol.messages.CreateEvent`):
        its first round begins at once unless ``start`` is ``director``."""
        reply = await self.request(
            lambda ref: CreateEvent(
                name=name,
                kind=kind,
                teams=list(teams),
                rounds=rounds,
                boards_per_round=boards_per_round,
                first_round=first_round,
                bye_vps=bye_vps,
                start=start,
                deals_pbn=deals_pbn,
                robot_level=robot_level,
                robot_delay_ms=robot_delay_ms,
                request_id=request_id,
                ref=ref,
            ),
            timeout,
        )
        assert isinstance(reply, EventCreated)
        return reply

    async def list_events(self) -> EventList:
        """Organiser: the events on this server, newest first."""
        reply = await self.request(lambda ref: ListEvents(ref=ref))
        assert isinstance(reply, EventList)
        return reply

    async def get_event(self, event_id: str) -> EventView:
        """Organiser: where the event stands."""
        reply = await self.request(lambda ref: GetEvent(event_id=event_id, ref=ref))
        assert isinstance(reply, EventView)
        return reply

    async def start_event_round(
        self,
        event_id: str,
        round: int,
        matches: Sequence[tuple[int, int]] | None = None,
        bye: int | None = None,
        timeout: float | None = 30.0,
    ) -> EventView:
        """Organiser: begin the event's next ``round``, re-paired by hand when ``matches``
        (home, away) are given."""
        reply = await self.request(
            lambda ref: StartEventRound(
                event_id=event_id,
                round=round,
                matches=(
                    None
                    if matches is None
                    else [EventPairing(home=home, away=away) for home, away in matches]
                ),
                bye=bye,
                ref=ref,
            ),
            timeout,
        )
        assert isinstance(reply, EventView)
        return reply

    async def adjust_event(
        self, event_id: str, team: int, vps: float, reason: str, round: int | None = None
    ) -> EventView:
        """Organiser: the director's adjustment of a team's victory points."""
        reply = await self.request(
            lambda ref: AdjustEvent(
                event_id=event_id, team=team, vps=vps, reason=reason, round=round, ref=ref
            )
        )
        assert isinstance(reply, EventView)
        return reply

    async def ping(self) -> Pong:
        reply = await self.request(lambda ref: Ping(ref=ref))
        assert isinstance(reply, Pong)
        return reply

    async def create_match(
        self,
        boards: int | None = None,
        team_a: str = "Team A",
        team_b: str = "Team B",
        deals_pbn: str | None = None,
        spectators: SpectatorMode = "live",
        format: Format = "teams",
        robots: Sequence[str] = (),
        names: dict[str, str] | None = None,
        roster: str | None = None,
        chat: ChatMode = "opponents",
        review_seconds: int = 20,
        robot_delay_ms: int | None = None,
        robot_level: RobotLevel = "seed",
        robot_levels: Mapping[str, RobotLevel] | None = None,
        players: Literal[8, 12] = 8,
        scoring: Scoring | None = None,
        stage_two: Literal["now", "director"] = "now",
        imposed_auction: bool = False,
        sessions: int | None = None,
        wait_for_players: bool = False,
        minutes_per_board: float | None = None,
        disputed_claims: Literal["play_on", "director"] = "play_on",
        face_down_lead: bool = False,
        seal: str | None = None,
        public_value: str | None = None,
        request_id: str | None = None,
        timeout: float | None = 10.0,
    ) -> MatchCreated:
        """Organiser: create a match and get its links (``boards`` None: the format's default;
        see :class:`protocol.messages.CreateMatch` for the rest). With a ``request_id``, the
        same call made again (after a lost connection) gets the same match, never a second
        one; ``timeout`` None waits as long as the connection lives."""
        reply = await self.request(
            lambda ref: CreateMatch(
                format=format,
                boards=boards,
                team_a=team_a,
                team_b=team_b,
                deals_pbn=deals_pbn,
                spectators=spectators,
                robots=list(robots),
                names=dict(names or {}),
                roster=roster,
                chat=chat,
                review_seconds=review_seconds,
                robot_delay_ms=robot_delay_ms,
                robot_level=robot_level,
                robot_levels=dict(robot_levels or {}),
                players=players,
                scoring=scoring,
                stage_two=stage_two,
                imposed_auction=imposed_auction,
                sessions=sessions,
                wait_for_players=wait_for_players,
                minutes_per_board=minutes_per_board,
                disputed_claims=disputed_claims,
                face_down_lead=face_down_lead,
                seal=seal,
                public_value=public_value,
                request_id=request_id,
                ref=ref,
            ),
            timeout,
        )
        assert isinstance(reply, MatchCreated)
        return reply

    async def seal_deals(
        self, public_form: str | None, request_id: str | None = None
    ) -> DealsSealed:
        """Organiser: have the server commit to a secret seed for a match's boards and to
        ``public_form``, how the public value will be written (``"digits 5: five dice"``;
        then ``create_match(seal=..., public_value=...)`` once the public value is fixed;
        None: no form, and the deals say so). With a ``request_id``, the same call made
        again gets the same seal."""
        reply = await self.request(
            lambda ref: SealDeals(public_form=public_form, request_id=request_id, ref=ref)
        )
        assert isinstance(reply, DealsSealed)
        return reply

    async def import_match(
        self,
        record: str,
        format: Literal["pbn", "lin"] = "pbn",
        spectators: SpectatorMode = "live",
        request_id: str | None = None,
        timeout: float | None = 10.0,
    ) -> MatchCreated:
        """Organiser: load a team match played elsewhere (its PBN or LIN record, one match)
        as a finished match, and get its links (:class:`protocol.messages.ImportMatch`).
        With a ``request_id``, the same call made again gets the same match; ``timeout``
        None waits as long as the connection lives (a long record takes a while)."""
        reply = await self.request(
            lambda ref: ImportMatch(
                record=record,
                format=format,
                spectators=spectators,
                request_id=request_id,
                ref=ref,
            ),
            timeout,
        )
        assert isinstance(reply, MatchCreated)
        return reply

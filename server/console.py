"""The organiser's console: sessions, the live list of matches, the links handed out again,
new links and archiving (SPEC.md, "The organiser's console").

Every organiser message but the creations (``create_match``, ``import_match``,
``seal_deals``, which :class:`server.app.Server` serves) is served here, for the page at
``/organise`` and for any other program alike. What the list shows of each match is
decided by one function, :func:`server.views.match_entry`.

A session is a token (``os_`` and 43 random characters) that speaks for the organiser
until it expires (:data:`SESSION_HOURS`) or is closed: the page keeps it instead of the
key. The store keeps only its SHA-256 and when it expires, and forgets it then.

A link's token is derived from the organiser key and a nonce the store keeps per link
(``Server.link_token``), so the links can be given again while no usable token is stored.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING

import segno
from pydantic import BaseModel
from redis.exceptions import RedisError

from bridge import Seat
from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    ArchiveMatch,
    CloseSession,
    ErrorMessage,
    GetLinks,
    GetRecord,
    LinkEntry,
    ListMatches,
    MatchArchived,
    MatchEntry,
    MatchLinks,
    MatchList,
    MatchRecord,
    NewLink,
    OpenSession,
    SessionClosed,
    SessionOpened,
)
from server.fanout import stop
from server.matches import MatchRuntime, now_ms
from server.views import match_entry

if TYPE_CHECKING:
    from server.app import Server
    from server.connection import Connection

__all__ = ["LIST_EVERY", "SESSION_HOURS", "SESSION_TOKEN_PREFIX", "Console"]

log = logging.getLogger(__name__)

SESSION_HOURS = 12
"""How long an organiser's session lasts: an evening, with time to spare."""
SESSION_TOKEN_PREFIX = "os_"
"""How a session's token begins: told apart from a link's token before any lookup."""
LIST_EVERY = 0.5
"""Seconds between two looks at the matches for the organisers who follow the list live:
a change reaches them within this (and an unchanged list is not sent again)."""

OrganiserRequest = (
    OpenSession | CloseSession | ListMatches | GetLinks | NewLink | ArchiveMatch | GetRecord
)
"""The organiser's messages served here."""


class Console:
    """The organiser's messages of one server process, and the live list it sends."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._feed: asyncio.Task[None] | None = None
        self._next_expiry: int | None = None
        """When the first session of a connection open here expires: the connections are
        looked through only then."""

    # -- sessions ----------------------------------------------------------------------

    async def session_expiry(self, token: str) -> int:
        """When the session ``token`` expires; ProtocolError ``bad_token`` for one unknown,
        closed or expired."""
        expires = await self.server.store.session(token)
        if expires is None or expires <= now_ms():
            raise ProtocolError(
                ErrorCode.BAD_TOKEN,
                "this organiser session is not known here (closed, or expired): sign in "
                "again with the organiser key",
            )
        return expires

    def signed_in(self, expires: int) -> None:
        """A connection signed in with a session that expires at ``expires``."""
        if self._next_expiry is None or expires < self._next_expiry:
            self._next_expiry = expires

    def expire(self, now: int) -> None:
        """Sign out the organisers whose session has run out (asked every second; the
        connections are looked through only once a session may have run out)."""
        if self._next_expiry is None or now < self._next_expiry:
            return
        self._next_expiry = None
        for connection in list(self.server.connections):
            expires = connection.session_expires
            if expires is None:
                continue
            if expires <= now:
                self._sign_out(connection, "your organiser session has expired: sign in again")
            else:
                self.signed_in(expires)

    def _sign_out(self, connection: Connection, why: str) -> None:
        """Tell the organiser on ``connection`` why it is signed out, and close it."""
        connection.send(encode_error(ErrorCode.BAD_TOKEN, why))
        _forget(connection, 1008)

    # -- serving -------------------------------------------------------------------------

    async def serve(self, connection: Connection, request: OrganiserRequest) -> None:
        """Answer one of the organiser's console messages on ``connection``."""
        if connection.session is not None:
            await self.session_expiry(connection.session)  # closed by another page since
        if isinstance(request, OpenSession):
            answer: BaseModel = await self._open_session(connection, request)
        elif isinstance(request, CloseSession):
            answer = await self._close_session(connection, request)
        elif isinstance(request, ListMatches):
            answer = await self._list(connection, request)
        elif isinstance(request, GetLinks):
            answer = await self.links(request)
        elif isinstance(request, NewLink):
            answer = await self.server.organising.new_link(request)
        elif isinstance(request, ArchiveMatch):
            answer = await self._archive(request)
        else:
            answer = await self._record(request)
        connection.send(encode(answer))
        if isinstance(answer, SessionClosed):
            _forget(connection, 1000)  # signed out: the connection closes once told

    async def _open_session(self, connection: Connection, request: OpenSession) -> SessionOpened:
        if connection.session is not None:
            raise ProtocolError(
                ErrorCode.FORBIDDEN,
                "a session is opened with the organiser key, once a connection: not with "
                "another session",
            )
        token = SESSION_TOKEN_PREFIX + secrets.token_urlsafe(32)
        expires = now_ms() + SESSION_HOURS * 3_600_000
        await self.server.store.open_session(token, expires)
        # From now on this connection speaks by the session: it expires with it, and
        # close_session ends it.
        connection.session = token
        connection.session_expires = expires
        self.signed_in(expires)
        log.info("an organiser's session opened (from %s)", connection.address)
        return SessionOpened(token=token, expires_at=expires, ref=request.ref)

    async def _close_session(self, connection: Connection, request: CloseSession) -> SessionClosed:
        token = connection.session
        if token is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                "this connection signed in with the organiser key, not a session",
            )
        await self.server.store.close_session(token)
        for other in list(self.server.connections):
            if other is not connection and other.session == token:
                self._sign_out(other, "this organiser session was closed: sign in again")
        return SessionClosed(ref=request.ref)

    # -- the list ------------------------------------------------------------------------

    async def _list(self, connection: Connection, request: ListMatches) -> MatchList:
        matches = await self.entries(archived=request.archived)
        answer = MatchList(
            matches=matches, live=request.live, archived=request.archived, ref=request.ref
        )
        if request.live:
            connection.live_list = request.archived
            connection.last_list = encode(answer.model_copy(update={"ref": None}))
            self._follow()
        else:
            connection.live_list = None
            connection.last_list = None
        return answer

    async def entries(self, *, archived: bool) -> list[MatchEntry]:
        """Every match in the store, newest first (the archived ones only if ``archived``)."""
        store = self.server.store
        ids = await store.match_ids()
        put_away = await store.archived()
        entries: list[tuple[int, str, MatchEntry]] = []
        for match_id in ids:
            if match_id in put_away and not archived:
                continue
            runtime = await self._runtime(match_id)
            if runtime is None:
                continue
            entry = MatchEntry.model_validate(
                match_entry(runtime.state, archived=match_id in put_away)
            )
            entries.append((entry.created_at or 0, match_id, entry))
        entries.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [entry for _, _, entry in entries]

    async def _runtime(self, match_id: str) -> MatchRuntime | None:
        try:
            return await self.server.runtime(match_id)
        except ProtocolError:
            return None  # listed, but its keys are gone

    def _follow(self) -> None:
        if self.server.stopping:
            return  # closing: the organisers are told nothing more
        if self._feed is None or self._feed.done():
            self._feed = asyncio.create_task(self._send_lists(), name="organisers' lists")

    async def _send_lists(self) -> None:
        """While any organiser follows the list live, look at the matches every
        :data:`LIST_EVERY` seconds and send each of them the list when it changed."""
        while True:
            await asyncio.sleep(LIST_EVERY)
            following = [c for c in self.server.connections if c.live_list is not None]
            if not following:
                return
            lists: dict[bool, bytes] = {}
            for archived in sorted({c.live_list for c in following if c.live_list is not None}):
                try:
                    matches = await self.entries(archived=archived)
                except (RedisError, OSError) as error:  # the store is away: next time
                    log.warning("the organisers' list: %s", error)
                    break
                except Exception:  # a bug: logged, and the list goes on for the others
                    log.exception("the organisers' list")
                    break
                lists[archived] = encode(MatchList(matches=matches, live=True, archived=archived))
            for connection in following:
                if connection.live_list is None or connection.live_list not in lists:
                    continue
                frame = lists[connection.live_list]
                if frame != connection.last_list:
                    connection.last_list = frame
                    connection.send(frame)

    async def close(self) -> None:
        if self._feed is not None:
            await stop(self._feed)

    # -- links ---------------------------------------------------------------------------

    async def links(self, request: GetLinks) -> MatchLinks:
        """Every link of the match, where its player sits now, with its QR code."""
        server = self.server
        runtime = await self._match(request.match_id)
        state = runtime.state
        config = state.config
        nonces = await server.store.link_nonces(config.match_id)
        keys: list[str] = []
        entries: list[LinkEntry] = []
        robots_table = config.movement.robots
        for player in sorted(config.movement.competitors):
            if player in robots_table:
                continue  # the robots' table 2 of a robot-table match
            key = config.first_seat(player)
            where = state.where(player)
            table, seat = (int(key[0]), Seat.parse(key[1])) if where is None else where
            person = state.people[player]
            keys.append(key)
            entries.append(
                LinkEntry(
                    role="player",
                    player=player,
                    table=table,
                    seat=seat.letter,
                    team=config.team_of(table, seat) if config.teams else None,
                    name=person.name,
                    robot=person.server_robot,
                )
            )
        if config.spectators != "off":
            keys.append("spectator")
            entries.append(LinkEntry(role="spectator"))
        keys.append("director")
        entries.append(LinkEntry(role="director"))
        tokens = {
            key: server.keys.link_token(config.match_id, key, nonces[key])
            for key in keys
            if key in nonces
        }
        grants = await server.store.grants(list(tokens.values()))
        good = {
            key
            for (key, _), grant in zip(tokens.items(), grants, strict=True)
            if grant is not None and grant.role != "revoked" and grant.match_id == config.match_id
        }
        paths = {"spectator": "watch", "director": "direct"}
        shown: list[LinkEntry] = []
        for key, entry in zip(keys, entries, strict=True):
            if key not in good or entry.robot:
                shown.append(entry)
                continue
            link = f"{server.public_url}/{paths.get(key, 'play')}#{tokens[key]}"
            shown.append(entry.model_copy(update={"link": link, "qr": qr_code(link)}))
        return MatchLinks(match_id=config.match_id, links=shown, ref=request.ref)

    async def _match(self, match_id: str) -> MatchRuntime:
        if match_id not in await self.server.store.match_ids():
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE, f"no match {match_id} here", field="match_id"
            )
        runtime = await self._runtime(match_id)
        if runtime is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE, f"match {match_id} is gone from the store"
            )
        return runtime

    # -- archiving and records ---------------------------------------------------------

    async def _archive(self, request: ArchiveMatch) -> MatchArchived:
        runtime = await self._match(request.match_id)
        if request.archived and not runtime.state.finished:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"match {request.match_id} is still being played: only a finished match is "
                "archived",
            )
        await self.server.store.archive(request.match_id, request.archived)
        return MatchArchived(match_id=request.match_id, archived=request.archived, ref=request.ref)

    async def _record(self, request: GetRecord) -> MatchRecord:
        if request.match_id is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                "the organiser names the match whose record it asks for: match_id",
                field="match_id",
            )
        runtime = await self._match(request.match_id)
        return await self.server.record(runtime, request)


def _forget(connection: Connection, code: int) -> None:
    """The connection speaks for the organiser no more: closed (with ``code``) once what is
    queued for it is sent."""
    connection.organiser = False
    connection.session = None
    connection.session_expires = None
    connection.live_list = None
    connection.close(code, "signed out")


def qr_code(link: str) -> str:
    """The link's QR code: an SVG image as a ``data:`` URI (error correction M, which a
    phone reads off a printed card or a screen, a quiet zone of four modules)."""
    code = segno.make_qr(link, error="m")
    uri: str = code.svg_data_uri(scale=4, border=4)
    return uri


def encode_error(code: ErrorCode, message: str) -> bytes:
    """An error frame that answers no request (``ref`` null)."""
    return encode(ErrorMessage(code=code, message=message), exclude={"versions", "field"})

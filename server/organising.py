"""The organiser's requests that make matches: ``create_match``, ``import_match`` and
``seal_deals`` (each carried out once for its ``request_id``), and new players for a seat
(the director's ``substitute``, the organiser's ``new_link``).

A request is checked whole before anything is stored: a refusal names the field that is
wrong and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError
from redis.exceptions import RedisError

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
from bridge.pbn import roster_names
from bridge.records import played_tables
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    SEAL_DAYS,
    AnswerClaim,
    CreateMatch,
    DealsSealed,
    ImportMatch,
    MakeCall,
    MakeClaim,
    MatchCreated,
    Name,
    NewLink,
    PlayCard,
    SealDeals,
    SeatLink,
    Substitute,
    Substituted,
)
from server.config import BoardSpec, MatchConfig, default_movement, mixed_partnership
from server.formats import (
    boards_from_pbn,
    dealt_boards,
    read_played_match,
    robot_table_log,
    seeded_boards,
)
from server.matches import MatchRuntime, fold, now_ms
from server.state import StoredEvent
from server.store import Grant
from server.views import Player, Viewer, Watcher, seated

if TYPE_CHECKING:
    from server.app import Server
    from server.connection import Connection

__all__ = [
    "CREATION_KEPT",
    "CREATION_UNDER_WAY",
    "MAX_IMPORTED_BOARDS",
    "MOST_BOARDS",
    "Organising",
    "held_rounds",
    "movement_for",
    "robot_seats",
]

log = logging.getLogger(__name__)

MAX_IMPORTED_BOARDS = 64
"""The most boards an imported match may hold, as many as a created one."""
CREATION_UNDER_WAY = 900.0
"""Seconds a creation with a ``request_id`` may take (an import of many boards on a busy
machine) before the same request sent again stops waiting for it."""
CREATION_KEPT = 7 * 86_400
"""Seconds the answer to a creation with a ``request_id`` is kept for the same request."""
MOST_BOARDS = 64
"""The most boards a match plays (``create_match.boards`` is at most this too)."""

_NAME: TypeAdapter[str] = TypeAdapter(Name)


def _request_digest(request: CreateMatch | ImportMatch | SealDeals) -> str:
    """What a request asks for, whatever its ``ref``: a request sent again with the same
    ``request_id`` must ask for the same."""
    asked = request.model_dump(mode="json", exclude={"ref"})
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


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


class Organising:
    """The organiser's creations, and new players for a seat, of one server process."""

    def __init__(self, server: Server) -> None:
        self.server = server

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
            first = await self.server.store.begin_creation(request_id, record, CREATION_UNDER_WAY)
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
                await self.server.store.forget_creation(request_id)
            raise
        if isinstance(answer, MatchCreated):
            record["match_id"] = answer.match_id
        else:
            record["seed_commitment"] = answer.seed_commitment
            record["public_form"] = answer.public_form
        await self.server.store.end_creation(request_id, record | {"done": True}, CREATION_KEPT)
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
            record = await self.server.store.creation(request_id)
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
                seal=self.server.keys.seal_of(nonce),
                seed_commitment=str(record["seed_commitment"]),
                public_form=record.get("public_form"),
                ref=request.ref,
            )
        config = await self.server.store.config(str(record["match_id"]))
        if config is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"the match request {request_id!r} made is gone from the store",
            )
        nonces = await self.server.store.link_nonces(config.match_id)

        def again(key: str) -> str:
            # A link changed since (a new link for a seat) is given as it is now.
            return self.server.keys.link_token(config.match_id, key, nonces.get(key, nonce))

        return self.created(config, again, request.ref)

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
            kept = await self.server.store.read_seal(request.seal)
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
            if await self.server.store.take_seal(request.seal) != kept:
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
        return await self.open_match(config, table2, request.ref, nonce)

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
            seal = self.server.keys.seal_of(nonce)
        else:
            seal = secrets.token_urlsafe(24)
            while seal.startswith("-"):  # typed after --seal on a command line: not an option
                seal = secrets.token_urlsafe(24)
        kept = seed if form is None else f"{seed}\n{form.text()}"
        await self.server.store.seal(seal, kept, SEAL_DAYS * 86_400)
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
            await self.server.store.keep_source(config.match_id, request.record)
        created = await self.open_match(config, None, request.ref, nonce)
        runtime = await self.server.runtime(config.match_id)
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

    async def open_match(
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
        tokens = self.server.keys.tokens(match_id, nonce)
        drawn: dict[str, str] = {}

        def token_of(key: str) -> str:
            drawn[key] = drawn.get(key) or tokens(key)
            return drawn[key]

        created = self.created(config, token_of, ref)
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
            robot = self.server.keys.robot_token(match_id, key, robot_nonce)
            grants[robot] = Grant(match_id, "player", int(key[0]), key[1])
        logs = {} if table2 is None else {2: table2[0]}
        starts = fold(config, logs, ()).starts(now_ms())
        link_nonces = dict.fromkeys(drawn, nonce)
        await self.server.store.create_match(
            config, grants, starts, robot_nonces, table2, link_nonces
        )
        log.info("match %s created: %s, %d boards", match_id, config.format, len(config.boards))
        self.server.analyses.later(config.match_id, config.boards)
        if robot_nonces:
            await self.server.house.start(config, robot_nonces)
        return created

    def created(
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
        base = self.server.public_url
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
        runtime = await self.server.runtime(request.match_id)
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
            token = self.server.keys.robot_token(match_id, key, robot_nonce)
        else:
            link_nonce = secrets.token_hex(16)
            token = self.server.keys.link_token(match_id, key, link_nonce)
        await runtime.act_substitute(viewer, player, token, robot_nonce, link_nonce)
        self.server.house.stop(match_id, key)
        if robot_nonce is not None:
            await self.server.house.start(runtime.config, {key: robot_nonce})
        link = None if robot else f"{self.server.public_url}/play#{token}"
        at = seated(runtime.state, player)
        assert at is not None  # act_substitute refuses a player who does not play now
        return Substituted(player=player, table=at.table, seat=at.seat.letter, link=link, ref=ref)

"""Events of many matches (SPEC.md, "Events"): a round robin or a Swiss of two-table team
matches, each converted to victory points, run by whichever processes serve the store.

The domain (the schedule, the Swiss pairing, the VP scale, the standings, Butler) is pure
code in :mod:`bridge.events` and :mod:`bridge.vp`; this module only runs it. An event is its
config and a log in the store (``{e:ID}:config``, ``{e:ID}:log``), replayed to know where it
stands: the pairing of each round (the last one logged for a round counts: the organiser
may re-pair by hand before the round begins), the rounds begun, the director's adjustments
and the end. Each round's matches are ordinary matches, created through
:meth:`server.organising.Organising.organise` with a ``request_id`` made of the event, the round and
the match's place in it, so that one is made however many times its creation is tried; the
store maps ``round:index`` to the match's id (``{e:ID}:matches``).

Every process looks at the events not ended yet every :data:`EVENT_EVERY` seconds
(:meth:`Events.advance`): when a round's matches have all ended it logs the next round's
pairing (and its start, unless the organiser starts rounds), appending only if the log is
still as it read it (:data:`server.store.EVENT_APPEND_SCRIPT`): two processes that see a
round end at the same moment begin the next one once. A process that stopped between the
start and the matches' creation leaves it to the next look, by any process.

What a viewer of the event sees is decided by one function, :func:`server.event_views.event_view`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from bridge import events as domain
from bridge.errors import BridgeError
from bridge.pbn import PbnGame, dump_games
from bridge.vp import victory_points
from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    SUPPORTED_VERSIONS,
    AdjustEvent,
    CreateEvent,
    CreateMatch,
    EventCreated,
    EventEntry,
    EventList,
    EventView,
    GetEvent,
    GetRecord,
    ListEvents,
    MatchCreated,
    MatchRecord,
    StartEventRound,
    Welcome,
)
from server.config import BoardSpec
from server.event_views import event_view
from server.fanout import closing_within, end
from server.formats import boards_from_pbn, dealt_boards
from server.matches import fold, now_ms
from server.records import event_record
from server.state import MatchState

if TYPE_CHECKING:
    from server.app import Server
    from server.connection import Connection

__all__ = [
    "EVENT_EVERY",
    "EVENT_TOKEN_PREFIX",
    "EventConfig",
    "EventLog",
    "EventTeam",
    "Events",
    "MatchOutcome",
]

log = logging.getLogger(__name__)

EVENT_TOKEN_PREFIX = "ev_"
"""How an event's results link's token begins: told apart from a match link's."""
EVENT_EVERY = 1.0
"""Seconds between two looks at the events not ended: a round begins within this of the
end of the one before."""
ROBOT_PLAYERS = ("Robot 1", "Robot 2", "Robot 3", "Robot 4")
"""The players of a team of robots (the Butler ranking tells its two pairs apart)."""
HOME_SEATS = ("1N", "1S", "2E", "2W")
"""Where the home team's first four players sit: North-South at table 1, East-West at
table 2."""
AWAY_SEATS = ("1E", "1W", "2N", "2S")
"""Where the away team's sit."""

EventRequest = StartEventRound | AdjustEvent | GetEvent
"""The organiser's event messages served by :meth:`Events.serve` (``create_event`` is
served by :meth:`Events.create`)."""


@dataclass(frozen=True, slots=True)
class EventTeam:
    """A team of the event: its name, its players (the first four play), or robots."""

    name: str
    players: tuple[str, ...]
    robots: bool = False


@dataclass(frozen=True, slots=True)
class EventConfig:
    """What the organiser set up, and the event's boards (secret until played)."""

    event_id: str
    name: str
    kind: str
    """``round_robin`` or ``swiss``."""
    teams: tuple[EventTeam, ...]
    rounds: int
    boards_per_round: int
    bye_vps: Decimal
    start: str
    """``auto`` (a round begins when the one before ends) or ``director``."""
    first_round: str
    """A Swiss's first round: ``seeded`` or ``drawn``."""
    draw: int
    """The seed of the draw of a Swiss's first round (when ``drawn``)."""
    nonce: str
    """What the results link's token is derived from (with the organiser key)."""
    robot_level: str
    robot_delay_ms: int | None
    created_at: int
    boards: tuple[BoardSpec, ...] = field(repr=False)

    def round_boards(self, round_number: int) -> tuple[BoardSpec, ...]:
        """The boards every match of ``round_number`` plays."""
        first = (round_number - 1) * self.boards_per_round
        return self.boards[first : first + self.boards_per_round]

    def schedule(self) -> tuple[domain.RoundPlan, ...]:
        """A round robin's rounds (empty for a Swiss: drawn round by round)."""
        return domain.round_robin(len(self.teams)) if self.kind == "round_robin" else ()

    def first_pairing(self) -> domain.RoundPlan:
        if self.kind == "round_robin":
            return self.schedule()[0]
        rng = random.Random(self.draw) if self.first_round == "drawn" else None
        return domain.swiss_first_round(len(self.teams), rng)

    def to_json(self) -> str:
        return json.dumps(
            {
                "event_id": self.event_id,
                "name": self.name,
                "kind": self.kind,
                "teams": [
                    {"name": t.name, "players": list(t.players), "robots": t.robots}
                    for t in self.teams
                ],
                "rounds": self.rounds,
                "boards_per_round": self.boards_per_round,
                "bye_vps": str(self.bye_vps),
                "start": self.start,
                "first_round": self.first_round,
                "draw": self.draw,
                "nonce": self.nonce,
                "robot_level": self.robot_level,
                "robot_delay_ms": self.robot_delay_ms,
                "created_at": self.created_at,
                "boards": [board.to_json() for board in self.boards],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> EventConfig:
        data = json.loads(text)
        return cls(
            event_id=data["event_id"],
            name=data["name"],
            kind=data["kind"],
            teams=tuple(
                EventTeam(t["name"], tuple(t["players"]), t["robots"]) for t in data["teams"]
            ),
            rounds=data["rounds"],
            boards_per_round=data["boards_per_round"],
            bye_vps=Decimal(data["bye_vps"]),
            start=data["start"],
            first_round=data["first_round"],
            draw=data["draw"],
            nonce=data["nonce"],
            robot_level=data["robot_level"],
            robot_delay_ms=data["robot_delay_ms"],
            created_at=data["created_at"],
            boards=tuple(BoardSpec.from_json(board) for board in data["boards"]),
        )


@dataclass(frozen=True, slots=True)
class EventLog:
    """An event's log replayed: each round's pairing, the rounds begun, the adjustments,
    whether it has ended, and how many entries were read (to append after them)."""

    pairings: dict[int, domain.RoundPlan]
    started: tuple[int, ...]
    adjustments: tuple[domain.Adjustment, ...]
    ended: bool
    length: int

    @classmethod
    def read(cls, entries: list[dict[str, Any]]) -> EventLog:
        pairings: dict[int, domain.RoundPlan] = {}
        started: list[int] = []
        adjustments: list[domain.Adjustment] = []
        ended = False
        for entry in entries:
            kind = entry["kind"]
            if kind == "pairing":
                pairings[entry["round"]] = domain.RoundPlan(
                    tuple(domain.Pairing(home, away) for home, away in entry["matches"]),
                    entry["bye"],
                )
            elif kind == "start" and entry["round"] not in started:
                started.append(entry["round"])
            elif kind == "adjust":
                adjustments.append(
                    domain.Adjustment(
                        entry["round"], entry["team"], Decimal(entry["vps"]), entry["reason"]
                    )
                )
            elif kind == "end":
                ended = True
        return cls(pairings, tuple(started), tuple(adjustments), ended, len(entries))

    @property
    def current(self) -> int:
        """The last round begun (0: none yet)."""
        return max(self.started, default=0)


def pairing_entry(round_number: int, plan: domain.RoundPlan, by: str) -> dict[str, Any]:
    return {
        "kind": "pairing",
        "round": round_number,
        "matches": [[m.home, m.away] for m in plan.matches],
        "bye": plan.bye,
        "by": by,
    }


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """One match of the event as the event sees it: where it stands, its IMPs, and the
    boards compared in it (each with both tables' results) with who sat where."""

    match_id: str
    status: str
    """``waiting``, ``playing`` or ``finished``."""
    home_imps: int
    away_imps: int
    compared: dict[int, tuple[Any, Any]]
    """Board -> (table 1's result, table 2's result): ``bridge.formats.teams.TableResult``
    of each, for the boards compared with both results (not adjusted or voided)."""
    names: dict[str, str]
    """Seat key (``"1N"``) -> the player's name."""

    @classmethod
    def of(cls, match_id: str, state: MatchState) -> MatchOutcome:
        match = state.match
        compared = {
            c.board: (c.table1, c.table2)
            for c in match.comparisons
            if c.table1 is not None and c.table2 is not None and c.artificial is None and not c.void
        }
        begun = bool(match.comparisons) or any(
            board.auction.calls or board.is_finished
            for table in state.tables.values()
            for board in table.boards
        )
        status = "finished" if state.finished else "playing" if begun else "waiting"
        return cls(match_id, status, match.imps_a, match.imps_b, compared, dict(state.config.names))


@dataclass(slots=True)
class EventState:
    """An event loaded: its config, its log replayed, its matches and their outcomes."""

    config: EventConfig
    log: EventLog
    matches: dict[str, str]
    outcomes: dict[tuple[int, int], MatchOutcome]
    """(round, index) -> the outcome of each match created."""

    def round_finished(self, round_number: int) -> bool:
        """Every match of the round begun has ended."""
        plan = self.log.pairings.get(round_number)
        if plan is None or round_number not in self.log.started:
            return False
        return all(
            (outcome := self.outcomes.get((round_number, index))) is not None
            and outcome.status == "finished"
            for index in range(len(plan.matches))
        )

    def scores(self) -> list[domain.MatchScore | domain.ByeScore]:
        """The ended matches' scores in VPs, and the byes of the rounds ended."""
        found: list[domain.MatchScore | domain.ByeScore] = []
        for round_number in self.log.started:
            plan = self.log.pairings[round_number]
            for index, pairing in enumerate(plan.matches):
                outcome = self.outcomes.get((round_number, index))
                if outcome is None or outcome.status != "finished":
                    continue
                home_vps, away_vps = victory_points(
                    outcome.home_imps - outcome.away_imps, self.config.boards_per_round
                )
                found.append(
                    domain.MatchScore(
                        round_number,
                        pairing.home,
                        pairing.away,
                        outcome.home_imps,
                        outcome.away_imps,
                        home_vps,
                        away_vps,
                    )
                )
            if plan.bye is not None and self.round_finished(round_number):
                found.append(domain.ByeScore(round_number, plan.bye, self.config.bye_vps))
        return found

    def standings(self) -> tuple[domain.Standing, ...]:
        return domain.standings(len(self.config.teams), self.scores(), self.log.adjustments)

    def next_pairing(self) -> domain.RoundPlan:
        """The pairing of the round after the current one, as the event draws it."""
        upcoming = self.log.current + 1
        if upcoming == 1:
            return self.config.first_pairing()
        if self.config.kind == "round_robin":
            return self.config.schedule()[upcoming - 1]
        met: set[frozenset[int]] = set()
        byes: list[int] = []
        home: dict[int, int] = {}
        for round_number in self.log.started:
            plan = self.log.pairings[round_number]
            for pairing in plan.matches:
                met.add(frozenset((pairing.home, pairing.away)))
                home[pairing.home] = home.get(pairing.home, 0) + 1
            if plan.bye is not None:
                byes.append(plan.bye)
        ranking = [standing.team for standing in self.standings()]
        return domain.swiss_round(ranking, met, byes, home)


@dataclass(slots=True)
class _Followed:
    """What this process knows of an event's match that it does not run: its outcome, as
    of the watchers' log's first ``length`` entries (the last of them ``last_id``), and,
    until the match ends, the state folded from them (to fold what follows onto)."""

    length: int
    last_id: str
    outcome: MatchOutcome
    state: MatchState | None


class Events:
    """The events of one server process: their creation, the organiser's requests, and
    the look every :data:`EVENT_EVERY` seconds that begins each round when it is due.

    Every process looks at every event, but runs only the matches its players and
    watchers brought to it: the outcome of any other match of an event is read from the
    store (its watchers' log, folded here without a runtime: no following, no timers),
    and read again only when that log has grown."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._keeper: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._locks: dict[str, asyncio.Lock] = {}
        self._followed: dict[str, _Followed] = {}
        self._following = asyncio.Lock()
        """Held while the followed matches are read on: two readers at once (the look and
        an organiser's request) would fold the same entries onto one state twice."""

    def start(self) -> None:
        self._keeper = asyncio.create_task(self._keep(), name="events")

    async def close(self) -> None:
        """Stop the looks at the events: the one under way ends first (:func:`end`)."""
        if self._keeper is not None:
            await end(self._closing, self._keeper)

    async def _keep(self) -> None:
        while not await closing_within(self._closing, EVENT_EVERY):
            try:
                playing = await self.server.store.playing_events()
            except (RedisError, OSError) as error:  # the store is away: next time
                log.warning("events: %s", error)
                continue
            for event_id in playing:
                if self._closing.is_set():
                    return
                try:
                    await self.advance(event_id)
                except (RedisError, OSError) as error:
                    log.warning("event %s: %s", event_id, error)
                    break
                except Exception:  # a bug: logged, and the other events go on
                    log.exception("event %s", event_id)
            try:
                await self._send_views()
            except (RedisError, OSError) as error:
                log.warning("events' results: %s", error)
            except Exception:  # a bug: logged, and the look goes on next time
                log.exception("events' results")

    # -- creation ----------------------------------------------------------------------

    async def create(self, request: CreateEvent) -> EventCreated:
        """Create the event (once per ``request_id``) and begin its first round, unless
        the organiser begins rounds."""
        from server.organising import CREATION_KEPT, CREATION_UNDER_WAY

        store = self.server.store
        request_id = request.request_id
        if request_id is not None:
            asked = json.dumps(request.model_dump(mode="json", exclude={"ref"}), sort_keys=True)
            digest = hashlib.sha256(asked.encode()).hexdigest()
            record = {"type": request.type, "digest": digest}
            first = await store.begin_creation(request_id, record, CREATION_UNDER_WAY)
            if first is not None:
                if first.get("digest") != digest:
                    raise ProtocolError(
                        ErrorCode.INVALID_MESSAGE,
                        f"request_id {request_id!r} was used for another request: a new "
                        "request needs a new id",
                    )
                if "event_id" in first:
                    loaded = await self._state(str(first["event_id"]))
                    return EventCreated(
                        event_id=loaded.config.event_id,
                        rounds=loaded.config.rounds,
                        results=self.results_link(loaded.config),
                        ref=request.ref,
                    )
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE,
                    f"the request {request_id!r} is still under way: send it again later",
                )
        try:
            config = event_config(request)
            token = self.server.keys.results_token(config.event_id, config.nonce)
            await store.create_event(config.event_id, config.to_json(), token)
        except BaseException:
            if request_id is not None:
                with contextlib.suppress(RedisError, OSError):
                    await store.forget_creation(request_id)
            raise
        if request_id is not None:
            done = {"type": request.type, "event_id": config.event_id, "done": True}
            await store.end_creation(request_id, done | {"digest": digest}, CREATION_KEPT)
        try:
            await self.advance(config.event_id)
        except (RedisError, OSError, ProtocolError) as error:
            # The event is made: its first round is begun at the next look, by any process.
            log.warning("event %s: its first round not begun yet: %s", config.event_id, error)
        return EventCreated(
            event_id=config.event_id,
            rounds=config.rounds,
            results=self.results_link(config),
            ref=request.ref,
        )

    def results_link(self, config: EventConfig) -> str:
        """The event's results page, for anyone (no secret of a match in play is on it)."""
        token = self.server.keys.results_token(config.event_id, config.nonce)
        return f"{self.server.public_url}/event#{token}"

    # -- the results link --------------------------------------------------------------

    async def welcome(self, connection: Connection, token: str, version: int) -> None:
        """Sign ``connection`` in with an event's results link: it gets the event now and
        again whenever it changes (looked at every :data:`EVENT_EVERY` seconds)."""
        if version < 7:
            raise ProtocolError(
                ErrorCode.FORBIDDEN,
                "an event's results link is served from protocol version 7: say hello in it",
            )
        event_id = await self.server.store.event_of_token(token)
        if event_id is None:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "this results link's event is not here")
        view = event_view(await self._state(event_id))
        connection.event_id = event_id
        self.server.speak(connection, version)
        connection.send(
            encode(
                Welcome(
                    version=version,
                    versions=sorted(SUPPORTED_VERSIONS),
                    role="event",
                    event_id=event_id,
                    now=now_ms(),
                )
            )
        )
        connection.last_event = encode(view)
        connection.send(connection.last_event)

    async def _send_views(self) -> None:
        """Send each connection that follows an event the event, if it changed."""
        if self.server.stopping:
            return
        following: dict[str, list[Connection]] = {}
        for connection in self.server.connections:
            if connection.event_id is not None:
                following.setdefault(connection.event_id, []).append(connection)
        for event_id, connections in following.items():
            frame = encode(event_view(await self._state(event_id)))
            for connection in connections:
                if frame != connection.last_event:
                    connection.last_event = frame
                    connection.send(frame)

    # -- the organiser's requests ----------------------------------------------------------

    async def serve(self, request: EventRequest, organiser: bool = True) -> EventView:
        """The answer to an event request: the organiser's, or (``get_event`` only) a
        results link's, which is not given the link itself."""
        if isinstance(request, StartEventRound):
            await self._start_round(request)
        elif isinstance(request, AdjustEvent):
            await self._adjust(request)
        state = await self._state(request.event_id)
        results = self.results_link(state.config) if organiser else None
        return event_view(state).model_copy(update={"ref": request.ref, "results": results})

    async def _start_round(self, request: StartEventRound) -> None:
        event_id = request.event_id
        async with self._lock(event_id):
            for _ in range(5):
                state = await self._state(event_id)
                config, event_log = state.config, state.log
                upcoming = event_log.current + 1
                if event_log.ended or request.round > config.rounds:
                    raise ProtocolError(
                        ErrorCode.WRONG_PHASE,
                        f"the event has {config.rounds} rounds, all begun",
                        field="round",
                    )
                if request.round != upcoming:
                    raise ProtocolError(
                        ErrorCode.WRONG_PHASE,
                        f"round {upcoming} is the next to begin, not round {request.round}",
                        field="round",
                    )
                if upcoming > 1 and not state.round_finished(upcoming - 1):
                    raise ProtocolError(
                        ErrorCode.WRONG_PHASE,
                        f"round {upcoming - 1} is still being played",
                        field="round",
                    )
                entries: list[dict[str, Any]] = []
                if request.matches is not None:
                    if config.kind == "round_robin":
                        raise ProtocolError(
                            ErrorCode.INVALID_MESSAGE,
                            "a round robin's rounds follow its schedule: only a Swiss is "
                            "re-paired by hand",
                            field="matches",
                        )
                    plan = domain.RoundPlan(
                        tuple(domain.Pairing(m.home, m.away) for m in request.matches),
                        request.bye,
                    )
                    try:
                        domain.check_round(len(config.teams), plan)
                    except BridgeError as error:
                        raise ProtocolError(
                            ErrorCode.INVALID_MESSAGE, str(error), field="matches"
                        ) from None
                    entries.append(pairing_entry(upcoming, plan, "organiser"))
                elif upcoming not in event_log.pairings:
                    entries.append(pairing_entry(upcoming, state.next_pairing(), "event"))
                entries.append({"kind": "start", "round": upcoming})
                if await self.server.store.append_event(event_id, entries, event_log.length):
                    break
            else:
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE, "the event kept changing meanwhile: send it again"
                )
        await self.advance(event_id)

    async def _adjust(self, request: AdjustEvent) -> None:
        event_id = request.event_id
        entry = {
            "kind": "adjust",
            "team": request.team,
            "vps": str(Decimal(str(request.vps)).quantize(Decimal("0.01"))),
            "reason": request.reason,
            "round": request.round,
        }
        for _ in range(5):
            state = await self._state(event_id)
            if request.team > len(state.config.teams):
                raise ProtocolError(
                    ErrorCode.INVALID_MESSAGE,
                    f"the event has {len(state.config.teams)} teams",
                    field="team",
                )
            if request.round is not None and request.round > state.config.rounds:
                raise ProtocolError(
                    ErrorCode.INVALID_MESSAGE,
                    f"the event has {state.config.rounds} rounds",
                    field="round",
                )
            if await self.server.store.append_event(event_id, [entry], state.log.length):
                return
        raise ProtocolError(
            ErrorCode.UNAVAILABLE, "the event kept changing meanwhile: send it again"
        )

    async def list_events(self, request: ListEvents) -> EventList:
        """Every event on this server, newest first, as the organiser's list shows it."""
        entries: list[EventEntry] = []
        for event_id in await self.server.store.event_ids():
            view = event_view(state := await self._state(event_id))
            ahead = [s for s in view.standings if s.rank == 1]
            leader = None
            if len(ahead) == 1 and any(s.played for s in view.standings):
                leader = state.config.teams[ahead[0].team - 1].name
            entries.append(
                EventEntry(
                    event_id=event_id,
                    name=view.name,
                    kind=view.kind,
                    status=view.status,
                    teams=len(view.teams),
                    rounds=view.rounds,
                    round=view.round,
                    created_at=state.config.created_at,
                    leader=leader,
                )
            )
        entries.sort(key=lambda entry: (entry.created_at, entry.event_id), reverse=True)
        return EventList(events=entries, ref=request.ref)

    async def record(self, request: GetRecord) -> MatchRecord:
        """The PBN of the whole event, once it has ended (every match, round by round)."""
        assert request.event_id is not None
        if request.format != "pbn":
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE, "an event's record is PBN only", field="format"
            )
        state = await self._state(request.event_id)
        if event_view(state).status != "finished":
            raise ProtocolError(
                ErrorCode.WRONG_PHASE,
                "an event's record is given once the event has ended (each match's is "
                "given once it has: get_record with its match_id)",
                field="event_id",
            )
        config = state.config
        matches = []
        for (round_number, index), outcome in sorted(state.outcomes.items()):
            pairing = state.log.pairings[round_number].matches[index]
            matches.append(
                (
                    round_number,
                    config.teams[pairing.home - 1].name,
                    config.teams[pairing.away - 1].name,
                    await self._match_state(outcome.match_id),
                )
            )
        return MatchRecord(format="pbn", record=event_record(config.name, matches), ref=request.ref)

    # -- running -------------------------------------------------------------------------

    async def advance(self, event_id: str) -> None:
        """Do what is due in the event: create the matches of the round begun, log the end
        of the last round, or the next round's pairing and (``auto``) its start."""
        if self.server.stopping:
            return
        async with self._lock(event_id):
            for _ in range(4):  # each step appends once: after a step, read again
                if not await self._step(await self._state(event_id)):
                    return

    async def _step(self, state: EventState) -> bool:
        config, event_log = state.config, state.log
        store = self.server.store
        if event_log.ended:
            await store.end_event(config.event_id)
            return False
        current = event_log.current
        if current:
            plan = event_log.pairings[current]
            missing = [
                index
                for index in range(len(plan.matches))
                if f"{current}:{index}" not in state.matches
            ]
            if missing:
                await self._create_matches(state, current, missing)
                return True
            if not state.round_finished(current):
                return False
            if current == config.rounds:
                await store.append_event(config.event_id, [{"kind": "end"}], event_log.length)
                return True
        upcoming = current + 1
        entries: list[dict[str, Any]] = []
        if upcoming not in event_log.pairings:
            entries.append(pairing_entry(upcoming, state.next_pairing(), "event"))
        if config.start == "auto":
            entries.append({"kind": "start", "round": upcoming})
        if not entries:
            return False
        await store.append_event(config.event_id, entries, event_log.length)
        return True

    async def _create_matches(
        self, state: EventState, round_number: int, indexes: list[int]
    ) -> None:
        config = state.config
        plan = state.log.pairings[round_number]
        pbn = round_pbn(config, round_number)
        for index in indexes:
            request = match_request(config, round_number, index, plan.matches[index], pbn)
            answer = await self.server.organising.organise(request)
            assert isinstance(answer, MatchCreated)
            await self.server.store.event_match(
                config.event_id, f"{round_number}:{index}", answer.match_id
            )

    async def _state(self, event_id: str) -> EventState:
        loaded = await self.server.store.event(event_id)
        if loaded is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE, f"no event {event_id} here", field="event_id"
            )
        text, entries, matches = loaded
        config = EventConfig.from_json(text)
        found = await self._outcomes(list(matches.values()))
        outcomes = {
            (int(round_text), int(index_text)): found[match_id]
            for key, match_id in matches.items()
            for round_text, index_text in [key.split(":")]
        }
        return EventState(config, EventLog.read(entries), matches, outcomes)

    async def _outcomes(self, match_ids: list[str]) -> dict[str, MatchOutcome]:
        """Each match's outcome: from its runtime when this process runs it, else as
        followed here (one round trip asks how far every such match's log has grown; only a
        match whose log grew is read, from where it was read to)."""
        runtimes = self.server.runtimes
        found = {
            match_id: MatchOutcome.of(match_id, runtimes[match_id].state)
            for match_id in match_ids
            if match_id in runtimes
        }
        others = [match_id for match_id in match_ids if match_id not in found]
        async with self._following:
            lengths = await self.server.store.log_lengths(others)
            for match_id, length in zip(others, lengths, strict=True):
                followed = self._followed.get(match_id)
                if followed is None or followed.length < length:
                    followed = self._followed[match_id] = await self._follow(match_id, followed)
                found[match_id] = followed.outcome
        return found

    async def _follow(self, match_id: str, before: _Followed | None) -> _Followed:
        """A match's outcome read on from where ``before`` left it (from the start when
        there is nothing to read on from: first seen, or changed after it ended)."""
        if before is None or before.state is None:
            state, length, last_id = await self._fold(match_id)
        else:
            state = before.state
            entries, last_id = await self.server.store.entries_after(match_id, before.last_id)
            for table, event in entries:
                state.apply(table, event)
            length = before.length + len(entries)
        outcome = MatchOutcome.of(match_id, state)
        # An ended match rarely changes again (a director's late ruling): its state is not
        # kept, and read whole if it does.
        kept = None if outcome.status == "finished" else state
        return _Followed(length, last_id, outcome, kept)

    async def _match_state(self, match_id: str) -> MatchState:
        """A match's whole state: its runtime's here, else folded from the store."""
        runtime = self.server.runtimes.get(match_id)
        if runtime is not None:
            return runtime.state
        return (await self._fold(match_id))[0]

    async def _fold(self, match_id: str) -> tuple[MatchState, int, str]:
        """A match folded from the store without a runtime, with how many entries of its
        watchers' log that took and the id of the last."""
        logs = await self.server.store.load(match_id)
        if logs is None:
            raise BridgeError(f"the event's match {match_id} is not in the store")
        return fold(logs.config, logs.tables, logs.watch), len(logs.watch), logs.last_id

    @contextlib.asynccontextmanager
    async def _lock(self, event_id: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(event_id, asyncio.Lock())
        async with lock:
            yield


def event_config(request: CreateEvent) -> EventConfig:
    """The event a ``create_event`` asks for, its boards dealt or read (ProtocolError,
    naming the field, for a bad request)."""
    names = [team.name for team in request.teams]
    if len(set(names)) != len(names):
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE, "two teams of the event have the same name", field="teams"
        )
    teams: list[EventTeam] = []
    for team in request.teams:
        if team.robots and team.players:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"team {team.name!r}: a team of robots has no players to name",
                field="teams",
            )
        if not team.robots and not 4 <= len(team.players) <= 6:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"team {team.name!r}: a team has four to six players, or robots",
                field="teams",
            )
        if len(set(team.players)) != len(team.players):
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"team {team.name!r}: two players have the same name",
                field="teams",
            )
        teams.append(
            EventTeam(team.name, ROBOT_PLAYERS if team.robots else tuple(team.players), team.robots)
        )
    count = len(teams)
    if request.kind == "round_robin":
        rounds = len(domain.round_robin(count))
        if request.rounds not in (None, rounds):
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"a round robin of {count} teams has {rounds} rounds",
                field="rounds",
            )
    else:
        if request.rounds is None:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE, "a Swiss needs its number of rounds", field="rounds"
            )
        rounds = request.rounds
        if rounds > count - 1 + count % 2:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"{count} teams meet each other in {count - 1 + count % 2} rounds: a Swiss "
                "of more would pair teams again",
                field="rounds",
            )
    total = rounds * request.boards_per_round
    if total > 256:
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE,
            f"{rounds} rounds of {request.boards_per_round} boards: an event has at most "
            "256 boards",
            field="boards_per_round",
        )
    try:
        if request.deals_pbn is not None:
            boards = boards_from_pbn(request.deals_pbn, total)
            if len(boards) < total:
                raise BridgeError(
                    f"the event plays {total} boards; the PBN has {len(boards)} deals"
                )
        else:
            boards = dealt_boards(total)
    except BridgeError as error:
        raise ProtocolError(ErrorCode.BAD_DEALS, str(error), field="deals_pbn") from None
    return EventConfig(
        event_id=secrets.token_hex(8),
        name=request.name,
        kind=request.kind,
        teams=tuple(teams),
        rounds=rounds,
        boards_per_round=request.boards_per_round,
        bye_vps=Decimal(str(request.bye_vps)).quantize(Decimal("0.01")),
        start=request.start,
        first_round=request.first_round,
        draw=secrets.randbits(64),
        nonce=secrets.token_hex(16),
        robot_level=request.robot_level,
        robot_delay_ms=request.robot_delay_ms,
        created_at=now_ms(),
        boards=boards,
    )


def round_pbn(config: EventConfig, round_number: int) -> str:
    """The round's boards as the PBN its matches are created with."""
    return dump_games(
        PbnGame(
            event=config.name,
            board=board.number,
            dealer=board.dealer,
            vulnerability=board.vulnerability,
            deal=board.deal,
        )
        for board in config.round_boards(round_number)
    )


def match_request(
    config: EventConfig, round_number: int, index: int, pairing: domain.Pairing, pbn: str
) -> CreateMatch:
    """The ``create_match`` of the event's match ``index`` of ``round_number``: made once
    however often it is sent (its ``request_id``)."""
    home, away = config.teams[pairing.home - 1], config.teams[pairing.away - 1]
    names: dict[str, str] = {}
    robots: list[str] = []
    for team, seats in ((home, HOME_SEATS), (away, AWAY_SEATS)):
        for seat, player in zip(seats, team.players, strict=False):
            names[seat] = player
            if team.robots:
                robots.append(seat)
    return CreateMatch(
        boards=config.boards_per_round,
        team_a=home.name,
        team_b=away.name,
        deals_pbn=pbn,
        names=names,
        robots=robots,
        robot_level=config.robot_level,  # type: ignore[arg-type]
        robot_delay_ms=config.robot_delay_ms,
        request_id=f"event:{config.event_id}:{round_number}:{index}",
    )

"""Events of many matches against a real server and Redis: a Swiss of five teams played to
the end by robots, checked against a calculation written out here; a round robin; the
organiser's hand re-pairing and adjustments; a round's start raced by two processes; and a
restart in the middle of a round."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis
from websockets.asyncio.client import connect

from bridge.pbn import parse_games
from bridge.scoring import imps
from bridge.vp import victory_points
from clients.client import Client, ClientError, Link
from clients.robot import Action, Robot
from protocol.errors import ErrorCode
from protocol.messages import EventTeamSpec, EventView, GetEvent, PlayerView
from server.app import Server
from server.redis_process import RedisProcess
from tests.conftest import ORGANISER_KEY, serving_on

pytestmark = pytest.mark.asyncio

DATA = Path(__file__).parent.parent / "data"


def team(name: str, robots: bool = False) -> EventTeamSpec:
    if robots:
        return EventTeamSpec(name=name, robots=True)
    return EventTeamSpec(name=name, players=[f"{name} {n}" for n in range(1, 5)])


FIVE = [team("Ash"), team("Birch"), team("Cedar"), team("Dogwood"), team("Robots", robots=True)]


@pytest.fixture
def server(own_server: Server) -> Server:
    """An event reads the whole store's matches: a Redis of the test's own."""
    return own_server


async def organiser(server: Server) -> Client:
    return await Client.connect(Link(server.ws_url, ORGANISER_KEY), name="test director")


class Passer(Robot):
    """A robot that passes whenever it is to call, and plays as a robot does."""

    def next_action(self, view: PlayerView) -> tuple[Action | None, bool]:
        board, client = view.board, self.client
        if (
            board is not None
            and client is not None
            and board.phase == "auction"
            and board.acting == view.seat
            and "P" in board.legal
        ):
            return (lambda: client.call("P")), False
        return super().next_action(view)


class Players:
    """Robots at every seat of the event's matches that people would play: each match's
    links, asked for as its round begins, as a director would hand them out."""

    def __init__(self, server: Server, director: Client) -> None:
        self.server, self.director = server, director
        self.seated: set[str] = set()
        self.robots: list[Robot] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def seat(self, view: EventView) -> None:
        for round_entry in view.schedule:
            for match in round_entry.matches:
                if match.match_id is None or match.match_id in self.seated:
                    continue
                self.seated.add(match.match_id)
                links = await self.director.links(match.match_id)
                for entry in links.links:
                    if entry.role != "player" or entry.robot or entry.link is None:
                        continue
                    token = Link.parse(entry.link).token
                    # Ash and Cedar never bid: the two tables of their matches play the
                    # boards differently (the robots alone would bid and play them alike).
                    timid = str(entry.name).startswith(("Ash", "Cedar"))
                    robot = (Passer if timid else Robot)(
                        Link(self.server.ws_url, token), name=f"{entry.name}", delay=0.0
                    )
                    self.robots.append(robot)
                    self.tasks.append(asyncio.create_task(robot.run()))

    async def play_until(
        self,
        event_id: str,
        done: Callable[[EventView], bool] = lambda view: view.status == "finished",
        timeout: float = 240,
    ) -> EventView:
        """Seat robots as rounds begin until ``done(view)``: by default, the event's end."""
        async with asyncio.timeout(timeout):
            while True:
                view = await self.director.get_event(event_id)
                await self.seat(view)
                if done(view):
                    return view
                await asyncio.sleep(0.2)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for robot in self.robots:
            assert robot.errors == [], robot.errors


@pytest_asyncio.fixture
async def players(server: Server) -> AsyncIterator[Players]:
    director = await organiser(server)
    seated = Players(server, director)
    try:
        yield seated
    finally:
        await seated.close()
        await director.close()


async def test_a_swiss_of_five_teams_is_played_to_the_end(server: Server, players: Players) -> None:
    director = players.director
    created = await director.create_event(
        FIVE,
        kind="swiss",
        rounds=3,
        boards_per_round=2,
        name="Club Swiss",
        robot_delay_ms=0,
        deals_pbn=(DATA / "pbn_1998_euro_youth_teams_ger_aut_r1.pbn").read_text(),
    )
    assert created.rounds == 3
    view = await players.play_until(created.event_id)
    assert view.status == "finished"
    assert [r.round for r in view.schedule] == [1, 2, 3]

    # Pairings: no two teams meet twice, a different team sits out each round.
    met = [frozenset((m.home, m.away)) for r in view.schedule for m in r.matches]
    assert len(met) == len(set(met)) == 6
    byes = [r.bye for r in view.schedule]
    assert len(set(byes)) == 3
    assert None not in byes
    for r in view.schedule:
        assert sorted([m.home for m in r.matches] + [m.away for m in r.matches] + [r.bye]) == [
            1,
            2,
            3,
            4,
            5,
        ]
    # Round 1 seeded: top half against bottom half, 1 v 3, 2 v 4, and 5 sits out.
    assert [(m.home, m.away) for m in view.schedule[0].matches] == [(1, 3), (2, 4)]
    assert view.schedule[0].bye == 5

    # Each match's IMPs as the match itself has them; VPs by the WBF's scale (checked
    # against the WBF's published tables in tests/bridge/test_vp.py).
    vps: Counter[int] = Counter()
    for_: Counter[int] = Counter()
    against: Counter[int] = Counter()
    for r in view.schedule:
        assert r.boards == [2 * r.round - 1, 2 * r.round]
        assert r.bye is not None
        vps[r.bye] += Decimal("12.00")
        for m in r.matches:
            assert m.match_id is not None
            state = (await server.runtime(m.match_id)).state
            assert state.finished
            assert (m.home_imps, m.away_imps) == (state.match.imps_a, state.match.imps_b)
            assert m.home_imps is not None
            assert m.away_imps is not None
            home_vps, away_vps = victory_points(m.home_imps - m.away_imps, 2)
            assert (Decimal(str(m.home_vps)), Decimal(str(m.away_vps))) == (home_vps, away_vps)
            vps[m.home] += home_vps
            vps[m.away] += away_vps
            for_[m.home] += m.home_imps
            against[m.home] += m.away_imps
            for_[m.away] += m.away_imps
            against[m.away] += m.home_imps
    # Standings: by VPs (the tie-breaks are the domain's tests'), every figure as added here.
    assert [Decimal(str(s.vps)) for s in view.standings] == sorted(vps.values(), reverse=True)
    for s in view.standings:
        assert Decimal(str(s.vps)) == vps[s.team]
        assert (s.imps_for, s.imps_against) == (for_[s.team], against[s.team])
        assert s.played == 3 - byes.count(s.team)
    assert any(m.home_imps != m.away_imps for r in view.schedule for m in r.matches)
    # The cross-table: each match twice, once from each side.
    crossed = {(c.team, c.opponent): c for c in view.cross_table}
    assert len(crossed) == 12
    for r in view.schedule:
        for m in r.matches:
            home, away = crossed[(m.home, m.away)], crossed[(m.away, m.home)]
            assert (home.round, home.imps_for, home.imps_against) == (
                r.round,
                m.home_imps,
                m.away_imps,
            )
            assert (away.imps_for, away.vps) == (m.away_imps, m.away_vps)

    # Butler: each board's datum the mean of its four tables' North-South scores (too few
    # to drop the top and bottom), rounded to ten; each pair's IMPs against it.
    assert [t.board for t in view.travellers] == [1, 2, 3, 4, 5, 6]
    pair_imps: Counter[tuple[int, tuple[str, ...]]] = Counter()
    pair_boards: Counter[tuple[int, tuple[str, ...]]] = Counter()
    names = {t.team: set(t.players) for t in view.teams}
    for traveller in view.travellers:
        assert len(traveller.lines) == 4
        mean = Fraction(sum(line.score for line in traveller.lines), 4)
        tens = int(abs(mean) / 10 + Fraction(1, 2))  # to the nearest ten, halves away from 0
        datum = 10 * tens if mean >= 0 else -10 * tens
        assert traveller.datum == datum
        for line in traveller.lines:
            assert line.ns_imps == imps(line.score - datum)
            ns_team = next(t for t, n in names.items() if set(line.north_south) <= n)
            ew_team = next(t for t, n in names.items() if set(line.east_west) <= n)
            pair_imps[(ns_team, tuple(sorted(line.north_south)))] += line.ns_imps
            pair_imps[(ew_team, tuple(sorted(line.east_west)))] -= line.ns_imps
            pair_boards[(ns_team, tuple(sorted(line.north_south)))] += 1
            pair_boards[(ew_team, tuple(sorted(line.east_west)))] += 1
    # The PBN of the whole event: every table's result on every board, as the travellers.
    games = parse_games(await director.record(event_id=created.event_id))
    assert sorted((g.board, g.score) for g in games) == sorted(
        (t.board, line.score) for t in view.travellers for line in t.lines
    )
    assert len(games) == 24
    assert len(view.butler) == 10  # five teams of two pairs
    for entry in view.butler:
        key = (entry.team, tuple(entry.players))
        assert (entry.imps, entry.boards) == (pair_imps[key], pair_boards[key])
    # Pairs that sat out a round played fewer boards: ranked by IMPs a board.
    assert len(set(pair_boards.values())) == 2
    per_board = [Fraction(e.imps, e.boards) for e in view.butler]
    assert per_board == sorted(
        (Fraction(pair_imps[k], pair_boards[k]) for k in pair_imps), reverse=True
    )
    assert [Decimal(str(e.per_board)) for e in view.butler] == [
        (Decimal(f.numerator) / f.denominator).quantize(Decimal("0.01"), ROUND_HALF_UP)
        for f in per_board
    ]


async def test_a_round_robin_of_four_teams_meets_each_pair_once(
    server: Server, players: Players
) -> None:
    director = players.director
    teams = [team("North"), team("South", robots=True), team("East"), team("West")]
    created = await director.create_event(
        teams, kind="round_robin", boards_per_round=1, robot_delay_ms=0
    )
    assert created.rounds == 3
    view = await players.play_until(created.event_id)
    met = [frozenset((m.home, m.away)) for r in view.schedule for m in r.matches]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(p) for p in ((1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))), key=sorted
    )
    homes = Counter(m.home for r in view.schedule for m in r.matches)
    assert all(1 <= homes[t] <= 2 for t in (1, 2, 3, 4))
    assert all(r.bye is None for r in view.schedule)
    assert sum(s.played for s in view.standings) == 12


async def test_the_organiser_starts_and_re_pairs_rounds_and_adjusts(
    server: Server, players: Players
) -> None:
    director = players.director
    teams = [team("One"), team("Two"), team("Three", robots=True), team("Four", robots=True)]
    created = await director.create_event(
        teams, kind="swiss", rounds=2, boards_per_round=1, start="director", robot_delay_ms=0
    )
    view = await director.get_event(created.event_id)
    assert view.status == "waiting"
    assert view.schedule[0].status == "drawn"
    assert all(m.match_id is None for m in view.schedule[0].matches)
    refusals = [
        ({"round": 2}, ErrorCode.WRONG_PHASE),
        ({"round": 1, "matches": [(1, 2), (1, 3)]}, ErrorCode.INVALID_MESSAGE),
        ({"round": 1, "matches": [(1, 2)]}, ErrorCode.INVALID_MESSAGE),
    ]
    for options, code in refusals:
        with pytest.raises(ClientError) as refused:
            await director.start_event_round(created.event_id, **options)  # type: ignore[arg-type]
        assert refused.value.code == code, options
    assert (await director.get_event(created.event_id)).round == 0  # nothing changed
    view = await director.start_event_round(created.event_id, 1, matches=[(1, 4), (3, 2)])
    assert [(m.home, m.away) for m in view.schedule[0].matches] == [(1, 4), (3, 2)]
    assert all(m.match_id is not None for m in view.schedule[0].matches)
    with pytest.raises(ClientError) as refused:
        await director.start_event_round(created.event_id, 2)
    assert refused.value.code == ErrorCode.WRONG_PHASE  # round 1 is being played
    # Once round 1 has ended, round 2 is drawn (within a second: the events are looked
    # at every second) and waits for the director.
    view = await players.play_until(created.event_id, lambda view: len(view.schedule) == 2)
    assert view.round == 1
    assert [r.status for r in view.schedule] == ["finished", "drawn"]
    drawn = view.schedule[1].matches
    assert {frozenset((m.home, m.away)) for m in drawn}.isdisjoint(
        {frozenset((1, 4)), frozenset((3, 2))}
    )
    before = {s.team: s.vps for s in view.standings}
    view = await director.adjust_event(created.event_id, 2, -1.5, "slow play", round=1)
    assert {s.team: s.vps for s in view.standings}[2] == pytest.approx(before[2] - 1.5)
    assert [(a.team, a.vps, a.reason) for a in view.adjustments] == [(2, -1.5, "slow play")]
    view = await director.start_event_round(created.event_id, 2)
    assert [(m.home, m.away) for m in view.schedule[1].matches] == [(m.home, m.away) for m in drawn]
    view = await players.play_until(created.event_id)
    assert view.status == "finished"
    with pytest.raises(ClientError) as refused:
        await director.start_event_round(created.event_id, 3)
    assert refused.value.code == ErrorCode.WRONG_PHASE


async def test_only_the_organiser_runs_events(server: Server, players: Players) -> None:
    director = players.director
    created = await director.create_event(
        [team("A", robots=True), team("B", robots=True)], kind="round_robin", start="director"
    )
    bad = [
        ({"teams": [team("A"), team("A", robots=True)]}, "teams"),
        ({"teams": [EventTeamSpec(name="A", players=["x", "y", "z"]), team("B")]}, "teams"),
        ({"teams": [team("A"), team("B")], "kind": "swiss"}, "rounds"),
        ({"teams": [team("A"), team("B")], "kind": "swiss", "rounds": 2}, "rounds"),
        ({"teams": [team("A"), team("B")], "kind": "round_robin", "rounds": 3}, "rounds"),
        ({"teams": [team("A"), team("B")], "deals_pbn": "nonsense"}, "deals_pbn"),
    ]
    for options, field in bad:
        options.setdefault("kind", "round_robin")
        with pytest.raises(ClientError) as refused:
            await director.create_event(**options)  # type: ignore[arg-type]
        assert refused.value.field == field, options
    with pytest.raises(ClientError) as refused:
        await director.get_event("0" * 16)
    assert refused.value.field == "event_id"
    match_id = None
    listed = await director.list_events()
    entry = next(e for e in listed.events if e.event_id == created.event_id)
    assert (entry.status, entry.teams, entry.rounds, entry.round, entry.leader) == (
        "waiting",
        2,
        1,
        0,
        None,
    )
    view = await director.start_event_round(created.event_id, 1)
    match_id = view.schedule[0].matches[0].match_id
    assert match_id is not None
    links = await director.links(match_id)
    spectator = next(e.link for e in links.links if e.role == "spectator")
    assert spectator is not None
    watcher = await Client.connect(Link(server.ws_url, Link.parse(spectator).token), name="w")
    with pytest.raises(ClientError) as refused:
        await watcher.get_event(created.event_id)
    assert refused.value.code == ErrorCode.FORBIDDEN
    await watcher.close()


async def robots_until_finished(server: Server, event_id: str, timeout: float = 120) -> EventView:
    director = await organiser(server)
    try:
        async with asyncio.timeout(timeout):
            while (view := await director.get_event(event_id)).status != "finished":
                await asyncio.sleep(0.2)
        return view
    finally:
        await director.close()


async def test_two_processes_begin_each_round_once(own_redis: RedisProcess) -> None:
    """Two servers on one store both look after the event: each sees every round end,
    and both try to begin the next at the same moment; each round begins once."""
    redis_a, redis_b = Redis.from_url(own_redis.url), Redis.from_url(own_redis.url)
    try:
        async with serving_on(redis_a) as first, serving_on(redis_b) as second:
            director = await organiser(first)
            teams = [team(name, robots=True) for name in ("P", "Q", "R", "S")]
            created = await director.create_event(
                teams, kind="round_robin", boards_per_round=1, robot_delay_ms=0
            )
            await director.close()
            event_id = created.event_id
            async with asyncio.timeout(120):
                while True:
                    # Both at once, besides their own looks every second.
                    await asyncio.gather(
                        first.events.advance(event_id), second.events.advance(event_id)
                    )
                    # Three readers at once: each reads on the matches second does not run.
                    views = await asyncio.gather(
                        *(second.events.serve(GetEvent(event_id=event_id)) for _ in range(3))
                    )
                    view = views[-1]
                    if view.status == "finished":
                        break
                    await asyncio.sleep(0.05)
            # The last match may have ended after this pass's looks: the end is logged by
            # the next, raced by both again.
            await asyncio.gather(first.events.advance(event_id), second.events.advance(event_id))
            loaded = await first.store.event(event_id)
            assert loaded is not None
            _, entries, matches = loaded
            starts = [e["round"] for e in entries if e["kind"] == "start"]
            pairings = [e["round"] for e in entries if e["kind"] == "pairing"]
            assert starts == pairings == [1, 2, 3]
            assert [e["kind"] for e in entries].count("end") == 1
            assert sorted(matches) == ["1:0", "1:1", "2:0", "2:1", "3:0", "3:1"]
            assert len(set(matches.values())) == 6
            # No match made twice: the store holds the six, and the first two processes'
            # tries at each made the same one.
            assert len(await first.store.match_ids()) == 6
            assert all(m.status == "finished" for r in view.schedule for m in r.matches)
            # Each match ran in one process; the other read its outcome from the store
            # (no runtime of it there: no following, no timers), and says the same.
            ran = [set(first.runtimes), set(second.runtimes)]
            assert ran[0] | ran[1] == set(matches.values())
            assert not ran[0] & ran[1]
            again = await first.events.serve(GetEvent(event_id=event_id))
            mine = {"results": None}  # each process's own address
            assert again.model_copy(update=mine) == view.model_copy(update=mine)
    finally:
        await redis_a.aclose()
        await redis_b.aclose()


async def test_an_event_goes_on_after_a_restart_in_the_middle_of_a_round(
    own_redis: RedisProcess,
) -> None:
    redis = Redis.from_url(own_redis.url)
    try:
        async with serving_on(redis) as before:
            director = await organiser(before)
            teams = [team(name, robots=True) for name in ("X", "Y", "Z")]
            created = await director.create_event(
                teams, kind="round_robin", boards_per_round=2, robot_delay_ms=50
            )
            view = await director.get_event(created.event_id)
            assert view.round == 1
            assert view.status == "playing"
            await director.close()
        # The process stopped with round 1 under way; another takes the event over.
        async with serving_on(redis) as after:
            view = await robots_until_finished(after, created.event_id)
        assert [r.status for r in view.schedule] == ["finished"] * 3
        assert len({r.bye for r in view.schedule}) == 3  # each team sits out once
        assert sum(s.played for s in view.standings) == 6
        loaded = await after.store.event(created.event_id)
        assert loaded is not None
        assert [e["round"] for e in loaded[1] if e["kind"] == "start"] == [1, 2, 3]
    finally:
        await redis.aclose()


async def test_the_results_link_shows_nothing_of_a_match_in_play(
    server: Server, players: Players
) -> None:
    """Anyone with the results link follows the event as it goes: an ended match's score,
    but a board's results only once every table of the event has played it."""
    director = players.director
    teams = [team("Quick", robots=True), team("Slow"), team("Swift", robots=True), team("Late")]
    created = await director.create_event(
        teams, kind="swiss", rounds=1, boards_per_round=1, first_round="seeded", robot_delay_ms=0
    )
    assert created.results is not None
    assert created.results.startswith(f"{server.public_url}/event#ev_")
    viewer = await Client.connect(Link.parse(created.results), name="results page")
    try:
        assert viewer.welcome is not None
        assert (viewer.welcome.role, viewer.welcome.event_id) == ("event", created.event_id)
        # Seeded: 1 v 3, the robots' match, which ends at once; 2 v 4 waits for its people.
        view = await viewer.wait_for_event(
            lambda v: v if v.schedule and v.schedule[0].matches[0].status == "finished" else None
        )
        ended, waiting = view.schedule[0].matches
        assert (ended.home, ended.away, waiting.home, waiting.away) == (1, 3, 2, 4)
        assert ended.home_imps is not None
        assert ended.home_vps is not None
        assert waiting.home_imps is None
        assert view.travellers == []
        assert view.butler == []
        assert view.results is None  # the organiser's alone
        assert all(s.played == 0 for s in view.standings if s.team in (2, 4))
        with pytest.raises(ClientError) as refused:
            await viewer.get_event("0" * 16)
        assert refused.value.code == ErrorCode.FORBIDDEN
        with pytest.raises(ClientError) as refused:
            await viewer.adjust_event(created.event_id, 1, 1.0, "mine")
        assert refused.value.code == ErrorCode.FORBIDDEN
        asked = await viewer.get_event(created.event_id)
        assert asked.schedule == view.schedule
        with pytest.raises(ClientError) as refused:
            await viewer.record(event_id=created.event_id)
        assert refused.value.code == ErrorCode.WRONG_PHASE  # not before the event's end
        # Every frame it was sent before the board was played everywhere kept it hidden.
        await players.play_until(created.event_id)
        done = await viewer.wait_for_event(lambda v: v if v.status == "finished" else None)
        assert [t.board for t in done.travellers] == [1]
        assert len(done.travellers[0].lines) == 4
        assert len(parse_games(await viewer.record(event_id=created.event_id))) == 4
        sent = [m for m in viewer.received if isinstance(m, EventView)]
        for frame in sent:
            in_play = any(m.status != "finished" for r in frame.schedule for m in r.matches)
            if in_play:
                assert frame.travellers == []
                assert frame.butler == []
            for r in frame.schedule:
                for m in r.matches:
                    if m.status != "finished":
                        assert (m.home_imps, m.home_vps) == (None, None)
    finally:
        await viewer.close()
    with pytest.raises(ClientError) as refused:
        await Client.connect(Link(server.ws_url, "ev_" + "x" * 32), name="guess")
    assert refused.value.code == ErrorCode.BAD_TOKEN


async def test_a_results_link_is_served_in_version_7(server: Server) -> None:
    director = await organiser(server)
    created = await director.create_event(
        [team("A", robots=True), team("B", robots=True)], kind="round_robin", start="director"
    )
    await director.close()
    assert created.results is not None
    token = Link.parse(created.results).token
    async with connect(server.ws_url) as websocket:
        await websocket.send(msgpack.packb({"type": "hello", "version": 6, "token": token}))
        refusal = msgpack.unpackb(await websocket.recv())
        assert refusal["code"] == "forbidden"
        hello = {"type": "hello", "version": 7, "versions": [7], "token": token}
        await websocket.send(msgpack.packb(hello))
        welcome = msgpack.unpackb(await websocket.recv())
        assert (welcome["role"], welcome["event_id"]) == ("event", created.event_id)
        event = msgpack.unpackb(await websocket.recv())
        assert (event["type"], event["ref"], event["results"]) == ("event", None, None)

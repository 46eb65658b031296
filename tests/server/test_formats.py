"""Every format of the seeds played to its end over real WebSockets by the server's robots
(RULES.md 6.1-6.5): the standings checked against a calculation written out here, every
frame each robot received audited for what its seat may see, each board compared once."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from statistics import mean

import msgpack
import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import connect

from bridge import Deal, Seat, imps
from bridge.commitment import verify_record
from bridge.formats import Movement
from bridge.lin import Room, parse_lin, parse_lin_match
from bridge.pbn import PbnGame, parse_games
from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import (
    Ack,
    BoardCompared,
    ComparisonView,
    MatchCreated,
    MatchSummary,
    PlayerView,
    StartRound,
    Update,
    WatchView,
)
from server.app import Server
from server.views import match_summary as state_summary
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    assert_changes_rebuild_every_view,
    assert_live_views_current,
    audit_moving_player,
    create,
)

STRONG = {"t1": "strong"}
"""The robots' levels in :data:`FORMATS`: table 1's players of round 1 strong, the others
seed (as the robots' table 2 of ``robot-table`` always is). In an individual everyone
partners everyone, and partners' robots play one system: the individual of 8 is played by
strong robots, the individual of 12 by seed robots (the strong level's card play is the
costliest part of the suite's robots)."""
ALL_STRONG = {"t1": "strong", "t2": "strong"}
FORMATS: dict[str, dict[str, object]] = {
    "teams": {"format": "teams", "boards": 2, "robots": ["t1", "t2"], "robot_levels": STRONG},
    "robot-table": {"format": "robot-table", "boards": 4, "robots": ["t1"], "robot_levels": STRONG},
    "team-of-four": {
        "format": "team-of-four",
        "boards": 4,
        "robots": ["t1", "t2"],
        "robot_levels": STRONG,
    },
    "replay board-a-match": {
        "format": "replay",
        "boards": 3,
        "robots": ["t1"],
        "robot_levels": STRONG,
    },
    "replay total points": {
        "format": "replay",
        "boards": 2,
        "scoring": "total_points",
        "robots": ["t1"],
        "robot_levels": STRONG,
    },
    "replay series of 3 sessions": {
        "format": "replay",
        "sessions": 3,
        "boards": 2,
        "robots": ["t1"],
        "robot_levels": {},
    },
    "individual of 8": {
        "format": "individual",
        "players": 8,
        "boards": 14,
        "robots": ["t1", "t2"],
        "robot_levels": ALL_STRONG,
    },
    "individual of 12, matchpoints": {
        "format": "individual",
        "players": 12,
        "boards": 11,
        "scoring": "matchpoints",
        "robots": ["t1", "t2", "t3"],
        "robot_levels": {},
    },
}


def tag(game: PbnGame, name: str) -> str:
    return next(t.value for t in game.other_tags if t.name == name)


def robots_named(created: MatchCreated) -> dict[int, str | None]:
    """The players the organiser's robots play, and their names ("Robot", or
    "Robot (strong)" at the strong level)."""
    return {seat.player: seat.name for seat in created.seats if seat.robot}


def deals_file(count: int, seed: int) -> tuple[str, dict[int, Deal]]:
    rng = random.Random(seed)
    deals = {n: Deal.random(rng) for n in range(1, count + 1)}
    text = "\n".join(f'[Board "{n}"]\n[Deal "{deal.to_pbn()}"]\n' for n, deal in deals.items())
    return text, deals


def expected_points(movement: Movement, comparison: ComparisonView) -> dict[str, float]:
    """Each competitor's points on one board, worked out from the published results: every
    player's side score set against the same side's score at each other play of the board
    (IMPs or total points averaged; matchpoints 2 a beat, 1 a tie, summed; board-a-match 1,
    a half, 0), a competitor getting its members' mean."""
    scores = {(r.round, r.table): r.ns_score for r in comparison.results}
    credits: dict[int, float] = {}
    for play, ns in scores.items():
        sitting = movement.sitting(*play)
        for seat in Seat:
            sign = 1 if seat in (Seat.NORTH, Seat.SOUTH) else -1
            mine = sign * ns
            theirs = [sign * other for where, other in scores.items() if where != play]
            if movement.scoring == "imps":
                credit = mean(imps(mine - t) for t in theirs)
            elif movement.scoring == "total_points":
                credit = mean(mine - t for t in theirs)
            elif movement.scoring == "board_a_match":
                credit = mean(1.0 if mine > t else 0.5 if mine == t else 0.0 for t in theirs)
            else:
                credit = float(sum(2 if mine > t else 1 if mine == t else 0 for t in theirs))
            credits[sitting.player(seat)] = credit
    members: defaultdict[str, list[float]] = defaultdict(list)
    for player, credit in credits.items():
        members[movement.competitors[player]].append(credit)
    return {name: mean(values) for name, values in members.items()}


def check_standings(movement: Movement, summary: MatchSummary, teams: bool) -> None:
    totals: defaultdict[str, float] = defaultdict(float)
    for comparison in summary.comparisons:
        assert len(comparison.results) == len(movement.plays(comparison.board))
        expected = expected_points(movement, comparison)
        assert comparison.points == pytest.approx(expected)
        if teams:
            one = next(r for r in comparison.results if r.table == 1)
            two = next(r for r in comparison.results if r.table == 2)
            assert comparison.swing == imps(one.ns_score - two.ns_score)
        else:
            assert comparison.swing is None
        for name, points in expected.items():
            totals[name] += points
    standings = {s.competitor: s.points for s in summary.standings}
    if teams:
        # The teams' totals are the IMPs each won.
        won_a = sum(max(c.swing or 0, 0) for c in summary.comparisons)
        won_b = sum(max(-(c.swing or 0), 0) for c in summary.comparisons)
        assert standings == {"A": won_a, "B": won_b}
        assert (summary.imps_a, summary.imps_b) == (won_a, won_b)
    else:
        assert standings == pytest.approx(dict(totals))
    points = [s.points for s in summary.standings]
    assert points == sorted(points, reverse=True)


def check_sessions(movement: Movement, summary: MatchSummary) -> None:
    """A series' sessions: each scores the boards it replays (worked out here from the
    published results), and the standings are their sum; any other match has none."""
    if not movement.sessions:
        assert summary.sessions == []
        return
    count = len(movement.sessions)
    assert [s.session for s in summary.sessions] == list(range(1, count + 1))
    replayed_in: dict[int, int] = {}
    for session in summary.sessions:
        for board in session.boards:
            replayed_in[board] = session.session
    totals: defaultdict[str, float] = defaultdict(float)
    for session in summary.sessions:
        expected: defaultdict[str, float] = defaultdict(float)
        for comparison in summary.comparisons:
            last_round = max(r.round for r in comparison.results)
            assert last_round in session.rounds or replayed_in[comparison.board] != session.session
            if replayed_in[comparison.board] == session.session:
                assert last_round in session.rounds
                for name, points in expected_points(movement, comparison).items():
                    expected[name] += points
        assert session.points == pytest.approx({"1-3": 0.0, "2-4": 0.0} | dict(expected))
        for name, points in session.points.items():
            totals[name] += points
    assert summary.sessions[0].boards == []  # the first session only plays
    assert sorted(replayed_in) == sorted(c.board for c in summary.comparisons)
    assert {s.competitor: s.points for s in summary.standings} == pytest.approx(dict(totals))


async def check_records_round_trip(
    server: Server, created: MatchCreated, client: Client, imported: bool
) -> None:
    """The match record exported as PBN and as LIN, read back, gives every table's play as
    the match holds it: the deal, the players, the calls and their alerts, the cards and the
    result; the deals verify against the commitment; and (``imported``) each export,
    imported as a new match, gives back the same comparisons."""
    state = (await server.runtime(created.match_id)).state
    config = state.config
    pbn = await client.record()
    lin = await client.record("lin")
    games = parse_games(pbn)
    boards = parse_lin(lin)
    assert len(games) == len(boards) > 0
    for game, board in zip(games, boards, strict=True):
        round_number, table = int(tag(game, "Round")), int(tag(game, "Table"))
        assert game.board is not None
        played = state.tables[table].board(game.board, round_number)
        assert played is not None
        assert played.result is not None
        spec = played.spec
        calls = [str(call) for call in played.auction.calls]
        cards = [] if played.play is None else [str(c) for _, c in played.play.cards_played]
        tricks = played.result.tricks if played.result.contract is not None else None
        sitting = config.movement.sitting(round_number, table)
        names = [state.people[sitting.player(seat)].name for seat in Seat]
        # PBN, read back.
        assert (game.deal, game.dealer, game.vulnerability) == (
            spec.deal,
            spec.dealer,
            spec.vulnerability,
        )
        assert game.auction is not None
        assert [str(a.call) for a in game.auction.calls] == calls
        pbn_alerts = {i: a.notes[0] for i, a in enumerate(game.auction.calls) if a.alert}
        assert pbn_alerts == played.alerts
        assert [str(card) for card in game.played_cards()] == cards
        assert game.result == tricks
        assert [game.player(seat) for seat in Seat] == names
        # LIN, read back.
        assert (board.number, board.deal, board.dealer, board.vulnerability) == (
            spec.number,
            spec.deal,
            spec.dealer,
            spec.vulnerability,
        )
        assert [str(c.call) for c in board.calls] == calls
        assert {i: c.explanation for i, c in enumerate(board.calls) if c.alert} == played.alerts
        assert [str(card) for card in board.cards] == cards
        assert board.result == tricks
        assert [board.player(seat) or None for seat in Seat] == names
        assert board.room == ((Room.OPEN if table == 1 else Room.CLOSED) if config.teams else None)
    assert verify_record(pbn, created.deals_commitment).games == len(games)
    if not imported:
        return
    match = parse_lin_match(lin)
    assert match.teams == (config.team_a, config.team_b)
    original = {c.board: c.swing for c in state_summary(state).comparisons}
    assert match.imps_by_board() == original
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    for text, format in ((pbn, "pbn"), (lin, "lin")):
        again = await organiser.import_match(text, format=format)  # type: ignore[arg-type]
        watcher = await Client.connect(again.director)
        assert watcher.view is not None
        assert watcher.view.match.finished
        assert {c.board: c.swing for c in watcher.view.match.comparisons} == original
        again_games = parse_games(await watcher.record())
        assert [(g.board, g.tag("Room"), g.auction, g.result) for g in again_games] == [
            (g.board, g.tag("Room"), g.auction, g.result) for g in games
        ]
        await watcher.close()
    await organiser.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("options", list(FORMATS.values()), ids=list(FORMATS))
async def test_a_format_played_to_its_end(server: Server, options: dict[str, object]) -> None:
    count = options["boards"]
    assert isinstance(count, int)
    sessions = options.get("sessions")
    if isinstance(sessions, int):  # a series: each session but the last plays a new set
        count *= sessions - 1
    text, deals = deals_file(count, seed=count)
    created = await create(server, deals_pbn=text, spectators="live", review_seconds=0, **options)
    movement = (await server.runtime(created.match_id)).config.movement
    assert sorted(seat.player for seat in created.seats) == [
        p for p in movement.players if p not in movement.robots
    ]
    director = await Client.connect(created.director)
    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=240)
    assert isinstance(final, WatchView)
    summary = final.match
    assert summary.format == options["format"]
    assert summary.rounds == len(movement.rounds)
    assert sorted(c.board for c in summary.comparisons) == list(range(1, count + 1))
    check_standings(
        movement, summary, teams=options["format"] != "replay" and options["format"] != "individual"
    )
    check_sessions(movement, summary)
    compared = [
        e.comparison.board
        for m in director.received
        if isinstance(m, Update)
        for e in m.events
        if isinstance(e, BoardCompared)
    ]
    assert sorted(compared) == list(range(1, count + 1))  # each board compared once
    # The record: every play of every board, as it was played there, by whom.
    games = parse_games(await director.record())
    played = sorted((g.board, int(tag(g, "Round")), int(tag(g, "Table"))) for g in games)
    assert played == sorted((b, r, t) for b in movement.boards for r, t in movement.plays(b))
    for game in games:
        assert game.board is not None
        sitting = movement.sitting(int(tag(game, "Round")), int(tag(game, "Table")))
        north = sitting.player(Seat.NORTH)
        assert game.north == robots_named(created).get(north)
        comparison = next(c for c in summary.comparisons if c.board == game.board)
        mine = next(
            r
            for r in comparison.results
            if (r.round, r.table) == (int(tag(game, "Round")), int(tag(game, "Table")))
        )
        assert game.score == mine.ns_score
    await check_records_round_trip(server, created, director, options["format"] == "teams")
    robots = [r for r in server.house.players if created.match_id in r.name]
    assert [robot.errors for robot in robots] == [[]] * len(robots)
    # The players set strong played strong, wherever they moved; the rest seed.
    levels = options["robot_levels"]
    assert isinstance(levels, dict)
    strong = {f"{key[-1]}{seat}" for key in levels for seat in "NESW"}
    assert {robot.name.split()[-1]: robot.level for robot in robots} == {
        robot.name.split()[-1]: "strong" if robot.name.split()[-1] in strong else "seed"
        for robot in robots
    }
    audited = 0
    for robot in robots:
        assert robot.client is not None
        rounds = set()
        for message in robot.client.received:
            if isinstance(message, Update):
                audit_moving_player(message, movement, deals)
                rounds.add(message.view.round)  # type: ignore[union-attr]
                audited += 1
        assert rounds == set(movement.rounds)  # it was there for every round
    assert audited > 0
    # Every update carried only what changed, and rebuilt each view exactly.
    await assert_live_views_current([director, *(r.client for r in robots if r.client)])
    assert await assert_changes_rebuild_every_view(server, created.match_id) > audited
    await director.close()


@pytest.mark.asyncio
async def test_replay_stage_two_waits_for_the_director_across_a_restart(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    first = Server(redis, ORGANISER_KEY, robot_delay=0)
    await first.start()
    text, _deals = deals_file(2, seed=5)
    created = await create(
        first, format="replay", boards=2, deals_pbn=text, robots=["t1"], stage_two="director"
    )
    director = await Client.connect(created.director)

    def stage_one_over(view: object) -> bool | None:
        assert isinstance(view, WatchView)
        return len(view.results) == 2 or None

    await director.wait_for(stage_one_over, timeout=60)
    robot = next(r for r in first.house.players if created.match_id in r.name)
    assert robot.client is not None
    waiting = await robot.client.wait_for(
        lambda v: v if v.match.held_round == 2 else None, timeout=10
    )
    assert isinstance(waiting, PlayerView)
    assert waiting.round == 1
    assert waiting.played_round
    assert waiting.waiting_for == []
    # Stage 1's results stay out of sight until each board's replay is finished.
    assert waiting.results == []
    with pytest.raises(ClientError) as hidden:
        await robot.client.board(1)
    assert hidden.value.code == ErrorCode.FORBIDDEN
    assert waiting.next_seat is not None  # where stage 2 seats this player
    assert (await first.runtime(created.match_id)).state.round == 1
    await director.close()
    await first.close()

    second = Server(redis, ORGANISER_KEY, port=first.port, robot_delay=0)
    await second.start()  # the match still waits: nothing starts stage 2 but the director
    try:
        director = await Client.connect(created.director)
        with pytest.raises(ClientError) as refused:
            await director.start_round(3)
        assert refused.value.code == ErrorCode.WRONG_PHASE
        await asyncio.sleep(0.5)
        view = director.view
        assert isinstance(view, WatchView)
        assert not view.match.finished
        assert all(board.round == 1 for board in view.tables)
        started = await director.request(
            lambda ref: StartRound(round=2, action_id="start stage 2", ref=ref)
        )
        assert isinstance(started, Ack)
        assert not started.repeated
        final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=60)
        assert isinstance(final, WatchView)
        assert sorted((r.round, r.board) for r in final.results) == [(1, 1), (1, 2), (2, 1), (2, 2)]
        with pytest.raises(ClientError) as again:
            await director.start_round(2)
        assert again.value.code == ErrorCode.WRONG_PHASE
        await director.close()
    finally:
        await second.close()
    # The same start_round sent again (its answer lost) after another restart: the first
    # one's ack, nothing done twice.
    third = Server(redis, ORGANISER_KEY, port=first.port, robot_delay=0)
    await third.start()
    try:
        director = await Client.connect(created.director)
        resent = await director.request(
            lambda ref: StartRound(round=2, action_id="start stage 2", ref=ref)
        )
        assert isinstance(resent, Ack)
        assert resent.repeated
        assert resent.seq == started.seq
        await director.close()
    finally:
        await third.close()


@pytest.mark.asyncio
async def test_a_replay_series_meets_again_at_the_directors_word(server: Server) -> None:
    # Three meetings of the same four (robots): the first plays boards 1-2, the second
    # replays them turned and plays 3-4, the third replays 3-4.
    text, _deals = deals_file(4, seed=9)
    created = await create(
        server,
        format="replay",
        sessions=3,
        boards=2,
        scoring="total_points",
        deals_pbn=text,
        robots=["t1"],
        stage_two="director",
    )
    director = await Client.connect(created.director)

    async def held(round_number: int) -> MatchSummary:
        def waiting(view: object) -> MatchSummary | None:
            assert isinstance(view, WatchView)
            return view.match if view.match.held_round == round_number else None

        found = await director.wait_for(waiting, timeout=60)
        assert isinstance(found, MatchSummary)
        return found

    first = await held(2)
    assert first.rounds == 4
    assert [(s.session, s.rounds, s.boards) for s in first.sessions] == [
        (1, [1], []),
        (2, [2, 3], [1, 2]),
        (3, [4], [3, 4]),
    ]
    assert first.comparisons == []  # nothing is compared before its replay
    assert [s.points for s in first.sessions] == [{"1-3": 0.0, "2-4": 0.0}] * 3
    with pytest.raises(ClientError) as early:
        await director.start_round(4)
    assert early.value.code == ErrorCode.WRONG_PHASE
    await director.start_round(2)
    # The second meeting replays set 1 and plays set 2 straight after, then waits.
    second = await held(4)
    assert sorted(c.board for c in second.comparisons) == [1, 2]
    one, two, three = second.sessions
    assert one.points == {"1-3": 0.0, "2-4": 0.0}
    assert two.points == pytest.approx(
        {name: sum(c.points[name] for c in second.comparisons) for name in ("1-3", "2-4")}
    )
    assert three.points == {"1-3": 0.0, "2-4": 0.0}
    with pytest.raises(ClientError) as not_held:
        await director.start_round(3)  # it followed by itself
    assert not_held.value.code == ErrorCode.WRONG_PHASE
    await director.start_round(4)
    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=60)
    assert isinstance(final, WatchView)
    summary = final.match
    movement = (await server.runtime(created.match_id)).config.movement
    check_sessions(movement, summary)
    assert summary.sessions[1].points == two.points
    assert summary.held_round is None
    await director.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"format": "teams", "sessions": 3}, "sessions", "for replay duplicate"),
        ({"format": "replay", "sessions": 5, "boards": 17}, "boards", "68 boards in all"),
        ({"format": "replay", "sessions": 13}, "sessions", "less than or equal to 12"),
        ({"format": "replay", "sessions": 1}, "sessions", "greater than or equal to 2"),
    ],
)
async def test_a_series_refused(
    server: Server, options: dict[str, object], field: str, words: str
) -> None:
    # Sent as a client of its own would (the library checks the model before sending).
    before = await server.store.match_ids()
    async with connect(server.ws_url) as websocket:
        hello = {"type": "hello", "version": 7, "versions": [7], "token": ORGANISER_KEY}
        await websocket.send(msgpack.packb(hello))
        await websocket.recv()
        await websocket.send(msgpack.packb({"type": "create_match", "ref": 1} | options))
        refusal = msgpack.unpackb(await websocket.recv())
    assert (refusal["type"], refusal["code"], refusal["field"]) == (
        "error",
        "invalid_message",
        field,
    )
    assert words in refusal["message"]
    assert await server.store.match_ids() == before


@pytest.mark.asyncio
async def test_adjust_score_is_for_team_matches(server: Server) -> None:
    created = await create(server, format="individual", players=8, boards=14)
    director = await Client.connect(created.director)
    with pytest.raises(ClientError) as refused:
        await director.adjust_score(1, 3)
    assert refused.value.code == ErrorCode.INVALID_MESSAGE
    assert "not between teams" in refused.value.message
    await director.close()


@pytest.mark.asyncio
async def test_three_tables_hide_a_board_until_the_third_has_played_it(server: Server) -> None:
    # The 12-player individual, one board a round: robots at tables 1 and 2, people at
    # table 3 who have not played yet.
    text, _deals = deals_file(11, seed=12)
    created = await create(
        server,
        format="individual",
        players=12,
        boards=11,
        deals_pbn=text,
        robots=["t1", "t2"],
        spectators="delayed",
    )
    assert created.spectator is not None
    people = {s.seat: s for s in created.seats if s.table == 3}
    clients = {seat: await Client.connect(link.link or "") for seat, link in people.items()}
    delayed = await Client.connect(created.spectator)
    director = await Client.connect(created.director)

    def two_tables_done(view: object) -> bool | None:
        assert isinstance(view, WatchView)
        return sum(r.board == 1 for r in view.results) == 2 or None

    await director.wait_for(two_tables_done, timeout=60)
    await asyncio.sleep(0.3)  # anything that would leak has had time to be sent
    runtime = await server.runtime(created.match_id)
    assert runtime.state.round == 1  # nobody moved on: table 3 has not played
    robots = [r.client for r in server.house.players if created.match_id in r.name]
    for client in [*clients.values(), delayed, director, *robots]:
        assert client is not None
        for message in client.received:
            if isinstance(message, Update):
                assert message.view.match.comparisons == []
                assert not any(isinstance(e, BoardCompared) for e in message.events)
    assert delayed.view is None  # nothing compared: a delayed spectator has been sent nothing
    # Table 3 passes the board out: now, and only now, everyone sees the comparison once.
    for seat in "NESW":
        await clients[seat].call("P")
    for client in [*clients.values(), delayed, director, *robots]:
        assert client is not None
        await client.wait_for(lambda v: v if v.match.comparisons else None, timeout=10)
    await asyncio.sleep(0.3)
    for client in [*clients.values(), delayed, director, *robots]:
        assert client is not None
        compared = [
            e
            for m in client.received
            if isinstance(m, Update)
            for e in m.events
            if isinstance(e, BoardCompared)
        ]
        assert [e.comparison.board for e in compared] == [1]
        assert len(compared[0].comparison.results) == 3
    for client in [*clients.values(), delayed, director]:
        await client.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("deal_seed", [3, 8])
async def test_replay_with_the_stage_one_auction_imposed(server: Server, deal_seed: int) -> None:
    text, _deals = deals_file(4, seed=deal_seed)
    created = await create(
        server, format="replay", boards=4, deals_pbn=text, robots=["t1"], imposed_auction=True
    )
    director = await Client.connect(created.director)
    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=60)
    assert isinstance(final, WatchView)
    for board in range(1, 5):
        record = await director.board(board)
        first, second = sorted(record.tables, key=lambda view: view.round)
        assert (first.round, second.round) == (1, 2)
        # Stage 2 was dealt the same auction, call for call; only the play differs.
        assert [(e.seat, e.call) for e in second.auction] == [
            (e.seat, e.call) for e in first.auction
        ]
        assert first.result is not None
        assert second.result is not None
        assert (second.result.contract, second.result.declarer) == (
            first.result.contract,
            first.result.declarer,
        )
    robots = [r for r in server.house.players if created.match_id in r.name]
    assert [robot.errors for robot in robots] == [[]] * 4
    await director.close()


# Four flat hands of 9 to 11 points: nobody opens.
FLAT = "N:A543.K54.Q54.J54 K76.A763.J76.Q76 Q98.Q98.A983.K98 JT2.JT2.KT2.AT32"


@pytest.mark.asyncio
async def test_an_imposed_pass_out_ends_the_replay_at_once(server: Server) -> None:
    text = f'[Board "1"]\n[Deal "{FLAT}"]\n\n[Board "2"]\n[Deal "{FLAT}"]\n'
    created = await create(
        server, format="replay", boards=2, deals_pbn=text, robots=["t1"], imposed_auction=True
    )
    director = await Client.connect(created.director)
    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=60)
    assert isinstance(final, WatchView)
    assert len(final.results) == 4
    assert all(result.contract is None for result in final.results)
    for comparison in final.match.comparisons:
        assert comparison.points == {"1-3": 0.5, "2-4": 0.5}
    await director.close()

"""Robots at the table: the robot-table format (RULES.md 6.2) and a match of eight robots."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import pytest
from redis.asyncio import Redis

from bridge import (
    PASS,
    Contract,
    Deal,
    Seat,
    Vulnerability,
    board_dealer,
    board_vulnerability,
    imps,
    score,
)
from bridge.pbn import parse_games
from clients.client import Client, ClientError, Link
from clients.robot import Robot
from protocol.messages import BoardCompared, DirectorRuled, PlayerView, Update, WatchView
from robots.table2 import play_robot_table
from server.app import Server
from server.state import MATCH_EVENTS
from server.thinking import NICENESS
from server.views import Player
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    audit_player_frame,
    bid,
    create,
    one_board,
    play_cards,
    player_updates,
    stored_events,
)


def deals_file(count: int, seed: int) -> tuple[str, dict[int, Deal]]:
    rng = random.Random(seed)
    deals = {n: Deal.random(rng) for n in range(1, count + 1)}
    text = "\n".join(
        f'[Board "{n}"]\n[Dealer "{board_dealer(n).letter}"]\n'
        f'[Vulnerable "{board_vulnerability(n).value}"]\n[Deal "{deal.to_pbn()}"]\n'
        for n, deal in deals.items()
    )
    return text, deals


async def table2_log(redis: Redis, match_id: str) -> list[bytes]:
    """Table 2's own entries, as stored bytes (the comparisons, the analysis and the end are
    the match's)."""
    entries = await redis.xrange(f"{{m:{match_id}}}:t2:events")
    own = [fields[b"e"] for _, fields in entries]
    return [e for e in own if json.loads(e)["type"] not in MATCH_EVENTS]


@pytest.mark.asyncio
async def test_robot_table_match_by_four_clients(server: Server, redis: Redis) -> None:
    text, deals = deals_file(4, seed=11)
    created = await create(
        server, format="robot-table", boards=4, deals_pbn=text, spectators="live"
    )
    assert [(s.table, s.seat) for s in created.seats] == [(1, seat) for seat in "NESW"]
    players = {
        s.seat: await Client.connect(s.link or "", name=f"human {s.seat}") for s in created.seats
    }
    spectator = await Client.connect(created.spectator or "")
    expected_robots = {
        n: play_robot_table(deal, board_dealer(n), board_vulnerability(n))
        for n, deal in deals.items()
    }
    for board in (1, 2, 3, 4):
        # Nobody has seen the robots' board yet: no comparison, no table-2 board to watch.
        view = await spectator.wait_for(
            lambda v, b=board: (
                v if isinstance(v, WatchView) and len(v.match.comparisons) == b - 1 else None
            )
        )
        assert [t.table for t in view.tables] == ([1] if board == 1 else [1, 2])
        assert all(t.board != board for t in view.tables if t.table == 2)
        # The humans: the dealer opens 1NT, everyone else passes, then the first legal card.
        await bid(players, board, ["1NT", "P", "P", "P"])
        await play_cards(players, board)
        # The double-dummy analysis, worked out after the match was created, shows with the
        # comparison once it is there (an update of its own if it comes after). Its worker
        # runs at the lowest priority: on a machine busy with other tests it may take a while.
        north = await players["N"].wait_for(
            lambda v, b=board: (
                v if any(c.board == b and c.double_dummy for c in v.match.comparisons) else None
            ),
            timeout=60,
        )
        comparison = next(c for c in north.match.comparisons if c.board == board)
        robots = expected_robots[board].result
        assert (comparison.table2.contract, comparison.table2.tricks) == (
            str(robots.contract),
            robots.tricks,
        )
        assert comparison.table2.ns_score == robots.ns_score
        assert comparison.swing == imps(comparison.table1.ns_score - robots.ns_score)
        assert comparison.double_dummy is not None
        assert comparison.par is not None
    final = await players["E"].wait_for(lambda v: v if v.match.finished else None)
    assert final.match.imps_a - final.match.imps_b == sum(c.swing for c in final.match.comparisons)
    for seat, client in players.items():
        for update in player_updates(client):
            audit_player_frame(update, 1, seat, deals)
    # The record shows both tables, card for card.
    record = parse_games(await players["N"].record())
    assert len(record) == 8
    for game in record:
        if game.tag("Room") == "Closed":
            robots = expected_robots[game.board or 0]
            assert tuple(card for _, card in game.build_play().cards_played) == robots.cards
            assert tuple(call.call for call in game.auction.calls) == robots.calls  # type: ignore[union-attr]
    # Same cards, same robots' table: byte for byte.
    again = await create(server, format="robot-table", boards=4, deals_pbn=text, spectators="off")
    assert await table2_log(redis, created.match_id) == await table2_log(redis, again.match_id)
    for client in [*players.values(), spectator]:
        await client.close()


@pytest.mark.asyncio
async def test_eight_robots_play_a_whole_match(server: Server) -> None:
    created = await create(server, boards=4, robots=["t1", "t2"], spectators="live")
    assert all(seat.robot and seat.link is None for seat in created.seats)
    director = await Client.connect(created.director)
    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=120)
    summary = final.match
    assert len(summary.comparisons) == 4
    running = 0
    for comparison in summary.comparisons:
        vulnerability = Vulnerability.parse(board_vulnerability(comparison.board).value)
        for result in (comparison.table1, comparison.table2):
            if result.contract is None:
                assert result.ns_score == 0
            else:
                assert result.declarer is not None
                assert result.ns_score == score(
                    Contract.parse(result.contract),
                    Seat.parse(result.declarer),
                    vulnerability,
                    result.tricks,
                )
        assert comparison.difference == comparison.table1.ns_score - comparison.table2.ns_score
        assert comparison.swing == imps(comparison.difference)
        running += comparison.swing
        assert comparison.running_total == running
    assert summary.imps_a == sum(max(c.swing, 0) for c in summary.comparisons)
    assert summary.imps_b == sum(max(-c.swing, 0) for c in summary.comparisons)
    assert summary.winner == ("A" if running > 0 else "B" if running < 0 else "draw")
    # Every robot played through the protocol without a single refusal.
    ours = [r for r in server.house.players if created.match_id in r.name]
    assert len(ours) == 8
    assert [robot.errors for robot in ours] == [[]] * 8
    # Each remembered every trick it saw quitted (a view shows only the last one).
    assert [robot.plain_cards for robot in ours] == [0] * 8
    compared = [e for m in director.received if isinstance(m, Update) for e in m.events]
    assert sum(isinstance(e, BoardCompared) for e in compared) == 4
    await director.close()


T = TypeVar("T")

# North-South hold every top card but the ace of spades, which East holds.
CLAIM_DEAL = one_board("N:KQJT.AKQ.AKQ.AKQ A98.JT98.JT9.JT9 765.765.8765.876 432.432.432.5432")


@pytest.mark.asyncio
async def test_robots_answer_questions_and_reject_a_wrong_claim(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=CLAIM_DEAL, robots=["1E", "1W"])
    links = {s.seat: s.link for s in created.seats if s.table == 1}
    north = await Client.connect(links["N"] or "")
    south = await Client.connect(links["S"] or "")
    # The board starts once its four are there (the robots come as the match is created).
    await north.wait_for(lambda v: v if v.board and v.board.legal else None)
    await north.call("3NT")
    await south.wait_for(lambda v: v if v.board and v.board.acting == "S" else None)
    await south.call("P")
    # East (a robot) called after North: North asks what that call means.
    await north.ask(1)
    asked = await north.wait_for(lambda v: v if v.board and v.board.auction[1].alert else None)
    assert asked.board is not None
    assert asked.board.auction[1].alert  # explained to the opponents
    partner_view = await south.wait_for(lambda v: v if v.board else None)
    assert partner_view.board is not None
    assert partner_view.board.auction[1].alert  # North and South are both East's opponents
    # After the opening lead North claims everything; East holds the ace of spades.
    view = await north.wait_for(
        lambda v: v if v.board and v.board.phase == "play" and v.board.acting == "N" else None
    )
    assert view.board is not None
    await north.claim(
        view.board.claim.remaining if view.board.claim else 13 - len(view.board.tricks)
    )
    rejected = await north.wait_for(
        lambda v: v if v.board and v.board.claim and v.board.claim.status == "rejected" else None
    )
    assert rejected.board is not None
    assert rejected.board.phase == "play"  # the play goes on: no table waits on a director
    assert rejected.board.acting == "N"
    await north.close()
    await south.close()


@pytest.mark.asyncio
async def test_a_claim_a_robot_disputes_is_ruled_by_the_server_at_once(server: Server) -> None:
    # Law 68D brings the director to a disputed claim; a robot cannot argue its case with
    # one, so the server rules (law 70): the claimer's side takes what it surely takes
    # against any defence. East's robot disputes North's claim of every trick: East has
    # the ace of spades, and N-S get all the rest.
    created = await create(
        server, boards=1, deals_pbn=CLAIM_DEAL, robots=["1E", "1W"], disputed_claims="director"
    )
    links = {s.seat: s.link for s in created.seats if s.table == 1}
    north = await Client.connect(links["N"] or "")
    south = await Client.connect(links["S"] or "")
    await north.wait_for(lambda v: v if v.board and v.board.legal else None)
    await north.call("3NT")
    await south.wait_for(lambda v: v if v.board and v.board.acting == "S" else None)
    await south.call("P")
    view = await north.wait_for(
        lambda v: v if v.board and v.board.phase == "play" and v.board.acting == "N" else None
    )
    assert view.board is not None
    await north.claim(13 - len(view.board.tricks))
    ruled = await north.wait_for(lambda v: v if v.results else None)
    assert ruled.results[0].tricks == 12
    assert ruled.board is not None
    assert ruled.board.claim is not None
    assert ruled.board.claim.status == "disputed"
    assert ruled.board.result is not None
    assert ruled.board.result.ruled  # the result line says the tricks were ruled
    events = [e for m in north.received if isinstance(m, Update) for e in m.events]
    assert [e.by_server for e in events if isinstance(e, DirectorRuled)] == [True]
    assert ruled.director_calls == []  # the ruling closed the call the dispute opened
    await north.close()
    await south.close()


@pytest.mark.asyncio
async def test_a_restarted_server_restarts_its_robots(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    first = Server(redis, ORGANISER_KEY, robot_delay=0)
    await first.start()
    created = await create(first, boards=2, robots=["t1", "t2"], spectators="off")
    director = await Client.connect(created.director)
    await director.wait_for(lambda _v: director.seq > 20 or None, timeout=60)
    await first.close()
    await director.close()

    second = Server(redis, ORGANISER_KEY, port=first.port, robot_delay=0)
    await second.start()  # finds the unfinished match and seats its robots again
    try:
        ours = [r for r in second.house.players if created.match_id in r.name]
        assert len(ours) == 8
        watcher = await Client.connect(created.director)
        final = await watcher.wait_for(lambda v: v if v.match.finished else None, timeout=120)
        assert len(final.match.comparisons) == 2
        assert [robot.errors for robot in ours] == [[]] * 8
        await watcher.close()
    finally:
        await second.close()


@pytest.mark.asyncio
async def test_duplicate_bot_plays_a_seat_from_its_link(server: Server) -> None:
    robots = ["t2", "1E", "1S", "1W"]  # the server's robots everywhere but North at table 1
    created = await create(server, boards=1, robots=robots, spectators="off")
    link = next(s.link for s in created.seats if s.link is not None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "duplicate", "bot", link, "--delay", "0", "--level", "strong",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, output.decode()
    assert "The match is over." in output.decode()
    director = await Client.connect(created.director)
    final = await director.wait_for(lambda v: v if v.match.finished else None)
    assert len(final.match.comparisons) == 1
    await director.close()


@pytest.mark.asyncio
async def test_a_robot_cut_off_while_it_thinks_acts_once_back(redis: Redis) -> None:
    # North deals: its robot thinks half a second, and its connection drops meanwhile. The
    # call it meant to make was never sent: back, it decides again (it must not wait for an
    # answer to an action that never left, nor for an update: back within the presence
    # grace, nothing at the table changed).
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, robot_delay=0, presence_grace=5.0)
    await server.start()
    created = await create(server, boards=1, deals_pbn=one_board(), spectators="off")
    link = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
    assert link is not None
    robot = Robot(link, name="thinking robot", delay=0.5)
    running = asyncio.create_task(robot.run())
    try:
        async with asyncio.timeout(10):
            # Its turn has come (it thinks from now on, for half a second).
            while not (
                robot.client is not None
                and isinstance(robot.client.view, PlayerView)
                and robot.client.view.board is not None
                and robot.client.view.board.legal
            ):
                await asyncio.sleep(0.01)
            north = Player(server.runtimes[created.match_id].config.player_of("1N"))
            while not (
                found := [
                    c
                    for c in server.connections
                    if c.subscriber is not None and c.subscriber.viewer == north
                ]
            ):
                await asyncio.sleep(0.01)
            found[0].drop("the test cuts the robot off while it thinks")
            while not await stored_events(redis, created.match_id, 1, "call"):
                await asyncio.sleep(0.05)
        (call,) = await stored_events(redis, created.match_id, 1, "call")
        assert call["seat"] == "N"
        assert robot.errors == []
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await robot.close()
        await server.close()


@pytest.mark.asyncio
async def test_robots_that_let_their_messages_go_play_a_whole_match(redis: Redis) -> None:
    """As `duplicate serve` runs them: each robot lets what it received go once noted (a
    match's updates, each with its whole view, held for the match's life were thousands of
    objects for every full garbage collection to walk), and plays the match all the same."""
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, robot_delay=0, keep_robot_messages=False)
    await server.start()
    try:
        created = await create(server, boards=2, robots=["t1", "t2"], spectators="live")
        director = await Client.connect(created.director)
        final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=120)
        assert len(final.match.comparisons) == 2
        robots = [r for r in server.house.players if created.match_id in r.name]
        assert len(robots) == 8
        assert [robot.errors for robot in robots] == [[]] * 8
        for robot in robots:
            assert robot.client is not None
            updates = [m for m in robot.client.received if isinstance(m, Update)]
            assert len(updates) < 10, len(updates)  # a two-board match sends each some 150
        await director.close()
    finally:
        await server.close()


# -- the robots' levels ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_robots_of_both_levels_play_a_match_at_the_levels_set(server: Server) -> None:
    created = await create(
        server,
        boards=2,
        robots=["t1", "t2"],
        robot_level="strong",
        robot_levels={"t2": "seed"},
    )
    names = {f"{seat.table}{seat.seat}": seat.name for seat in created.seats}
    strong = {"1N", "1E", "1S", "1W"}
    assert names == {key: "Robot (strong)" if key in strong else "Robot" for key in names}
    director = await Client.connect(created.director)
    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=180)
    assert len(final.match.comparisons) == 2
    ours = {r.name.split()[-1]: r for r in server.house.players if created.match_id in r.name}
    assert {key: robot.level for key, robot in ours.items()} == {
        key: "strong" if key in strong else "seed" for key in names
    }
    assert [robot.errors for robot in ours.values()] == [[]] * 8
    assert [robot.plain_cards for robot in ours.values()] == [0] * 8
    await director.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"format": "robot-table", "robot_levels": {"t2": "strong"}},
            "table 2 of a robot-table match plays as the seeds say",
        ),
        (
            {"format": "robot-table", "robot_levels": {"2W": "strong"}},
            "table 2 of a robot-table match plays as the seeds say",
        ),
        ({"robot_levels": {"3N": "strong"}}, "robot level for 3N: this match has 2 table(s)"),
        ({"format": "replay", "robot_levels": {"t2": "strong"}}, "robot level for t2: this"),
        (
            {"robot_levels": {"1N": "strong"}},
            "seats 1N and 1S partner each other (round 1) at robot levels strong and seed",
        ),
        (
            {"format": "individual", "boards": 14, "robot_levels": {"t2": "strong"}},
            "partner each other",
        ),
    ],
)
async def test_a_robot_level_for_a_seat_the_match_cannot_give_is_refused(
    server: Server, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ClientError) as refused:
        await create(server, **({"boards": 4} | options))
    assert refused.value.code == "invalid_message"
    assert message in str(refused.value)


@pytest.mark.asyncio
async def test_a_refused_robot_level_changes_nothing(server: Server) -> None:
    # Refused before anything is taken: the sealed seed is still there for the match.
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    sealed = await organiser.seal_deals("digits 1")
    with pytest.raises(ClientError, match="partner each other"):
        await organiser.create_match(
            boards=1, seal=sealed.seal, public_value="dice 3", robot_levels={"1N": "strong"}
        )
    created = await organiser.create_match(boards=1, seal=sealed.seal, public_value="dice 3")
    assert created.deals_commitment
    await organiser.close()


# North opens 1NT; South holds four spades and four hearts and 10 HCP.
STAYMAN_DEAL = one_board("N:AQ4.KJ3.Q984.K72 T97.T98.J76.QJT9 KJ85.Q762.T5.A54 632.A54.AK32.863")


@pytest.mark.asyncio
async def test_a_strong_robot_alerts_its_conventions(
    server: Server,
) -> None:
    created = await create(
        server,
        boards=1,
        deals_pbn=STAYMAN_DEAL,
        robots=["t2", "1N", "1E", "1S"],
        robot_level="strong",
    )
    # West, a person, sees the strong robots' auction: South's Stayman is alerted, North's
    # natural 1NT is not (it is explained when asked, in the strong system).
    west = await Client.connect(next(s.link for s in created.seats if s.link) or "")
    view = await west.wait_for(lambda v: v if v.board and len(v.board.auction) >= 3 else None)
    assert view.board is not None
    north, _east, south = view.board.auction[:3]
    assert (north.call, north.alert) == ("1NT", None)
    assert (south.call, south.alert) == ("2C", "Stayman: asks for a 4-card major, 8+ HCP")
    await west.wait_for(lambda v: v if v.board and v.board.acting == "W" else None)
    await west.call("P")
    await west.ask(0)
    told = await west.wait_for(lambda v: v if v.board and v.board.auction[0].alert else None)
    assert told.board is not None
    assert told.board.auction[0].alert == "15-17 HCP, balanced"
    await west.close()


@pytest.mark.asyncio
async def test_a_robot_the_director_seats_plays_at_its_seats_level(server: Server) -> None:
    created = await create(
        server,
        boards=1,
        deals_pbn=CLAIM_DEAL,
        robots=["t2", "1E", "1W"],
        robot_levels={"t1": "strong"},
    )
    links = {s.seat: s.link for s in created.seats if s.table == 1}
    north = await Client.connect(links["N"] or "")
    director = await Client.connect(created.director)
    substituted = await director.substitute(1, "S", robot=True)
    assert substituted.link is None
    south = next(r for r in server.house.players if r.name.endswith(f"{created.match_id} 1S"))
    assert south.level == "strong"
    seated = await north.wait_for(
        lambda v: v if any(p.seat == "S" and p.robot for p in v.players) else None
    )
    assert next(p for p in seated.players if p.seat == "S").name == "Robot (strong)"
    await director.close()
    await north.close()


async def tick(lags: list[float]) -> None:
    """Note how late the event loop wakes a task that sleeps 10 ms, again and again."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(0.01)
        lags.append(loop.time() - before - 0.01)


@pytest.mark.alone  # the event loop's lag is measured: nothing else may run beside it
@pytest.mark.asyncio
async def test_a_thinking_robot_never_holds_up_the_event_loop(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every call takes the robots 0.4 s of thought (a strong robot's slowest cards take
    # about that): the server and the robots share one event loop, which must stay free.
    # At a human pace each call is decided once, while the robot waits out its delay.
    from robots import levels

    decided: list[float] = []

    def slow_call(level: str, view: object) -> tuple[object, str]:
        time.sleep(0.4)
        decided.append(time.monotonic())
        return PASS, "no further action"

    monkeypatch.setattr(levels, "call_at", slow_call)
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, robot_delay=0.5)
    await server.start()
    lags: list[float] = []
    ticking = asyncio.create_task(tick(lags))
    try:
        created = await create(server, boards=1, robots=["1E", "1S", "1W"], spectators="off")
        north = await Client.connect(next(s.link for s in created.seats if s.link) or "")
        await north.wait_for(lambda v: v if v.board and v.board.acting == "N" else None)
        await north.call("P")
        passed_out = await north.wait_for(
            lambda v: v if v.board is None or v.board.phase != "auction" else None, timeout=30
        )
        assert passed_out is not None
    finally:
        ticking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticking
        await server.close()
    assert len(decided) == 3  # East, South, West: one decision each, no second thought
    assert max(lags) < 0.2, f"the loop stalled {max(lags):.2f} s"


@pytest.mark.alone  # the event loop's lag is measured: nothing else may run beside it
@pytest.mark.asyncio
async def test_strong_robots_think_in_worker_processes_of_lower_priority(
    redis: Redis,
) -> None:
    # Four strong robots play a board among themselves (they never wait): each decision is
    # worked out in the server's thinker, whose workers run below the server's priority,
    # and the server's event loop stays free throughout.
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, robot_delay=0)
    await server.start()
    thought = 0
    think = server.thinker.think

    priorities: set[int] = set()

    async def counted(decide: Callable[[], T]) -> T:
        nonlocal thought
        thought += 1
        decided = await think(decide)
        # The priority a decision is worked out at, asked of a worker as a decision is (a
        # worker's pid may be listed before its initializer has run: asked of the pid, a
        # worker just started could still be at the server's priority).
        priorities.add(await think(functools.partial(os.getpriority, os.PRIO_PROCESS, 0)))
        return decided

    server.thinker.think = counted  # type: ignore[method-assign]
    lags: list[float] = []
    ticking = asyncio.create_task(tick(lags))
    try:
        # North's 37 points: the board is bid and played, never passed out (a random deal
        # passed out by four strong robots took 4 decisions: a fresh clone's run failed so).
        created = await create(
            server,
            boards=1,
            deals_pbn=one_board(),
            robots=["t1"],
            robot_level="strong",
            spectators="off",
        )
        table = [r for r in server.house.players if created.match_id in r.name]
        director = await Client.connect(created.director)
        await director.wait_for(
            lambda v: v if v.tables and v.tables[0].phase == "finished" else None, timeout=120
        )
        await director.close()
        assert priorities == {os.getpriority(os.PRIO_PROCESS, 0) + NICENESS}
    finally:
        ticking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticking
        await server.close()
    assert [robot.level for robot in table] == ["strong"] * 4
    assert [robot.errors for robot in table] == [[]] * 4
    assert thought >= 52  # every card at least (and the calls)
    assert max(lags) < 0.2, f"the loop stalled {max(lags):.2f} s"

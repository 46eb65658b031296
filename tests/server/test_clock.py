"""The round's clock (``create_match.minutes_per_board``; SPEC.md, "The clock"): each table's
round has its boards' time from its first call; the players and the director see it; when
it runs out with boards to play the director is told (``time_up``) and nothing is played
for anyone."""

from __future__ import annotations

import time

import pytest
from redis.asyncio import Redis

from clients.client import Client
from protocol.messages import PlayerView, RoundClock, TimeUp, Update, WatchView
from server.app import Server
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    bid,
    board_view,
    create,
    one_board,
    seat_everyone,
    settle,
    stored_events,
)

TWO = one_board() + "\n" + one_board().replace('[Board "1"]', '[Board "2"]')
HALF_HOUR = 30.0
"""Minutes per board long enough that no test's time ever runs out."""


def clock_of(view: PlayerView) -> RoundClock | None:
    return view.clock


def time_ups(client: Client) -> list[TimeUp]:
    return [
        event
        for message in client.received
        if isinstance(message, Update)
        for event in message.events
        if isinstance(event, TimeUp)
    ]


@pytest.mark.asyncio
async def test_the_clock_starts_with_the_first_call_and_counts_the_boards_played(
    server: Server,
) -> None:
    created = await create(
        server, boards=2, deals_pbn=TWO, minutes_per_board=HALF_HOUR, spectators="delayed"
    )
    match = await seat_everyone(server, created)
    table, other = match.table(1), match.table(2)
    director = await Client.connect(created.director)
    spectator = await Client.connect(created.spectator or "")
    await board_view(table["N"], 1)
    assert table["N"].view is not None
    assert table["N"].view.clock is None  # dealt, but nobody has called yet

    before = int(time.time() * 1000)
    await bid(table, 1, ["P"])
    after = int(time.time() * 1000)
    clock = await table["E"].wait_for(clock_of)
    board = int(HALF_HOUR * 60_000)
    assert (clock.table, clock.round, clock.boards, clock.played) == (1, 1, 2, 0)
    assert before <= clock.started_at <= after
    assert clock.ends_at == clock.started_at + 2 * board
    assert clock.due_at == clock.started_at + board
    assert not clock.time_up
    await settle(other)
    assert other["N"].view is not None
    assert other["N"].view.clock is None  # table 2's round has not begun: its own clock

    await bid(table, 1, ["P", "P", "P"])  # passed out: board 1 is played
    later = await table["S"].wait_for(lambda v: v.clock if v.clock and v.clock.played else None)
    assert later.played == 1
    assert later.started_at == clock.started_at  # the round's clock, not the board's
    assert later.due_at == later.ends_at  # the last board is due when the round's time is up

    await bid(other, 1, ["P"])
    watched = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and len(v.clocks) == 2 else None
    )
    assert [(c.table, c.played) for c in watched.clocks] == [(1, 1), (2, 0)]
    await bid(other, 1, ["P", "P", "P"])  # board 1 is compared: delayed spectators see it
    delayed = await spectator.wait_for(
        lambda v: v if isinstance(v, WatchView) and v.match.comparisons else None
    )
    assert delayed.clocks == []  # a delayed spectator learns no table's pace
    await spectator.close()
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_a_match_without_minutes_per_board_has_no_clock(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=one_board())
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    await bid(match.table(1), 1, ["P"])
    await settle(match.table(1))
    assert match.players[(1, "N")].view is not None
    assert match.players[(1, "N")].view.clock is None
    await director.ping()
    assert isinstance(director.view, WatchView)
    assert director.view.clocks == []
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_time_up_tells_the_director_and_the_table_and_plays_nothing(
    server: Server, redis: Redis
) -> None:
    created = await create(server, boards=2, deals_pbn=TWO, minutes_per_board=0.005)
    match = await seat_everyone(server, created)
    table = match.table(1)
    director = await Client.connect(created.director)
    await bid(table, 1, ["P", "P"])  # the round's time: two boards of 0.3 s
    up = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and any(c.time_up for c in v.clocks) else None,
        timeout=30,
    )
    assert [(c.table, c.time_up, c.played) for c in up.clocks] == [(1, True, 0)]
    assert [(e.table, e.round) for e in time_ups(director)] == [(1, 1)]
    north = await table["N"].wait_for(lambda v: v if v.clock and v.clock.time_up else None)
    assert [(e.table, e.round) for e in time_ups(table["N"])] == [(1, 1)]
    assert north.board is not None
    assert [entry.call for entry in north.board.auction] == ["P", "P"]  # nothing played
    assert north.board.turn == "S"

    await bid(table, 1, ["P", "P"])  # the table plays on (passed out) as the director lets it
    played = await table["N"].wait_for(lambda v: v.clock if v.clock and v.clock.played else None)
    assert played.time_up
    assert len(await stored_events(redis, created.match_id, 1, "time_up")) == 1
    assert time_ups(match.players[(2, "N")]) == []  # another table's time is its own
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_a_table_of_the_servers_robots_has_no_clock(server: Server) -> None:
    created = await create(
        server, boards=1, deals_pbn=one_board(), robots=["t2"], minutes_per_board=HALF_HOUR
    )
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    await bid(match.table(1), 1, ["P"])
    watched = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and v.clocks else None
    )
    assert [c.table for c in watched.clocks] == [1]
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_the_clock_outlives_a_server_restart(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    first = Server(redis, ORGANISER_KEY, robot_delay=0)
    await first.start()
    created = await create(first, boards=1, deals_pbn=one_board(), minutes_per_board=0.1)
    match = await seat_everyone(first, created)
    await bid(match.table(1), 1, ["P"])  # the time is up 6 s from now
    clock = await match.players[(1, "N")].wait_for(clock_of)
    await first.close()
    await match.close()
    second = Server(redis, ORGANISER_KEY, port=first.port, robot_delay=0)
    await second.start()
    try:
        director = await Client.connect(created.director)
        up = await director.wait_for(
            lambda v: v if isinstance(v, WatchView) and any(c.time_up for c in v.clocks) else None,
            timeout=30,
        )
        assert up.clocks[0].ends_at == clock.ends_at
        logged = await stored_events(redis, created.match_id, 1, "time_up")
        assert len(logged) == 1
        assert logged[0]["at"] >= clock.ends_at  # never before its time
        await director.close()
    finally:
        await second.close()


@pytest.mark.asyncio
async def test_welcome_says_the_servers_time(server: Server) -> None:
    before = int(time.time() * 1000)
    created = await create(server, boards=1, deals_pbn=one_board())
    watcher = await Client.connect(created.director)
    after = int(time.time() * 1000)
    assert watcher.welcome is not None
    assert watcher.welcome.now is not None
    assert before <= watcher.welcome.now <= after
    await watcher.close()

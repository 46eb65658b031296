"""Events run by real ``duplicate serve`` processes on one Redis: two processes that both
look after an event begin each of its rounds once, and an event whose process is killed
(``kill -9``) in the middle of a round is finished by another."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from clients.client import Client, Link
from protocol.messages import EventTeamSpec, EventView
from server.redis_process import RedisProcess
from server.store import Store
from tests.conftest import ORGANISER_KEY
from tests.server.harness import ServeProcess

pytestmark = pytest.mark.asyncio


@pytest.fixture
def serving(own_redis: RedisProcess) -> Iterator[list[ServeProcess]]:
    """The ``duplicate serve`` processes a test starts on its own Redis, stopped after it."""
    started: list[ServeProcess] = []
    yield started
    for process in started:
        process.stop()


def robots(*names: str) -> list[EventTeamSpec]:
    return [EventTeamSpec(name=name, robots=True) for name in names]


async def organiser(process: ServeProcess) -> Client:
    return await Client.connect(Link(process.ws_url, ORGANISER_KEY), name="director")


async def until_finished(process: ServeProcess, event_id: str, timeout: float) -> EventView:
    director = await organiser(process)
    try:
        async with asyncio.timeout(timeout):
            while (view := await director.get_event(event_id)).status != "finished":
                await asyncio.sleep(0.25)
        return view
    finally:
        await director.close()


async def logged(
    own_redis: RedisProcess, event_id: str
) -> tuple[list[dict[str, object]], dict[str, str], int]:
    """The event's log and matches as the store has them, and how many matches it holds."""
    redis = Redis.from_url(own_redis.url)
    try:
        store = Store(redis)
        loaded = await store.event(event_id)
        assert loaded is not None
        _, entries, matches = loaded
        return entries, matches, len(await store.match_ids())
    finally:
        await redis.aclose()


async def test_two_processes_begin_each_round_once(
    own_redis: RedisProcess, serving: list[ServeProcess], tmp_path: Path
) -> None:
    first = ServeProcess(own_redis.url, tmp_path / "first")
    serving.append(first)
    second = ServeProcess(own_redis.url, tmp_path / "second")
    serving.append(second)
    director = await organiser(first)
    created = await director.create_event(
        robots("P", "Q", "R", "S"), kind="round_robin", boards_per_round=1, robot_delay_ms=0
    )
    await director.close()
    view = await until_finished(second, created.event_id, timeout=120)
    assert all(m.status == "finished" for r in view.schedule for m in r.matches)
    async with asyncio.timeout(30):  # the end is logged at the next look (every second)
        while "end" not in [e["kind"] for e in (await logged(own_redis, created.event_id))[0]]:
            await asyncio.sleep(0.2)
    entries, matches, stored = await logged(own_redis, created.event_id)
    assert [e["round"] for e in entries if e["kind"] == "start"] == [1, 2, 3]
    assert [e["round"] for e in entries if e["kind"] == "pairing"] == [1, 2, 3]
    assert [e["kind"] for e in entries].count("end") == 1
    assert sorted(matches) == ["1:0", "1:1", "2:0", "2:1", "3:0", "3:1"]
    assert stored == 6  # no match made twice


async def test_an_event_outlives_its_process_killed_in_a_round(
    own_redis: RedisProcess, serving: list[ServeProcess], tmp_path: Path
) -> None:
    first = ServeProcess(own_redis.url, tmp_path / "first")
    serving.append(first)
    director = await organiser(first)
    created = await director.create_event(
        robots("X", "Y", "Z"), kind="round_robin", boards_per_round=2, robot_delay_ms=300
    )
    view = await director.get_event(created.event_id)
    await director.close()
    assert view.round == 1
    assert view.schedule[0].matches[0].status != "finished"  # 2 boards at 0.3 s a card
    first.kill()
    second = ServeProcess(own_redis.url, tmp_path / "second")
    serving.append(second)
    # The dead process's robots are taken over once their leases run out; the rounds go on.
    view = await until_finished(second, created.event_id, timeout=240)
    assert [r.status for r in view.schedule] == ["finished"] * 3
    assert sorted(r.bye for r in view.schedule if r.bye is not None) == [1, 2, 3]
    entries, matches, stored = await logged(own_redis, created.event_id)
    assert [e["round"] for e in entries if e["kind"] == "start"] == [1, 2, 3]
    assert sorted(matches) == ["1:0", "2:0", "3:0"]
    assert stored == 3

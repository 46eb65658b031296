"""A closing server lets its periodic looks at the store end instead of cancelling them in
the middle: a task cancelled in a Redis command, or while its pool opens a connection, may
leave that connection open (found by the leak check of tests/conftest.py, far from here,
on a loaded machine). Each look is held in the middle of a command here while the server
closes: the look must finish, and leave no connection open."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from redis.asyncio import Redis

from clients.client import Client
from server.app import Server
from server.fanout import closing_within
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import create

pytestmark = pytest.mark.asyncio


def held(
    real: Callable[..., Awaitable[Any]], started: asyncio.Event, finished: list[str], name: str
) -> Callable[..., Awaitable[Any]]:
    """``real``, slowed: it says it has begun, waits a while (the close comes meanwhile),
    then does its Redis command and says it finished."""

    async def slow(*args: Any, **kwargs: Any) -> Any:
        started.set()
        await asyncio.sleep(0.3)
        answer = await real(*args, **kwargs)
        finished.append(name)
        return answer

    return slow


async def test_the_robots_keeper_ends_its_look_before_the_server_closes(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY)
    await server.start()
    try:
        # Robots at table 2 wait for table 1's people, who never come: in play all along.
        await create(server, boards=1, robots=["t2"])
        started, finished = asyncio.Event(), []
        server.store.renew_robots = held(  # type: ignore[method-assign]
            server.store.renew_robots, started, finished, "renew"
        )
        async with asyncio.timeout(10):  # the keeper looks every heartbeat (2 s)
            await started.wait()
    finally:
        await server.close()
    assert finished == ["renew"]


async def test_the_heartbeat_ends_its_beat_before_the_server_closes(redis: Redis) -> None:
    server = Server(redis, ORGANISER_KEY)
    await server.start()
    try:
        started, finished = asyncio.Event(), []
        server.fanout.beat = held(  # type: ignore[method-assign]
            server.fanout.beat, started, finished, "beat"
        )
        async with asyncio.timeout(10):
            await started.wait()
    finally:
        await server.close()
    assert finished == ["beat"]


async def test_the_events_look_ends_before_the_server_closes(redis: Redis) -> None:
    server = Server(redis, ORGANISER_KEY)
    await server.start()
    try:
        started, finished = asyncio.Event(), []
        server.store.playing_events = held(  # type: ignore[method-assign]
            server.store.playing_events, started, finished, "events"
        )
        async with asyncio.timeout(10):  # the events are looked at every second
            await started.wait()
    finally:
        await server.close()
    assert finished == ["events"]


async def test_an_away_mark_under_way_ends_before_the_server_closes(redis: Redis) -> None:
    # A player leaves; past the grace, the seat's presence is being logged (the look at the
    # other processes held in the middle) when the server closes: the mark ends first, and
    # nothing of it runs after the close.
    await forget_earlier_robots(redis)
    server = Server(redis, ORGANISER_KEY, presence_grace=0.05)
    await server.start()
    try:
        created = await create(server, boards=1)
        link = next(s.link for s in created.seats if s.link is not None)
        player = await Client.connect(link)
        runtime = await server.runtime(created.match_id)
        started, finished = asyncio.Event(), []
        runtime.fanout.alive = held(  # type: ignore[method-assign, union-attr]
            runtime.fanout.alive,  # type: ignore[union-attr]
            started,
            finished,
            "away",
        )
        await player.close()
        async with asyncio.timeout(10):
            await started.wait()
    finally:
        await server.close()
    assert finished == ["away"]


async def test_a_look_whose_cancellation_was_caught_ends_at_its_next_pause() -> None:
    # A look cancelled in the middle, the cancellation caught below it (as a library may):
    # the loop ends at its next pause instead of going on for ever (an event loop's last
    # cancellation of its tasks, at a test module's end, waits for them: a run hung so).
    closing = asyncio.Event()
    in_look = asyncio.Event()

    async def periodic() -> None:
        while not await closing_within(closing, 0.01):
            in_look.set()
            with contextlib.suppress(asyncio.CancelledError):  # caught, and not told on
                await asyncio.sleep(0.05)

    task = asyncio.create_task(periodic())
    await in_look.wait()
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2)
    assert task in done
    assert task.cancelled()
    assert not closing.is_set()

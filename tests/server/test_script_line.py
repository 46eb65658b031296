"""The append script's calls pipelined on a connection of their own (server/script_line.py),
against a real Redis of each test's own (no other test's connections run scripts there):
each call gets its own reply, whatever else goes on the line."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.exceptions import ConnectionError, ResponseError

from server.redis_process import RedisProcess
from server.script_line import ScriptLine

ECHO = """
if ARGV[1] == 'fail' then
  return redis.error_reply('asked to fail')
end
redis.call('rpush', KEYS[1], ARGV[1])
return {ARGV[1], redis.call('llen', KEYS[1])}
"""
"""Appends its argument to a list and answers it and the list's length; fails when asked."""


@pytest_asyncio.fixture
async def client(own_redis: RedisProcess) -> AsyncIterator[Redis]:
    """A client of the test's own Redis."""
    redis = Redis.from_url(own_redis.url)
    yield redis
    await redis.aclose()


@pytest_asyncio.fixture
async def line(client: Redis) -> AsyncIterator[ScriptLine]:
    """:data:`ECHO` on a line to the test's own Redis."""
    echo = ScriptLine(client, ECHO)
    yield echo
    await echo.close()


def signal_redis(own_redis: RedisProcess, signum: signal.Signals) -> None:
    """Stop (SIGSTOP: no reply can come) or continue (SIGCONT) the test's own Redis."""
    assert own_redis.process is not None
    os.kill(own_redis.process.pid, signum)


async def scripting_ids(client: Redis) -> list[str]:
    """The ids of the connections that ran a script last (the line's)."""
    return [c["id"] for c in await client.client_list() if c.get("cmd") in ("evalsha", "eval")]


@pytest.mark.asyncio
async def test_calls_from_many_tasks_each_get_their_own_reply_on_one_connection(
    client: Redis, line: ScriptLine
) -> None:
    keys = [f"k{i}" for i in range(20)]
    replies = await asyncio.gather(*(line(keys=[keys[i % 20]], args=[f"v{i}"]) for i in range(400)))
    assert [reply[0] for reply in replies] == [f"v{i}".encode() for i in range(400)]
    ran = [value for k in keys for value in await client.lrange(k, 0, -1)]
    assert sorted(ran) == sorted(f"v{i}".encode() for i in range(400))  # each once
    assert len(await scripting_ids(client)) == 1


@pytest.mark.asyncio
async def test_an_error_reply_fails_its_call_only(line: ScriptLine) -> None:
    calls = [line(keys=["k"], args=[value]) for value in ("a", "fail", "b")]
    first, failed, last = await asyncio.gather(*calls, return_exceptions=True)
    assert first == [b"a", 1]
    assert isinstance(failed, ResponseError)
    assert "asked to fail" in str(failed)
    assert last == [b"b", 2]


@pytest.mark.asyncio
async def test_a_script_redis_forgot_is_sent_whole(client: Redis, line: ScriptLine) -> None:
    # Redis restarted (or its scripts were flushed): the call still runs, once.
    assert await line(keys=["k"], args=["a"]) == [b"a", 1]
    await client.script_flush()
    assert await line(keys=["k"], args=["b"]) == [b"b", 2]
    assert await client.lrange("k", 0, -1) == [b"a", b"b"]


@pytest.mark.asyncio
async def test_a_broken_connection_fails_the_calls_waiting_and_the_next_call_reconnects(
    own_redis: RedisProcess, line: ScriptLine
) -> None:
    # Redis is stopped with a call sent and unanswered, then dies: the call fails as a call
    # through the pool would, and once Redis is back the next call opens another connection
    # (and sends the script whole: the new Redis does not know it).
    assert await line(keys=["k"], args=["a"]) == [b"a", 1]
    signal_redis(own_redis, signal.SIGSTOP)
    waiting = asyncio.ensure_future(line(keys=["k"], args=["b"]))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    own_redis.kill()
    with pytest.raises(ConnectionError):
        await waiting
    with pytest.raises(ConnectionError):  # no Redis: the call fails at once
        await line(keys=["k"], args=["c"])
    await own_redis.astart()
    assert (await line(keys=["k"], args=["d"]))[0] == b"d"


@pytest.mark.asyncio
async def test_a_cancelled_call_leaves_the_replies_of_the_others_in_place(
    own_redis: RedisProcess, line: ScriptLine
) -> None:
    # Three calls sent while Redis is stopped; the second is cancelled while it waits. Redis
    # goes on: it runs all three (they were sent), and the first and the third get their
    # own replies, the second's dropped.
    assert await line(keys=["k"], args=["a"]) == [b"a", 1]  # connected
    signal_redis(own_redis, signal.SIGSTOP)
    calls = [asyncio.ensure_future(line(keys=["k"], args=[value])) for value in "bcd"]
    await asyncio.sleep(0.1)
    calls[1].cancel()
    signal_redis(own_redis, signal.SIGCONT)
    assert await calls[0] == [b"b", 2]
    assert await calls[2] == [b"d", 4]
    assert calls[1].cancelled()
    assert await line(keys=["k"], args=["e"]) == [b"e", 5]


@contextlib.asynccontextmanager
async def timed_line(own_redis: RedisProcess, timeout: float) -> AsyncIterator[ScriptLine]:
    """:data:`ECHO` on a line of a client whose socket timeout is ``timeout``."""
    client = Redis.from_url(own_redis.url, socket_timeout=timeout)
    line = ScriptLine(client, ECHO)
    try:
        yield line
    finally:
        await line.close()
        await client.aclose()


@pytest.mark.asyncio
async def test_a_call_with_no_reply_in_the_socket_timeout_fails_and_the_next_reconnects(
    own_redis: RedisProcess, client: Redis
) -> None:
    # Redis hangs (stopped: no reply can come) with a call waiting: the call fails once it
    # has waited the client's socket timeout, as a read through redis-py's client would,
    # and once Redis goes on the next call opens another connection.
    async with timed_line(own_redis, 0.3) as line:
        assert await line(keys=["k"], args=["a"]) == [b"a", 1]
        first = await scripting_ids(client)
        signal_redis(own_redis, signal.SIGSTOP)
        try:
            async with asyncio.timeout(30):
                with pytest.raises(ConnectionError, match=r"no reply from Redis in 0\.3 s"):
                    await line(keys=["k"], args=["b"])
        finally:
            signal_redis(own_redis, signal.SIGCONT)
        assert (await line(keys=["k"], args=["c"]))[0] == b"c"
        assert await scripting_ids(client) != first


@pytest.mark.asyncio
async def test_a_line_left_idle_longer_than_the_socket_timeout_keeps_its_connection(
    own_redis: RedisProcess, client: Redis
) -> None:
    # The timeout is for a reply waited for: a line with no call waiting waits for nothing
    # (it was a read timing out, after which the next call had to connect again).
    async with timed_line(own_redis, 0.2) as line:
        assert await line(keys=["k"], args=["a"]) == [b"a", 1]
        first = await scripting_ids(client)
        await asyncio.sleep(0.6)
        assert await line(keys=["k"], args=["b"]) == [b"b", 2]
        assert await scripting_ids(client) == first


@pytest.mark.asyncio
async def test_a_call_that_cannot_be_packed_is_refused_and_the_line_goes_on(
    line: ScriptLine,
) -> None:
    assert await line(keys=["k"], args=["a"]) == [b"a", 1]
    with pytest.raises(TypeError):
        await line(keys=["k"], args=[object()])
    async with asyncio.timeout(10):  # given to a call that never went, it would never come
        assert await line(keys=["k"], args=["b"]) == [b"b", 2]

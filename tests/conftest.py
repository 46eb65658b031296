"""Shared fixtures: a real redis-server started for the test run, a real match server."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time
import traceback
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import find
from hypothesis import strategies as st
from redis.asyncio import Redis
from redis.asyncio.connection import Connection as RedisConnection

from duplicate.serving import _redis_client
from server import frames
from server.app import Server
from server.heap import freeze_survivors
from server.limits import Limits
from server.redis_process import RedisProcess
from server.store import ROBOT_MATCHES_KEY

ORGANISER_KEY = "test-organiser-key"
TEST_LIMITS = Limits(
    bytes_per_second=1e9,
    bytes_burst=1e9,
    address_bytes_per_second=1e9,
    address_bytes_burst=1e9,
    connections_per_second=10_000,
    connections_burst=10_000,
    frames_per_second=10_000,
    frames_burst=10_000,
    actions_per_second=10_000,
    actions_burst=10_000,
)
"""The tests' clients act as fast as the server answers, and ping after every action to
know they are up to date: far past a person's pace, so the per-connection rate limits are
lifted (tests/server/test_hostile.py checks them with the defaults)."""
DATA_DIR = Path(__file__).resolve().parent / "data"
"""The real match records the tests read (vendored copies; see its SOURCES.md)."""

# Every update built from its event is made the whole way too, and the two compared: in the
# servers of this process and in the `duplicate serve` processes the tests start.
os.environ["DUPLICATE_CHECK_FRAMES"] = "1"
frames.CHECK = True


@pytest.fixture(autouse=True)
def frames_built_from_events_equal_frames_made_whole() -> Iterator[None]:
    """Fails the test in which an update built from its event (server/frames.py) differed
    from the same update made the whole way."""
    frames.MISMATCHES.clear()
    yield
    assert not frames.MISMATCHES, frames.MISMATCHES[:3]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        help="the long mode: larger samples where a test measures a distribution",
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    # Hypothesis checks, once per process, that its own PRNG is referred to by something:
    # gc.collect(), then gc.get_referrers(), which does not search frozen objects. Under its
    # "ci" profile (derandomize, loaded when CI is set) that check would come after the
    # freezing below and fail, so it is made to come now: one search, before anything is
    # frozen.
    find(st.none(), lambda _: True)
    gc.collect()
    gc.freeze()  # the modules, the tests and the protocol's validators
    # Kept as `duplicate serve` keeps its own (server.heap): later full collections walk
    # only what came since. Measured on the 8-player individual test: 11.3 s of its 38.5 s
    # went in collections, 2.7 s so.
    gc.callbacks.append(freeze_survivors)


DEEP_EVERY = 120.0
"""Seconds of tests between two deep collections (each walks everything: about a second)."""
_deepened = [time.monotonic()]


@pytest.fixture(autouse=True, scope="module")
def deep_collection() -> Iterator[None]:
    """Between test modules, every DEEP_EVERY seconds, everything walked once: the cycles
    that died frozen (the servers' and clients' connections of the tests before) are freed,
    and the process does not grow without bound."""
    yield
    if time.monotonic() - _deepened[0] >= DEEP_EVERY:
        gc.unfreeze()
        gc.collect()  # and what is left is frozen again
        _deepened[0] = time.monotonic()


@pytest.fixture(scope="session")
def redis_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """One private redis-server for the whole run (tests use fresh match ids, so they share)."""
    process = RedisProcess(tmp_path_factory.mktemp("redis"))
    process.start()
    _run_redis_port[:] = [process.port]
    yield process
    _run_redis_port.clear()
    process.stop()


_run_redis_port: list[int] = []
"""The port of this process's :func:`redis_process`, once started."""

_OPENED: dict[int, str] = {}
"""Each redis-py connection opened in this process, by its local port: the task that opened
it and where (named in a leak's failure, which otherwise says only the port)."""
_CUT_OFF: list[str] = []
"""The last connections whose opening was cancelled (a socket may be left behind)."""


def _opener() -> str:
    task = asyncio.current_task()
    stack = "".join(traceback.format_stack(limit=16)[:-2])
    return f"task {task.get_name() if task else None!r}:\n{stack}"


def _record_openings() -> None:
    """Wrap redis-py's connection opening to note who opens each connection."""
    original = RedisConnection._connect
    if getattr(original, "noted", False):  # imported twice
        return

    async def _connect(self: RedisConnection) -> None:
        try:
            await original(self)  # type: ignore[no-untyped-call]
        except asyncio.CancelledError:
            _CUT_OFF[:] = [*_CUT_OFF[-4:], _opener()]
            raise
        writer = getattr(self, "_writer", None)
        sockname = None if writer is None else writer.get_extra_info("sockname")
        if sockname:
            _OPENED[sockname[1]] = _opener()

    _connect.noted = True  # type: ignore[attr-defined]
    RedisConnection._connect = _connect  # type: ignore[method-assign]


_record_openings()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """A test that used the run's Redis leaves no connection to it open once its fixtures
    are gone. One left open is a leak that would otherwise surface far away, at random: a
    redis-py connection caught in a reference cycle is frozen with the survivors of a
    collection (:func:`pytest_collection_finish`) and warns "unclosed Connection" only when a
    later test collects everything, as tests/server/test_heap.py does. Checked here, the
    failure names the test that leaked it."""
    yield
    if not _run_redis_port or "redis_process" not in getattr(item, "fixturenames", ()):
        return None
    left = connections_to(_run_redis_port[0])
    if left:
        opened = "\n".join(
            f"port {port} opened by {_OPENED.get(port, 'an opening not seen whole')}"
            for port in left
        )
        cut = "\n".join(_CUT_OFF) or "none"
        raise AssertionError(
            f"{item.nodeid} left {len(left)} connection(s) to the run's Redis open, from "
            f"local ports {', '.join(map(str, left))}\n{opened}\nopenings cancelled: {cut}"
        )
    return None


def connections_to(port: int) -> list[int]:
    """The local ports of this process's established TCP connections to ``port`` on this
    machine (Linux: its sockets in /proc/self/fd, their state in /proc/self/net/tcp)."""
    fds = Path("/proc/self/fd")
    inodes = set()
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone by now
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/self/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            if state == "01" and int(remote.split(":")[1], 16) == port and inode in inodes:
                ports.append(int(local.split(":")[1], 16))
    return ports


@pytest_asyncio.fixture
async def redis(redis_process: RedisProcess) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_process.url)
    yield client
    await client.aclose()


async def forget_earlier_robots(redis: Redis) -> None:
    """Make a server about to start on the run's Redis resume no earlier test's robots."""
    await redis.delete(ROBOT_MATCHES_KEY)


@pytest_asyncio.fixture
async def server(redis: Redis) -> AsyncIterator[Server]:
    """A match server on a free port over the test run's Redis; its robots act at once.

    The run's Redis holds every earlier test's matches: a server starting on it would seat
    robots again in each one left unfinished (:func:`forget_earlier_robots`)."""
    await forget_earlier_robots(redis)
    async with serving_on(redis) as instance:
        yield instance


@contextlib.asynccontextmanager
async def serving_on(redis: Redis) -> AsyncIterator[Server]:
    """A match server on a free port over ``redis``, as the tests want it: its robots act
    at once, a player is away 0.2 s after the connection drops, the tests' limits."""
    instance = Server(
        redis,
        ORGANISER_KEY,
        robot_delay=0,
        presence_grace=0.2,
        limits=TEST_LIMITS,
        metrics_address=("127.0.0.1", 0),
    )
    await instance.start()
    try:
        yield instance
    finally:
        await instance.close()


@pytest_asyncio.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[RedisProcess]:
    """A Redis of the test's own, which it may stop (or kill) and start again."""
    process = RedisProcess(tmp_path / "redis")
    await process.astart()
    yield process
    await process.astop()


@pytest_asyncio.fixture
async def own_server(own_redis: RedisProcess) -> AsyncIterator[Server]:
    """A server as :func:`server` makes it, on :func:`own_redis`: for a test that looks at
    the whole store (the organiser's list of matches), which the run's Redis shares with
    every other test running at the same time."""
    redis = Redis.from_url(own_redis.url)
    try:
        async with serving_on(redis) as instance:
            yield instance
    finally:
        await redis.aclose()


@pytest_asyncio.fixture
async def on_own_redis(own_redis: RedisProcess) -> AsyncIterator[Server]:
    """A server on :func:`own_redis`, with a client made as ``duplicate serve`` makes it."""
    redis = _redis_client(own_redis.url)
    server = Server(redis, ORGANISER_KEY, robot_delay=0)
    await server.start()
    try:
        yield server
    finally:
        await server.close()
        await redis.aclose()


@pytest.fixture
def data_dir() -> Path:
    """The tests' data folder (tests/data): real match records with their SOURCES.md."""
    if not DATA_DIR.is_dir():
        pytest.fail(f"the tests' data folder is missing: {DATA_DIR}")
    return DATA_DIR

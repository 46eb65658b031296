"""A resume costs the same however long the match's log has grown: the missed updates are
regenerated from the latest resume point before them (a fork of the match kept every
RESUME_EVERY entries), not by folding the log from its start, and come out the same."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from typing import Any

import pytest
from websockets.asyncio.client import connect

from clients.client import Link
from protocol.codec import decode_server, encode
from protocol.messages import PROTOCOL_VERSION, Hello, Ping, Pong, Update
from server import matches as server_matches
from server import store as server_store
from server.app import Server
from server.matches import (
    RESUME_EVERY,
    RESUME_LIMIT,
    RESUME_POINTS,
    Loaded,
    MatchRuntime,
    regenerate,
)
from server.state import MatchState
from server.views import Player, Viewer, Watcher
from tests.server.harness import analysed, create

pytestmark = pytest.mark.asyncio


async def finished_match(server: Server, boards: int) -> MatchRuntime:
    """A match of robots only, played out (a long log, made quickly)."""
    created = await create(server, boards=boards, robots=["t1", "t2"], spectators="live")
    runtime = await server.runtime(created.match_id)
    async with asyncio.timeout(120):
        while not runtime.state.finished:
            await asyncio.sleep(0.05)
    return runtime


async def settled(server: Server, runtime: MatchRuntime) -> None:
    """Wait until the match is over, its robots have left (each robot's leaving is an update
    too) and its double-dummy analysis is logged (appended whenever it comes): nothing more
    comes to its logs."""
    async with asyncio.timeout(120):
        while not runtime.state.finished or any(
            seat.connected for seat in runtime.state.people.values()
        ):
            await asyncio.sleep(0.05)
    await analysed(server, runtime.config.match_id)


def folds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the entries folded from now on (one item per :meth:`MatchState.apply`)."""
    counted: list[int] = []
    apply = MatchState.apply

    def counting(self: MatchState, table: int, event: dict[str, object]) -> object:
        counted.append(table)
        return apply(self, table, event)  # type: ignore[arg-type]

    monkeypatch.setattr(MatchState, "apply", counting)
    return counted


async def resumed(link: str, last_seq: int) -> list[Update]:
    """The updates a raw connection of ``link`` gets when it resumes after ``last_seq``: those
    before the ``pong`` of a ``ping`` sent right after the ``hello``."""
    parsed = Link.parse(link)
    async with connect(parsed.ws_url, max_size=None) as websocket:
        hello = Hello(version=PROTOCOL_VERSION, token=parsed.token, last_seq=last_seq)
        await websocket.send(encode(hello))
        await websocket.send(encode(Ping(ref=7)))
        updates = []
        while not isinstance(message := decode_server(await websocket.recv()), Pong):
            if isinstance(message, Update):
                updates.append(message)
        return updates


VIEWERS: list[Viewer] = [Watcher("live"), Watcher("director"), Player(1), Player(6)]


async def test_missed_updates_come_from_the_latest_point_and_match_a_full_fold(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = await finished_match(server, boards=12)
    watch = runtime.watch
    assert len(watch) > RESUME_EVERY * RESUME_POINTS  # points do not reach the start
    # The runtime kept its points as it published, and one read back from the store keeps
    # the same ones.
    logs = await server.store.load(runtime.config.match_id)
    assert logs is not None
    loaded = Loaded.of(logs)
    assert [p.index for p in loaded.points] == [p.index for p in runtime._points]
    assert len(runtime._points) == RESUME_POINTS
    counted = folds(monkeypatch)
    for viewer in VIEWERS:
        current = runtime.seq_of(viewer)
        for after in range(max(1, current - RESUME_LIMIT), current, 5):
            point = runtime._point_before(viewer, after)
            assert point.index > 0, (viewer, after)  # a point, not the match's origin
            counted.clear()
            quick = regenerate(watch[point.index :], viewer, after, point)
            folded = len(counted)
            fresh = regenerate(watch, viewer, after, runtime._origin)
            assert quick[0] == fresh[0], (viewer, after)  # the same frames, byte for byte
            assert quick[2] == fresh[2]
            assert quick[3] == fresh[3]
            # What it folded: the entries since the point, never the whole log.
            assert folded == len(watch) - point.index <= RESUME_EVERY * RESUME_POINTS


async def test_a_played_match_read_back_is_kept_in_little_memory(server: Server) -> None:
    # What a process keeps of a match it loaded: its state, its resume points and its log,
    # which grows by an entry an action (some 2,000 in 16 boards) and is read again only
    # by resumes. Kept as the store's events decoded (each table's log and the watchers'),
    # a 16-board match held 3.7 MiB; its log packed, 1.1 MiB.
    runtime = await finished_match(server, boards=16)
    # What the server does meanwhile is not counted: its robots leaving, the analysis
    # logged, are waited for; and of what is allocated while the match is read and folded,
    # only what the read and the fold allocated counts.
    await settled(server, runtime)
    gc.collect()
    tracemalloc.start(32)
    try:
        logs = await server.store.load(runtime.config.match_id)
        assert logs is not None
        entries = len(logs.watch)
        loaded = Loaded.of(logs)
        del logs
        gc.collect()
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    reading = [
        tracemalloc.Filter(True, module.__file__, all_frames=True)
        for module in (server_store, server_matches)
    ]
    kept = sum(stat.size for stat in snapshot.filter_traces(reading).statistics("filename"))
    assert entries > 1500
    assert loaded.state.finished
    assert kept < 1.5 * 1024 * 1024, f"{kept / 1024:.0f} KiB for {entries} entries"


async def test_a_client_resuming_far_into_a_long_log_folds_little(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = await finished_match(server, boards=2)
    long = await finished_match(server, boards=16)
    assert len(long.watch) > 6 * len(short.watch)
    counted = folds(monkeypatch)
    costs = []
    for runtime in (short, long):
        viewer = Watcher("live")
        after = runtime.seq_of(viewer) - 60
        counted.clear()
        frames = runtime.catch_up(viewer, after)
        assert len(frames) == 60
        costs.append(len(counted))
    # Folding from a point costs at most what the points span, whatever the log's length;
    # from the start it cost the whole log.
    assert costs[1] <= RESUME_EVERY * RESUME_POINTS < len(long.watch)
    assert costs[0] <= len(short.watch)


async def test_a_resume_through_the_protocol_gets_each_missed_update(server: Server) -> None:
    created = await create(server, boards=8, robots=["t1", "t2"], spectators="live")
    assert created.spectator is not None
    runtime = await server.runtime(created.match_id)
    # The log complete: a robot's leaving, or the analysis, coming beside the resume would
    # be one update more than counted.
    await settled(server, runtime)
    current = runtime.seq_of(Watcher("live"))
    assert runtime._point_before(Watcher("live"), current - 50).index > 0  # from a point
    updates = await resumed(created.spectator, current - 50)
    assert [u.seq for u in updates] == list(range(current - 49, current + 1))
    # Each is the update first sent: the changes since the one before, as a live spectator
    # who never left got them (a fresh fold of the whole log says the same).
    viewer = Watcher("live")
    fresh = regenerate(runtime.watch, viewer, current - 50, runtime._origin)
    assert [encode(u) for u in updates] == fresh[0]


async def test_resumes_of_one_viewer_from_one_update_share_one_regeneration(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A resume storm: five devices of the director come back at once from the same update.
    # One regeneration serves them all (on the event loop, in slices: no thread holds the
    # GIL against the loop), and each gets every missed update.
    import server.matches as matches

    created = await create(server, boards=4, robots=["t1", "t2"], spectators="live")
    runtime = await server.runtime(created.match_id)
    # The robots leave once the match is over, and each is logged away: then nothing more
    # comes but the analysis (a busy machine logged them after the count began).
    async with asyncio.timeout(120):
        while not runtime.state.finished or any(
            person.connected for person in runtime.state.people.values()
        ):
            await asyncio.sleep(0.05)
    await analysed(server, created.match_id)  # logged by then: nothing more comes
    current = runtime.seq_of(Watcher("director"))
    started: list[int] = []
    real = matches.regenerating

    def counted(*args: object, **kwargs: object) -> object:
        started.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(matches, "regenerating", counted)

    async def resume() -> list[int]:
        return [update.seq for update in await resumed(created.director, current - 40)]

    # The regenerations wait their turn (one at a time in the process): held until all five
    # devices have looked for one under way, they all find the first.
    class Looked(dict[Any, Any]):
        looked = 0

        def get(self, key: Any, default: Any = None) -> Any:
            Looked.looked += 1
            return super().get(key, default)

    runtime._regenerations = Looked()
    turn = matches._REGENERATING.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    async with turn:
        resumes = [asyncio.create_task(resume()) for _ in range(5)]
        async with asyncio.timeout(10):
            while Looked.looked < 5:
                await asyncio.sleep(0.01)
    results = await asyncio.gather(*resumes)
    assert results == [list(range(current - 39, current + 1))] * 5
    assert len(started) == 1

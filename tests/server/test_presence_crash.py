"""A process that dies without a word (``kill -9``) takes its players' presence with it: once
it is known dead, every player it served who is not connected anywhere else shows as away,
to whoever watches the match on a process still alive (SPEC section 8, players and
presence); a player connected on a process alive never does.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import cast

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients.client import Client, Link
from protocol.messages import MatchCreated, PlayerInfo, PlayerView, Update, WatchView
from server.app import Server
from server.fanout import ALIVE_FOR, HEARTBEAT
from server.redis_process import RedisProcess
from server.store import PROCESSES_KEY
from tests.conftest import ORGANISER_KEY
from tests.server.harness import ServeProcess, one_board, stored_events

GRACE = 2.0
"""Seconds ``duplicate serve`` waits before it marks a closed seat away (its default)."""
NOTICED_WITHIN = ALIVE_FOR + 2 * HEARTBEAT + GRACE + 15.0
"""Seconds from a kill within which a process alive shows the dead one's players away: its
last heartbeat expires, its next heartbeat's look sees it gone (a grace's worth to spare);
and a generous margin for a slow machine."""


@pytest.fixture
def serving(own_redis: RedisProcess, tmp_path: Path) -> Iterator[list[ServeProcess]]:
    """The ``duplicate serve`` processes a test starts on its own Redis, stopped after it."""
    started: list[ServeProcess] = []
    yield started
    for process in started:
        process.stop()


@pytest_asyncio.fixture
async def store(own_redis: RedisProcess) -> AsyncIterator[Redis]:
    client = Redis.from_url(own_redis.url)
    yield client
    await client.aclose()


def start(serving: list[ServeProcess], redis: RedisProcess, data: Path) -> ServeProcess:
    process = ServeProcess(redis.url, data)
    serving.append(process)
    return process


def on(process: ServeProcess | Server, link: str | None) -> Link:
    """``link`` (a join link of the match) through ``process``."""
    assert link is not None
    return Link(process.ws_url, Link.parse(link).token)


async def create_at(process: ServeProcess) -> MatchCreated:
    organiser = await Client.connect(Link(process.ws_url, ORGANISER_KEY), name="organiser")
    try:
        return await organiser.create_match(boards=1, deals_pbn=one_board(), review_seconds=0)
    finally:
        await organiser.close()


def seat_link(created: MatchCreated, table: int, seat: str) -> str:
    link = next(s.link for s in created.seats if (s.table, s.seat) == (table, seat))
    assert link is not None
    return link


def seat_info(view: PlayerView | WatchView, table: int, seat: str) -> PlayerInfo:
    return next(p for p in view.players if (p.table, p.seat) == (table, seat))


def dropped(client: Client) -> Callable[[object], bool | None]:
    """A condition of :meth:`Client.wait_for`: ``client``'s connection has dropped."""
    return lambda _view: not client.is_connected or None


def went_away(client: Client, table: int, seat: str) -> bool:
    """Whether ``client`` was told that the player at ``table`` ``seat`` went away."""
    return any(
        event.type == "presence_changed"
        and (event.table, event.seat, event.connected) == (table, seat, False)
        for message in client.received
        if isinstance(message, Update)
        for event in message.events
    )


async def logged_away(redis: Redis, match_id: str, table: int, seat: str) -> int:
    """How many times the store logged the player at ``table`` ``seat`` going away."""
    presences = await stored_events(redis, match_id, table, "presence")
    return sum(1 for e in presences if e["seat"] == seat and not e["connected"])


@pytest.mark.asyncio
async def test_after_a_kill_and_a_restart_who_did_not_come_back_is_away(
    own_redis: RedisProcess, store: Redis, serving: list[ServeProcess], tmp_path: Path
) -> None:
    first = start(serving, own_redis, tmp_path / "first")
    created = await create_at(first)
    table_1 = {seat: seat_link(created, 1, seat) for seat in "NESW"}
    players = {
        seat: await Client.connect(on(first, link), name=f"1{seat}")
        for seat, link in table_1.items()
    }
    clients = list(players.values())
    try:
        watcher = await Client.connect(on(first, created.spectator), name="watcher")
        clients.append(watcher)
        await watcher.wait_for(lambda v: all(seat_info(v, 1, s).connected for s in "NESW") or None)
        await watcher.close()

        killed_at = time.time() * 1000
        first.kill()  # no goodbye: its heartbeat and its connection counts stay in the store
        for client in players.values():
            await client.wait_for(dropped(client))
        second = start(serving, own_redis, tmp_path / "second")

        # North and South come back; East and West do not. A spectator looks.
        for seat in "NS":
            players[seat].link = on(second, table_1[seat])
            await players[seat].reconnect()
        watcher = await Client.connect(on(second, created.spectator), name="watcher again")
        clients.append(watcher)

        def settled(view: WatchView) -> WatchView | None:
            back = all(seat_info(view, 1, s).connected for s in "NS")
            away = not any(seat_info(view, 1, s).connected for s in "EW")
            return view if back and away else None

        view = await watcher.wait_for(settled, timeout=NOTICED_WITHIN)
        for seat in "EW":
            since = seat_info(view, 1, seat).since
            assert since is not None
            assert since >= killed_at, seat
            assert await logged_away(store, created.match_id, 1, seat) == 1
        # Table 2's players never came: still never connected.
        assert all(seat_info(view, 2, s).since is None for s in "NESW")
        # Who came back shows connected to the others at their table too.
        north = await players["N"].wait_for(
            lambda v: v if not any(p.connected for p in v.players if p.seat in "EW") else None,
            timeout=NOTICED_WITHIN,
        )
        assert all(p.connected for p in north.players if p.seat in "NS")
    finally:
        for client in clients:
            await client.close()


async def north_on_one_south_on_another(
    serving: list[ServeProcess], redis: RedisProcess, tmp_path: Path
) -> tuple[ServeProcess, MatchCreated, tuple[Client, Client, Client]]:
    """Two processes, P1 and P2, and a match made on P2: North connected to P1, South and
    a spectator to P2, once the spectator sees both connected. Returns P1, the match and
    (north, south, spectator)."""
    p1 = start(serving, redis, tmp_path / "p1")
    p2 = start(serving, redis, tmp_path / "p2")
    created = await create_at(p2)
    north = await Client.connect(on(p1, seat_link(created, 1, "N")), name="north")
    south = await Client.connect(on(p2, seat_link(created, 1, "S")), name="south")
    watcher = await Client.connect(on(p2, created.spectator), name="watcher")
    await watcher.wait_for(
        lambda v: (seat_info(v, 1, "N").connected and seat_info(v, 1, "S").connected) or None
    )
    return p1, created, (north, south, watcher)


@pytest.mark.asyncio
async def test_a_killed_process_players_go_away_for_the_others(
    own_redis: RedisProcess, store: Redis, serving: list[ServeProcess], tmp_path: Path
) -> None:
    p1, created, (north, south, watcher) = await north_on_one_south_on_another(
        serving, own_redis, tmp_path
    )
    clients = [north, south, watcher]
    try:
        p1.kill()
        killed = time.monotonic()
        view = await watcher.wait_for(
            lambda v: v if not seat_info(v, 1, "N").connected else None, timeout=NOTICED_WITHIN
        )
        assert time.monotonic() - killed < NOTICED_WITHIN
        assert went_away(watcher, 1, "N")
        assert await logged_away(store, created.match_id, 1, "N") == 1
        # South, on P2 all along, never went away.
        assert seat_info(view, 1, "S").connected
        assert south.is_connected
        assert not went_away(watcher, 1, "S")
        assert await logged_away(store, created.match_id, 1, "S") == 0
    finally:
        for client in clients:
            await client.close()


async def expired(redis: Redis, process: str) -> None:
    """Return once the heartbeat ``process`` last gave (it gives no more) has expired."""
    last = await redis.zscore(PROCESSES_KEY, process)
    assert last is not None
    await asyncio.sleep(max(0.0, last + ALIVE_FOR + 0.5 - time.time()))


@pytest.mark.asyncio
async def test_a_death_a_match_saw_first_settles_every_match(
    own_redis: RedisProcess,
    store: Redis,
    serving: list[ServeProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A holds match 1, whose North is connected on B. B is killed; once its heartbeat has
    # expired, A loads match 2 (its North on B too): the load's look at the processes is the
    # first to see B gone. Match 1's North is away as well, without waiting for A's heartbeat
    # to look (made to look late here, as it does when the load comes between B's expiry and
    # A's next beat: that look then saw nothing new, and match 1 stayed as it was).
    b = start(serving, own_redis, tmp_path / "b")
    monkeypatch.setattr("server.fanout.HEARTBEAT", 3600.0)
    a = Server(Redis.from_url(own_redis.url), ORGANISER_KEY, robot_delay=0)
    await a.start()
    clients: list[Client] = []
    try:
        first, second = await create_at(b), await create_at(b)
        for created in (first, second):
            north = await Client.connect(on(b, seat_link(created, 1, "N")), name="north")
            clients.append(north)
            await north.wait_for(lambda v: seat_info(v, 1, "N").connected or None)
        watcher = await Client.connect(on(a, first.spectator), name="watcher 1")
        clients.append(watcher)
        await watcher.wait_for(lambda v: seat_info(v, 1, "N").connected or None)
        beating = cast(list[bytes], await store.zrange(PROCESSES_KEY, 0, -1))
        [process] = {name.decode() for name in beating} - {a.fanout.process}

        b.kill()
        await expired(store, process)
        other = await Client.connect(on(a, second.spectator), name="watcher 2")
        clients.append(other)
        await other.wait_for(lambda v: not seat_info(v, 1, "N").connected or None, timeout=20)
        await watcher.wait_for(lambda v: not seat_info(v, 1, "N").connected or None, timeout=20)
        assert went_away(watcher, 1, "N")
        assert await logged_away(store, first.match_id, 1, "N") == 1
    finally:
        for client in clients:
            await client.close()
        await a.close()
        await a.redis.aclose()


@pytest.mark.asyncio
async def test_a_process_that_stalled_shows_its_players_again(
    own_redis: RedisProcess, store: Redis, serving: list[ServeProcess], tmp_path: Path
) -> None:
    # P1 stops (SIGSTOP) long enough for P2 to count it dead and mark its North away; when P1
    # goes on, North, connected there all along, shows as connected again.
    p1, created, (north, south, watcher) = await north_on_one_south_on_another(
        serving, own_redis, tmp_path
    )
    clients = [north, south, watcher]
    stopped = False
    try:
        p1.popen.send_signal(signal.SIGSTOP)
        stopped = True
        await watcher.wait_for(
            lambda v: not seat_info(v, 1, "N").connected or None, timeout=NOTICED_WITHIN
        )
        p1.popen.send_signal(signal.SIGCONT)
        stopped = False
        view = await watcher.wait_for(
            lambda v: v if seat_info(v, 1, "N").connected else None, timeout=NOTICED_WITHIN
        )
        assert north.is_connected
        assert await logged_away(store, created.match_id, 1, "N") == 1
        assert seat_info(view, 1, "S").connected
        assert not went_away(watcher, 1, "S")
    finally:
        if stopped:
            p1.popen.send_signal(signal.SIGCONT)
        for client in clients:
            await client.close()

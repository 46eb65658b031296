"""The double-dummy analysis reaches every viewer after a crash, whichever process finishes it.

Real ``duplicate serve`` processes on the run's own Redis. The process that creates each
match runs its analysis worker with the test hook of ``server.solver`` (DELAY_VARIABLE) set
to an hour: the analysis is always still to come when that process is killed with SIGKILL,
holding the match's analysis lease, which stands until that process is seen dead. Every board is
compared (passed out at both tables, the match over) before the kill, so each comparison
shows ``double_dummy`` and ``par`` null until the analysis comes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from bridge import Deal, board_dealer, board_vulnerability
from clients.client import Client, Link
from protocol.messages import MatchCreated, ParView, Update
from server.analyses import ANALYSIS_LOOK
from server.fanout import ALIVE_FOR
from server.redis_process import RedisProcess
from server.solver import DELAY_VARIABLE, analyse
from server.store import LOGGED
from tests.conftest import forget_earlier_robots
from tests.server.harness import SEATS, ServeProcess, bid, create_at, stored_events
from tests.server.test_formats import deals_file

BOARDS = 2
HELD_BACK = "3600"
"""Seconds the creating process's worker waits before each analysis: longer than any test."""
ANALYSIS_TIME = 60.0
"""Seconds, generously, to start a worker and analyse the match's boards on a busy machine."""
TAKEN_OVER_WITHIN = ALIVE_FOR + ANALYSIS_LOOK + ANALYSIS_TIME
"""After the kill: the dead process no longer counts as alive, another takes its lease at its
next look, and analyses the boards."""

Serve = Callable[..., ServeProcess]


@pytest.fixture
def serve(
    redis_process: RedisProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Serve]:
    """Start ``duplicate serve`` processes on the run's Redis (``held``: with the analysis
    held back an hour); each is stopped at the end."""
    started: list[ServeProcess] = []

    def start(name: str, *, held: bool = False) -> ServeProcess:
        with monkeypatch.context() as environment:  # only that process's environment
            if held:
                environment.setenv(DELAY_VARIABLE, HELD_BACK)
            else:
                environment.delenv(DELAY_VARIABLE, raising=False)
            process = ServeProcess(redis_process.url, tmp_path / name)
        started.append(process)
        return process

    try:
        yield start
    finally:
        for process in started:
            process.stop()


def at(link: str, ws_url: str) -> Link:
    """``link``'s token at the server at ``ws_url``."""
    return Link(ws_url, Link.parse(link).token)


def lease_of(match_id: str) -> str:
    """The store's key of the match's analysis lease."""
    return f"{{m:{match_id}}}:analysis"


async def pass_out_every_board(created: MatchCreated, ws_url: str) -> None:
    """Every player connects at ``ws_url`` and passes every board out, at both tables, until
    the match is over; then they leave."""
    players: dict[tuple[int, str], Client] = {}
    try:
        for seat in created.seats:
            assert seat.link is not None
            players[(seat.table, seat.seat)] = await Client.connect(
                at(seat.link, ws_url), name=f"{seat.table}{seat.seat}"
            )
        for table in (1, 2):
            sitting = {letter: players[(table, letter)] for letter in SEATS}
            for board in range(1, BOARDS + 1):
                await bid(sitting, board, ["P", "P", "P", "P"])
        await players[(1, "N")].wait_for(lambda view: view.match.finished or None)
    finally:
        for client in players.values():
            await client.close()


def is_analysed(view: Any) -> bool | None:
    """Every board compared, each with its analysis."""
    comparisons = view.match.comparisons
    return (
        len(comparisons) == BOARDS
        and all(c.double_dummy is not None and c.par is not None for c in comparisons)
    ) or None


def assert_not_analysed(view: Any) -> None:
    """Every board compared, none with its analysis yet."""
    comparisons = view.match.comparisons
    assert len(comparisons) == BOARDS
    assert all(c.double_dummy is None and c.par is None for c in comparisons), comparisons


def assert_analysis_shown(client: Client, deals: dict[int, Deal]) -> None:
    """The client's view shows each board's own analysis, and it came in an update with no
    events whose changes replace each comparison's ``double_dummy`` and ``par``."""
    assert client.view is not None
    for comparison in client.view.match.comparisons:
        number = comparison.board
        solved = analyse(deals[number], board_dealer(number), board_vulnerability(number))
        assert comparison.double_dummy == solved.tricks
        assert comparison.par == ParView(
            score=solved.par_score, contracts=list(solved.par_contracts)
        )
    brought = [
        {change.path for change in message.changes}
        for message in client.received
        if isinstance(message, Update) and not message.events
        if any(change.path.endswith("/double_dummy") for change in message.changes)
    ]
    assert len(brought) == 1, brought
    assert brought[0] == {
        f"/match/comparisons/{index}/{field}"
        for index in range(BOARDS)
        for field in ("double_dummy", "par")
    }


async def assert_logged_once(redis: Redis, match_id: str) -> None:
    """One ``analysed`` entry, for every board, in each table's log; the lease says so."""
    for table in (1, 2):
        logged = await stored_events(redis, match_id, table, "analysed")
        assert len(logged) == 1, (table, logged)
        assert sorted(int(n) for n in logged[0]["boards"]) == list(range(1, BOARDS + 1))
    async with asyncio.timeout(10):
        while await redis.get(lease_of(match_id)) != LOGGED.encode():  # just after logging
            await asyncio.sleep(0.05)


async def kill_before_the_analysis(redis: Redis, process: ServeProcess, match_id: str) -> None:
    """Kill ``process`` (SIGKILL) while it holds the match's analysis lease, the analysis
    not logged: its lease stands after it."""
    assert await redis.get(lease_of(match_id)) is not None, "the creator holds the lease"
    process.kill()
    assert await stored_events(redis, match_id, 1, "analysed") == []
    assert await redis.pttl(lease_of(match_id)) > 0


@pytest.mark.asyncio
async def test_a_server_killed_before_its_analysis_works_it_out_when_restarted(
    redis: Redis, serve: Serve
) -> None:
    await forget_earlier_robots(redis)
    deals, dealt = deals_file(BOARDS, seed=31)
    first = serve("first", held=True)
    created = await create_at(first.ws_url, boards=BOARDS, deals_pbn=deals)
    match_id = created.match_id
    await pass_out_every_board(created, first.ws_url)
    await kill_before_the_analysis(redis, first, match_id)

    again = serve("again")  # the same deployment, restarted
    viewer = await Client.connect(at(created.director, again.ws_url), name="director")
    try:
        # It loads the match for the viewer, still without the analysis (the dead process
        # counts as alive, and its lease stands, for seconds more): then works it out, and
        # the viewer is sent it.
        assert_not_analysed(viewer.view)
        await viewer.wait_for(is_analysed, timeout=TAKEN_OVER_WITHIN)
        assert_analysis_shown(viewer, dealt)
        await assert_logged_once(redis, match_id)
    finally:
        await viewer.close()


@pytest.mark.asyncio
async def test_a_creator_killed_holding_the_lease_is_taken_over_by_a_survivor(
    redis: Redis, serve: Serve
) -> None:
    # The match is played and watched on B and C; A, which created it, is killed while it
    # holds the analysis lease. B and C both hold the match and race for the lease once A
    # is seen dead: one of them analyses, the analysis is logged once, and every viewer
    # gets it.
    await forget_earlier_robots(redis)
    deals, dealt = deals_file(BOARDS, seed=32)
    a = serve("a", held=True)
    b = serve("b")
    c = serve("c")
    created = await create_at(a.ws_url, boards=BOARDS, deals_pbn=deals)
    match_id = created.match_id
    assert created.spectator is not None
    director = await Client.connect(at(created.director, b.ws_url), name="director")
    spectator = await Client.connect(at(created.spectator, c.ws_url), name="spectator")
    viewers = [director, spectator]
    try:
        await pass_out_every_board(created, b.ws_url)
        for viewer in viewers:
            await viewer.wait_for(lambda view: view.match.finished or None)
            assert_not_analysed(viewer.view)
        await kill_before_the_analysis(redis, a, match_id)

        for viewer in viewers:
            await viewer.wait_for(is_analysed, timeout=TAKEN_OVER_WITHIN)
            assert_analysis_shown(viewer, dealt)
        await assert_logged_once(redis, match_id)
    finally:
        for viewer in viewers:
            await viewer.close()

"""Double-dummy analysis: in a worker process of its own, at the lowest priority, never in
the server's process; endplay's solver is not thread-safe, so no two calls overlap."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from server.analysis import AnalysisError, Analyst
from server.app import Server
from server.formats import dealt_boards
from server.solver import analyse
from tests.server.harness import ANALYSIS_WAIT, create
from tests.server.test_redis_process import is_running, wait_until

ROOT = Path(__file__).resolve().parents[2]

# Run in a child process: a solver whose memory two threads corrupt dies of SIGSEGV or
# SIGABRT, which must fail this test and not kill pytest.
CONCURRENT_ANALYSES = textwrap.dedent(
    """
    import random
    from concurrent.futures import ThreadPoolExecutor

    from bridge import Deal, board_dealer, board_vulnerability
    from server.solver import analyse

    rng = random.Random(2024)
    boards = [(n, Deal.random(rng)) for n in range(1, 11)]

    def analysed(board):
        number, deal = board
        return analyse(deal, board_dealer(number), board_vulnerability(number))

    one_after_another = [analysed(board) for board in boards]
    with ThreadPoolExecutor(6) as pool:
        all_at_once = list(pool.map(analysed, boards))
    assert all_at_once == one_after_another, "results differ"
    print("same results:", len(all_at_once))
    """
)


def test_many_threads_analysing_at_once_agree_with_one_after_another() -> None:
    # Without the lock this crashed ("Sum 6 is not four", then SIGSEGV or a double free) in
    # each of several runs.
    result = subprocess.run(
        [sys.executable, "-c", CONCURRENT_ANALYSES],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr[-2000:])
    assert "same results: 10" in result.stdout
    assert "not four" not in result.stdout + result.stderr  # the solver's own complaint


@pytest.mark.asyncio
async def test_matches_created_at_the_same_moment_all_succeed(server: Server) -> None:
    # Eight organisers at once: six teams matches, two robot-table ones (whose table 2 the
    # robots play while the others are analysed).
    requests = [create(server, boards=2) for _ in range(6)]
    requests += [create(server, boards=4, format="robot-table") for _ in range(2)]
    created = await asyncio.gather(*requests)
    assert len({match.match_id for match in created}) == 8
    for match in created:
        # Created without waiting for the analysis, which is logged after, once for all its
        # boards.
        async with asyncio.timeout(ANALYSIS_WAIT):
            while True:
                logs = await server.store.load(match.match_id)
                assert logs is not None
                logged = [e for _t, e in logs.watch if e["type"] == "analysed"]
                if logged:
                    break
                await asyncio.sleep(0.1)
        assert len(logged) == 1
        assert sorted(int(n) for n in logged[0]["boards"]) == [b.number for b in logs.config.boards]
        assert all(board.analysis is None for board in logs.config.boards)


@pytest.mark.asyncio
async def test_the_analyst_solves_in_a_worker_at_the_lowest_priority() -> None:
    analyst = Analyst()
    try:
        boards = dealt_boards(3)
        found = await analyst.analyse(boards)
        assert found == {b.number: analyse(b.deal, b.dealer, b.vulnerability) for b in boards}
        pid = analyst.worker_pid
        assert pid is not None
        assert pid != os.getpid()
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(
            19, os.getpriority(os.PRIO_PROCESS, 0) + 19
        )
    finally:
        analyst.close()
    assert analyst.worker_pid is None


@pytest.mark.asyncio
async def test_a_worker_that_dies_fails_its_request_and_is_replaced() -> None:
    analyst = Analyst()
    try:
        await analyst.analyse(dealt_boards(1))
        first = analyst.worker_pid
        assert first is not None
        asking = asyncio.create_task(analyst.analyse(dealt_boards(16)))
        await asyncio.sleep(0.3)  # well into sixteen boards (a tenth of a second or more each)
        os.kill(first, signal.SIGKILL)
        with pytest.raises(AnalysisError, match="stopped"):
            await asking
        boards = dealt_boards(2)
        assert sorted(await analyst.analyse(boards)) == [1, 2]
        assert analyst.worker_pid not in (None, first)
    finally:
        analyst.close()


@pytest.mark.asyncio
async def test_an_idle_worker_leaves_and_the_next_request_starts_another() -> None:
    analyst = Analyst(idle_exit=0.3)
    try:
        await analyst.analyse(dealt_boards(1))
        first = analyst.worker_pid
        assert first is not None
        await asyncio.sleep(0.15)
        await analyst.analyse(dealt_boards(1))  # a request in time keeps it
        assert analyst.worker_pid == first
        deadline = time.monotonic() + 5
        while analyst.worker_pid is not None:  # then it leaves, its memory back
            assert time.monotonic() < deadline, "the idle worker stayed"
            await asyncio.sleep(0.05)
        assert sorted(await analyst.analyse(dealt_boards(2))) == [1, 2]
        assert analyst.worker_pid not in (None, first)
    finally:
        analyst.close()


@pytest.mark.asyncio
async def test_a_request_cancelled_while_it_waits_is_dropped() -> None:
    analyst = Analyst()
    try:
        ahead = asyncio.create_task(analyst.analyse(dealt_boards(4)))
        behind = asyncio.create_task(analyst.analyse(dealt_boards(1)))
        await asyncio.sleep(0)
        behind.cancel()
        assert sorted(await ahead) == [1, 2, 3, 4]
        with pytest.raises(asyncio.CancelledError):
            await behind
    finally:
        analyst.close()


DIES_WITH_A_WORKER = textwrap.dedent(
    """
    import asyncio, time
    from server.analysis import Analyst
    from server.formats import dealt_boards

    async def main():
        analyst = Analyst.shared()
        await analyst.analyse(dealt_boards(1))
        print(analyst.worker_pid, flush=True)
        asyncio.create_task(analyst.analyse(dealt_boards(64)))  # ten seconds of work
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


def test_the_worker_dies_with_the_process_that_started_it() -> None:
    # A server killed with SIGKILL runs no exit handler: the kernel must end its worker at
    # once, not when it next finds its pipe closed (after ten seconds of analysis here).
    with subprocess.Popen(
        [sys.executable, "-c", DIES_WITH_A_WORKER], stdout=subprocess.PIPE, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    ) as parent:  # fmt: skip
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        time.sleep(0.5)  # the worker busy with the long request
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        wait_until(lambda: not is_running(worker), 2, "the worker gone with its server")


def test_the_server_never_loads_the_solver() -> None:
    # A second of start-up and a plotting library the server has no use for.
    result = subprocess.run(
        [sys.executable, "-c", "import sys, duplicate.cli, server.app; print(sorted("
         "m for m in sys.modules if m.split('.')[0] in ('endplay', 'matplotlib')))"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"

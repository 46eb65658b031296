"""Double-dummy analysis: endplay's solver is not thread-safe, so no two calls overlap."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

from server.app import Server
from tests.server.harness import create

# Run in a child process: a solver whose memory two threads corrupt dies of SIGSEGV or
# SIGABRT, which must fail this test and not kill pytest.
CONCURRENT_ANALYSES = textwrap.dedent(
    """
    import random
    from concurrent.futures import ThreadPoolExecutor

    from bridge import Deal, board_dealer, board_vulnerability
    from server.analysis import analyse

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
        async with asyncio.timeout(60):
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

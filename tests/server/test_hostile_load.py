"""A normal match keeps its pace while hostile clients do their worst: the server, the
hostile clients and the measured player each run in their own process, on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.client import Client, Link
from protocol.messages import PlayerView
from server.redis_process import free_port
from tests.server.harness import STRONG_NORTH, one_board

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 24.0
"""Long enough for some 200 actions of North's: a p99 of fewer is their slowest one."""
BASELINE_SECONDS = 4.0
KEY = "hostile-test-organiser-key"
pytestmark = pytest.mark.alone  # measures times: see pyproject.toml
ONLY = os.environ.get("HOSTILE_ONLY", "").split() and [
    "--only",
    *os.environ["HOSTILE_ONLY"].split(),
    "--",
]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


async def read_until(stream: asyncio.StreamReader, text: str, timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while text.encode() not in await stream.readline():
            pass


@pytest.fixture
def memory_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory (tmpfs) where there is one: the embedded Redis fsyncs every write,
    and what this test measures is the server under attack, not the disk. (In full runs, a
    single fsync stalled by the earlier tests' writes made one action of ~70 take 60-320 ms
    while the pings stayed fast.)"""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="hostile-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.asyncio
async def test_a_normal_match_keeps_its_pace_under_attack(memory_folder: Path) -> None:
    port = free_port()
    environment = dict(os.environ, PYTHONPATH=str(ROOT), DUPLICATE_ORGANISER_KEY=KEY)
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "duplicate", "serve", "--port", str(port), "--data",
        str(memory_folder / "data"), "--server-robot-delay", "0",
        # What is measured is how the limits of each connection hold the attacks off: were
        # the process overloaded, North would be refused as well (tested on its own, in
        # test_hostile.py), and that is not the question here.
        "--overload-lag", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=environment,
        cwd=ROOT,
    )  # fmt: skip
    assert server.stdout is not None
    try:
        await read_until(server.stdout, "Serving on")
        # Read what the server logs, as a terminal or a log collector would: a pipe left
        # unread would fill and stop the server. Its lines show what it made of the attacks.
        logged: list[bytes] = []

        async def drain(stream: asyncio.StreamReader) -> None:
            while line := await stream.readline():
                logged.append(line)

        draining = asyncio.create_task(drain(server.stdout))
        url = f"ws://127.0.0.1:{port}/ws"
        organiser = await Client.connect(Link(url, KEY))
        # The normal match: North (measured here) and the server's robots at a brisk pace.
        # North holds every ace, king and queen and bids 7NT at once: North declares every
        # board and plays dummy's cards too, so the player measured acts often, every deal.
        victim = await organiser.create_match(
            boards=16,
            robots=["1E", "1S", "1W"],
            review_seconds=0,
            robot_delay_ms=100,
            deals_pbn="\n".join(
                one_board(STRONG_NORTH).replace('"1"', f'"{n}"', 1) for n in range(1, 17)
            ),
        )
        attacker = await organiser.create_match(boards=1, chat="table", review_seconds=0)
        await organiser.close()
        links = [seat.link or "" for seat in attacker.seats[:3]]
        north = await Client.connect(next(s.link for s in victim.seats if s.link) or "")

        async def measure(seconds: float) -> tuple[list[float], list[float]]:
            """North's ping round trips and action answers for ``seconds``."""
            pings: list[float] = []
            actions: list[float] = []
            until = time.monotonic() + seconds

            async def ping() -> None:
                while time.monotonic() < until:
                    start = time.monotonic()
                    await north.ping()
                    pings.append(time.monotonic() - start)
                    await asyncio.sleep(0.02)

            async def play() -> None:
                while time.monotonic() < until:
                    view = await north.wait_for(
                        lambda v: v if v.match.finished or (v.board and v.board.legal) else None,
                        timeout=None,
                    )
                    assert isinstance(view, PlayerView)
                    if view.match.finished or view.board is None:
                        return
                    start = time.monotonic()
                    if view.board.phase == "auction":
                        await north.call("7NT" if "7NT" in view.board.legal else "P")
                    else:
                        await north.play(view.board.legal[0])
                    actions.append(time.monotonic() - start)

            await asyncio.gather(ping(), asyncio.wait_for(play(), seconds + 20))
            return pings, actions

        # The baseline: the same match and player, in the same run, with nobody attacking.
        quiet = await measure(BASELINE_SECONDS)
        hostile = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.server.hostile", "--server", url,
            "--seconds", str(SECONDS + 1), *ONLY, *links,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=environment,
            cwd=ROOT,
        )  # fmt: skip
        assert hostile.stdout is not None
        await read_until(hostile.stdout, "attacking")  # the clock starts with the attacks
        pings, actions = await measure(SECONDS)
        out, err = await asyncio.wait_for(hostile.communicate(), 60)
        assert hostile.returncode == 0, err.decode()[-2000:]
        attacks = json.loads(out.decode().strip().splitlines()[-1])
        await north.close()

        def figures(pings: list[float], actions: list[float]) -> dict[str, float]:
            return {
                "pings": len(pings),
                "ping p50 ms": round(percentile(pings, 0.5) * 1000, 1),
                "ping p99 ms": round(percentile(pings, 0.99) * 1000, 1),
                "actions": len(actions),
                "action p50 ms": round(percentile(actions, 0.5) * 1000, 1),
                "action p99 ms": round(percentile(actions, 0.99) * 1000, 1),
            }

        report = figures(pings, actions)
        baseline = figures(*quiet)
        ratios = {
            f"{name} under attack / quiet": round(report[name] / max(baseline[name], 0.1), 1)
            for name in ("ping p99 ms", "action p99 ms")
        }
        print(
            json.dumps(
                {
                    "normal match, quiet": baseline,
                    "normal match, under attack": report,
                    "ratios": ratios,
                    "attacks": attacks,
                    "server log lines": len(logged),
                },
                indent=1,
            )
        )
        assert attacks.get("costly frames", 0) > 10
        assert attacks.get("bad hellos", 0) > 10
        assert any(key.startswith("chat refused") for key in attacks)
        assert len(pings) > 100
        assert len(actions) > 20
        assert report["ping p99 ms"] < 50
        assert report["action p99 ms"] < 50
        assert server.returncode is None  # the server is still up
        # Repeated lines are summarised: the attacks' thousands of refusals log a few lines.
        assert len(logged) < 200, b"".join(logged[-20:]).decode()
        assert b"Traceback" not in b"".join(logged)
        draining.cancel()
    finally:
        if server.returncode is None:
            server.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(server.wait(), 30)
            except TimeoutError:
                server.kill()
                await server.wait()

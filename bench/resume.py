"""What a resume costs as a match's log grows: it must not grow with the log.

    .venv/bin/python -m bench.resume [--short 2] [--long 32] [--resumes 30]

Starts ``duplicate serve`` in a process of its own on a Redis of the bench's, creates two
matches of the server's robots (``--short`` and ``--long`` boards: a short log and a long
one), waits until the robots have played them out, then, from this process, resumes a
spectator of each again and again 60 updates back (a ``hello`` with ``last_seq``, then a
``ping``) and times each from the ``hello`` to the ``pong`` (every missed update came before
it). A fresh spectator of each (one snapshot, no regenerating) is timed the same way: the
baseline of the same run, and the cost of the views themselves, which carry every board's
comparison and so grow with the match (as every live update does). Prints a table; exits
non-zero when a resume into the long log costs more than 1.5 times one into the short log,
each counted in its own match's snapshots: beyond what its views cost, the log's length
must not count (before resume points, a resume folded the whole log from its start).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

from websockets.asyncio.client import connect

from bench.load import Child, start_server
from clients.client import Client, Link
from protocol.codec import decode_server, encode
from protocol.messages import PROTOCOL_VERSION, Hello, Ping, Pong, Update, WatchView, Welcome
from server.redis_process import RedisProcess

KEY = "resume-bench-organiser-key"
BACK = 60
"""Updates the resuming spectator missed."""
TARGET = 1.5
"""A resume into the long log may cost at most this many times one into the short log."""


async def played(server: str, boards: int) -> str:
    """A match of robots only, played out: its spectator link."""
    organiser = await Client.connect(Link(server, KEY), name="bench organiser")
    try:
        created = await organiser.create_match(
            boards=boards, robots=["t1", "t2"], review_seconds=0, spectators="live"
        )
    finally:
        await organiser.close()
    assert created.spectator is not None
    spectator = await Client.connect(created.spectator, name="bench spectator")
    try:
        view = await spectator.wait_for(
            lambda v: v if isinstance(v, WatchView) and v.match.finished else None,
            timeout=600,
        )
        assert view is not None
    finally:
        await spectator.close()
    return created.spectator


async def settled(link: str) -> int:
    """The newest update of the match once its log stands still (what follows the end, its
    analysis and its robots leaving, is logged too): so that each resume misses exactly what
    it is meant to."""
    seen: list[int] = []
    while len(seen) < 4 or len(set(seen[-4:])) > 1:
        seen.append((await timed(link, None))[2])
        await asyncio.sleep(1.0)
    return seen[-1]


async def timed(link: str, last_seq: int | None) -> tuple[float, int, int]:
    """Seconds from a spectator's ``hello`` (resuming after ``last_seq``) to the ``pong`` of
    the ``ping`` sent right after it, the updates that came meanwhile, and the newest update
    number its ``welcome`` said."""
    parsed = Link.parse(link)
    async with connect(parsed.ws_url, max_size=None, compression=None) as websocket:
        began = time.perf_counter()
        hello = Hello(version=PROTOCOL_VERSION, token=parsed.token, last_seq=last_seq)
        await websocket.send(encode(hello))
        await websocket.send(encode(Ping(ref=1)))
        updates, newest = 0, 0
        while not isinstance(message := decode_server(await websocket.recv()), Pong):
            updates += isinstance(message, Update)
            if isinstance(message, Welcome):
                newest = message.seq or 0
        return time.perf_counter() - began, updates, newest


async def measure(args: argparse.Namespace, server: str) -> bool:
    links = {name: await played(server, boards) for name, boards in
             (("short", args.short), ("long", args.long))}  # fmt: skip
    rows: dict[str, dict[str, float]] = {}
    for name, link in links.items():
        newest = await settled(link)
        resumes, fresh = [], []
        for _ in range(args.resumes):
            # (Its double-dummy analysis may be logged meanwhile: one more update to send.)
            after = newest - BACK
            cost, updates, newest = await timed(link, after)
            assert updates == newest - after, (updates, newest, after)
            resumes.append(cost)
            fresh.append((await timed(link, None))[0])
        rows[name] = {
            "updates": newest,
            "resume p50": statistics.median(resumes),
            "resume p90": statistics.quantiles(resumes, n=10)[-1],
            "fresh p50": statistics.median(fresh),
        }

    def in_snapshots(name: str) -> float:
        return rows[name]["resume p50"] / rows[name]["fresh p50"]

    ratio = in_snapshots("long") / in_snapshots("short")
    print(
        f"{'log':<6} {'updates':>8} {'resume p50':>11} {'resume p90':>11} {'fresh p50':>10}"
        f" {'resume / fresh':>15}"
    )
    for name, row in rows.items():
        print(
            f"{name:<6} {row['updates']:>8.0f} {row['resume p50'] * 1000:>9.1f}ms"
            f" {row['resume p90'] * 1000:>9.1f}ms {row['fresh p50'] * 1000:>8.1f}ms"
            f" {in_snapshots(name):>14.1f}x"
        )
    met = ratio <= TARGET
    print(
        f"resume {BACK} back, in snapshots, long log / short log: {ratio:.2f}x "
        f"(target <= {TARGET}x): " + ("met" if met else "MISSED")
    )
    return met


def main() -> int:
    """0: the target met, 1: missed, 2: the bench itself failed."""
    try:
        return run()
    except Exception:  # a failure of the bench is not a missed target
        traceback.print_exc()
        return 2


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=int, default=2, help="boards of the short match")
    parser.add_argument("--long", type=int, default=32, help="boards of the long match")
    parser.add_argument("--resumes", type=int, default=30, help="resumes timed per match")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="resume-bench-") as folder:
        root = Path(folder)
        key_file = root / "organiser.key"
        key_file.write_text(KEY)
        with RedisProcess(root / "redis") as redis:
            child: Child
            child, url = start_server(0, root, redis.url, key_file, 1000, None)
            try:
                met = asyncio.run(measure(args, url))
            finally:
                child.stop()
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

"""A soak: many robot matches against a server that is killed and restarted, with clients
that drop and come back, and nothing may be lost, doubled or leaked.

    .venv/bin/python -m bench.soak [--minutes 5] [--matches 50] [--kill-every 60]

Starts ``duplicate serve`` (with its embedded Redis) in a process of its own, keeps
``--matches`` matches going for the whole run (a finished one is replaced by a new one), and
plays every seat of each with a robot in this process (the load never shares a process with
the server). The robots are the client library's, with its ``action_id``s and its resends;
now and then, before a card, a robot says a line of chat that is unique to that intent
(chat is what the laws would let the server apply twice, where a call or a card sent twice
would be refused). At random it drops robots' connections (they reconnect and resume);
every ``--kill-every`` seconds it kills, with SIGKILL, the server (and starts it again on
the same data folder) or, every other time, only its embedded Redis (which the server
restarts: meanwhile actions are answered ``unavailable`` and stay in doubt).

At the end it reads the store back and checks: every acknowledged action is in the logs
(lost: 0), no action id and no chat line is there twice (duplicated: 0), every frame each
player received passes the leak audit and every update followed the one before (leaked,
gaps: 0), no player was told of a board's comparison twice, no board is in the swings
twice (compared twice: 0), no redis-server or analysis worker outlived its server
(orphans: 0), no robot stopped with an error, none had a decision refused and no match
stood still at the end (failed, refused, stalled: 0).
Prints a table; exits non-zero when any of these is not zero, or when no match finished.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from redis.asyncio import Redis
from redis.exceptions import RedisError

from bench.serve import ServeProcess
from bridge import Deal
from clients.client import Client, ClientError, Link
from clients.robot import Robot
from protocol.messages import BoardCompared, PlayerView, TableAction, Update
from server.redis_process import free_port

KEY = "soak-organiser-key"
STALL = 20.0
"""Seconds without an update after which an unfinished match counts as stalled."""
CHAT_SHARE = 0.1
"""How often a robot says a line of chat before a card."""


class SoakClient(Client):
    """The client library, noting the ``action_id`` of every action acknowledged and how many
    acks were for an action applied before (a resend)."""

    def __init__(
        self,
        link: Link,
        name: str = "soak",
        robot: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(link, name, robot, headers)  # heartbeat: set by Client.connect
        self.acked: set[str] = set()
        self.repeated = 0

    async def request(self, message_of: Any, timeout: float | None = 10.0) -> Any:
        action_id: str | None = None

        def noted(ref: int) -> Any:
            nonlocal action_id
            message = message_of(ref)
            if isinstance(message, TableAction):
                if message.action_id is None:  # as the library names it (a resend keeps it)
                    message = message.model_copy(update={"action_id": self.new_action_id()})
                action_id = message.action_id
            return message

        reply = await super().request(noted, timeout)
        if reply.type == "ack" and action_id is not None:
            self.acked.add(action_id)
            self.repeated += reply.repeated
        return reply


class SoakRobot(Robot):
    """A robot playing through a :class:`SoakClient`."""

    def __init__(self, link: str, name: str, seed: int) -> None:
        super().__init__(link, name=name, delay=0.0)
        self.acked: set[str] = set()
        self.rng = random.Random(seed)
        self.said = 0

    def next_action(self, view: PlayerView) -> tuple[Any, bool]:
        """The robot's action; now and then, before a card, a line of chat first."""
        action, paced = super().next_action(view)
        board = view.board
        client = self.client
        if action is None or client is None or board is None or board.phase != "play":
            return action, paced
        if board.acting != view.seat or self.rng.random() >= CHAT_SHARE:
            return action, paced

        async def chat_then_play() -> Any:
            self.said += 1
            await client.chat(f"{self.name} #{self.said}")
            return await action()

        return chat_then_play, paced

    async def run(self) -> None:
        delay = 0.1
        while self.client is None:
            try:
                client = await SoakClient.connect(
                    self.link, name=self.name, robot=True, headers=self.headers
                )
            except (ClientError, OSError):
                await asyncio.sleep(delay)  # the server is being restarted
                delay = min(2 * delay, 2.0)
                continue
            assert isinstance(client, SoakClient)
            client.acked = self.acked
            self.client = client
        await super().run()

    @property
    def repeated(self) -> int:
        return self.client.repeated if isinstance(self.client, SoakClient) else 0


@dataclass
class Figures:
    matches: int = 0
    finished: int = 0
    actions: int = 0
    repeated: int = 0
    reconnects: int = 0
    restarts: int = 0
    store_kills: int = 0
    chat: int = 0
    refused: int = 0
    """Robot decisions the server refused (each then plays its plainest legal move)."""
    orphans: int = 0
    lost: int = 0
    duplicated: int = 0
    leaked: int = 0
    gaps: int = 0
    compared_twice: int = 0
    wrong_views: int = 0
    """Robots whose view, built from the updates' changes across drops, resumes and
    restarts, is not the view the server had sent them at their last update."""
    stalled: int | None = None
    """Matches with no progress at all in the last STALL seconds (None: a restart fell in
    them, so this was not measured)."""
    failed: int = 0
    """Robots that stopped with an error (a robot whose match is not over never stops)."""
    problems: list[str] = field(default_factory=list)


def _processes() -> Iterator[tuple[int, list[bytes]]]:
    """Every process's pid and command line (its arguments)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            yield int(entry.name), command


def redis_servers_of(folder: Path) -> list[int]:
    """The pids of the redis-server processes whose working folder is ``folder``'s."""
    found = []
    for pid, command in _processes():
        if not any(b"redis-server" in part for part in command):
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd.startswith(str(folder)):
            found.append(pid)
    return found


def workers_of(server: int) -> list[int]:
    """The pids of the analysis workers (``server.solver.main``) that server process
    ``server`` started."""
    return [
        pid
        for pid, command in _processes()
        if b"from server.solver import main" in b" ".join(command)
        and str(server).encode() in command
    ]


async def answering(redis: Redis, within: float = 30.0) -> None:
    """Wait until the store answers (its server restarts it after a kill, with backoff)."""
    deadline = time.monotonic() + within
    while True:
        try:
            await redis.ping()
            return
        except (RedisError, OSError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def store(server: ServeProcess) -> Redis:
    """The server's embedded Redis, with its password (to read the logs back)."""
    return Redis.from_url(server.redis_url, password=server.redis_password())


async def soak(
    minutes: float,
    matches: int,
    kill_every: float,
    seed: int = 2026,
    boards: int = 2,
    first_kill: float | None = None,
    finish_within: float | None = None,
) -> Figures:
    """Play ``matches`` robot matches at a time for ``minutes``, killing the server (or its
    Redis) every ``kill_every`` seconds; then read everything back. ``finish_within``: then
    stop killing and starting matches, and give those under way that many seconds to end
    (``figures.finished`` then counts how many did, whatever the machine's pace)."""
    rng = random.Random(seed)
    figures = Figures(matches=matches)
    with tempfile.TemporaryDirectory(prefix="soak-") as folder:
        data = Path(folder) / "data"
        # Every robot of the soak comes from this one address: a robot host's setting.
        server = ServeProcess(
            data, free_port(), KEY, options=["--max-connections-per-address", "2000"]
        )
        await server.start()
        url = f"ws://127.0.0.1:{server.port}/ws"
        created: list[Any] = []
        robots: list[SoakRobot] = []
        tasks: dict[SoakRobot, asyncio.Task[None]] = {}

        async def new_match() -> None:
            """One more match, a robot in every seat (retried while the server restarts)."""
            while True:
                try:
                    organiser = await Client.connect(Link(url, KEY))
                    try:
                        match = await organiser.create_match(
                            boards=boards, review_seconds=0, spectators="off"
                        )
                    finally:
                        await organiser.close()
                    break
                except (ClientError, OSError):
                    await asyncio.sleep(0.2)
            created.append(match)
            for seat in match.seats:
                assert seat.link is not None
                name = f"{match.match_id} {seat.table}{seat.seat}"
                robot = SoakRobot(seat.link, name, rng.randrange(2**32))
                robots.append(robot)
                tasks[robot] = asyncio.create_task(robot.run())

        for _ in range(matches):
            await new_match()
        until = time.monotonic() + minutes * 60
        next_kill = time.monotonic() + (kill_every if first_kill is None else first_kill)

        async def refill() -> None:
            """A finished match makes room for a new one: the load stays the same."""
            while True:
                await asyncio.sleep(0.5)
                playing = sum(1 for task in tasks.values() if not task.done()) // 8
                for _ in range(matches - playing):
                    await new_match()

        def progress() -> dict[str, int]:
            """Each unfinished match's updates received so far, all its robots together."""
            seen: Counter[str] = Counter()
            for robot, task in tasks.items():
                if not task.done() and robot.client is not None:
                    seen[robot.name.split()[0]] += robot.client.seq
            return dict(seen)

        refilling = asyncio.create_task(refill())
        before: dict[str, int] | None = None  # progress STALL seconds before the end
        killed_at = 0.0
        kills = 0
        try:
            while time.monotonic() < until:
                await asyncio.sleep(0.5)
                if before is None and time.monotonic() >= until - STALL:
                    before = progress()
                for robot in rng.sample(robots, k=min(3, len(robots))):
                    client = robot.client
                    if client is not None and client.is_connected and rng.random() < 0.3:
                        await client._drop()  # the connection drops; the robot comes back
                        figures.reconnects += 1
                if time.monotonic() >= next_kill:
                    killed_at = time.monotonic()
                    kills += 1
                    if kills % 2 == 0 and server.kill_store():
                        figures.store_kills += 1  # the server notices and restarts it
                    else:
                        killed = server.pid
                        await server.kill()
                        figures.restarts += 1
                        await asyncio.sleep(0.5)
                        figures.orphans += len(redis_servers_of(data)) + len(workers_of(killed))
                        await server.start()
                    next_kill = time.monotonic() + kill_every
            # Stalled: a match that went on through the last STALL seconds (no restart in
            # them) and in which no robot received anything.
            if before is not None and killed_at < until - STALL:
                after = progress()
                stalled = [m for m, seen in after.items() if before.get(m) == seen]
                figures.stalled = len(stalled)
                figures.problems += [f"{match} stalled" for match in stalled]
            if finish_within is not None:
                refilling.cancel()
                await asyncio.wait(list(tasks.values()), timeout=finish_within)
        finally:
            refilling.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await refilling
            for task in tasks.values():
                task.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            for robot in robots:
                await robot.close()
        for robot, task in tasks.items():
            error = None if task.cancelled() else task.exception()
            if error is not None:
                figures.failed += 1
                figures.problems.append(f"{robot.name} stopped: {error!r}")
        figures.matches = len(created)
        redis = store(server)
        try:
            await answering(redis)  # a Redis killed just before the end is being restarted
            await check(redis, created, robots, figures)
        finally:
            await redis.aclose()
            stopped = server.pid
            await server.stop()
        await asyncio.sleep(0.5)
        figures.orphans += len(redis_servers_of(data)) + len(workers_of(stopped))
    return figures


async def entries(redis: Redis, key: str) -> list[dict[str, Any]]:
    """A stream's events, in order."""
    stream = cast(list[tuple[bytes, dict[bytes, bytes]]], await redis.xrange(key))
    return [json.loads(fields[b"e"]) for _, fields in stream]


def _json(value: bytes | str | None) -> Any:
    assert value is not None
    return json.loads(value)


async def check(
    redis: Redis, created: list[Any], robots: list[SoakRobot], figures: Figures
) -> None:
    """Read every match back and count what was lost, doubled or leaked."""
    from tests.server.harness import audit_player_frame

    ids: dict[str, Counter[str]] = {}
    said: Counter[str] = Counter()
    deals: dict[str, dict[int, Deal]] = {}
    for match in created:
        tag = f"{{m:{match.match_id}}}"
        config = _json(await redis.get(f"{tag}:config"))
        deals[match.match_id] = {b["number"]: Deal.from_pbn(b["deal"]) for b in config["boards"]}
        logs = [await entries(redis, f"{tag}:t{table}:events") for table in (1, 2)]
        stored = ids[match.match_id] = Counter()
        for event in logs[0] + logs[1]:
            if "id" in event:
                stored[event["id"]] += 1
            figures.actions += event["type"] in ("call", "card")
            if event["type"] == "chat":
                said[event["text"]] += 1
        swings = [event["board"] for event in await entries(redis, f"{tag}:swings")]
        figures.compared_twice += len(swings) - len(set(swings))
        # Finished somewhere in its log: entries may follow the end (the players' presence
        # as their robots leave, the double-dummy analysis worked out again after a kill).
        figures.finished += any(event["type"] == "finished" for event in logs[0])
    figures.duplicated = sum(
        count - 1 for stored in ids.values() for count in stored.values() if count > 1
    )
    # Each chat line is one intent: stored twice, it was applied twice (under two ids).
    figures.chat = sum(said.values())
    figures.duplicated += sum(count - 1 for count in said.values())
    for robot in robots:
        match_id = robot.name.split()[0]
        figures.repeated += robot.repeated
        figures.refused += len(robot.errors)
        figures.lost += sum(1 for action in robot.acked if action not in ids[match_id])
        client = robot.client
        if client is None:
            continue
        table, seat = int(robot.name.split()[1][0]), robot.name.split()[1][1]
        previous = None
        told: Counter[int] = Counter()
        for message in client.received:
            if not isinstance(message, Update):
                continue
            for happened in message.events:
                if isinstance(happened, BoardCompared):
                    told[happened.comparison.board] += 1
            snapshot = any(e.type == "snapshot" for e in message.events)
            if previous is not None and not snapshot and message.seq != previous + 1:
                figures.gaps += 1
            previous = message.seq
            try:
                audit_player_frame(message, table, seat, deals[match_id])
            except AssertionError as error:
                figures.leaked += 1
                figures.problems.append(f"{robot.name}: {error}")
        # Every player is told of a board's comparison once (a comparison published twice,
        # or a resume that sent it again, would show here).
        figures.compared_twice += sum(count - 1 for count in told.values())
    await check_views(redis, robots, figures)


async def check_views(redis: Redis, robots: list[SoakRobot], figures: Figures) -> None:
    """Each robot's view, built from changes, against the view the server's view function
    gives its player at the robot's last update (each match's logs folded once)."""
    from server.matches import fold
    from server.store import Store
    from server.views import Player, receives, view_of

    by_match: dict[str, list[SoakRobot]] = {}
    for robot in robots:
        if robot.client is not None and robot.client.view is not None:
            by_match.setdefault(robot.name.split()[0], []).append(robot)
    loader = Store(redis)
    for match_id, players in by_match.items():
        logs = await loader.load(match_id)
        assert logs is not None
        state = fold(logs.config, logs.tables, ())
        seq: Counter[str] = Counter()
        pending = {robot.name: robot for robot in players}
        for table, event in logs.watch:
            state.apply(table, event)
            for name, robot in list(pending.items()):
                assert robot.client is not None
                view = robot.client.view
                assert isinstance(view, PlayerView)
                player = Player(view.player)
                if not receives(state, player, table, event):
                    continue
                seq[name] += 1
                if seq[name] == robot.client.seq:
                    del pending[name]
                    if view != view_of(state, player):
                        figures.wrong_views += 1
                        figures.problems.append(f"{name}: its view is not the server's")
        figures.wrong_views += len(pending)
        figures.problems += [f"{name}: updates past the log's" for name in pending]


def report(figures: Figures, minutes: float) -> bool:
    rows = [
        ("matches played (50 at a time by default)", figures.matches, ""),
        ("matches finished", figures.finished, "> 0"),
        ("robots stopped by an error", figures.failed, "0"),
        (
            f"matches stalled for the last {STALL:g} s",
            "n/a" if figures.stalled is None else figures.stalled,
            "0",
        ),
        ("calls and cards stored", figures.actions, ""),
        ("chat lines stored (one per intent)", figures.chat, ""),
        ("acks of a resent action", figures.repeated, "(answered, not applied again)"),
        ("robot decisions refused", figures.refused, "0"),
        ("connections dropped", figures.reconnects, ""),
        ("server SIGKILLs and restarts", figures.restarts, ""),
        ("embedded Redis SIGKILLs", figures.store_kills, "(the server restarts it)"),
        ("orphans (redis-server, analysis worker)", figures.orphans, "0"),
        ("acknowledged actions lost", figures.lost, "0"),
        ("actions stored twice", figures.duplicated, "0"),
        ("boards compared twice (store or frames)", figures.compared_twice, "0"),
        ("frames with a hidden card or result", figures.leaked, "0"),
        ("gaps in a player's updates", figures.gaps, "0"),
        ("views built from changes that are wrong", figures.wrong_views, "0"),
    ]
    print(f"soak: {minutes:g} min")
    print(f"{'measure':40} {'value':>10}  target")
    for name, value, target in rows:
        print(f"{name:40} {value:>10}  {target}")
    for problem in figures.problems[:10]:
        print("  ", problem)
    zero = (
        figures.stalled or 0,
        figures.failed,
        figures.refused,
        figures.orphans,
        figures.lost,
        figures.duplicated,
        figures.compared_twice,
        figures.leaked,
        figures.gaps,
        figures.wrong_views,
    )
    return figures.finished > 0 and not any(zero)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--kill-every", type=float, default=60.0)
    parser.add_argument("--boards", type=int, default=2)
    args = parser.parse_args()
    figures = asyncio.run(soak(args.minutes, args.matches, args.kill_every, boards=args.boards))
    sys.exit(0 if report(figures, args.minutes) else 1)


if __name__ == "__main__":
    main()

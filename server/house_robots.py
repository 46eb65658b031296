"""The server's own robots: one for each robot seat of the matches it holds, playing through
the protocol like anyone (clients.robot), each seat under a lease in the store so that one
process plays it; when a process dies, another takes its robots over.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server.admission import ROBOT_HEADER
from server.config import MatchConfig
from server.fanout import HEARTBEAT, closing_within, end, stop

if TYPE_CHECKING:
    from clients.robot import Robot
    from server.app import Server

__all__ = ["ROBOT_LEASE", "HouseRobots"]

log = logging.getLogger(__name__)

ROBOT_LEASE = 5 * HEARTBEAT
"""Seconds a process's lease on playing a seat's robot lasts unless renewed (every
heartbeat): after a process dies, another takes its robots over within about this."""


class HouseRobots:
    """The robots one server process plays. ``begin()`` once serving, ``await close()``."""

    def __init__(self, server: Server, *, delay: float, keep_messages: bool) -> None:
        self.server = server
        self.delay = delay
        """Seconds the robots wait before each action, unless a match says otherwise (robots
        at a table of robots never wait)."""
        self.keep_messages = keep_messages
        """Whether the robots keep every message they received (tests audit them;
        ``duplicate serve`` lets them go)."""
        self.playing: dict[tuple[str, str], asyncio.Task[None]] = {}
        """The robot playing each (match id, seat key ``"1N"``), while it plays."""
        self.players: list[Robot] = []
        """Every robot this process started (for inspection: a correct robot has no errors)."""
        self._tokens: set[str] = set()
        """The robots' tokens (trusted: not rate-limited)."""
        self._keeper: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        """Set when the server closes: the keeper ends between two of its looks."""

    def trusted(self, token: str) -> bool:
        """Whether ``token`` is one of these robots'."""
        return token in self._tokens

    def delay_for(self, config: MatchConfig, seat: str) -> float:
        """How long the robot of the player whose first-round seat is ``seat`` (``"1N"``)
        waits before acting, as every robot of the match: nothing in a match of robots only
        (nobody plays along), else the match's pace or the server's; a table of robots too,
        which spectators watch beside the people's (it also starts a board only once a
        table of people has: :meth:`MatchState.awaits_people`)."""
        if not config.has_people():
            return 0.0
        if config.robot_delay_ms is not None:
            return config.robot_delay_ms / 1000
        return self.delay

    async def begin(self) -> None:
        """Take up the robots nobody plays, and keep their leases from now on."""
        await self.resume()
        self._keeper = asyncio.create_task(self._keep(), name="robot leases")

    async def close(self) -> None:
        """Stop keeping leases (between two looks, not in the middle of one)."""
        if self._keeper is not None:
            await end(self._closing, self._keeper)

    async def start(self, config: MatchConfig, nonces: dict[str, str]) -> None:
        """Run a robot for each of a match's robot seats that no other process plays, through
        the protocol like anyone."""
        from clients.client import Link
        from clients.robot import Robot

        server = self.server
        match_id = config.match_id
        for seat, nonce in sorted(nonces.items()):
            if server.stopping:
                return
            if (match_id, seat) in self.playing:
                continue
            try:
                mine = await server.store.claim_robot(
                    match_id, seat, server.fanout.process, ROBOT_LEASE
                )
            except (RedisError, OSError) as error:
                log.warning("robot %s %s not started: %s", match_id, seat, error)
                continue
            if not mine:
                continue  # another process plays it
            token = server.keys.robot_token(match_id, seat, nonce)
            self._tokens.add(token)
            level = config.robot_level_of(seat)
            robot = Robot(
                Link(server.ws_url, token),
                name=f"robot {match_id} {seat}",
                delay=self.delay_for(config, seat),
                level=level,
                # A strong robot's thought would take the cores from the event loop: it
                # thinks in a worker process. A seed robot's takes a few milliseconds.
                think=server.thinker.think if level == "strong" else None,
                headers={ROBOT_HEADER: server.admission.robot_pass},
                keep_messages=self.keep_messages,
            )
            self.players.append(robot)
            task = asyncio.create_task(_run(robot), name=f"robot {match_id} {seat}")
            self.playing[(match_id, seat)] = task
            task.add_done_callback(functools.partial(self._done, (match_id, seat)))

    def stop(self, match_id: str, seat: str) -> None:
        """Stop the robot of a seat given to someone else (if this process plays it)."""
        task = self.playing.pop((match_id, seat), None)
        if task is not None:
            task.cancel()

    async def stop_all(self) -> None:
        """Stop this process's robots and give up their seats' leases: another process may
        take them over at once."""
        playing = list(self.playing)
        await stop(*self.playing.values())
        for match_id, seat in playing:
            with contextlib.suppress(RedisError, OSError):
                await self.server.store.release_robot(match_id, seat, self.server.fanout.process)

    async def resume(self) -> None:
        """Start the robots of every stored match that has robots, is not over, and whose
        robots no process plays (this one starting, or the one that played them stopped)."""
        store = self.server.store
        for match_id, nonces in (await store.robot_matches()).items():
            if all((match_id, seat) in self.playing for seat in nonces):
                continue
            config = await store.config(match_id)
            if config is not None:
                await self.start(config, nonces)

    def _done(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        if self.playing.get(key) is task:
            del self.playing[key]

    async def _keep(self) -> None:
        """Every heartbeat, renew the leases on the robots this process plays, in one go (a
        robot whose lease is gone stops: its seat was given away, or another process took it
        over after this one stalled), and every few, take up the robots nobody plays."""
        store = self.server.store
        process = self.server.fanout.process
        beats = 0
        while not await closing_within(self._closing, HEARTBEAT):
            beats += 1
            try:
                playing = sorted(self.playing)
                if playing:
                    held = await store.renew_robots(playing, process, ROBOT_LEASE)
                    for key, still in zip(playing, held, strict=True):
                        task = self.playing.get(key)
                        if not still and task is not None:
                            log.info("robot %s %s: lease lost; stopping it", *key)
                            task.cancel()
                if beats % 2 == 0:
                    await self.resume()
            except (RedisError, OSError) as error:
                log.warning("robot leases: store unavailable: %s", error)


async def _run(robot: Robot) -> None:
    try:
        await robot.run()
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("%s stopped", robot.name)
    finally:
        await robot.close()

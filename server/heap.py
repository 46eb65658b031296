"""The serving process's garbage collector, kept from holding the event loop.

CPython's full collection walks every tracked object, and a process serving a thousand
matches holds over a million of them (each connection is some seventy: websockets' and
asyncio's objects, ours): each full collection held the loop for 0.7-0.9 s, about every
10 s at a human pace (measured by ``bench/load.py`` with 1,000 matches, 9,000 sockets).
Freezing what survived each full collection left the young and the automatic full ones
walking the tens of thousands of objects that outlive a collection and die a few seconds
later (each waiting connection's futures, each viewer's last frame), none of them garbage:
at 250 matches, a human pace, a dozen collections in 50 s held the loop over 20 ms (up to
59 ms). Almost nothing the collector walks is garbage: reference counting frees what is
not in a cycle.

So what survives any collection is frozen (``gc.freeze``: moved out of the collector's
sight, in constant time), and each collection walks only what was made since the last one
(a young collection, at most a few thousand objects). A closed connection is in no cycle
(:meth:`server.transport.Link.connection_lost`; tests/server/test_garbage.py): reference
counting frees it. What is frozen and later becomes garbage in a cycle nonetheless waits for the deep
collection: everything, thawed and walked once, every :data:`DEEP_INTERVAL` seconds, or
sooner when the frozen objects have doubled since the last one and grown by
:data:`DEEP_SLACK`. The process then pauses once a while (320-610 ms at 250 matches), not
every few seconds: at 250 matches no collection held the loop over 20 ms, the longest
6.5 ms.

The test process (tests/conftest.py) freezes only what survives a full collection
(:func:`freeze_survivors`): its tests make cycles by the thousand.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

__all__ = [
    "DEEP_GROWTH",
    "DEEP_INTERVAL",
    "DEEP_SLACK",
    "Heap",
    "freeze_all_survivors",
    "freeze_survivors",
]

log = logging.getLogger(__name__)

DEEP_INTERVAL = 600.0
"""Seconds between two deep collections at most."""
DEEP_GROWTH = 1.0
"""A deep collection comes when the frozen objects have grown by this share since the last
one (and by :data:`DEEP_SLACK`): cycles that died frozen are never more than about what
the process holds alive, and the pauses take a share of the time that does not grow with
the process (each walks what the process holds, and comes once as many objects again were
frozen)."""
DEEP_SLACK = 2_000_000
"""...and by at least this many objects (a few hundred MB): a process that grows from
nothing to its day's size is not paused for it. What it holds grows as its matches are
played (their logs): bench.load's whole run, 250 matches and 2,250 connections, some 1,300
boards played, took the frozen objects from under 130,000 to 620,000, and with a slack of
500,000 the deep collection that came found nothing to collect, in 607 ms."""
DEEP_LOOK = 30.0
"""Seconds between two looks at the frozen objects' growth (a look counts them: 7 ms a
million)."""


def freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` entry: freeze what survived each full collection. Called by the
    collector at the end of each collection (any thread, the GIL held, the collection
    over): freezing then only moves its lists."""
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


def freeze_all_survivors(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` entry: freeze what survived each collection, young ones too."""
    if phase == "stop":
        gc.freeze()


class Heap:
    """Start it once the process has started serving; stop it on the way out."""

    def __init__(
        self,
        deep_interval: float = DEEP_INTERVAL,
        deep_growth: float = DEEP_GROWTH,
        deep_slack: int = DEEP_SLACK,
        look: float = DEEP_LOOK,
    ) -> None:
        self.deep_interval = deep_interval
        self.deep_growth = deep_growth
        self.deep_slack = deep_slack
        self.look = look
        self.walked = 0
        """Objects frozen after the last deep collection."""
        self.deepened_at = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Leave what the process holds now (modules, the protocol's validators, the store's
        client) out of every later collection, and freeze after each one."""
        gc.collect()
        gc.freeze()
        self.walked = gc.get_freeze_count()
        self.deepened_at = time.monotonic()
        gc.callbacks.append(freeze_all_survivors)
        self._task = asyncio.create_task(self._deepen(), name="deep collections")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        if freeze_all_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_all_survivors)
        gc.unfreeze()

    def deep(self) -> int:
        """Walk everything once (frozen or not), collect what is garbage, freeze what is
        left; how many objects were collected."""
        started = time.perf_counter()
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        collected = gc.collect()  # its end freezes the survivors (freeze_all_survivors)
        self.walked = gc.get_freeze_count()
        self.deepened_at = time.monotonic()
        log.info(
            "deep collection: %d objects walked, %d collected, in %.0f ms",
            frozen,
            collected,
            (time.perf_counter() - started) * 1000,
        )
        return collected

    def due(self) -> bool:
        """Whether a deep collection is due: the frozen objects grown by ``deep_growth``
        and ``deep_slack`` since the last one, or ``deep_interval`` passed."""
        grown = gc.get_freeze_count() - self.walked
        if grown > self.walked * self.deep_growth and grown > self.deep_slack:
            return True
        return time.monotonic() - self.deepened_at >= self.deep_interval

    async def _deepen(self) -> None:
        while True:
            await asyncio.sleep(min(self.look, self.deep_interval))
            if self.due():
                self.deep()

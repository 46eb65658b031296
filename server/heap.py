"""The serving process's garbage collector, kept from holding the event loop.

CPython's full collection walks every tracked object, and a process serving a thousand
matches holds over a million of them (each connection is some seventy: websockets' and
asyncio's objects, ours): each full collection held the loop for 0.7-0.9 s, about every
10 s at a human pace (measured by ``bench/load.py`` with 1,000 matches, 9,000 sockets).
Almost nothing it walked was garbage: reference counting frees what is not in a cycle.

So what survives a full collection is frozen (``gc.freeze``: moved out of the collector's
sight, in constant time), and the automatic full collections walk only what came since.
What is frozen and later becomes garbage in a cycle (a long-lived connection's objects,
once it closes) waits for the deep collection: everything, thawed and walked once, every
:data:`DEEP_INTERVAL` seconds. The process then pauses once a while, not every 10 s.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

__all__ = ["DEEP_INTERVAL", "Heap", "freeze_survivors"]

log = logging.getLogger(__name__)

DEEP_INTERVAL = 600.0
"""Seconds between two deep collections (a closed long-lived connection's objects wait at
most this long to be freed)."""


def freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` entry: freeze what survived each full collection. Called by the
    collector at the end of each collection (any thread, the GIL held, the collection
    over): freezing then only moves its lists."""
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


class Heap:
    """Start it once the process has started serving; stop it on the way out."""

    def __init__(self, deep_interval: float = DEEP_INTERVAL) -> None:
        self.deep_interval = deep_interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Leave what the process holds now (modules, the protocol's validators, the store's
        client) out of every later collection, and freeze after each full one."""
        gc.collect()
        gc.freeze()
        gc.callbacks.append(freeze_survivors)
        self._task = asyncio.create_task(self._deepen(), name="deep collections")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        if freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()

    def deep(self) -> int:
        """Walk everything once (frozen or not), collect what is garbage, freeze what is
        left; how many objects were collected."""
        started = time.perf_counter()
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        collected = gc.collect()  # its end freezes the survivors (freeze_survivors)
        log.info(
            "deep collection: %d objects walked, %d collected, in %.0f ms",
            frozen,
            collected,
            (time.perf_counter() - started) * 1000,
        )
        return collected

    async def _deepen(self) -> None:
        while True:
            await asyncio.sleep(self.deep_interval)
            self.deep()

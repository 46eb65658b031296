"""The server's robots think in worker processes of their own: a strong robot's decision
solves dozens of deals double dummy (up to a second or two of CPU), which in the server's
process would take the cores from the event loop that every player waits on (as the
double-dummy analysis did: :mod:`server.analysis`). The workers run at a lower priority,
the solver on one thread each, so robots only ever take what the event loop leaves; the
kernel ends them when the server dies, however it dies. The server's process never
imports the solver.

>>> import asyncio, functools
>>> async def main() -> str:
...     thinker = Thinker(workers=1)
...     try:
...         return await thinker.think(functools.partial(str.upper, "pass"))
...     finally:
...         thinker.close()
>>> asyncio.run(main())
'PASS'
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from server.redis_process import death_signal

__all__ = ["NICENESS", "Thinker"]

T = TypeVar("T")

NICENESS = 10
"""How much lower than the server's the workers' CPU priority is (the analysis worker's is
the lowest, 19: nobody waits for it; a player may be waiting for a robot's card)."""


def _start_worker(parent: int, niceness: int) -> None:
    """Each worker, first of all: a lower priority, an end with the server, a solver that
    keeps to one thread."""
    os.nice(niceness)
    set_death_signal = death_signal(parent)
    if set_death_signal is not None:
        set_death_signal()
    from robots.dds import use_one_thread

    use_one_thread()


class Thinker:
    """A pool of ``workers`` processes (default: one per core) that answers robots'
    decisions, started at the first one. A decision is a picklable function of no
    arguments (``functools.partial`` of a module's function); a pool whose worker died is
    replaced, and the decision asked once more. ``niceness`` lowers the workers' priority
    (:data:`NICENESS`)."""

    def __init__(self, workers: int | None = None, niceness: int = NICENESS) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.niceness = niceness
        self._pool: ProcessPoolExecutor | None = None

    async def think(self, decide: Callable[[], T]) -> T:
        """What ``decide`` returns, worked out in a worker."""
        loop = asyncio.get_running_loop()
        pool = self._running()
        try:
            return await loop.run_in_executor(pool, decide)
        except BrokenProcessPool:  # a worker died (killed, out of memory): new workers
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self._running(), decide)

    def _running(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(), self.niceness),
            )
        return self._pool

    def close(self) -> None:
        """End the workers (a decision under way is dropped)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

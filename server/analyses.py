"""The double-dummy analysis of each match's boards, off the creation path (a comparison
shows it once it is there), worked out once for all the processes that hold the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from protocol.errors import ErrorCode, ProtocolError
from server.analysis import AnalysisError, Analyst
from server.config import BoardSpec
from server.fanout import HEARTBEAT, stop

if TYPE_CHECKING:
    from server.app import Server

__all__ = ["ANALYSIS_LOOK", "Analyses"]

log = logging.getLogger(__name__)

ANALYSIS_LOOK = 5 * HEARTBEAT / 2
"""Seconds between a process's looks at the lease on a match's double-dummy analysis that
another process holds (and after a failure, before it tries again). One process analyses a
match: its lease stands while that process lives (its heartbeat; nothing is renewed per
match), and when it dies another that holds the match (or this one, restarted, once it
loads it) takes over at its next look after the death is seen (``ALIVE_FOR``)."""
ANALYSIS_LOGGED_FOR = 60.0
"""Seconds a lease says that its analysis is logged (:data:`server.store.LOGGED`), for the
processes that waited for it to read the analysis first; then the store forgets it."""
ANALYSIS_LEASE_TTL = 24 * 3600.0
"""Seconds after which the store forgets an analysis lease all the same (one whose holder
died, in a match no process loads again): far longer than any analysis waits for its turn."""
ANALYSIS_ATTEMPTS = 3
"""Analyses a process asks of its worker for a match before it gives up on it (the worker
died each time, or the solver refused a deal), a look apart: another process that holds or
loads the match then tries, or this one once restarted. A store that cannot be reached is
waited for as long as it takes."""


class Analyses:
    """The analyses one server process works out, or waits for."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.analyst = Analyst.shared()
        self.under_way: dict[str, asyncio.Task[None]] = {}
        """The analysis under way (or waited for) of each match's boards."""

    def later(self, match_id: str, boards: tuple[BoardSpec, ...]) -> None:
        """Have the analyst work out the boards' double-dummy analysis, then log it in the
        match: a match is created without waiting for it."""
        if match_id in self.under_way or self.server.stopping:
            return
        task = asyncio.create_task(self._analyse(match_id, boards), name=f"analysis {match_id}")
        self.under_way[match_id] = task

        def forget(_task: asyncio.Task[None]) -> None:
            if self.under_way.get(match_id) is task:
                del self.under_way[match_id]

        task.add_done_callback(forget)

    async def stop(self) -> None:
        """Stop the analyses under way (another process, or this one restarted, takes them
        up when it loads the match)."""
        await stop(*self.under_way.values())

    async def _analyse(self, match_id: str, boards: tuple[BoardSpec, ...]) -> None:
        """Analyse the boards under the match's analysis lease and log the analysis, in
        whatever state the match is (one that is over gets it too). Another process that
        holds the match (it loaded it too) waits while the lease's holder lives, and takes
        over at its first look after the holder died or gave the lease up. What fails (the
        store, the worker) is tried again a look later, until the analysis is logged, here
        or by another process; the worker at most ANALYSIS_ATTEMPTS times."""
        server = self.server
        process = server.fanout.process
        failures = 0
        while True:
            try:
                alive = await server.fanout.alive()
                if await server.store.claim_analysis(match_id, process, alive, ANALYSIS_LEASE_TTL):
                    logged = False
                    try:
                        found = await self.analyst.analyse(boards)
                        runtime = await server.runtime(match_id)
                        await runtime.note_analyses(found)  # once, whoever else logs it
                        logged = True
                    finally:
                        with contextlib.suppress(RedisError, OSError):
                            if logged:  # a process that waited must not work it out again
                                await server.store.analysis_logged(
                                    match_id, process, ANALYSIS_LOGGED_FOR
                                )
                            else:
                                await server.store.release_analysis(match_id, process)
                    return
            except AnalysisError as error:
                failures += 1
                if failures >= ANALYSIS_ATTEMPTS:
                    log.warning("match %s: analysis not logged, given up: %s", match_id, error)
                    return
                log.warning("match %s: analysis not logged, trying again: %s", match_id, error)
            except ProtocolError as error:
                if error.code == ErrorCode.BAD_TOKEN:
                    return  # the match is no longer in the store
                log.warning("match %s: analysis not logged, trying again: %s", match_id, error)
            except (RedisError, OSError) as error:
                log.warning("match %s: analysis not logged, trying again: %s", match_id, error)
            await asyncio.sleep(ANALYSIS_LOOK)
            # Logged meanwhile (by the lease's holder), or only some boards still to come?
            with contextlib.suppress(RedisError, OSError, ProtocolError):  # then tried as it was
                boards = await (await server.runtime(match_id)).unanalysed_now()
            if not boards:
                return

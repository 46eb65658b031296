"""The double-dummy analysis of a match's boards, worked out in a worker process of its own
(``server.solver``): a board costs a third of a second of CPU, and in the server's process
(even in a thread) the solver took both cores of a small machine from the event loop, so
every player waited. The server's process does not even import the solver (a second of
start-up and a plotting library it does not need)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import queue
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import Any, ClassVar

from server.config import Analysis, BoardSpec

__all__ = ["AnalysisError", "Analyst"]

log = logging.getLogger(__name__)


class AnalysisError(Exception):
    """The worker could not analyse the boards (it died, or the solver refused a deal)."""


class Analyst:
    """Solves boards double dummy in a worker process (``server.solver.main``) started
    at the first request: the lowest CPU priority (``nice 19``), the solver on one thread,
    so that analysis only ever takes what the server's event loop leaves; the kernel ends
    it when the server dies, however it dies. The worker leaves once idle for a while (a
    minute), and a worker that leaves or dies is started again for the next request.

    One analyst serves the whole process (:meth:`shared`), whichever servers and event
    loops ask: requests wait in its queue, answered one at a time by a thread of its own
    (never the loop's shared executor, and never one that holds up the process's exit)."""

    _shared: ClassVar[Analyst | None] = None

    def __init__(self, idle_exit: float | None = None) -> None:
        self.idle_exit = idle_exit
        """Seconds after which an idle worker leaves (None: the worker's default)."""
        self._requests: queue.SimpleQueue[tuple[bytes, Future[dict[str, Any]]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._answer, name="analyst", daemon=True)
        self._thread.start()
        self._worker: subprocess.Popen[bytes] | None = None

    @classmethod
    def shared(cls) -> Analyst:
        """The process's analyst, ended when the process exits."""
        if cls._shared is None:
            cls._shared = cls()
            atexit.register(cls._shared.close)
        return cls._shared

    @property
    def worker_pid(self) -> int | None:
        """The worker's process id, while one runs."""
        worker = self._worker
        return None if worker is None or worker.poll() is not None else worker.pid

    async def analyse(self, boards: tuple[BoardSpec, ...]) -> dict[int, Analysis]:
        """Each board's analysis, by board number. Raises :class:`AnalysisError`. Cancelled,
        a request still waiting is dropped."""
        answer: Future[dict[str, Any]] = Future()
        self._requests.put((json.dumps([b.to_json() for b in boards]).encode() + b"\n", answer))
        found = await asyncio.wrap_future(answer)
        return {int(number): Analysis.from_json(data) for number, data in found.items()}

    def close(self) -> None:
        """End the worker (an analysis under way fails) and the answering thread."""
        self._requests.put(None)
        self._end_worker()

    # -- in the answering thread ---------------------------------------------------------

    def _answer(self) -> None:
        while (item := self._requests.get()) is not None:
            request, answer = item
            if not answer.set_running_or_notify_cancel():
                continue
            try:
                answer.set_result(self._ask(request))
            except AnalysisError as error:
                answer.set_exception(error)

    def _ask(self, request: bytes) -> dict[str, Any]:
        line = self._exchange(request)
        if not line and self._left_idle():
            line = self._exchange(request)  # it left just as the request came: once more
        if not line:
            self._end_worker()
            raise AnalysisError("the analysis worker stopped")
        kind, answer = json.loads(line)
        if kind != "ok":
            raise AnalysisError(str(answer))
        return dict(answer)

    def _exchange(self, request: bytes) -> bytes:
        """Send the request to the worker (started if none runs) and read its answer line;
        empty if the worker is gone."""
        worker = self._worker
        if worker is None or worker.poll() is not None:
            self._end_worker()  # one that left: its pipes closed
            pythonpath = os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")]))
            worker = self._worker = subprocess.Popen(
                [sys.executable, "-c", _WORKER, str(os.getpid())]
                + ([] if self.idle_exit is None else [str(self.idle_exit)]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=dict(os.environ, PYTHONPATH=pythonpath),
            )
            log.debug("analysis worker started (pid %s)", worker.pid)
        assert worker.stdin is not None
        assert worker.stdout is not None
        try:
            worker.stdin.write(request)
            worker.stdin.flush()
            return worker.stdout.readline()
        except (OSError, ValueError):  # a pipe broken, or closed by close()
            return b""

    def _left_idle(self) -> bool:
        """The worker left because it had nothing to do (and not because it failed)."""
        worker = self._worker
        if worker is None:
            return False
        try:
            return worker.wait(5) == 0
        except subprocess.TimeoutExpired:
            return False

    def _end_worker(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.kill()
            worker.wait(5)
            for stream in (worker.stdin, worker.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()


_WORKER = (
    "import os, sys; os.nice(19); from server.solver import main; "
    "main(int(sys.argv[1]), *map(float, sys.argv[2:3]))"
)
"""The worker's command: the lowest priority first of all, before a single module is
imported (the imports cost a third of a second of CPU; at normal priority they delayed a
busy server's pings by tens of milliseconds)."""

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The folder that holds the ``server`` package, for the worker to import it from."""

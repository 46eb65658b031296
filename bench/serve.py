"""``duplicate serve`` as the benchmarks run it: a process of its own on a port and a data
folder, with its embedded Redis, its output read as it comes (a pipe left full would stop
it), stopped with SIGINT as an operator would, or killed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from server.redis_process import PID_FILE

ROOT = Path(__file__).resolve().parents[1]
STOP_SECONDS = 30.0
"""How long a SIGINT is given before the process is killed."""


class ServeProcess:
    """``duplicate serve --port PORT --data DATA --server-robot-delay 0 OPTIONS``, started
    by ``launcher`` (another module may wrap it, e.g. to trace it), its organiser key
    ``key``; each line it prints goes to ``on_line``."""

    def __init__(
        self,
        data: Path,
        port: int,
        key: str,
        options: Sequence[str] = (),
        launcher: Sequence[str] = ("-m", "duplicate"),
        on_line: Callable[[str], None] | None = None,
    ) -> None:
        self.data = data
        self.port = port
        self.key = key
        self.options = list(options)
        self.launcher = list(launcher)
        self.on_line = on_line
        self.redis_url = ""
        """The embedded Redis (without its password: see :meth:`redis_password`)."""
        self.process: asyncio.subprocess.Process | None = None
        self._draining: asyncio.Task[None] | None = None

    async def start(self) -> None:
        environment = dict(os.environ, PYTHONPATH=str(ROOT), DUPLICATE_ORGANISER_KEY=self.key)
        command = [
            "serve", "--port", str(self.port), "--data", str(self.data),
            "--server-robot-delay", "0", *self.options,
        ]  # fmt: skip
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, *self.launcher, *command, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=environment,
            cwd=ROOT,
        )  # fmt: skip
        assert self.process.stdout is not None
        async with asyncio.timeout(60):
            while True:
                line = await self.process.stdout.readline()
                if not line:
                    raise RuntimeError("duplicate serve did not start")
                self._read(line)
                found = re.search(rb"127\.0\.0\.1:(\d+)", line)
                if line.startswith(b"Redis: embedded") and found:
                    self.redis_url = f"redis://127.0.0.1:{int(found.group(1))}/0"
                if b"Serving on" in line:
                    break
        self._draining = asyncio.create_task(self._drain(self.process.stdout))

    def _read(self, line: bytes) -> None:
        if self.on_line is not None:
            self.on_line(line.decode(errors="replace").rstrip())

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self._read(line)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def redis_password(self) -> str:
        return (self.data / "redis" / "redis.password").read_text().strip()

    def redis_pid(self) -> int | None:
        """The embedded redis-server's process, None when it is not running."""
        try:
            return int((self.data / "redis" / PID_FILE).read_text().split()[0])
        except (OSError, ValueError):
            return None

    def kill_store(self) -> bool:
        """SIGKILL the embedded redis-server (its server restarts it); False if not found."""
        pid = self.redis_pid()
        if pid is None:
            return False
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return False
        return True

    async def kill(self) -> None:
        """SIGKILL the server, as a crash would end it."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        await self._drained()

    async def stop(self) -> None:
        """SIGINT, then SIGKILL after STOP_SECONDS; its last lines read."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(self.process.wait(), STOP_SECONDS)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        await self._drained()

    async def _drained(self) -> None:
        if self._draining is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._draining, 5)
            self._draining = None

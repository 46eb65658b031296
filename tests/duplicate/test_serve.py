"""`duplicate serve`, `new-match` and `protocol-schema` as a user runs them."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clients.client import Client
from server.redis_process import free_port

LINK = re.compile(r"^\s+([NESW])\s+team ([AB])\s+(http://\S+/play#\S+)$")


def read_until(process: subprocess.Popen[str], pattern: str, timeout: float = 60) -> list[str]:
    """Lines of the process's output up to the first that contains ``pattern``."""
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"output ended before {pattern!r}: {lines}")
        lines.append(line.rstrip("\n"))
        if pattern in line:
            return lines
    raise AssertionError(f"no {pattern!r} in {timeout} s: {lines}")


def test_serve_with_embedded_redis_new_match_and_clean_stop(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DUPLICATE_ORGANISER_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "duplicate", "serve", "--port", str(port), "--data", str(data),
         "--new-match", "--boards", "2", "--team-a", "Lions"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        lines = read_until(process, "Director")
        links = [m.groups() for line in lines if (m := LINK.match(line))]
        assert len(links) == 8
        assert sorted(seat for seat, _, _ in links) == sorted("NESW" * 2)
        assert (data / "organiser.key").stat().st_mode & 0o077 == 0
        assert list((data / "redis").glob("appendonly*"))  # AOF persistence in the data folder

        async def join() -> str:
            client = await Client.connect(links[0][2])
            view = await client.wait_for(lambda v: v)
            await client.close()
            return view.match.team_a

        assert asyncio.run(join()) == "Lions"

        created = subprocess.run(
            [sys.executable, "-m", "duplicate", "new-match", "--server", f"http://127.0.0.1:{port}",
             "--data", str(data), "--boards", "1", "--spectators", "off"],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        assert sum(bool(LINK.match(line)) for line in created.stdout.splitlines()) == 8
        assert "Spectators  off" in created.stdout
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    assert "Stopped." in output
    # The embedded redis-server stopped with the server: nothing listens on its port.
    found = re.search(r"redis://127\.0\.0\.1:(\d+)", "\n".join(lines))
    assert found is not None
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", int(found.group(1))), timeout=1)


def test_new_match_without_a_key_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DUPLICATE_ORGANISER_KEY"}
    result = subprocess.run(
        [sys.executable, "-m", "duplicate", "new-match", "--data", str(tmp_path)],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert result.returncode != 0
    assert "no organiser key" in result.stderr

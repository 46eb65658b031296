"""`duplicate serve` and its embedded Redis under faults, as they really happen: the server
killed with SIGKILL, a second server on the same data folder, Redis killed under a running
server, a damaged append-only file."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis

from clients.client import Client
from duplicate.serving import LOCK_FILE, lock_data_folder
from server.redis_process import PID_FILE, RedisProcess, free_port
from tests.duplicate.test_serve import (
    LINK,
    assert_fails_in_one_line,
    duplicate,
    environment,
    read_until,
)
from tests.server.test_redis_process import is_running, redis_servers_in, wait_until


def serve(data: Path, *options: str) -> tuple[subprocess.Popen[str], int, list[str]]:
    """``duplicate serve`` on a free port with its data in ``data``, until it serves (and,
    with --new-match, has printed its links): the process, its port, its output so far."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "duplicate", "serve", "--port", str(port), "--data", str(data),
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
    )  # fmt: skip
    try:
        lines = read_until(
            process, "./dev run new-match" if "--new-match" in options else "Serving on"
        )
    except BaseException:
        process.kill()
        process.communicate(timeout=30)
        raise
    return process, port, lines


def stop(process: subprocess.Popen[str]) -> str:
    """Stop a server as Ctrl-C does; the rest of its output. It must stop cleanly."""
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    assert "Stopped." in output
    return output


def redis_pid(data: Path) -> int:
    """The embedded redis-server's pid, from the pidfile in the data folder."""
    return int((data / "redis" / PID_FILE).read_text().split()[0])


def parent_of(pid: int) -> int:
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rindex(")") + 2 :].split()[1])


def health(port: int) -> tuple[int, dict[str, object]]:
    """GET /health: the HTTP status and the JSON body."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_sigkill_of_serve_takes_its_redis_along_and_a_new_serve_starts_cleanly(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    first, _, _ = serve(data)
    pid = redis_pid(data)
    assert parent_of(pid) == first.pid
    first.kill()  # SIGKILL: no finally clause runs, no atexit, nothing stops Redis for it
    first.communicate(timeout=30)
    took = wait_until(lambda: not is_running(pid), 5, "redis-server stopped with its server")
    print(f"redis-server (pid {pid}) ended {took:.2f} s after its server was killed")
    assert redis_servers_in(data / "redis") == []

    second, port, _ = serve(data)  # the lock died with the first: no refusal
    try:
        running = redis_servers_in(data / "redis")
        assert running == [redis_pid(data)], running  # one redis-server for the folder
        assert parent_of(running[0]) == second.pid
        status, body = health(port)
        assert (status, body["status"]) == (200, "ok")
    finally:
        stop(second)
    assert redis_servers_in(data / "redis") == []


def test_a_second_serve_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first, port, _ = serve(data)
    try:
        second = duplicate("serve", "--port", str(free_port()), "--data", str(data))
        assert_fails_in_one_line(
            second,
            f"another server uses the data folder {data} (pid {first.pid})",
            "stop it or use --data",
        )
        assert "Redis" not in second.stdout  # refused before it started anything
        assert redis_servers_in(data / "redis") == [redis_pid(data)]
        assert health(port)[0] == 200  # the first serves on, untouched
    finally:
        stop(first)


def test_a_killed_embedded_redis_is_restarted_and_the_match_goes_on(tmp_path: Path) -> None:
    data = tmp_path / "data"
    process, port, lines = serve(data, "--new-match", "--boards", "2", "--team-a", "Lions")
    try:
        links = [m.group(3) for line in lines if (m := LINK.match(line))]
        match_id = next(line.split()[1] for line in lines if line.startswith("Match "))
        killed = redis_pid(data)
        assert parent_of(killed) == process.pid

        os.kill(killed, signal.SIGKILL)
        began = time.monotonic()
        statuses: list[tuple[float, int, dict[str, object]]] = []
        while time.monotonic() - began < 12:
            status, body = health(port)
            statuses.append((time.monotonic() - began, status, body))
            if status == 200 and any(seen == 503 for _, seen, _ in statuses):
                break
            time.sleep(0.01)
        down = [(at, body) for at, status, body in statuses if status == 503]
        assert down, statuses[:5]
        assert down[0][0] < 2, down[0]  # noticed within a second or two
        assert down[0][1]["status"] == "store_down"
        assert "the embedded Redis was killed by SIGKILL" in str(down[0][1]["reason"])
        at, status, body = statuses[-1]
        assert status == 200, statuses[-3:]  # back within the time allowed
        assert body["status"] == "ok"
        print(f"/health: 503 from {down[0][0]:.2f} s, 200 again at {at:.2f} s")
        assert redis_pid(data) != killed
        assert redis_servers_in(data / "redis") == [redis_pid(data)]

        async def join() -> tuple[str, str, list[int], int]:
            # Table 1 North's link, printed at the start: the match is all there.
            client = await Client.connect(links[0])
            view = await client.wait_for(lambda v: v)
            board = await client.wait_for(lambda v: v.board if v.board and v.board.legal else None)
            ack = await client.call(board.legal[0])  # an action is stored again
            await client.close()
            return view.match.match_id, view.match.team_a, view.match.boards, ack.seq

        joined_match, team_a, boards, seq = asyncio.run(join())
        assert (joined_match, team_a, boards) == (match_id, "Lions", [1, 2])
        assert seq > 0
    finally:
        output = stop(process)
    assert "Traceback" not in output, output
    about_redis = [line for line in output.splitlines() if "embedded Redis" in line]
    assert len(about_redis) == 1, about_redis  # one line for the one restart
    assert "was killed by SIGKILL; restarted it in" in about_redis[0]
    assert redis_servers_in(data / "redis") == []


def test_a_data_folder_is_made_private_unless_it_holds_the_users_own_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A new folder, an empty one made for the server, or the server's from before, is made
    # its owner's only; a folder of the user's own files (``--data .``) keeps its mode, with
    # a word when others may read it.
    new = tmp_path / "new"
    os.close(lock_data_folder(new))
    assert new.stat().st_mode & 0o777 == 0o700
    new.chmod(0o755)
    os.close(lock_data_folder(new))  # the server's from before: its lock file is there
    assert new.stat().st_mode & 0o777 == 0o700
    made = tmp_path / "made"  # `mkdir duplicate-data` before the first start
    made.mkdir()
    made.chmod(0o755)
    os.close(lock_data_folder(made))
    assert made.stat().st_mode & 0o777 == 0o700
    assert capsys.readouterr().err == ""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    theirs.chmod(0o755)
    (theirs / "notes.txt").write_text("the user's own\n")
    os.close(lock_data_folder(theirs))
    assert theirs.stat().st_mode & 0o777 == 0o755
    assert "is open to other users" in capsys.readouterr().err
    assert (theirs / LOCK_FILE).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("damage", ["append-only-file", "manifest"])
def test_a_damaged_append_only_file_is_one_clear_line(tmp_path: Path, damage: str) -> None:
    data = tmp_path / "data"
    with RedisProcess(data / "redis") as store:  # a store with something in it
        redis.Redis.from_url(store.url).set("board 1", "4S by North")
    manifest = data / "redis" / "appendonlydir" / "appendonly.aof.manifest"
    if damage == "manifest":
        if not manifest.exists():
            pytest.skip("this redis-server keeps one appendonly.aof, no manifest")
        manifest.write_text("file appendonly.aof.1.base.rdb seq\n")
    else:
        written = sorted((data / "redis").rglob("appendonly*.aof"))[-1]
        with written.open("ab") as file:
            file.write(b"*3\r\n$3\r\nSET\r\n$5\r\nboard\r\ngarbage\r\n")

    result = duplicate("serve", "--port", str(free_port()), "--data", str(data))
    line = assert_fails_in_one_line(
        result,
        "cannot start the embedded Redis",
        f"the store's file in {data / 'redis'} is damaged",
        "redis-check-aof --fix",
        "move the folder away",
    )
    assert redis_servers_in(data / "redis") == []  # nothing left running
    print(line)

    repair = re.search(r"`(redis-check-aof --fix \S+)`", line)
    assert repair is not None
    if damage == "manifest" or shutil.which("redis-check-aof") is None:
        return
    # Do what the line says, and the store opens again, without the damaged tail.
    fixed = subprocess.run(
        repair.group(1).split(), input="y\n", capture_output=True, text=True, timeout=30
    )
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    process, _, _ = serve(data)
    stop(process)

"""`duplicate serve`, `new-match` and `protocol-schema` as a user runs them."""

from __future__ import annotations

import asyncio
import os
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.client import Client
from duplicate.cli import build_parser
from duplicate.serving import REDIS_CONNECTIONS, CommandFailed, _limits, _redis_client
from server.limits import OVERLOAD_LAG, Limits
from server.redis_process import RedisProcess, free_port

LINK = re.compile(r"^\s+([NESW])\s+team ([AB])\s+(http://\S+/play#\S+)$")
REDIS_URL = re.compile(r"redis://127\.0\.0\.1:(\d+)")


def environment() -> dict[str, str]:
    """This process's environment without an organiser key: each test says where its key is."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DUPLICATE_ORGANISER_KEY", None)
    return env


def duplicate(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``duplicate`` command to its end, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "duplicate", *args],
        capture_output=True, text=True, timeout=60, env=environment(),
    )  # fmt: skip


def assert_fails_in_one_line(result: subprocess.CompletedProcess[str], *says: str) -> str:
    """Exit status 2, no traceback, and exactly one line on stderr, which says each of
    ``says``; returns that line."""
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    for text in says:
        assert text in lines[0]
    return lines[0]


def is_listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return False
    return True


def redis_servers_on(port: int) -> list[str]:
    """The command lines of running redis-server processes on ``port`` (redis-server sets
    its process title to ``redis-server HOST:PORT``)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # the process ended while we looked
            continue
        if "redis-server" in text and f":{port}" in text:
            found.append(text)
    return found


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
    env = environment()
    process = subprocess.Popen(
        [sys.executable, "-m", "duplicate", "serve", "--port", str(port), "--data", str(data),
         "--new-match", "--boards", "2", "--team-a", "Lions"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        lines = read_until(process, "./dev run new-match")
        links = [m.groups() for line in lines if (m := LINK.match(line))]
        assert len(links) == 8
        assert sorted(seat for seat, _, _ in links) == sorted("NESW" * 2)

        # After the links, what a person alone does next: open table 1 North's link (printed
        # again), and how to give the other seats to robots.
        guidance = lines[next(i for i, line in enumerate(lines) if "Director" in line) + 1 :]
        assert guidance[0] == "Playing alone? Open table 1 North's link in a browser:"
        assert guidance[1].strip() == links[0][2]  # table 1's seats come first, North first
        assert any("stop this server (Ctrl-C)" in line for line in guidance)
        serve_again = next(line for line in guidance if "./dev run serve" in line)
        assert "--new-match --robots t2 1E 1S 1W" in serve_again
        assert f"--port {port}" in serve_again
        # The suggested new-match, run as printed, gives a match whose one person is North
        # at table 1.
        suggested = shlex.split(guidance[-1])
        assert suggested[:3] == ["./dev", "run", "new-match"]
        alone = subprocess.run(
            [sys.executable, "-m", "duplicate", *suggested[2:]],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert alone.returncode == 0, alone.stderr
        printed = alone.stdout.splitlines()
        people = [line for line in printed if LINK.match(line)]
        assert people == [printed[printed.index("Table 1") + 1]]  # one person, at table 1
        assert people[0].split()[0] == "N"
        assert "Playing alone" not in alone.stdout  # that guidance is serve --new-match's only
        assert (data / "organiser.key").stat().st_mode & 0o077 == 0
        assert list((data / "redis").glob("appendonly*"))  # AOF persistence in the data folder
        # The store is its owner's only: the folders 0700, every file in them 0600 (the
        # append-only file holds every hidden card), and its password is never printed.
        for path in [data, *data.rglob("*")]:
            assert path.stat().st_mode & 0o777 == (0o700 if path.is_dir() else 0o600), path
        password = (data / "redis" / "redis.password").read_text().strip()
        assert password not in "\n".join(lines)

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
        assert "Playing alone" not in created.stdout  # for an organiser: the links, one hint
        assert created.stdout.splitlines()[-1].startswith("Give each player only their own")
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    assert "Stopped." in output
    assert password not in output
    # The embedded redis-server stopped with the server: nothing listens on its port.
    found = REDIS_URL.search("\n".join(lines))
    assert found is not None
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", int(found.group(1))), timeout=1)


def test_new_match_without_a_key_is_a_clear_error(tmp_path: Path) -> None:
    result = duplicate("new-match", "--data", str(tmp_path))
    assert_fails_in_one_line(result, "no organiser key", "--organiser-key", str(tmp_path))


def test_serve_on_a_port_in_use_says_so_and_leaves_no_redis_running(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = duplicate("serve", "--port", str(port), "--data", str(tmp_path / "data"))
    assert_fails_in_one_line(result, f"port {port} is already in use", "--port")
    # The embedded redis-server had started before the port was tried: it stopped again.
    found = REDIS_URL.search(result.stdout)
    assert found is not None, result.stdout
    redis_port = int(found.group(1))
    assert not is_listening(redis_port)
    assert redis_servers_on(redis_port) == []


def test_serve_with_a_redis_that_cannot_be_reached_says_so(tmp_path: Path) -> None:
    port = free_port()
    url = "redis://127.0.0.1:1/0"
    result = duplicate(
        "serve", "--redis", url, "--port", str(port), "--data", str(tmp_path / "data")
    )
    assert_fails_in_one_line(result, f"Redis at {url} cannot be reached", "leave out --redis")
    assert not is_listening(port)  # it never started serving


def test_serve_with_a_redis_of_ones_own_behind_a_password(tmp_path: Path) -> None:
    key_file = tmp_path / "organiser.key"
    key_file.write_text("the organiser's secret\n")
    with RedisProcess(tmp_path / "own-redis") as own:  # it requires a password
        assert own.password in own.url
        process = subprocess.Popen(
            [sys.executable, "-m", "duplicate", "serve", "--redis", own.url,
             "--port", str(port := free_port()), "--data", str(tmp_path / "data"),
             "--organiser-key-file", str(key_file)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
        )  # fmt: skip
        try:
            lines = read_until(process, "Serving on")
            # The key from the file, not the command line: new-match finds it the same way.
            created = duplicate(
                "new-match", "--server", f"http://127.0.0.1:{port}",
                "--organiser-key-file", str(key_file), "--boards", "1",
            )  # fmt: skip
            assert created.returncode == 0, created.stderr
            assert sum(bool(LINK.match(line)) for line in created.stdout.splitlines()) == 8
        finally:
            process.send_signal(signal.SIGINT)
            output, _ = process.communicate(timeout=30)
        assert process.returncode == 0, output
        assert own.password not in "\n".join(lines) + output

        wrong = own.url.replace(own.password, "not-the-password")
        result = duplicate(
            "serve", "--redis", wrong, "--port", str(free_port()), "--data", str(tmp_path / "d2")
        )
        line = assert_fails_in_one_line(
            result, f"Redis at redis://:***@127.0.0.1:{own.port}/0 refused the password"
        )
        assert "not-the-password" not in result.stdout + line


def test_serve_with_a_redis_over_tls(tmp_path: Path) -> None:
    binary = shutil.which("redis-server")
    if binary is None or shutil.which("openssl") is None:
        pytest.skip("needs redis-server and openssl on PATH")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tls_port = free_port()
    redis_server = subprocess.Popen(
        [binary, "--port", "0", "--tls-port", str(tls_port), "--bind", "127.0.0.1",
         "--tls-cert-file", str(cert), "--tls-key-file", str(key),
         "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no",
         "--requirepass", "tls-secret", "--save", "", "--appendonly", "no",
         "--dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not is_listening(tls_port):
            if redis_server.poll() is not None:
                pytest.skip(f"this redis-server has no TLS: {redis_server.communicate()[0][-200:]}")
            assert time.monotonic() < deadline, "the TLS redis-server did not start"
            time.sleep(0.02)
        url = f"rediss://:tls-secret@127.0.0.1:{tls_port}/0?ssl_ca_certs={cert}"
        process = subprocess.Popen(
            [sys.executable, "-m", "duplicate", "serve", "--redis", url,
             "--port", str(port := free_port()), "--data", str(tmp_path / "data")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
        )  # fmt: skip
        try:
            read_until(process, "Serving on")
            created = duplicate(
                "new-match", "--server", f"http://127.0.0.1:{port}",
                "--data", str(tmp_path / "data"), "--boards", "1",
            )  # fmt: skip
            assert created.returncode == 0, created.stderr  # stored through TLS
        finally:
            process.send_signal(signal.SIGINT)
            output, _ = process.communicate(timeout=30)
        assert process.returncode == 0, output
        assert "tls-secret" not in output

        # A plain redis:// to the TLS port is refused at the startup PING, in one line.
        plain = url.replace("rediss://", "redis://").split("?")[0]
        result = duplicate(
            "serve", "--redis", plain, "--port", str(free_port()), "--data", str(tmp_path / "d2")
        )
        line = assert_fails_in_one_line(result, "Redis at redis://:***@127.0.0.1")
        assert "tls-secret" not in line
    finally:
        redis_server.terminate()
        redis_server.communicate(timeout=30)


@pytest.mark.asyncio
async def test_a_burst_of_commands_waits_for_the_pools_connections(
    redis_process: RedisProcess,
) -> None:
    # 1,000 commands at once, each holding its connection 50 ms: they queue for the 256.
    client = _redis_client(redis_process.url + "?client_name=burst")
    try:
        assert client.connection_pool.max_connections == REDIS_CONNECTIONS == 256
        replies = await asyncio.gather(
            *(client.blpop([f"nothing-{n}"], timeout=0.05) for n in range(1000))
        )
        assert replies == [None] * 1000
        clients = await client.client_list()
        assert sum(entry["name"] == "burst" for entry in clients) == REDIS_CONNECTIONS
    finally:
        await client.aclose()


def test_new_match_with_no_server_says_so(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = duplicate("new-match", "--server", url, "--organiser-key", "any")
    assert_fails_in_one_line(result, f"the server at {url} cannot be reached", "`duplicate serve`")


@pytest.fixture(scope="module")
def running_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``duplicate serve`` on a free port: its URL and its data folder (with the key)."""
    port = free_port()
    data = tmp_path_factory.mktemp("serve") / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "duplicate", "serve", "--port", str(port), "--data", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
    )  # fmt: skip
    try:
        read_until(process, "Serving on")
        yield f"http://127.0.0.1:{port}", data
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--deals", "{bad_pbn}"], ["the server refused the match: bad_deals:"]),
        (
            ["--format", "robot-table", "--boards", "5"],
            ["the server refused the match: invalid_message:", "4, 8 or 16 boards"],
        ),
        (["--organiser-key", "not-the-key"], ["refused: bad_token:"]),
    ],
    ids=["bad-deals-file", "robot-table-with-5-boards", "wrong-organiser-key"],
)
def test_new_match_refused_by_the_server_prints_the_refusal(
    running_server: tuple[str, Path], tmp_path: Path, options: list[str], says: list[str]
) -> None:
    url, data = running_server
    bad_pbn = tmp_path / "bad.pbn"
    bad_pbn.write_text('[Board "1"]\n[Deal "N:not a deal"]\n')
    options = [option.format(bad_pbn=bad_pbn) for option in options]
    result = duplicate("new-match", "--server", url, "--data", str(data), *options)
    assert_fails_in_one_line(result, *says)
    assert result.stdout == ""


def test_new_match_with_names_from_a_roster_and_the_command_line(
    running_server: tuple[str, Path], tmp_path: Path
) -> None:
    url, data = running_server
    roster = tmp_path / "roster.pbn"
    roster.write_text(
        '% the evening\'s seating\n[Room "Open"]\n[North "Ann"]\n[East "Bo"]\n'
        '[South "Cy"]\n[West "Di"]\n\n[Table "2"]\n[North "Ed"]\n[West "Hal"]\n'
    )
    result = duplicate(
        "new-match", "--server", url, "--data", str(data), "--roster", str(roster),
        "--names", "e2=Flo, S2=Gus, W1=Dee", "--chat", "table", "--review-seconds", "5",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    seats = [line.split() for line in result.stdout.splitlines() if "/play#" in line]
    assert [(seat[0], seat[3]) for seat in seats] == [
        ("N", "Ann"), ("E", "Bo"), ("S", "Cy"), ("W", "Dee"),
        ("N", "Ed"), ("E", "Flo"), ("S", "Gus"), ("W", "Hal"),
    ]  # fmt: skip


def test_the_console_commands_list_the_matches_and_give_the_links_again(
    running_server: tuple[str, Path], tmp_path: Path
) -> None:
    url, data = running_server
    roster = tmp_path / "roster.pbn"
    roster.write_text('[Table "1"]\n[North "Ann"]\n[East "Bo"]\n')
    made = duplicate(
        "new-match", "--server", url, "--data", str(data), "--roster", str(roster),
        "--robots", "t2", "--team-a", "Console Reds",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    match_id = made.stdout.split()[1]
    listed = duplicate("matches", "--server", url, "--data", str(data))
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith(match_id))
    assert "teams" in line
    assert "Console Reds 0" in line
    given = duplicate("links", match_id, "--server", url, "--data", str(data))
    assert given.returncode == 0, given.stderr
    made_links = {w for w in made.stdout.split() if "#" in w}
    given_links = {w for w in given.stdout.split() if "#" in w}
    assert made_links == given_links  # the players', the spectators' and the director's
    assert "Ann" in given.stdout
    unknown = duplicate("links", "0123456789abcdef", "--server", url, "--data", str(data))
    assert_fails_in_one_line(unknown, "no match 0123456789abcdef here")
    bad = tmp_path / "bad-roster.pbn"
    bad.write_text('[Table "3"]\n[North "Zed"]\n')
    refused = duplicate("new-match", "--server", url, "--data", str(data), "--roster", str(bad))
    assert_fails_in_one_line(refused, "seat 3N: this match has 2 table(s)")


def test_new_match_of_each_format_prints_a_link_per_player(
    running_server: tuple[str, Path],
) -> None:
    url, data = running_server
    result = duplicate(
        "new-match", "--server", url, "--data", str(data), "--format", "individual",
        "--players", "12", "--boards", "11", "--scoring", "matchpoints", "--names", "N3=Ann",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("Table")] == ["Table 1", "Table 2", "Table 3"]
    seats = [line.split() for line in lines if "/play#" in line]
    assert len(seats) == 12
    # Seed 002's starting tables: North at table 3 is player 5.
    assert seats[8][:4] == ["N", "player", "5", "Ann"]
    result = duplicate(
        "new-match", "--server", url, "--data", str(data), "--format", "replay",
        "--scoring", "imps",
    )  # fmt: skip
    assert_fails_in_one_line(result, "replay duplicate is scored board_a_match or total_points")
    result = duplicate(
        "new-match", "--server", url, "--data", str(data), "--format", "team-of-four",
        "--boards", "6",
    )  # fmt: skip
    assert_fails_in_one_line(result, "a multiple of 4 boards")


def test_new_match_takes_the_key_from_a_file(
    running_server: tuple[str, Path], tmp_path: Path
) -> None:
    url, data = running_server
    result = duplicate(
        "new-match", "--server", url, "--organiser-key-file", str(data / "organiser.key"),
        "--boards", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    missing = tmp_path / "no.key"
    result = duplicate("new-match", "--server", url, "--organiser-key-file", str(missing))
    assert_fails_in_one_line(result, f"cannot read --organiser-key-file {missing}")
    empty = tmp_path / "empty.key"
    empty.write_text("\n")
    result = duplicate("new-match", "--server", url, "--organiser-key-file", str(empty))
    assert_fails_in_one_line(result, f"--organiser-key-file {empty} is empty")


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--names", "N4=Ann"], ["bad --names entry 'N4=Ann'", "SEAT=NAME"]),
        (["--names", "N1="], ["bad --names entry 'N1='", "empty"]),
        (["--review-seconds", "-1"], ["bad --review-seconds"]),
        (["--roster", "{missing}"], ["cannot read --roster"]),
        (["--robot-level", "expert"], ["bad --robot-level 'expert'", "seed or strong"]),
        (["--robot-level", "N5=strong"], ["bad --robot-level 'N5=strong'", "1N=strong"]),
    ],
    ids=["table-4", "empty-name", "negative-review", "missing-roster", "level", "level-seat"],
)
def test_bad_match_options_are_refused_before_anything_is_sent(
    running_server: tuple[str, Path], tmp_path: Path, options: list[str], says: list[str]
) -> None:
    url, data = running_server
    options = [option.format(missing=tmp_path / "nowhere.pbn") for option in options]
    result = duplicate("new-match", "--server", url, "--data", str(data), *options)
    assert_fails_in_one_line(result, *says)


async def finished(spectator: str) -> None:
    """Wait until the match of this spectator link is over."""
    from clients.client import Client

    watcher = await Client.connect(spectator)
    await watcher.wait_for(lambda v: v.match.finished or None, timeout=60)
    await watcher.close()


def test_record_prints_the_match_record_from_a_link(running_server: tuple[str, Path]) -> None:
    url, data = running_server
    created = duplicate(
        "new-match", "--server", url, "--data", str(data), "--boards", "1",
        "--robots", "t1", "t2", "--names", "N1=Robbie", "--robot-delay", "0",
        "--spectators", "live", "--robot-level", "strong", "--robot-level", "t2=seed",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    spectator = next(
        line.split()[1] for line in created.stdout.splitlines() if line.startswith("Spectators")
    )
    asyncio.run(finished(spectator))
    result = duplicate("record", spectator)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('[Board "1"]') == 2
    assert '[North "Robbie"]' in result.stdout
    # The robots are named by their level: strong at table 1 (the open room), seed at 2.
    open_room, closed_room = result.stdout.split('[Room "Open"]')
    assert '[East "Robot (strong)"]' in open_room
    assert '[East "Robot"]' in closed_room
    # The match is over: its record publishes the deals, which `duplicate verify` checks.
    record_file = data / "match.pbn"
    record_file.write_text(result.stdout, encoding="utf-8")
    verified = duplicate("verify", str(record_file))
    assert verified.returncode == 0, verified.stderr
    assert "verified: the 1 boards committed to" in verified.stdout
    lin = duplicate("record", "--lin", spectator)
    assert lin.returncode == 0, lin.stderr
    assert lin.stdout.startswith("vg|duplicate match ")
    assert lin.stdout.count("qx|") == 2
    assert "Robbie" in lin.stdout
    bad = duplicate("record", url + "/watch#not-a-token")
    assert_fails_in_one_line(bad, "refused the link: bad_token")


def test_boards_drawn_from_a_sealed_seed_verify(running_server: tuple[str, Path]) -> None:
    url, data = running_server
    sealed = duplicate(
        "seal-deals", "--server", url, "--data", str(data),
        "--public-form", "digits 3: three dice, left to right",
    )  # fmt: skip
    assert sealed.returncode == 0, sealed.stderr
    said = dict(line.split(": ", 1) for line in sealed.stdout.splitlines()[:3])
    assert said["Public value's form"] == "digits 3: three dice, left to right"
    seed_commitment = said["Seed commitment"].removeprefix("sha256 ")
    created = duplicate(
        "new-match", "--server", url, "--data", str(data), "--boards", "1",
        "--robots", "t1", "t2", "--robot-delay", "0", "--spectators", "live",
        "--seal", said["Seal"], "--public-value", "dice 6 2 5",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    spectator = next(
        line.split()[1] for line in created.stdout.splitlines() if line.startswith("Spectators")
    )
    asyncio.run(finished(spectator))
    record_file = data / "sealed.pbn"
    record_file.write_text(duplicate("record", spectator).stdout, encoding="utf-8")
    verified = duplicate(
        "verify", str(record_file), "--seed-commitment", seed_commitment,
        "--public-value", "6-2-5",
    )  # fmt: skip
    assert verified.returncode == 0, verified.stderr
    assert f"drawn from the seed committed to (sha256 {seed_commitment})" in verified.stdout
    assert "'625'" in verified.stdout  # the value in the form sealed, however written
    other = duplicate("verify", str(record_file), "--seed-commitment", "0" * 64)
    assert_fails_in_one_line(other, "is not the one given")
    used = duplicate(
        "new-match", "--server", url, "--data", str(data), "--seal", said["Seal"],
        "--public-value", "again",
    )  # fmt: skip
    assert_fails_in_one_line(used, "no such seal")


class TestLimitOptions:
    def limits(self, *options: str) -> Limits:
        return _limits(build_parser().parse_args(["serve", *options]))

    def test_defaults(self) -> None:
        limits = self.limits()
        assert limits.max_connections_per_address == Limits().max_connections_per_address
        assert limits.trusted_proxies == frozenset()
        assert limits.overload_lag == OVERLOAD_LAG  # on: past what it can serve, it refuses

    def test_overload_lag(self) -> None:
        assert self.limits("--overload-lag", "20").overload_lag == 0.02
        assert self.limits("--overload-lag", "0").overload_lag is None  # never refuse

    def test_a_robot_host_may_hold_and_open_many_connections(self) -> None:
        limits = self.limits("--max-connections", "5000", "--max-connections-per-address", "500")
        assert (limits.max_connections, limits.max_connections_per_address) == (5000, 500)
        assert limits.connections_burst == 500  # all of them may come back at once

    def test_trusted_proxies(self) -> None:
        limits = self.limits("--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1")
        assert limits.trusted_proxies == {"127.0.0.1", "::1"}

    @pytest.mark.parametrize(
        "options",
        [
            ("--trusted-proxy", "proxy.example"),
            ("--max-connections", "0"),
            ("--overload-lag", "-1"),
        ],
    )
    def test_bad_values_are_refused_in_words(self, options: tuple[str, str]) -> None:
        with pytest.raises(CommandFailed):
            self.limits(*options)


def test_at_the_descriptor_limit_a_connection_is_answered_503_quietly(tmp_path: Path) -> None:
    # A server allowed few descriptors, filled with sockets that say nothing (they are not
    # WebSocket connections, so the connection cap does not see them): each connection
    # that comes when no descriptor is left is answered 503 and closed at once, with no
    # traceback in the log, and once descriptors are free again it is served.
    limit = 96

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    key_file = tmp_path / "organiser.key"
    key_file.write_text("the organiser's secret\n")
    with RedisProcess(tmp_path / "own-redis") as own:
        process = subprocess.Popen(
            [sys.executable, "-m", "duplicate", "serve", "--redis", own.url,
             "--port", str(port := free_port()), "--data", str(tmp_path / "data"),
             "--organiser-key-file", str(key_file), "--max-connections-per-address", "500"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
            preexec_fn=few_descriptors,
        )  # fmt: skip
        idle: list[socket.socket] = []
        try:
            read_until(process, "Serving on")
            for _ in range(limit + 20):  # at once: within the handshake's timeout
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                idle.append(sock)
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # and never the end
            # The server cannot hold them all: the last ones came when no descriptor was left.
            for sock in idle[-20:]:
                sock.settimeout(5)
                assert sock.recv(200).startswith(b"HTTP/1.1 503"), idle.index(sock)
            # Those already open are still served once they finish their request.
            first = idle[0]
            first.settimeout(5)
            first.sendall(b"\r\n")
            assert first.recv(200).startswith(b"HTTP/1.1 200")
            for sock in idle:
                sock.close()
            idle.clear()
            # Descriptors free again: a new one is served.
            deadline = time.monotonic() + 10
            while True:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    answer = sock.recv(200)
                if answer.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert answer.startswith(b"HTTP/1.1 200"), answer
        finally:
            for sock in idle:
                sock.close()
            process.send_signal(signal.SIGINT)
            output, _ = process.communicate(timeout=30)
    assert "Traceback" not in output, output
    assert "out of system resource" not in output, output

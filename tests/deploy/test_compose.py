"""docker-compose.yml, run: its Redis, server replicas and HAProxy (really started, over a
self-signed certificate) as local processes with the compose file's own commands, environment
and deploy/haproxy.cfg (tests/deploy/compose.py says how containers map to processes), and
matches played through the proxy over wss:// by robots at all eight seats."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import secrets
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
import yaml
from redis.asyncio import Redis
from redis.exceptions import AuthenticationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from clients.robot import Action, Robot
from protocol.messages import BoardCompared, PlayerView, Update, Welcome
from server.limits import Limits
from tests.deploy.compose import Stack, local_path

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
PROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
SERVER_PORT = 8765
METRICS_PORT = 9100
BOARDS = 4
LINK = re.compile(r"^\s+([NESW])\s+team [AB]\s+(https://\S+/play#\S+)$")


def replicas() -> list[str]:
    """The server replicas: the compose services built from the Dockerfile."""
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    return [name for name, service in services.items() if "build" in service]


def require(program: str) -> None:
    """Fail (never skip) without ``program``: ./dev test installs it where it may."""
    if shutil.which(program, path=local_path()) is None:
        pytest.fail(f"the deployment tests need Debian's {program}: apt-get install {program}")


@dataclass
class Deployment:
    """The compose stack running, and what its operator and its players know of it."""

    stack: Stack
    url: str
    """The public URL: the proxy's https:// address."""
    ca_file: Path
    """The self-signed certificate, for clients to trust."""
    redis_password: str
    organiser_key: str

    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.ca_file)

    def health(self, replica: str) -> dict[str, object]:
        """A replica's own /health, asked directly (not through the proxy)."""
        port = self.stack.port(replica, SERVER_PORT)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
            health: dict[str, object] = json.load(answer)
            return health

    def redis(self) -> Redis:
        port = self.stack.port("redis", 6379)
        return Redis(host="127.0.0.1", port=port, password=self.redis_password)


def self_signed_certificate(folder: Path) -> Path:
    """A certificate for 127.0.0.1 and its key in one PEM file in ``folder`` (what HAProxy
    loads); returns the certificate alone, for the clients to trust."""
    folder.mkdir()
    key, certificate = folder.parent / "site.key", folder.parent / "site.crt"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    (folder / "site.pem").write_bytes(certificate.read_bytes() + key.read_bytes())
    return certificate


def wait_for_proxy(deployment: Deployment, timeout: float = 30.0) -> None:
    """Until /health answers 200 through the proxy (HAProxy has found a healthy replica)."""
    deadline = time.monotonic() + timeout
    problem: object = None
    while time.monotonic() < deadline:
        assert deployment.stack.is_running("proxy"), deployment.stack.log("proxy")
        try:
            with urllib.request.urlopen(
                f"{deployment.url}/health", timeout=5, context=deployment.tls()
            ) as answer:
                if answer.status == 200:
                    return
        except urllib.error.HTTPError as error:  # 503: no replica is up yet
            error.close()
            problem = error
        except OSError as error:  # refused: HAProxy is not listening yet
            problem = error
        time.sleep(0.1)
    raise AssertionError(f"no answer through the proxy: {problem}\n{deployment.stack.log('proxy')}")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the folder HAProxy reads its certificates from, the certificate alone)."""
    require("openssl")
    folder = tmp_path_factory.mktemp("tls") / "certs"
    return folder, self_signed_certificate(folder)


def deploy(
    workdir: Path, certificate: tuple[Path, Path], only: list[str] | None = None
) -> Iterator[Deployment]:
    """Start the compose stack (``only`` those services), as an operator would with an .env
    file holding the secrets; stop everything it started, however the test ends."""
    require("haproxy")
    certificates, ca_file = certificate
    stack = Stack(COMPOSE_FILE, workdir / "stack")
    url = f"https://127.0.0.1:{stack.port('proxy', 443)}"
    redis_password = secrets.token_hex(32)
    organiser_key = secrets.token_urlsafe(24)
    env_file = workdir / ".env"
    env_file.write_text(
        f"REDIS_PASSWORD={redis_password}\n"
        f"DUPLICATE_ORGANISER_KEY={organiser_key}\n"
        f"PUBLIC_URL={url}\n"
        f"TLS_CERTIFICATES={certificates}\n"
    )
    deployment = Deployment(stack, url, ca_file, redis_password, organiser_key)
    try:
        stack.start(env_file, only)
        wait_for_proxy(deployment)
        yield deployment
    finally:
        stack.stop()


@pytest.fixture(scope="module")
def one_replica(
    tmp_path_factory: pytest.TempPathFactory, certificate: tuple[Path, Path]
) -> Iterator[Deployment]:
    """Redis, the first replica and the proxy (the other replicas' backends are down)."""
    yield from deploy(
        tmp_path_factory.mktemp("one-replica"), certificate, ["redis", replicas()[0], "proxy"]
    )


@pytest.fixture
def every_replica(tmp_path: Path, certificate: tuple[Path, Path]) -> Iterator[Deployment]:
    """Every service of docker-compose.yml."""
    yield from deploy(tmp_path, certificate)


@pytest.fixture
def trusting_the_certificate(
    monkeypatch: pytest.MonkeyPatch, certificate: tuple[Path, Path]
) -> Path:
    """Clients in this process (the client library, robots) trust the self-signed
    certificate, as `duplicate` does with SSL_CERT_FILE set."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[1]))
    return certificate[1]


# -- playing a match -------------------------------------------------------------------------


@dataclass
class Created:
    match_id: str
    links: dict[str, str]
    """Each seat's link, by table and seat (``"1N"``)."""


def new_match(deployment: Deployment) -> Created:
    """``duplicate new-match --server https://...`` as the README says, the organiser key in
    the environment and the certificate trusted through SSL_CERT_FILE."""
    env = {
        "PATH": "/usr/bin:/bin",
        "SSL_CERT_FILE": str(deployment.ca_file),
        "DUPLICATE_ORGANISER_KEY": deployment.organiser_key,
    }
    done = subprocess.run(
        [sys.executable, "-m", "duplicate", "new-match", "--server", deployment.url,
         "--boards", str(BOARDS), "--review-seconds", "0", "--spectators", "off"],
        capture_output=True, text=True, timeout=60, env=env, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    match_id = lines[0].removeprefix("Match ").strip()
    links: dict[str, str] = {}
    table = 0
    for line in lines:
        if line.startswith("Table "):
            table = int(line.split()[1])
        elif found := LINK.match(line):
            links[f"{table}{found[1]}"] = found[2]
    assert len(links) == 8, done.stdout
    assert all(link.startswith(deployment.url + "/play#") for link in links.values())
    return Created(match_id, links)


class MidBoardRobot(Robot):
    """A robot that says (``mid_board``) when its table is in the middle of a board's play."""

    def __init__(self, link: str, name: str, mid_board: asyncio.Event, board: int) -> None:
        super().__init__(link, name=name, delay=0.02)
        self.mid_board = mid_board
        self.board = board

    def next_action(self, view: PlayerView) -> tuple[Action | None, bool]:
        board = view.board
        if (
            board is not None
            and board.board == self.board
            and board.phase == "play"
            and board.tricks_ns + board.tricks_ew >= 2
        ):
            self.mid_board.set()
        return super().next_action(view)


def comparisons_told(robot: Robot) -> Counter[int]:
    """How many times the robot's player was told each board's comparison."""
    assert robot.client is not None
    return Counter(
        event.comparison.board
        for message in robot.client.received
        if isinstance(message, Update)
        for event in message.events
        if isinstance(event, BoardCompared)
    )


def progress(robots: Sequence[Robot]) -> str:
    """Where each robot's table is, for a failure's message."""
    lines = []
    for robot in robots:
        client = robot.client
        view = None if client is None else client.view
        board = view.board if isinstance(view, PlayerView) else None
        where = "no view" if board is None else f"board {board.board} {board.phase}"
        told = sorted(comparisons_told(robot).elements()) if client is not None else []
        count = connections(robot) if client is not None else 0
        lines.append(f"  {robot.name}: {where}; connections {count}; comparisons told {told}")
    return "\n".join(lines)


def connections(robot: Robot) -> int:
    assert robot.client is not None
    return sum(isinstance(message, Welcome) for message in robot.client.received)


async def play(deployment: Deployment, kill: bool) -> list[Robot]:
    """A match through the proxy, robots at all eight seats; with ``kill``, a replica that
    holds some of the match's connections is SIGKILLed in the middle of board 2's play.
    Returns the robots once each has seen the match finish."""
    created = await asyncio.to_thread(new_match, deployment)
    mid_board = asyncio.Event()
    robots: list[Robot] = [
        MidBoardRobot(link, name, mid_board, board=2) for name, link in created.links.items()
    ]
    tasks = [asyncio.create_task(robot.run()) for robot in robots]
    try:
        if kill:
            try:
                await asyncio.wait_for(mid_board.wait(), timeout=60)
            except TimeoutError:
                raise AssertionError(
                    f"the match never reached board 2's play:\n{progress(robots)}"
                ) from None
            holding = [
                replica
                for replica in replicas()
                if deployment.stack.is_running(replica)
                and int(str(deployment.health(replica)["matches"])) > 0
            ]
            assert holding, "no replica holds the match"
            deployment.stack.kill(holding[-1])
            assert not deployment.stack.is_running(holding[-1])
        done, pending = await asyncio.wait(tasks, timeout=120)
        assert not pending, f"the match did not finish:\n{progress(robots)}"
        for task in done:
            task.result()  # a robot that failed says why
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for robot in robots:
            await robot.close()
    # The store compared each board exactly once.
    redis = deployment.redis()
    try:
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]],
            await redis.xrange(f"{{m:{created.match_id}}}:swings"),
        )
    finally:
        await redis.aclose()
    compared = sorted(json.loads(fields[b"e"])["board"] for _, fields in entries)
    assert compared == list(range(1, BOARDS + 1))
    for robot in robots:
        assert robot.errors == [], (robot.name, robot.errors)
        assert robot.client is not None
        view = robot.client.view
        assert isinstance(view, PlayerView)
        assert view.match.finished
        assert [c.board for c in view.match.comparisons] == list(range(1, BOARDS + 1))
        # Each player was told of each board's comparison once: none missed across a
        # reconnection to another replica, none told twice.
        told = comparisons_told(robot)
        assert told == Counter(range(1, BOARDS + 1)), (robot.name, told)
    return robots


# -- the tests -----------------------------------------------------------------------------


def test_the_proxy_balances_over_every_replica() -> None:
    """deploy/haproxy.cfg's backend lists exactly the compose file's replicas, each at the
    port it exposes: a replica added to one and not the other would take no connection or
    get connections for nothing."""
    backends = re.findall(r"^\s*server\s+(\S+)\s+(\S+)", PROXY_CONFIG.read_text(), re.MULTILINE)
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    assert len(replicas()) >= 2
    assert backends == [(name, f"{name}:{SERVER_PORT}") for name in replicas()]
    for name in replicas():
        # The game's port, which the proxy reaches, and the metrics' port, which it does not.
        assert services[name]["expose"] == [str(SERVER_PORT), str(METRICS_PORT)]


@pytest.mark.asyncio
async def test_a_match_through_the_proxy_over_wss(
    one_replica: Deployment, trusting_the_certificate: Path
) -> None:
    """The whole chain on one replica: TLS at the proxy, new-match over https, a match played
    over wss://; and the deployment's promises: Redis keeps an append-only file fsynced on
    every write and wants its password, which no command line shows, nor the organiser key."""
    robots = await play(one_replica, kill=False)
    assert all(connections(robot) == 1 for robot in robots)

    redis = one_replica.redis()
    try:
        config = await redis.config_get("append*")
    finally:
        await redis.aclose()
    assert config["appendonly"] == "yes"
    assert config["appendfsync"] == "always"
    nobody = Redis(host="127.0.0.1", port=one_replica.stack.port("redis", 6379))
    try:
        with pytest.raises(AuthenticationError):
            await nobody.ping()
    finally:
        await nobody.aclose()
    redis_process = one_replica.stack.services["redis"].process
    assert redis_process is not None
    command_line = Path(f"/proc/{redis_process.pid}/cmdline").read_bytes()
    assert b"redis-server" in command_line
    assert one_replica.redis_password.encode() not in command_line
    replica = one_replica.stack.services[replicas()[0]].process
    assert replica is not None
    replica_line = Path(f"/proc/{replica.pid}/cmdline").read_bytes()
    assert one_replica.organiser_key.encode() not in replica_line
    assert one_replica.redis_password.encode() not in replica_line


def test_plain_http_is_sent_to_https(one_replica: Deployment) -> None:
    port = one_replica.stack.port("proxy", 80)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/play")
        answer = connection.getresponse()
    finally:
        connection.close()
    assert answer.status == 301
    assert answer.getheader("Location") == f"https://127.0.0.1:{port}/play"


def test_the_metrics_are_not_served_through_the_proxy(
    one_replica: Deployment, trusting_the_certificate: Path
) -> None:
    context = ssl.create_default_context(cafile=str(trusting_the_certificate))
    port = one_replica.stack.port("proxy", 443)
    answers = {}
    for path in ("/metrics", "/health"):
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=5, context=context)
        try:
            connection.request("GET", path)
            answers[path] = connection.getresponse().status
        finally:
            connection.close()
    assert answers == {"/metrics": 403, "/health": 200}
    # Each replica serves them on its own metrics port (the backend network's), never on
    # the game's port.
    replica = f"http://127.0.0.1:{one_replica.stack.port('server1', 8765)}"
    metrics = f"http://127.0.0.1:{one_replica.stack.port('server1', METRICS_PORT)}/metrics"
    assert http_status(f"{replica}/metrics") == 404
    assert http_status(metrics) == 200


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.asyncio
async def test_the_servers_count_each_client_by_the_address_the_proxy_saw(
    one_replica: Deployment,
) -> None:
    """HAProxy names the client in X-Forwarded-For and the servers trust it (and only it):
    a client at 127.0.0.2 that holds as many connections as one address may is refused the
    next, by its own address, even when it claims another one; a client at 127.0.0.1 is not."""
    cap = Limits().max_connections_per_address
    ws_url = one_replica.url.replace("https://", "wss://") + "/ws"
    context = one_replica.tls()
    held: list[ClientConnection] = []
    try:
        for _ in range(cap):
            held.append(
                await connect(ws_url, ssl=context, local_addr=("127.0.0.2", 0), open_timeout=10)
            )
        with pytest.raises(InvalidStatus) as refused:
            await connect(
                ws_url,
                ssl=context,
                local_addr=("127.0.0.2", 0),
                additional_headers={"X-Forwarded-For": "198.51.100.7"},
                open_timeout=10,
            )
        assert refused.value.response.status_code == 503
        body = refused.value.response.body.decode()
        assert "from 127.0.0.2" in body, body
        other = await connect(ws_url, ssl=context, open_timeout=10)
        await other.close()
    finally:
        for connection in held:
            await connection.close()


@pytest.mark.asyncio
async def test_a_match_goes_on_when_a_replica_is_killed_mid_board(
    every_replica: Deployment, trusting_the_certificate: Path
) -> None:
    """Every replica behind the proxy, the match's connections spread over them by
    leastconn; one replica holding some of them is SIGKILLed in the middle of a board. Its
    players reconnect through the proxy to the others and resume: the match finishes, every
    board compared once, every player told of each comparison once."""
    robots = await play(every_replica, kill=True)
    assert any(connections(robot) > 1 for robot in robots), "the kill dropped no player"

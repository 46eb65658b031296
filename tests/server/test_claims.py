"""Claims and concessions (laws 68-71): a statement, withdrawal, play going on after a
rejection, a concession withdrawn before the next board with the director's leave (laws 69
and 71), the trick in progress kept."""

from __future__ import annotations

import asyncio

import pytest

from bridge import Deal
from bridge.pbn import parse_games
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from server.app import Server
from tests.server.harness import (
    STRONG_NORTH,
    Match,
    audit_match,
    bid,
    board_view,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)

DEALS = one_board()


@pytest.mark.asyncio
async def test_a_claim_is_withdrawn_and_the_play_goes_on(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=4)
    await settle(table, (await table["N"].claim(12, "cash everything")).seq)
    await settle(table, (await table["E"].answer_claim(True)).seq)
    with pytest.raises(ClientError) as not_yours:
        await table["E"].withdraw_claim()
    assert not_yours.value.code == ErrorCode.OUT_OF_TURN
    assert "withdraw_claim" in (await board_view(table["N"], 1)).actions
    await settle(table, (await table["N"].withdraw_claim()).seq)
    view = await board_view(table["W"], 1)
    assert (view.phase, view.acting) == ("play", "N")
    assert view.claim is not None
    assert view.claim.status == "withdrawn"
    assert view.claim.cards is None
    assert "N" not in view.hands
    await play_cards(table, 1, count=1)
    assert (await board_view(table["W"], 1)).claim is None  # gone once the play went on
    await match.close()


@pytest.mark.asyncio
async def test_a_concession_withdrawn_with_the_directors_leave_resumes_the_play(
    server: Server,
) -> None:
    two_boards = DEALS + "\n" + DEALS.replace('[Board "1"]', '[Board "2"]')
    created = await create(server, boards=2, deals_pbn=two_boards, review_seconds=60)
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])  # North can take all 13
    await play_cards(table, 1, count=4)
    # North concedes two of the twelve left by mistake; the defenders accept at once.
    await settle(table, (await table["N"].claim(10)).seq)
    for seat in "EW":
        await settle(table, (await table[seat].answer_claim(True)).seq)
    view = await board_view(table["N"], 1)
    assert view.phase == "finished"
    assert view.result is not None
    assert table["N"].view is not None
    assert table["N"].view.review is not None
    assert "withdraw_concession" in view.actions
    # The defenders' acquiescence in the claimed tricks may be withdrawn too (law 69B);
    # dummy takes no part.
    assert "withdraw_concession" in (await board_view(table["W"], 1)).actions
    assert "withdraw_concession" not in (await board_view(table["S"], 1)).actions
    with pytest.raises(ClientError) as dummy:
        await table["S"].withdraw_concession()
    assert dummy.value.code == ErrorCode.ILLEGAL_CLAIM

    # North asks: the director is called, and the board stays finished, held for them.
    await settle(table, (await table["N"].withdraw_concession()).seq)
    held = await board_view(table["E"], 1)
    assert held.phase == "finished"
    assert held.result is not None
    assert held.claim is not None
    assert held.claim.withdrawal == "N"
    assert "next_board" not in held.actions
    assert "withdraw_concession" not in (await board_view(table["W"], 1)).actions
    for seat, refused_code in (("W", ErrorCode.WRONG_PHASE), ("E", ErrorCode.WRONG_PHASE)):
        with pytest.raises(ClientError) as twice:
            await (table[seat].withdraw_concession() if seat == "W" else table[seat].next_board())
        assert twice.value.code == refused_code
    called = await director.wait_for(lambda v: v if v.director_calls else None)
    assert [(c.table, c.seat, c.board) for c in called.director_calls] == [(1, "N", 1)]
    assert "withdraw the concession" in (called.director_calls[0].text or "")
    with pytest.raises(ClientError) as not_players:
        await table["E"].decide_withdrawal(1, True)
    assert not_players.value.code == ErrorCode.FORBIDDEN

    # Refused: the concession stands, the call is closed, the review starts again.
    await director.decide_withdrawal(1, False)
    await settle(table)
    stands = await board_view(table["E"], 1)
    assert stands.phase == "finished"
    assert stands.claim is not None
    assert stands.claim.withdrawal is None
    assert "next_board" in stands.actions
    assert (
        await director.wait_for(lambda v: v if not v.director_calls else None)
    ).answered_calls == []
    with pytest.raises(ClientError) as nothing_asked:
        await director.decide_withdrawal(1, True)
    assert nothing_asked.value.code == ErrorCode.WRONG_PHASE

    # Asked again, and allowed: the play resumes where the claim stopped it.
    await settle(table, (await table["W"].withdraw_concession()).seq)
    await director.decide_withdrawal(1, True)
    await settle(table)
    resumed = await board_view(table["E"], 1)
    assert (resumed.phase, resumed.result, resumed.acting) == ("play", None, "N")
    assert table["E"].view is not None
    assert table["E"].view.review is None
    events = [e.type for u in player_updates(table["E"]) for e in u.events]
    assert events.count("concession_withdrawal_asked") == 2
    assert events.count("concession_withdrawal_refused") == 1
    assert events.count("concession_withdrawn") == 1
    # Nothing was compared or stored for the board meanwhile: play it out, then it counts.
    await play_cards(table, 1)
    done = await board_view(table["E"], 1)
    assert done.result is not None
    assert done.result.tricks == 13
    for seat in "NESW":
        await settle(table, (await table[seat].next_board()).seq)
    assert (await board_view(table["E"], 2)).phase == "auction"
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await director.close()
    await match.close()


async def withdrawal_asked(
    server: Server, boards: int, review_seconds: int
) -> tuple[Match, Client, dict[str, Client]]:
    """A match whose table 1 has North concede two tricks of board 1 (accepted) and ask to
    withdraw the concession: the match, the director and table 1."""
    deals = "\n".join(DEALS.replace('[Board "1"]', f'[Board "{n}"]') for n in range(1, boards + 1))
    created = await create(server, boards=boards, deals_pbn=deals, review_seconds=review_seconds)
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=4)
    await settle(table, (await table["N"].claim(10)).seq)
    for seat in "EW":
        await table[seat].answer_claim(True)
    await settle(table, (await table["N"].withdraw_concession()).seq)
    return match, director, table


@pytest.mark.asyncio
async def test_a_withdrawal_asked_holds_the_review_until_the_director_decides(
    server: Server,
) -> None:
    match, director, table = await withdrawal_asked(server, boards=2, review_seconds=1)
    await asyncio.sleep(2.5)  # past the review's second: it would have ended
    await settle(table)
    still = table["E"].view
    assert still is not None
    assert still.review is not None
    assert still.board is not None
    assert still.board.board == 1
    # Refused: the review runs again, and then ends by itself.
    await director.decide_withdrawal(1, False)
    nxt = await table["E"].wait_for(lambda v: v if v.board and v.board.board == 2 else None)
    assert nxt.review is None
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_an_assigned_result_settles_a_withdrawal_asked(server: Server) -> None:
    match, director, table = await withdrawal_asked(server, boards=1, review_seconds=60)
    # The director decides the board otherwise: the request is moot, the board not held.
    await director.assign_result(1, 1, "3NT", "N", 13)
    await settle(table)
    board = await board_view(table["N"], 1)
    assert board.claim is not None
    assert board.claim.withdrawal is None
    assert "next_board" in board.actions
    assert "withdraw_concession" not in board.actions
    await table["N"].next_board()  # the review is the players' again
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_the_trick_in_progress_at_a_claim_is_kept(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    for number in (1, 2):
        table = match.table(number)
        await bid(table, 1, ["3NT", "P", "P", "P"])
        await play_cards(table, 1, count=1)  # East's opening lead only
        await settle(table, (await table["N"].claim(13)).seq)
        for seat in "EW":
            await settle(table, (await table[seat].answer_claim(True)).seq)
        view = await table["S"].wait_for(lambda v: v if v.results else None)
        assert view.board is not None
        assert view.board.current_trick is not None
        assert [c.seat for c in view.board.current_trick.cards] == ["E"]  # the lead is kept
    record = await match.players[(1, "N")].record()
    games = parse_games(record)
    assert len(games) == 2
    for game in games:
        assert game.play is not None
        assert len(game.play.tricks) == 1
        row = game.play.tricks[0]
        assert row[0].card is not None  # East's lead: [Play "E"] then the card, then "-"
        assert [cell.card for cell in row[1:]] == [None, None, None]
    await match.close()

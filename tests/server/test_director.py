"""The director's tools on a board: an assigned result, an artificial adjusted score, a
voided board; each published like any comparison, and hidden results stay hidden."""

from __future__ import annotations

import pytest

from bridge import Deal
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import BoardCompared, PlayerView
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
)


def boards(count: int) -> str:
    return "\n".join(
        one_board().replace('[Board "1"]', f'[Board "{n}"]') for n in range(1, count + 1)
    )


async def play_board(match: Match, table: int, board: int, calls: list[str]) -> None:
    players = match.table(table)
    await bid(players, board, list(calls))
    if any(call != "P" for call in calls):
        await play_cards(players, board)


def comparisons_of(client: Client, board: int) -> list[BoardCompared]:
    return [
        e
        for u in player_updates(client)
        for e in u.events
        if isinstance(e, BoardCompared) and e.comparison.board == board
    ]


async def audit(match: Match, count: int) -> None:
    await audit_match(match, dict.fromkeys(range(1, count + 1), Deal.from_pbn(STRONG_NORTH)))


@pytest.mark.asyncio
async def test_an_assigned_result_stays_hidden_until_the_other_table_is_done(
    server: Server,
) -> None:
    created = await create(server, boards=2, deals_pbn=boards(2))
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    await play_board(match, 1, 1, ["3NT", "P", "P", "P"])  # 3NT+4: N-S +520
    with pytest.raises(ClientError) as players_may_not:
        await match.players[(1, "N")].assign_result(1, 1, "3NT", "N", 9)
    assert players_may_not.value.code == ErrorCode.FORBIDDEN
    # The director assigns table 1 a result for board 1 before table 2 has played it.
    await director.assign_result(1, 1, "4S", "N", 10)
    east = match.players[(1, "E")]
    assigned = await east.wait_for(lambda v: v if v.results and v.results[0].assigned else None)
    assert (assigned.results[0].contract, assigned.results[0].ns_score) == ("4S", 420)
    # Table 2 learns nothing of it.
    for client in match.table(2).values():
        await client.ping()
        assert all(e.type != "result_assigned" for u in player_updates(client) for e in u.events)
    await play_board(match, 2, 1, ["1NT", "P", "P", "P"])  # 1NT+6: N-S +270 at table 2
    compared = await east.wait_for(lambda v: v if v.match.comparisons else None)
    comparison = compared.match.comparisons[0]
    assert comparison.table1 is not None
    assert comparison.table1.assigned
    assert (comparison.difference, comparison.swing) == (420 - 270, 4)
    # After the comparison, a second ruling publishes the board again; the later one stands.
    await director.assign_result(2, 1, "1NT", "S", 7)  # N-S +90 at table 2
    again = await east.wait_for(lambda v: v if v.match.comparisons[0].difference == 330 else None)
    assert again.match.comparisons[0].swing == 8
    assert again.match.imps_a == 8
    west2 = match.players[(2, "W")]
    assert len(comparisons_of(west2, 1)) == 2
    # Until it is published again, the comparison stays as it was published: the new
    # result is not half in it (assigned, with the old score).
    await west2.wait_for(lambda v: v.match.comparisons[0].difference == 330 or None)
    ruled = next(
        u for u in player_updates(west2) if any(e.type == "result_assigned" for e in u.events)
    )
    assert not any(c.path.startswith("/match/comparisons") for c in ruled.changes)
    assert ruled.view is not None
    (before,) = ruled.view.match.comparisons
    assert [(r.table, r.ns_score, r.assigned) for r in before.results] == [
        (1, 420, True),
        (2, 270, False),
    ]
    await audit(match, 2)
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_an_artificial_score_and_a_void_board(server: Server) -> None:
    created = await create(server, boards=3, deals_pbn=boards(3))
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    for table in (1, 2):
        await play_board(match, table, 1, ["P", "P", "P", "P"])
    north = match.players[(1, "N")]
    await north.wait_for(lambda v: v.match.comparisons or None)
    # Average-plus to team A, average-minus to team B on board 1.
    await director.adjust_score(1, 3)
    adjusted = await north.wait_for(lambda v: v if v.match.comparisons[0].artificial == 3 else None)
    assert (adjusted.match.comparisons[0].swing, adjusted.match.imps_a) == (3, 3)
    # Board 2 is voided while table 1 is in the middle of its auction and table 2 has made
    # no call yet: both tables leave it for board 3.
    await bid(match.table(1), 2, ["1NT", "P"])
    await director.void_board(2)
    on_three = await board_view(north, 3)
    assert on_three.phase == "auction"
    previous = next(
        u.view.board
        for u in reversed(player_updates(north))
        if isinstance(u.view, PlayerView) and u.view.board and u.view.board.board == 2
    )
    assert previous is not None
    assert previous.phase == "finished"
    assert previous.result is None
    west2 = match.players[(2, "W")]
    view = await west2.wait_for(lambda v: v if v.match.comparisons[-1].void else None)
    assert view.board is not None
    assert view.board.board == 3
    for table in (1, 2):
        await play_board(match, table, 3, ["P", "P", "P", "P"])
    final = await west2.wait_for(lambda v: v if v.match.finished else None)
    assert [(c.board, c.swing, c.void) for c in final.match.comparisons] == [
        (1, 3, False),
        (2, 0, True),
        (3, 0, False),
    ]
    assert (final.match.imps_a, final.match.imps_b, final.match.winner) == (3, 0, "A")
    assert [r.board for r in final.results] == [1, 3]  # table 2 never played board 2
    record = await north.record()
    assert '[Board "2"]' not in record
    assert record.count('[Board "3"]') == 2
    with pytest.raises(ClientError) as players_may_not:
        await north.void_board(1)
    assert players_may_not.value.code == ErrorCode.FORBIDDEN
    await audit(match, 3)
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_a_board_the_director_decided_cannot_be_played_on(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=boards(2), review_seconds=60)
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=4)
    await table["N"].claim(10)
    for seat in "EW":
        await table[seat].answer_claim(True)
    north = table["N"]
    await north.wait_for(
        lambda v: v if v.board and "withdraw_concession" in v.board.actions else None
    )
    # The director voids the board while it is on review: its concession stands.
    await director.void_board(1)
    decided = await north.wait_for(lambda v: v if v.match.comparisons else None)
    assert decided.board is not None
    assert "withdraw_concession" not in decided.board.actions
    with pytest.raises(ClientError) as refused:
        await north.withdraw_concession()
    assert refused.value.code == ErrorCode.WRONG_PHASE
    await audit(match, 2)
    await match.close()
    await director.close()

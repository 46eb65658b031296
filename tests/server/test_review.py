"""After each board: the finished board stays on the table for review until all four ask
for the next one (or the review time is up); then both tables' play, on request."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from bridge import BridgeError, Deal
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import PlayerView
from server import views as server_views
from server.app import Server
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    STRONG_NORTH,
    Match,
    audit_match,
    audit_player_board,
    bid,
    board_view,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)

TWO = one_board() + "\n" + one_board().replace('[Board "1"]', '[Board "2"]')


async def finish_board_one(match: Match, table: int) -> None:
    players = match.table(table)
    await bid(players, 1, ["2NT", "P", "P", "P"])
    await play_cards(players, 1)


@pytest.mark.asyncio
async def test_a_finished_board_stays_until_all_four_ask_for_the_next(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=TWO, review_seconds=120)
    match = await seat_everyone(server, created)
    await finish_board_one(match, 1)
    north = match.players[(1, "N")]
    view = north.view
    assert isinstance(view, PlayerView)
    assert view.review is not None
    assert (view.review.board, view.review.ready) == (1, [])
    assert view.review.until is not None
    board = view.board
    assert board is not None
    assert board.phase == "finished"
    assert len(board.tricks) == 13  # a trick-by-trick replay: every trick, every card
    assert board.deal is not None
    assert set(board.deal) == set("NESW")
    assert "next_board" in board.actions
    # The other table finishes too: still nothing compared while either reviews.
    await finish_board_one(match, 2)
    for seat in "NES":
        await settle(match.table(1), (await match.players[(1, seat)].next_board()).seq)
    waiting = await board_view(north, 1)
    assert waiting.phase == "finished"
    assert north.view is not None
    assert north.view.review is not None
    assert north.view.review.ready == ["N", "E", "S"]
    assert "next_board" not in waiting.actions
    assert north.view.match.comparisons == []
    await settle(match.table(1), (await match.players[(1, "W")].next_board()).seq)
    assert (await board_view(north, 2)).phase == "auction"
    assert north.view.review is None
    assert north.view.match.comparisons == []  # table 2 is still looking at board 1
    for seat in "NESW":
        await match.players[(2, seat)].next_board()
    compared = await north.wait_for(lambda v: v if v.match.comparisons else None)
    assert compared.match.comparisons[0].board == 1
    ended = [e for u in player_updates(north) for e in u.events if e.type == "review_ended"]
    assert [(e.table, e.board) for e in ended] == [(1, 1)]
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()


@pytest.mark.asyncio
async def test_the_next_board_starts_when_the_review_time_is_up(server: Server) -> None:
    created = await create(
        server, boards=2, deals_pbn=TWO, review_seconds=1, robots=["1E", "1S", "1W"]
    )
    north = await Client.connect(next(s.link for s in created.seats if s.seat == "N") or "")
    # North plays his part of board 1 (the first legal call or card); the robots theirs.
    while True:
        view = await north.wait_for(
            lambda v: v if v.review or (v.board and v.board.legal) else None
        )
        if view.review is not None:
            break
        assert view.board is not None
        if view.board.phase == "auction":
            await north.call("1NT" if not view.board.auction else "P")
        else:
            await north.play(view.board.legal[0])
    # The robots are ready at once; North, who says nothing, is waited for one second.
    finished = await north.wait_for(lambda v: v if v.review else None)
    assert finished.review is not None
    assert finished.review.until is not None
    await north.wait_for(lambda v: v if v.review and len(v.review.ready) == 3 else None)
    loop = asyncio.get_running_loop()
    start = loop.time()
    started = await north.wait_for(lambda v: v if v.board and v.board.board == 2 else None)
    assert started.review is None
    assert loop.time() - start >= 0.2  # it waited for the clock, not for North
    await north.close()


@pytest.mark.asyncio
async def test_a_review_outlives_a_server_restart(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    first = Server(redis, ORGANISER_KEY, robot_delay=0)
    await first.start()
    created = await create(first, boards=2, deals_pbn=TWO, review_seconds=2)
    match = await seat_everyone(first, created)
    await finish_board_one(match, 1)
    await first.close()
    await match.close()
    second = Server(redis, ORGANISER_KEY, port=first.port, robot_delay=0)
    await second.start()
    try:
        north = await Client.connect(next(s.link for s in created.seats if s.seat == "N") or "")
        started = await north.wait_for(
            lambda v: v if v.board and v.board.board == 2 else None, timeout=15
        )
        assert started.review is None
        await north.close()
    finally:
        await second.close()


@pytest.mark.asyncio
async def test_both_tables_play_is_shown_once_the_board_is_compared(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=TWO, spectators="delayed")
    match = await seat_everyone(server, created)
    spectator = await Client.connect(created.spectator or "")
    director = await Client.connect(created.director)
    await finish_board_one(match, 1)
    east = match.players[(1, "E")]
    own = await east.board(1)  # its own table's board, once finished
    assert [t.table for t in own.tables] == [1]
    assert own.comparison is None
    with pytest.raises(ClientError) as hidden:
        await match.players[(2, "E")].board(1)  # table 2 has not finished it
    assert hidden.value.code == ErrorCode.FORBIDDEN
    with pytest.raises(ClientError) as delayed:
        await spectator.board(1)
    assert delayed.value.code == ErrorCode.FORBIDDEN
    live = await director.board(1)
    assert [t.table for t in live.tables] == [1, 2]
    with pytest.raises(ClientError) as unknown:
        await east.board(9)
    assert unknown.value.code == ErrorCode.INVALID_MESSAGE
    await finish_board_one(match, 2)
    # Compared, with the double-dummy analysis (worked out after the match was created).
    await east.wait_for(lambda v: [c for c in v.match.comparisons if c.par] or None)
    both = await east.board(1)
    assert [t.table for t in both.tables] == [1, 2]
    assert both.comparison is not None
    assert both.comparison.par is not None
    deal = Deal.from_pbn(STRONG_NORTH)
    for board in both.tables:
        assert len(board.tricks) == 13
        assert board.result is not None
        audit_player_board(board, "E", deal)
    assert [t.table for t in (await spectator.board(1)).tables] == [1, 2]
    await match.close()
    await spectator.close()
    await director.close()


@pytest.mark.asyncio
async def test_a_board_whose_link_cannot_be_made_is_shown_without_it(
    server: Server, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A view is never refused for its hand-viewer link: should LIN refuse a board, the
    board is shown without the link (and the server says so in its log)."""

    def refused(*_args: object) -> str:
        raise BridgeError("LIN cannot carry this")

    monkeypatch.setattr(server_views, "handviewer", refused)
    created = await create(server, boards=1, robots=["t1", "t2"], review_seconds=0)
    director = await Client.connect(created.director)
    await director.wait_for(lambda v: v if v.match.finished else None, timeout=60)
    record = await director.board(1)
    assert [board.handviewer for board in record.tables] == [None, None]
    assert [board.phase for board in record.tables] == ["finished", "finished"]
    assert any("no hand-viewer link" in r.getMessage() for r in caplog.records)
    await director.close()


@pytest.mark.asyncio
async def test_the_other_tables_finish_is_not_in_a_view_made_afresh(server: Server) -> None:
    """Table 1 has played the match's last board and waits for table 2; table 2 finishes
    it and looks at it on review. Nobody at table 1 is told (nothing is compared yet), so a
    view made afresh for a table-1 player, at the same sequence number, must be the view
    they were sent: still waiting for table 2 (#23: it said nobody, and a player who
    reconnected learnt that the other table had finished before any comparison)."""
    created = await create(server, boards=1, deals_pbn=one_board(), review_seconds=600)
    match = await seat_everyone(server, created)
    await finish_board_one(match, 1)
    north = match.players[(1, "N")]
    waiting = await north.wait_for(lambda v: v if v.played_round else None)
    assert waiting.waiting_for == [2]
    await finish_board_one(match, 2)
    assert match.players[(2, "N")].view is not None
    assert match.players[(2, "N")].view.waiting_for == [1]  # nor the other way round
    await settle(match.table(1))
    live = north.view
    link = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
    assert link is not None
    afresh = await Client.connect(link, name="afresh")
    try:
        assert afresh.seq == north.seq
        assert afresh.view == live
        assert afresh.view is not None
        assert afresh.view.waiting_for == [2]
    finally:
        await afresh.close()
    # Once both tables are done reviewing, the board is compared: now everyone knows.
    for table in (1, 2):
        for seat in "NESW":
            await match.players[(table, seat)].next_board()
    done = await north.wait_for(lambda v: v if v.match.comparisons else None)
    assert done.waiting_for == []
    await match.close()

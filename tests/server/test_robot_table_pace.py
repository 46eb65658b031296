"""A table of the server's robots plays a board only once a table of people has started it:
live spectators watch both tables, and must not see the robots finish boards the people have
not begun (robots play far faster than people)."""

from __future__ import annotations

import pytest

from clients.client import Client
from protocol.messages import WatchView
from server.app import Server
from tests.server.harness import bid, create, play_cards, seat_everyone

pytestmark = pytest.mark.asyncio


def started(view: WatchView, table: int) -> list[int]:
    """The boards a live spectator sees ``table`` on (its current board, if any)."""
    return [board.board for board in view.tables if board.table == table]


async def test_a_table_of_robots_waits_for_the_people_to_start_each_board(
    server: Server,
) -> None:
    created = await create(server, boards=3, robots=["t2"], spectators="live")
    assert created.spectator is not None
    match = await seat_everyone(server, created)
    runtime = await server.runtime(created.match_id)
    people = match.table(1)
    spectator = await Client.connect(created.spectator, name="spectator")
    try:
        # The robots play board 1 out at once (this test's robots do not wait)...
        def robots_done_with(number: int) -> bool:
            board = runtime.state.tables[2].current
            return board is not None and board.spec.number == number and board.is_finished

        await spectator.wait_for(lambda v: robots_done_with(1) or None)
        # ...and stop there: the start of their board 2 would have been logged with the end
        # of board 1, in the same append, had it been due.
        assert runtime.state.tables[2].current.spec.number == 1  # type: ignore[union-attr]
        assert runtime.state.next_board(2) is None
        assert runtime.state.awaits_people(2, 1, 2)
        # The people play on at board 1; the robots still wait.
        await bid(people, 1, ["1NT", "P", "P", "P"])
        await play_cards(people, 1, count=5)
        view = await spectator.wait_for(lambda v: v if isinstance(v, WatchView) else None)
        assert started(view, 2) == [1], view.tables
        assert runtime.state.tables[2].current.spec.number == 1  # type: ignore[union-attr]

        # Table 1 starts board 2: table 2 starts it in the same breath, not before.
        await play_cards(people, 1)
        await spectator.wait_for(
            lambda v: (isinstance(v, WatchView) and started(v, 1) == [2]) or None
        )
        starts = [
            (table, board.spec.number)
            for table, tables in runtime.state.tables.items()
            for board in tables.boards
        ]
        assert sorted(starts) == [(1, 1), (1, 2), (2, 1), (2, 2)]
        await spectator.wait_for(lambda v: robots_done_with(2) or None)
        assert runtime.state.next_board(2) is None  # board 3 waits for table 1 again
    finally:
        await spectator.close()
        await match.close()


async def test_a_match_of_robots_only_plays_through_at_once(server: Server) -> None:
    created = await create(server, boards=2, robots=["t1", "t2"], spectators="live")
    runtime = await server.runtime(created.match_id)
    assert not runtime.config.has_people()
    assert not runtime.state.awaits_people(2, 1, 2)

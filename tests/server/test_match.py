"""A whole teams match: eight clients over real WebSockets, a real server, a real Redis."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bridge import Deal
from clients.client import Client
from protocol.messages import BoardCompared, MatchFinished, Update
from server.app import Server
from tests.server.harness import (
    Match,
    assert_changes_rebuild_every_view,
    assert_live_views_current,
    audit_player_frame,
    audit_watch_frame,
    bid,
    board_view,
    create,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)

# Each seat holds one whole suit, so every line of play takes the same tricks: the test
# needs no card-by-card script, and the results below follow from the auctions alone.
RIGID = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
DEALS_PBN = "\n".join(
    f'[Event "rigid"]\n[Board "{n}"]\n[Dealer "{"NESW"[(n - 1) % 4]}"]\n'
    f'[Vulnerable "{["None", "NS", "EW", "All"][n - 1]}"]\n[Deal "{RIGID}"]\n'
    for n in (1, 2, 3, 4)
)

# Per board: table 1's calls, table 2's calls, and the expected comparison.
# Board 1 (none vul): passed out (0) v 1NT by N, alerted, down 7 (-350): A +350 = +8.
# Board 2 (N-S vul): 1NT by S doubled, down 7 (-2000) v 7D by S made (+2140): A -24.
# Board 3 (E-W vul): 6D by S redoubled +1 (+1580) v 6D +1 (+940): A +640 = +12.
# Board 4 (both vul): 4S by N, claimed after trick 1: 13 tricks (+710) v 7S (+2210): A -17.
AUCTIONS: dict[int, tuple[list[str | tuple[str, str]], list[str | tuple[str, str]]]] = {
    1: (["P", "P", "P", "P"], [("1NT", "15-17 balanced"), "P", "P", "P"]),
    2: (["P", "1NT", "X", "P", "P", "P"], ["P", "7D", "P", "P", "P"]),
    3: (["6D", "X", "XX", "P", "P", "P"], ["6D", "P", "P", "P"]),
    4: (["P", "4S", "P", "P", "P"], ["P", "7S", "P", "P", "P"]),
}
EXPECTED = {  # board: (table 1 N-S score, table 2 N-S score, swing for team A)
    1: (0, -350, 8),
    2: (-2000, 2140, -24),
    3: (1580, 940, 12),
    4: (710, 2210, -17),
}


class Marks:
    """How many messages each client had received right before a board's last action at
    the second table to finish it: none of those may carry that board's comparison."""

    def __init__(self, clients: list[Client]) -> None:
        self.clients = clients
        self.before: dict[int, dict[int, int]] = {}

    def at(self, board: int) -> Callable[[], None]:
        def mark() -> None:
            self.before[board] = {id(c): len(c.received) for c in self.clients}

        return mark


async def finish_board(
    match: Match, table: int, board: int, mark: Callable[[], None] | None
) -> None:
    players = match.table(table)
    calls = AUCTIONS[board][table - 1]
    contracted = any(c not in ("P",) for c in calls)
    await bid(players, board, calls, before_last=None if contracted else mark)
    if not contracted:
        return
    if board == 4 and table == 1:
        # Declarer claims the rest after the first trick; both defenders accept.
        await play_cards(players, board, count=4)
        view = await board_view(players["N"], board)
        assert view.declarer == "N"
        ack = await players["N"].claim(12)
        await settle(players, ack.seq)
        claimed = await board_view(players["E"], board)
        assert claimed.phase == "claim"
        assert claimed.claim is not None
        assert sorted(claimed.claim.cards or []) == sorted(claimed.hands["N"])
        assert "N" not in (await board_view(players["S"], board)).hands or claimed.dummy == "S"
        ack = await players["E"].answer_claim(True)
        await settle(players, ack.seq)
        assert (await board_view(players["N"], board)).phase == "claim"  # one is not enough
        if mark is not None:
            mark()
        ack = await players["W"].answer_claim(True)
        await settle(players, ack.seq)
        return
    await play_cards(players, board, before_last=mark)


@pytest.mark.asyncio
async def test_four_board_match_swings_totals_and_hidden_results(server: Server) -> None:
    created = await create(
        server, boards=4, team_a="Lions", team_b="Tigers", deals_pbn=DEALS_PBN, spectators="delayed"
    )
    match = await seat_everyone(server, created)
    assert created.spectator is not None
    spectator = await Client.connect(created.spectator, name="spectator")
    director = await Client.connect(created.director, name="director")
    marks = Marks([*match.players.values(), spectator])

    # The tables play at their own pace; the second to finish each board is marked.
    order = [(1, 1), (2, 1), (2, 2), (1, 2), (1, 3), (2, 3), (2, 4), (1, 4)]
    finished_first: set[int] = set()
    for table, board in order:
        second = board in finished_first
        await finish_board(match, table, board, marks.at(board) if second else None)
        if not second:
            finished_first.add(board)
            # One table has finished: nobody has this board's comparison or the other result.
            for client in match.players.values():
                assert client.view is not None
                assert board not in [c.board for c in client.view.match.comparisons]

    # Everyone ends with the same, right, comparisons and the final result.
    for client in [*match.players.values(), spectator, director]:
        view = await client.wait_for(lambda v: v if v.match.finished else None)
        summary = view.match
        assert [(c.table1.ns_score, c.table2.ns_score, c.swing) for c in summary.comparisons] == [
            EXPECTED[b] for b in (1, 2, 3, 4)
        ]
        assert [c.running_total for c in summary.comparisons] == [8, -16, -4, -21]
        assert (summary.imps_a, summary.imps_b, summary.winner) == (20, 41, "B")

    deal = Deal.from_pbn(RIGID)
    deals = dict.fromkeys((1, 2, 3, 4), deal)
    finished_at_both: set[int] = set()
    for (table, seat), client in match.players.items():
        updates = player_updates(client)
        assert [u.seq for u in updates] == list(range(updates[0].seq, updates[-1].seq + 1))
        compared = [e for u in updates for e in u.events if isinstance(e, BoardCompared)]
        assert [e.comparison.board for e in compared] == [1, 2, 3, 4]
        assert sum(isinstance(e, MatchFinished) for u in updates for e in u.events) == 1
        for update in updates:
            audit_player_frame(update, table, seat, deals)
        for board, before in marks.before.items():
            for message in client.received[: before[id(client)]]:
                if isinstance(message, Update):
                    assert board not in [c.board for c in message.view.match.comparisons]
    # The delayed spectator saw each board only once both tables had finished it.
    for message in spectator.received:
        if isinstance(message, Update):
            for event in message.events:
                if isinstance(event, BoardCompared):
                    finished_at_both.add(event.comparison.board)
            audit_watch_frame(message, finished_at_both)
    assert finished_at_both == {1, 2, 3, 4}
    # Every update carried only what changed, and rebuilt each view exactly.
    await assert_live_views_current([*match.players.values(), spectator, director])
    assert await assert_changes_rebuild_every_view(server, created.match_id) > 11 * 40
    await match.close()
    await spectator.close()
    await director.close()

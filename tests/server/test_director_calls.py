"""A call for the director has a life: open, seen, answered, closed. The director sees it,
answers it in the table's chat and closes it; a ruling, an assigned result or an adjusted
score on its board closes it too, and then it leaves every view."""

from __future__ import annotations

import pytest

from bridge import Deal
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import DirectorCallView, PlayerView, View, WatchView
from server.app import Server
from tests.server.harness import (
    STRONG_NORTH,
    audit_match,
    audit_watch_frame,
    bid,
    create,
    player_updates,
    seat_everyone,
    settle,
)
from tests.server.test_director import boards, play_board

pytestmark = pytest.mark.asyncio


def states(view: View) -> list[tuple[int, str, int | None, str]]:
    """Every call of the view not closed: those not answered yet, then those answered."""
    calls: list[DirectorCallView] = view.director_calls + view.answered_calls
    return [(c.table, c.seat, c.board, c.state) for c in calls]


async def test_a_call_is_seen_answered_and_closed(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=boards(2))
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    spectator = await Client.connect(created.spectator)
    table = match.table(1)
    await bid(table, 1, ["1NT", "P"])
    await settle(table, (await table["E"].call_director("a hesitation")).seq)
    for client in table.values():
        view = await client.wait_for(lambda v: v if v.director_calls else None)
        assert states(view) == [(1, "E", 1, "open")]
    # The players may not act for the director.
    for refused in (table["N"].see_calls(1), table["E"].close_calls(1)):
        with pytest.raises(ClientError) as error:
            await refused
        assert error.value.code == ErrorCode.FORBIDDEN
    await director.see_calls(1)
    seen = await table["N"].wait_for(lambda v: v if states(v) == [(1, "E", 1, "seen")] else None)
    assert isinstance(seen, PlayerView)
    assert any(
        e.type == "director_calls_seen" and e.table == 1
        for u in player_updates(table["N"])
        for e in u.events
    )
    with pytest.raises(ClientError) as again:  # nothing open is left to see
        await director.see_calls(1)
    assert again.value.code == ErrorCode.WRONG_PHASE
    # The director's line to the table answers the call: it leaves the calls waiting for
    # the director (as it always did) for those answered, where it stays until closed.
    await director.chat("Play on; call me again at the end of the hand", table=1)
    answered = await table["W"].wait_for(
        lambda v: v if states(v) == [(1, "E", 1, "answered")] else None
    )
    assert answered.director_calls == []
    await director.close_calls(1)
    for client in table.values():
        await client.wait_for(lambda v: v if not states(v) else None)
    watched = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and not states(v) else None
    )
    assert isinstance(watched, WatchView)
    assert any(
        e.type == "director_calls_closed" and e.table == 1
        for u in player_updates(table["S"])
        for e in u.events
    )
    with pytest.raises(ClientError) as nothing:
        await director.close_calls(1)
    assert nothing.value.code == ErrorCode.WRONG_PHASE
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await spectator.ping()  # a live spectator is told of the calls, never shown them
    for update in player_updates(spectator):
        audit_watch_frame(update, set())
    await match.close()
    await director.close()
    await spectator.close()


async def test_a_decision_on_its_board_closes_the_call(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=boards(2))
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    one, two = match.table(1), match.table(2)
    # Table 1 calls on board 1 and plays it out; table 2 calls on board 1 too.
    await bid(one, 1, ["1NT"])
    await one["W"].call_director("an insufficient bid?")
    await bid(two, 1, ["2C"])
    await settle(two, (await two["N"].call_director("a revoke")).seq)
    # An assigned result on table 1's board 1 closes table 1's call, not table 2's.
    await director.assign_result(1, 1, "3NT", "N", 9)
    await one["N"].wait_for(lambda v: v if v.results and not states(v) else None)
    watched = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and len(states(v)) == 1 else None
    )
    assert states(watched) == [(2, "N", 1, "open")]
    # An adjusted score (here: the board voided) closes every table's calls on it.
    await director.void_board(1)
    await two["E"].wait_for(lambda v: v if not states(v) else None)
    await director.wait_for(lambda v: v if isinstance(v, WatchView) and not states(v) else None)
    # A call on board 2 stays when the director rules on another table's board 2.
    await play_board(match, 1, 2, ["P", "P", "P", "P"])
    await bid(two, 2, ["1S", "P", "P", "P"])
    await settle(one, (await one["S"].call_director("about board 2")).seq)
    await director.rule(2, 7)
    ruled = await two["N"].wait_for(lambda v: v if v.results and v.results[-1].board == 2 else None)
    assert (ruled.results[-1].ruled, ruled.results[-1].assigned) == (True, False)
    # The comparison says which play a ruling ended.
    compared = await two["N"].wait_for(
        lambda v: next((c for c in v.match.comparisons if c.board == 2), None)
    )
    assert [(r.table, r.ruled) for r in compared.results] == [(1, False), (2, True)]
    assert compared.table2 is not None
    assert compared.table2.ruled
    await one["S"].ping()
    view = one["S"].view
    assert view is not None
    assert states(view) == [(1, "S", 2, "open")]
    await match.close()
    await director.close()

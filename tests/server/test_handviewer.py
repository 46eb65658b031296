"""The hand-viewer link of a finished board (server.handviewer): what BBO's viewer shows is
what the table did and the result it has, whatever the director assigned."""

from __future__ import annotations

import pytest

from bridge import Deal
from bridge.lin import LinComment, parse_handviewer_url
from clients.client import Client
from server.app import Server
from tests.server.harness import (
    STRONG_NORTH,
    Match,
    audit_match,
    bid,
    create,
    one_board,
    play_cards,
    seat_everyone,
)

ASSIGNED_3NT = "Result assigned by the director: 3NT by North, 7 tricks"
ASSIGNED_1C = "Result assigned by the director: 1C by East, 7 tricks"


async def assign_what_the_play_forbade(server: Server) -> tuple[Match, Client]:
    """Board 1 (North holds every top card) at both tables, each given a result by the
    director that its play no longer allowed. Table 1: 3NT by North, who has won 8 tricks,
    is assigned 7 tricks. Table 2: 1C by East, who has won none of the 8 tricks played (5
    are left), is assigned 7. The match and its director."""
    created = await create(server, boards=1, deals_pbn=one_board())
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    first, second = match.table(1), match.table(2)
    await bid(first, 1, ["3NT", "P", "P", "P"])
    await play_cards(first, 1, count=34)  # eight tricks, and two cards of the ninth
    await bid(second, 1, ["P", "1C", "P", "P", "P"])
    await play_cards(second, 1, count=32)
    await director.assign_result(1, 1, "3NT", "N", 7)
    await director.assign_result(2, 1, "1C", "E", 7)
    compared = await match.players[(1, "N")].wait_for(lambda v: v.match.comparisons or None)
    assert compared[0].table1 is not None
    assert compared[0].table1.assigned
    return match, director


@pytest.mark.asyncio
async def test_an_assigned_result_the_play_no_longer_allowed_has_its_link(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """Each link shows the play as far as the last trick after which the assigned total
    was still possible, then a claim (mc) of it, and says in a comment that the director
    assigned the result. (The link could not be made: the view went without it, and the
    server logged a traceback each time it made the view.)"""
    match, director = await assign_what_the_play_forbade(server)
    record = await director.board(1)
    links = [board.handviewer for board in record.tables]
    assert None not in links, "no hand-viewer link"
    seven_tricks, six_tricks = (parse_handviewer_url(link or "") for link in links)
    played = [[c.card for trick in board.tricks for c in trick.cards] for board in record.tables]
    # Declarer won the first seven tricks: the play stops after them, the claim is of none.
    assert (seven_tricks.claim, seven_tricks.result, len(seven_tricks.cards)) == (7, 7, 28)
    assert [str(card) for card in seven_tricks.cards] == played[0][:28]
    assert seven_tricks.commentary == (LinComment(4 + 28 + 1, ASSIGNED_3NT),)
    # After six tricks East could still make seven of the seven left; not after the seventh.
    assert (six_tricks.claim, six_tricks.result, len(six_tricks.cards)) == (7, 7, 24)
    assert [str(card) for card in six_tricks.cards] == played[1][:24]
    assert six_tricks.commentary == (LinComment(5 + 24 + 1, ASSIGNED_1C),)
    assert not [r for r in caplog.records if "no hand-viewer link" in r.getMessage()]
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_a_result_assigned_after_the_last_trick_is_what_the_link_counts(
    server: Server,
) -> None:
    """Both tables play 3NT by North to the end (13 tricks). Table 1 is assigned 12 tricks:
    the link shows twelve tricks and the claim of 12. Table 2 is assigned 4S by North: LIN
    can only claim in the auction's contract, so its link shows the play as it went, with
    no claim, and its comment says the result."""
    created = await create(server, boards=1, deals_pbn=one_board())
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    for table in (1, 2):
        await bid(match.table(table), 1, ["3NT", "P", "P", "P"])
        await play_cards(match.table(table), 1)
    await director.assign_result(1, 1, "3NT", "N", 12)
    await director.assign_result(2, 1, "4S", "N", 10)
    await match.players[(1, "N")].wait_for(
        lambda v: v.match.comparisons and all(r.assigned for r in v.match.comparisons[0].results)
    )
    first, second = (
        parse_handviewer_url(b.handviewer or "") for b in (await director.board(1)).tables
    )
    assert (first.claim, first.result, len(first.cards)) == (12, 12, 48)
    assert first.commentary == (
        LinComment(4 + 48 + 1, "Result assigned by the director: 3NT by North, 12 tricks"),
    )
    assert (second.claim, second.result, len(second.cards)) == (None, 13, 52)
    assert second.commentary == (
        LinComment(4 + 52, "Result assigned by the director: 4S by North, 10 tricks"),
    )
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_a_result_assigned_as_it_was_played_says_so_in_the_link(server: Server) -> None:
    """The link is made once for what it is made of: a result the director assigns equal
    to the one played is a new link all the same, which says that it was assigned."""
    created = await create(server, boards=1, deals_pbn=one_board())
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    north = match.players[(1, "N")]
    await bid(match.table(1), 1, ["P", "P", "P", "P"])
    played = await north.wait_for(lambda v: v.results or None)
    assert not played[0].assigned
    await director.assign_result(1, 1, None, None, 0)  # passed out, as played
    view = await north.wait_for(lambda v: v if v.results and v.results[0].assigned else None)
    assert view.board is not None
    assert view.board.handviewer is not None
    linked = parse_handviewer_url(view.board.handviewer)
    assert [c.text for c in linked.commentary] == ["Result assigned by the director: passed out"]
    await match.close()
    await director.close()

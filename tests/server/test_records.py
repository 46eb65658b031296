"""The match record (server.records) as LIN: a match imported from a vugraph file gives
the file back, with what the file said and the match does not keep; a result the director
assigned is in it as the hand-viewer link shows it."""

from __future__ import annotations

import re

import pytest

from bridge.lin import LinComment, Room, parse_lin_match
from clients.client import Client
from server.app import Server
from server.records import lin_record
from tests.conftest import DATA_DIR
from tests.server.harness import bid, create, one_board, play_cards, seat_everyone, settle
from tests.server.test_director import play_board
from tests.server.test_handviewer import ASSIGNED_1C, ASSIGNED_3NT, assign_what_the_play_forbade
from tests.server.test_import import import_record

USBF = (DATA_DIR / "lin_2010_usbf_sf_nickell_fleisher_seg4.lin").read_text(encoding="utf-8")


def tags(text: str, key: str) -> list[str]:
    """Every value of tag ``key`` in a LIN text, in order."""
    return re.findall(rf"(?:^|\|){key}\|([^|]*)\|", text.replace("\n", ""))


@pytest.mark.asyncio
async def test_a_match_imported_from_a_vugraph_file_gives_the_file_back(server: Server) -> None:
    created = await import_record(server, USBF, format="lin")
    state = (await server.runtime(created.match_id)).state
    written = lin_record(state, parse_lin_match(USBF))
    # The vg header (event, segment, board range, carry-overs) and the rs results verbatim.
    assert written.splitlines()[:2] == USBF.splitlines()[:2]
    # Every comment, every explanation and no other ("alerted" is not one), every call as
    # alerted as the file has it, every card and claim.
    for key in ("nt", "an", "mb", "pc", "mc", "vg", "rs", "qx"):
        assert [t.lower() for t in tags(written, key)] == [t.lower() for t in tags(USBF, key)], key
    assert "alerted" not in written
    assert parse_lin_match(written) == parse_lin_match(USBF)
    # Without the file, the record says only what the match keeps.
    bare = parse_lin_match(lin_record(state))
    assert (bare.segment, bare.first_board, bare.carry_over) == ("", None, (0, 0))
    assert not any(board.commentary for board in bare.boards)
    closed = next(b for b in bare.boards if (b.number, b.room) == (46, Room.CLOSED))
    assert [(str(c), c.explanation) for c in closed.calls if c.alert][:2] == [
        ("2S!", "alerted"),
        ("2N!", "alerted"),
    ]


@pytest.mark.asyncio
async def test_a_result_changed_since_the_import_makes_the_results_afresh(server: Server) -> None:
    created = await import_record(server, USBF, format="lin")
    director = await Client.connect(created.director)
    await director.assign_result(1, 46, "4H", "E", 9)  # 4HE= in the file
    state = (await server.runtime(created.match_id)).state
    written = parse_lin_match(lin_record(state, parse_lin_match(USBF)))
    assert written.results[:2] == ("4HE-1", "4HE=")
    assert written.event == "2010 USBF SF A"
    assert written.boards[0].commentary[-1] == LinComment(
        len(written.boards[0].calls) + len(written.boards[0].cards) + 1,
        "Result assigned by the director: 4H by East, 9 tricks",
    )
    await director.close()


@pytest.mark.asyncio
async def test_the_record_holds_a_result_assigned_that_the_play_forbade(server: Server) -> None:
    """The record as LIN is made of the tables' hand-viewer lines: a result the director
    assigned below the tricks declarer had won (or above what was left) is in it, its play
    shown as far as the result allows, its claim the result."""
    match, director = await assign_what_the_play_forbade(server)
    record = parse_lin_match(await director.record("lin"))
    assert [(b.room, b.claim, len(b.cards)) for b in record.boards] == [
        (Room.OPEN, 7, 28),
        (Room.CLOSED, 7, 24),
    ]
    assert record.results == ("3NN-2", "1CE=")
    assert [b.commentary[-1].text for b in record.boards] == [ASSIGNED_3NT, ASSIGNED_1C]
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_a_ruling_after_a_disputed_claim_is_in_both_records(server: Server) -> None:
    """A result the director's ruling set says so in the PBN record and in the LIN one
    (and so in the hand-viewer link), with the claim the ruling settled and its statement."""
    created = await create(server, boards=1, deals_pbn=one_board())
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    one = match.table(1)
    await bid(one, 1, ["4S", "P", "P", "P"])  # N declares, E leads
    await play_cards(one, 1, count=4)
    await settle(one, (await one["N"].claim(12, "drawing trumps, then the rest are high")).seq)
    await settle(one, (await one["W"].answer_claim(False)).seq)
    await director.rule(1, 11)
    await play_board(match, 2, 1, ["P", "P", "P", "P"])
    await one["N"].wait_for(lambda v: v if v.match.comparisons else None)
    said = (
        "North claimed 12 of the 12 left, rejected: drawing trumps, then the rest are high; "
        "Tricks ruled by the director: 11 to declarer"
    )
    pbn = await director.record("pbn")
    assert pbn.count("[Director ") == 1  # the passed-out table has nothing to say
    assert f'[Director "{said}"]' in pbn
    (ruled, _passed) = parse_lin_match(await director.record("lin")).boards
    assert [c.text for c in ruled.commentary] == said.split("; ")
    assert ruled.claim == 11
    await match.close()
    await director.close()

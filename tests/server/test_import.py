"""Matches played elsewhere, imported from their records as finished matches: every call
and card acted through the match's own path, the swings the official ones, the record the
same play, and bad records refused whole."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path
from typing import Literal

import pytest
from redis.asyncio import Redis

from bridge import PASS, Deal, board_dealer, board_vulnerability
from bridge.commitment import verify_record
from bridge.lin import Room, parse_handviewer_url, parse_lin_match
from bridge.pbn import AnnotatedCall, PbnAuction, PbnGame, PbnTag, dump_games, parse_games
from bridge.records import PlayedMatch, match_from_pbn, pbn_matches
from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import ImportMatch, MatchCreated
from server.app import Server
from server.store import MATCHES_KEY
from tests.conftest import DATA_DIR, ORGANISER_KEY
from tests.server.harness import create

ROUND = parse_games((DATA_DIR / "pbn_2021_online_qual_open_r2_realbridge.pbn").read_text())


def teams_of(games: list[PbnGame]) -> str:
    return " - ".join(sorted({games[0].tag("HomeTeam") or "", games[0].tag("VisitTeam") or ""}))


GROUPS = {teams_of(games): games for games in pbn_matches(ROUND)}


def group(*teams: str) -> list[PbnGame]:
    return GROUPS[" - ".join(sorted(teams))]


async def import_record(
    server: Server, record: str, format: Literal["pbn", "lin"] = "pbn"
) -> MatchCreated:
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    try:
        return await organiser.import_match(record, format=format)
    finally:
        await organiser.close()


@pytest.mark.asyncio
async def test_an_imported_match_is_finished_with_the_official_swings(server: Server) -> None:
    games = group("AUSTRIA", "DENMARK")
    played = match_from_pbn(games)
    created = await import_record(server, dump_games(games))
    director = await Client.connect(created.director)
    view = director.view
    assert view is not None
    summary = view.match
    assert summary.finished
    assert (summary.team_a, summary.team_b) == ("AUSTRIA", "DENMARK")
    official = {g.board: g.score_imp for g in games if g.tag("HomeTeam") == played.team_a}
    assert [(c.board, c.swing) for c in summary.comparisons] == list(official.items())
    assert summary.imps_a - summary.imps_b == sum(played.swings())
    # Each table's play, as the match record gives it back, is the record's.
    record = parse_games(await director.record())
    assert len(record) == 20
    for game in record:
        room = 1 if game.tag("Room") == "Open" else 2
        home = played.team_a if room == 1 else played.team_b
        [original] = [g for g in games if g.board == game.board and g.tag("HomeTeam") == home]
        assert game.deal == original.deal
        assert (game.contract, game.declarer, game.result) == (
            original.contract,
            original.declarer,
            original.result,
        )
        assert [c.call for c in game.auction.calls] == [c.call for c in original.auction.calls]  # type: ignore[union-attr]
        if game.contract is not None:
            strain = game.contract.strain
            written = original.play.cards(strain) if original.play else ()
            assert game.play is not None
            assert game.play.cards(strain)[: len(written)] == written
        assert game.north == original.north
        assert game.score_imp == original.score_imp
    verify_record(await director.record(), expected=created.deals_commitment)
    await director.close()


@pytest.mark.asyncio
async def test_a_board_at_one_table_is_left_out(server: Server) -> None:
    games = group("TURKEY", "SWITZERLAND")
    created = await import_record(server, dump_games(games))
    assert created.spectator is not None
    spectator = await Client.connect(created.spectator)
    assert spectator.view is not None
    assert spectator.view.match.boards == list(range(11, 20))
    assert spectator.view.match.finished
    await spectator.close()


def passed_out_boards(count: int) -> str:
    """A match of ``count`` boards passed out at both tables."""
    rng = random.Random(count)
    games = []
    for number in range(1, count + 1):
        deal = Deal.random(rng)
        dealer = board_dealer(number)
        for room in ("Open", "Closed"):
            games.append(
                PbnGame(
                    board=number,
                    dealer=dealer,
                    vulnerability=board_vulnerability(number),
                    deal=deal,
                    passed_out=True,
                    auction=PbnAuction(dealer, (AnnotatedCall(PASS),) * 4),
                    other_tags=(
                        PbnTag("HomeTeam", "Reds"),
                        PbnTag("VisitTeam", "Blues"),
                        PbnTag("Room", room),
                    ),
                )
            )
    return dump_games(games)


@pytest.mark.parametrize(
    ("record", "says"),
    [
        (dump_games(group("AUSTRIA", "DENMARK") + group("SPAIN", "GREECE")), "2 matches"),
        (dump_games(group("WALES", "ITALY")), "WALES - ITALY, board 11, table 1: no auction"),
        ('[Board "1"]\n[Deal "N:AKQ"]\n', "Deal"),
        ("nothing like a record", "text before any tag"),
        ("% PBN 2.1\n", "holds no games"),
        ('[Board "1"]\n', "HomeTeam and VisitTeam"),
        (passed_out_boards(65), "Reds - Blues: 65 boards; a match holds at most 64"),
    ],
)
@pytest.mark.asyncio
async def test_a_bad_record_is_refused_and_nothing_is_stored(
    server: Server, redis: Redis, record: str, says: str
) -> None:
    before = await redis.scard(MATCHES_KEY)
    with pytest.raises(ClientError) as refused:
        await import_record(server, record)
    assert refused.value.code == ErrorCode.BAD_RECORD
    assert says in refused.value.message
    assert await redis.scard(MATCHES_KEY) == before


@pytest.mark.asyncio
async def test_only_the_organiser_imports(server: Server) -> None:
    created = await create(server, boards=1)
    link = next(seat.link for seat in created.seats if seat.link)
    player = await Client.connect(link)
    record = dump_games(group("AUSTRIA", "DENMARK"))
    with pytest.raises(ClientError) as refused:
        await player.request(lambda ref: ImportMatch(record=record, ref=ref))
    assert refused.value.code == ErrorCode.FORBIDDEN
    await player.close()


@pytest.mark.asyncio
async def test_the_command_imports_each_match_of_a_file(server: Server, tmp_path: Path) -> None:
    path = tmp_path / "round.pbn"
    games = group("SCOTLAND", "ENGLAND") + group("WALES", "ITALY") + group("POLAND", "UKRAINE")
    path.write_text(dump_games(games), encoding="utf-8")
    url = server.ws_url.replace("ws://", "http://")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "duplicate", "import-match", str(path), "--server", url,
        "--organiser-key", ORGANISER_KEY,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode()
    printed = out.decode()
    assert printed.count("Match ") == 2
    assert "SCOTLAND - ENGLAND" in printed
    assert "POLAND - UKRAINE" in printed
    assert "not imported: WALES - ITALY, board 11, table 1: no auction" in printed
    spectators = [line.split()[-1] for line in printed.splitlines() if "Spectators" in line]
    watcher = await Client.connect(spectators[0])
    assert watcher.view is not None
    assert watcher.view.match.finished
    assert isinstance(match_from_pbn(group("SCOTLAND", "ENGLAND")), PlayedMatch)
    await watcher.close()


USBF = (DATA_DIR / "lin_2010_usbf_sf_nickell_fleisher_seg4.lin").read_text(encoding="utf-8")
USBF_SWINGS = [0, 0, -7, 1, 0, 0, -12, 15, 1, -12, -5, 2, 6, 5, -5]
"""Nickell's IMPs on boards 46-60: 30 to Fleisher's 41, as the USBF Daily Bulletin (vol. 4
no. 10, 26 June 2010) gives the segment."""


@pytest.mark.asyncio
async def test_a_lin_match_file_imports_with_its_published_score(server: Server) -> None:
    created = await import_record(server, USBF, format="lin")
    assert created.spectator is not None
    spectator = await Client.connect(created.spectator)
    view = spectator.view
    assert view is not None
    summary = view.match
    assert summary.finished
    assert (summary.team_a, summary.team_b) == ("Nickell", "Fleisher")
    assert summary.boards == list(range(46, 61))
    assert [c.swing for c in summary.comparisons] == USBF_SWINGS
    assert (summary.imps_a, summary.imps_b) == (30, 41)
    # Each table as the file has it: its players, its result.
    match = parse_lin_match(USBF)
    results = {(b.number, b.room): b for b in match.boards}
    for comparison in summary.comparisons:
        for table, room in ((comparison.table1, Room.OPEN), (comparison.table2, Room.CLOSED)):
            assert table is not None
            original = results[comparison.board, room]
            assert table.tricks == (original.result or 0)
            assert table.ns_score == original.score
    board = await spectator.board(53)
    assert [b.table for b in board.tables] == [1, 2]
    assert board.tables[0].handviewer is not None
    opened = parse_handviewer_url(board.tables[0].handviewer)
    original = results[53, Room.OPEN]
    assert (opened.deal, opened.cards, opened.result) == (
        original.deal,
        original.cards,
        original.result,
    )
    # Alerted as the file has it: an explanation kept, an alert without one "alerted" (our
    # alerts carry a text), an explanation of a call not alerted made an alert.
    assert [(c.call, c.alert, c.explanation) for c in opened.calls] == [
        (c.call, c.alert or bool(c.explanation), c.explanation or ("alerted" if c.alert else ""))
        for c in original.calls
    ]
    await spectator.close()


@pytest.mark.asyncio
async def test_an_imported_lin_file_comes_back_as_its_lin_record(server: Server) -> None:
    # Its header (event, segment, board range, carry-over), its results, its commentary
    # and its alerts as the file had them: nothing lost, nothing made up.
    created = await import_record(server, USBF, format="lin")
    director = await Client.connect(created.director)
    written = await director.record("lin")
    await director.close()
    assert parse_lin_match(written) == parse_lin_match(USBF)
    lines = {
        line.split("|", 1)[0]: line for line in USBF.splitlines() if line[:3] in ("vg|", "rs|")
    }
    for tag, line in lines.items():
        assert line in written.splitlines(), tag
    assert "an|alerted|" not in written
    assert written.count("nt|") == USBF.count("nt|")


@pytest.mark.asyncio
async def test_every_match_of_the_round_imports_with_its_official_swings(
    server: Server, request: pytest.FixtureRequest
) -> None:
    """The whole 2021 round through the server (long mode: some 50 s): each of its 14
    played matches imported, every swing the official ScoreIMP. (The default run imports
    four of them here; tests/bridge/test_records.py checks all 139 boards' IMPs.)"""
    if not request.config.getoption("--long"):
        pytest.skip("the whole round is imported in the long mode (--long)")
    imported = 0
    for games in pbn_matches(ROUND):
        if set(teams_of(games).split(" - ")) == {"ITALY", "WALES"}:
            continue  # not played: placeholders
        played = match_from_pbn(games)
        created = await import_record(server, dump_games(games))
        watcher = await Client.connect(created.director)
        assert watcher.view is not None
        official = {g.board: g.score_imp for g in games if g.tag("HomeTeam") == played.team_a}
        got = {c.board: c.swing for c in watcher.view.match.comparisons}
        assert got == {board: official[board] for board in got}, played.name
        assert len(got) == len(played.boards)
        await watcher.close()
        imported += 1
    assert imported == 14

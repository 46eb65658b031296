"""Team matches read from their records (bridge.records): the 2021 round and the 1998
match, each board's two tables paired and replayed through the rules, against the
records' own scores and official IMPs; and records the rules refuse."""

from __future__ import annotations

import pytest

from bridge import Seat, imps
from bridge.lin import parse_lin_match
from bridge.pbn import PbnGame, dump_games, parse_games
from bridge.records import (
    PlayedMatch,
    RecordError,
    match_from_lin,
    match_from_pbn,
    matches_from_pbn,
    pbn_matches,
)
from tests.conftest import DATA_DIR

ROUND = parse_games((DATA_DIR / "pbn_2021_online_qual_open_r2_realbridge.pbn").read_text())
YOUTH = parse_games((DATA_DIR / "pbn_1998_euro_youth_teams_ger_aut_r1.pbn").read_text())


def played(found: list[PlayedMatch | RecordError]) -> list[PlayedMatch]:
    return [match for match in found if isinstance(match, PlayedMatch)]


def game_of(games: list[PbnGame], board: int, home: str) -> PbnGame:
    """The 2021 record of ``board`` where ``home`` is the home team (it sits N-S)."""
    [game] = [g for g in games if g.board == board and g.tag("HomeTeam") == home]
    return game


def test_the_round_holds_fourteen_played_matches_and_one_placeholder() -> None:
    found = matches_from_pbn(ROUND)
    assert len(found) == 15
    errors = [item for item in found if isinstance(item, RecordError)]
    assert len(errors) == 1
    assert "WALES - ITALY, board 11, table 1: no auction" in str(errors[0])
    matches = played(found)
    assert len(matches) == 14
    assert sum(len(match.boards) for match in matches) == 139
    [alone] = [match for match in matches if match.left_out]
    assert ({alone.team_a, alone.team_b}, alone.left_out) == ({"TURKEY", "SWITZERLAND"}, (20,))


def test_every_swing_of_the_round_is_the_official_one() -> None:
    for match in played(matches_from_pbn(ROUND)):
        for board, swing in zip(match.boards, match.swings(), strict=True):
            # Team A sits N-S at table 1: the home team of that table's record.
            open_game = game_of(ROUND, board.number, match.team_a)
            closed_game = game_of(ROUND, board.number, match.team_b)
            assert (open_game.score_imp, closed_game.score_imp) == (swing, -swing), (
                match.name,
                board.number,
            )
            vulnerability = board.vulnerability
            open_score = board.open.ns_score(board.deal, board.dealer, vulnerability)
            closed_score = board.closed.ns_score(board.deal, board.dealer, vulnerability)
            assert (open_score, closed_score) == (open_game.score, closed_game.score)
            assert board.open.names == (
                open_game.north,
                open_game.east,
                open_game.south,
                open_game.west,
            )


def test_the_youth_match_pairs_its_rooms() -> None:
    """1998: ``Room`` Open and Closed, the same HomeTeam in both (the home team sits E-W in
    the closed room), play written for the first tricks only, and ``#`` repeats."""
    [match] = played(matches_from_pbn(YOUTH))
    assert (match.team_a, match.team_b, len(match.boards)) == ("J-germany", "J-austria", 20)
    first = match.boards[0]
    assert first.open.names[Seat.NORTH] == "Linde J"
    assert first.closed.names[Seat.NORTH] == "Lindermann A"
    scores = {(g.board, g.tag("Room")): g.score for g in YOUTH}
    for board in match.boards:
        for room, table in (("Open", board.open), ("Closed", board.closed)):
            got = table.ns_score(board.deal, board.dealer, board.vulnerability)
            assert got == scores[board.number, room], (board.number, room)
    assert match.swings() == tuple(
        imps(scores[b.number, "Open"] - scores[b.number, "Closed"]) for b in match.boards
    )
    assert match.swings()[:3] == (-10, -12, 0)


def test_the_actions_of_a_table_end_with_declarers_claim() -> None:
    [match] = played(matches_from_pbn(YOUTH))
    board = match.boards[0]  # 5H by South, 10 tricks; three tricks written down
    actions = list(board.open.actions(board.deal, board.dealer))
    kinds = [kind for kind, *_ in actions]
    assert kinds == ["call"] * 8 + ["card"] * 12 + ["claim"]
    _kind, seat, tricks, _ = actions[-1]
    # The defence won the three tricks written down: declarer claims all ten left.
    assert (seat, tricks) == (Seat.SOUTH, 10)
    # Dummy's cards are played by declarer, as at our table.
    card_seats = {seat for kind, seat, *_ in actions if kind == "card"}
    assert Seat.NORTH not in card_seats


def test_a_record_of_several_matches_is_split_and_refused_whole() -> None:
    groups = pbn_matches(ROUND)
    assert len(groups) == 15
    assert sum(len(group) for group in groups) == len(ROUND)
    with pytest.raises(RecordError, match="15 matches"):
        match_from_pbn(ROUND)
    # One group written back and read again is the same match.
    group = groups[0]
    assert match_from_pbn(parse_games(dump_games(group))) == match_from_pbn(group)


def _retagged(games: list[PbnGame], board: int, **changes: object) -> list[PbnGame]:
    from dataclasses import replace

    first = next(i for i, g in enumerate(games) if g.board == board)
    games = list(games)
    games[first] = replace(games[first], **changes)  # type: ignore[arg-type]
    return games


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"result": 13}, "board 1, table 1: declarer took 13 tricks, but had 0 with 10"),
        ({"deal": None}, "board 1: the record lacks the deal"),
        ({"declarer": Seat.WEST}, "board 1, table 1: the auction ends in 5H by S"),
    ],
)
def test_a_table_the_rules_refuse_names_its_board(change: dict[str, object], says: str) -> None:
    [group] = pbn_matches(YOUTH)
    with pytest.raises(RecordError, match=says) as refused:
        match_from_pbn(_retagged(group, 1, **change))
    assert str(refused.value).startswith("J-germany - J-austria, board 1")


def test_two_tables_with_different_deals_are_refused() -> None:
    [group] = pbn_matches(YOUTH)
    other = next(g for g in group if g.board == 2)
    with pytest.raises(RecordError, match="board 1: the two tables' deals differ"):
        match_from_pbn(_retagged(group, 1, deal=other.deal))


def test_an_alert_without_explanation_is_not_given_one() -> None:
    """The USBF file alerts 2S and 2N of board 46's closed room with no ``an``, explains
    4H, and explains 3D of board 48's closed room without alerting it: the record keeps
    which is which (``""`` is an alert it does not explain; the server's import words it)."""
    usbf = parse_lin_match((DATA_DIR / "lin_2010_usbf_sf_nickell_fleisher_seg4.lin").read_text())
    match = match_from_lin(usbf)
    first, third = match.boards[0].closed, match.boards[2].closed
    assert [(str(call), alert) for call, alert in first.calls] == [
        ("1H", None),
        ("P", None),
        ("2S", ""),
        ("P", None),
        ("2NT", ""),
        ("P", None),
        ("3H", None),
        ("P", None),
        ("4H", "no slam interest"),
        ("P", None),
        ("P", None),
        ("P", None),
    ]
    assert ("3D", "with values") in [(str(call), alert) for call, alert in third.calls]
    # So in PBN: "!" with no note is an alert without explanation.
    game = (
        '[Board "1"][Room "{}"][HomeTeam "A"][VisitTeam "B"][Dealer "N"][Vulnerable "None"]\n'
        '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
        '[Declarer "N"][Contract "2C"][Result "8"]\n'
        '[Auction "N"]\n1C! 1D =1= 2C Pass\nPass Pass\n[Note "1:overcall"]\n'
    )
    [board] = match_from_pbn(parse_games(game.format("Open") + "\n" + game.format("Closed"))).boards
    assert [alert for _, alert in board.open.calls] == ["", "overcall", None, None, None, None]

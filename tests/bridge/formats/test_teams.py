"""The teams match of RULES.md 6.1: swings for team A, running totals, the winner."""

from __future__ import annotations

import pytest

from bridge import BridgeError, Contract, Seat, Vulnerability
from bridge.formats import TableResult, TeamsMatch


def made(board: int, contract: str, declarer: str, tricks: int) -> TableResult:
    return TableResult.played(board, Contract.parse(contract), Seat.parse(declarer), tricks)


class TestTableResult:
    def test_score_uses_the_board_vulnerability(self) -> None:
        # Board 2: N-S vulnerable, so 4H doubled down two by North is -500.
        result = made(2, "4HX", "N", 8)
        assert result.vulnerability is Vulnerability.NS
        assert result.ns_score == -500

    def test_east_west_declarer_scores_negative_for_north_south(self) -> None:
        assert made(1, "3S", "E", 10).ns_score == -170

    def test_passed_out_scores_zero(self) -> None:
        result = TableResult.passed_out(3)
        assert result.ns_score == 0
        assert str(result) == "passed out"

    def test_text(self) -> None:
        assert str(made(1, "4S", "N", 10)) == "4S N ="
        assert str(made(1, "3NT", "W", 7)) == "3NT W -2"
        assert str(made(1, "6HXX", "S", 13)) == "6HXX S +1"


class TestTeamsMatch:
    def test_swing_is_table_one_minus_table_two_for_team_a(self) -> None:
        match = TeamsMatch.of(4)
        # Board 1 (none vulnerable): table 1 N-S (team A) make 4S = +420; at table 2 team A
        # sits E-W and team B's N-S make only 3S+1 = +170: A gains 250 = 6 IMPs.
        match = match.record(1, 1, made(1, "4S", "N", 10))
        assert match.comparison(1) is None  # only one table has finished
        match = match.record(1, 2, made(1, "3S", "N", 10))
        comparison = match.comparison(1)
        assert comparison is not None
        assert (comparison.difference, comparison.swing) == (250, 6)
        assert (match.total, match.imps_a, match.imps_b) == (6, 6, 0)

    def test_full_match_totals_and_winner(self) -> None:
        match = TeamsMatch.of(4, "Lions", "Tigers")
        results = {
            (1, 1): made(1, "4S", "N", 10),  # +420
            (1, 2): made(1, "4S", "N", 9),  # -50: A +470 = 10
            (2, 1): TableResult.passed_out(2),  # 0
            (2, 2): made(2, "4HX", "N", 8),  # -500: A +500 = 11
            (3, 1): made(3, "3NT", "E", 9),  # E-W vulnerable: -600
            (3, 2): made(3, "4S", "E", 11),  # -650: A +50 = 2
            (4, 1): made(4, "6H", "S", 12),  # vulnerable: +1430
            (4, 2): made(4, "7NT", "S", 13),  # +2220: A -790 = -13
        }
        for (board, table), result in results.items():
            assert match.winner is None
            match = match.record(board, table, result)
        assert [c.swing for c in match.comparisons] == [10, 11, 2, -13]
        assert match.running_totals() == [(1, 10), (2, 21), (3, 23), (4, 10)]
        assert (match.imps_a, match.imps_b, match.total) == (23, 13, 10)
        assert match.is_complete
        assert match.winner == "A"

    def test_team_b_wins_and_draws(self) -> None:
        loss = TeamsMatch.of(1).record(1, 1, made(1, "1NT", "N", 6))
        loss = loss.record(1, 2, made(1, "1NT", "N", 7))
        assert (loss.total, loss.winner) == (-4, "B")  # -50 against +90
        draw = TeamsMatch.of(1).record(1, 1, TableResult.passed_out(1))
        draw = draw.record(1, 2, TableResult.passed_out(1))
        assert (draw.total, draw.winner) == (0, "draw")

    def test_recording_is_a_new_value(self) -> None:
        empty = TeamsMatch.of(2)
        one = empty.record(1, 1, made(1, "4S", "N", 10))
        assert empty.results == {}
        assert set(one.results) == {(1, 1)}

    @pytest.mark.parametrize(
        ("board", "table"), [(5, 1), (0, 1), (1, 3), (1, 0)], ids=["board", "zero", "table", "t0"]
    )
    def test_bad_board_or_table_raises(self, board: int, table: int) -> None:
        with pytest.raises(BridgeError):
            TeamsMatch.of(4).record(board, table, TableResult.passed_out(1))

    def test_a_table_result_is_recorded_once(self) -> None:
        match = TeamsMatch.of(1).record(1, 1, TableResult.passed_out(1))
        with pytest.raises(BridgeError, match="already"):
            match.record(1, 1, made(1, "4S", "N", 10))

    def test_board_numbers_need_not_start_at_one(self) -> None:
        match = TeamsMatch((11, 12))
        match = match.record(12, 1, made(12, "3NT", "N", 9)).record(12, 2, made(12, "3NT", "N", 9))
        assert [c.board for c in match.comparisons] == [12]
        assert not match.is_complete

    @pytest.mark.parametrize("boards", [(), (1, 1), (0,)])
    def test_invalid_board_lists(self, boards: tuple[int, ...]) -> None:
        with pytest.raises(BridgeError):
            TeamsMatch(boards)

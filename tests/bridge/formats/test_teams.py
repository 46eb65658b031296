"""The teams match of RULES.md 6.1: swings for team A, running totals, the winner."""

from __future__ import annotations

from typing import Any

import pytest

from bridge import BridgeError, Contract, Seat, Vulnerability
from bridge.formats import BoardComparison, TableResult, TeamsMatch


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


class TestDirectorsAdjustments:
    """Assigned results, artificial adjusted scores and voided boards (Laws 12 and 86)."""

    def test_assign_a_missing_result(self) -> None:
        match = TeamsMatch.of(1).record(1, 1, made(1, "4S", "N", 10))  # +420
        match = match.assign(1, 2, made(1, "4S", "N", 9))  # -50: A +470 = 10
        comparison = match.comparison(1)
        assert comparison is not None
        assert (comparison.difference, comparison.swing) == (470, 10)
        assert comparison.assigned == frozenset({2})
        assert match.assigned == frozenset({(1, 2)})
        assert (match.winner, match.total) == ("A", 10)

    def test_assign_replaces_a_recorded_result(self) -> None:
        match = TeamsMatch.of(1).record(1, 1, made(1, "4S", "N", 10))
        match = match.record(1, 2, made(1, "4S", "N", 10))
        assert match.total == 0
        match = match.assign(1, 1, made(1, "4S", "N", 9))  # -50 instead of +420
        assert match.results[(1, 1)].ns_score == -50
        comparison = match.comparison(1)
        assert comparison is not None
        assert (comparison.difference, comparison.swing, comparison.assigned) == (
            -470,
            -10,
            frozenset({1}),
        )
        assert (match.imps_a, match.imps_b, match.winner) == (0, 10, "B")
        again = match.assign(1, 1, made(1, "4S", "N", 11))
        assert again.results[(1, 1)].ns_score == 450
        assert again.assigned == frozenset({(1, 1)})

    def test_record_still_refuses_a_second_result(self) -> None:
        match = TeamsMatch.of(1).assign(1, 1, TableResult.passed_out(1))
        with pytest.raises(BridgeError, match="already"):
            match.record(1, 1, made(1, "4S", "N", 10))

    @pytest.mark.parametrize(("board", "table"), [(5, 1), (0, 1), (1, 3), (1, 0)])
    def test_assign_checks_board_and_table(self, board: int, table: int) -> None:
        with pytest.raises(BridgeError):
            TeamsMatch.of(4).assign(board, table, TableResult.passed_out(1))

    @pytest.mark.parametrize("imps_a", [3, -3, 0, 24, -24])
    def test_artificial_score_without_results(self, imps_a: int) -> None:
        match = TeamsMatch.of(1).adjust(1, imps_a)
        comparison = match.comparison(1)
        assert comparison is not None
        assert (comparison.table1, comparison.table2) == (None, None)
        assert comparison.difference is None
        assert comparison.artificial == imps_a
        assert not comparison.void
        assert comparison.swing == imps_a
        assert (match.imps_a, match.imps_b) == (max(imps_a, 0), max(-imps_a, 0))
        assert match.is_complete
        assert match.winner == ("A" if imps_a > 0 else "B" if imps_a < 0 else "draw")

    def test_artificial_score_keeps_the_results_for_the_record(self) -> None:
        match = TeamsMatch.of(1).record(1, 1, made(1, "4S", "N", 10))
        match = match.adjust(1, -3)
        comparison = match.comparison(1)
        assert comparison is not None
        assert comparison.table1 == made(1, "4S", "N", 10)
        assert comparison.table2 is None
        assert comparison.swing == -3
        both = match.record(1, 2, made(1, "3S", "N", 10))  # +6 by the cards, but adjusted
        comparison = both.comparison(1)
        assert comparison is not None
        assert (comparison.difference, comparison.swing) == (250, -3)

    def test_adjust_replaces_an_earlier_adjustment(self) -> None:
        match = TeamsMatch.of(1).adjust(1, 3).adjust(1, -2)
        assert match.total == -2
        assert match.artificial_scores == {1: -2}
        unvoided = match.void(1).adjust(1, 5)
        assert unvoided.voided == frozenset()
        comparison = unvoided.comparison(1)
        assert comparison is not None
        assert (comparison.void, comparison.artificial, comparison.swing) == (False, 5, 5)

    @pytest.mark.parametrize("imps_a", [25, -25, 100, True, 1.5, "3"])
    def test_artificial_score_range(self, imps_a: object) -> None:
        match = TeamsMatch.of(1)
        with pytest.raises(BridgeError):
            match.adjust(1, imps_a)  # type: ignore[arg-type]
        assert match.artificial_scores == {}

    @pytest.mark.parametrize("board", [0, 5])
    def test_adjustment_of_a_board_not_in_the_match(self, board: int) -> None:
        match = TeamsMatch.of(4)
        with pytest.raises(BridgeError, match="not in this match"):
            match.adjust(board, 3)
        with pytest.raises(BridgeError, match="not in this match"):
            match.void(board)

    def test_void_board(self) -> None:
        match = TeamsMatch.of(2).record(1, 1, made(1, "4S", "N", 10))
        match = match.record(1, 2, made(1, "3S", "N", 10))  # A +6
        assert match.total == 6
        voided = match.void(1)
        comparison = voided.comparison(1)
        assert comparison is not None
        assert comparison.void
        assert comparison.swing == 0
        assert comparison.difference == 250  # kept for the record
        assert (voided.total, voided.imps_a, voided.imps_b) == (0, 0, 0)
        assert voided.voided == frozenset({1})

    def test_void_replaces_an_artificial_score(self) -> None:
        match = TeamsMatch.of(1).adjust(1, 3).void(1)
        assert match.artificial_scores == {}
        comparison = match.comparison(1)
        assert comparison is not None
        assert (comparison.void, comparison.artificial, comparison.swing) == (True, None, 0)

    def test_a_voided_board_counts_as_compared(self) -> None:
        match = TeamsMatch.of(2).record(2, 1, made(2, "4HX", "N", 8))  # -500
        match = match.record(2, 2, TableResult.passed_out(2))  # A -500 = -11
        assert not match.is_complete
        assert match.winner is None
        match = match.void(1)  # nothing recorded on board 1: voided all the same
        assert match.is_complete
        assert [c.board for c in match.comparisons] == [1, 2]
        assert match.running_totals() == [(1, 0), (2, -11)]
        assert match.winner == "B"

    def test_full_match_with_every_kind_of_adjustment(self) -> None:
        match = TeamsMatch.of(4, "Lions", "Tigers")
        match = match.record(1, 1, made(1, "4S", "N", 10))  # +420
        match = match.assign(1, 2, made(1, "4S", "N", 9))  # -50: A +470 = 10
        match = match.record(2, 1, made(2, "3NT", "N", 9))  # N-S vulnerable: +600
        match = match.adjust(2, -3)  # average-minus to A
        match = match.void(3)
        assert match.comparison(4) is None
        assert not match.is_complete
        match = match.record(4, 1, made(4, "6H", "S", 12))  # vulnerable: +1430
        match = match.record(4, 2, made(4, "7NT", "S", 13))  # +2220: A -790 = -13
        assert [c.swing for c in match.comparisons] == [10, -3, 0, -13]
        assert match.running_totals() == [(1, 10), (2, 7), (3, 7), (4, -6)]
        assert (match.imps_a, match.imps_b, match.total) == (10, 16, -6)
        assert match.is_complete
        assert match.winner == "B"

    def test_adjusting_is_a_new_value(self) -> None:
        match = TeamsMatch.of(2).record(1, 1, TableResult.passed_out(1))
        match.assign(1, 1, made(1, "4S", "N", 10))
        match.adjust(1, 3)
        match.void(2)
        assert match.assigned == frozenset()
        assert match.artificial_scores == {}
        assert match.voided == frozenset()
        assert match.results[(1, 1)] == TableResult.passed_out(1)

    @pytest.mark.parametrize(
        "fields",
        [
            {"artificial_scores": {5: 3}},
            {"artificial_scores": {1: 30}},
            {"voided": frozenset({5})},
            {"voided": frozenset({1}), "artificial_scores": {1: 3}},
            {"assigned": frozenset({(1, 1)})},  # assigned, but no result
        ],
    )
    def test_invalid_adjustments_in_a_new_match(self, fields: dict[str, Any]) -> None:
        with pytest.raises(BridgeError):
            TeamsMatch((1, 2), **fields)


class TestBoardComparison:
    def test_results_compared(self) -> None:
        comparison = BoardComparison(1, made(1, "4S", "N", 10), made(1, "3S", "N", 10))
        assert (comparison.difference, comparison.swing) == (250, 6)
        assert comparison.artificial is None
        assert not comparison.void
        assert comparison.assigned == frozenset()

    @pytest.mark.parametrize(
        ("table1", "table2", "artificial", "void", "expected"),
        [
            (None, None, None, True, (None, 0)),
            (None, None, 2, False, (None, 2)),
            ("4S N 10", None, -24, False, (None, -24)),
            ("4S N 10", "4S N 10", None, True, (0, 0)),
        ],
    )
    def test_adjusted(
        self,
        table1: str | None,
        table2: str | None,
        artificial: int | None,
        void: bool,
        expected: tuple[int | None, int],
    ) -> None:
        def result(text: str | None) -> TableResult | None:
            if text is None:
                return None
            contract, declarer, tricks = text.split()
            return made(1, contract, declarer, int(tricks))

        comparison = BoardComparison(1, result(table1), result(table2), artificial, void)
        assert (comparison.difference, comparison.swing) == expected

    @pytest.mark.parametrize(
        ("table2", "artificial", "void", "assigned"),
        [
            (None, None, False, frozenset()),  # a result missing and no adjustment
            (TableResult.passed_out(1), 25, False, frozenset()),
            (TableResult.passed_out(1), 3, True, frozenset()),  # both void and artificial
            (TableResult.passed_out(1), None, False, frozenset({3})),
        ],
    )
    def test_invalid(
        self,
        table2: TableResult | None,
        artificial: int | None,
        void: bool,
        assigned: frozenset[int],
    ) -> None:
        with pytest.raises(BridgeError):
            BoardComparison(1, TableResult.passed_out(1), table2, artificial, void, assigned)

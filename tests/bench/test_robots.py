"""A short run of the robots' benchmark (bench/robots.py): every section plays its boards
through the rules and prints its table; no strength or speed is asserted at this size."""

from __future__ import annotations

import pytest

from bench import robots
from bridge import Deal


def test_a_short_run_prints_every_section(capsys: pytest.CaptureFixture[str]) -> None:
    status = robots.main(
        ["--deals", "12", "--dd-deals", "1", "--teams-deals", "1", "--real-boards", "1"]
    )
    assert status in (0, 1)
    out = capsys.readouterr().out
    for title in (
        "seed level: the robot second table",
        "each level at all four seats against double dummy (1 deal)",
        "strong against seed, a teams match (1 deal)",
        "the robots against real tables (1 board): cross-IMPs for the side with more HCP, "
        "net of the robots' defence",
    ):
        assert title in out
    assert "declarer's tricks below double dummy" in out
    assert "IMPs per board to the strong team" in out
    assert "139 boards played at both tables (expected 139)" in out
    for row in (
        "IMPs per board, robots against real tables",
        "... deal by deal (1 deal, each board of a deal averaged)",
        "mean absolute cross-IMPs (no sign)",
        "same contract as a real table",
        "time per call (all sections so far)",
    ):
        assert row in out
    assert "real: PASS" in out or "real: MISS" in out
    assert ("all targets met" in out) == (status == 0)


def test_a_section_is_chosen_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    robots.main(["--only", "teams", "--teams-deals", "1"])
    out = capsys.readouterr().out
    assert "strong against seed" in out
    assert "robot second table" not in out
    assert "the robots against real tables" not in out
    with pytest.raises(SystemExit):
        robots.main(["--only", "dd,everything"])
    assert "no such section: everything" in capsys.readouterr().err


def test_the_interval_of_a_mean() -> None:
    mean, low, high = robots.mean_interval([1.0, 3.0])
    assert mean == 2.0
    assert low < mean < high
    assert robots.mean_interval([5.0]) == (5.0, 5.0, 5.0)


class TestTheRealSection:
    # North 0 HCP, East 37, South 0, West 3: the hand is East-West's.
    EAST_WEST_HAND = Deal.from_pbn(
        "N:432.5432.5432.32 AKQ.AKQ.AKQ.AKQJ T98.T98.T98.T987 J765.J76.J76.654"
    )
    # North 10, East 10, South 10, West 10: a tie goes to North-South.
    TIED = Deal.from_pbn("N:AJ32.Q32.K32.432 KQ4.J54.A54.T987 T98.AK76.Q76.J65 765.T98.JT98.AKQ")

    def test_the_side_with_more_points_holds_the_hand(self) -> None:
        assert robots.majority_side(self.EAST_WEST_HAND) == "EW"
        assert robots.majority_side(self.TIED) == "NS"

    def test_cross_imps_are_signed_for_the_side_with_more_points(self) -> None:
        # East-West bid 6NT at the robot table (-1440 to North-South), 6NT and 3NT at the
        # real ones: 0 and +13 IMPs to East-West, +6.5 a board.
        assert robots.cross_imps(self.EAST_WEST_HAND, -1440, [-1440, -680]) == 6.5
        # Only 3NT at the robot table: -13 and 0 to East-West.
        assert robots.cross_imps(self.EAST_WEST_HAND, -680, [-1440, -680]) == -6.5
        # On a tie North-South's IMPs are the measure: +430 against +170 and -50.
        assert robots.cross_imps(self.TIED, 430, [170, -50]) == (6 + 10) / 2

    def test_the_real_round_has_its_boards(self) -> None:
        boards = robots.real_boards()
        assert len(boards) == robots.REAL_ROUND_BOARDS == 139
        assert {board.number for board in boards} == set(range(11, 21))

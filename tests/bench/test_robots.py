"""A short run of the robots' benchmark (bench/robots.py): every section plays its boards
through the rules and prints its table; no strength or speed is asserted at this size."""

from __future__ import annotations

import pytest

from bench import robots


def test_a_short_run_prints_every_section(capsys: pytest.CaptureFixture[str]) -> None:
    status = robots.main(["--deals", "12", "--dd-deals", "1", "--teams-deals", "1"])
    assert status in (0, 1)
    out = capsys.readouterr().out
    for title in (
        "seed level: the robot second table",
        "each level at all four seats against double dummy (1 deal)",
        "strong against seed, a teams match (1 deal)",
    ):
        assert title in out
    assert "declarer's tricks below double dummy" in out
    assert "IMPs per board to the strong team" in out
    assert ("all targets met" in out) == (status == 0)


def test_a_section_is_chosen_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    robots.main(["--only", "teams", "--teams-deals", "1"])
    out = capsys.readouterr().out
    assert "strong against seed" in out
    assert "robot second table" not in out
    with pytest.raises(SystemExit):
        robots.main(["--only", "dd,everything"])
    assert "no such section: everything" in capsys.readouterr().err


def test_the_interval_of_a_mean() -> None:
    mean, low, high = robots.mean_interval([1.0, 3.0])
    assert mean == 2.0
    assert low < mean < high
    assert robots.mean_interval([5.0]) == (5.0, 5.0, 5.0)

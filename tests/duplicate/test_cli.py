"""The director's command line, run as a user runs it: a subprocess of the installed command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bridge import Deal, Seat, Suit, board_dealer
from duplicate.cli import seeded_deal


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "duplicate", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        (["score", "4SX", "N", "--vul", "NS", "--tricks", "8"], "-500"),
        (["score", "4S", "N", "--tricks", "10"], "420"),
        (["score", "3S", "E", "--vul", "None", "--tricks", "10"], "-170"),
        (["score", "6HXX", "S", "--vul", "All", "--tricks", "13"], "2470"),
        (["score", "Pass", "--vul", "All"], "0"),
        (["imps", "250"], "6"),
        (["imps", "-500"], "-11"),
        (["imps", "0"], "0"),
    ],
)
def test_score_and_imps(args: list[str], printed: str) -> None:
    result = run(*args)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (0, printed, "")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "4SX", "Q", "--tricks", "8"], "not a seat"),
        (["score", "8S", "N", "--tricks", "8"], "not a contract"),
        (["score", "4S", "N", "--tricks", "14"], "0 to 13"),
        (["score", "4S", "N"], "--tricks"),
        (["score", "4S", "--tricks", "9"], "declarer"),
        (["score", "4S", "N", "--vul", "Red", "--tricks", "9"], "not a vulnerability"),
        (["board", "0", "--seed", "1"], "board numbers start at 1"),
    ],
)
def test_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_board_prints_dealer_vulnerability_and_the_seeded_hands() -> None:
    result = run("board", "3", "--seed", "42", "--letters", "--pbn")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["Board", "3", "Dealer:", "South", "Vulnerable:", "E-W"]
    deal = seeded_deal(42, 3)
    assert lines[-1] == f'[Deal "{deal.to_pbn(Seat.SOUTH)}"]'

    def holding(seat: Seat) -> list[str]:
        return [
            f"{suit.letter} " + (" ".join(c.rank.letter for c in deal[seat].suit(suit)) or "-")
            for suit in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
        ]

    north = lines.index(next(line for line in lines if line.strip() == "North"))
    south = lines.index(next(line for line in lines if line.strip() == "South"))
    assert [line.strip() for line in lines[north + 1 : north + 5]] == holding(Seat.NORTH)
    assert [line.strip() for line in lines[south + 1 : south + 5]] == holding(Seat.SOUTH)
    west_east = [line.split("  ") for line in lines[north + 6 : north + 10]]
    pairs = [[part.strip() for part in row if part.strip()] for row in west_east]
    assert [row[0] for row in pairs] == holding(Seat.WEST)
    assert [row[1] for row in pairs] == holding(Seat.EAST)


def test_seeded_boards_are_reproducible_and_differ_between_boards() -> None:
    assert seeded_deal(42, 3) == seeded_deal(42, 3)
    assert seeded_deal(42, 3) != seeded_deal(42, 4)
    assert seeded_deal(42, 3) != seeded_deal(43, 3)
    assert isinstance(seeded_deal(1, 1), Deal)
    assert board_dealer(3) is Seat.SOUTH


def test_board_without_seed_deals_afresh() -> None:
    first, second = run("board", "1"), run("board", "1")
    assert first.returncode == second.returncode == 0
    assert first.stdout != second.stdout


def test_no_command_prints_help() -> None:
    result = run()
    assert result.returncode == 0
    for command in ("score", "imps", "board"):
        assert command in result.stdout

"""The director's command line, run as a user runs it: a subprocess of the installed command."""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from bridge import Deal, Seat, Suit, board_dealer, board_vulnerability
from bridge.commitment import DealSet, PublicForm, deal_set_lines, seed_commitment
from bridge.commitment import seeded_deal as drawn_deal
from bridge.pbn import PbnGame, dump_games
from duplicate.cli import seeded_deal
from duplicate.serving import CommandFailed, add_match_options, match_request


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


# -- verify: a match record against its commitments -----------------------------------------

SEED = "3c" * 32
DICE = PublicForm.parse("digits 5: five dice thrown by the director, read left to right")


def record_file(path: Path, deals: DealSet) -> Path:
    """A finished match's PBN record as the server writes it: its commitments, then its
    deal set, then one game for each board."""
    sealed = None if deals.seed is None else seed_commitment(deals.seed, deals.form)
    header = dump_games(())
    games = [
        PbnGame(board=n, dealer=d, vulnerability=v, deal=deal) for n, d, v, deal in deals.boards
    ]
    lines = deal_set_lines(deals.commitment(), deals, sealed)
    path.write_text(
        header + "".join(f"{line}\n" for line in lines) + dump_games(games)[len(header) :],
        encoding="utf-8",
    )
    return path


def sealed_deals(public: str, form: PublicForm | None = DICE) -> DealSet:
    value = public if form is None else form.canonical(public)
    boards = tuple(
        (n, board_dealer(n), board_vulnerability(n), drawn_deal(SEED, value, n)) for n in (1, 2)
    )
    return DealSet("ef" * 32, boards, SEED, value, form)


ONLY_ITSELF = "only self-consistency was checked"


def test_verify_without_the_commitment_says_only_self_consistency_was_checked(
    tmp_path: Path,
) -> None:
    deals = DealSet(
        "0a" * 32,
        tuple((n, board_dealer(n), board_vulnerability(n), drawn_deal(SEED, "x", n)) for n in (1,)),
    )
    path = record_file(tmp_path / "match.pbn", deals)
    alone = run("verify", str(path))
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.startswith("verified: the 1 boards committed to")
    assert ONLY_ITSELF in alone.stdout
    assert "--commitment" in alone.stdout.splitlines()[1]
    given = run("verify", str(path), "--commitment", deals.commitment())
    assert given.returncode == 0, given.stderr
    assert given.stdout.splitlines() == [alone.stdout.splitlines()[0]]  # nothing more to say


@pytest.mark.parametrize("spelling", ["6 2 5 1 3", "Dice: 6-2-5-1-3", "62513"])
def test_verify_checks_the_public_value_given(tmp_path: Path, spelling: str) -> None:
    deals = sealed_deals("dice 6 2 5 1 3")
    path = record_file(tmp_path / "match.pbn", deals)
    result = run(
        "verify", str(path), "--commitment", deals.commitment(),
        "--seed-commitment", seed_commitment(SEED, DICE), "--public-value", spelling,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"verified: the 2 boards committed to (sha256 {deals.commitment()}) are the boards of "
        f"the record's 2 games; every board is the one drawn from the seed committed to "
        f"(sha256 {seed_commitment(SEED, DICE)}) and the public value '62513' (its form, "
        f"sealed with the seed: {DICE.text()!r})"
    ]


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("6 2 5 1 4", "is not the one the boards were drawn with: '62513'"),
        ("6 2 5 1", "has 4 digits"),
    ],
)
def test_verify_refuses_another_public_value(tmp_path: Path, given: str, says: str) -> None:
    path = record_file(tmp_path / "match.pbn", sealed_deals("6 2 5 1 3"))
    result = run("verify", str(path), "--public-value", given)
    assert (result.returncode, result.stdout) == (2, "")
    assert says in result.stderr


def test_verify_says_what_of_a_sealed_match_it_took_from_the_record(tmp_path: Path) -> None:
    deals = sealed_deals("6 2 5 1 3")
    path = record_file(tmp_path / "match.pbn", deals)
    result = run("verify", str(path), "--commitment", deals.commitment())
    assert result.returncode == 0, result.stderr
    notes = result.stdout.splitlines()[1:]
    assert len(notes) == 2
    assert "(--seed-commitment)" in notes[0]
    assert "(--public-value)" in notes[1]
    assert ONLY_ITSELF not in result.stdout


def test_verify_warns_of_a_seed_sealed_without_a_form(tmp_path: Path) -> None:
    """A match stored before forms still verifies, with its public value as written; the
    check says the spelling could have been chosen."""
    deals = sealed_deals("dice 6 2 5 1 3", form=None)
    assert deals.text().startswith("duplicate deal set 1\n")
    path = record_file(tmp_path / "match.pbn", deals)
    sealed = hashlib.sha256(f"duplicate deal seed 1\n{SEED}\n".encode()).hexdigest()
    result = run(
        "verify", str(path), "--commitment", deals.commitment(),
        "--seed-commitment", sealed, "--public-value", "dice 6 2 5 1 3",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert "the public value 'dice 6 2 5 1 3'" in lines[0]
    assert lines[1].startswith("warning: the seed was sealed without a form")


@pytest.mark.parametrize(
    ("given", "asked"),
    [([], "director"), (["--disputed-claims", "play_on"], "play_on")],
)
def test_a_match_from_the_command_line_follows_law_68d_unless_told(
    given: list[str], asked: str
) -> None:
    # A claim a player disputes brings the director (law 68D), as a club expects; the
    # organiser may let the play go on instead.
    parser = argparse.ArgumentParser()
    add_match_options(parser)
    assert match_request(parser.parse_args(given)).disputed_claims == asked


@pytest.mark.parametrize(("given", "face_down"), [([], True), (["--face-up-lead"], False)])
def test_a_match_from_the_command_line_leads_face_down_unless_told(
    given: list[str], face_down: bool
) -> None:
    # Law 41A: the opening lead is made face down; the organiser may have it face up.
    parser = argparse.ArgumentParser()
    add_match_options(parser)
    assert match_request(parser.parse_args(given)).face_down_lead is face_down


def test_a_series_of_meetings_from_the_command_line() -> None:
    # Seed 002's series: four meetings of six new boards each, each later meeting begun by
    # the director; a number the protocol refuses is a clear error, before any server.
    parser = argparse.ArgumentParser()
    add_match_options(parser)
    given = ["--format", "replay", "--sessions", "4", "--boards", "6", "--stage-two", "director"]
    request = match_request(parser.parse_args(given))
    assert (request.format, request.sessions, request.boards, request.stage_two) == (
        "replay",
        4,
        6,
        "director",
    )
    assert match_request(parser.parse_args(["--format", "replay"])).sessions is None
    with pytest.raises(
        CommandFailed, match="bad --sessions: Input should be less than or equal to 12"
    ):
        match_request(parser.parse_args(["--format", "replay", "--sessions", "13"]))

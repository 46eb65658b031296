"""The commitment to a match's deals: its canonical text, its hash, and the check of a
record against it."""

from __future__ import annotations

import hashlib
import hmac
import random
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge import (
    Card,
    Deal,
    Hand,
    Rank,
    Seat,
    Suit,
    Vulnerability,
    board_dealer,
    board_vulnerability,
)
from bridge.commitment import (
    DealSet,
    VerificationFailed,
    deal_set_lines,
    seed_commitment,
    seeded_deal,
    verify_record,
)
from bridge.errors import ParseError
from bridge.pbn import PbnGame, dump_games


def deal_set(seed: int, boards: int = 4) -> DealSet:
    rng = random.Random(seed)
    return DealSet(
        f"{rng.getrandbits(256):064x}",
        tuple(
            (n, board_dealer(n), board_vulnerability(n), Deal.random(rng))
            for n in range(1, boards + 1)
        ),
    )


def record(deals: DealSet, published: bool = True, games: list[PbnGame] | None = None) -> str:
    """A PBN record as the server writes one: its commitment lines after the header."""
    if games is None:
        games = [
            PbnGame(board=n, dealer=dealer, vulnerability=vul, deal=deal)
            for n, dealer, vul, deal in deals.boards
        ]
    header = dump_games(())
    lines = deal_set_lines(deals.commitment(), deals if published else None)
    return header + "".join(f"{line}\n" for line in lines) + dump_games(games)[len(header) :]


def test_the_text_is_canonical_and_reads_back() -> None:
    deals = deal_set(1, boards=2)
    text = deals.text()
    lines = text.splitlines()
    assert lines[0] == "duplicate deal set 1"
    assert lines[1] == f"salt {deals.salt}"
    assert lines[2].startswith("board 1 N None N:")
    assert lines[3].startswith("board 2 E NS N:")
    assert text.endswith("\n")
    assert DealSet.parse(text) == deals
    # The hash is SHA-256 of exactly that text (anyone can recompute it with sha256sum).
    assert deals.commitment() == hashlib.sha256(text.encode()).hexdigest()


@given(st.integers(0, 10**6), st.integers(0, 3), st.sampled_from(["deal", "salt", "dealer", "vul"]))
def test_any_change_changes_the_commitment(seed: int, index: int, what: str) -> None:
    deals = deal_set(seed)
    number, dealer, vulnerability, deal = deals.boards[index]
    salt = deals.salt
    if what == "deal":
        deal = Deal.random(random.Random(seed + 1))
    elif what == "salt":
        salt = f"{(int(salt, 16) ^ 1):064x}"
    elif what == "dealer":
        dealer = dealer.next
    else:
        vulnerability = (
            Vulnerability.BOTH if vulnerability is Vulnerability.NONE else Vulnerability.NONE
        )
    boards = list(deals.boards)
    boards[index] = (number, dealer, vulnerability, deal)
    changed = DealSet(salt, tuple(boards))
    assert changed.commitment() != deals.commitment()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("duplicate deal set 1", "newline"),
        ("", "starts with"),
        ("duplicate deal set 2\n", "starts with"),
        ("duplicate deal set 1\nsalt 12\n", "salt"),
        ("duplicate deal set 1\nsalt " + "a" * 64 + "\nboard 1 N None nonsense\n", "not a board"),
        ("duplicate deal set 1\nsalt " + "A" * 64 + "\n", "salt"),
    ],
)
def test_a_text_that_is_not_a_deal_set_is_refused(text: str, says: str) -> None:
    with pytest.raises(ParseError, match=says):
        DealSet.parse(text)


def test_a_deal_not_written_canonically_is_refused() -> None:
    deal = Deal.from_pbn("N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765")
    deals = DealSet("0" * 64, ((1, Seat.NORTH, Vulnerability.NONE, deal),))
    # The same deal, its ranks out of order: another text, so another hash.
    text = deals.text().replace("N:AKQJ", "N:KAQJ")
    with pytest.raises(ParseError, match="canonical"):
        DealSet.parse(text)


def test_a_board_named_twice_is_refused() -> None:
    deals = deal_set(3, boards=1)
    with pytest.raises(ParseError, match="twice"):
        DealSet(deals.salt, deals.boards * 2)


def test_a_published_record_verifies() -> None:
    deals = deal_set(4)
    checked = verify_record(record(deals), expected=deals.commitment().upper())
    assert (checked.commitment, checked.boards, checked.games) == (deals.commitment(), 4, 4)


def test_the_deal_set_is_published_only_with_the_end() -> None:
    deals = deal_set(5)
    early = record(deals, published=False)
    assert deals.salt not in early
    assert deals.commitment() in early
    with pytest.raises(VerificationFailed, match="when the match ends"):
        verify_record(early)


def test_a_game_played_with_another_deal_fails() -> None:
    deals = deal_set(6)
    games = [PbnGame(board=n, deal=deal) for n, _, _, deal in deals.boards]
    games[2] = PbnGame(board=3, deal=deal_set(7).boards[2][3])
    with pytest.raises(VerificationFailed, match="board 3 was played with another deal"):
        verify_record(record(deals, games=games))


def test_a_game_of_a_board_not_committed_to_fails() -> None:
    deals = deal_set(8, boards=2)
    games = [PbnGame(board=9, deal=deals.boards[0][3])]
    with pytest.raises(VerificationFailed, match="board 9 was played but not committed"):
        verify_record(record(deals, games=games))


def test_another_dealer_or_vulnerability_fails() -> None:
    deals = deal_set(9, boards=1)
    _, dealer, vul, deal = deals.boards[0]
    wrong_dealer = [PbnGame(board=1, dealer=dealer.next, vulnerability=vul, deal=deal)]
    with pytest.raises(VerificationFailed, match="dealer"):
        verify_record(record(deals, games=wrong_dealer))
    wrong_vul = [PbnGame(board=1, dealer=dealer, vulnerability=Vulnerability.BOTH, deal=deal)]
    with pytest.raises(VerificationFailed, match="vulnerability"):
        verify_record(record(deals, games=wrong_vul))


def test_a_deal_set_changed_after_the_commitment_fails() -> None:
    deals = deal_set(10)
    other = deal_set(11)
    # The record states the first commitment but publishes another set (its own games).
    text = record(deals).replace(deals.text().split("\n")[2], other.text().split("\n")[2])
    with pytest.raises(VerificationFailed, match="hashes to"):
        verify_record(text)


def test_a_record_with_another_commitment_than_the_one_given_fails() -> None:
    deals = deal_set(12)
    with pytest.raises(VerificationFailed, match="not the one given"):
        verify_record(record(deals), expected=deal_set(13).commitment())


def test_a_record_without_a_commitment_fails() -> None:
    with pytest.raises(VerificationFailed, match="no deal commitment"):
        verify_record(dump_games([PbnGame(board=1)]))


# -- boards drawn from a seed and a public value --------------------------------------------


def drawn_as_documented(seed: str, public: str, board: int) -> Deal:
    """seeded_deal's draw written again from its docstring alone."""
    key = bytes.fromhex(seed)
    words: list[int] = []
    counter = 0

    def word() -> int:
        nonlocal counter
        if not words:
            digest = hmac.new(key, f"{public}\n{board}\n{counter}".encode(), "sha256").digest()
            words.extend(struct.unpack(">8I", digest))
            counter += 1
        return words.pop(0)

    order = [
        Card(suit, rank)
        for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
        for rank in sorted(Rank)
    ]
    for i in range(51, 0, -1):
        w = word()
        while w >= 2**32 - 2**32 % (i + 1):
            w = word()
        j = w % (i + 1)
        order[i], order[j] = order[j], order[i]
    hands = {seat: Hand(order[seat.value :: 4]) for seat in Seat}
    return Deal(hands)


@given(st.binary(min_size=32, max_size=32), st.text(min_size=1, max_size=30), st.integers(1, 99))
def test_a_seeded_deal_is_the_documented_draw(key: bytes, public: str, board: int) -> None:
    public = "".join(c for c in public if c.isprintable()) or "x"
    assert seeded_deal(key.hex(), public, board) == drawn_as_documented(key.hex(), public, board)


def test_the_seed_commitment_is_the_hash_of_its_text() -> None:
    seed = "ab" * 32
    text = f"duplicate deal seed 1\n{seed}\n"
    assert seed_commitment(seed) == hashlib.sha256(text.encode()).hexdigest()
    with pytest.raises(ParseError):
        seed_commitment("AB" * 32)
    with pytest.raises(ParseError, match="public value"):
        seeded_deal(seed, "two\nlines", 1)


def seeded_set(seed: str, public: str, boards: int = 3) -> DealSet:
    return DealSet(
        "cd" * 32,
        tuple(
            (n, board_dealer(n), board_vulnerability(n), seeded_deal(seed, public, n))
            for n in range(1, boards + 1)
        ),
        seed,
        public,
    )


def seeded_record(deals: DealSet, games: list[PbnGame] | None = None) -> str:
    assert deals.seed is not None
    header = dump_games(())
    lines = deal_set_lines(deals.commitment(), deals, seed_commitment(deals.seed))
    played = games or [PbnGame(board=n, deal=deal) for n, _, _, deal in deals.boards]
    return header + "".join(f"{line}\n" for line in lines) + dump_games(played)[len(header) :]


def test_a_seeded_deal_set_reads_back_and_verifies() -> None:
    seed = "12" * 32
    deals = seeded_set(seed, "Club night, 1 Dec: 7 12 19 33 41")
    text = deals.text()
    assert text.splitlines()[2:4] == [f"seed {seed}", "public Club night, 1 Dec: 7 12 19 33 41"]
    assert DealSet.parse(text) == deals
    checked = verify_record(seeded_record(deals), expected_seed=seed_commitment(seed))
    assert (checked.seed_commitment, checked.public) == (seed_commitment(seed), deals.public)
    with pytest.raises(VerificationFailed, match="not the one given"):
        verify_record(seeded_record(deals), expected_seed="00" * 32)


def test_boards_not_drawn_from_the_seed_fail() -> None:
    """A server that committed to boards of its own choosing, and claims a seed: caught."""
    seed = "34" * 32
    honest = seeded_set(seed, "public")
    boards = list(honest.boards)
    boards[1] = (2, boards[1][1], boards[1][2], Deal.random(random.Random(2)))
    chosen = DealSet(honest.salt, tuple(boards), seed, "public")
    with pytest.raises(VerificationFailed, match="board 2 is not the deal the seed"):
        verify_record(seeded_record(chosen))


def test_a_seed_without_its_stated_commitment_fails() -> None:
    deals = seeded_set("56" * 32, "public")
    text = seeded_record(deals).replace("% deal seed commitment", "% another line")
    with pytest.raises(VerificationFailed, match="not to the seed commitment the record states"):
        verify_record(text)

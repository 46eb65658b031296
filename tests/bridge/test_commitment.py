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
    PublicForm,
    PublicValueRefused,
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
        ("duplicate deal set 3\n", "starts with"),
        ("duplicate deal set 2\nsalt " + "a" * 64 + "\n", "seed, form and public value"),
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


def seeded_set(seed: str, public: str, boards: int = 3, form: PublicForm | None = None) -> DealSet:
    """The deal set a server makes from a sealed seed (and the form it was sealed with):
    the boards drawn with the public value in its form's canonical form."""
    if form is not None:
        public = form.canonical(public)
    return DealSet(
        "cd" * 32,
        tuple(
            (n, board_dealer(n), board_vulnerability(n), seeded_deal(seed, public, n))
            for n in range(1, boards + 1)
        ),
        seed,
        public,
        form,
    )


def seeded_record(
    deals: DealSet, games: list[PbnGame] | None = None, sealed: str | None = None
) -> str:
    """The record of a seeded deal set, stating the seed's commitment (``sealed``, else
    the one of the deal set's seed and form)."""
    assert deals.seed is not None
    header = dump_games(())
    if sealed is None:
        sealed = seed_commitment(deals.seed, deals.form)
    lines = deal_set_lines(deals.commitment(), deals, sealed)
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


# -- the public value's form, committed to with the seed ------------------------------------

ROLL = [
    "6 2 5 1 3",
    "dice 6 2 5 1 3",
    "6,2,5,1,3",
    "62513",
    "Dice: 6-2-5-1-3",
    "\uff16 \uff12 \uff15 \uff11 \uff13",  # fullwidth digits
    "Roll: (6) (2) (5) (1) (3)",
]
"""Seven spellings of one roll of five dice."""
DICE = PublicForm.parse("digits 5: five dice thrown by the director, read left to right")


def test_seven_spellings_of_one_roll_draw_one_deal_set() -> None:
    seed = "78" * 32
    # Written as given, each spelling draws other deals: whoever held the seed could choose.
    assert len({seeded_deal(seed, spelling, 1) for spelling in ROLL}) == len(ROLL)
    # Read in the form sealed with the seed, they are one value and draw one deal set.
    assert {DICE.canonical(spelling) for spelling in ROLL} == {"62513"}
    assert len({seeded_set(seed, spelling, form=DICE) for spelling in ROLL}) == 1


def test_a_headline_in_words_is_read_one_way() -> None:
    words = PublicForm.parse("words: the first headline of Le Monde's front page, 1 Dec 2026")
    spellings = [
        "Élysée : ça bouge !",
        "ELYSEE -- CA BOUGE",
        "élysée ça bouge",
        "Elysee, ca bouge.",
    ]
    assert {words.canonical(spelling) for spelling in spellings} == {"elysee ca bouge"}


@pytest.mark.parametrize(
    ("form", "value", "says"),
    [
        ("digits 5", "6 2 5 1", "has 4 digits"),
        ("digits 5", "6 2 5 1 3 4", "has 6 digits"),
        ("digits 5", "2026-12-01 dice 6 2 5 1 3", "has 13 digits"),
        ("digits 5", "six two five one three", "has 0 digits"),
        ("words", " -- !? ", "a letter or a digit"),
        ("words", "\ufdfa" * 12, "1 to 200 characters"),  # 12 characters, 216 in NFKC
    ],
)
def test_a_value_that_does_not_fit_its_form_is_refused(form: str, value: str, says: str) -> None:
    with pytest.raises(PublicValueRefused, match=says) as refused:
        PublicForm.parse(form).canonical(value)
    assert form in str(refused.value)  # the message names the form declared with the seed


@given(st.text(max_size=60))
def test_a_canonical_words_value_is_its_own_canonical_form(text: str) -> None:
    words = PublicForm("words")
    try:
        value = words.canonical(text)
    except PublicValueRefused:
        return
    assert words.canonical(value) == value


@given(
    st.lists(st.integers(0, 9), min_size=1, max_size=20),
    st.lists(st.sampled_from([" ", ", ", "-", " dice ", "\t", "/", ""]), min_size=20),
)
def test_digits_are_read_whatever_is_written_between_them(
    digits: list[int], between: list[str]
) -> None:
    written = "".join(f"{digit}{gap}" for digit, gap in zip(digits, between, strict=False))
    form = PublicForm("digits", len(digits))
    value = "".join(map(str, digits))
    assert form.canonical(written) == form.canonical(value) == value


@pytest.mark.parametrize(
    "text",
    [
        "digits 5",
        "digits 200",
        "words",
        "digits 12: the six numbers of the lottery, in the order drawn, two digits each",
        "words: the first headline of Le Monde's front page, 1 Dec 2026",
    ],
)
def test_a_form_reads_back(text: str) -> None:
    assert PublicForm.parse(text).text() == text


@pytest.mark.parametrize(
    "text",
    [
        "digits",
        "digits 0",
        "digits 05",
        "digits 201",
        "digits  5",
        "Words",
        "dice",
        "words 3",
        "digits 5:",
        "digits 5 : five dice",
        "digits 5: two\nlines",
    ],
)
def test_a_form_not_written_as_declared_is_refused(text: str) -> None:
    with pytest.raises(ParseError):
        PublicForm.parse(text)


def test_the_seed_commitment_covers_the_form() -> None:
    seed = "ab" * 32
    text = f"duplicate deal seed 2\n{seed}\nform {DICE.text()}\n"
    assert seed_commitment(seed, DICE) == hashlib.sha256(text.encode()).hexdigest()
    others = [PublicForm("digits", 6), PublicForm("digits", 5), PublicForm("words"), None]
    assert len({seed_commitment(seed, DICE), *(seed_commitment(seed, f) for f in others)}) == 5


def test_a_deal_set_sealed_with_a_form_reads_back_and_verifies() -> None:
    seed = "9a" * 32
    deals = seeded_set(seed, "dice 6 2 5 1 3", form=DICE)
    lines = deals.text().splitlines()
    assert lines[:5] == [
        "duplicate deal set 2",
        f"salt {deals.salt}",
        f"seed {seed}",
        f"form {DICE.text()}",
        "public 62513",
    ]
    assert lines[5].startswith("board 1 N None N:")
    assert DealSet.parse(deals.text()) == deals
    checked = verify_record(
        seeded_record(deals),
        expected=deals.commitment(),
        expected_seed=seed_commitment(seed, DICE),
        public_value="Dice: 6-2-5-1-3",  # as a player noted it when the dice were thrown
    )
    assert (checked.public, checked.form) == ("62513", DICE)
    assert checked.seed_commitment == seed_commitment(seed, DICE)


def test_a_deal_set_with_its_public_value_not_canonical_is_refused() -> None:
    """Whatever a server does, a deal set sealed with a form carries one spelling only."""
    deals = seeded_set("9b" * 32, "62513", form=DICE)
    with pytest.raises(ParseError, match="canonical"):
        DealSet(deals.salt, deals.boards, deals.seed, "dice 6 2 5 1 3", DICE)
    text = deals.text().replace("public 62513", "public 6 2 5 1 3")
    with pytest.raises(ParseError, match="canonical"):
        DealSet.parse(text)


@pytest.mark.parametrize("sealed_with", [PublicForm("digits", 6), None])
def test_a_form_other_than_the_one_sealed_fails(sealed_with: PublicForm | None) -> None:
    """A server that sealed one form (or none) and draws with another: caught."""
    seed = "9c" * 32
    drawn = seeded_set(seed, "6 2 5 1 3", form=DICE)
    text = seeded_record(drawn, sealed=seed_commitment(seed, sealed_with))
    with pytest.raises(VerificationFailed, match="not to the seed commitment the record states"):
        verify_record(text)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("6 2 5 1 4", "is not the one the boards were drawn with: '62513'"),
        ("6 2 5 1", "does not fit: .* has 4 digits"),
    ],
)
def test_another_public_value_than_the_one_given_fails(given: str, says: str) -> None:
    deals = seeded_set("9d" * 32, "6 2 5 1 3", form=DICE)
    with pytest.raises(VerificationFailed, match=says):
        verify_record(seeded_record(deals), public_value=given)


def test_a_public_value_given_for_boards_not_drawn_from_a_seed_fails() -> None:
    with pytest.raises(VerificationFailed, match="not drawn from a sealed seed"):
        verify_record(record(deal_set(14)), public_value="6 2 5 1 3")


def test_a_deal_set_sealed_before_forms_still_verifies() -> None:
    """A match stored before forms keeps its commitments: its deal set of version 1, its
    public value as written, its seed's commitment without a form, written out by hand."""
    seed, salt, public = "5e" * 32, "a1" * 32, "Dice thrown at the club, 1 Dec 2026: 3 6 1 4 4 2"
    deal = seeded_deal(seed, public, 1)
    text = (
        f"duplicate deal set 1\nsalt {salt}\nseed {seed}\npublic {public}\n"
        f"board 1 N None {deal.to_pbn(Seat.NORTH)}\n"
    )
    commitment = hashlib.sha256(text.encode()).hexdigest()
    sealed = hashlib.sha256(f"duplicate deal seed 1\n{seed}\n".encode()).hexdigest()
    pbn = (
        f"% PBN 2.1\n% EXPORT\n% deal commitment sha256 {commitment}\n"
        f"% deal seed commitment sha256 {sealed}\n"
        + "".join(f"% {line}\n" for line in text.splitlines())
        + dump_games([PbnGame(board=1, dealer=Seat.NORTH, deal=deal)])[len(dump_games(())) :]
    )
    assert DealSet.parse(text).text() == text
    checked = verify_record(pbn, commitment, sealed, public_value=public)
    assert (checked.seed_commitment, checked.public, checked.form) == (sealed, public, None)
    # Without a form, the value is compared as written: another spelling is another value.
    with pytest.raises(VerificationFailed, match="not the one the boards were drawn with"):
        verify_record(pbn, commitment, sealed, public_value=public.lower())


def test_the_test_vector_of_a_sealed_form() -> None:
    """SPEC.md's vector: the seed of 64 zeros, sealed with a lottery's form."""
    lottery = PublicForm.parse(
        "digits 12: the six main numbers of the 1 Dec 2026 lottery, in the order drawn, "
        "two digits each"
    )
    assert seed_commitment("00" * 32, lottery) == (
        "04a35d3c8b7152f9bb497103a0a489be74f2a4356ca0db063d1ba085ff6fbd0b"
    )
    value = lottery.canonical("04 08 15 16 23 42")
    assert value == "040815162342"
    assert seeded_deal("00" * 32, value, 1).to_pbn() == (
        "N:KJ632.Q6.AT2.Q84 T85.AJT54.QJ8.AT 94.K987.K953.J92 AQ7.32.764.K7653"
    )
    with pytest.raises(PublicValueRefused, match="has 10 digits"):
        lottery.canonical("4 8 15 16 23 42")  # not two digits each

"""Deals nobody can doubt: a commitment to a match's deals, made before any card is seen,
and its check once the match is over.

When a match is created the server draws a secret salt and publishes the SHA-256 of the
*deal set*: a short canonical text naming the salt and every board (number, dealer,
vulnerability, the four hands). Every player and spectator holds that hash from their
first view. When the match ends the deal set itself is published in the match record,
and anyone can hash it again and compare: the deals played are then the ones the server
was bound to before the first call. The salt keeps the hash from giving the deals away
(nobody can try deals against it). The text (``DealSet.text``), one line each, ``\\n``
after every line::

    duplicate deal set 1
    salt 5b0c...  (64 lowercase hex digits)
    board 1 N None N:AKQ2.K53.T42.J76 ...   (number, dealer, vulnerability, PBN deal from North)
    board 2 E NS N:...

Boards drawn from a sealed seed (:func:`seeded_deal`) are drawn with a public value fixed
after the seed's commitment was published. Whoever holds the seed could otherwise choose
among spellings of that value (``6 2 5 1 3``, ``dice 6-2-5-1-3``, ... each draws other
deals), so the seed is committed to together with the value's :class:`PublicForm`
(``digits 5``: the five digits in order, whatever is written around them), and the boards
are drawn with the value's canonical form. Such a deal set is of version 2: after the salt,
``seed``, ``form`` and ``public`` (the canonical value) lines. A version-1 deal set with
``seed`` and ``public`` lines (made before forms) still reads and verifies; its public
value was used as written.

In a PBN match record the deal set is written as escaped lines (``%`` then a space, then
the line), which PBN readers skip; :func:`verify_record` finds it there, hashes it, and
checks each game's deal against it.

>>> from bridge import Deal, Seat, Vulnerability
>>> deal = Deal.from_pbn("N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765")
>>> deals = DealSet("00" * 32, ((1, Seat.NORTH, Vulnerability.NONE, deal),))
>>> DealSet.parse(deals.text()) == deals
True
>>> len(deals.commitment())
64
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from bridge.boards import Vulnerability
from bridge.cards import Deal, Hand, Seat
from bridge.errors import BridgeError, ParseError

__all__ = [
    "DEAL_SET_HEADER",
    "DEAL_SET_HEADER_V2",
    "DealSet",
    "PublicForm",
    "PublicValueRefused",
    "RecordVerified",
    "VerificationFailed",
    "deal_set_lines",
    "seed_commitment",
    "seeded_deal",
    "verify_record",
]

DEAL_SET_HEADER = "duplicate deal set 1"
"""The first line of a deal set: its format and version."""
DEAL_SET_HEADER_V2 = "duplicate deal set 2"
"""The first line of a deal set drawn from a seed committed to with its public value's form."""

COMMITMENT_PREFIX = "% deal commitment sha256 "
"""A PBN record's line stating the match's commitment (from its creation on)."""
SEED_COMMITMENT_PREFIX = "% deal seed commitment sha256 "
"""A PBN record's line stating the commitment of the seed its boards were drawn from."""

_SALT = re.compile(r"salt ([0-9a-f]{64})")
_BOARD = re.compile(r"board ([1-9][0-9]{0,3}) ([NESW]) (None|NS|EW|All) (N:\S+ \S+ \S+ \S+)")
_HEX = re.compile(r"[0-9a-f]{64}")
_PUBLIC = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029]{1,200}")
"""A public value: 1 to 200 characters, no control character and nothing that ends a line."""
_FORM = re.compile(r"(?:digits ([1-9][0-9]{0,2})|words)(?:: (.+))?")
_MOST_DIGITS = 200

BoardEntry = tuple[int, Seat, Vulnerability, Deal]
"""One board of a deal set: number, dealer, vulnerability, the deal."""


class VerificationFailed(BridgeError):
    """The deals do not match the commitment, or the record does not hold what a check
    needs; the message says which board or line."""


class PublicValueRefused(ParseError):
    """A public value that does not fit the form declared with its seed (five digits were
    declared, four are written): it draws no deals."""


@dataclass(frozen=True, slots=True)
class PublicForm:
    """How the public value of a sealed seed is written, declared (and committed to with the
    seed) before the value is known: every spelling of one value then draws the same
    deals, so whoever holds the seed cannot choose among spellings.

    ``digits N`` (the one to use for dice, a lottery draw, a roulette spin): the value is
    read after Unicode NFKC normalisation as its decimal digits in order, every other
    character ignored, and must have exactly ``N`` of them (1 to 200); the canonical value
    is those digits in ASCII. ``words`` (a headline, a sentence): folded as Unicode folds
    text for a compatibility caseless match (``NFKD(casefold(NFKD(casefold(NFD(x)))))``),
    its nonspacing marks (accents: category Mn) dropped, NFKC normalised, then every run of
    characters that are neither letters nor digits (categories L and N) made one space,
    none at either end; at least one letter or digit, at most 200 characters. ``digits``
    leaves no choice of spelling; ``words`` leaves the choice of words, so use it only for
    a text that is published as it is. Either may say, after ``: ``, how the value will be
    drawn (``digits 5: five dice thrown by the director, read left to right``): committed
    to with the rest, it leaves no choice of which value either.

    >>> form = PublicForm.parse("digits 5: five dice thrown by the director, left to right")
    >>> (form.kind, form.count, form.canonical("Dice: 6-2-5-1-3"))
    ('digits', 5, '62513')
    >>> PublicForm.parse("words").canonical("  Élysée: ÇA  Bouge! ")
    'elysee ca bouge'
    """

    kind: Literal["digits", "words"]
    count: int | None = None
    """For ``digits``: how many digits the value has."""
    how: str | None = None
    """How the value will be drawn, in words (None: not said)."""

    def __post_init__(self) -> None:
        if self.kind not in ("digits", "words"):
            raise ParseError(f"a public value's form is digits or words, not {self.kind!r}")
        if self.kind == "digits" and not (
            self.count is not None and 1 <= self.count <= _MOST_DIGITS
        ):
            raise ParseError(f"a digits form has 1 to {_MOST_DIGITS} digits, not {self.count}")
        if self.kind == "words" and self.count is not None:
            raise ParseError("a words form has no count")
        if self.how is not None and not _PUBLIC.fullmatch(self.how):
            raise ParseError("a form says how in 1 to 200 characters, none a control character")

    def text(self) -> str:
        """The form as it is declared and committed to: ``digits 5`` or ``words``, then
        ``: `` and :attr:`how` if said."""
        kind = "words" if self.kind == "words" else f"digits {self.count}"
        return kind if self.how is None else f"{kind}: {self.how}"

    @classmethod
    def parse(cls, text: str) -> PublicForm:
        """A form from its text, exactly as :meth:`text` writes it."""
        found = _FORM.fullmatch(text)
        if not found:
            raise ParseError(
                f"a public value's form is 'digits N' or 'words', then ': ' and how the value "
                f"will be drawn if you like; not {text!r}"
            )
        if found[1] is None:
            return cls("words", None, found[2])
        return cls("digits", int(found[1]), found[2])

    def canonical(self, value: str) -> str:
        """The value as the boards are drawn with it: the same for every spelling of one
        value (raises :class:`PublicValueRefused` for a value that does not fit)."""
        if self.kind == "digits":
            digits = [unicodedata.decimal(c, None) for c in unicodedata.normalize("NFKC", value)]
            written = "".join(str(digit) for digit in digits if digit is not None)
            if len(written) != self.count:
                raise PublicValueRefused(
                    f"the public value {value!r} has {len(written)} digits, and its form, "
                    f"declared with the seed, is {self.text()!r}"
                )
            return written
        # Unicode's compatibility caseless match (D146): NFKD(casefold(NFKD(casefold(NFD(x)))))
        folded = unicodedata.normalize("NFD", value)
        for _ in range(2):
            folded = unicodedata.normalize("NFKD", folded.casefold())
        bare = unicodedata.normalize(
            "NFKC", "".join(c for c in folded if unicodedata.category(c) != "Mn")
        )
        spaced = "".join(c if unicodedata.category(c)[0] in "LN" else " " for c in bare)
        words = " ".join(word for word in spaced.split(" ") if word)
        if not _PUBLIC.fullmatch(words):
            raise PublicValueRefused(
                f"the public value {value!r} in words is {words!r}: its form, declared with "
                f"the seed, is {self.text()!r}, 1 to 200 characters with a letter or a digit"
            )
        return words


@dataclass(frozen=True, slots=True)
class DealSet:
    """Every board of a match and the salt of its commitment."""

    salt: str
    """64 lowercase hex digits (32 random bytes), secret until the match ends."""
    boards: tuple[BoardEntry, ...]
    seed: str | None = None
    """For boards drawn by :func:`seeded_deal`: the server's seed (secret until the match
    ends; its :func:`seed_commitment` was published before ``public`` was known)."""
    public: str | None = None
    """The organiser's public value the boards were drawn with, beside ``seed``: its
    canonical form in ``form`` (as it was given, for a deal set without a form)."""
    form: PublicForm | None = None
    """The public value's form, committed to with the seed (:func:`seed_commitment`);
    None for a deal set made before forms (version 1)."""

    def __post_init__(self) -> None:
        if not _HEX.fullmatch(self.salt):
            raise ParseError(f"a deal set's salt is 64 lowercase hex digits, not {self.salt!r}")
        numbers = [number for number, *_ in self.boards]
        if len(set(numbers)) != len(numbers):
            raise ParseError(f"a deal set names a board twice: {numbers}")
        if (self.seed is None) != (self.public is None):
            raise ParseError("a seeded deal set has both its seed and its public value")
        if self.seed is not None and not _HEX.fullmatch(self.seed):
            raise ParseError(f"a deal seed is 64 lowercase hex digits, not {self.seed!r}")
        if self.public is not None and not _PUBLIC.fullmatch(self.public):
            raise ParseError("a public value is 1 to 200 characters, none a control character")
        if self.form is not None:
            if self.public is None:
                raise ParseError("a public value's form belongs to a seeded deal set")
            if self.form.canonical(self.public) != self.public:
                raise ParseError(
                    f"the public value {self.public!r} is not written in its canonical form "
                    f"({self.form.canonical(self.public)!r})"
                )

    def text(self) -> str:
        """The canonical text that is hashed (and published once the match ends)."""
        if self.form is not None:
            lines = [DEAL_SET_HEADER_V2, f"salt {self.salt}", f"seed {self.seed}"]
            lines += [f"form {self.form.text()}", f"public {self.public}"]
        else:
            lines = [DEAL_SET_HEADER, f"salt {self.salt}"]
            if self.seed is not None:
                lines += [f"seed {self.seed}", f"public {self.public}"]
        lines += [
            f"board {number} {dealer.letter} {vulnerability.value} {deal.to_pbn(Seat.NORTH)}"
            for number, dealer, vulnerability, deal in self.boards
        ]
        return "".join(line + "\n" for line in lines)

    def commitment(self) -> str:
        """The SHA-256 of :meth:`text`, as 64 lowercase hex digits."""
        return hashlib.sha256(self.text().encode("utf-8")).hexdigest()

    def unseeded(self) -> list[int]:
        """The boards whose deal is not the one :func:`seeded_deal` draws from the seed and
        the public value (none for a deal set that is not seeded)."""
        if self.seed is None or self.public is None:
            return []
        return [
            number
            for number, _, _, deal in self.boards
            if deal != seeded_deal(self.seed, self.public, number)
        ]

    def board(self, number: int) -> BoardEntry | None:
        for entry in self.boards:
            if entry[0] == number:
                return entry
        return None

    @classmethod
    def parse(cls, text: str) -> DealSet:
        """A deal set from its canonical text (exactly as :meth:`text` writes it)."""
        lines = text.split("\n")
        if lines[-1] != "":
            raise ParseError("a deal set's text ends with a newline")
        lines = lines[:-1]
        if not lines or lines[0] not in (DEAL_SET_HEADER, DEAL_SET_HEADER_V2):
            raise ParseError(
                f"a deal set starts with {DEAL_SET_HEADER!r} or {DEAL_SET_HEADER_V2!r}"
            )
        if len(lines) < 2 or not (salt := _SALT.fullmatch(lines[1])):
            raise ParseError("a deal set's second line is 'salt' and 64 lowercase hex digits")
        seed = public = None
        form = None
        rest = lines[2:]
        if lines[0] == DEAL_SET_HEADER_V2:
            if len(rest) < 3 or not (
                rest[0].startswith("seed ")
                and rest[1].startswith("form ")
                and rest[2].startswith("public ")
            ):
                raise ParseError(
                    "a deal set of version 2 has its seed, form and public value after the salt",
                    line=3,
                )
            seed, public = rest[0].removeprefix("seed "), rest[2].removeprefix("public ")
            try:
                form = PublicForm.parse(rest[1].removeprefix("form "))
            except ParseError as error:
                raise ParseError(str(error), line=4) from None
            rest = rest[3:]
        elif rest and rest[0].startswith("seed "):
            if len(rest) < 2 or not rest[1].startswith("public "):
                raise ParseError("a deal set's seed is followed by its public value", line=4)
            seed, public = rest[0].removeprefix("seed "), rest[1].removeprefix("public ")
            rest = rest[2:]
        boards: list[BoardEntry] = []
        for number, line in enumerate(rest, start=len(lines) - len(rest) + 1):
            found = _BOARD.fullmatch(line)
            if not found:
                raise ParseError(f"not a board of a deal set: {line!r}", line=number)
            try:
                deal = Deal.from_pbn(found[4])
            except BridgeError as error:
                raise ParseError(f"board {found[1]}: {error}", line=number) from None
            boards.append(
                (int(found[1]), Seat.parse(found[2]), Vulnerability.parse(found[3]), deal)
            )
        result = cls(salt[1], tuple(boards), seed, public, form)
        if result.text() != text:  # e.g. a deal written from another seat than North
            raise ParseError("a deal set is not in its canonical form")
        return result


SEED_HEADER = "duplicate deal seed 1"
"""The first line of the text whose SHA-256 commits to a deal seed (made before forms)."""
SEED_HEADER_V2 = "duplicate deal seed 2"
"""The first line of the text whose SHA-256 commits to a deal seed and its public value's
form."""


def seed_commitment(seed: str, form: PublicForm | None = None) -> str:
    """What the server publishes before the public value is known: the SHA-256 of
    ``duplicate deal seed 2``, a newline, the seed (64 lowercase hex digits), a newline,
    ``form``, a space, the form's :meth:`PublicForm.text` and a newline. Without ``form``
    (a seed sealed before forms): of ``duplicate deal seed 1``, a newline, the seed and a
    newline.

    >>> seed_commitment("00" * 32, PublicForm("digits", 5))
    '7d5dac07d230bf98549c94a97fbf59ef90f4e19bc357b83e94200129d0601ebc'
    """
    if not _HEX.fullmatch(seed):
        raise ParseError(f"a deal seed is 64 lowercase hex digits, not {seed!r}")
    if form is None:
        text = f"{SEED_HEADER}\n{seed}\n"
    else:
        text = f"{SEED_HEADER_V2}\n{seed}\nform {form.text()}\n"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seeded_deal(seed: str, public: str, board: int) -> Deal:
    """Board ``board``'s deal drawn from the server's secret ``seed`` and the organiser's
    ``public`` value, so that neither alone chose it (the seed was committed to before the
    public value was announced). ``public`` is the value's canonical form
    (:meth:`PublicForm.canonical`) when the seed was committed to with a form.

    The draw, for anyone to repeat: the words of HMAC-SHA256 with the seed's 32 bytes as
    key and the UTF-8 of ``public``, a newline, the board number, a newline, a counter
    (``0``, ``1``, ...) as message, each digest read as eight big-endian 32-bit words; a
    Fisher-Yates shuffle of the 52 cards in the order C2 C3 ... CA D2 ... DA H2 ... SA,
    for ``i`` from 51 down to 1 swapping card ``i`` with card ``j``: the next word ``w``
    below ``2**32 - 2**32 % (i + 1)`` (the others are skipped), ``j = w % (i + 1)``; then
    the card at position ``p`` goes to North, East, South, West as ``p % 4`` is 0, 1, 2, 3.

    >>> seeded_deal("00" * 32, "2026-12-01 lottery 4 8 15 16 23 42", 1).to_pbn()
    'N:K8742..J43.QJT96 AQT9.AT6.A82.743 J65.QJ972.T97.AK 3.K8543.KQ65.852'
    """
    if not _HEX.fullmatch(seed):
        raise ParseError(f"a deal seed is 64 lowercase hex digits, not {seed!r}")
    if not _PUBLIC.fullmatch(public):
        raise ParseError("a public value is 1 to 200 characters, none of them a control character")
    key = bytes.fromhex(seed)

    def words() -> Iterator[int]:
        for counter in itertools.count():
            message = f"{public}\n{board}\n{counter}".encode()
            digest = hmac.new(key, message, hashlib.sha256).digest()
            for offset in range(0, 32, 4):
                yield int.from_bytes(digest[offset : offset + 4], "big")

    stream = words()
    deck = list(range(52))
    for i in range(51, 0, -1):
        span = i + 1
        limit = 2**32 - 2**32 % span
        word = next(stream)
        while word >= limit:
            word = next(stream)
        j = word % span
        deck[i], deck[j] = deck[j], deck[i]
    masks = [0, 0, 0, 0]
    for position, index in enumerate(deck):
        masks[position % 4] |= 1 << index
    return Deal({seat: Hand.from_mask(masks[seat]) for seat in Seat})


def deal_set_lines(commitment: str, deals: DealSet | None, seeded: str | None = None) -> list[str]:
    """The escaped lines a PBN match record starts with: the commitment always (and
    ``seeded``, the commitment of the seed the boards were drawn from), the deal set once
    it is published (``deals``: the match has ended)."""
    lines = [COMMITMENT_PREFIX + commitment]
    if seeded is not None:
        lines.append(SEED_COMMITMENT_PREFIX + seeded)
    if deals is not None:
        lines += ["% " + line for line in deals.text().splitlines()]
    return lines


@dataclass(frozen=True, slots=True)
class RecordVerified:
    """What :func:`verify_record` checked: the commitment, the boards committed to, and
    the games of the record whose deals were compared with them."""

    commitment: str
    boards: int
    games: int
    seed_commitment: str | None = None
    """For boards drawn from a seed and a public value: the seed's commitment, which was
    published before the public value was known (all the boards were checked to be the
    ones the two draw)."""
    public: str | None = None
    """The public value the boards were drawn with (canonical, if ``form``)."""
    form: PublicForm | None = None
    """The public value's form committed to with the seed; None for boards drawn before
    forms, whose public value was used as written (a version-1 deal set)."""


def _published(pbn: str) -> tuple[str | None, DealSet | None]:
    """The commitment a record states and the deal set it publishes (None: absent)."""
    lines = [line.rstrip("\r") for line in pbn.split("\n")]
    stated = [
        line.removeprefix(COMMITMENT_PREFIX) for line in lines if line.startswith(COMMITMENT_PREFIX)
    ]
    if len(stated) > 1:
        raise VerificationFailed("the record states two commitments")
    headers = ("% " + DEAL_SET_HEADER, "% " + DEAL_SET_HEADER_V2)
    starts = [index for index, line in enumerate(lines) if line in headers]
    if len(starts) > 1:
        raise VerificationFailed("the record holds two deal sets")
    commitment = stated[0] if stated else None
    if not starts:
        return commitment, None
    deal_set = [lines[starts[0]][2:]]
    for line in lines[starts[0] + 1 :]:
        if not line.startswith(("% salt ", "% seed ", "% form ", "% public ", "% board ")):
            break  # the set ends at its first line that is not of it
        deal_set.append(line[2:])
    try:
        return commitment, DealSet.parse("".join(line + "\n" for line in deal_set))
    except ParseError as error:
        raise VerificationFailed(f"the record's deal set: {error}") from None


def verify_record(
    pbn: str,
    expected: str | None = None,
    expected_seed: str | None = None,
    public_value: str | None = None,
) -> RecordVerified:
    """Check a PBN match record: its deal set hashes to its stated commitment (and to
    ``expected``, the commitment the checker was given when the match began, if any), and
    every game's deal, dealer and vulnerability are the committed board's. For boards drawn
    from a seed and a public value, also that every board is the one they draw, and that
    the seed's commitment (of the seed and the public value's form) is the one the record
    states from the start (and ``expected_seed``, the one announced before the public value,
    if given); and, given ``public_value`` (as the checker saw it announced, in any spelling
    its form allows), that the boards are the ones drawn from the seed and its canonical
    form. Raises :class:`VerificationFailed` saying what does not match.

    Without ``expected`` (and ``expected_seed``, ``public_value``) the record is only
    checked against what it states itself."""
    from bridge.pbn import parse_games

    commitment, deals = _published(pbn)
    if commitment is None:
        raise VerificationFailed("the record states no deal commitment")
    if not _HEX.fullmatch(commitment):
        raise VerificationFailed(f"the record's commitment is not a SHA-256: {commitment!r}")
    if expected is not None and expected.strip().lower() != commitment:
        raise VerificationFailed(
            f"the record's commitment {commitment} is not the one given: {expected.strip()}"
        )
    if deals is None:
        raise VerificationFailed(
            "the record does not publish the deal set yet (it is published when the match ends)"
        )
    if deals.commitment() != commitment:
        raise VerificationFailed(
            f"the deal set hashes to {deals.commitment()}, not to the commitment {commitment}"
        )
    stated_seed = [
        line.removeprefix(SEED_COMMITMENT_PREFIX).rstrip("\r")
        for line in pbn.split("\n")
        if line.startswith(SEED_COMMITMENT_PREFIX)
    ]
    seeded = None
    if deals.seed is not None:
        seeded = seed_commitment(deals.seed, deals.form)
        if stated_seed != [seeded]:
            raise VerificationFailed(
                f"the deal seed hashes to {seeded}, not to the seed commitment the record states"
            )
        if expected_seed is not None and expected_seed.strip().lower() != seeded:
            raise VerificationFailed(
                f"the seed's commitment {seeded} is not the one given: {expected_seed.strip()}"
            )
        if wrong := deals.unseeded():
            raise VerificationFailed(
                f"board {wrong[0]} is not the deal the seed and the public value draw"
            )
        if public_value is not None:
            _check_public_value(deals, public_value)
    elif stated_seed or expected_seed is not None:
        raise VerificationFailed("the record states a seed commitment but publishes no seed")
    elif public_value is not None:
        raise VerificationFailed(
            "the record's boards were not drawn from a sealed seed and a public value"
        )
    games = parse_games(pbn)
    for game in games:
        if game.board is None or game.deal is None:
            raise VerificationFailed("a game of the record has no board number or no deal")
        entry = deals.board(game.board)
        if entry is None:
            raise VerificationFailed(f"board {game.board} was played but not committed to")
        _, dealer, vulnerability, deal = entry
        if game.deal != deal:
            raise VerificationFailed(f"board {game.board} was played with another deal")
        if game.dealer is not None and game.dealer != dealer:
            raise VerificationFailed(f"board {game.board}: the dealer is not the committed one")
        if game.vulnerability is not None and game.vulnerability != vulnerability:
            raise VerificationFailed(
                f"board {game.board}: the vulnerability is not the committed one"
            )
    return RecordVerified(
        commitment, len(deals.boards), len(games), seeded, deals.public, deals.form
    )


def _check_public_value(deals: DealSet, given: str) -> None:
    """``given`` is the public value a seeded deal set's boards were drawn with: in the
    canonical form of the deal set's form (as written, for a deal set without one), it is
    the set's ``public``, whose draw :meth:`DealSet.unseeded` has checked board by board."""
    value = given
    if deals.form is not None:
        try:
            value = deals.form.canonical(given)
        except PublicValueRefused as error:
            raise VerificationFailed(f"the public value given does not fit: {error}") from None
    if value != deals.public:
        said = "" if deals.form is None else f" (in the form {deals.form.text()!r}: {value!r})"
        raise VerificationFailed(
            f"the public value given, {given!r}{said}, is not the one the boards were drawn "
            f"with: {deals.public!r}"
        )

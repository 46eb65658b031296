"""Seats, suits, strains, ranks, cards, hands and deals.

Cards are interned: there is exactly one :class:`Card` object for each of the 52 cards,
so ``Card.parse("SA") is Card(Suit.SPADES, Rank.ACE)``. Hands are immutable sets of cards
kept as a 52-bit mask, which keeps the play engine fast without leaking bits into the API.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from enum import IntEnum
from typing import ClassVar, Literal

from bridge.errors import ParseError

__all__ = ["Card", "Deal", "Hand", "Rank", "Seat", "Strain", "Suit", "as_seat"]


class Seat(IntEnum):
    """A compass seat at the table, clockwise from North.

    >>> Seat.parse("n").partner
    <Seat.SOUTH: 2>
    """

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    @classmethod
    def parse(cls, text: str) -> Seat:
        """``"N"``, ``"north"``, ``"North"`` ... -> the seat; anything else raises ParseError."""
        seat = _SEAT_NAMES.get(text.strip().upper())
        if seat is None:
            raise ParseError(f"not a seat: {text!r} (expected N, E, S or W)")
        return seat

    @property
    def letter(self) -> Literal["N", "E", "S", "W"]:
        """One-letter name: ``"N"``, ``"E"``, ``"S"``, ``"W"``."""
        return _SEAT_LETTERS[self]

    @property
    def next(self) -> Seat:
        """The next seat clockwise (the left-hand opponent)."""
        return _SEATS[(self + 1) & 3]

    @property
    def lho(self) -> Seat:
        """Left-hand opponent: the next seat clockwise."""
        return _SEATS[(self + 1) & 3]

    @property
    def partner(self) -> Seat:
        """The seat opposite."""
        return _SEATS[(self + 2) & 3]

    @property
    def rho(self) -> Seat:
        """Right-hand opponent: the previous seat clockwise."""
        return _SEATS[(self + 3) & 3]

    @property
    def is_north_south(self) -> bool:
        """True for North and South."""
        return self % 2 == 0

    def __str__(self) -> str:
        return self.letter


_SEATS = tuple(Seat)
_SEAT_LETTERS: tuple[Literal["N", "E", "S", "W"], ...] = ("N", "E", "S", "W")


def as_seat(value: object) -> Seat:
    """``value`` as a :class:`Seat` (a Seat, or its number 0-3), else :class:`ParseError`."""
    if isinstance(value, Seat):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return _SEATS[value]
    raise ParseError(f"not a seat: {value!r}")


_SEAT_NAMES = {s.letter: s for s in Seat} | {s.name: s for s in Seat}


class Suit(IntEnum):
    """A suit, in bridge rank order: clubs lowest, spades highest."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @classmethod
    def parse(cls, text: str) -> Suit:
        """``"S"``, ``"spades"``, ``"♠"`` ... -> the suit."""
        suit = _SUIT_NAMES.get(text.strip().upper())
        if suit is None:
            raise ParseError(f"not a suit: {text!r} (expected C, D, H or S)")
        return suit

    @property
    def letter(self) -> str:
        """``"C"``, ``"D"``, ``"H"`` or ``"S"``."""
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        """``"♣"``, ``"♦"``, ``"♥"`` or ``"♠"``."""
        return "♣♦♥♠"[self]

    def __str__(self) -> str:
        return self.letter


_SUIT_NAMES = {s.letter: s for s in Suit} | {s.name: s for s in Suit} | {s.symbol: s for s in Suit}


class Strain(IntEnum):
    """What a bid names: a trump suit or notrump, in bidding order."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3
    NOTRUMP = 4

    @classmethod
    def parse(cls, text: str) -> Strain:
        """``"S"``, ``"NT"``, ``"N"``, ``"♥"`` ... -> the strain."""
        key = text.strip().upper()
        if key in ("N", "NT", "NOTRUMP", "NOTRUMPS"):
            return Strain.NOTRUMP
        suit = _SUIT_NAMES.get(key)
        if suit is None:
            raise ParseError(f"not a strain: {text!r} (expected C, D, H, S or NT)")
        return Strain(suit.value)

    @property
    def letter(self) -> str:
        """``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``"NT"``."""
        return ("C", "D", "H", "S", "NT")[self]

    @property
    def suit(self) -> Suit | None:
        """The trump suit, or None for notrump."""
        return None if self == Strain.NOTRUMP else Suit(self.value)

    def __str__(self) -> str:
        return self.letter


class Rank(IntEnum):
    """A card's rank, two lowest and ace highest."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @classmethod
    def parse(cls, text: str) -> Rank:
        """``"A"``, ``"K"``, ``"T"``, ``"10"``, ``"9"`` ... -> the rank."""
        rank = _RANK_NAMES.get(text.strip().upper())
        if rank is None:
            raise ParseError(f"not a rank: {text!r} (expected A K Q J T 9 8 7 6 5 4 3 2)")
        return rank

    @property
    def letter(self) -> str:
        """``"A"``, ``"K"``, ``"Q"``, ``"J"``, ``"T"``, ``"9"`` ... ``"2"``."""
        return "23456789TJQKA"[self - 2]

    @property
    def hcp(self) -> int:
        """Milton Work points: ace 4, king 3, queen 2, jack 1."""
        return max(0, self - 10)

    def __str__(self) -> str:
        return self.letter


_RANK_NAMES = {r.letter: r for r in Rank} | {"10": Rank.TEN}


class Card:
    """One of the 52 cards. Immutable and interned: equal cards are the same object.

    >>> card = Card.parse("SA")
    >>> card.suit, card.rank, str(card)
    (<Suit.SPADES: 3>, <Rank.ACE: 14>, 'SA')
    >>> card is Card(Suit.SPADES, Rank.ACE)
    True
    """

    __slots__ = ("_text", "bit", "index", "rank", "suit")

    suit: Suit
    rank: Rank
    index: int
    """0..51, suit-major: clubs 2 is 0, spades ace is 51. Stable, usable as an array index."""
    bit: int
    """``1 << index``: this card's bit in a hand mask."""
    _text: str

    _interned: ClassVar[dict[tuple[int, int], Card]] = {}

    def __new__(cls, suit: Suit, rank: Rank) -> Card:
        try:
            return cls._interned[(suit, rank)]
        except KeyError:
            raise ParseError(f"not a card: suit {suit!r}, rank {rank!r}") from None

    @classmethod
    def _make(cls, suit: Suit, rank: Rank) -> Card:
        card = object.__new__(cls)
        index = suit * 13 + rank - 2
        for name, value in (
            ("suit", suit),
            ("rank", rank),
            ("index", index),
            ("bit", 1 << index),
            ("_text", suit.letter + rank.letter),
        ):
            object.__setattr__(card, name, value)
        cls._interned[(suit, rank)] = card
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """Suit letter then rank: ``"SA"``, ``"HT"``, ``"H10"``, ``"c2"``, ``"♠A"``."""
        card = _CARD_NAMES.get(text.strip().upper())
        if card is None:
            raise ParseError(f"not a card: {text!r} (expected suit then rank, like SA or H7)")
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with this :attr:`index` (0..51)."""
        return ALL_CARDS[index]

    @property
    def hcp(self) -> int:
        """High-card points of this card."""
        return self.rank.hcp

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Suit, Rank]]:
        return (Card, (self.suit, self.rank))

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return self._text  # made once: views name every card of every update

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


ALL_CARDS: tuple[Card, ...] = tuple(Card._make(s, r) for s in Suit for r in Rank)
_CARD_NAMES = {str(c): c for c in ALL_CARDS}
_CARD_NAMES |= {s.letter + "10": Card(s, Rank.TEN) for s in Suit}
_CARD_NAMES |= {s.symbol + r.letter: Card(s, r) for s in Suit for r in Rank}
FULL_MASK = (1 << 52) - 1
SUIT_SHIFT = 13
SUIT_MASK = tuple(0x1FFF << (13 * s) for s in Suit)
_PBN_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


class Hand:
    """An immutable set of cards (a holding of any size), iterated spades first, high to low.

    >>> hand = Hand.from_pbn("AKQ.AKQJ.A.65432")
    >>> len(hand), hand.hcp, Card.parse("HJ") in hand
    (13, 23, True)
    """

    __slots__ = ("mask",)

    mask: int
    """The 52-bit set of :attr:`Card.index` bits."""

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        mask = 0
        for card in cards:
            mask |= card.bit
        object.__setattr__(self, "mask", mask)

    @classmethod
    def from_mask(cls, mask: int) -> Hand:
        """The hand whose cards are the set bits of ``mask``."""
        if mask & ~FULL_MASK or mask < 0:
            raise ParseError(f"not a 52-card mask: {mask:#x}")
        hand = object.__new__(cls)
        object.__setattr__(hand, "mask", mask)
        return hand

    @classmethod
    def from_pbn(cls, text: str) -> Hand:
        """A PBN hand: four suits spades first, separated by dots (``"AKQ.AKQJ.A.65432"``)."""
        parts = text.strip().split(".")
        if len(parts) != 4:
            raise ParseError(f"not a PBN hand (need four suits, spades first): {text!r}")
        mask = 0
        for suit, holding in zip(_PBN_SUIT_ORDER, parts, strict=True):
            for char in holding.replace("10", "T"):
                rank = _RANK_NAMES.get(char.upper())
                if rank is None:
                    raise ParseError(f"not a rank in PBN hand {text!r}: {char!r}")
                bit = Card(suit, rank).bit
                if mask & bit:
                    raise ParseError(f"card {suit.letter}{rank.letter} twice in hand {text!r}")
                mask |= bit
        return cls.from_mask(mask)

    def to_pbn(self) -> str:
        """The PBN text of this hand, spades first, high to low."""
        return ".".join(
            "".join(card.rank.letter for card in self.suit(suit)) for suit in _PBN_SUIT_ORDER
        )

    def suit(self, suit: Suit) -> tuple[Card, ...]:
        """This hand's cards of one suit, high to low."""
        return suit_cards(suit, (self.mask >> (13 * suit)) & 0x1FFF)

    @property
    def hcp(self) -> int:
        """High-card points (A 4, K 3, Q 2, J 1)."""
        points = 0
        for suit in range(4):
            bits = self.mask >> (13 * suit)  # the ace is bit 12 of a suit's 13
            points += 4 * (bits >> 12 & 1) + 3 * (bits >> 11 & 1) + 2 * (bits >> 10 & 1)
            points += bits >> 9 & 1
        return points

    def length(self, suit: Suit) -> int:
        """How many cards of ``suit`` the hand holds."""
        return ((self.mask >> (13 * suit)) & 0x1FFF).bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask & card.bit)

    def __iter__(self) -> Iterator[Card]:
        for suit in _PBN_SUIT_ORDER:
            yield from self.suit(suit)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Hand.from_mask, (self.mask,))

    def __repr__(self) -> str:
        return f"Hand.from_pbn({self.to_pbn()!r})"


_SUIT_CARDS: dict[tuple[int, int], tuple[Card, ...]] = {}


def suit_cards(suit: int, bits13: int) -> tuple[Card, ...]:
    """The cards of ``suit`` whose rank bits (bit 0 = two) are set in ``bits13``, high to low.

    Memoised: the play engine calls this for every legal-card query.
    """
    key = (suit, bits13)
    cards = _SUIT_CARDS.get(key)
    if cards is None:
        base = suit * 13
        cards = tuple(ALL_CARDS[base + i] for i in range(12, -1, -1) if bits13 >> i & 1)
        _SUIT_CARDS[key] = cards
    return cards


class Deal:
    """The four hands of one board: 13 different cards to each seat.

    >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
    >>> deal[Seat.NORTH].hcp
    23
    """

    __slots__ = ("_hands",)

    _hands: tuple[Hand, Hand, Hand, Hand]

    def __init__(self, hands: Mapping[Seat, Hand]) -> None:
        try:
            ordered = (hands[Seat.NORTH], hands[Seat.EAST], hands[Seat.SOUTH], hands[Seat.WEST])
        except KeyError as missing:
            raise ParseError(f"deal has no hand for {missing}") from None
        seen = 0
        for seat, hand in zip(Seat, ordered, strict=True):
            if len(hand) != 13:
                raise ParseError(f"{seat.name.title()} has {len(hand)} cards, not 13")
            if seen & hand.mask:
                dup = ", ".join(str(c) for c in Hand.from_mask(seen & hand.mask))
                raise ParseError(f"card dealt twice: {dup}")
            seen |= hand.mask
        object.__setattr__(self, "_hands", ordered)

    @classmethod
    def from_pbn(cls, text: str) -> Deal:
        """A PBN deal: first seat, colon, four hands clockwise (``"N:AKQ.. ... ... ..."``)."""
        text = text.strip()
        first_text, sep, rest = text.partition(":")
        if not sep:
            raise ParseError(f"not a PBN deal (expected 'N:' before the hands): {text!r}")
        first = Seat.parse(first_text)
        parts = rest.split()
        if len(parts) != 4:
            raise ParseError(f"not a PBN deal (need four hands): {text!r}")
        hands = {}
        seat = first
        for part in parts:
            hands[seat] = Hand.from_pbn(part)
            seat = seat.next
        return cls(hands)

    def to_pbn(self, first: Seat = Seat.NORTH) -> str:
        """PBN deal text, starting with ``first``."""
        seats = [Seat((first + i) % 4) for i in range(4)]
        return f"{first.letter}:" + " ".join(self[s].to_pbn() for s in seats)

    @classmethod
    def random(cls, rng: random.Random) -> Deal:
        """A uniformly random deal drawn from ``rng`` (``random.SystemRandom()`` for real play)."""
        order = list(range(52))
        rng.shuffle(order)
        masks = [0, 0, 0, 0]
        for position, index in enumerate(order):
            masks[position % 4] |= 1 << index
        return cls({seat: Hand.from_mask(masks[seat]) for seat in Seat})

    def owner(self, card: Card) -> Seat:
        """The seat dealt ``card``."""
        for seat, hand in zip(_SEATS, self._hands, strict=True):
            if hand.mask & card.bit:
                return seat
        raise AssertionError("a complete deal holds every card")  # pragma: no cover

    def __getitem__(self, seat: Seat) -> Hand:
        return self._hands[seat]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and other._hands == self._hands

    def __hash__(self) -> int:
        return hash(self._hands)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Deal is immutable")

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Deal.from_pbn, (self.to_pbn(),))

    def __repr__(self) -> str:
        return f"Deal.from_pbn({self.to_pbn()!r})"

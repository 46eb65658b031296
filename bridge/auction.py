"""Calls, the auction and the contract it ends in."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bridge.cards import Seat, Strain, as_seat
from bridge.errors import IllegalCall, OutOfTurn, ParseError, WrongPhase

__all__ = [
    "DOUBLE",
    "PASS",
    "REDOUBLE",
    "Auction",
    "Bid",
    "Call",
    "Contract",
    "Double",
    "Pass",
    "Redouble",
]


@dataclass(frozen=True, slots=True)
class Call:
    """A call: a :class:`Bid`, :data:`PASS`, :data:`DOUBLE` or :data:`REDOUBLE`.

    >>> str(Call.parse("3nt")), str(Call.parse("Pass")), str(Call.parse("xx"))
    ('3NT', 'P', 'XX')
    """

    @classmethod
    def parse(cls, text: str) -> Call:
        """``"1S"``, ``"3NT"``, ``"3N"``, ``"P"``/``"Pass"``, ``"X"``/``"Dbl"``, ``"XX"``/``"Rdbl"``."""
        key = text.strip().upper()
        special = _SPECIAL_CALLS.get(key)
        if special is not None:
            return special
        match = _BID_RE.fullmatch(key)
        if match is None:
            raise ParseError(f"not a call: {text!r} (expected a bid like 1S or 3NT, P, X or XX)")
        return Bid(int(match[1]), Strain.parse(match[2]))


@dataclass(frozen=True, slots=True)
class Bid(Call):
    """A bid: a level from 1 to 7 and a strain; :attr:`rank` orders bids by level, then strain."""

    level: int
    strain: Strain

    def __post_init__(self) -> None:
        if (
            isinstance(self.level, bool)
            or not isinstance(self.level, int)
            or not 1 <= self.level <= 7
        ):
            raise ParseError(f"a bid's level is 1 to 7, got {self.level!r}")
        if not isinstance(self.strain, Strain):
            raise ParseError(f"a bid's strain is a Strain, got {self.strain!r}")

    @property
    def rank(self) -> int:
        """0 for 1C up to 34 for 7NT: a bid is sufficient when its rank is higher."""
        return (self.level - 1) * 5 + self.strain

    def __str__(self) -> str:
        # One string per bid, made once: views name the legal calls and the auction at
        # every update, and keep them.
        return _BID_TEXTS[self.rank]


@dataclass(frozen=True, slots=True)
class Pass(Call):
    """Pass."""

    def __str__(self) -> str:
        return "P"


@dataclass(frozen=True, slots=True)
class Double(Call):
    """Double (X) of the opponents' last bid."""

    def __str__(self) -> str:
        return "X"


@dataclass(frozen=True, slots=True)
class Redouble(Call):
    """Redouble (XX) of the opponents' double."""

    def __str__(self) -> str:
        return "XX"


PASS = Pass()
DOUBLE = Double()
REDOUBLE = Redouble()
ALL_BIDS: tuple[Bid, ...] = tuple(Bid(level, strain) for level in range(1, 8) for strain in Strain)
_BID_TEXTS: tuple[str, ...] = tuple(f"{bid.level}{bid.strain.letter}" for bid in ALL_BIDS)
_BID_RE = re.compile(r"([1-7])\s*(NT|N|C|D|H|S|♣|♦|♥|♠)")
_SPECIAL_CALLS: dict[str, Call] = {
    "P": PASS,
    "PASS": PASS,
    "X": DOUBLE,
    "D": DOUBLE,
    "DBL": DOUBLE,
    "DOUBLE": DOUBLE,
    "XX": REDOUBLE,
    "R": REDOUBLE,
    "RDBL": REDOUBLE,
    "REDOUBLE": REDOUBLE,
}


@dataclass(frozen=True, slots=True)
class Contract:
    """A final contract: level, strain and 0 (undoubled), 1 (doubled) or 2 (redoubled).

    >>> contract = Contract.parse("4SX")
    >>> contract.level, contract.strain, contract.doubled, str(contract)
    (4, <Strain.SPADES: 3>, 1, '4SX')
    """

    level: int
    strain: Strain
    doubled: int = 0

    def __post_init__(self) -> None:
        Bid(self.level, self.strain)  # validates level and strain
        if self.doubled not in (0, 1, 2) or isinstance(self.doubled, bool):
            raise ParseError(f"doubled is 0, 1 or 2, got {self.doubled!r}")

    @classmethod
    def parse(cls, text: str) -> Contract:
        """``"4S"``, ``"4SX"``, ``"6HXX"``, ``"3NT"``, ``"3N"`` -> the contract."""
        match = _CONTRACT_RE.fullmatch(text.strip().upper())
        if match is None:
            raise ParseError(f"not a contract: {text!r} (expected like 4S, 3NT, 4SX or 6HXX)")
        return cls(int(match[1]), Strain.parse(match[2]), len(match[3]))

    @property
    def tricks_needed(self) -> int:
        """The tricks declarer must take: six plus the level."""
        return 6 + self.level

    def __str__(self) -> str:
        return f"{self.level}{self.strain.letter}{'X' * self.doubled}"


_CONTRACT_RE = re.compile(r"([1-7])\s*(NT|N|C|D|H|S|♣|♦|♥|♠)\s*(X{0,2})")


class Auction:
    """The auction of one board, dealer first and clockwise.

    ``call`` applies a call or raises :class:`IllegalCall` and leaves the auction as it was.

    >>> auction = Auction(Seat.NORTH)
    >>> for text in ["1S", "P", "4S", "X", "P", "P", "P"]:
    ...     auction.call(Call.parse(text))
    >>> str(auction.contract), auction.declarer
    ('4SX', <Seat.NORTH: 0>)
    """

    def __init__(self, dealer: Seat) -> None:
        self.dealer = as_seat(dealer)
        self._clear()

    def _clear(self) -> None:
        self._calls: list[Call] = []
        self._last_bid: Bid | None = None
        self._last_bidder: Seat | None = None
        self._doubled = 0
        self._passes = 0  # passes in a row
        self._first_to_name: dict[tuple[int, Strain], Seat] = {}

    def copy(self) -> Auction:
        """An independent copy (calls are immutable and shared)."""
        other = Auction.__new__(Auction)
        other.dealer = self.dealer
        other._calls = list(self._calls)
        other._last_bid = self._last_bid
        other._last_bidder = self._last_bidder
        other._doubled = self._doubled
        other._passes = self._passes
        other._first_to_name = dict(self._first_to_name)
        return other

    @classmethod
    def replay(cls, dealer: Seat, calls: Iterable[Call | str]) -> Auction:
        """An auction with ``calls`` applied in order (strings are parsed)."""
        auction = cls(dealer)
        for call in calls:
            auction.call(Call.parse(call) if isinstance(call, str) else call)
        return auction

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls made so far, dealer's first."""
        return tuple(self._calls)

    @property
    def is_complete(self) -> bool:
        """True after four passes at the start, or three passes in a row after a bid."""
        return self._passes >= 4 or (self._passes == 3 and self._last_bid is not None)

    @property
    def is_passed_out(self) -> bool:
        """True when all four players passed at their first turn."""
        return self._passes >= 4 and self._last_bid is None

    @property
    def turn(self) -> Seat | None:
        """The seat to call next, or None when the auction is over."""
        if self.is_complete:
            return None
        return Seat((self.dealer + len(self._calls)) % 4)

    @property
    def contract(self) -> Contract | None:
        """The final contract once the auction is over; None while it runs or when passed out."""
        if not self.is_complete or self._last_bid is None:
            return None
        return Contract(self._last_bid.level, self._last_bid.strain, self._doubled)

    @property
    def declarer(self) -> Seat | None:
        """The member of the contracting side who first named the final strain."""
        if not self.is_complete or self._last_bid is None or self._last_bidder is None:
            return None
        return self._first_to_name[(self._last_bidder % 2, self._last_bid.strain)]

    def legal_calls(self) -> list[Call]:
        """Every call the seat on turn may make now: pass, double, redouble, then bids upward."""
        if self.is_complete:
            return []
        calls: list[Call] = [PASS]
        if self._can_double():
            calls.append(DOUBLE)
        if self._can_redouble():
            calls.append(REDOUBLE)
        start = 0 if self._last_bid is None else self._last_bid.rank + 1
        calls.extend(ALL_BIDS[start:])
        return calls

    def is_legal(self, call: Call) -> bool:
        """Whether ``call`` may be made now by the seat on turn."""
        try:
            self._check(call)
        except IllegalCall:
            return False
        return True

    def call(self, call: Call, seat: Seat | None = None) -> None:
        """Apply ``call``; with ``seat``, also check that it is that seat's turn.

        Raises :class:`IllegalCall` (or its subclasses :class:`OutOfTurn` and
        :class:`WrongPhase`) and changes nothing when the call is not allowed.
        """
        turn = self.turn
        if turn is None:
            raise WrongPhase("the auction is over")
        if seat is not None and as_seat(seat) != turn:
            raise OutOfTurn(
                f"it is {turn.name.title()}'s turn to call, not {as_seat(seat).name.title()}'s"
            )
        self._check(call)
        self._apply(call, turn)

    def undo(self) -> Call:
        """Take back the last call and return it: the auction is as if it had never been made.

        The call that ended the auction may be taken back too (the auction reopens), and so
        may the fourth pass of a passed-out board. Raises :class:`WrongPhase` and changes
        nothing when no call has been made.

        >>> auction = Auction.replay(Seat.NORTH, ["1S", "P", "P", "P"])
        >>> str(auction.undo()), auction.is_complete, auction.turn
        ('P', False, <Seat.WEST: 3>)
        """
        if not self._calls:
            raise WrongPhase("no call has been made: there is nothing to take back")
        *earlier, last = self._calls
        # Replaying is the simplest way to restore everything a call changed (the
        # doubling, passes in a row, who first named a strain); auctions are short.
        self._clear()
        for call in earlier:
            self._apply(call, Seat((self.dealer + len(self._calls)) % 4))
        return last

    def _apply(self, call: Call, turn: Seat) -> None:
        if isinstance(call, Bid):
            self._last_bid = call
            self._last_bidder = turn
            self._doubled = 0
            self._passes = 0
            self._first_to_name.setdefault((turn % 2, call.strain), turn)
        elif isinstance(call, Double):
            self._doubled = 1
            self._passes = 0
        elif isinstance(call, Redouble):
            self._doubled = 2
            self._passes = 0
        else:
            self._passes += 1
        self._calls.append(call)

    def _check(self, call: Call) -> None:
        if self.is_complete:
            raise WrongPhase("the auction is over")
        if isinstance(call, Bid):
            if self._last_bid is not None and call.rank <= self._last_bid.rank:
                raise IllegalCall(f"{call} is insufficient: the last bid was {self._last_bid}")
        elif isinstance(call, Double):
            if not self._can_double():
                raise IllegalCall(
                    "double is only allowed of an opponent's last bid, not yet doubled"
                )
        elif isinstance(call, Redouble):
            if not self._can_redouble():
                raise IllegalCall(
                    "redouble is only allowed of an opponent's double of your side's bid"
                )
        elif not isinstance(call, Pass):
            raise IllegalCall(f"not a call: {call!r}")

    def _opponents_bid_last(self) -> bool:
        turn = self.turn
        return (
            turn is not None
            and self._last_bidder is not None
            and (self._last_bidder - turn) % 2 == 1
        )

    def _can_double(self) -> bool:
        return self._doubled == 0 and self._opponents_bid_last()

    def _can_redouble(self) -> bool:
        return self._doubled == 1 and self._last_bid is not None and not self._opponents_bid_last()

    def __repr__(self) -> str:
        calls = " ".join(str(c) for c in self._calls)
        return f"<Auction dealer={self.dealer.letter} calls=[{calls}]>"

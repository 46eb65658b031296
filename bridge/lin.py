"""Read and write LIN, the format of Bridge Base Online's hand viewer and vugraph archives.

LIN is a flat run of ``tag|value|`` pairs. A hand-viewer LIN is one board::

    pn|South,West,North,East|st||md|3S9642H765DJTCQJ93,SK3HKQ8DKQ972CA84,SQJTHA432D8643CK2,|
    rh||ah|Board 3|sv|n|mb|p|mb|1D|mb|p|mb|1S|mb|p|mb|2N!|an|18-19|mb|p|mb|3N|mb|p|mb|p|mb|p|
    pg||pc|sQ|pc|s5|pc|s2|pc|sK|pg||mc|10|pg||

A vugraph match file starts with a header (``vg|`` event, segment, scoring letter, first and
last board, the two teams and their carry-over; ``rs|`` the tables' results; ``pn|`` eight
names, open room S W N E then closed room S W N E) and then has one ``qx|o46|`` (open room,
board 46) or ``qx|c46|`` (closed room) block per table.

The tags read here: ``md`` the deal (a dealer digit, 1 South, 2 West, 3 North, 4 East, then
the hands South, West, North, East; the fourth may be left out and is then what the other
three do not hold), ``sv`` the vulnerability (``o`` none, ``n`` N-S, ``e`` E-W, ``b`` both;
``0`` and ``-`` are read as none too), ``mb`` a call (``p``, ``d``, ``r``, bids like ``1N``
or ``3C``; a ``!`` after it is an alert), ``an`` the explanation of the call just made, ``pc``
a card, ``mc`` a claim (declarer's total tricks), ``nt`` a line of commentary (kept with its
place among the calls and cards: :class:`LinComment`), ``pn`` the players, ``ah`` the heading
(``Board 3`` gives the board number), ``qx``, ``vg`` and ``rs``. Every other tag (``pg``,
``st``, ``rh``, ``sk``, ``bn``, ``pw``, ``mp`` ...) is skipped. Tag names are two letters in
either case; line breaks are not part of the format (files break lines for readability, even
inside a value) and are deleted wherever they are.

The boards are replayed through the rules while reading: an illegal call or card, a card
before the auction is over, a claim of more tricks than are left, all raise
:class:`LinError`, which says where (line and column) and what; the readers raise no
other exception, whatever the text.

Escaping: LIN has none. A value cannot hold ``|``, and a name, a team or an event cannot
hold ``,`` either (they are written in comma-separated lists); line breaks would be lost.
So :class:`LinCall`, :class:`LinComment`, :class:`LinBoard` and :class:`LinMatch` refuse such
text with a :class:`~bridge.errors.BridgeError`, and whatever they accept is written and read
back unchanged. Everything else is kept verbatim: ``!``, ``%``, ``,`` in an explanation and
any Unicode (BBO's viewer shows ``!s`` ``!h`` ``!d`` ``!c`` in an explanation as suit
symbols; this module leaves them as they are). :func:`handviewer_url` percent-encodes the
whole line as UTF-8.

>>> board = parse_lin(
...     "pn|Meckstroth,Levin,Rodwell,Weinstein|st||"
...     "md|4SJ5H9DAT862CQ8752,SKQT94HAK73DQ4C93,S872HQT5DJ97CAT64,|rh||ah|Board 46|sv|o|"
...     "mb|1H|mb|p|mb|3C!|an|jacoby 2N|mb|p|mb|4H|mb|p|mb|p|mb|p|pg||"
...     "pc|c2|pc|c3|pc|cA|pc|cJ|pg||mc|10|pg||"
... )[0]
>>> board.number, board.dealer, board.north, str(board.contract), board.declarer
(46, <Seat.EAST: 1>, 'Rodwell', '4H', <Seat.EAST: 1>)
>>> board.calls[2]
LinCall(call=Bid(level=3, strain=<Strain.CLUBS: 0>), alert=True, explanation='jacoby 2N')
>>> board.result, board.score, str(board.table_result)
(10, -420, '4HE=')
>>> dump_lin(board)[:40]
'pn|Meckstroth,Levin,Rodwell,Weinstein|st'
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import parse_qs, quote, urlsplit

from bridge.auction import Auction, Bid, Call, Contract, Double, Pass, Redouble
from bridge.boards import Vulnerability, board_dealer, board_vulnerability
from bridge.cards import Card, Deal, Hand, Rank, Seat, Strain, Suit
from bridge.errors import BridgeError, IllegalPlay, ParseError, WrongPhase
from bridge.play import Play
from bridge.scoring import imps, score

__all__ = [
    "HANDVIEWER_URL",
    "LinBoard",
    "LinCall",
    "LinComment",
    "LinError",
    "LinMatch",
    "LinResult",
    "Room",
    "dump_lin",
    "dump_lin_lines",
    "dump_lin_match",
    "handviewer_url",
    "parse_handviewer_url",
    "parse_lin",
    "parse_lin_match",
]

HANDVIEWER_URL = "https://www.bridgebase.com/tools/handviewer.html?lin="
"""BBO's hand viewer; the URL-encoded LIN of one board follows ``lin=``."""

_LIN_SEATS = (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
"""LIN's seat order: ``md`` hands, ``pn`` names, and dealer digits 1 to 4."""
_LIN_SUITS = {"S": Suit.SPADES, "H": Suit.HEARTS, "D": Suit.DIAMONDS, "C": Suit.CLUBS}
_RANKS = {rank.letter: rank for rank in Rank}
_VULNERABILITY_LETTERS = {
    Vulnerability.NONE: "o",
    Vulnerability.NS: "n",
    Vulnerability.EW: "e",
    Vulnerability.BOTH: "b",
}
_VULNERABILITIES = {letter: vul for vul, letter in _VULNERABILITY_LETTERS.items()} | {
    "0": Vulnerability.NONE,
    "-": Vulnerability.NONE,
    "": Vulnerability.NONE,
}
_MAX_BOARD = 999_999_999
_LINE_BREAKS = str.maketrans("", "", "\r\n")
_VALUE_FORBIDDEN = "|\r\n"
_LIST_FORBIDDEN = "|,\r\n"


class LinError(ParseError):
    """LIN text that cannot be read: what is wrong, and where (1-based ``line`` and ``column``).

    >>> parse_lin("md|1SAKQ|")
    Traceback (most recent call last):
    ...
    bridge.lin.LinError: line 1, column 4: md|1SAKQ|: South has 3 cards, not 13
    """

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        where = []
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        BridgeError.__init__(self, f"{', '.join(where)}: {message}" if where else message)
        self.line = line
        self.column = column


class Room(Enum):
    """The room of a team match's table in a vugraph file: ``qx|o46|`` open, ``qx|c46|`` closed."""

    OPEN = "o"
    CLOSED = "c"


def _check_text(what: str, text: object, forbidden: str) -> None:
    """Refuse text LIN cannot carry: ``forbidden`` characters, or what UTF-8 cannot encode."""
    if not isinstance(text, str):
        raise BridgeError(f"{what} must be text, got {text!r}")
    bad = sorted({char for char in text if char in forbidden})
    if bad:
        shown = ", ".join(repr(char) for char in bad)
        raise BridgeError(
            f"LIN cannot carry {what} {text!r}: it has {shown} (LIN has no escape for '|', "
            "nor for ',' in a list, and line breaks are not part of the format)"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BridgeError(f"{what} {text!r} is not encodable text (a lone surrogate)") from None


def _check_number(what: str, number: object, optional: bool = True) -> None:
    if number is None and optional:
        return
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= _MAX_BOARD:
        raise BridgeError(f"{what} is a whole number from 1 to {_MAX_BOARD}, got {number!r}")


@dataclass(frozen=True, slots=True)
class LinCall:
    """A call of a LIN auction: ``mb|3C!|an|jacoby 2N|`` is an alerted 3C with its explanation.

    An explanation may come without an alert; ``""`` is no explanation. ``str()`` gives the
    ``mb`` value.

    >>> str(LinCall(Call.parse("3C"), alert=True, explanation="jacoby 2N"))
    '3C!'
    """

    call: Call
    alert: bool = False
    explanation: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.call, (Bid, Pass, Double, Redouble)):
            raise BridgeError(f"not a call: {self.call!r}")
        if not isinstance(self.alert, bool):
            raise BridgeError(f"alert is True or False, got {self.alert!r}")
        _check_text("the explanation", self.explanation, _VALUE_FORBIDDEN)

    def __str__(self) -> str:
        return _call_text(self.call) + ("!" if self.alert else "")


def _call_text(call: Call) -> str:
    if isinstance(call, Bid):
        return f"{call.level}{'N' if call.strain == Strain.NOTRUMP else call.strain.letter}"
    if isinstance(call, Double):
        return "d"
    if isinstance(call, Redouble):
        return "r"
    return "p"


@dataclass(frozen=True, slots=True)
class LinComment:
    """A line of commentary, ``nt|...|``, and its place in the board: after the first
    ``after`` of the board's calls, cards and claim, in that order (0: before the first call).

    >>> board = parse_lin("md|1S9642H765DJTCQJ93,SK3HKQ8DKQ972CA84,SQJTHA432D8643CK2,|"
    ...                   "mb|1C|nt|jlall: a strong club?|mb|p|")[0]
    >>> board.commentary
    (LinComment(after=1, text='jlall: a strong club?'),)
    """

    after: int
    text: str

    def __post_init__(self) -> None:
        if isinstance(self.after, bool) or not isinstance(self.after, int) or self.after < 0:
            raise BridgeError(
                f"a comment comes after a number of calls and cards, got {self.after!r}"
            )
        _check_text("a comment", self.text, _VALUE_FORBIDDEN)


_RESULT_RE = re.compile(r"([1-7])(NT|N|C|D|H|S)([NESW])(X{0,2})(=|[+-][0-9]{1,2})")


@dataclass(frozen=True, slots=True)
class LinResult:
    """A table's result as the ``rs|`` line writes it: ``4HE=``, ``3NW+1``, ``4SWx-4``.

    ``tricks`` are declarer's. A passed-out table has no contract and no declarer, and is
    written ``PASS`` (``P`` is read too).

    >>> result = LinResult.parse("4SWx-4")
    >>> str(result.contract), result.declarer, result.tricks, str(result)
    ('4SX', <Seat.WEST: 3>, 6, '4SWx-4')
    >>> result.score(Vulnerability.NONE)
    800
    """

    contract: Contract | None = None
    declarer: Seat | None = None
    tricks: int = 0

    def __post_init__(self) -> None:
        if (self.contract is None) != (self.declarer is None):
            raise BridgeError("a result has both a contract and a declarer, or neither")
        if self.contract is not None and not isinstance(self.contract, Contract):
            raise BridgeError(f"not a contract: {self.contract!r}")
        if self.declarer is not None and not isinstance(self.declarer, Seat):
            raise BridgeError(f"not a seat: {self.declarer!r}")
        if isinstance(self.tricks, bool) or not isinstance(self.tricks, int):
            raise BridgeError(f"tricks are a whole number, got {self.tricks!r}")
        if not 0 <= self.tricks <= 13 or (self.contract is None and self.tricks != 0):
            raise BridgeError(
                f"declarer's tricks are 0 to 13 (0 when passed out), got {self.tricks}"
            )

    @classmethod
    def parse(cls, text: str) -> LinResult:
        """An ``rs`` entry: level, strain, declarer, ``x`` or ``xx``, then ``=``, ``+n`` or ``-n``."""
        key = text.strip().upper()
        if key in ("P", "PASS"):
            return cls()
        match = _RESULT_RE.fullmatch(key)
        if match is None:
            raise LinError(
                f"not a table result: {text!r} (expected like 4HE=, 3NW+1, 4SWx-4 or PASS)"
            )
        contract = Contract(int(match[1]), Strain.parse(match[2]), len(match[4]))
        over = 0 if match[5] == "=" else int(match[5])
        tricks = contract.tricks_needed + over
        if match[5] in ("+0", "-0", "+00", "-00") or not 0 <= tricks <= 13:
            raise LinError(f"not a table result: {text!r} ({tricks} tricks)")
        return cls(contract, Seat.parse(match[3]), tricks)

    def score(self, vulnerability: Vulnerability) -> int:
        """The table's duplicate score, signed from North-South."""
        return score(self.contract, self.declarer, vulnerability, self.tricks)

    def __str__(self) -> str:
        if self.contract is None or self.declarer is None:
            return "PASS"
        contract = self.contract
        strain = "N" if contract.strain == Strain.NOTRUMP else contract.strain.letter
        over = self.tricks - contract.tricks_needed
        made = "=" if over == 0 else f"{over:+d}"
        return f"{contract.level}{strain}{self.declarer.letter}{'x' * contract.doubled}{made}"


@dataclass(frozen=True, slots=True, kw_only=True)
class LinBoard:
    """One table's board as LIN carries it: the deal, the players, the auction, the play.

    ``claim`` is an ``mc`` claim: declarer's total tricks, which ends the play. ``room`` is
    set for a table of a vugraph match (it needs a ``number``). ``commentary``: the ``nt``
    lines, in order, each placed among the calls, cards and claim. The value is replayed
    through the rules when made, so an illegal call or card, or a claim of more tricks than
    are left, raises :class:`~bridge.errors.IllegalCall` or :class:`~bridge.errors.IllegalPlay`,
    and :attr:`contract`, :attr:`declarer`, :attr:`result` and :attr:`score` follow.

    >>> from bridge import Deal, Seat
    >>> import random
    >>> board = LinBoard(deal=Deal.random(random.Random(1)), dealer=Seat.NORTH,
    ...                  calls=tuple(LinCall(Call.parse(c)) for c in ["1S", "P", "P", "P"]))
    >>> str(board.contract), board.declarer, board.result
    ('1S', <Seat.NORTH: 0>, None)
    """

    deal: Deal
    dealer: Seat
    vulnerability: Vulnerability = Vulnerability.NONE
    number: int | None = None
    room: Room | None = None
    south: str = ""
    west: str = ""
    north: str = ""
    east: str = ""
    calls: tuple[LinCall, ...] = ()
    cards: tuple[Card, ...] = ()
    claim: int | None = None
    commentary: tuple[LinComment, ...] = ()
    _contract: Contract | None = field(init=False, repr=False, compare=False)
    _declarer: Seat | None = field(init=False, repr=False, compare=False)
    _passed_out: bool = field(init=False, repr=False, compare=False)
    _result: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.deal, Deal):
            raise BridgeError(f"not a deal: {self.deal!r}")
        if not isinstance(self.dealer, Seat):
            raise BridgeError(f"the dealer is a Seat, got {self.dealer!r}")
        if not isinstance(self.vulnerability, Vulnerability):
            raise BridgeError(f"not a vulnerability: {self.vulnerability!r}")
        _check_number("the board number", self.number)
        if self.room is not None:
            if not isinstance(self.room, Room):
                raise BridgeError(f"the room is a Room or None, got {self.room!r}")
            if self.number is None:
                raise BridgeError("a board with a room needs a number (qx|o46|)")
        for seat in _LIN_SEATS:
            _check_text(f"the name of {seat.name.title()}", self.player(seat), _LIST_FORBIDDEN)
        if not all(isinstance(call, LinCall) for call in self.calls):
            raise BridgeError("the calls of a LinBoard are LinCalls")
        if not all(isinstance(card, Card) for card in self.cards):
            raise BridgeError("the cards of a LinBoard are Cards")
        if self.claim is not None and (
            isinstance(self.claim, bool) or not isinstance(self.claim, int)
        ):
            raise BridgeError(f"a claim is declarer's total tricks, got {self.claim!r}")
        if not all(isinstance(comment, LinComment) for comment in self.commentary):
            raise BridgeError("the commentary of a LinBoard is LinComments")
        places = [comment.after for comment in self.commentary]
        events = len(self.calls) + len(self.cards) + (self.claim is not None)
        if places != sorted(places) or any(place > events for place in places):
            raise BridgeError(
                f"comments come in order, each after at most the board's {events} calls, "
                f"cards and claim, got places {places}"
            )
        auction, play = _replay(self)
        object.__setattr__(self, "_contract", auction.contract)
        object.__setattr__(self, "_declarer", auction.declarer)
        object.__setattr__(self, "_passed_out", auction.is_passed_out)
        object.__setattr__(self, "_result", None if play is None else play.result)

    def player(self, seat: Seat) -> str:
        """The name of the player in ``seat`` (``""`` when LIN gave none)."""
        return (self.north, self.east, self.south, self.west)[seat]

    @property
    def contract(self) -> Contract | None:
        """The final contract once the auction is over; None while it runs or when passed out."""
        return self._contract

    @property
    def declarer(self) -> Seat | None:
        """Declarer once the auction is over; None otherwise."""
        return self._declarer

    @property
    def is_passed_out(self) -> bool:
        """True when all four players passed."""
        return self._passed_out

    @property
    def result(self) -> int | None:
        """Declarer's tricks once the play is over (13 tricks or the claim); else None."""
        return self._result

    @property
    def score(self) -> int | None:
        """The table's duplicate score signed from North-South, once known; 0 when passed out."""
        if self._passed_out:
            return 0
        if self._result is None:
            return None
        return score(self._contract, self._declarer, self.vulnerability, self._result)

    @property
    def table_result(self) -> LinResult | None:
        """The result as an ``rs`` entry writes it, once the board is over; else None."""
        if self._passed_out:
            return LinResult()
        if self._result is None:
            return None
        return LinResult(self._contract, self._declarer, self._result)

    def build_auction(self) -> Auction:
        """A fresh :class:`~bridge.auction.Auction` with the calls applied."""
        return _replay(self)[0]

    def build_play(self) -> Play:
        """A fresh :class:`~bridge.play.Play` with the cards played and the claim accepted.

        Raises :class:`~bridge.errors.WrongPhase` when there is no contract (the auction is
        passed out or not over).
        """
        auction, play = _replay(self)
        if play is None:
            raise WrongPhase(
                "no play: the board was passed out"
                if auction.is_passed_out
                else "no play: the auction is not over"
            )
        return play


def _replay(board: LinBoard) -> tuple[Auction, Play | None]:
    """The auction and (when there is a contract) the play of ``board``, claim applied."""
    auction = Auction(board.dealer)
    for lin_call in board.calls:
        auction.call(lin_call.call)
    contract, declarer = auction.contract, auction.declarer
    if contract is None or declarer is None:
        if board.cards or board.claim is not None:
            state = "was passed out" if auction.is_passed_out else "is not over"
            raise WrongPhase(f"cards or a claim, but the auction {state}")
        return auction, None
    play = Play(board.deal, contract, declarer)
    for card in board.cards:
        play.play(card)
    if board.claim is not None:
        _check_claim(play, board.claim)
        if not play.is_complete:
            claim = play.claim(declarer, board.claim - play.declarer_tricks)
            for seat in sorted(claim.deciders):
                play.accept_claim(seat)
    return auction, play


def _check_claim(play: Play, total: int) -> None:
    """An ``mc`` total must lie between declarer's tricks so far and those plus the rest."""
    won = play.declarer_tricks
    left = 0 if play.is_complete else play.remaining_tricks
    if not won <= total <= won + left:
        raise IllegalPlay(
            f"a claim of {total} tricks in all for declarer: declarer has {won} "
            f"with {left} to play, so {won} to {won + left}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LinMatch:
    """A vugraph match file: its ``vg`` header, its ``rs`` results and its tables' boards.

    The first team sits North-South in the open room (BBO's convention). ``carry_over`` is
    each team's score before this segment. ``results`` are the ``rs`` entries verbatim,
    normally one per table in file order (:meth:`computed_results` makes them from the
    boards). Every board needs its room and number (``qx|o46|``).

    >>> match = LinMatch(event="Trials", segment="Segment 1", teams=("Home", "Away"))
    >>> dump_lin_match(match)
    'vg|Trials,Segment 1,I,,,Home,0,Away,0|\\npn|,,,,,,,|\\n'
    """

    event: str = ""
    segment: str = ""
    scoring: str = "I"
    """``I`` IMPs, ``P`` matchpoints, ``B`` board-a-match; kept verbatim."""
    first_board: int | None = None
    last_board: int | None = None
    teams: tuple[str, str] = ("", "")
    carry_over: tuple[int | float, int | float] = (0, 0)
    results: tuple[str, ...] = ()
    boards: tuple[LinBoard, ...] = ()

    def __post_init__(self) -> None:
        _check_text("the event", self.event, _LIST_FORBIDDEN)
        _check_text("the segment", self.segment, _LIST_FORBIDDEN)
        _check_text("the scoring", self.scoring, _LIST_FORBIDDEN)
        _check_number("the first board", self.first_board)
        _check_number("the last board", self.last_board)
        if len(self.teams) != 2 or len(self.carry_over) != 2:
            raise BridgeError("a match has two teams and two carry-overs")
        for team in self.teams:
            _check_text("a team name", team, _LIST_FORBIDDEN)
        for carry in self.carry_over:
            if (
                isinstance(carry, bool)
                or not isinstance(carry, (int, float))
                or not _CARRY_RE.fullmatch(_number(carry))
            ):
                raise BridgeError(
                    f"a carry-over is a number of at most 9 digits and 6 decimals, got {carry!r}"
                )
        for entry in self.results:
            _check_text("a result", entry, _LIST_FORBIDDEN)
        for board in self.boards:
            if not isinstance(board, LinBoard):
                raise BridgeError(f"not a LinBoard: {board!r}")
            if board.room is None or board.number is None:
                raise BridgeError("a board of a match file needs its room and number (qx|o46|)")

    def computed_results(self) -> tuple[str, ...]:
        """The ``rs`` entries the boards give: one per board in order, ``""`` when unfinished."""
        return tuple(
            "" if board.table_result is None else str(board.table_result) for board in self.boards
        )

    def imps_by_board(self) -> dict[int, int]:
        """IMPs of each board finished in both rooms, for the first team.

        That is ``imps(open room N-S score - closed room N-S score)``, by board number.
        """
        scores: dict[Room, dict[int, int]] = {Room.OPEN: {}, Room.CLOSED: {}}
        for board in self.boards:
            if board.score is not None and board.room is not None and board.number is not None:
                scores[board.room][board.number] = board.score
        closed = scores[Room.CLOSED]
        return {
            number: imps(open_score - closed[number])
            for number, open_score in sorted(scores[Room.OPEN].items())
            if number in closed
        }


_CARRY_RE = re.compile(r"-?[0-9]{1,9}(?:\.[0-9]{1,6})?")


def _number(value: int | float) -> str:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


# -- reading ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tag:
    """One ``key|value|`` pair, with the offsets of the key and the value in the text."""

    key: str
    value: str
    key_at: int
    value_at: int

    def __str__(self) -> str:
        value = self.value if len(self.value) <= 40 else self.value[:37] + "..."
        return f"{self.key}|{value}|"


@dataclass(slots=True)
class _CallDraft:
    call: Call
    alert: bool
    explanations: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _BoardDraft:
    """A board being read: what its tags said, in order, until the next board starts."""

    start: _Tag
    from_qx: bool
    room: Room | None = None
    number: int | None = None
    heading_number: int | None = None
    deal_tag: _Tag | None = None
    dealer: Seat | None = None
    deal: Deal | None = None
    names: tuple[str, ...] = ()
    vulnerability: Vulnerability | None = None
    events: list[tuple[_Tag, _CallDraft | Card | int]] = field(default_factory=list)
    calls: list[_CallDraft] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)
    """Each ``nt``'s text and how many calls, cards and claims came before it."""


_TAG_RE = re.compile(r"[A-Za-z]{2}")
_QX_RE = re.compile(r"\s*([OoCc]?)([0-9]{1,9})\s*(?:,.*)?", re.DOTALL)
_HEADING_RE = re.compile(r"board\s*([0-9]{1,9})", re.IGNORECASE)
_BOARD_RE = re.compile(r"\s*([0-9]{1,9})\s*")
_CLAIM_RE = re.compile(r"\s*([0-9]{1,2})\s*")


class _Reader:
    """Reads a LIN text into its header and boards; every error is a LinError with its place."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
        self.header: _Tag | None = None
        self.results: tuple[str, ...] = ()
        self.names: tuple[str, ...] = ()
        self.boards: list[LinBoard] = []
        self.draft: _BoardDraft | None = None
        self.pending: list[str] = []  # commentary between boards: it opens the next one

    def error(self, message: str, offset: int) -> LinError:
        line = bisect_right(self.line_starts, offset)
        return LinError(message, line=line, column=offset - self.line_starts[line - 1] + 1)

    def tags(self) -> list[_Tag]:
        pieces = self.text.split("|")
        offsets = []
        position = 0
        for piece in pieces:
            offsets.append(position)
            position += len(piece) + 1
        tags: list[_Tag] = []
        for index in range(0, len(pieces), 2):
            raw = pieces[index]
            key = raw.translate(_LINE_BREAKS).strip()
            at = offsets[index] + len(raw) - len(raw.lstrip())
            if index + 1 == len(pieces):
                if key:  # text after the last '|' that is not a tag with its value
                    raise self.error(f"{key[:40]!r} is not followed by '|value|'", at)
                break
            if not _TAG_RE.fullmatch(key):
                raise self.error(
                    f"expected a tag (two letters, like md or mb) before '|', found {key[:40]!r}",
                    at,
                )
            value = pieces[index + 1].translate(_LINE_BREAKS)
            tags.append(_Tag(key.lower(), value, at, offsets[index + 1]))
        return tags

    def read(self) -> None:
        for tag in self.tags():
            self.read_tag(tag)
        self.close()

    def read_tag(self, tag: _Tag) -> None:
        key = tag.key
        if key == "vg":
            if self.header is not None:
                raise self.error(f"{tag}: a second vg| header", tag.key_at)
            self.header = tag
        elif key == "rs":
            self.results = tuple(tag.value.split(","))
        elif key == "pn":
            names = tuple(tag.value.split(","))
            if len(names) not in (4, 8):
                raise self.error(
                    f"{tag}: expected 4 names (S, W, N, E) or 8 (open room, then closed), "
                    f"found {len(names)}",
                    tag.value_at,
                )
            draft = self.draft
            if draft is not None and draft.deal_tag is not None and not draft.from_qx:
                self.close()  # a hand-viewer board ends where the next one's names begin
            self.names = names
        elif key == "qx":
            self.close()
            match = _QX_RE.fullmatch(tag.value)
            if match is None or int(match[2]) < 1:
                raise self.error(
                    f"{tag}: expected o (open room) or c (closed room) and the board number",
                    tag.value_at,
                )
            room = Room(match[1].lower()) if match[1] else None
            self.start(_BoardDraft(tag, from_qx=True, room=room, number=int(match[2])))
        elif key == "md":
            if self.draft is not None and self.draft.deal_tag is not None:
                self.close()
            draft = self.board(tag)
            draft.deal_tag = tag
            draft.names = self.names
            try:
                draft.dealer, draft.deal = _read_deal(tag.value)
            except ParseError as error:
                raise self.error(f"{tag}: {error}", tag.value_at) from None
        elif key == "sv":
            vulnerability = _VULNERABILITIES.get(tag.value.strip().lower())
            if vulnerability is None:
                raise self.error(
                    f"{tag}: not a vulnerability {tag.value.strip()!r} "
                    "(expected o none, n N-S, e E-W or b both)",
                    tag.value_at,
                )
            self.board(tag).vulnerability = vulnerability
        elif key == "ah":
            match = _HEADING_RE.search(tag.value)
            if match is not None and int(match[1]) >= 1:
                self.board(tag).heading_number = int(match[1])
        elif key in ("mb", "an", "pc", "mc"):
            self.read_play(tag)
        elif key == "nt":
            text = tag.value
            if self.draft is None:
                self.pending.append(text)
            else:
                self.draft.comments.append((len(self.draft.events), text))
        # Every other tag (pg, st, rh, sk, bn, pw, mp, ...) is display.

    def start(self, draft: _BoardDraft) -> _BoardDraft:
        """A new board, opened by the commentary read since the last one ended."""
        draft.comments = [(0, text) for text in self.pending]
        self.pending = []
        self.draft = draft
        return draft

    def board(self, tag: _Tag) -> _BoardDraft:
        if self.draft is None:
            return self.start(_BoardDraft(tag, from_qx=False))
        return self.draft

    def read_play(self, tag: _Tag) -> None:
        draft = self.board(tag)
        if draft.deal is None:
            raise self.error(f"{tag} before the deal (md|...|)", tag.key_at)
        text = tag.value.strip()
        if tag.key == "mb":
            core = text.rstrip("!").strip()
            try:
                call = Call.parse(core)
            except ParseError:
                raise self.error(
                    f"{tag}: not a call {core!r} (expected p, d, r or a bid like 1N or 3C)",
                    tag.value_at,
                ) from None
            draft.calls.append(_CallDraft(call, text.endswith("!")))
            draft.events.append((tag, draft.calls[-1]))
        elif tag.key == "an":
            if not draft.calls:
                raise self.error(f"{tag}: an explanation before any call", tag.key_at)
            draft.calls[-1].explanations.append(tag.value)
        elif tag.key == "pc":
            try:
                card = Card.parse(text)
            except ParseError:
                raise self.error(
                    f"{tag}: not a card {text!r} (expected suit then rank, like SA or c2)",
                    tag.value_at,
                ) from None
            draft.events.append((tag, card))
        else:
            match = _CLAIM_RE.fullmatch(tag.value)
            if match is None or int(match[1]) > 13:
                raise self.error(
                    f"{tag}: a claim is declarer's total tricks, 0 to 13", tag.value_at
                )
            draft.events.append((tag, int(match[1])))

    def close(self) -> None:
        """Finish the board being read, replaying it to place any illegal call or card."""
        draft, self.draft = self.draft, None
        if draft is None:
            return
        if draft.deal is None or draft.deal_tag is None:
            raise self.error(
                f"a board without a deal (md|...|) at {draft.start}", draft.start.key_at
            )
        number = draft.number if draft.number is not None else draft.heading_number
        dealer = draft.dealer
        if dealer is None:
            if number is None:
                raise self.error(
                    f"{draft.deal_tag}: no dealer digit (1 S, 2 W, 3 N, 4 E) and no board number",
                    draft.deal_tag.value_at,
                )
            dealer = board_dealer(number)
        vulnerability = draft.vulnerability
        if vulnerability is None:
            vulnerability = Vulnerability.NONE if number is None else board_vulnerability(number)
        calls, cards, claim = self.replay(draft, dealer)
        # A comment after a claim that a later one replaced comes after the board's claim.
        events = len(calls) + len(cards) + (claim is not None)
        names = draft.names or ("", "", "", "")
        if len(names) == 8:
            names = names[4:] if draft.room is Room.CLOSED else names[:4]
        south, west, north, east = names
        try:
            commentary = tuple(
                LinComment(min(after, events), text) for after, text in draft.comments
            )
            board = LinBoard(
                deal=draft.deal,
                dealer=dealer,
                vulnerability=vulnerability,
                number=number,
                room=draft.room,
                south=south,
                west=west,
                north=north,
                east=east,
                calls=calls,
                cards=cards,
                claim=claim,
                commentary=commentary,
            )
        except BridgeError as error:
            raise self.error(f"{draft.start}: {error}", draft.start.key_at) from None
        self.boards.append(board)

    def replay(
        self, draft: _BoardDraft, dealer: Seat
    ) -> tuple[tuple[LinCall, ...], tuple[Card, ...], int | None]:
        assert draft.deal is not None
        auction = Auction(dealer)
        play: Play | None = None
        calls: list[LinCall] = []
        cards: list[Card] = []
        claim: int | None = None
        for tag, item in draft.events:
            if isinstance(item, _CallDraft):
                explanation = "; ".join(text for text in item.explanations if text)
                try:
                    auction.call(item.call)
                    calls.append(LinCall(item.call, item.alert, explanation))
                except BridgeError as error:
                    raise self.error(f"{tag}: {error}", tag.value_at) from None
                continue
            if play is None:
                contract, declarer = auction.contract, auction.declarer
                if contract is None or declarer is None:
                    what = "a card" if isinstance(item, Card) else "a claim"
                    state = "was passed out" if auction.is_passed_out else "is not over"
                    raise self.error(f"{tag}: {what}, but the auction {state}", tag.key_at)
                play = Play(draft.deal, contract, declarer)
            try:
                if isinstance(item, Card):
                    if claim is not None:
                        raise IllegalPlay(f"a card after the claim of {claim} tricks")
                    play.play(item)
                    cards.append(item)
                else:
                    _check_claim(play, item)
                    claim = item
            except BridgeError as error:
                raise self.error(f"{tag}: {error}", tag.value_at) from None
        return tuple(calls), tuple(cards), claim

    def match(self) -> LinMatch:
        header = self.header
        if header is None:
            raise LinError("not a vugraph match file: no vg| header")
        fields = header.value.split(",")
        if len(fields) != 9:
            raise self.error(
                f"{header}: expected 9 fields (event, segment, scoring, first board, last "
                f"board, team, carry-over, team, carry-over), found {len(fields)}",
                header.value_at,
            )
        event, segment, scoring, first, last, team_1, carry_1, team_2, carry_2 = fields
        try:
            return LinMatch(
                event=event,
                segment=segment,
                scoring=scoring,
                first_board=self.board_number(header, first),
                last_board=self.board_number(header, last),
                teams=(team_1, team_2),
                carry_over=(self.carry(header, carry_1), self.carry(header, carry_2)),
                results=self.results,
                boards=tuple(self.boards),
            )
        except BridgeError as error:
            raise self.error(f"{header}: {error}", header.key_at) from None

    def board_number(self, header: _Tag, text: str) -> int | None:
        if not text.strip():
            return None
        match = _BOARD_RE.fullmatch(text)
        if match is None or int(match[1]) < 1:
            raise self.error(f"{header}: not a board number: {text!r}", header.value_at)
        return int(match[1])

    def carry(self, header: _Tag, text: str) -> int | float:
        text = text.strip()
        if not text:
            return 0
        if not _CARRY_RE.fullmatch(text):
            raise self.error(f"{header}: not a carry-over score: {text!r}", header.value_at)
        value = float(text)
        return int(value) if value.is_integer() else value


def _read_deal(text: str) -> tuple[Seat | None, Deal]:
    """An ``md`` value -> (dealer or None, the deal); raises ParseError saying what is wrong."""
    text = text.strip()
    dealer: Seat | None = None
    if text[:1] in ("1", "2", "3", "4"):
        dealer = _LIN_SEATS[int(text[0]) - 1]
        text = text[1:]
    elif text[:1].isdigit():
        raise ParseError(f"the dealer digit is 1 (S), 2 (W), 3 (N) or 4 (E), not {text[0]!r}")
    parts = [part.strip() for part in text.split(",")]
    while len(parts) > 4 and not parts[-1]:
        parts.pop()
    if len(parts) > 4:
        raise ParseError(f"more than four hands: {len(parts)}")
    parts += [""] * (4 - len(parts))
    hands: dict[Seat, Hand] = {}
    dealt = 0
    for seat, part in zip(_LIN_SEATS, parts, strict=True):
        if not part:
            continue
        hand = _read_hand(part, seat)
        if len(hand) != 13:
            raise ParseError(f"{seat.name.title()} has {len(hand)} cards, not 13")
        if dealt & hand.mask:
            twice = ", ".join(str(card) for card in Hand.from_mask(dealt & hand.mask))
            raise ParseError(f"card dealt twice: {twice}")
        dealt |= hand.mask
        hands[seat] = hand
    missing = [seat for seat in _LIN_SEATS if seat not in hands]
    if len(missing) > 1:
        names = ", ".join(seat.name.title() for seat in missing)
        raise ParseError(f"no hand for {names}: a deal needs at least three of the four hands")
    if missing:
        hands[missing[0]] = Hand.from_mask(((1 << 52) - 1) & ~dealt)
    return dealer, Deal(hands)


def _read_hand(text: str, seat: Seat) -> Hand:
    mask = 0
    suit: Suit | None = None
    for char in text.upper().replace("10", "T"):
        if char in _LIN_SUITS:
            suit = _LIN_SUITS[char]
            continue
        rank = _RANKS.get(char)
        if rank is None:
            raise ParseError(
                f"{seat.name.title()}'s hand: {char!r} is not a suit (S H D C) or a rank"
            )
        if suit is None:
            raise ParseError(f"{seat.name.title()}'s hand: rank {char!r} before any suit letter")
        card = Card(suit, rank)
        if mask & card.bit:
            raise ParseError(f"{seat.name.title()}'s hand has {card} twice")
        mask |= card.bit
    return Hand.from_mask(mask)


def parse_lin(text: str) -> list[LinBoard]:
    """Every board of a LIN text: a vugraph match file, or one or more hand-viewer boards.

    A board starts at ``qx``; without ``qx``, at a ``pn`` or ``md`` that follows a board's
    deal. Names come from the ``pn`` in effect at the board's ``md`` (the open room's four of
    eight for ``qx|o..|`` and for a board without a room, the closed room's for
    ``qx|c..|``). Without ``sv`` the vulnerability, and without a dealer digit the dealer,
    follow from the board number (no number and no ``sv``: nobody vulnerable). Two ``an``
    for one call are joined with ``"; "``; a later ``mc`` replaces an earlier one, and no
    card may follow a claim. ``qx|o46,BOARD 46|``: what follows the comma is ignored.
    Commentary (``nt``) is kept in its board, in its place (:class:`LinComment`); commentary
    between two boards (before the ``pn`` or ``md`` that starts one) opens the next.
    Raises :class:`LinError` for broken text.
    """
    reader = _Reader(text)
    reader.read()
    return reader.boards


def parse_lin_match(text: str) -> LinMatch:
    """A vugraph match file: its ``vg`` header, ``rs`` results and boards.

    Raises :class:`LinError` for broken text, and when there is no ``vg`` header or a board
    has no room (``qx|o46|`` or ``qx|c46|``).
    """
    reader = _Reader(text)
    reader.read()
    return reader.match()


def parse_handviewer_url(url: str) -> LinBoard:
    """The board in a BBO hand-viewer URL's ``lin=`` parameter (see :func:`handviewer_url`)."""
    values = parse_qs(urlsplit(url).query, keep_blank_values=True).get("lin")
    if not values:
        raise LinError(f"no lin= parameter in {url[:80]!r}")
    boards = parse_lin(values[0])
    if len(boards) != 1:
        raise LinError(f"expected one board in the URL's lin= parameter, found {len(boards)}")
    return boards[0]


# -- writing ---------------------------------------------------------------------------


def dump_lin(board: LinBoard) -> str:
    """One board as one hand-viewer LIN line (no line break at the end).

    ``pn`` (S, W, N, E), ``st``, ``md`` with all four hands, ``rh``, ``ah|Board n|`` when the
    number is known, ``sv``, the calls (``mb``, ``!`` for an alert, ``an`` for an
    explanation), ``pg``, the cards (``pc``, ``pg`` after each trick) and ``mc`` for a claim;
    each comment (``nt``, then ``pg``) in its place. A board with a room starts with
    ``qx|o46|`` so that the room is kept.
    """
    head = []
    if board.room is not None:
        head.append(f"qx|{board.room.value}{board.number}|")
    head.append(f"pn|{','.join(_lin_names(board))}|")
    return "".join(head + _board_pieces(board, heading=True))


def handviewer_url(board: LinBoard) -> str:
    """The BBO hand-viewer URL that shows ``board``: :data:`HANDVIEWER_URL` + the encoded LIN."""
    return HANDVIEWER_URL + quote(dump_lin(board), safe="")


def dump_lin_match(match: LinMatch) -> str:
    """A vugraph match file: ``vg``, ``rs`` (when there are results), ``pn``, the ``qx`` blocks.

    The ``pn`` line names the first open-room and closed-room players; a new ``pn`` comes
    before a board whose room's players changed. Lines break after each ``pg||``.
    """
    lines = _header_lines(match)
    names: dict[Room, tuple[str, ...]] = {}
    for room in Room:
        board = next((board for board in match.boards if board.room is room), None)
        names[room] = ("", "", "", "") if board is None else _lin_names(board)
    lines.append(f"pn|{','.join(names[Room.OPEN] + names[Room.CLOSED])}|")
    for board in match.boards:
        assert board.room is not None  # LinMatch checks it
        if _lin_names(board) != names[board.room]:
            names[board.room] = _lin_names(board)
            lines.append(f"pn|{','.join(names[Room.OPEN] + names[Room.CLOSED])}|")
        line = f"qx|{board.room.value}{board.number}|"
        for piece in _board_pieces(board, heading=False):
            line += piece
            if piece == "pg||":
                lines.append(line)
                line = ""
        if line:
            lines.append(line)
    return "\n".join(lines) + "\n"


def dump_lin_lines(match: LinMatch) -> str:
    """A match as its ``vg`` header (and ``rs`` results) and then one hand-viewer line per
    table's board (:func:`dump_lin`: each with its ``qx`` room and its ``pn`` players), so
    that every line of a board opens alone in BBO's hand viewer; :func:`parse_lin_match`
    reads it back."""
    return "".join(line + "\n" for line in _header_lines(match)) + "".join(
        dump_lin(board) + "\n" for board in match.boards
    )


def _header_lines(match: LinMatch) -> list[str]:
    """The ``vg`` line and, when there are results, the ``rs`` line."""
    first, second = match.teams
    carry_1, carry_2 = (_number(carry) for carry in match.carry_over)
    fields = (
        match.event,
        match.segment,
        match.scoring,
        "" if match.first_board is None else str(match.first_board),
        "" if match.last_board is None else str(match.last_board),
        first,
        carry_1,
        second,
        carry_2,
    )
    lines = [f"vg|{','.join(fields)}|"]
    if match.results:
        lines.append(f"rs|{','.join(match.results)}|")
    return lines


def _lin_names(board: LinBoard) -> tuple[str, ...]:
    return tuple(board.player(seat) for seat in _LIN_SEATS)


def _board_pieces(board: LinBoard, heading: bool) -> list[str]:
    """``st`` to the end of the play as LIN pieces; each ``pg||`` marks where a line may break."""
    hands = ",".join(_hand_text(board.deal[seat]) for seat in _LIN_SEATS)
    pieces = [f"st||md|{_LIN_SEATS.index(board.dealer) + 1}{hands}|"]
    if heading:
        pieces.append("rh||")
        if board.number is not None:
            pieces.append(f"ah|Board {board.number}|")
    pieces.append(f"sv|{_VULNERABILITY_LETTERS[board.vulnerability]}|")
    comments: dict[int, list[str]] = {}
    for remark in board.commentary:
        comments.setdefault(remark.after, []).append(remark.text)

    def pause() -> None:
        if pieces[-1] != "pg||":
            pieces.append("pg||")

    def comment(after: int) -> None:
        for text in comments.get(after, ()):
            pieces.append(f"nt|{text}|")
            pause()  # as BBO writes it: the viewer stops on each comment

    comment(0)
    for position, lin_call in enumerate(board.calls, start=1):
        pieces.append(f"mb|{lin_call}|")
        if lin_call.explanation:
            pieces.append(f"an|{lin_call.explanation}|")
        comment(position)
    pause()
    for position, card in enumerate(board.cards, start=1):
        pieces.append(f"pc|{card}|")
        comment(len(board.calls) + position)
        if position % 4 == 0:
            pause()
    if board.claim is not None:
        pieces.append(f"mc|{board.claim}|")
        comment(len(board.calls) + len(board.cards) + 1)
        pause()
    return pieces


def _hand_text(hand: Hand) -> str:
    return "".join(
        suit.letter + "".join(card.rank.letter for card in hand.suit(suit))
        for suit in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
    )

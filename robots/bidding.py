"""A natural bidding system for robots, and the robot second table's contract picker.

The system is what a club player expects from a robot: 1NT 15-17, 2NT 20-21, 2♣ strong and
artificial (2♦ waiting), five-card majors and the better minor at the one level (12-21),
weak twos in ♦/♥/♠ (6 cards, 6-10 HCP), three-level preempts (7 cards); natural responses
and rebids by strength; overcalls, a 1NT overcall, takeout doubles and their advances; and
game and slam decisions from the partnership's combined points and fit. Each level plays:

* ``seed``: that natural system alone, no conventions beyond the 2♣ opening (no Stayman, no
  transfers, no Blackwood), faithful to the seeds' rules;
* ``strong``: the same, with Stayman and Jacoby transfers over 1NT and 2NT openings; Roman
  Key Card Blackwood (1430) once a major is agreed (4NT over a natural notrump bid stays
  quantitative); negative doubles of overcalls up to 2♠ (penalty doubles of a 1NT overcall
  and at the three level); a cue-bid of their suit as a limit raise or better of partner's
  overcall, with the jump raise preemptive.

Every call's meaning comes from the auction alone. The auction is replayed call by call; each
position is classified into a *situation* (opening, response, opener's rebid, responses to
notrump, overcall, advance, or the general contract-placing logic) that gives every call a
meaning and the ranges it shows, which the replay records for each seat. :func:`choose_call`
replays the auction and makes the call its hand fits; :func:`describe` replays the same way
and reads the meaning off the same rules, so the two always agree.

>>> from bridge import Auction, Call, Hand, Seat, Vulnerability
>>> auction = Auction(Seat.NORTH)
>>> view = SeatView.from_auction(auction, Hand.from_pbn("AQ4.KJ3.Q984.K72"), Vulnerability.NONE)
>>> call, meaning = choose_call(view)
>>> str(call), meaning
('1NT', '15-17 HCP, balanced')
>>> describe(Seat.NORTH, [call], 0)
'15-17 HCP, balanced'

At the strong level the robots play conventions, and explain them:

>>> calls = [Call.parse(c) for c in ["1NT", "P", "2C", "P", "2H", "P"]]
>>> describe(Seat.NORTH, calls, 2, "strong"), describe(Seat.NORTH, calls, 4, "strong")
('Stayman: asks for a 4-card major, 8+ HCP', '4 hearts, may hold 4 spades')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bridge import (
    DOUBLE,
    PASS,
    Bid,
    Call,
    Contract,
    Double,
    Hand,
    Redouble,
    Seat,
    Strain,
    Vulnerability,
)
from robots.knowledge import Level, SeatView

__all__ = [
    "Shown",
    "alert",
    "choose_call",
    "choose_contract",
    "describe",
    "shown",
    "stronger_side",
]

# Strains as small ints: the suits 0-3 (clubs to spades) and notrump 4.
CLUBS, DIAMONDS, HEARTS, SPADES, NOTRUMP = 0, 1, 2, 3, 4
_MAJORS = (HEARTS, SPADES)
_MINORS = (CLUBS, DIAMONDS)
_NAMES = ("clubs", "diamonds", "hearts", "spades", "notrump")
_BID = {(level, strain): Bid(level, Strain(strain)) for level in range(1, 8) for strain in range(5)}

GAME, SLAM, GRAND = 25, 33, 37
"""Combined points for a game (3NT or four of a major), a small slam and a grand slam."""
MINOR_GAME = 29
"""Combined points for five of a minor."""
_MAX_POINTS = 37


def _bid(level: int, strain: int) -> Bid:
    return _BID[(level, strain)]


def _game_level(strain: int) -> int:
    return 3 if strain == NOTRUMP else 4 if strain in _MAJORS else 5


def _lengths(suit: int, count: int) -> tuple[int, int, int, int]:
    lengths = [0, 0, 0, 0]
    lengths[suit] = count
    return (lengths[0], lengths[1], lengths[2], lengths[3])


def _min_lengths(counts: Mapping[int, int]) -> tuple[int, int, int, int]:
    return (counts.get(0, 0), counts.get(1, 0), counts.get(2, 0), counts.get(3, 0))


def _span(lo: float, hi: float, unit: str = "HCP") -> str:
    """``"10-12 HCP"``, ``"16+ HCP"`` or ``"0-7 HCP"`` from a range (clamped to 0..37)."""
    low, high = max(0, round(lo)), min(_MAX_POINTS, round(hi))
    if high >= 30 or high < low:
        return f"{low}+ {unit}"
    if low == high:
        return f"{low} {unit}"
    return f"{low}-{high} {unit}"


# --------------------------------------------------------------------------------------------
# What a hand holds


@dataclass(frozen=True, slots=True)
class _Facts:
    """The facts of a hand a bidder counts with."""

    hcp: int
    lengths: tuple[int, int, int, int]
    top3: tuple[int, int, int, int]  # how many of A K Q in each suit
    top5: tuple[int, int, int, int]  # how many of A K Q J T
    honours: tuple[int, int, int, int]  # A K Q J T of each suit as bits: A 16, K 8, Q 4
    stoppers: tuple[bool, bool, bool, bool]
    balanced: bool  # 4333, 4432 or 5332
    semi_balanced: bool  # also 5422 and 6322
    length_points: int  # one for each card over four in a suit

    def short_points(self, trump: int, skip: int = 0) -> int:
        """Shortness points as dummy for ``trump``: void 5, singleton 3, doubleton 1 (with
        only three trumps: 3, 2, 1); none in the suits whose bit is set in ``skip``."""
        long = self.lengths[trump] >= 4
        points = 0
        for suit in range(4):
            if suit != trump and not skip >> suit & 1:
                n = self.lengths[suit]
                if n == 0:
                    points += 5 if long else 3
                elif n == 1:
                    points += 3 if long else 2
                elif n == 2:
                    points += 1
        return points

    def suit_points(self, trump: int) -> int:
        """Points for a suit contract in ``trump``: HCP plus length or shortness, the larger."""
        return self.hcp + max(self.length_points, self.short_points(trump))

    def is_good(self, suit: int) -> bool:
        """A good suit for an overcall or a positive: 5+ cards with two of the top three
        honours or three of the top five."""
        return self.lengths[suit] >= 5 and (self.top3[suit] >= 2 or self.top5[suit] >= 3)

    def keycards(self, trump: int) -> int:
        """Key cards for ``trump``: the four aces and the trump king."""
        return sum(h >> 4 & 1 for h in self.honours) + (self.honours[trump] >> 3 & 1)

    def has_queen(self, trump: int) -> bool:
        return bool(self.honours[trump] >> 2 & 1)

    def longest(self, suits: Iterable[int]) -> int:
        """The longest of ``suits``, the higher-ranking on a tie (-1 if there are none)."""
        best, key = -1, (-1, -1)
        for suit in suits:
            if (self.lengths[suit], suit) > key:
                best, key = suit, (self.lengths[suit], suit)
        return best


_BALANCED = {(4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)}
_SEMI_BALANCED = _BALANCED | {(5, 4, 2, 2), (6, 3, 2, 2)}


def _facts(hand: Hand) -> _Facts:
    mask = hand.mask
    hcp = 0
    lengths: list[int] = []
    top3: list[int] = []
    top5: list[int] = []
    honours: list[int] = []
    stoppers: list[bool] = []
    for suit in range(4):
        bits = (mask >> (13 * suit)) & 0x1FFF
        n = bits.bit_count()
        ace, king, queen, jack = bits >> 12 & 1, bits >> 11 & 1, bits >> 10 & 1, bits >> 9 & 1
        hcp += 4 * ace + 3 * king + 2 * queen + jack
        lengths.append(n)
        top3.append((bits >> 10).bit_count())
        top5.append((bits >> 8).bit_count())
        honours.append(bits >> 8)
        stoppers.append(
            bool(
                ace or (king and n >= 2) or (queen and n >= 3) or (jack and n >= 4 and king + queen)
            )
        )
    shape = tuple(sorted(lengths, reverse=True))
    return _Facts(
        hcp=hcp,
        lengths=(lengths[0], lengths[1], lengths[2], lengths[3]),
        top3=(top3[0], top3[1], top3[2], top3[3]),
        top5=(top5[0], top5[1], top5[2], top5[3]),
        honours=(honours[0], honours[1], honours[2], honours[3]),
        stoppers=(stoppers[0], stoppers[1], stoppers[2], stoppers[3]),
        balanced=shape in _BALANCED,
        semi_balanced=shape in _SEMI_BALANCED,
        length_points=sum(max(0, n - 4) for n in lengths),
    )


# --------------------------------------------------------------------------------------------
# Meanings, and what each seat has shown


@dataclass(frozen=True, slots=True)
class _Meaning:
    """What a call says: the text an opponent is told, and what it shows for the replay."""

    text: str
    lo: int = 0
    hi: int = _MAX_POINTS
    lengths: tuple[int, int, int, int] = (0, 0, 0, 0)
    balanced: bool = False
    stops: int = 0  # bit per suit: a stopper shown
    forcing: bool = False  # partner must not pass (one round)
    game_forcing: bool = False  # the side must reach game
    ends_game_force: bool = False
    takeout: bool = False  # a double asking partner to bid
    convention: str = ""  # the convention an artificial call belongs to (strong level)
    suit: int = -1  # the suit the convention concerns: a transfer's suit, the agreed trumps
    keycards: tuple[int, ...] = ()  # an answer to a key-card ask: the counts it may mean
    queen: int = -1  # the answer's trump queen: 1 held, 0 not held, -1 not told


@dataclass(frozen=True, slots=True)
class _Rule:
    call: Call
    meaning: _Meaning
    test: Callable[[_Facts], bool]


def _always(_: _Facts) -> bool:
    return True


class _Info:
    """What one seat has shown so far: a range of points, minimum suit lengths, stoppers."""

    __slots__ = ("balanced", "hi", "lengths", "lo", "stops")

    def __init__(self) -> None:
        self.lo = 0
        self.hi = _MAX_POINTS
        self.lengths = [0, 0, 0, 0]
        self.balanced = False
        self.stops = 0

    def show(self, meaning: _Meaning) -> None:
        lo, hi = max(self.lo, meaning.lo), min(self.hi, meaning.hi)
        if lo > hi:  # a contradiction: the latest statement wins
            lo, hi = meaning.lo, max(meaning.lo, meaning.hi)
        self.lo, self.hi = lo, hi
        for suit in range(4):
            if meaning.lengths[suit] > self.lengths[suit]:
                self.lengths[suit] = min(meaning.lengths[suit], 13)
        self.balanced = self.balanced or meaning.balanced
        self.stops |= meaning.stops

    @property
    def expected(self) -> float:
        """A working estimate of the points: low end plus half the range (at most +2.5)."""
        return self.lo + min(self.hi - self.lo, 5) / 2


class _State:
    """The public record of an auction, replayed call by call."""

    __slots__ = (
        "actions",
        "calls",
        "dealer",
        "doubled",
        "forced",
        "game_forced",
        "info",
        "last_bid",
        "last_bidder",
        "last_meaning",
        "level",
        "meanings",
        "opener",
        "opening",
        "side_bids",
    )

    def __init__(self, dealer: Seat, level: Level = "seed") -> None:
        self.dealer = dealer
        self.level = level
        """The system every seat is read as bidding (a robot reads the auction by its own)."""
        self.calls: list[Call] = []
        self.info = [_Info() for _ in range(4)]
        self.opener: Seat | None = None
        self.opening: Bid | None = None
        self.last_bid: Bid | None = None
        self.last_bidder: Seat | None = None
        self.doubled = 0
        self.actions: list[list[Call]] = [[], [], [], []]  # each seat's non-pass calls
        self.last_meaning: list[_Meaning | None] = [None, None, None, None]  # of those calls
        self.meanings: list[list[_Meaning]] = [[], [], [], []]  # of each seat's non-pass calls
        self.forced: Seat | None = None  # the seat that must not pass
        self.game_forced = [False, False]  # per side (seat % 2)
        self.side_bids = [0, 0]

    @property
    def turn(self) -> Seat:
        return Seat((self.dealer + len(self.calls)) % 4)

    def apply(self, call: Call, meaning: _Meaning) -> None:
        seat = self.turn
        side = seat % 2
        self.info[seat].show(meaning)
        if self.forced == seat or (self.forced == seat.lho and call != PASS):
            self.forced = None  # answered, or relieved by the opponent's intervention
        if isinstance(call, Bid):
            if self.opener is None:
                self.opener, self.opening = seat, call
            self.last_bid, self.last_bidder, self.doubled = call, seat, 0
            self.side_bids[side] += 1
        elif isinstance(call, Double):
            self.doubled = 1
        elif isinstance(call, Redouble):
            self.doubled = 2
        if call != PASS:
            self.actions[seat].append(call)
            self.last_meaning[seat] = meaning
            self.meanings[seat].append(meaning)
        if meaning.forcing:
            self.forced = seat.partner
        if meaning.game_forcing:
            self.game_forced[side] = True
        if meaning.ends_game_force:
            self.game_forced[side] = False
        self.calls.append(call)

    # Queries used by the situations

    def is_legal(self, call: Call) -> bool:
        if isinstance(call, Bid):
            return self.last_bid is None or call.rank > self.last_bid.rank
        seat = self.turn
        theirs = self.last_bidder is not None and (self.last_bidder - seat) % 2 == 1
        if isinstance(call, Double):
            return theirs and self.doubled == 0
        if isinstance(call, Redouble):
            return self.last_bidder is not None and not theirs and self.doubled == 1
        return True

    def cheapest(self, strain: int) -> Bid | None:
        """The lowest legal bid in ``strain``, or None above 7."""
        last = self.last_bid
        if last is None:
            return _bid(1, strain)
        level = last.level if strain > last.strain else last.level + 1
        return _bid(level, strain) if level <= 7 else None

    def opponent_suits(self, seat: Seat) -> int:
        """Bit per suit the opponents of ``seat`` have shown (3+ cards)."""
        mask = 0
        for opponent in (seat.lho, seat.rho):
            for suit in range(4):
                if self.info[opponent].lengths[suit] >= 3:
                    mask |= 1 << suit
        return mask


def _replay(dealer: Seat, calls: Sequence[Call], level: Level = "seed") -> _State:
    state = _State(dealer, level)
    for call in calls:
        state.apply(call, _meaning(state, call))
    return state


def _meaning(state: _State, call: Call) -> _Meaning:
    rules = _situation(state)
    if rules is not None:
        for rule in rules:
            if rule.call == call:
                return rule.meaning
    return _general_meaning(state, call)


def _decide(state: _State, facts: _Facts) -> tuple[Call, _Meaning]:
    rules = _situation(state)
    if rules is not None:
        for rule in rules:
            if state.is_legal(rule.call) and rule.test(facts):
                return rule.call, _meaning(state, rule.call)
    call = _general_choice(state, facts)
    if state.level == "strong" and isinstance(call, Bid) and call.level >= 6:
        ask = _bid(4, NOTRUMP)
        meaning = _meaning(state, ask)
        if (
            meaning.convention == _KEYCARD_ASK
            and meaning.suit == call.strain
            and _may_ask(meaning.suit, facts)
        ):
            return ask, meaning  # key cards first, then the slam
    return call, _meaning(state, call)


# --------------------------------------------------------------------------------------------
# Public API


def choose_call(view: SeatView, level: Level = "seed") -> tuple[Call, str]:
    """The call for the seat on turn in ``view``, and its meaning in plain English.

    Deterministic; the call is always one of ``view.legal_calls`` (Pass as a last resort).

    >>> from bridge import Auction, Call, Hand, Seat, Vulnerability
    >>> auction = Auction.replay(Seat.NORTH, ["1H", "P"])
    >>> view = SeatView.from_auction(auction, Hand.from_pbn("K42.Q852.J73.964"), Vulnerability.NONE)
    >>> call, meaning = choose_call(view)
    >>> str(call), meaning
    ('2H', '6-9 points, 3+ hearts')

    The strong level plays conventions: here Stayman, where the seed level bids 3NT.

    >>> auction = Auction.replay(Seat.NORTH, ["1NT", "P"])
    >>> view = SeatView.from_auction(auction, Hand.from_pbn("KJ84.Q732.84.A52"), Vulnerability.NONE)
    >>> [str(choose_call(view, level)[0]) for level in ("seed", "strong")]
    ['3NT', '2C']
    """
    legal = view.legal_calls
    try:
        state = _replay(view.dealer, view.calls, level)
        call, meaning = _decide(state, _facts(view.hand))
    except Exception:  # a robot must always answer; Pass is always legal
        return PASS, "no further action"
    if legal and call not in legal:
        return PASS, _meaning(state, PASS).text
    return call, meaning.text


def describe(dealer: Seat, calls: Sequence[Call], index: int, level: Level = "seed") -> str:
    """The meaning, in this system, of ``calls[index]`` in the auction dealt by ``dealer``.

    Derived from the auction alone, the same way :func:`choose_call` means its calls.
    Raises IndexError when ``index`` is not a call of ``calls``.

    >>> from bridge import Call, Seat
    >>> calls = [Call.parse(c) for c in ["1S", "P", "3S"]]
    >>> describe(Seat.NORTH, calls, 0), describe(Seat.NORTH, calls, 2)
    ('12-21 points, 5+ spades', '10-12 points, 3+ spades, invitational')
    >>> calls = [Call.parse(c) for c in ["1NT", "P", "2C"]]
    >>> describe(Seat.NORTH, calls, 2), describe(Seat.NORTH, calls, 2, "strong")
    ('0-7 HCP, 6+ clubs, to play', 'Stayman: asks for a 4-card major, 8+ HCP')
    """
    if not 0 <= index < len(calls):
        raise IndexError(f"call {index} is not in an auction of {len(calls)} calls")
    state = _replay(dealer, calls[:index], level)
    return _meaning(state, calls[index]).text


def alert(dealer: Seat, calls: Sequence[Call], index: int, level: Level = "seed") -> str | None:
    """The alert a robot gives with its call ``calls[index]``: the call's meaning when it is
    artificial (a convention of the strong level: its opponents are told at once, as the
    laws ask), None for a natural call (explained when asked).

    >>> from bridge import Call, Seat
    >>> calls = [Call.parse(c) for c in ["1NT", "P", "2D"]]
    >>> alert(Seat.NORTH, calls, 2, "strong"), alert(Seat.NORTH, calls, 0, "strong")
    ('transfer: 5+ hearts', None)
    """
    if not 0 <= index < len(calls):
        raise IndexError(f"call {index} is not in an auction of {len(calls)} calls")
    meaning = _meaning(_replay(dealer, calls[:index], level), calls[index])
    return meaning.text if meaning.convention else None


@dataclass(frozen=True, slots=True)
class Shown:
    """What a seat's calls have shown in this system: a range of points (high-card points,
    with length or shortness where the call counts them) and the least length of each suit,
    clubs first."""

    lo: int
    hi: int
    lengths: tuple[int, int, int, int]


def shown(dealer: Seat, calls: Sequence[Call], level: Level = "seed") -> dict[Seat, Shown]:
    """What each seat has shown by its calls in the auction dealt by ``dealer``: what a
    player reading the auction knows of the hands it cannot see (the strong robots deal the
    unseen cards to fit it).

    >>> from bridge import Call, Seat
    >>> seen = shown(Seat.NORTH, [Call.parse(c) for c in ["1NT", "P", "2NT", "P", "3NT"]])
    >>> seen[Seat.NORTH], seen[Seat.EAST].hi  # East passed 1NT twice: not 17 points
    (Shown(lo=16, hi=17, lengths=(2, 2, 2, 2)), 16)
    >>> transfer = [Call.parse(c) for c in ["1NT", "P", "2D", "P", "2H"]]
    >>> shown(Seat.NORTH, transfer, "strong")[Seat.SOUTH].lengths  # 2♦ showed hearts
    (0, 0, 5, 0)
    """
    state = _replay(dealer, calls, level)
    return {
        seat: Shown(
            info.lo, info.hi, (info.lengths[0], info.lengths[1], info.lengths[2], info.lengths[3])
        )
        for seat, info in zip(Seat, state.info, strict=True)
    }


# --------------------------------------------------------------------------------------------
# Situations: which rules apply at this turn


def _situation(state: _State) -> list[_Rule] | None:
    """The rules of the specific situation at this turn, or None for the general logic."""
    if state.level == "seed":
        return _natural_situation(state)
    rules = _convention_situation(state)
    if rules is None:
        rules = _natural_situation(state)
    return _with_keycard_ask(state, rules)


def _natural_situation(state: _State) -> list[_Rule] | None:
    """The situations of the natural system (the whole of the seed level)."""
    me = state.turn
    partner = me.partner
    if state.opener is None:
        return _opening(state)
    mine, partners = state.actions[me], state.actions[partner]
    ours = state.opener in (me, partner)
    opponents_acted = bool(state.actions[me.lho] or state.actions[me.rho])
    rules: list[_Rule] | None = None
    if ours:
        if state.opener == partner and not mine and len(partners) == 1 and _just_acted(state):
            rules = _response(state)
        elif (
            state.opener == me
            and len(mine) == 1
            and len(partners) == 1
            and isinstance(partners[0], Bid)
            and not opponents_acted
        ):
            rules = _opener_rebid(state)
        elif (
            state.opener == partner
            and mine == [_bid(2, DIAMONDS)]
            and len(partners) == 2
            and not opponents_acted
            and state.opening == _bid(2, CLUBS)
        ):
            rules = _after_strong_rebid(state)
    elif not mine and not partners:
        rules = _overcall(state)
    elif not mine and len(partners) == 1 and _just_acted(state):
        rules = _advance(state)
    if rules is None and _partner_doubled_for_takeout(state):
        assert state.last_bid is not None
        rules = _advance_takeout(state, state.last_bid, forced=True)
    if rules is None:
        rules = _notrump_followups(state)
    return rules


def _just_acted(state: _State) -> bool:
    """Whether partner's latest call is the one before our right-hand opponent's last."""
    return len(state.calls) >= 2 and state.calls[-2] != PASS


def _partner_doubled_for_takeout(state: _State) -> bool:
    meaning = state.last_meaning[state.turn.partner]
    last = state.last_bid
    return (
        len(state.calls) >= 2
        and state.calls[-2] == DOUBLE
        and state.calls[-1] == PASS
        and state.doubled == 1
        and meaning is not None
        and meaning.takeout
        and last is not None
        and last.strain != NOTRUMP
        and last.level <= 3
    )


def _notrump_followups(state: _State) -> list[_Rule] | None:
    """Answering partner's narrow-range notrump bid, or rebidding after one's own."""
    me = state.turn
    calls = state.calls
    if len(calls) < 4 or state.last_bid is None:
        return None
    mine, lho_call, partners, rho_call = calls[-4], calls[-3], calls[-2], calls[-1]
    my_meaning = state.last_meaning[me]
    partner_meaning = state.last_meaning[me.partner]
    if (
        isinstance(mine, Bid)
        and mine.strain == NOTRUMP
        and lho_call == PASS
        and isinstance(partners, Bid)
        and rho_call == PASS
        and my_meaning is not None
        and my_meaning.balanced
        and my_meaning.hi - my_meaning.lo <= 4
    ):
        return _notrump_rebid(state, mine, my_meaning, partners)
    if (
        isinstance(partners, Bid)
        and partners.strain == NOTRUMP
        and rho_call in (PASS, DOUBLE)
        and partner_meaning is not None
        and partner_meaning.balanced
        and partner_meaning.hi - partner_meaning.lo <= 4
    ):
        return _notrump_responses(state, partners.level, partner_meaning.lo, partner_meaning.hi)
    return None


# --------------------------------------------------------------------------------------------
# Openings


def _opening_suit(f: _Facts) -> int:
    """Longest suit of five or more (higher-ranking of equals), else the better minor."""
    five = [suit for suit in range(4) if f.lengths[suit] >= 5]
    if five:
        return f.longest(five)
    clubs, diamonds = f.lengths[CLUBS], f.lengths[DIAMONDS]
    if diamonds > clubs or (diamonds == clubs and diamonds >= 4):
        return DIAMONDS
    return CLUBS


def _opens_one(f: _Facts, fourth: bool = False) -> bool:
    """12+ HCP, or 10-11 with the rule of 20 (HCP plus the two longest suits); in fourth
    seat the rule of 15 instead (HCP plus spades)."""
    if not 10 <= f.hcp <= 21:
        return False
    if fourth:
        return f.hcp >= 12 or f.hcp + f.lengths[SPADES] >= 15
    return f.hcp >= 12 or f.hcp + sum(sorted(f.lengths)[2:]) >= 20


def _opening(state: _State) -> list[_Rule]:
    fourth = len(state.calls) == 3
    rules = [
        _Rule(
            _bid(2, CLUBS),
            _Meaning("22+ HCP, artificial, forcing", lo=22, forcing=True, game_forcing=True),
            lambda f: f.hcp >= 22,
        ),
        _Rule(
            _bid(2, NOTRUMP),
            _Meaning("20-21 HCP, balanced", 20, 21, (2, 2, 2, 2), balanced=True),
            lambda f: f.balanced and 20 <= f.hcp <= 21,
        ),
        _Rule(
            _bid(1, NOTRUMP),
            _Meaning("15-17 HCP, balanced", 15, 17, (2, 2, 2, 2), balanced=True),
            lambda f: f.balanced and 15 <= f.hcp <= 17,
        ),
    ]
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        count = 5 if suit in _MAJORS else 3
        rules.append(
            _Rule(
                _bid(1, suit),
                _Meaning(f"12-21 points, {count}+ {_NAMES[suit]}", 11, 21, _lengths(suit, count)),
                _opening_one_test(suit, fourth),
            )
        )
    if not fourth:
        for suit in (SPADES, HEARTS, DIAMONDS):
            rules.append(
                _Rule(
                    _bid(2, suit),
                    _Meaning(f"6-10 HCP, 6 {_NAMES[suit]}", 6, 10, _lengths(suit, 6)),
                    _weak_two_test(suit),
                )
            )
        for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
            rules.append(
                _Rule(
                    _bid(3, suit),
                    _Meaning(f"6-10 HCP, 7+ {_NAMES[suit]}", 6, 10, _lengths(suit, 7)),
                    _preempt_test(suit),
                )
            )
    rules.append(_Rule(PASS, _Meaning("fewer than 12 points, no preempt", 0, 11), _always))
    return rules


def _opening_one_test(suit: int, fourth: bool) -> Callable[[_Facts], bool]:
    return lambda f: _opens_one(f, fourth) and _opening_suit(f) == suit


def _weak_two_test(suit: int) -> Callable[[_Facts], bool]:
    other_major = SPADES if suit == HEARTS else HEARTS

    def test(f: _Facts) -> bool:
        return (
            6 <= f.hcp <= 10
            and f.lengths[suit] == 6
            and f.top5[suit] >= 2
            and f.lengths[other_major] < 4
            and (suit != DIAMONDS or max(f.lengths[HEARTS], f.lengths[SPADES]) < 4)
        )

    return test


def _preempt_test(suit: int) -> Callable[[_Facts], bool]:
    return lambda f: 6 <= f.hcp <= 10 and f.lengths[suit] >= 7 and f.top5[suit] >= 2


# --------------------------------------------------------------------------------------------
# Responses to partner's opening


def _response(state: _State) -> list[_Rule] | None:
    opening = state.opening
    assert opening is not None
    rho_call = state.calls[-1]
    contested = isinstance(rho_call, Bid)
    if opening.level == 1 and opening.strain != NOTRUMP:
        if contested:
            return _contested_suit_response(state, opening.strain)
        return _suit_response(opening.strain)
    if opening.level == 1:  # 1NT
        if contested:
            return _contested_notrump_response(state)
        return _notrump_responses(state, 1, 15, 17)
    if contested:
        return None
    if opening == _bid(2, NOTRUMP):
        return _notrump_responses(state, 2, 20, 21)
    if opening == _bid(2, CLUBS):
        return _strong_responses()
    if opening.level == 2:
        return _weak_two_responses(opening.strain)
    if opening.level == 3 and opening.strain != NOTRUMP:
        return _preempt_responses(opening.strain)
    return None  # 3NT and higher openings: the general logic places the contract


def _support_needed(suit: int) -> int:
    return 3 if suit in _MAJORS else 4 if suit == DIAMONDS else 5


def _suit_response(opened: int) -> list[_Rule]:
    """Responses to partner's one of a suit, with the opponents silent (or doubling)."""
    name = _NAMES[opened]
    need = _support_needed(opened)

    def support(f: _Facts) -> int:
        return f.suit_points(opened) if f.lengths[opened] >= need else -1

    rules = [_Rule(PASS, _Meaning("fewer than 6 HCP", 0, 5), lambda f: f.hcp < 6)]
    if opened in _MAJORS:
        rules += [
            _Rule(
                _bid(4, opened),
                _Meaning(f"13-15 points, {need}+ {name}", 13, 15, _lengths(opened, need)),
                lambda f: 13 <= support(f) <= 15,
            ),
            _Rule(
                _bid(3, opened),
                _Meaning(
                    f"10-12 points, {need}+ {name}, invitational", 10, 12, _lengths(opened, need)
                ),
                lambda f: 10 <= support(f) <= 12,
            ),
            _Rule(
                _bid(2, opened),
                _Meaning(f"6-9 points, {need}+ {name}", 6, 9, _lengths(opened, need)),
                lambda f: 0 <= support(f) <= 9,
            ),
        ]
    # New suits at the one level: majors first (hearts up the line with 4-4, the longer
    # otherwise), diamonds over clubs without a major.
    one_level = [suit for suit in (DIAMONDS, HEARTS, SPADES) if suit > opened]
    for suit in one_level:
        rules.append(
            _Rule(
                _bid(1, suit),
                _Meaning(
                    f"6+ HCP, 4+ {_NAMES[suit]}, forcing",
                    6,
                    _MAX_POINTS,
                    _lengths(suit, 4),
                    forcing=True,
                ),
                _one_level_response_test(opened, suit),
            )
        )
    if opened in _MINORS:
        rules += [
            _Rule(
                _bid(3, opened),
                _Meaning(
                    f"10-12 points, {need}+ {name}, invitational, no 4-card major",
                    10,
                    12,
                    _lengths(opened, need),
                ),
                lambda f: 10 <= support(f) <= 12,
            ),
            _Rule(
                _bid(2, opened),
                _Meaning(
                    f"6-9 points, {need}+ {name}, no 4-card major", 6, 9, _lengths(opened, need)
                ),
                lambda f: 0 <= support(f) <= 9,
            ),
        ]
    no_major = " no 4-card major," if opened in _MINORS else ""

    def no_fit(f: _Facts) -> bool:
        return opened in _MINORS or f.lengths[opened] < need

    rules += [
        _Rule(
            _bid(2, NOTRUMP),
            _Meaning(
                f"11-12 HCP, balanced,{no_major} invitational",
                11,
                12,
                (2, 2, 2, 2),
                balanced=True,
            ),
            lambda f: f.balanced and 11 <= f.hcp <= 12 and no_fit(f),
        ),
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning(
                f"13-16 HCP, balanced,{no_major} to play", 13, 16, (2, 2, 2, 2), balanced=True
            ),
            lambda f: f.balanced and 13 <= f.hcp <= 16 and no_fit(f),
        ),
    ]
    for suit in (CLUBS, DIAMONDS, HEARTS):
        if suit < opened:
            count = 5 if suit == HEARTS else 3
            rules.append(
                _Rule(
                    _bid(2, suit),
                    _Meaning(
                        f"10+ HCP, {count}+ {_NAMES[suit]}, forcing",
                        10,
                        _MAX_POINTS,
                        _lengths(suit, count),
                        forcing=True,
                    ),
                    _two_level_response_test(opened, suit),
                )
            )
    catch_all = _Meaning("6-10 HCP, no fit, nothing else to bid", 6, 10)
    rules.append(_Rule(_bid(1, NOTRUMP), catch_all, _always))
    fallback = min(suit for suit in range(4) if suit != opened)
    rules.append(_Rule(_bid(2, fallback), _Meaning(f"10+ HCP, {_NAMES[fallback]}"), _always))
    rules.append(_Rule(PASS, _Meaning("no suitable bid"), _always))
    return rules


def _one_level_response_test(opened: int, suit: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if f.lengths[suit] < 4:
            return False
        majors = [m for m in _MAJORS if m > opened and f.lengths[m] >= 4]
        if suit == DIAMONDS:
            return not majors
        if len(majors) == 2:
            hearts, spades = f.lengths[HEARTS], f.lengths[SPADES]
            choice = HEARTS if hearts > spades or hearts == spades == 4 else SPADES
            return suit == choice
        return True

    return test


def _two_level_response_test(opened: int, suit: int) -> Callable[[_Facts], bool]:
    def eligible(f: _Facts, candidate: int) -> bool:
        if candidate >= opened:
            return False
        n = f.lengths[candidate]
        if candidate == HEARTS:
            return n >= 5
        strong_raise = f.lengths[opened] >= _support_needed(opened) and f.hcp >= 14
        return n >= 4 or (n >= 3 and (f.hcp >= 16 or strong_raise))

    def test(f: _Facts) -> bool:
        if f.hcp < 10:
            return False
        candidates = [c for c in (CLUBS, DIAMONDS, HEARTS) if eligible(f, c)]
        return bool(candidates) and f.longest(candidates) == suit

    return test


def _contested_suit_response(state: _State, opened: int) -> list[_Rule] | None:
    """Responses to partner's one of a suit after an overcall on our right."""
    overcall = state.last_bid
    assert overcall is not None
    if overcall.level >= 4:
        return None
    their = overcall.strain
    name = _NAMES[opened]
    need = 3 if opened in _MAJORS else 4
    cheapest = state.cheapest(opened)
    assert cheapest is not None
    c = cheapest.level

    def support(f: _Facts) -> int:
        return f.suit_points(opened) if f.lengths[opened] >= need else -1

    def stopped(f: _Facts) -> bool:
        return their == NOTRUMP or f.stoppers[their]

    rules: list[_Rule] = []
    stop_bit = 0 if their == NOTRUMP else 1 << their
    stop_text = "" if their == NOTRUMP else f", stopper in {_NAMES[their]}"
    if overcall.level >= 3:
        rules.append(
            _Rule(
                DOUBLE,
                _Meaning("penalty: our side has most of the points", 11),
                lambda f: f.hcp >= 11 and (their == NOTRUMP or f.lengths[their] >= 3),
            )
        )
    game_raise = _Meaning(f"12+ points, {need}+ {name}, to play", 12, 20, _lengths(opened, need))
    if opened in _MAJORS:
        rules.append(_Rule(_bid(4, opened), game_raise, lambda f: 12 <= support(f) <= 16))
    elif c <= 3:
        rules.append(
            _Rule(
                _bid(3, NOTRUMP),
                _Meaning(f"12+ HCP{stop_text}, to play", 12, 20, stops=stop_bit),
                lambda f: f.hcp >= 12 and stopped(f) and f.semi_balanced,
            )
        )
    if c == 2:
        rules.append(
            _Rule(
                _bid(3, opened),
                _Meaning(
                    f"10-11 points, {need}+ {name}, invitational", 10, 11, _lengths(opened, need)
                ),
                lambda f: 10 <= support(f) <= 11,
            )
        )
        rules.append(
            _Rule(
                _bid(2, opened),
                _Meaning(f"6-9 points, {need}+ {name}", 6, 9, _lengths(opened, need)),
                lambda f: 6 <= support(f) <= 9,
            )
        )
    elif c == 3:
        rules.append(
            _Rule(
                _bid(3, opened),
                _Meaning(
                    f"7-11 points, {need + 1}+ {name}, competitive",
                    7,
                    11,
                    _lengths(opened, need + 1),
                ),
                lambda f: 7 <= support(f) <= 11 and f.lengths[opened] >= need + 1,
            )
        )
    # Notrump with their suit stopped.
    nt_ranges = {1: (8, 10), 2: (11, 12), 3: (13, 16)}
    for level, (lo, hi) in nt_ranges.items():
        bid = _bid(level, NOTRUMP)
        if state.is_legal(bid):
            tail = ", invitational" if level == 2 else ", to play" if level == 3 else ""
            rules.append(
                _Rule(
                    bid,
                    _Meaning(f"{lo}-{hi} HCP{stop_text}{tail}", lo, hi, stops=stop_bit),
                    _stopped_range(their, lo, hi),
                )
            )
    # New suits: one level 6+ and 4+, two level 11+ and 5+, three level 13+ and 5+.
    for suit in (CLUBS, DIAMONDS, HEARTS, SPADES):
        if suit in (opened, their):
            continue
        new_bid = state.cheapest(suit)
        if new_bid is None or new_bid.level > 3:
            continue
        lo, count = {1: (6, 4), 2: (11, 5), 3: (13, 5)}[new_bid.level]
        rules.append(
            _Rule(
                new_bid,
                _Meaning(
                    f"{lo}+ HCP, {count}+ {_NAMES[suit]}, forcing",
                    lo,
                    _MAX_POINTS,
                    _lengths(suit, count),
                    forcing=True,
                ),
                _new_suit_test(state, suit, lo, count, (opened, their)),
            )
        )
    if opened in _MAJORS:  # stronger raises without a new suit to bid first
        rules.append(_Rule(_bid(4, opened), game_raise, lambda f: support(f) >= 12))
    rules.append(_Rule(PASS, _Meaning("no suitable bid", 0, 12), _always))
    return rules


def _stopped_range(their: int, lo: int, hi: int) -> Callable[[_Facts], bool]:
    return lambda f: (
        lo <= f.hcp <= hi and f.semi_balanced and (their == NOTRUMP or f.stoppers[their])
    )


def _new_suit_test(
    state: _State, suit: int, lo: int, count: int, excluded: tuple[int, ...]
) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if f.hcp < lo or f.lengths[suit] < count:
            return False
        others = [s for s in range(4) if s not in excluded and f.lengths[s] >= count]
        return f.longest(others) == suit

    return test


def _contested_notrump_response(state: _State) -> list[_Rule] | None:
    overcall = state.last_bid
    assert overcall is not None
    if overcall.level >= 4:
        return None
    their = overcall.strain
    rules: list[_Rule] = []
    if their != NOTRUMP:
        rules.append(
            _Rule(
                DOUBLE,
                _Meaning(f"penalty: 7+ HCP, 4+ {_NAMES[their]}", 7),
                lambda f: f.hcp >= 7 and f.lengths[their] >= 4 and f.top5[their] >= 2,
            )
        )
    rules.append(
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning("10-15 HCP, to play", 10, 15, stops=0 if their == NOTRUMP else 1 << their),
            lambda f: 10 <= f.hcp <= 15 and (their == NOTRUMP or f.stoppers[their]),
        )
    )
    for suit in _MAJORS:
        if suit != their and state.is_legal(_bid(4, suit)):
            rules.append(
                _Rule(
                    _bid(4, suit),
                    _Meaning(f"10-15 HCP, 6+ {_NAMES[suit]}, to play", 10, 15, _lengths(suit, 6)),
                    _long_suit_test(suit, 6, 10, 15),
                )
            )
    for suit in range(4):
        bid = state.cheapest(suit)
        if suit == their or bid is None or bid.level > 3:
            continue
        count = 5 if bid.level == 2 else 6
        rules.append(
            _Rule(
                bid,
                _Meaning(f"0-9 HCP, {count}+ {_NAMES[suit]}, to play", 0, 9, _lengths(suit, count)),
                _long_suit_test(suit, count, 0, 9),
            )
        )
    rules.append(_Rule(PASS, _Meaning("nothing to add"), _always))
    return rules


def _long_suit_test(suit: int, count: int, lo: int, hi: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if not lo <= f.hcp <= hi or f.lengths[suit] < count:
            return False
        return (
            f.longest(range(4)) == suit
            or f.lengths[suit] > max(f.lengths[s] for s in range(4) if s != suit) - 1
        )

    return test


def _notrump_responses(state: _State, level: int, lo: int, hi: int) -> list[_Rule]:
    """Answering partner's balanced notrump bid of range ``lo``-``hi`` at ``level``."""
    rules: list[_Rule] = []

    def add(bid: Call, meaning: _Meaning, test: Callable[[_Facts], bool]) -> None:
        if state.is_legal(bid):
            rules.append(_Rule(bid, meaning, test))

    add(
        _bid(7, NOTRUMP),
        _Meaning(f"{_span(GRAND - lo, 40)}, to play", GRAND - lo),
        lambda f: f.hcp + lo >= GRAND,
    )
    add(
        _bid(6, NOTRUMP),
        _Meaning(f"{_span(SLAM - lo, GRAND - 1 - lo)}, to play", SLAM - lo, GRAND - 1 - lo),
        lambda f: f.hcp + lo >= SLAM,
    )
    add(
        _bid(4, NOTRUMP),
        _Meaning(f"{_span(SLAM - hi, SLAM - 1 - lo)}, invites 6NT", SLAM - hi, SLAM - 1 - lo),
        lambda f: f.hcp + hi >= SLAM,
    )
    game_lo = GAME - lo if level == 1 else GAME - hi
    for major in (SPADES, HEARTS):
        add(
            _bid(4, major),
            _Meaning(
                f"{_span(game_lo - 1, SLAM - 1 - hi)}, 6+ {_NAMES[major]}, to play",
                game_lo - 1,
                SLAM - 1 - hi,
                _lengths(major, 6),
            ),
            _major_game_test(major, 6, game_lo),
        )
    for major in (SPADES, HEARTS):
        add(
            _bid(3, major),
            _Meaning(
                f"{_span(game_lo, _MAX_POINTS)}, 5 {_NAMES[major]}, forcing: choose game",
                game_lo,
                SLAM - 1 - hi,
                _lengths(major, 5),
                forcing=True,
            ),
            _major_game_test(major, 5, game_lo),
        )
    add(
        _bid(3, NOTRUMP),
        _Meaning(f"{_span(game_lo, SLAM - 1 - hi)}, to play", game_lo, SLAM - 1 - hi),
        lambda f: f.hcp >= game_lo,
    )
    if level == 1:
        add(
            _bid(2, NOTRUMP),
            _Meaning(f"{_span(GAME - hi, game_lo - 1)}, invitational", GAME - hi, game_lo - 1),
            lambda f: f.hcp + hi >= GAME,
        )
        their = state.opponent_suits(state.turn)
        for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
            if their >> suit & 1:
                continue
            count = 6 if suit == CLUBS else 5
            add(
                _bid(2, suit),
                _Meaning(
                    f"{_span(0, GAME - hi - 1)}, {count}+ {_NAMES[suit]}, to play",
                    0,
                    GAME - hi - 1,
                    _lengths(suit, count),
                ),
                _weak_takeout_test(suit, their),
            )
    add(PASS, _Meaning(f"{_span(0, GAME - hi - 1)}, to play", 0, GAME - hi - 1), _always)
    return rules


def _major_game_test(major: int, count: int, game_lo: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if count == 6:
            return f.lengths[major] >= 6 and f.hcp + f.length_points >= game_lo
        return f.lengths[major] == 5 and f.hcp >= game_lo and f.lengths[major ^ 1] < 6

    return test


def _weak_takeout_test(suit: int, their: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        count = 6 if suit == CLUBS else 5
        if f.lengths[suit] < count:
            return False
        candidates = [s for s in range(4) if not their >> s & 1 and f.lengths[s] >= 5]
        return f.longest(candidates) == suit

    return test


def _notrump_rebid(state: _State, mine: Bid, shown: _Meaning, answer: Bid) -> list[_Rule]:
    """The notrump bidder's rebid after partner answered."""
    lo, hi = shown.lo, shown.hi
    rules: list[_Rule] = []
    if answer.strain == NOTRUMP and answer.level == mine.level + 1 and answer.level <= 2:
        rules.append(
            _Rule(
                _bid(3, NOTRUMP),
                _Meaning(f"{_span(lo + 1, hi)}, accepts the invitation", lo + 1, hi),
                lambda f: f.hcp >= lo + 1,
            )
        )
    elif answer.level == 3 and answer.strain in _MAJORS:
        major = answer.strain
        rules.append(
            _Rule(
                _bid(4, major),
                _Meaning(f"3+ {_NAMES[major]}, to play", lengths=_lengths(major, 3)),
                lambda f: f.lengths[major] >= 3,
            )
        )
        rules.append(_Rule(_bid(3, NOTRUMP), _Meaning(f"2 {_NAMES[major]}, to play"), _always))
    elif answer == _bid(4, NOTRUMP):
        rules.append(
            _Rule(
                _bid(6, NOTRUMP),
                _Meaning(f"{_span(hi, hi)} (maximum), accepts", hi, hi),
                lambda f: f.hcp >= hi or (f.hcp >= hi - 1 and f.length_points > 0),
            )
        )
    rules.append(_Rule(PASS, _Meaning("to play"), _always))
    return rules


def _strong_responses() -> list[_Rule]:
    rules = []
    for suit in (HEARTS, SPADES, CLUBS, DIAMONDS):
        level = 2 if suit in _MAJORS else 3
        rules.append(
            _Rule(
                _bid(level, suit),
                _Meaning(
                    f"8+ HCP, good 5+ {_NAMES[suit]}, positive",
                    8,
                    _MAX_POINTS,
                    _lengths(suit, 5),
                    game_forcing=True,
                ),
                _positive_test(suit),
            )
        )
    rules.append(
        _Rule(
            _bid(2, NOTRUMP),
            _Meaning("8+ HCP, balanced, positive", 8, _MAX_POINTS, (2, 2, 2, 2), balanced=True),
            lambda f: f.hcp >= 8 and f.balanced,
        )
    )
    rules.append(
        _Rule(
            _bid(2, DIAMONDS),
            _Meaning("artificial, waiting (usually 0-7 HCP)", 0, 10),
            _always,
        )
    )
    return rules


def _positive_test(suit: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        good = [s for s in range(4) if f.is_good(s)]
        return f.hcp >= 8 and bool(good) and f.longest(good) == suit

    return test


def _weak_two_responses(opened: int) -> list[_Rule]:
    name = _NAMES[opened]
    rules = []
    if opened in _MAJORS:
        rules.append(
            _Rule(
                _bid(4, opened),
                _Meaning(f"2+ {name}, to play", 16, 24, _lengths(opened, 2)),
                lambda f: f.lengths[opened] >= 2 and f.suit_points(opened) >= 17,
            )
        )
    else:
        rules.append(
            _Rule(
                _bid(5, opened),
                _Meaning(f"3+ {name}, to play", 19, 26, _lengths(opened, 3)),
                lambda f: f.lengths[opened] >= 3 and f.suit_points(opened) >= 21,
            )
        )
    rules.append(
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning("16+ HCP, stoppers in the other suits, to play", 16, 24),
            lambda f: f.hcp >= 16 and all(f.stoppers[s] for s in range(4) if s != opened),
        )
    )
    rules.append(
        _Rule(
            _bid(3, opened),
            _Meaning(f"3+ {name}, preemptive, to play", 0, 15, _lengths(opened, 3)),
            lambda f: f.lengths[opened] >= 3 and f.hcp <= 15,
        )
    )
    rules.append(_Rule(PASS, _Meaning("no game in view", 0, 16), _always))
    return rules


def _preempt_responses(opened: int) -> list[_Rule]:
    name = _NAMES[opened]
    rules = []
    if opened in _MAJORS:
        rules.append(
            _Rule(
                _bid(4, opened),
                _Meaning(f"2+ {name}, to play", 15, 24, _lengths(opened, 2)),
                lambda f: f.lengths[opened] >= 2 and f.suit_points(opened) >= 16,
            )
        )
    else:
        rules.append(
            _Rule(
                _bid(3, NOTRUMP),
                _Meaning("16+ HCP, stoppers in the other suits, to play", 16, 24),
                lambda f: (
                    f.hcp >= 16
                    and f.lengths[opened] >= 1
                    and all(f.stoppers[s] for s in range(4) if s != opened)
                ),
            )
        )
        rules.append(
            _Rule(
                _bid(5, opened),
                _Meaning(f"3+ {name}, to play", 18, 26, _lengths(opened, 3)),
                lambda f: f.lengths[opened] >= 3 and f.suit_points(opened) >= 20,
            )
        )
    rules.append(_Rule(PASS, _Meaning("no game in view", 0, 16), _always))
    return rules


# --------------------------------------------------------------------------------------------
# Opener's rebid


def _opener_rebid(state: _State) -> list[_Rule] | None:
    me = state.turn
    opening = state.opening
    assert opening is not None
    answer = state.actions[me.partner][0]
    assert isinstance(answer, Bid)
    if opening.strain == NOTRUMP and opening.level <= 2:
        return None  # the notrump follow-ups answer this
    if opening == _bid(2, CLUBS):
        if answer == _bid(2, DIAMONDS):
            return _strong_rebid()
        return None
    if opening.level >= 2:
        return [_Rule(PASS, _Meaning("nothing more to say"), _always)]
    opened = opening.strain
    if answer.strain == opened:
        return _rebid_after_raise(state, opened, answer)
    if answer.strain == NOTRUMP:
        if answer.level == 1:
            return _rebid_after_suit(state, opened, None)
        return _rebid_after_notrump(state, opened, answer)
    if answer.level == (1 if answer.strain > opened else 2):  # a new suit, not a jump
        return _rebid_after_suit(state, opened, answer.strain)
    return None


def _rebid_after_raise(state: _State, opened: int, raise_: Bid) -> list[_Rule]:
    partner = state.info[state.turn.partner]
    name = _NAMES[opened]
    pe_lo, pe_hi = partner.lo, partner.hi
    expected = partner.expected
    major = opened in _MAJORS
    rules: list[_Rule] = []

    def points(f: _Facts) -> float:
        return f.suit_points(opened) + expected

    rules.append(
        _Rule(
            _bid(6, opened),
            _Meaning(f"{_span(SLAM - expected, 37, 'points')}, to play", round(SLAM - expected)),
            lambda f: points(f) >= SLAM,
        )
    )
    if major:
        if raise_.level < 4:
            rules.append(
                _Rule(
                    _bid(4, opened),
                    _Meaning(
                        f"{_span(GAME - expected, SLAM - 1 - expected, 'points')}, to play",
                        round(GAME - expected),
                        round(SLAM - 1 - expected),
                    ),
                    lambda f: points(f) >= GAME,
                )
            )
        if raise_.level == 2:
            lo, hi = GAME - pe_hi, GAME - 1 - pe_lo
            rules.append(
                _Rule(
                    _bid(3, opened),
                    _Meaning(f"{_span(lo, hi, 'points')}, invitational", lo, hi),
                    lambda f: f.suit_points(opened) + pe_hi >= GAME,
                )
            )
    else:
        rules.append(
            _Rule(
                _bid(3, NOTRUMP),
                _Meaning(
                    f"{_span(GAME - expected, SLAM - 1 - expected)}, balanced, to play",
                    round(GAME - expected),
                    round(SLAM - 1 - expected),
                    balanced=True,
                ),
                lambda f: f.semi_balanced and f.hcp + expected >= GAME,
            )
        )
        rules.append(
            _Rule(
                _bid(5, opened),
                _Meaning(f"{_span(MINOR_GAME - expected, 37, 'points')}, {name}, to play"),
                lambda f: points(f) >= MINOR_GAME,
            )
        )
    rules.append(_Rule(PASS, _Meaning("minimum, to play"), _always))
    return rules


def _rebid_after_notrump(state: _State, opened: int, answer: Bid) -> list[_Rule]:
    partner = state.info[state.turn.partner]
    expected = partner.expected
    name = _NAMES[opened]
    rules = [
        _Rule(
            _bid(6, NOTRUMP),
            _Meaning(f"{_span(SLAM - expected, 37)}, to play", round(SLAM - expected)),
            lambda f: f.hcp + expected >= SLAM,
        )
    ]
    if opened in _MAJORS:
        rules.append(
            _Rule(
                _bid(4, opened),
                _Meaning(f"6+ {name}, to play", lengths=_lengths(opened, 6)),
                lambda f: f.lengths[opened] >= 6 and f.hcp + f.length_points + expected >= GAME,
            )
        )
    if answer.level == 2:
        rules.append(
            _Rule(
                _bid(3, NOTRUMP),
                _Meaning(f"{_span(GAME - expected, 21)}, to play", round(GAME - expected)),
                lambda f: f.hcp + expected >= GAME,
            )
        )
        rules.append(
            _Rule(
                _bid(3, opened),
                _Meaning(f"minimum, 6+ {name}", 11, 14, _lengths(opened, 6)),
                lambda f: f.lengths[opened] >= 6,
            )
        )
    rules.append(_Rule(PASS, _Meaning("to play"), _always))
    return rules


_REBID_1NT = _Meaning("12-14 HCP, balanced", 11, 14, (2, 2, 2, 2), balanced=True)


def _rebid_after_suit(state: _State, opened: int, answer: int | None) -> list[_Rule]:
    """Opener's rebid after a new suit (``answer``) or 1NT (``answer`` None)."""
    name = _NAMES[opened]
    rules: list[_Rule] = []
    two_over_one = answer is not None and answer < opened

    def add(bid: Call | None, meaning: _Meaning, test: Callable[[_Facts], bool]) -> None:
        if bid is not None and state.is_legal(bid):
            rules.append(_Rule(bid, meaning, test))

    def total(f: _Facts) -> int:
        return f.hcp + f.length_points

    # 1. Raise partner's suit.
    if answer is not None:
        partner_name = _NAMES[answer]
        need = 3 if answer == HEARTS and two_over_one else 4
        raise_lengths = _lengths(answer, need)

        def raise_points(f: _Facts, suit: int = answer) -> int:
            return max(total(f), f.suit_points(suit)) if f.lengths[suit] >= need else -1

        if two_over_one:
            add(
                _bid(3, answer),
                _Meaning(f"12+ points, {need}+ {partner_name}", 11, 21, raise_lengths),
                lambda f: (
                    raise_points(f) >= 0
                    and (
                        answer in _MAJORS
                        or not any(f.lengths[m] >= 4 for m in _MAJORS if m != opened)
                    )
                ),
            )
        elif answer in _MAJORS:
            add(
                _bid(4, answer),
                _Meaning(f"19-21 points, {need}+ {partner_name}", 19, 21, raise_lengths),
                lambda f: raise_points(f) >= 19,
            )
            add(
                _bid(3, answer),
                _Meaning(
                    f"16-18 points, {need}+ {partner_name}, invitational", 16, 18, raise_lengths
                ),
                lambda f: raise_points(f) >= 16,
            )
            add(
                _bid(2, answer),
                _Meaning(f"12-15 points, {need}+ {partner_name}", 11, 15, raise_lengths),
                lambda f: raise_points(f) >= 0,
            )
    # 2. A new suit at the one level.
    if answer is not None and not two_over_one:
        for suit in (HEARTS, SPADES):
            if suit > answer and suit != opened:
                add(
                    _bid(1, suit),
                    _Meaning(f"12-21 points, 4+ {_NAMES[suit]}", 11, 21, _lengths(suit, 4)),
                    _one_level_rebid_test(opened, suit, answer),
                )
    # 3. Notrump with a balanced hand.
    if answer is None:
        low_nt, high_nt = None, _bid(2, NOTRUMP)
    elif two_over_one:
        low_nt, high_nt = _bid(2, NOTRUMP), _bid(3, NOTRUMP)
    else:
        low_nt, high_nt = _bid(1, NOTRUMP), _bid(2, NOTRUMP)
    if low_nt is not None:
        add(
            low_nt,
            _REBID_1NT,
            lambda f: f.balanced and f.hcp <= 14,
        )
    add(
        high_nt,
        _Meaning(
            "18-19 HCP, balanced" + (", invitational" if high_nt.level == 2 else ""),
            18,
            19,
            (2, 2, 2, 2),
            balanced=True,
        ),
        lambda f: f.balanced and f.hcp >= 18,
    )
    # 4. A six-card suit, by strength.
    cheap = state.cheapest(opened)
    six = _lengths(opened, 6)
    minimum = _Meaning(f"12-15 points, 5+ {name}, usually 6", 11, 15, _lengths(opened, 5))
    if cheap is not None:
        if opened in _MAJORS:
            add(
                _bid(4, opened),
                _Meaning(f"19-21 points, 6+ {name}, to play", 19, 21, six),
                lambda f: f.lengths[opened] >= 6 and total(f) >= 19,
            )
        jump = _bid(cheap.level + 1, opened)
        if jump.level <= 3:
            add(
                jump,
                _Meaning(f"16-21 points, 6+ {name}, invitational", 16, 21, six),
                lambda f: f.lengths[opened] >= 6 and total(f) >= 16,
            )
        add(cheap, minimum, lambda f: f.lengths[opened] >= 6)
    # 5. Raise of a minor.
    if answer is not None and answer in _MINORS and not two_over_one:
        add(
            _bid(2, answer),
            _Meaning(f"12-15 points, 4+ {_NAMES[answer]}", 11, 15, _lengths(answer, 4)),
            lambda f: f.lengths[answer] >= 4,
        )
    # 6. A new suit at the two level: lower (12-18), a reverse (17+) or a jump shift (19+).
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        if suit in (opened, answer):
            continue
        bid = state.cheapest(suit)
        if bid is None or bid.level > 3:
            continue
        if bid.level == 1:
            continue  # handled above (only majors, by rule 2)
        if bid.level == 2 and suit < opened:
            add(
                bid,
                _Meaning(f"12-18 points, 4+ {_NAMES[suit]}", 11, 18, _lengths(suit, 4)),
                _second_suit_test(opened, suit, answer, 0, 18),
            )
        elif bid.level == 2:
            add(
                bid,
                _Meaning(
                    f"17+ points, 4+ {_NAMES[suit]}, 5+ {name}, forcing",
                    17,
                    21,
                    _lengths(suit, 4),
                    forcing=True,
                ),
                _second_suit_test(opened, suit, answer, 17, 21),
            )
        jump = _bid(bid.level + 1, suit)
        if jump.level <= 3:
            add(
                jump,
                _Meaning(
                    f"19+ points, 4+ {_NAMES[suit]}, game forcing",
                    19,
                    21,
                    _lengths(suit, 4),
                    game_forcing=True,
                ),
                _second_suit_test(opened, suit, answer, 19, 21),
            )
    # 7. Whatever is left: pass after 1NT, else the cheapest of our own suit or notrump.
    if answer is None:
        rules.append(_Rule(PASS, _Meaning("minimum, to play", 11, 15), _always))
        return rules
    if cheap is not None:
        add(cheap, minimum, lambda f: f.lengths[opened] >= 5)
    add(_bid(1, NOTRUMP), _REBID_1NT, _always)
    if cheap is not None:
        add(cheap, minimum, _always)
    rules.append(_Rule(PASS, _Meaning("minimum, nothing more to say", 11, 14), _always))
    return rules


def _one_level_rebid_test(opened: int, suit: int, answer: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if f.lengths[suit] < 4 or (f.lengths[answer] >= 4 and answer in _MAJORS):
            return False
        if f.lengths[opened] >= 6 and f.lengths[suit] < 5:
            return False
        other = HEARTS if suit == SPADES else SPADES
        return not (other > answer and other != opened and f.lengths[other] > f.lengths[suit])

    return test


def _second_suit_test(
    opened: int, suit: int, answer: int | None, lo: int, hi: int
) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        points = f.hcp + f.length_points
        if not lo <= points <= hi or f.lengths[suit] < 4:
            return False
        if answer is not None and f.lengths[answer] >= 4 and answer in _MAJORS:
            return False
        if suit > opened and f.lengths[opened] <= f.lengths[suit]:
            return False
        candidates = [s for s in range(4) if s not in (opened, answer) and f.lengths[s] >= 4]
        return f.longest(candidates) == suit

    return test


def _strong_rebid() -> list[_Rule]:
    rules = [
        _Rule(
            _bid(2, NOTRUMP),
            _Meaning(
                "22-24 HCP, balanced", 22, 24, (2, 2, 2, 2), balanced=True, ends_game_force=True
            ),
            lambda f: f.balanced and f.hcp <= 24,
        ),
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning("25-27 HCP, balanced", 25, 27, (2, 2, 2, 2), balanced=True),
            lambda f: f.balanced and f.hcp <= 27,
        ),
    ]
    for suit in (HEARTS, SPADES, CLUBS, DIAMONDS):
        level = 2 if suit in _MAJORS else 3
        rules.append(
            _Rule(
                _bid(level, suit),
                _Meaning(
                    f"22+ HCP, 5+ {_NAMES[suit]}, game forcing", 22, _MAX_POINTS, _lengths(suit, 5)
                ),
                _strong_suit_test(suit),
            )
        )
    rules.append(
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning("25-27 HCP, balanced", 25, 27, (2, 2, 2, 2), balanced=True),
            _always,
        )
    )
    return rules


def _strong_suit_test(suit: int) -> Callable[[_Facts], bool]:
    return lambda f: f.longest(range(4)) == suit


def _after_strong_rebid(state: _State) -> list[_Rule] | None:
    """Responder's second call after 2♣-2♦ and opener's rebid."""
    rebid = state.actions[state.turn.partner][1]
    meaning = state.last_meaning[state.turn.partner]
    if isinstance(rebid, Bid) and rebid.strain == NOTRUMP and meaning is not None:
        return _notrump_responses(state, rebid.level, meaning.lo, meaning.hi)
    return None


# --------------------------------------------------------------------------------------------
# Competition: overcalls, takeout doubles and their advances


def _overcall(state: _State) -> list[_Rule] | None:
    """Our first action after the opponents opened."""
    me = state.turn
    last = state.last_bid
    assert last is not None
    assert state.opening is not None
    if last.level >= 4:
        return None
    balancing = (
        state.calls[-1] == PASS and state.calls[-2] == PASS if len(state.calls) >= 2 else False
    )
    ease = 2 if balancing else 0
    their = state.opponent_suits(me)
    rules: list[_Rule] = []
    strain = last.strain
    # Notrump overcall with their suit stopped.
    if strain != NOTRUMP:
        nt = state.cheapest(NOTRUMP)
        if nt is not None and nt.level <= 3:
            lo, hi = (15 - ease, 18) if nt.level <= 2 else (16, 20)
            stops = their | 1 << strain
            rules.append(
                _Rule(
                    nt,
                    _Meaning(
                        f"{lo}-{hi} HCP, balanced, stopper in {_NAMES[strain]}",
                        lo,
                        hi,
                        (2, 2, 2, 2),
                        balanced=True,
                        stops=1 << strain,
                    ),
                    _notrump_overcall_test(stops, lo, hi),
                )
            )
    # Suit overcalls: a good five-card suit (or six), not a jump.
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        if their >> suit & 1:
            continue
        bid = state.cheapest(suit)
        if bid is None or bid.level > 3:
            continue
        lo = {1: 8, 2: 10, 3: 13}[bid.level] - ease
        rules.append(
            _Rule(
                bid,
                _Meaning(f"{lo}-16 HCP, good 5+ {_NAMES[suit]}", lo, 16, _lengths(suit, 5)),
                _overcall_test(suit, their, lo),
            )
        )
    # Takeout double of a suit, penalty double of notrump.
    if strain == NOTRUMP:
        rules.append(_Rule(DOUBLE, _Meaning("16+ HCP, penalty", 16), lambda f: f.hcp >= 16 - ease))
    else:
        lo = (12 if last.level <= 2 else 13) - ease
        unbid = [s for s in range(4) if not their >> s & 1]
        rules.append(
            _Rule(
                DOUBLE,
                _Meaning(
                    f"takeout: {lo}+ HCP, short in {_NAMES[strain]}, support for the other "
                    "suits (or 17+ HCP)",
                    lo,
                    _MAX_POINTS,
                    _min_lengths(dict.fromkeys(unbid, 3)),
                    forcing=True,
                    takeout=True,
                ),
                _takeout_test(strain, unbid, lo),
            )
        )
    rules.append(_Rule(PASS, _Meaning("no suitable overcall or double", 0, 16), _always))
    return rules


def _notrump_overcall_test(stops: int, lo: int, hi: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if not (lo <= f.hcp <= hi and f.semi_balanced):
            return False
        return all(f.stoppers[s] for s in range(4) if stops >> s & 1)

    return test


def _overcall_test(suit: int, their: int, lo: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if not lo <= f.hcp <= 16:
            return False
        good = [
            s
            for s in range(4)
            if not their >> s & 1 and (f.is_good(s) or (f.lengths[s] >= 6 and f.top5[s] >= 2))
        ]
        return bool(good) and f.longest(good) == suit

    return test


def _takeout_test(strain: int, unbid: list[int], lo: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if f.hcp >= 17:
            return True
        return f.hcp >= lo and f.lengths[strain] <= 2 and all(f.lengths[s] >= 3 for s in unbid)

    return test


def _advance(state: _State) -> list[_Rule] | None:
    """Our first action after partner overcalled or doubled."""
    me = state.turn
    partner_call = state.actions[me.partner][0]
    meaning = state.last_meaning[me.partner]
    last = state.last_bid
    assert last is not None
    assert meaning is not None
    rho_acted = state.calls[-1] != PASS
    if isinstance(partner_call, Double):
        doubled = _bid_before(state, me.partner)
        if doubled is None or doubled.level >= 4:
            return None
        if doubled.strain == NOTRUMP:
            if rho_acted:
                return None
            return [_Rule(PASS, _Meaning("defending partner's penalty double"), _always)]
        return _advance_takeout(state, doubled, forced=not rho_acted)
    if not isinstance(partner_call, Bid) or last.level >= 4:
        return None
    if partner_call.strain == NOTRUMP:
        if rho_acted or not meaning.balanced:
            return None
        return _notrump_responses(state, partner_call.level, meaning.lo, meaning.hi)
    return _advance_overcall(state, partner_call.strain, meaning)


def _bid_before(state: _State, seat: Seat) -> Bid | None:
    """The last bid before ``seat``'s last call."""
    index = len(state.calls) - 1
    while index >= 0 and Seat((state.dealer + index) % 4) != seat:
        index -= 1
    for call in reversed(state.calls[:index]):
        if isinstance(call, Bid):
            return call
    return None


def _advance_takeout(state: _State, doubled: Bid, forced: bool) -> list[_Rule]:
    """Answering partner's takeout double of ``doubled`` (``forced`` when our right-hand
    opponent passed): by strength, in the longest unbid suit (a four-card major first)."""
    me = state.turn
    their = state.opponent_suits(me)
    unbid = [s for s in range(4) if not their >> s & 1]
    strain = doubled.strain
    doubler = state.info[me.partner]
    game_lo = max(10, 24 - doubler.lo)  # 12 opposite a 12-point double
    rules: list[_Rule] = []

    def choice(f: _Facts) -> int:
        majors = [m for m in _MAJORS if m in unbid and f.lengths[m] >= 4]
        return f.longest(majors) if majors else f.longest(unbid)

    def no_major(f: _Facts) -> bool:
        return not any(f.lengths[m] >= 4 for m in _MAJORS if m in unbid)

    def points(f: _Facts) -> int:
        return f.hcp + f.length_points

    def jump_test(suit: int) -> Callable[[_Facts], bool]:
        return lambda f: points(f) >= game_lo - 3 and f.lengths[suit] >= 4

    def cheap_test(suit: int) -> Callable[[_Facts], bool]:
        return lambda f: forced or (f.hcp >= 6 and f.lengths[suit] >= 4)

    def add(bid: Call | None, meaning: _Meaning, test: Callable[[_Facts], bool]) -> None:
        if bid is not None and state.is_legal(bid):
            rules.append(_Rule(bid, meaning, test))

    if doubled.level <= 2 and forced:
        add(
            PASS,
            _Meaning(f"penalty: long strong {_NAMES[strain]}", 6, _MAX_POINTS, _lengths(strain, 5)),
            lambda f: f.lengths[strain] >= 5 and f.top5[strain] >= 3 and f.hcp >= 6,
        )
    stop = 1 << strain
    stopper = f"stopper in {_NAMES[strain]}"
    add(
        _bid(3, NOTRUMP),
        _Meaning(f"{_span(game_lo + 1, 20)}, {stopper}, to play", game_lo + 1, 20, stops=stop),
        lambda f: f.hcp > game_lo and f.stoppers[strain] and no_major(f),
    )
    lo = 0 if forced else 6
    for suit in unbid:
        if suit in _MAJORS:
            if state.cheapest(suit) == _bid(4, suit):  # the cheapest bid is game already
                add(
                    _bid(4, suit),
                    _Meaning(
                        f"{_span(lo, 20, 'points')}, longest unbid suit, to play",
                        lo,
                        20,
                        _lengths(suit, 3 if forced else 4),
                    ),
                    _choice_test(choice, suit, cheap_test(suit)),
                )
            add(
                _bid(4, suit),
                _Meaning(
                    f"{_span(game_lo, 20, 'points')}, 4+ {_NAMES[suit]}, to play",
                    game_lo,
                    20,
                    _lengths(suit, 4),
                ),
                _choice_test(choice, suit, lambda f: points(f) >= game_lo),
            )
    if doubled.level == 1:
        add(
            _bid(2, NOTRUMP),
            _Meaning(
                f"{_span(game_lo - 1, game_lo)}, {stopper}, invitational",
                game_lo - 1,
                game_lo,
                stops=stop,
            ),
            lambda f: f.hcp >= game_lo - 1 and f.stoppers[strain] and no_major(f),
        )
        add(
            _bid(1, NOTRUMP),
            _Meaning(f"{_span(6, game_lo - 2)}, {stopper}", 6, game_lo - 2, stops=stop),
            lambda f: f.hcp >= 6 and f.stoppers[strain] and no_major(f),
        )
    for suit in unbid:
        bid = state.cheapest(suit)
        if bid is None or bid.level >= 3:
            continue
        add(
            _bid(bid.level + 1, suit),
            _Meaning(
                f"{_span(game_lo - 3, game_lo - 1, 'points')}, 4+ {_NAMES[suit]}, invitational",
                game_lo - 3,
                game_lo - 1,
                _lengths(suit, 4),
            ),
            _choice_test(choice, suit, jump_test(suit)),
        )
    for suit in unbid:
        add(
            state.cheapest(suit),
            _Meaning(
                f"{_span(lo, game_lo - 4, 'points')}, longest unbid suit"
                + ("" if forced else ", 4+ cards"),
                lo,
                game_lo - 1,
                _lengths(suit, 3 if forced else 4),
            ),
            _choice_test(choice, suit, cheap_test(suit)),
        )
    if forced:
        cheapest = min(
            (b for b in (state.cheapest(s) for s in range(5)) if b is not None),
            key=lambda b: b.rank,
            default=None,
        )
        add(cheapest, _Meaning("forced to bid, no good suit", 0, game_lo - 1), _always)
    rules.append(_Rule(PASS, _Meaning("nothing to add", 0, game_lo - 1), _always))
    return rules


def _choice_test(
    choice: Callable[[_Facts], int], suit: int, extra: Callable[[_Facts], bool]
) -> Callable[[_Facts], bool]:
    return lambda f: choice(f) == suit and extra(f)


def _advance_overcall(state: _State, suit: int, shown: _Meaning) -> list[_Rule]:
    me = state.turn
    their = state.opponent_suits(me)
    name = _NAMES[suit]
    expected = shown.lo + min(shown.hi - shown.lo, 5) / 2
    rules: list[_Rule] = []
    cheap = state.cheapest(suit)
    if cheap is None:
        return [_Rule(PASS, _Meaning("nothing to add"), _always)]
    c = cheap.level

    def support(f: _Facts) -> int:
        return f.suit_points(suit) if f.lengths[suit] >= 3 else -1

    def add(bid: Call | None, meaning: _Meaning, test: Callable[[_Facts], bool]) -> None:
        if bid is not None and state.is_legal(bid):
            rules.append(_Rule(bid, meaning, test))

    game_lo = round(GAME - expected)
    if suit in _MAJORS:
        add(
            _bid(4, suit),
            _Meaning(
                f"{_span(game_lo, 22, 'points')}, 3+ {name}, to play",
                game_lo,
                22,
                _lengths(suit, 3),
            ),
            lambda f: support(f) >= game_lo,
        )
    stopped = [s for s in range(4) if their >> s & 1]
    stop_text = ", ".join(_NAMES[s] for s in stopped) or "their suits"
    add(
        _bid(3, NOTRUMP),
        _Meaning(
            f"{_span(game_lo, 22)}, stoppers in {stop_text}, to play", game_lo, 22, stops=their
        ),
        lambda f: f.hcp >= game_lo and f.semi_balanced and all(f.stoppers[s] for s in stopped),
    )
    opened = state.opening
    assert opened is not None
    cue = state.cheapest(opened.strain)
    if state.level == "strong" and opened.strain not in (NOTRUMP, suit) and cue is not None:
        # A cue-bid of their suit is the good raise; the jump raise is preemptive.
        if cue.level <= 3:
            add(
                cue,
                _Meaning(
                    f"cue-bid: 3+ {name}, {_span(game_lo - 3, 37, 'points')}, a limit raise "
                    "or better",
                    game_lo - 3,
                    _MAX_POINTS,
                    _lengths(suit, 3),
                    forcing=True,
                    convention=_CUE_BID_RAISE,
                    suit=suit,
                ),
                lambda f: support(f) >= game_lo - 3,
            )
        if c + 1 <= 3:
            add(
                _bid(c + 1, suit),
                _Meaning(
                    f"preemptive: 4+ {name}, {_span(6, game_lo - 4, 'points')}",
                    6,
                    game_lo - 4,
                    _lengths(suit, 4),
                ),
                lambda f: f.lengths[suit] >= 4 and 6 <= support(f) <= game_lo - 4,
            )
    elif c + 1 <= 3:
        add(
            _bid(c + 1, suit),
            _Meaning(
                f"{_span(game_lo - 3, game_lo - 1, 'points')}, 3+ {name}, invitational",
                game_lo - 3,
                game_lo - 1,
                _lengths(suit, 3),
            ),
            lambda f: support(f) >= game_lo - 3,
        )
    if c <= 3:
        need = 3 if c <= 2 else 4
        top = game_lo - 4 if c + 1 <= 3 else game_lo - 1
        add(
            cheap,
            _Meaning(f"6-{top} points, {need}+ {name}", 6, top, _lengths(suit, need)),
            lambda f: support(f) >= 6 and f.lengths[suit] >= need,
        )
    nt_one = _bid(1, NOTRUMP)
    add(
        nt_one,
        _Meaning(f"8-11 HCP, stoppers in {stop_text}", 8, 11, stops=their),
        lambda f: 8 <= f.hcp <= 11 and f.semi_balanced and all(f.stoppers[s] for s in stopped),
    )
    for other in (SPADES, HEARTS, DIAMONDS, CLUBS):
        if other == suit or their >> other & 1:
            continue
        bid = state.cheapest(other)
        if bid is None or bid.level > 2:
            continue
        lo = 8 if bid.level == 1 else 11
        add(
            bid,
            _Meaning(
                f"{lo}+ HCP, good 5+ {_NAMES[other]}, not forcing", lo, 16, _lengths(other, 5)
            ),
            _overcall_test(other, their | 1 << suit, lo),
        )
    rules.append(_Rule(PASS, _Meaning("no fit, nothing to add", 0, 11), _always))
    return rules


# --------------------------------------------------------------------------------------------
# Conventions (the strong level): Stayman, Jacoby transfers, Roman Key Card Blackwood,
# negative doubles. Each is a table of rules for the positions it creates; the natural
# situations answer everything else.

_STAYMAN = "Stayman"
_TRANSFER = "transfer"
_KEYCARD_ASK = "key-card ask"
_KEYCARD_ANSWER = "key-card answer"
_NEGATIVE_DOUBLE = "negative double"
_CUE_BID_RAISE = "cue-bid raise"


def _convention_situation(state: _State) -> list[_Rule] | None:
    """The rules of a position one of the strong level's conventions creates, or None."""
    for situation in _CONVENTION_SITUATIONS:
        rules = situation(state)
        if rules is not None:
            return rules
    return None


def _quiet(state: _State) -> bool:
    """Whether the opponents have made no call but Pass."""
    me = state.turn
    return not state.actions[me.lho] and not state.actions[me.rho]


def _notrump_opening(state: _State) -> tuple[int, int, int] | None:
    """Level, low and high end of our side's 1NT or 2NT opening, if it opened one."""
    opening, opener = state.opening, state.opener
    if opening is None or opener is None or opener % 2 != state.turn % 2:
        return None
    if opening.strain != NOTRUMP or opening.level > 2:
        return None
    meaning = state.meanings[opener][0]
    return opening.level, meaning.lo, meaning.hi


# Partner opened 1NT or 2NT: Stayman and the transfers before the natural answers.


def _notrump_convention_responses(state: _State) -> list[_Rule] | None:
    me = state.turn
    opened = _notrump_opening(state)
    if (
        opened is None
        or state.opener != me.partner
        or state.actions[me]
        or len(state.actions[me.partner]) != 1
        or state.calls[-2] != state.opening
        or not _quiet(state)
    ):
        return None
    level, lo, hi = opened
    conventions = _notrump_conventions(level, hi)
    redefined = {rule.call for rule in conventions}
    natural = _notrump_responses(state, level, lo, hi)
    return conventions + [rule for rule in natural if rule.call not in redefined]


def _notrump_conventions(level: int, hi: int) -> list[_Rule]:
    """Transfers (2♦ for hearts, 2♥ for spades; a level higher over 2NT) with a five-card
    major, whatever the strength; Stayman (2♣, 3♣ over 2NT) with a four-card major and
    game interest."""
    rules = [
        _Rule(
            _bid(level + 1, major - 1),
            _Meaning(
                f"transfer: 5+ {_NAMES[major]}",
                lengths=_lengths(major, 5),
                forcing=True,
                convention=_TRANSFER,
                suit=major,
            ),
            _transfer_test(major),
        )
        for major in (HEARTS, SPADES)
    ]
    least = GAME - hi
    rules.append(
        _Rule(
            _bid(level + 1, CLUBS),
            _Meaning(
                f"Stayman: asks for a 4-card major, {_span(least, _MAX_POINTS)}",
                least,
                forcing=True,
                convention=_STAYMAN,
            ),
            lambda f: f.hcp >= least and max(f.lengths[HEARTS], f.lengths[SPADES]) >= 4,
        )
    )
    return rules


def _transfer_test(major: int) -> Callable[[_Facts], bool]:
    return lambda f: f.lengths[major] >= 5 and f.longest(_MAJORS) == major


# The notrump opener answers Stayman or a transfer.


def _opener_again(state: _State, calls: int) -> tuple[int, int, int] | None:
    """Our 1NT or 2NT opening (as :func:`_notrump_opening`) when its opener is on turn after
    ``calls`` calls of each partner, responder's last just made, the opponents silent."""
    me = state.turn
    opened = _notrump_opening(state)
    if (
        opened is None
        or state.opener != me
        or len(state.actions[me]) != calls
        or len(state.actions[me.partner]) != calls
        or state.calls[-2] != state.actions[me.partner][calls - 1]
        or not _quiet(state)
    ):
        return None
    return opened


def _notrump_convention_answers(state: _State) -> list[_Rule] | None:
    me = state.turn
    opened = _opener_again(state, 1)
    if opened is None:
        return None
    level, _, hi = opened
    asked = state.meanings[me.partner][0]
    if asked.convention == _STAYMAN:
        return _stayman_answers(level)
    if asked.convention == _TRANSFER:
        return _transfer_answers(level, hi, asked.suit)
    return None


def _stayman_answers(level: int) -> list[_Rule]:
    return [
        _Rule(
            _bid(level + 1, HEARTS),
            _Meaning("4 hearts, may hold 4 spades", lengths=_lengths(HEARTS, 4)),
            lambda f: f.lengths[HEARTS] >= 4,
        ),
        _Rule(
            _bid(level + 1, SPADES),
            _Meaning("4 spades, not 4 hearts", lengths=_lengths(SPADES, 4)),
            lambda f: f.lengths[SPADES] >= 4,
        ),
        _Rule(_bid(level + 1, DIAMONDS), _Meaning("no 4-card major"), _always),
    ]


def _transfer_answers(level: int, hi: int, major: int) -> list[_Rule]:
    name = _NAMES[major]
    rules: list[_Rule] = []
    if level == 1:
        rules.append(
            _Rule(
                _bid(3, major),
                _Meaning(f"super-accept: 4+ {name}, {_span(hi, hi)}", hi, hi, _lengths(major, 4)),
                lambda f: f.lengths[major] >= 4 and f.hcp >= hi,
            )
        )
    rules.append(
        _Rule(
            _bid(level + 1, major),
            _Meaning(f"completes the transfer: 2+ {name}", lengths=_lengths(major, 2)),
            _always,
        )
    )
    return rules


# Responder's second call, after opener's answer.


def _notrump_convention_continuations(state: _State) -> list[_Rule] | None:
    me = state.turn
    opened = _notrump_opening(state)
    if (
        opened is None
        or state.opener != me.partner
        or len(state.actions[me]) != 1
        or len(state.actions[me.partner]) != 2
        or state.calls[-2] != state.actions[me.partner][1]
        or not _quiet(state)
    ):
        return None
    level, lo, hi = opened
    mine = state.meanings[me][0]
    answer = state.actions[me.partner][1]
    assert isinstance(answer, Bid)
    expected = state.info[me.partner].expected
    if mine.convention == _STAYMAN:
        return _after_stayman(level, lo, hi, expected, answer)
    if mine.convention == _TRANSFER and answer == _bid(level + 1, mine.suit):
        return _after_transfer(state, level, lo, hi, expected, mine.suit)
    return None  # a super-accept: the general logic places the contract


def _after_stayman(level: int, lo: int, hi: int, expected: float, answer: Bid) -> list[_Rule]:
    rules: list[_Rule] = []
    major = int(answer.strain)
    game_lo = GAME - lo if level == 1 else GAME - hi
    if major in _MAJORS:
        name = _NAMES[major]
        rules += [
            _Rule(_bid(4, NOTRUMP), _keycard_ask(major), _slam_test(major, 4, expected)),
            _Rule(
                _bid(4, major),
                _Meaning(
                    f"{_span(game_lo, SLAM - 1 - hi, 'points')}, 4 {name}, to play",
                    game_lo,
                    SLAM - 1 - hi,
                    _lengths(major, 4),
                ),
                lambda f: f.lengths[major] >= 4 and f.suit_points(major) >= game_lo,
            ),
        ]
        if level == 1:
            rules.append(
                _Rule(
                    _bid(3, major),
                    _Meaning(
                        f"{_span(GAME - hi, game_lo - 1, 'points')}, 4 {name}, invitational",
                        GAME - hi,
                        game_lo - 1,
                        _lengths(major, 4),
                    ),
                    lambda f: f.lengths[major] >= 4,
                )
            )
    # No fit found: Stayman promised a four-card major, so it is the one opener denied.
    other = _lengths(major ^ 1, 4) if major in _MAJORS else (0, 0, 0, 0)
    other_text = f", 4 {_NAMES[major ^ 1]}" if major in _MAJORS else ""
    if major not in _MAJORS:
        rules.append(
            _Rule(
                _bid(4, NOTRUMP),
                _Meaning(
                    f"{_span(SLAM - hi, SLAM - 1 - lo)}, invites 6NT", SLAM - hi, SLAM - 1 - lo
                ),
                lambda f: f.hcp + hi >= SLAM and f.hcp + lo < SLAM,
            )
        )
    rules += [
        _Rule(
            _bid(6, NOTRUMP),
            _Meaning(
                f"{_span(SLAM - lo, GRAND - 1 - lo)}{other_text}, to play",
                SLAM - lo,
                GRAND - 1 - lo,
                other,
            ),
            lambda f: f.hcp + lo >= SLAM,
        ),
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning(
                f"{_span(game_lo, SLAM - 1 - hi)}{other_text}, to play",
                game_lo,
                SLAM - 1 - hi,
                other,
            ),
            lambda f: f.hcp >= game_lo,
        ),
    ]
    if level == 1:
        rules.append(
            _Rule(
                _bid(2, NOTRUMP),
                _Meaning(
                    f"{_span(GAME - hi, game_lo - 1)}{other_text}, invitational",
                    GAME - hi,
                    game_lo - 1,
                    other,
                ),
                _always,
            )
        )
    rules.append(_Rule(PASS, _Meaning("to play"), _always))
    return rules


def _slam_test(trump: int, count: int, expected: float) -> Callable[[_Facts], bool]:
    """``count``+ trumps and slam values opposite partner's ``expected`` points."""
    return lambda f: f.lengths[trump] >= count and f.suit_points(trump) + expected >= SLAM


def _after_transfer(
    state: _State, level: int, lo: int, hi: int, expected: float, major: int
) -> list[_Rule]:
    name = _NAMES[major]
    game_lo = GAME - lo if level == 1 else GAME - hi
    weak = GAME - hi - 1
    five = _lengths(major, 5)
    six = _lengths(major, 6)

    def total(f: _Facts) -> int:
        return f.hcp + f.length_points

    rules = [
        _Rule(_bid(4, NOTRUMP), _keycard_ask(major), _slam_test(major, 6, expected)),
        _Rule(
            _bid(6, NOTRUMP),
            _Meaning(
                f"{_span(SLAM - lo, GRAND - 1 - lo)}, 5 {name}, to play",
                SLAM - lo,
                GRAND - 1 - lo,
                five,
            ),
            lambda f: f.lengths[major] == 5 and f.semi_balanced and f.hcp + lo >= SLAM,
        ),
    ]
    if level == 1:
        for side in (CLUBS, DIAMONDS, HEARTS, SPADES):
            bid = state.cheapest(side)
            if side == major or bid is None or bid.level > 3:
                continue
            rules.append(
                _Rule(
                    bid,
                    _Meaning(
                        f"{_span(game_lo, _MAX_POINTS)}, 4+ {_NAMES[side]}, game forcing",
                        game_lo,
                        lengths=_lengths(side, 4),
                        forcing=True,
                        game_forcing=True,
                    ),
                    _second_suit_after_transfer(major, side, game_lo),
                )
            )
    rules += [
        _Rule(
            _bid(4, major),
            _Meaning(
                f"{_span(game_lo, SLAM - 1 - hi, 'points')}, 6+ {name}, to play",
                game_lo,
                SLAM - 1 - hi,
                six,
            ),
            lambda f: f.lengths[major] >= 6 and total(f) >= game_lo,
        ),
        _Rule(
            _bid(3, NOTRUMP),
            _Meaning(
                f"{_span(game_lo, SLAM - 1 - hi)}, 5 {name}: opener chooses 3NT or 4 {name}",
                game_lo,
                SLAM - 1 - hi,
                five,
            ),
            lambda f: f.hcp >= game_lo,
        ),
    ]
    if level == 1:
        rules += [
            _Rule(
                _bid(3, major),
                _Meaning(
                    f"{_span(weak + 1, game_lo - 1, 'points')}, 6+ {name}, invitational",
                    weak + 1,
                    game_lo - 1,
                    six,
                ),
                lambda f: f.lengths[major] >= 6 and total(f) > weak,
            ),
            _Rule(
                _bid(2, NOTRUMP),
                _Meaning(
                    f"{_span(weak + 1, game_lo - 1)}, 5 {name}, invitational",
                    weak + 1,
                    game_lo - 1,
                    five,
                ),
                lambda f: f.hcp > weak,
            ),
        ]
    rules.append(_Rule(PASS, _Meaning(f"{_span(0, weak)}, to play", 0, weak), _always))
    return rules


def _second_suit_after_transfer(major: int, side: int, game_lo: int) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        if f.hcp < game_lo or f.semi_balanced or f.lengths[side] < 4:
            return False
        return f.longest(s for s in range(4) if s != major) == side

    return test


# The notrump opener's second call, after responder's continuation.


def _notrump_convention_rebids(state: _State) -> list[_Rule] | None:
    me = state.turn
    opened = _opener_again(state, 2)
    if opened is None:
        return None
    _, lo, hi = opened
    asked = state.meanings[me.partner][0]
    answer = state.actions[me][1]
    then = state.actions[me.partner][1]
    if asked.convention not in (_STAYMAN, _TRANSFER) or not isinstance(then, Bid):
        return None
    if then == _bid(4, NOTRUMP):  # quantitative after Stayman's 2♦ (key-card asks go first)
        return [
            _Rule(
                _bid(6, NOTRUMP),
                _Meaning(f"{_span(lo + 1, hi)} (maximum), accepts", lo + 1, hi),
                lambda f: f.hcp > lo,
            ),
            _Rule(PASS, _Meaning("minimum, declines"), _always),
        ]
    if then.strain not in (NOTRUMP, answer.strain if isinstance(answer, Bid) else -1):
        return None  # a new suit, game forcing: the general logic
    rules: list[_Rule] = []

    def maximum(f: _Facts) -> bool:
        return f.hcp > lo

    if asked.convention == _STAYMAN:
        # Responder's notrump denies opener's major, so shows the other: spades after 2♥.
        spades = isinstance(answer, Bid) and answer.strain == HEARTS and then.strain == NOTRUMP
        if spades and then.level < 6:
            rules.append(
                _Rule(
                    _bid(4, SPADES),
                    _Meaning("4 spades, to play" + (", maximum" if then.level < 3 else "")),
                    lambda f: f.lengths[SPADES] >= 4 and (then.level == 3 or maximum(f)),
                )
            )
            if then.level < 3:
                rules.append(
                    _Rule(
                        _bid(3, SPADES),
                        _Meaning("4 spades, minimum"),
                        lambda f: f.lengths[SPADES] >= 4,
                    )
                )
        if then.level < 3 or then.strain != NOTRUMP:
            rules.append(_accept(then, lo, hi))
    else:
        major = asked.suit
        name = _NAMES[major]
        three = _lengths(major, 3)
        if then.strain == NOTRUMP and then.level <= 3:
            rules.append(
                _Rule(
                    _bid(4, major),
                    _Meaning(f"3+ {name}, to play", lengths=three),
                    lambda f: f.lengths[major] >= 3 and (then.level == 3 or maximum(f)),
                )
            )
            if then.level == 2:
                rules.append(
                    _Rule(
                        _bid(3, major),
                        _Meaning(f"3+ {name}, minimum", lengths=three),
                        lambda f: f.lengths[major] >= 3,
                    )
                )
                rules.append(_accept(then, lo, hi))
        else:
            rules.append(_accept(then, lo, hi))
    rules.append(_Rule(PASS, _Meaning("to play"), _always))
    return rules


def _accept(invitation: Bid, lo: int, hi: int) -> _Rule:
    """Game over responder's invitation (2NT or three of the major) with a maximum of the
    opening's range ``lo``-``hi``."""
    game = _bid(_game_level(invitation.strain), invitation.strain)
    return _Rule(
        game,
        _Meaning(f"{_span(lo + 1, hi)} (maximum), accepts", lo + 1, hi),
        lambda f: invitation.level == game.level - 1 and f.hcp > lo,
    )


# Roman Key Card Blackwood (1430) once a major is agreed.


def _keycard_ask(trump: int) -> _Meaning:
    return _Meaning(
        f"Roman Key Card Blackwood (1430): asks for key cards, {_NAMES[trump]} agreed",
        forcing=True,
        convention=_KEYCARD_ASK,
        suit=trump,
    )


def _keycard_ask_suit(state: _State) -> int | None:
    """The major 4NT asks key cards for at this turn: one both partners have shown (eight
    cards between them), 4NT still legal, not asked yet, partner's last bid not notrump."""
    me = state.turn
    if not state.is_legal(_bid(4, NOTRUMP)):
        return None
    ours = state.actions[me] + state.actions[me.partner]
    if any(isinstance(call, Bid) and call.level >= 4 and call.strain == NOTRUMP for call in ours):
        return None
    partners = [call for call in state.actions[me.partner] if isinstance(call, Bid)]
    if not partners or partners[-1].strain == NOTRUMP:
        return None  # 4NT over a natural notrump bid is quantitative
    mine, theirs = state.info[me].lengths, state.info[me.partner].lengths
    agreed = [m for m in _MAJORS if mine[m] >= 2 and theirs[m] >= 2 and mine[m] + theirs[m] >= 8]
    if not agreed:
        return None
    return max(agreed, key=lambda m: (mine[m] + theirs[m], m))


def _with_keycard_ask(state: _State, rules: list[_Rule] | None) -> list[_Rule] | None:
    """A situation's slam in agreed trumps goes by way of a key-card ask."""
    if rules is None or any(rule.call == _bid(4, NOTRUMP) for rule in rules):
        return rules
    trump = _keycard_ask_suit(state)
    if trump is None:
        return rules
    for index, rule in enumerate(rules):
        call = rule.call
        if isinstance(call, Bid) and call.level >= 6 and call.strain == trump:
            ask = _Rule(
                _bid(4, NOTRUMP),
                _keycard_ask(trump),
                lambda f, test=rule.test: test(f) and _may_ask(trump, f),  # type: ignore[misc]
            )
            return [*rules[:index], ask, *rules[index:]]
    return rules


def _may_ask(trump: int, f: _Facts) -> bool:
    """Whether this hand may ask for key cards: with hearts agreed, only holding two (else
    an answer of 5♠, two with the queen, would leave two missing and no stop below six)."""
    return trump == SPADES or f.keycards(trump) >= 2


_KEYCARD_ANSWERS = (
    (CLUBS, "1 or 4 key cards", (1, 4), -1),
    (DIAMONDS, "0 or 3 key cards", (0, 3), -1),
    (HEARTS, "2 key cards without the trump queen", (2,), 0),
    (SPADES, "2 key cards with the trump queen", (2,), 1),
)
"""The 1430 answers: strain, text, the key-card counts it may mean, the queen."""


def _keycard_answers(state: _State) -> list[_Rule] | None:
    me = state.turn
    asked = state.last_meaning[me.partner]
    if (
        len(state.calls) < 2
        or state.calls[-2] != _bid(4, NOTRUMP)
        or asked is None
        or asked.convention != _KEYCARD_ASK
        or state.calls[-1] not in (PASS, DOUBLE)
    ):
        return None
    trump = asked.suit
    return [
        _Rule(
            _bid(5, strain),
            _Meaning(text, convention=_KEYCARD_ANSWER, suit=trump, keycards=counts, queen=queen),
            _keycard_answer_test(trump, counts, queen),
        )
        for strain, text, counts, queen in _KEYCARD_ANSWERS
    ]


def _keycard_answer_test(
    trump: int, counts: tuple[int, ...], queen: int
) -> Callable[[_Facts], bool]:
    def test(f: _Facts) -> bool:
        return f.keycards(trump) in counts and queen in (-1, int(f.has_queen(trump)))

    return test


def _partner_keycards(state: _State, f: _Facts, answer: _Meaning) -> int:
    """Partner's key cards from the answer and this hand: of 1-or-4 (0-or-3), the count the
    points allow (the opponents cannot hold more high cards than partner's minimum leaves)."""
    mine = f.keycards(answer.suit)
    possible = [count for count in answer.keycards if mine + count <= 5] or [answer.keycards[0]]
    if len(possible) == 1:
        return possible[0]
    fewer = possible[0]
    missing = 5 - mine - fewer  # with the trump king among them if it is not ours
    king_ours = f.honours[answer.suit] >> 3 & 1
    least_points = 4 * missing - (0 if king_ours else 1)
    theirs_at_most = 40 - f.hcp - state.info[state.turn.partner].lo
    return possible[-1] if least_points > theirs_at_most else fewer


def _after_keycard_answer(state: _State) -> list[_Rule] | None:
    """The asker places the contract: five of the trump suit with two key cards missing,
    six with one, seven with all five, the trump queen and 37+ points between the hands."""
    me = state.turn
    calls = state.calls
    answer = state.last_meaning[me.partner]
    asked = state.last_meaning[me]
    if (
        len(calls) < 4
        or calls[-4] != _bid(4, NOTRUMP)
        or asked is None
        or asked.convention != _KEYCARD_ASK
        or answer is None
        or answer.convention != _KEYCARD_ANSWER
        or calls[-3] != PASS
        or calls[-1] != PASS
    ):
        return None
    trump = answer.suit
    name = _NAMES[trump]
    expected = state.info[me.partner].expected

    def held(f: _Facts) -> int:
        return f.keycards(trump) + _partner_keycards(state, f, answer)

    def grand(f: _Facts) -> bool:
        queen = f.has_queen(trump) or answer.queen == 1
        return held(f) == 5 and queen and f.suit_points(trump) + expected >= GRAND

    rules = [
        _Rule(_bid(7, trump), _Meaning(f"grand slam in {name}: all the key cards"), grand),
        _Rule(
            _bid(6, trump),
            _Meaning(f"small slam in {name}: one key card missing at most"),
            lambda f: held(f) >= 4,
        ),
    ]
    signoff = _Meaning(f"sign-off in {name}: two key cards missing")
    cheap = state.cheapest(trump)
    last = state.last_bid
    if cheap is not None and cheap.level == 5:
        rules.append(_Rule(cheap, signoff, _always))
    elif last is not None and last.strain == trump:
        rules.append(_Rule(PASS, signoff, _always))
    rules.append(_Rule(_bid(6, trump), rules[1].meaning, _always))
    return rules


def _after_keycard_decision(state: _State) -> list[_Rule] | None:
    """The answerer leaves the asker's decision alone."""
    me = state.turn
    calls = state.calls
    mine = state.last_meaning[me]
    if (
        len(calls) < 4
        or mine is None
        or mine.convention != _KEYCARD_ANSWER
        or calls[-3] != PASS
        or calls[-1] != PASS
        or state.last_bidder != me.partner
        or state.actions[me][-1] != calls[-4]
    ):
        return None
    return [_Rule(PASS, _Meaning("accepts partner's decision"), _always)]


# Negative doubles: partner opened one of a suit, our right-hand opponent overcalled.


def _negative_double(state: _State) -> list[_Rule] | None:
    me = state.turn
    opening = state.opening
    overcall = state.calls[-1] if state.calls else None
    if (
        opening is None
        or state.opener != me.partner
        or opening.level != 1
        or opening.strain == NOTRUMP
        or state.actions[me]
        or state.actions[me.partner] != [opening]
        or state.calls[-2] != opening
        or not isinstance(overcall, Bid)
        or state.actions[me.rho] != [overcall]
        or state.actions[me.lho]
    ):
        return None
    natural = _contested_suit_response(state, opening.strain)
    if natural is None:
        return None
    if overcall == _bid(1, NOTRUMP):
        penalty = _Meaning("penalty: 10+ HCP", 10)
        return [_Rule(DOUBLE, penalty, lambda f: f.hcp >= 10), *natural]
    if overcall.rank > _bid(2, SPADES).rank:
        return natural  # higher doubles are for penalty (in the natural rules)
    opened, their = int(opening.strain), int(overcall.strain)
    majors = [m for m in _MAJORS if m not in (opened, their)]
    shown_suits = majors or [m for m in _MINORS if m not in (opened, their)]
    lo = 6 if overcall.level == 1 else 8
    suits = " and ".join(f"4+ {_NAMES[s]}" for s in shown_suits)
    double = _Rule(
        DOUBLE,
        _Meaning(
            f"negative double: {suits}, {lo}+ points",
            lo,
            lengths=_min_lengths(dict.fromkeys(shown_suits, 4)),
            forcing=True,
            convention=_NEGATIVE_DOUBLE,
        ),
        _negative_double_test(state, opened, shown_suits, lo),
    )
    return [double, *natural]


def _negative_double_test(
    state: _State, opened: int, suits: list[int], lo: int
) -> Callable[[_Facts], bool]:
    """Four cards in each suit the double shows, and no fit for partner's major, and no
    five-card suit of them to bid naturally (at the one level, or with 11+ at the two)."""
    natural = [s for s in suits if (bid := state.cheapest(s)) is not None and bid.level == 1]

    def test(f: _Facts) -> bool:
        if f.hcp < lo or any(f.lengths[s] < 4 for s in suits):
            return False
        if opened in _MAJORS and f.lengths[opened] >= 3:
            return False
        return not any(
            f.lengths[s] >= 5 and (s in natural or f.hcp >= 11) for s in suits if len(suits) == 1
        )

    return test


def _after_negative_double(state: _State) -> list[_Rule] | None:
    """Opener's rebid after partner's negative double: the suit it showed with four cards,
    else natural: notrump with their suit stopped, a six-card suit, a new suit."""
    me = state.turn
    partner = state.last_meaning[me.partner]
    last = state.last_bid
    if (
        partner is None
        or partner.convention != _NEGATIVE_DOUBLE
        or state.calls[-2] != DOUBLE
        or state.calls[-1] != PASS
        or len(state.actions[me]) != 1
        or last is None
        or state.opening is None
    ):
        return None
    opened, their = int(state.opening.strain), int(last.strain)
    shown_suits = [s for s in range(4) if partner.lengths[s] >= 4]
    rules: list[_Rule] = []

    def add(bid: Call | None, meaning: _Meaning, test: Callable[[_Facts], bool]) -> None:
        if bid is not None and state.is_legal(bid):
            rules.append(_Rule(bid, meaning, test))

    def choice(f: _Facts) -> int:
        return f.longest(s for s in shown_suits if f.lengths[s] >= 4)

    for suit in shown_suits:
        name = _NAMES[suit]
        cheap = state.cheapest(suit)
        if cheap is None:
            continue
        four = _lengths(suit, 4)
        if suit in _MAJORS and cheap.level < 4:
            add(
                _bid(4, suit),
                _Meaning(f"19-21 points, 4+ {name}, to play", 19, 21, four),
                _choice_test(choice, suit, _points_test(suit, 19)),
            )
        if cheap.level < 3:
            add(
                _bid(cheap.level + 1, suit),
                _Meaning(f"16-18 points, 4+ {name}, invitational", 16, 18, four),
                _choice_test(choice, suit, _points_test(suit, 16)),
            )
        add(
            cheap,
            _Meaning(f"12-15 points, 4+ {name}", 11, 15, four),
            _choice_test(choice, suit, _always),
        )
    stop = 1 << their
    nt = state.cheapest(NOTRUMP)
    top = 14 if nt is not None and nt.level == 1 else 15  # the top of a minimum notrump
    if nt is not None and nt.level <= 2:
        add(
            nt,
            _Meaning(
                f"12-{top} HCP, balanced, stopper in {_NAMES[their]}",
                11,
                top,
                (2, 2, 2, 2),
                balanced=True,
                stops=stop,
            ),
            lambda f: f.balanced and f.hcp <= top and f.stoppers[their],
        )
    strong = 18 if top == 14 else 16
    add(
        _bid(3, NOTRUMP),
        _Meaning(
            f"{strong}-21 HCP, stopper in {_NAMES[their]}, to play",
            strong,
            21,
            (2, 2, 2, 2),
            stops=stop,
        ),
        lambda f: f.semi_balanced and f.hcp >= strong and f.stoppers[their],
    )
    own = state.cheapest(opened)
    again = _Meaning(f"11-15 points, {_NAMES[opened]} again, nothing else to bid", 11, 15)
    if own is not None and own.level <= 3:
        add(own, again, lambda f: f.lengths[opened] >= 6)
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        bid = state.cheapest(suit)
        if suit in (opened, their) or suit in shown_suits or bid is None:
            continue
        if bid.level == 1 or (bid.level == 2 and suit < opened):
            add(
                bid,
                _Meaning(f"12-18 points, 4+ {_NAMES[suit]}", 11, 18, _lengths(suit, 4)),
                _length_test(suit, 4),
            )
    if own is not None and own.level <= 3:
        add(own, again, _always)
    rules.append(_Rule(PASS, _Meaning("penalty: defends the double"), _always))
    return rules


def _points_test(suit: int, least: int) -> Callable[[_Facts], bool]:
    return lambda f: f.suit_points(suit) >= least


def _length_test(suit: int, least: int) -> Callable[[_Facts], bool]:
    return lambda f: f.lengths[suit] >= least


_CONVENTION_SITUATIONS: tuple[Callable[[_State], list[_Rule] | None], ...] = (
    _keycard_answers,
    _after_keycard_answer,
    _after_keycard_decision,
    _notrump_convention_responses,
    _notrump_convention_answers,
    _notrump_convention_continuations,
    _notrump_convention_rebids,
    _negative_double,
    _after_negative_double,
)
"""The positions the strong level's conventions create, the first that applies wins."""


# --------------------------------------------------------------------------------------------
# The general logic: place the contract from combined points and fit


def _best_strain(state: _State, f: _Facts, partner: _Info) -> tuple[int, int]:
    """Our best strain as this hand sees it, and the combined trump length it counts on
    (partner is assumed to hold two cards of a long suit of ours he has not heard about)."""
    fits = [f.lengths[s] + partner.lengths[s] for s in range(4)]
    major = HEARTS if (fits[HEARTS], HEARTS) > (fits[SPADES], SPADES) else SPADES
    if fits[major] >= 8:
        return major, fits[major]
    their = state.opponent_suits(state.turn)
    stopped = all(f.stoppers[s] or partner.stops >> s & 1 for s in range(4) if their >> s & 1)
    flat = f.semi_balanced or partner.balanced
    minor = DIAMONDS if (fits[DIAMONDS], DIAMONDS) > (fits[CLUBS], CLUBS) else CLUBS
    if stopped and flat:
        return NOTRUMP, 0
    if fits[minor] >= 8:
        return minor, fits[minor]
    own = f.longest(s for s in range(4) if not their >> s & 1)
    if own >= 0 and f.lengths[own] >= 6:
        return own, max(fits[own], f.lengths[own] + 2)
    shown = max(range(4), key=lambda s: (partner.lengths[s], s))
    if partner.lengths[shown] >= 5 and f.lengths[shown] >= 2:
        return shown, fits[shown]
    if stopped:
        return NOTRUMP, 0
    best = max(range(4), key=lambda s: (fits[s], s))
    return best, fits[best]


def _strain_points(f: _Facts, strain: int, fit: int, partner: _Info) -> int:
    """HCP for notrump; HCP plus length, or shortness instead once partner has shown the
    trump suit (not shortness in a suit partner has bid)."""
    if strain == NOTRUMP:
        return f.hcp
    if fit >= 8 and partner.lengths[strain] >= 3:  # partner has shown the suit
        skip = sum(1 << s for s in range(4) if partner.lengths[s] >= 3)
        return f.hcp + max(f.length_points, f.short_points(strain, skip))
    return f.hcp + f.length_points


def _target_level(strain: int, fit: int, total: float) -> int:
    """The level our side should reach in ``strain``; 0 for no interest in bidding."""
    if strain == NOTRUMP:
        if total >= GRAND:
            return 7
        if total >= SLAM:
            return 6
        if total >= GAME:
            return 3
        return 2 if total >= 23 else 1 if total >= 19 else 0
    if fit >= 8:
        if total >= GRAND:
            return 7
        if total >= SLAM:
            return 6
        if strain in _MAJORS and total >= GAME:
            return 4
        if strain in _MINORS and total >= MINOR_GAME:
            return 5
        if total < 14:
            return 0
        level = min(fit - 6, 3) + (1 if total >= 22 else 0)
        return min(level, 3 if strain in _MAJORS else 4)
    if fit >= 7 and strain in _MAJORS and total >= GAME + 2:
        return 4  # a seven-card fit plays well enough with extra values
    if total < 18:
        return 0
    return (3 if total >= 23 else 2) if fit >= 7 else 1


@dataclass(frozen=True, slots=True)
class _Target:
    """Where this hand would like the partnership to play."""

    strain: int
    fit: int
    points: int  # this hand's points for the strain
    total: float  # with partner's expected points
    level: int


def _target(state: _State, f: _Facts, partner: _Info) -> _Target:
    strain, fit = _best_strain(state, f, partner)
    points = _strain_points(f, strain, fit, partner)
    total = points + partner.expected
    level = _target_level(strain, fit, total)
    # A slam needs partner's guaranteed minimum to come close too: no Blackwood to check.
    if level == 7 and points + partner.lo < GRAND:
        level = 6
    if level == 6 and points + partner.lo < SLAM - 1:
        level = _game_level(strain) if total >= GAME else 0
    return _Target(strain, fit, points, total, level)


def _is_game(bid: Bid) -> bool:
    return bid.level >= _game_level(bid.strain)


def _general_choice(state: _State, f: _Facts) -> Call:
    me = state.turn
    side = me % 2
    last, last_bidder = state.last_bid, state.last_bidder
    if last is None or last_bidder is None:
        return PASS
    if len(state.actions[me]) >= 4 or state.side_bids[side] >= 8 or state.doubled:
        return PASS
    partner = state.info[me.partner]
    target = _target(state, f, partner)
    strain, level = target.strain, target.level
    ours = last_bidder % 2 == side
    forced = state.forced == me or (state.game_forced[side] and ours and not _is_game(last))
    game_or_slam = level >= _game_level(strain)
    if not ours:
        return _compete(state, f, partner, target, last)
    if last_bidder == me:
        return PASS
    if _is_game(last):
        return _over_partners_game(f, partner, target, last)
    if level:
        want = _bid(level, strain)
        if game_or_slam:
            if want.rank > last.rank:
                return want
        else:
            invite = _invitation(state, strain, target.total, last)
            if invite is not None:
                return invite
            correction = _correction(state, f, partner, target, last)
            if correction is not None:
                return correction
    if forced:
        return _forced_bid(state, f, partner)
    return PASS


def _over_partners_game(f: _Facts, partner: _Info, target: _Target, last: Bid) -> Call:
    """Partner has bid a game or a slam: raise to slam, or correct 3NT to a major fit."""
    strain, level = target.strain, target.level
    if last.level >= 6:
        if level == 7 and strain == last.strain and last.level == 6:
            return _bid(7, strain)
        return PASS
    if level >= 6:
        fit_there = last.strain == NOTRUMP or (
            f.lengths[last.strain] + partner.lengths[last.strain] >= 8
        )
        if strain != last.strain and target.fit < 8:
            strain = last.strain if fit_there else NOTRUMP
        return _bid(level, strain)
    if last.strain == NOTRUMP and strain in _MAJORS and target.fit >= 8 and level >= 4:
        return _bid(4, strain)
    return PASS


def _compete(state: _State, f: _Facts, partner: _Info, target: _Target, last: Bid) -> Call:
    """The opponents hold the contract: double, bid our own contract, or pass."""
    strain, level = target.strain, target.level
    if _penalty_double_ok(f, partner, last, target):
        return DOUBLE
    if _reopening_double_ok(state, f, last):
        return DOUBLE
    if level:
        want = _bid(level, strain)
        if level >= _game_level(strain):
            if want.rank > last.rank:
                return want
        else:
            cheap = state.cheapest(strain)
            if cheap is not None and cheap.level <= level:
                return cheap
    # A second five-card suit of our own, at a low level.
    if target.total >= 18:
        their = state.opponent_suits(state.turn)
        mine = state.info[state.turn]
        suits = [
            s
            for s in range(4)
            if f.lengths[s] >= 5 and not their >> s & 1 and mine.lengths[s] < 4 and s != strain
        ]
        if suits:
            suit = f.longest(suits)
            cheap = state.cheapest(suit)
            if cheap is not None and cheap.level <= (3 if f.lengths[suit] >= 6 else 2):
                return cheap
    return PASS


def _reopening_double_ok(state: _State, f: _Facts, last: Bid) -> bool:
    return (
        _is_reopening_position(state)
        and last.strain != NOTRUMP
        and (
            (f.hcp >= 15 and f.lengths[last.strain] <= 1)
            or (f.hcp >= 17 and f.lengths[last.strain] <= 2)
        )
    )


def _is_reopening_position(state: _State) -> bool:
    """The opener, partner silent, the opponents in a contract at the one or two level."""
    me = state.turn
    last, last_bidder = state.last_bid, state.last_bidder
    return (
        state.opener == me
        and not state.actions[me.partner]
        and last is not None
        and last_bidder is not None
        and last_bidder % 2 != me % 2
        and last.level <= 2
        and state.doubled == 0
    )


def _invitation(state: _State, strain: int, total: float, last: Bid) -> Bid | None:
    if strain in _MINORS or not 23 <= total < GAME:
        return None
    if _opponents_silent(state):
        invite = _bid(_game_level(strain) - 1, strain)
        if invite.rank > last.rank and not (last.strain == strain and last.level >= invite.level):
            return invite
    return None


def _opponents_silent(state: _State) -> bool:
    me = state.turn
    return not state.actions[me.lho] and not state.actions[me.rho]


def _correction(state: _State, f: _Facts, partner: _Info, target: _Target, last: Bid) -> Bid | None:
    """A partscore in a better strain than partner's."""
    strain = target.strain
    if last.strain == strain:
        return None
    if last.strain == NOTRUMP:
        current_fit = 8 if f.semi_balanced else 6
    else:
        current_fit = f.lengths[last.strain] + partner.lengths[last.strain]
    better = (target.fit >= 8 and current_fit < 8) or (
        strain != NOTRUMP and f.lengths[strain] >= 6 and current_fit < 7
    )
    cheap = state.cheapest(strain)
    if better and cheap is not None and cheap.level <= max(target.level, 2):
        return cheap
    return None


def _forced_bid(state: _State, f: _Facts, partner: _Info) -> Call:
    their = state.opponent_suits(state.turn)
    candidates: list[int] = []
    for suit in sorted(range(4), key=lambda s: -partner.lengths[s]):
        if partner.lengths[suit] >= 4 and f.lengths[suit] >= 3:
            candidates.append(suit)
    candidates += [s for s in range(4) if f.lengths[s] >= 5 and not their >> s & 1]
    if f.semi_balanced and all(f.stoppers[s] for s in range(4) if their >> s & 1):
        candidates.append(NOTRUMP)
    candidates += [s for s in range(4) if f.lengths[s] >= 4 and not their >> s & 1]
    candidates.append(max(range(4), key=lambda s: (partner.lengths[s], f.lengths[s])))
    candidates.append(NOTRUMP)
    for strain in candidates:
        bid = state.cheapest(strain)
        if bid is not None and bid.level <= 5:
            return bid
    return PASS


def _penalty_double_ok(f: _Facts, partner: _Info, last: Bid, target: _Target) -> bool:
    """Their contract at the three level or higher, our side with a clear majority of the
    points (23+ between us for sure), and three or more of their trumps."""
    if last.level < 3 or f.hcp + partner.lo < 23:
        return False
    trump = last.strain
    if trump != NOTRUMP and f.lengths[trump] < 3:
        return False
    # With a fit for our own game or slam above their bid, bid it instead.
    level, strain = target.level, target.strain
    return not (
        level >= _game_level(strain) and target.fit >= 8 and _bid(level, strain).rank > last.rank
    )


def _general_meaning(state: _State, call: Call) -> _Meaning:
    me = state.turn
    partner = state.info[me.partner]
    expected = partner.expected
    last, last_bidder = state.last_bid, state.last_bidder
    if call == PASS:
        if last is not None and last_bidder is not None and last_bidder % 2 == me % 2:
            return _Meaning("content with the contract")
        return _Meaning("no further action")
    if isinstance(call, Double):
        if last is not None and _is_reopening_position(state) and last.strain != NOTRUMP:
            return _Meaning(
                f"takeout: 15+ HCP, short in {_NAMES[last.strain]}",
                15,
                forcing=True,
                takeout=True,
            )
        if last is not None and last.level >= 3:
            lo = max(0, 23 - partner.lo)
            return _Meaning(f"penalty: our side has most of the points ({lo}+ HCP)", lo)
        return _Meaning("penalty")
    if isinstance(call, Redouble):
        return _Meaning("to play, confident of making it")
    assert isinstance(call, Bid)
    if state.level == "strong" and call == _bid(4, NOTRUMP):
        trump = _keycard_ask_suit(state)
        if trump is not None:
            return _keycard_ask(trump)
    level, strain = call.level, int(call.strain)
    mine = state.info[me]
    contested = last_bidder is not None and last_bidder % 2 != me % 2
    words: list[str] = []
    lengths: tuple[int, int, int, int] = (0, 0, 0, 0)
    new_suit = False
    if strain == NOTRUMP:
        words.append("natural")
    elif (
        mine.lengths[strain] + partner.lengths[strain] >= 8
        and min(mine.lengths[strain], partner.lengths[strain]) >= 3
    ):
        words.append(f"{_NAMES[strain]}, our fit")
    elif partner.lengths[strain] >= 4:
        need = max(2, min(4, 8 - partner.lengths[strain]))
        words.append(f"{need}+ {_NAMES[strain]}, support")
        lengths = _lengths(strain, need)
    elif mine.lengths[strain] >= 3:
        need = min(7, max(5, mine.lengths[strain] + 1))
        words.append(f"{need}+ {_NAMES[strain]}")
        lengths = _lengths(strain, need)
    else:
        new_suit = True
        need = 5 if contested else 4
        words.append(f"{need}+ {_NAMES[strain]}")
        lengths = _lengths(strain, need)
    lo, hi = 0, _MAX_POINTS
    forcing = False
    if level == 7:
        words.append("grand slam")
        lo = round(GRAND - expected)
    elif level == 6:
        words.append("small slam")
        lo, hi = round(SLAM - expected), round(GRAND - 1 - expected)
    elif level >= _game_level(strain):
        words.append("to play in game")
        lo, hi = round(GAME - expected), round(SLAM - 1 - expected)
    elif state.forced == me:
        words.append("forced")
    elif contested:
        words.append("competitive")
        hi = round(GAME - 1 - expected)
    elif level == _game_level(strain) - 1 and strain not in _MINORS and not new_suit:
        words.append("invitational")
        lo, hi = round(23 - expected), round(GAME - 1 - expected)
    elif new_suit and mine.hi >= 15 and not state.game_forced[me % 2]:
        words.append("forcing")
        forcing = True
    else:
        words.append("to play")
        hi = round(GAME - 1 - expected)
    if lo > 0 or hi < _MAX_POINTS:
        words.insert(0, _span(lo, hi, "points"))
    return _Meaning(
        ", ".join(words),
        max(0, lo),
        max(0, min(_MAX_POINTS, hi)),
        lengths,
        forcing=forcing,
    )


# --------------------------------------------------------------------------------------------
# The robot second table: one contract for a partnership that sees both its hands


def stronger_side(hands: Mapping[Seat, Hand]) -> Literal["NS", "EW"]:
    """The side with more combined HCP (a tie goes to more total points with distribution,
    then to North-South): it declares at the robot table.

    >>> from bridge import Deal
    >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
    >>> stronger_side({seat: deal[seat] for seat in Seat})
    'NS'
    """
    facts = {seat: _facts(hands[seat]) for seat in Seat}

    def strength(a: Seat, b: Seat) -> tuple[int, int]:
        hcp = facts[a].hcp + facts[b].hcp
        return hcp, hcp + facts[a].length_points + facts[b].length_points

    north_south = strength(Seat.NORTH, Seat.SOUTH)
    east_west = strength(Seat.EAST, Seat.WEST)
    return "EW" if east_west > north_south else "NS"


def choose_contract(
    hands: Mapping[Seat, Hand], side: Literal["NS", "EW"], vulnerability: Vulnerability
) -> tuple[Contract, Seat]:
    """The robot second table's contract for ``side``, seeing both its hands, and declarer.

    The strain: an 8+ card major fit, else notrump when balanced enough with every suit
    stopped, else an 8+ card minor fit, else the longest combined suit or notrump. The
    level from combined points: a partscore at the lowest sensible level, game at about 25,
    a small slam at 33, a grand slam at 37. Never doubled.

    >>> from bridge import Deal
    >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
    >>> contract, declarer = choose_contract({s: deal[s] for s in Seat}, "NS", Vulnerability.NONE)
    >>> str(contract), declarer
    ('3NT', <Seat.NORTH: 0>)
    """
    first, second = (Seat.NORTH, Seat.SOUTH) if side == "NS" else (Seat.EAST, Seat.WEST)
    a, b = _facts(hands[first]), _facts(hands[second])
    vulnerable = vulnerability.is_vulnerable(first)
    strain, points = _pair_strain(a, b)
    level = _pair_level(a, b, strain, points, vulnerable)
    if strain == NOTRUMP:
        declarer = first if a.hcp >= b.hcp else second
    else:
        key_a, key_b = (a.lengths[strain], a.hcp), (b.lengths[strain], b.hcp)
        declarer = first if key_a >= key_b else second
    return Contract(level, Strain(strain)), declarer


def _pair_stopped(a: _Facts, b: _Facts, suit: int) -> bool:
    if a.stoppers[suit] or b.stoppers[suit]:
        return True
    return a.lengths[suit] + b.lengths[suit] >= 7 and a.top5[suit] + b.top5[suit] >= 2


def _pair_strain(a: _Facts, b: _Facts) -> tuple[int, float]:
    """The pair's strain and its combined points for that strain."""
    fits = [a.lengths[s] + b.lengths[s] for s in range(4)]
    hcp = a.hcp + b.hcp
    majors = [m for m in _MAJORS if fits[m] >= 8]
    if majors:
        major = max(majors, key=lambda m: (fits[m], a.top5[m] + b.top5[m], m))
        return major, _pair_suit_points(a, b, major)
    singletons = [f.stoppers[s] for f in (a, b) for s in range(4) if f.lengths[s] == 1]
    voids = sum(1 for f in (a, b) for s in range(4) if f.lengths[s] == 0)
    # Balanced enough: no void, and at most one singleton, which must be an ace.
    flat = voids == 0 and (not singletons or singletons == [True])
    stopped = all(_pair_stopped(a, b, s) for s in range(4))
    minors = [m for m in _MINORS if fits[m] >= 8]
    nt_points = hcp + sum(
        1 for f in (a, b) for s in range(4) if f.lengths[s] >= 5 and f.top3[s] >= 2
    )
    if flat and stopped:
        if not minors:
            return NOTRUMP, nt_points
        minor = max(minors, key=lambda m: (fits[m], m))
        suit_points = _pair_suit_points(a, b, minor)
        # Five of a minor needs more than 3NT; a minor slam can beat notrump with a long fit.
        if suit_points >= SLAM and fits[minor] >= 9 and nt_points < SLAM:
            return minor, suit_points
        return NOTRUMP, nt_points
    if minors:
        minor = max(minors, key=lambda m: (fits[m], a.top5[m] + b.top5[m], m))
        return minor, _pair_suit_points(a, b, minor)
    best = max(range(4), key=lambda s: (fits[s], a.top5[s] + b.top5[s], s))
    if fits[best] >= 7 and not (stopped and voids == 0):
        return best, _pair_suit_points(a, b, best)
    return NOTRUMP, nt_points


def _pair_suit_points(a: _Facts, b: _Facts, trump: int) -> float:
    """Declarer (more trumps) counts length, dummy counts shortness; a long fit adds."""
    declarer, dummy = (a, b) if a.lengths[trump] >= b.lengths[trump] else (b, a)
    fit = a.lengths[trump] + b.lengths[trump]
    points = declarer.hcp + declarer.length_points + dummy.hcp
    if dummy.lengths[trump] >= 3:
        points += dummy.short_points(trump)
    return points + max(0, fit - 8)


def _pair_level(a: _Facts, b: _Facts, strain: int, points: float, vulnerable: bool) -> int:
    """Slam and game from the combined points; a partscore at the lowest sensible level.

    Calibrated double dummy on random deals: game pays from about 26 points not vulnerable
    and 25 vulnerable; a partscore scores the same at any level it makes, so stay low.
    """
    if points >= GRAND:
        return 7
    if points >= SLAM:
        return 6
    game = GAME if vulnerable else GAME + 1
    if strain == NOTRUMP:
        return 3 if points >= game else 2 if points >= 24 else 1
    if strain in _MAJORS:
        return 4 if points >= game else 2
    if points >= MINOR_GAME - (1 if vulnerable else 0):
        return 5
    return 3 if points >= GAME else 2

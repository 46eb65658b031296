"""The play of the cards: tricks, following suit, dummy, and claims.

The state is a handful of integers (a 52-bit mask per hand) so that a robot or a
simulation can play many thousands of deals a second; the public surface speaks
only in :class:`Card`, :class:`Seat` and :class:`Trick`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from bridge.auction import Contract
from bridge.cards import SUIT_MASK, Card, Deal, Hand, Seat, Strain, as_seat, suit_cards
from bridge.errors import IllegalPlay, OutOfTurn, WrongPhase

__all__ = ["Claim", "Play", "Trick"]

_SEATS = tuple(Seat)


class Trick(NamedTuple):
    """A trick: who led, the cards in the order played, and who won it (None while open).

    >>> trick = Trick(Seat.WEST, (Card.parse("SK"), Card.parse("S2"), Card.parse("SA"), Card.parse("S3")), Seat.EAST)
    >>> [(str(seat), str(card)) for seat, card in trick.plays()]
    [('W', 'SK'), ('N', 'S2'), ('E', 'SA'), ('S', 'S3')]
    """

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None

    @property
    def is_complete(self) -> bool:
        """True when all four seats have played to it."""
        return len(self.cards) == 4

    def plays(self) -> list[tuple[Seat, Card]]:
        """(seat, card) pairs in the order played."""
        return [(_SEATS[(self.leader + i) & 3], card) for i, card in enumerate(self.cards)]

    def card_of(self, seat: Seat) -> Card | None:
        """The card ``seat`` played to this trick, or None if it has not played yet."""
        position = (seat - self.leader) & 3
        return self.cards[position] if position < len(self.cards) else None


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim (or, for fewer tricks, a concession) of ``tricks`` of the ``remaining`` tricks.

    ``deciders`` are the seats whose agreement ends the play: both defenders for
    declarer's claim; declarer and the claimer's partner for a defender's claim (the
    partner may object to a defender's concession, Law 68B2). Dummy does not decide.
    """

    claimer: Seat
    tricks: int
    remaining: int
    deciders: frozenset[Seat]
    accepted: frozenset[Seat] = frozenset()


class Play:
    """The play of one board, from the opening lead to the thirteenth trick or a claim.

    :meth:`play` applies a card or raises :class:`IllegalPlay` and leaves the play as it
    was. Dummy's cards are played in dummy's turn; :attr:`turn` is then dummy's seat.
    :meth:`undo` takes back the last card, :meth:`withdraw_claim` a pending claim, and
    :meth:`withdraw_concession` reopens a play that an accepted claim ended. A claim
    rejected as a dispute (law 68D) stops the play until the director rules (:meth:`rule`).
    With ``face_down_lead`` (law 41A) the opening lead is first made face down
    (:meth:`lead_face_down`), while the leader's partner may ask about the auction, and is
    played when that partner faces it (:meth:`face_lead`).

    >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
    >>> play = Play(deal, Contract.parse("3NT"), Seat.NORTH)
    >>> play.turn, play.dummy
    (<Seat.EAST: 1>, <Seat.SOUTH: 2>)
    >>> play.play(Card.parse("DK"))
    >>> [str(card) for card in play.legal_cards()]
    ['D8', 'D7', 'D6', 'D5']
    """

    __slots__ = (
        "_claim",
        "_claims",
        "_dispute",
        "_face_down",
        "_face_down_lead",
        "_finished",
        "_hands",
        "_history",
        "_leader",
        "_trick",
        "_tricks",
        "_trump",
        "_turn",
        "_won",
        "contract",
        "deal",
        "declarer",
        "dummy",
    )  # fmt: skip

    def __init__(
        self, deal: Deal, contract: Contract, declarer: Seat, *, face_down_lead: bool = False
    ) -> None:
        self.deal = deal
        self.contract = contract
        self.declarer = as_seat(declarer)
        self.dummy = self.declarer.partner
        self._trump = -1 if contract.strain == Strain.NOTRUMP else int(contract.strain)
        self._hands = [deal[seat].mask for seat in _SEATS]
        self._leader = self._turn = (self.declarer + 1) & 3
        self._trick: list[Card] = []
        self._tricks: list[Trick] = []
        self._won = [0, 0]  # tricks won by N-S, by E-W
        self._history: list[Card] = []
        self._claim: Claim | None = None
        # Settled claims and whether each stands: only the last can stand, and it does
        # exactly when it ended the play (a withdrawn concession no longer stands).
        self._claims: list[tuple[Claim, bool]] = []
        self._dispute: Claim | None = None
        self._face_down_lead = face_down_lead
        self._face_down: Card | None = None
        self._finished = False

    def copy(self) -> Play:
        """An independent copy (cards, tricks and claims are immutable and shared)."""
        other = Play.__new__(Play)
        for name in Play.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        return other

    @classmethod
    def replay(
        cls, deal: Deal, contract: Contract, declarer: Seat, cards: Iterable[Card | str]
    ) -> Play:
        """A play with ``cards`` applied in order (strings are parsed)."""
        play = cls(deal, contract, declarer)
        for card in cards:
            play.play(Card.parse(card) if isinstance(card, str) else card)
        return play

    # -- queries ---------------------------------------------------------------------

    @property
    def turn(self) -> Seat | None:
        """The seat whose card is due (dummy's seat when dummy plays); None when over, and
        while a disputed claim waits for the director."""
        if self._finished or self._dispute or self._face_down:
            return None
        return _SEATS[self._turn]

    @property
    def acting_seat(self) -> Seat | None:
        """The seat of the player who must act: declarer in dummy's turn, else :attr:`turn`."""
        if self._finished or self._dispute:
            return None
        if self._face_down is not None:
            return self.opening_leader.partner  # who faces the lead
        return self.declarer if self._turn == self.dummy else _SEATS[self._turn]

    @property
    def opening_leader(self) -> Seat:
        """Declarer's left-hand opponent."""
        return self.declarer.lho

    def legal_cards(self) -> tuple[Card, ...]:
        """The cards the seat on turn may play now, spades first, high to low."""
        if self._finished or self._claim is not None or self._dispute is not None:
            return ()
        if self._face_down is not None:
            return ()
        hand = self._hands[self._turn]
        trick = self._trick
        if trick:
            led = trick[0].suit
            bits = (hand >> (13 * led)) & 0x1FFF
            if bits:
                return suit_cards(led, bits)
        return (
            suit_cards(3, hand >> 39)
            + suit_cards(2, (hand >> 26) & 0x1FFF)
            + suit_cards(1, (hand >> 13) & 0x1FFF)
            + suit_cards(0, hand & 0x1FFF)
        )

    def is_legal(self, card: Card) -> bool:
        """Whether ``card`` may be played now."""
        return card in self.legal_cards()

    def remaining(self, seat: Seat) -> Hand:
        """The cards ``seat`` still holds."""
        return Hand.from_mask(self._hands[seat])

    def held(self, seat: Seat) -> int:
        """The mask of the cards ``seat`` still holds (:meth:`remaining`'s)."""
        return self._hands[seat]

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, first to last."""
        return tuple(self._tricks)

    @property
    def current_trick(self) -> Trick | None:
        """The trick being played (possibly with no card yet); None once the play is over."""
        if self._finished:
            return None
        return Trick(_SEATS[self._leader], tuple(self._trick), None)

    @property
    def unfinished_trick(self) -> Trick | None:
        """The trick in progress when a claim or a ruling ended the play, as it stood.

        None while the play runs, after thirteen tricks, and when no card of the next
        trick had been played. Its ``winner`` is None.
        """
        # A claim or a ruling leaves the cards of the trick in progress where they were.
        if not self._finished or not self._trick:
            return None
        return Trick(_SEATS[self._leader], tuple(self._trick), None)

    @property
    def last_trick(self) -> Trick | None:
        """The most recently completed trick, or None before the first is complete."""
        return self._tricks[-1] if self._tricks else None

    @property
    def cards_played(self) -> tuple[tuple[Seat, Card], ...]:
        """Every card played, in order, with the seat it came from."""
        return tuple((self.deal.owner(card), card) for card in self._history)

    @property
    def played_cards(self) -> tuple[Card, ...]:
        """Every card played, in order (:attr:`cards_played` without the seats)."""
        return tuple(self._history)

    @property
    def played_count(self) -> int:
        """How many cards have been played (taken back ones not counted)."""
        return len(self._history)

    @property
    def last_played(self) -> tuple[Seat, Card] | None:
        """The last card played, with the seat it came from (None before the lead)."""
        if not self._history:
            return None
        card = self._history[-1]
        return self.deal.owner(card), card

    @property
    def is_dummy_exposed(self) -> bool:
        """True once the opening lead is faced: dummy's hand is then shown to the table."""
        return bool(self._history)

    @property
    def declarer_tricks(self) -> int:
        """Tricks won by declarer's side (including those a settled claim gave it)."""
        return self._won[self.declarer & 1]

    @property
    def defender_tricks(self) -> int:
        """Tricks won by the defenders (including those a settled claim gave them)."""
        return self._won[(self.declarer + 1) & 1]

    @property
    def is_complete(self) -> bool:
        """True after thirteen tricks, an accepted claim or a director's ruling."""
        return self._finished

    @property
    def result(self) -> int | None:
        """Declarer's tricks once the play is complete, else None."""
        return self.declarer_tricks if self._finished else None

    @property
    def pending_claim(self) -> Claim | None:
        """The claim awaiting the opponents' answer, if any."""
        return self._claim

    @property
    def awaits_lead_face_down(self) -> bool:
        """True while the opening lead is due and is to be made face down (law 41A)."""
        return self._face_down_lead and not self._history and self._face_down is None

    @property
    def face_down_lead(self) -> tuple[Seat, Card] | None:
        """The opening leader and the card they led face down, until it is faced."""
        return None if self._face_down is None else (self.opening_leader, self._face_down)

    @property
    def disputed_claim(self) -> Claim | None:
        """The claim an opponent disputed, while the play waits for the director's ruling
        (law 68D: play ceases); None otherwise."""
        return self._dispute

    @property
    def remaining_tricks(self) -> int:
        """Tricks not yet completed, counting the one in progress."""
        return 13 - len(self._tricks)

    # -- commands --------------------------------------------------------------------

    def play(self, card: Card, seat: Seat | None = None) -> None:
        """Play ``card`` from the hand on turn; with ``seat``, check that seat may act now.

        ``seat`` is the player acting: declarer acts for dummy. Raises
        :class:`IllegalPlay`, :class:`OutOfTurn` or :class:`WrongPhase` and changes nothing
        when the card may not be played.
        """
        if self._finished:
            raise WrongPhase("the play is over")
        if self._claim is not None:
            raise WrongPhase("a claim is pending: accept, reject or withdraw it first")
        self._not_disputed()
        if self.awaits_lead_face_down:
            raise WrongPhase("the opening lead is made face down first (law 41A)")
        self._not_face_down()
        self._play(card, seat)

    def lead_face_down(self, card: Card, seat: Seat | None = None) -> None:
        """The opening leader leads ``card`` face down (law 41A): out of their hand, and
        played only once their partner faces it (:meth:`face_lead`). ``seat``, as in
        :meth:`play`, is checked to be the leader. Raises :class:`WrongPhase` unless the
        face-down opening lead is due, or :class:`IllegalPlay` / :class:`OutOfTurn`, and
        then changes nothing."""
        if not self.awaits_lead_face_down or self._finished or self._claim is not None:
            raise WrongPhase("no opening lead is due face down now")
        leader = self.opening_leader
        if seat is not None and seat != leader:
            raise OutOfTurn(f"the opening lead is {leader.name.title()}'s")
        if not isinstance(card, Card):
            raise IllegalPlay(f"not a card: {card!r}")
        if not self._hands[leader] & card.bit:
            raise IllegalPlay(f"{card} is not in {leader.name.title()}'s hand")
        self._hands[leader] ^= card.bit
        self._face_down = card

    def face_lead(self, seat: Seat | None = None) -> Card:
        """The leader's partner (``seat``, checked when given) has no more questions: the
        face-down opening lead is faced, and played. Returns it."""
        card = self._face_down
        if card is None:
            raise WrongPhase("no opening lead is face down")
        partner = self.opening_leader.partner
        if seat is not None and seat != partner:
            raise OutOfTurn(f"the leader's partner, {partner.name.title()}, faces the lead")
        self._hands[self.opening_leader] |= card.bit
        self._face_down = None
        self._play(card, self.opening_leader)
        return card

    def _play(self, card: Card, seat: Seat | None) -> None:
        turn = self._turn
        if seat is not None and seat != (self.declarer if turn == self.dummy else _SEATS[turn]):
            acting = "declarer" if turn == self.dummy else _SEATS[turn].name.title()
            raise OutOfTurn(
                f"it is {acting}'s turn to play (from {_SEATS[turn].name.title()}'s hand)"
            )
        if not isinstance(card, Card):
            raise IllegalPlay(f"not a card: {card!r}")
        hand = self._hands[turn]
        if not hand & card.bit:
            raise IllegalPlay(f"{card} is not in {_SEATS[turn].name.title()}'s hand")
        trick = self._trick
        if trick:
            led = trick[0].suit
            if card.suit != led and hand & SUIT_MASK[led]:
                raise IllegalPlay(
                    f"{_SEATS[turn].name.title()} must follow suit to {led.name.lower()}"
                )
        self._hands[turn] = hand ^ card.bit
        trick.append(card)
        self._history.append(card)
        if len(trick) < 4:
            self._turn = (turn + 1) & 3
            return
        # Highest trump wins, else the highest card of the suit led.
        best = 0
        top = trick[0]
        trump = self._trump
        for position in (1, 2, 3):
            other = trick[position]
            if other.suit == top.suit:
                if other.rank > top.rank:
                    best, top = position, other
            elif other.suit == trump:
                best, top = position, other
        winner = (self._leader + best) & 3
        self._tricks.append(Trick(_SEATS[self._leader], tuple(trick), _SEATS[winner]))
        self._won[winner & 1] += 1
        self._trick = []
        self._leader = self._turn = winner
        if len(self._tricks) == 13:
            self._finished = True

    def undo(self) -> tuple[Seat, Card]:
        """Take back the last card played; return the seat whose hand it goes back to, and it.

        A card that completed a trick reopens that trick: its winner's trick is taken back
        and the turn is again the seat that played the card. Afterwards the play is as if
        the card had never been played. Raises :class:`WrongPhase` and changes nothing
        when no card has been played, when the play is over or while a claim is pending.

        >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
        >>> play = Play.replay(deal, Contract.parse("3NT"), Seat.NORTH, ["DK"])
        >>> seat, card = play.undo()
        >>> seat, str(card), play.turn, play.is_dummy_exposed
        (<Seat.EAST: 1>, 'DK', <Seat.EAST: 1>, False)
        """
        if self._finished:
            raise WrongPhase("the play is over")
        if self._claim is not None:
            raise WrongPhase("a claim is pending: accept, reject or withdraw it first")
        self._not_disputed()
        self._not_face_down()
        history = self._history
        if not history:
            raise WrongPhase("no card has been played: there is nothing to take back")
        card = history.pop()
        trick = self._trick
        if trick:
            trick.pop()
            seat = (self._leader + len(trick)) & 3
        else:
            last = self._tricks.pop()
            self._won[self._leader & 1] -= 1  # the trick's winner leads the next one
            leader = int(last.leader)
            self._trick = list(last.cards[:3])
            self._leader = leader
            seat = (leader + 3) & 3
        self._hands[seat] |= card.bit
        self._turn = seat
        return _SEATS[seat], card

    def claim(self, claimer: Seat, tricks: int) -> Claim:
        """``claimer`` claims ``tricks`` of the remaining tricks for their side.

        A claim of fewer than all is a concession of the rest. The play waits until
        every decider accepts (:meth:`accept_claim`) or one rejects (:meth:`reject_claim`).
        """
        if self._finished:
            raise WrongPhase("the play is over")
        if self._claim is not None:
            raise WrongPhase("a claim is already pending")
        self._not_disputed()
        self._not_face_down()
        claimer = as_seat(claimer)
        if claimer == self.dummy:
            raise IllegalPlay("dummy takes no part in the play and cannot claim")
        remaining = self.remaining_tricks
        if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= remaining:
            raise IllegalPlay(f"a claim is of 0 to {remaining} remaining tricks, got {tricks!r}")
        if claimer == self.declarer:
            deciders = frozenset((self.declarer.lho, self.declarer.rho))
        else:
            deciders = frozenset((self.declarer, claimer.partner))
        self._claim = Claim(claimer, tricks, remaining, deciders)
        return self._claim

    def accept_claim(self, seat: Seat) -> Claim:
        """``seat`` agrees to the pending claim; when every decider has, the play ends."""
        seat = as_seat(seat)
        claim = self._deciding(seat)
        if seat in claim.accepted:
            raise IllegalPlay(f"{seat.name.title()} has already accepted this claim")
        claim = Claim(
            claim.claimer,
            claim.tricks,
            claim.remaining,
            claim.deciders,
            claim.accepted | {seat},
        )
        if claim.accepted != claim.deciders:
            self._claim = claim
            return claim
        self._claim = None
        self._claims.append((claim, True))
        side = claim.claimer & 1
        self._won[side] += claim.tricks
        self._won[1 - side] += claim.remaining - claim.tricks
        self._finished = True
        return claim

    def reject_claim(self, seat: Seat, *, dispute: bool = False) -> Claim:
        """``seat`` rejects the pending claim: the play stands as it was.

        Play may go on from there, or a director rules (:meth:`rule`). With ``dispute``
        (law 68D), play ceases: no card, claim or undo until the director rules.
        """
        claim = self._deciding(as_seat(seat))
        self._claim = None
        self._claims.append((claim, False))
        if dispute:
            self._dispute = claim
        return claim

    def withdraw_claim(self, seat: Seat) -> Claim:
        """The claimer ``seat`` withdraws the pending claim; the play goes on as it was.

        Allowed until every decider has accepted (some may have already). Raises
        :class:`WrongPhase` when no claim is pending and :class:`OutOfTurn` when ``seat``
        is not the claimer, and then changes nothing.
        """
        claim = self._claim
        if claim is None:
            raise WrongPhase("there is no claim to withdraw")
        seat = as_seat(seat)
        if seat != claim.claimer:
            raise OutOfTurn(f"only {claim.claimer.name.title()}, the claimer, can withdraw it")
        self._claim = None
        self._claims.append((claim, False))
        return claim

    def withdraw_concession(self) -> Claim:
        """Reopen a play that an accepted claim ended, and return that claim (Laws 68-71).

        The tricks the claim gave each side are taken back and the play goes on where it
        stopped: the same trick in progress, the same turn. Raises :class:`WrongPhase` and
        changes nothing unless an accepted claim ended the play (not thirteen tricks, not
        a director's ruling).
        """
        claim = self._ending_claim()
        if claim is None:
            raise WrongPhase("only a play that an accepted claim ended can be reopened")
        side = claim.claimer & 1
        self._won[side] -= claim.tricks
        self._won[1 - side] -= claim.remaining - claim.tricks
        self._claims[-1] = (claim, False)
        self._finished = False
        return claim

    def rule(self, declarer_tricks: int) -> None:
        """A director's ruling ends the play with declarer's side taking ``declarer_tricks`` in all."""
        if self._finished:
            raise WrongPhase("the play is over")
        low = self.declarer_tricks
        high = low + self.remaining_tricks
        if (
            isinstance(declarer_tricks, bool)
            or not isinstance(declarer_tricks, int)
            or not low <= declarer_tricks <= high
        ):
            raise IllegalPlay(
                f"declarer's side can end with {low} to {high} tricks, not {declarer_tricks!r}"
            )
        if self._claim is not None:
            self._claims.append((self._claim, False))
            self._claim = None
        self._dispute = None
        side = self.declarer & 1
        self._won[1 - side] += high - declarer_tricks
        self._won[side] = declarer_tricks
        self._finished = True

    def _not_face_down(self) -> None:
        if self._face_down is not None:
            raise WrongPhase("the opening lead is face down: the leader's partner faces it first")

    def _not_disputed(self) -> None:
        if self._dispute is not None:
            raise WrongPhase("the claim is disputed: play has ceased until the director rules")

    def _ending_claim(self) -> Claim | None:
        """The accepted claim that ended the play, if one did."""
        if self._finished and self._claims:
            claim, stands = self._claims[-1]
            if stands:
                return claim
        return None

    def _deciding(self, seat: Seat) -> Claim:
        claim = self._claim
        if claim is None:
            raise WrongPhase("there is no claim to answer")
        if seat not in claim.deciders:
            raise OutOfTurn(f"{seat.name.title()} does not decide this claim")
        return claim

    def __repr__(self) -> str:
        return (
            f"<Play {self.contract} by {self.declarer.letter}: "
            f"{len(self._history)} cards, {self.declarer_tricks}-{self.defender_tricks}>"
        )

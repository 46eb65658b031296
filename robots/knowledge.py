"""What one seat may know at its turn: the input of every robot decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bridge import Auction, Call, Card, Contract, Hand, Play, Seat, Vulnerability
from bridge.play import Trick

__all__ = ["LEVELS", "Level", "SeatView"]

Level = Literal["seed", "strong"]
"""How a robot bids and plays: ``seed`` the level faithful to the seeds (RULES.md 6.2: a
bare natural system, card play by rules), ``strong`` conventions and card play by sampling
the hidden hands and solving them double dummy."""
LEVELS: tuple[Level, ...] = ("seed", "strong")


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's knowledge when it must act.

    ``me`` is the player deciding; ``turn`` the hand that acts (dummy's seat when declarer
    plays from dummy). ``hand`` is ``me``'s remaining cards; ``dummy_hand`` is dummy's
    remaining cards once the opening lead is faced (None before, and always None in the
    auction). ``tricks`` are the completed tricks; ``current`` the trick in progress.
    """

    me: Seat
    turn: Seat
    dealer: Seat
    vulnerability: Vulnerability
    calls: tuple[Call, ...]
    hand: Hand
    contract: Contract | None = None
    declarer: Seat | None = None
    dummy_hand: Hand | None = None
    tricks: tuple[Trick, ...] = ()
    current: Trick | None = None
    legal_calls: tuple[Call, ...] = ()
    legal_cards: tuple[Card, ...] = ()

    @property
    def dummy(self) -> Seat | None:
        return None if self.declarer is None else self.declarer.partner

    @property
    def acting_hand(self) -> Hand:
        """The cards of the hand that acts now (dummy's when declarer plays from dummy)."""
        if self.turn != self.me:
            assert self.dummy_hand is not None
            assert self.turn == self.dummy
            return self.dummy_hand
        return self.hand

    @property
    def played(self) -> tuple[Card, ...]:
        """Every card played so far, in order."""
        cards = [card for trick in self.tricks for card in trick.cards]
        if self.current is not None:
            cards.extend(self.current.cards)
        return tuple(cards)

    @classmethod
    def from_auction(cls, auction: Auction, hand: Hand, vulnerability: Vulnerability) -> SeatView:
        """The view of the seat on turn in ``auction``, holding ``hand``."""
        turn = auction.turn
        assert turn is not None, "the auction is over"
        return cls(
            me=turn,
            turn=turn,
            dealer=auction.dealer,
            vulnerability=vulnerability,
            calls=auction.calls,
            hand=hand,
            legal_calls=tuple(auction.legal_calls()),
        )

    @classmethod
    def from_play(cls, play: Play, auction: Auction, vulnerability: Vulnerability) -> SeatView:
        """The view of the player who must act in ``play``: their own remaining hand, dummy's
        once exposed, and the public record; never another hand."""
        turn = play.turn
        me = play.acting_seat
        assert turn is not None, "the play is over"
        assert me is not None
        return cls(
            me=me,
            turn=turn,
            dealer=auction.dealer,
            vulnerability=vulnerability,
            calls=auction.calls,
            hand=play.remaining(me),
            contract=play.contract,
            declarer=play.declarer,
            dummy_hand=play.remaining(play.dummy) if play.is_dummy_exposed else None,
            tricks=play.tricks,
            current=play.current_trick,
            legal_cards=play.legal_cards(),
        )

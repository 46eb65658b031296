"""Each robot decision at a level: the one place that says which code bids and plays at
``seed`` and at ``strong`` (:data:`robots.knowledge.Level`).

>>> from bridge import Auction, Hand, Seat, Vulnerability
>>> auction = Auction.replay(Seat.NORTH, ["1NT", "P"])
>>> view = SeatView.from_auction(auction, Hand.from_pbn("KJ84.Q732.84.A52"), Vulnerability.NONE)
>>> [call_at(level, view) for level in ("seed", "strong")]  # doctest: +NORMALIZE_WHITESPACE
[(Bid(level=3, strain=<Strain.NOTRUMP: 4>), '10-15 HCP, to play'),
 (Bid(level=2, strain=<Strain.CLUBS: 0>), 'Stayman: asks for a 4-card major, 8+ HCP')]
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from bridge import Call, Card, Seat
from robots import bidding, play, sampling
from robots.knowledge import Level, SeatView

__all__ = ["call_at", "card_at", "decide", "meaning_at"]

log = logging.getLogger(__name__)


def call_at(level: Level, view: SeatView) -> tuple[Call, str]:
    """The call a robot at ``level`` makes in ``view``, and its meaning in plain English."""
    return bidding.choose_call(view, level)


def meaning_at(level: Level, dealer: Seat, calls: Sequence[Call], index: int) -> str:
    """What ``calls[index]`` means in the system of ``level`` (a robot explaining its call)."""
    return bidding.describe(dealer, calls, index, level)


def card_at(level: Level, view: SeatView) -> Card:
    """The card a robot at ``level`` plays for the hand on turn in ``view`` (at the strong
    level, should its sampling fail, the seed level's card: a robot never stops a table)."""
    if level == "strong":
        try:
            return sampling.choose_card(view)
        except Exception:
            log.exception("the strong card play failed; the seed level's card instead")
    return play.choose_card(view)


def decide(kind: Literal["call", "card"], level: Level, view: SeatView) -> tuple[str, str | None]:
    """The call or the card a robot at ``level`` makes in ``view``, as protocol text, and
    the call's alert (:func:`robots.bidding.alert`): what a robot's worker works out (a
    module's function, so that it travels to a worker process).

    >>> from bridge import Auction, Hand, Seat, Vulnerability
    >>> auction = Auction.replay(Seat.NORTH, ["1NT", "P"])
    >>> view = SeatView.from_auction(auction, Hand.from_pbn("KJ84.Q732.84.A52"), Vulnerability.NONE)
    >>> decide("call", "strong", view), decide("call", "seed", view)
    (('2C', 'Stayman: asks for a 4-card major, 8+ HCP'), ('3NT', None))
    """
    if kind == "card":
        return str(card_at(level, view)), None
    call, _meaning = call_at(level, view)
    return str(call), bidding.alert(view.dealer, (*view.calls, call), len(view.calls), level)

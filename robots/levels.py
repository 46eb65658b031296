"""Each robot decision at a level: the one place that says which code bids and plays at
``seed`` and at ``strong`` (:data:`robots.knowledge.Level`).

>>> from bridge import Auction, Hand, Seat, Vulnerability
>>> view = SeatView.from_auction(Auction(Seat.NORTH), Hand.from_pbn("AQ4.KJ3.Q984.K72"), Vulnerability.NONE)
>>> [str(call_at("seed", view)[0]), str(call_at("strong", view)[0])]
['1NT', '1NT']
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge import Call, Card, Seat
from robots import bidding, play, sampling
from robots.knowledge import Level, SeatView

__all__ = ["call_at", "card_at", "meaning_at"]


def call_at(level: Level, view: SeatView) -> tuple[Call, str]:
    """The call a robot at ``level`` makes in ``view``, and its meaning in plain English."""
    return bidding.choose_call(view, level)


def meaning_at(level: Level, dealer: Seat, calls: Sequence[Call], index: int) -> str:
    """What ``calls[index]`` means in the system of ``level`` (a robot explaining its call)."""
    return bidding.describe(dealer, calls, index, level)


def card_at(level: Level, view: SeatView) -> Card:
    """The card a robot at ``level`` plays for the hand on turn in ``view``."""
    if level == "strong":
        return sampling.choose_card(view)
    return play.choose_card(view)

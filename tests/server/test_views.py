"""What views share between viewers, and how long they keep it (server/views.py).

Views share each holding's cards and each finished trick among every viewer that shows
them, and keep them no longer than some view holds them: a process that has played
thousands of boards keeps only the boards in play (bench/load.py measures the memory)."""

from __future__ import annotations

import gc

from bridge import Card, Seat
from bridge.cards import Hand
from bridge.play import Trick
from server import views


def test_a_holding_is_shared_while_a_view_holds_it_and_let_go_after() -> None:
    mask = (1 << 26) - 1 - (1 << 7)  # 25 minor-suit cards: no match of this process holds them
    cards = views._cards(mask)
    assert cards == [str(card) for card in Hand.from_mask(mask)]
    assert views._cards(mask) is cards  # shared, not made again
    del cards
    gc.collect()
    assert mask not in views._HOLDINGS


def test_a_finished_trick_is_shared_while_a_view_holds_it_and_let_go_after() -> None:
    played = tuple(Card.parse(text) for text in ("C2", "C3", "C4", "C5"))
    trick = Trick(Seat.WEST, played, Seat.SOUTH)
    data = views._trick_data(trick)
    assert data == {
        "leader": "W",
        "cards": [
            {"seat": "W", "card": "C2"},
            {"seat": "N", "card": "C3"},
            {"seat": "E", "card": "C4"},
            {"seat": "S", "card": "C5"},
        ],
        "winner": "S",
    }
    assert views._trick_data(Trick(Seat.WEST, played, Seat.SOUTH)) is data
    del data
    gc.collect()
    assert trick not in views._TRICKS

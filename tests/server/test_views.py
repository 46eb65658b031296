"""What views share between viewers, and how long they keep it (server/views.py).

Views share each holding's cards and each finished trick among every viewer that shows
them, and keep them no longer than some view holds them: a process that has played
thousands of boards keeps only the boards in play (bench/load.py measures the memory)."""

from __future__ import annotations

import gc

from hypothesis import given
from hypothesis import strategies as st

from bridge import Card, Contract, Deal, Seat, Vulnerability
from bridge.cards import Hand
from bridge.play import Play, Trick
from server import views
from server.config import BoardSpec
from server.state import BoardState


def test_a_holding_is_shared_while_a_view_holds_it_and_let_go_after() -> None:
    mask = (1 << 26) - 1 - (1 << 7)  # 25 minor-suit cards: no match of this process holds them
    cards = views._cards(mask)
    assert cards == [str(card) for card in Hand.from_mask(mask)]
    assert views._cards(mask) is cards  # shared, not made again
    del cards
    gc.collect()
    assert mask not in views._HOLDINGS


@given(st.integers(min_value=0, max_value=(1 << 52) - 1))
def test_a_holding_is_named_spades_first_high_to_low(mask: int) -> None:
    assert views._cards(mask) == [str(card) for card in Hand.from_mask(mask)]


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


def test_a_trick_taken_back_and_won_with_another_card_shows_the_new_card() -> None:
    # Views keep a board's finished tricks on the board (BoardState.shown): a card taken
    # back that had finished a trick, and another played, must not show the old trick.
    deal = Deal.from_pbn("N:KQJ.KQJT.KQJT.32 2..9876.KQJT9876 T9843.98765..A54 A765.A432.A5432.")
    board = BoardState.start(BoardSpec(1, Seat.NORTH, Vulnerability.NONE, deal))
    play = board.play = Play(deal, Contract.parse("4H"), Seat.NORTH)
    for card in ("CK", "C4", "S5", "C2"):  # E leads; S, W (no club) and N follow
        play.play(Card.parse(card))
    first = views._board_shown(board, 1, True).tricks
    assert [c["card"] for c in first[0]["cards"]] == ["CK", "C4", "S5", "C2"]
    assert views._board_shown(board, 1, True).tricks is first  # kept, not made again
    play.undo()
    play.play(Card.parse("C3"))
    again = views._board_shown(board, 1, True).tricks
    assert [c["card"] for c in again[0]["cards"]] == ["CK", "C4", "S5", "C3"]

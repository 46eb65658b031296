"""The robot player's memory of the quitted tricks (a view shows only the last one)."""

from __future__ import annotations

from typing import Any

from clients.robot import TrickMemory, _plain_card
from protocol.messages import BoardView, PlayedCard, TrickView


def trick(leader: str, *cards: str, winner: str | None = None) -> TrickView:
    order = "NESW"
    seats = [order[(order.index(leader) + i) % 4] for i in range(len(cards))]
    return TrickView(
        leader=leader,
        cards=[PlayedCard(seat=s, card=c) for s, c in zip(seats, cards, strict=True)],
        winner=winner,
    )


FIRST = trick("E", "HJ", "H4", "H2", "HQ", winner="N")
SECOND = trick("N", "SA", "S8", "S3", "S4", winner="N")


def board(completed: int, last: TrickView | None, **fields: Any) -> BoardView:
    values: dict[str, Any] = {
        "table": 1,
        "board": 1,
        "dealer": "N",
        "vulnerability": "None",
        "phase": "play",
        "hands": {},
        "hand_sizes": {"N": 13, "E": 13, "S": 13, "W": 13},
        "auction": [],
        "contract": "3NT",
        "declarer": "N",
        "dummy": "S",
        "tricks": [],
        "last_trick": last,
        "tricks_ns": completed,
        "tricks_ew": 0,
    }
    return BoardView(**(values | fields))


class TestTrickMemory:
    def test_remembers_each_trick_seen_quitted(self) -> None:
        memory = TrickMemory()
        memory.observe(board(0, None))
        assert memory.completed(board(0, None)) == ()
        memory.observe(board(1, FIRST))
        memory.observe(board(1, None))  # its side played to the next: no longer shown
        memory.observe(board(2, SECOND))
        assert memory.completed(board(2, None)) == (FIRST, SECOND)

    def test_a_trick_never_seen_means_no_memory(self) -> None:
        memory = TrickMemory()
        memory.observe(board(2, SECOND))  # joined late: trick 1 was never seen
        assert memory.completed(board(2, None)) is None

    def test_an_undo_that_reopens_a_trick_is_forgotten(self) -> None:
        memory = TrickMemory()
        memory.observe(board(1, FIRST))
        memory.observe(board(2, SECOND))
        memory.observe(board(1, FIRST))  # the card that completed trick 2 was taken back
        assert memory.completed(board(1, None)) == (FIRST,)

    def test_a_new_board_starts_afresh(self) -> None:
        memory = TrickMemory()
        memory.observe(board(1, FIRST))
        assert memory.completed(board(0, None, board=2)) == ()
        assert memory.completed(board(1, None, board=2)) is None

    def test_a_finished_board_shows_every_trick(self) -> None:
        memory = TrickMemory()
        memory.observe(board(2, SECOND, tricks=[FIRST, SECOND], phase="finished"))
        assert memory.completed(board(2, None)) == (FIRST, SECOND)


def test_plain_card_follows_low_or_discards_from_the_longest_suit() -> None:
    assert _plain_card(board(0, None, legal=["HK", "H9", "H3"])) == "H3"
    assert _plain_card(board(0, None, legal=["SA", "S2", "HK", "DQ", "D7", "D2"])) == "D2"
    assert _plain_card(board(0, None, legal=["SA", "DQ", "D7", "D2"])) == "D2"

"""The strong robots' card play: layouts of the unseen cards that fit what the seat knows,
each solved double dummy, and the card that does best over them."""

from __future__ import annotations

import random

import pytest

from bridge import Auction, Card, Contract, Deal, Play, Seat, Vulnerability
from robots import SeatView, sampling
from robots import play as seed_play
from robots.dds import Position, solve
from robots.sampling import SAMPLES, choose_card, layouts, sample_count

# North declares 3NT after 1NT-3NT; East has shown nothing but passes.
DEAL = Deal.from_pbn("N:AQ4.KJ3.Q984.K72 KJ93.Q9.JT5.QJ85 T86.A8752.A32.T9 752.T64.K76.A643")
AUCTION = Auction.replay(Seat.NORTH, ["1NT", "P", "3NT", "P", "P", "P"])


def played(cards: list[str]) -> Play:
    play = Play(DEAL, Contract.parse("3NT"), Seat.NORTH)
    for card in cards:
        play.play(Card.parse(card))
    return play


def view_of(play: Play) -> SeatView:
    return SeatView.from_play(play, AUCTION, Vulnerability.NONE)


def first_void() -> Play:
    """The board played by the seed robots until someone has shown out of a suit."""
    play = played([])
    while not any(
        card.suit != trick.cards[0].suit for trick in play.tricks for card in trick.cards
    ):
        play.play(seed_play.choose_card(view_of(play)))
    return play


def cards_of(mask: int) -> list[Card]:
    return [Card.from_index(index) for index in range(52) if mask >> index & 1]


class TestLayouts:
    def test_every_layout_fits_the_cards_left_and_the_voids_shown(self) -> None:
        play = first_void()
        view = view_of(play)
        knowledge = sampling.known_to(view)
        voids = {seat: bits for seat, bits in knowledge.voids.items() if bits}
        assert voids  # somebody showed out
        hidden = set(knowledge.hidden)
        assert hidden == set(Seat) - {
            view.me,
            Seat.SOUTH,
        }  # all but declarer's or a defender's and dummy
        found = layouts(knowledge, random.Random(1), 50)
        assert len(found) == 50
        for layout in found:
            assert set(layout) == hidden
            union = 0
            for seat, mask in layout.items():
                assert union & mask == 0
                union |= mask
                assert mask.bit_count() == 13 - knowledge.played[seat].bit_count()
                for card in cards_of(mask):
                    assert not voids.get(seat, 0) >> card.suit & 1, (seat, card)
            assert union == knowledge.unknown
        # The hidden cards are exactly those neither in view nor played.
        in_view = view.hand.mask | (view.dummy_hand.mask if view.dummy_hand else 0)
        played_mask = sum(card.bit for card in view.played)
        assert knowledge.unknown == ((1 << 52) - 1) & ~in_view & ~played_mask

    def test_layouts_fit_the_auction_where_they_can(self) -> None:
        # East's opening lead: North showed 15-17 balanced; East sees neither North's hand
        # nor South's, and the layouts deal North its notrump opening.
        view = view_of(played([]))
        assert view.me == Seat.EAST
        knowledge = sampling.known_to(view)
        assert set(knowledge.hidden) == {Seat.NORTH, Seat.SOUTH, Seat.WEST}
        shown = knowledge.shown[Seat.NORTH]
        assert (shown.lo, shown.hi) == (15, 17)
        for layout in layouts(knowledge, random.Random(2), 40):
            north = layout[Seat.NORTH]
            points = sum(card.hcp for card in cards_of(north))
            assert shown.lo - sampling.POINT_SLACK <= points <= shown.hi + sampling.POINT_SLACK
            assert all(
                (north >> (13 * suit) & 0x1FFF).bit_count() >= shown.lengths[suit]
                for suit in range(4)
            )

    def test_an_auction_no_layout_fits_still_gives_layouts_of_the_play(self) -> None:
        # North's 2C promised 22 or more: no layout of East's unseen cards gives North that
        # (East holds 11, and the rest of the points are not enough with South's too), so
        # the layouts fit the play alone, and the robot still plays a legal card.
        auction = Auction.replay(Seat.NORTH, ["2C", "P", "2D", "P", "3NT", "P", "P", "P"])
        play = Play(DEAL, Contract.parse("3NT"), Seat.NORTH)
        view = SeatView.from_play(play, auction, Vulnerability.NONE)
        knowledge = sampling.known_to(view)
        assert len(layouts(knowledge, random.Random(3), 10)) == 10
        assert choose_card(view) in view.legal_cards


class TestChoice:
    def test_the_same_view_gives_the_same_card(self) -> None:
        view = view_of(played(["SK", "S6", "S2"]))
        assert choose_card(view) == choose_card(view)

    def test_the_cards_of_a_whole_board_are_legal_and_the_board_ends(self) -> None:
        play = played([])
        while not play.is_complete:
            play.play(choose_card(view_of(play)))  # Play.play refuses an illegal card
        assert play.declarer_tricks + play.defender_tricks == 13

    def test_work_is_bounded(self, monkeypatch: pytest.MonkeyPatch) -> None:
        asked: list[int] = []

        def counting(positions: list[Position]) -> list[dict[Card, int]]:
            asked.append(len(positions))
            return solve(positions)

        monkeypatch.setattr(sampling, "solve", counting)
        choose_card(view_of(played([])))  # the opening lead
        play = played(["SK", "S6", "S2", "S4"])
        choose_card(view_of(play))
        for _ in range(4 * 4):
            play.play(seed_play.choose_card(view_of(play)))
        choose_card(view_of(play))
        assert asked[0] == sample_count(52) < SAMPLES
        assert max(asked) <= SAMPLES
        assert len(asked) == 3

    def test_a_single_legal_card_or_a_run_of_equals_needs_no_solving(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(positions: list[Position]) -> list[dict[Card, int]]:
            raise AssertionError("solved")

        monkeypatch.setattr(sampling, "solve", refuse)
        deal = Deal.from_pbn(
            "N:AKQJ.AKQ.AKQ.AKQ T98.JT98.JT9.JT9 765.765.8765.876 432.432.432.5432"
        )
        auction = Auction.replay(Seat.NORTH, ["7NT", "P", "P", "P"])
        play = Play(deal, Contract.parse("7NT"), Seat.NORTH)
        play.play(Card.parse("ST"))
        # Dummy's 765 of spades: nothing another hand may hold lies between them.
        view = SeatView.from_play(play, auction, Vulnerability.NONE)
        assert view.turn == Seat.SOUTH
        assert choose_card(view) in {Card.parse("S5"), Card.parse("S6"), Card.parse("S7")}
        # East's opening lead is a choice among four suits: that one is solved (refused here).
        lead = SeatView.from_play(
            Play(deal, Contract.parse("7NT"), Seat.NORTH), auction, Vulnerability.NONE
        )
        assert lead.me == Seat.EAST
        with pytest.raises(AssertionError, match="solved"):
            choose_card(lead)

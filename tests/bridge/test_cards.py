"""Seats, suits, strains, ranks, cards, hands and deals (RULES.md section 1)."""

from __future__ import annotations

import copy
import itertools
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import (
    PASS,
    Auction,
    BridgeError,
    Card,
    Contract,
    Deal,
    Hand,
    ParseError,
    Play,
    Rank,
    Seat,
    Strain,
    Suit,
)
from bridge.cards import as_seat

ALL_CARDS = [Card(suit, rank) for suit in Suit for rank in Rank]
SAMPLE_DEAL = "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987"


class TestErrors:
    def test_parse_error_is_a_bridge_error_is_a_value_error(self) -> None:
        assert issubclass(ParseError, BridgeError)
        assert issubclass(BridgeError, ValueError)

    def test_parse_error_is_caught_as_value_error(self) -> None:
        with pytest.raises(ValueError, match="not a seat"):
            Seat.parse("Q")


class TestSeat:
    @pytest.mark.parametrize(
        ("text", "seat"),
        [
            ("N", Seat.NORTH),
            ("n", Seat.NORTH),
            ("North", Seat.NORTH),
            ("NORTH", Seat.NORTH),
            (" north ", Seat.NORTH),
            ("E", Seat.EAST),
            ("east", Seat.EAST),
            ("S", Seat.SOUTH),
            ("South", Seat.SOUTH),
            ("w", Seat.WEST),
            ("WEST", Seat.WEST),
        ],
    )
    def test_parse(self, text: str, seat: Seat) -> None:
        assert Seat.parse(text) is seat

    @pytest.mark.parametrize("text", ["", "X", "NE", "Nord", "0", "NS", "Northe"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Seat.parse(text)

    @pytest.mark.parametrize(
        ("seat", "letter", "next_seat", "partner", "rho"),
        [
            (Seat.NORTH, "N", Seat.EAST, Seat.SOUTH, Seat.WEST),
            (Seat.EAST, "E", Seat.SOUTH, Seat.WEST, Seat.NORTH),
            (Seat.SOUTH, "S", Seat.WEST, Seat.NORTH, Seat.EAST),
            (Seat.WEST, "W", Seat.NORTH, Seat.EAST, Seat.SOUTH),
        ],
    )
    def test_neighbours(
        self, seat: Seat, letter: str, next_seat: Seat, partner: Seat, rho: Seat
    ) -> None:
        assert seat.letter == letter
        assert str(seat) == letter
        assert seat.next is next_seat
        assert seat.lho is next_seat
        assert seat.partner is partner
        assert seat.rho is rho
        assert Seat.parse(seat.letter) is seat

    @pytest.mark.parametrize("seat", list(Seat))
    def test_relations_are_consistent(self, seat: Seat) -> None:
        assert seat.next.next.next.next is seat
        assert seat.partner.partner is seat
        assert seat.lho.rho is seat
        assert seat.next.next is seat.partner
        assert seat.is_north_south == (seat in (Seat.NORTH, Seat.SOUTH))
        assert seat.partner.is_north_south == seat.is_north_south
        assert seat.lho.is_north_south != seat.is_north_south

    def test_clockwise_order(self) -> None:
        assert list(Seat) == [Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST]


class TestSuit:
    @pytest.mark.parametrize(
        ("text", "suit"),
        [
            ("C", Suit.CLUBS),
            ("c", Suit.CLUBS),
            ("clubs", Suit.CLUBS),
            ("♣", Suit.CLUBS),
            ("D", Suit.DIAMONDS),
            ("Diamonds", Suit.DIAMONDS),
            ("♦", Suit.DIAMONDS),
            ("H", Suit.HEARTS),
            ("hearts", Suit.HEARTS),
            ("♥", Suit.HEARTS),
            ("S", Suit.SPADES),
            ("SPADES", Suit.SPADES),
            ("♠", Suit.SPADES),
        ],
    )
    def test_parse(self, text: str, suit: Suit) -> None:
        assert Suit.parse(text) is suit

    @pytest.mark.parametrize("text", ["", "N", "NT", "X", "spade", "CD"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Suit.parse(text)

    def test_bridge_order(self) -> None:
        assert sorted(Suit) == [Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES]
        assert [s.letter for s in Suit] == ["C", "D", "H", "S"]
        assert [s.symbol for s in Suit] == ["♣", "♦", "♥", "♠"]
        assert [str(s) for s in Suit] == ["C", "D", "H", "S"]


class TestStrain:
    @pytest.mark.parametrize(
        ("text", "strain"),
        [
            ("C", Strain.CLUBS),
            ("♣", Strain.CLUBS),
            ("d", Strain.DIAMONDS),
            ("Hearts", Strain.HEARTS),
            ("S", Strain.SPADES),
            ("♠", Strain.SPADES),
            ("NT", Strain.NOTRUMP),
            ("nt", Strain.NOTRUMP),
            ("N", Strain.NOTRUMP),
            ("notrump", Strain.NOTRUMP),
            ("NoTrumps", Strain.NOTRUMP),
        ],
    )
    def test_parse(self, text: str, strain: Strain) -> None:
        assert Strain.parse(text) is strain

    @pytest.mark.parametrize("text", ["", "X", "NTT", "1S", "P"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Strain.parse(text)

    def test_bidding_order_and_suit(self) -> None:
        assert list(Strain) == sorted(Strain)
        assert [s.letter for s in Strain] == ["C", "D", "H", "S", "NT"]
        assert [s.suit for s in Strain] == [*Suit, None]


class TestRank:
    @pytest.mark.parametrize(
        ("text", "rank"),
        [
            ("A", Rank.ACE),
            ("a", Rank.ACE),
            ("K", Rank.KING),
            ("Q", Rank.QUEEN),
            ("J", Rank.JACK),
            ("T", Rank.TEN),
            ("t", Rank.TEN),
            ("10", Rank.TEN),
            ("9", Rank.NINE),
            ("2", Rank.TWO),
        ],
    )
    def test_parse(self, text: str, rank: Rank) -> None:
        assert Rank.parse(text) is rank

    @pytest.mark.parametrize("text", ["", "1", "11", "0", "X", "AK", "B"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Rank.parse(text)

    def test_order_and_letters(self) -> None:
        assert "".join(r.letter for r in sorted(Rank, reverse=True)) == "AKQJT98765432"
        assert [r.hcp for r in (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN)] == [
            4,
            3,
            2,
            1,
            0,
        ]


class TestCard:
    @pytest.mark.parametrize("card", ALL_CARDS, ids=str)
    def test_parse_every_card(self, card: Card) -> None:
        text = card.suit.letter + card.rank.letter
        parsed = Card.parse(text)
        assert parsed is card
        assert (parsed.suit, parsed.rank) == (card.suit, card.rank)
        assert str(parsed) == text
        assert Card.parse(text.lower()) is card
        assert Card.parse(card.suit.symbol + card.rank.letter) is card
        assert Card.parse(str(card)) is card

    @pytest.mark.parametrize("suit", list(Suit))
    def test_ten_both_spellings(self, suit: Suit) -> None:
        ten = Card.parse(suit.letter + "T")
        assert Card.parse(suit.letter + "10") is ten
        assert ten.rank is Rank.TEN
        assert str(ten) == suit.letter + "T"

    @pytest.mark.parametrize("text", ["", "S", "A", "AS", "S1", "S11", "SX", "Z2", "SAK", "10S"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Card.parse(text)

    def test_interned(self) -> None:
        assert Card.parse("SA") is Card(Suit.SPADES, Rank.ACE)
        assert Card(Suit.HEARTS, Rank.TEN) is Card.parse("H10")
        assert len({id(card) for card in ALL_CARDS}) == 52

    def test_indices_are_a_permutation(self) -> None:
        assert sorted(card.index for card in ALL_CARDS) == list(range(52))
        for card in ALL_CARDS:
            assert Card.from_index(card.index) is card
            assert card.bit == 1 << card.index
        assert Card.parse("C2").index == 0
        assert Card.parse("SA").index == 51

    @pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
    def test_pickle_keeps_identity(self, protocol: int) -> None:
        restored = pickle.loads(pickle.dumps(ALL_CARDS, protocol=protocol))
        assert all(a is b for a, b in zip(restored, ALL_CARDS, strict=True))

    def test_copy_keeps_identity(self) -> None:
        card = Card.parse("DQ")
        assert copy.copy(card) is card
        assert copy.deepcopy(card) is card

    def test_immutable(self) -> None:
        card = Card.parse("SA")
        with pytest.raises(AttributeError):
            card.rank = Rank.KING
        assert card.rank is Rank.ACE

    def test_hashable_and_ordered(self) -> None:
        assert len(set(ALL_CARDS)) == 52
        assert Card.parse("C2") < Card.parse("CA") < Card.parse("D2") < Card.parse("SA")


class TestHand:
    def test_from_pbn(self) -> None:
        hand = Hand.from_pbn("AKQ.AKQJ.A.65432")
        assert len(hand) == 13
        assert hand.hcp == 23
        assert Card.parse("HJ") in hand
        assert Card.parse("C6") in hand
        assert Card.parse("SJ") not in hand
        assert Card.parse("C7") not in hand
        assert "SA" not in hand  # only cards are members
        assert hand.to_pbn() == "AKQ.AKQJ.A.65432"

    def test_iterates_spades_first_high_to_low(self) -> None:
        hand = Hand.from_pbn("AKQ.AKQJ.A.65432")
        assert " ".join(str(c) for c in hand) == "SA SK SQ HA HK HQ HJ DA C6 C5 C4 C3 C2"
        assert [str(c) for c in hand.suit(Suit.CLUBS)] == ["C6", "C5", "C4", "C3", "C2"]
        assert [hand.length(s) for s in Suit] == [5, 1, 4, 3]

    def test_to_pbn_orders_and_normalises(self) -> None:
        hand = Hand.from_pbn("qak.J10.2a.")
        assert hand.to_pbn() == "AKQ.JT.A2."
        assert Hand([Card.parse(t) for t in ("C2", "SA", "HT")]).to_pbn() == "A.T..2"

    @pytest.mark.parametrize(
        "text", ["AKQ.AKQJ.A.65432", "...", "AKQJT98765432...", "..2.", "T9.8.7.6"]
    )
    def test_pbn_round_trip(self, text: str) -> None:
        hand = Hand.from_pbn(text)
        assert hand.to_pbn() == text
        assert Hand.from_pbn(hand.to_pbn()) == hand
        assert Hand(list(hand)) == hand

    @pytest.mark.parametrize(
        "text", ["AKQ.AKQJ.A", "AKQ.AKQJ.A.6543.2", "AKX.AKQJ.A.65432", "AKK.AKQJ.A.65432", ""]
    )
    def test_from_pbn_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Hand.from_pbn(text)

    def test_from_mask(self) -> None:
        hand = Hand.from_pbn("AKQ.AKQJ.A.65432")
        assert Hand.from_mask(hand.mask) == hand
        assert len(Hand.from_mask((1 << 52) - 1)) == 52

    @pytest.mark.parametrize("mask", [-1, 1 << 52, (1 << 53) - 1])
    def test_from_mask_rejects_with_a_bridge_error(self, mask: int) -> None:
        # errors.py: "Every error the rules raise is a BridgeError".
        with pytest.raises(BridgeError):
            Hand.from_mask(mask)

    def test_hand_is_immutable_and_hashable(self) -> None:
        hand = Hand.from_pbn("AKQ.AKQJ.A.65432")
        with pytest.raises(AttributeError):
            hand.mask = 0
        assert {hand, Hand.from_pbn("AKQ.AKQJ.A.65432")} == {hand}
        assert pickle.loads(pickle.dumps(hand)) == hand


def _pbn_hands(pbn: str) -> list[str]:
    return pbn.split(":", 1)[1].split()


class TestDeal:
    def test_from_pbn(self) -> None:
        deal = Deal.from_pbn(SAMPLE_DEAL)
        assert isinstance(deal[Seat.NORTH], Hand)
        assert deal[Seat.NORTH] == Hand.from_pbn("AKQ.AKQJ.A.65432")
        assert deal[Seat.EAST] == Hand.from_pbn("T98.T98.KQJT9.AK")
        assert deal[Seat.SOUTH] == Hand.from_pbn("765.765.8765.QJT")
        assert deal[Seat.WEST] == Hand.from_pbn("J432.432.432.987")
        assert deal.to_pbn() == SAMPLE_DEAL
        assert deal.owner(Card.parse("DK")) is Seat.EAST

    @pytest.mark.parametrize(("first", "dump_first"), list(itertools.product(Seat, Seat)))
    def test_round_trip_with_any_first_seat(self, first: Seat, dump_first: Seat) -> None:
        deal = Deal.from_pbn(SAMPLE_DEAL)
        text = deal.to_pbn(first)
        assert text.startswith(first.letter + ":")
        hands = _pbn_hands(text)
        for offset, hand_text in enumerate(hands):
            assert deal[Seat((first + offset) % 4)].to_pbn() == hand_text
        again = Deal.from_pbn(text)
        assert again == deal
        assert Deal.from_pbn(again.to_pbn(dump_first)) == deal

    def test_first_seat_gets_first_hand(self) -> None:
        hands = _pbn_hands(SAMPLE_DEAL)
        deal = Deal.from_pbn("E:" + " ".join(hands))
        assert deal[Seat.EAST].to_pbn() == hands[0]
        assert deal[Seat.SOUTH].to_pbn() == hands[1]
        assert deal[Seat.WEST].to_pbn() == hands[2]
        assert deal[Seat.NORTH].to_pbn() == hands[3]

    @pytest.mark.parametrize(
        "text",
        [
            # North has twelve cards, West fourteen.
            "N:AKQ.AKQJ.A.6543 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.9872",
            # North twelve cards and the club two missing from the deal.
            "N:AKQ.AKQJ.A.6543 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987",
            # The spade ace twice (North and West), the spade jack nowhere.
            "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT A432.432.432.987",
            # Three hands.
            "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT",
            # No first seat.
            "AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987",
            "X:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987",
        ],
    )
    def test_from_pbn_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Deal.from_pbn(text)

    def test_constructor_rejects_short_hand(self) -> None:
        hands = {
            seat: Hand.from_pbn(pbn)
            for seat, pbn in zip(Seat, _pbn_hands(SAMPLE_DEAL), strict=True)
        }
        hands[Seat.WEST] = Hand(list(hands[Seat.WEST])[:12])
        with pytest.raises(ParseError):
            Deal(hands)

    def test_constructor_rejects_duplicate(self) -> None:
        hands = {
            seat: Hand.from_pbn(pbn)
            for seat, pbn in zip(Seat, _pbn_hands(SAMPLE_DEAL), strict=True)
        }
        hands[Seat.WEST] = hands[Seat.EAST]
        with pytest.raises(ParseError, match="twice"):
            Deal(hands)

    @pytest.mark.parametrize("seed", [0, 1, 42, 2**40])
    def test_random_is_deterministic(self, seed: int) -> None:
        first = Deal.random(random.Random(seed))
        second = Deal.random(random.Random(seed))
        assert first == second
        assert first.to_pbn() == second.to_pbn()

    def test_random_differs_between_seeds(self) -> None:
        deals = {Deal.random(random.Random(seed)).to_pbn() for seed in range(20)}
        assert len(deals) == 20

    @settings(max_examples=60, deadline=None)
    @given(st.integers(min_value=0, max_value=2**64))
    def test_random_is_always_a_valid_deal(self, seed: int) -> None:
        deal = Deal.random(random.Random(seed))
        seen: set[Card] = set()
        for seat in Seat:
            hand = deal[seat]
            assert isinstance(hand, Hand)
            assert len(hand) == 13
            cards = set(hand)
            assert not cards & seen
            seen |= cards
            assert all(deal.owner(card) is seat for card in hand)
        assert seen == set(ALL_CARDS)
        assert Deal.from_pbn(deal.to_pbn()) == deal

    def test_pickle_and_immutable(self) -> None:
        deal = Deal.from_pbn(SAMPLE_DEAL)
        assert pickle.loads(pickle.dumps(deal)) == deal
        assert hash(Deal.from_pbn(SAMPLE_DEAL)) == hash(deal)
        with pytest.raises(AttributeError):
            deal._hands = ()  # type: ignore[assignment]


class TestSeatNumbers:
    """A bad seat number is refused with a BridgeError wherever a seat is taken."""

    @pytest.mark.parametrize("value", [-1, 4, 7, True, "N", None])
    def test_as_seat_refuses(self, value: object) -> None:
        with pytest.raises(BridgeError):
            as_seat(value)

    def test_as_seat_accepts_numbers_and_seats(self) -> None:
        assert [as_seat(n) for n in range(4)] == list(Seat)
        assert as_seat(Seat.WEST) is Seat.WEST

    def test_auction_and_play_refuse_bad_seats(self) -> None:
        with pytest.raises(BridgeError):
            Auction(5)  # type: ignore[arg-type]
        auction = Auction(Seat.NORTH)
        with pytest.raises(BridgeError):
            auction.call(PASS, seat=7)  # type: ignore[arg-type]
        assert auction.calls == ()
        deal = Deal.random(random.Random(3))
        play = Play(deal, Contract.parse("3NT"), Seat.SOUTH)
        with pytest.raises(BridgeError):
            play.claim(4, 1)  # type: ignore[arg-type]
        assert play.pending_claim is None

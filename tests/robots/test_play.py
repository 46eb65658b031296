"""Robot card play and claim decisions (robots/play.py)."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest
from endplay.dds import solve_board
from endplay.types import Deal as EndplayDeal
from endplay.types import Denom, Player
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import (
    Auction,
    Bid,
    Card,
    Contract,
    Deal,
    Hand,
    Play,
    Rank,
    Seat,
    Strain,
    Suit,
    Vulnerability,
)
from robots import SeatView
from robots.play import _choose, choose_card, judge_claim

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
SPADES, HEARTS = Suit.SPADES, Suit.HEARTS
VUL = Vulnerability.NONE


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def start(
    pbn: str, contract: str, declarer: Seat, played: str = "", calls: list[str] | None = None
) -> tuple[Play, Auction]:
    """A play replayed from ``pbn`` and its auction (by default declarer bids it, all pass)."""
    if calls is None:
        auction = Auction.replay(declarer, [contract, "P", "P", "P"])
    else:
        auction = Auction.replay(N, calls)
        assert auction.declarer == declarer
    play = Play.replay(Deal.from_pbn(pbn), Contract.parse(contract), declarer, cards(played))
    return play, auction


def robot_card(
    pbn: str, contract: str, declarer: Seat, played: str = "", calls: list[str] | None = None
) -> Card:
    play, auction = start(pbn, contract, declarer, played, calls)
    return choose_card(SeatView.from_play(play, auction, VUL))


def is_winner(play: Play, card: Card) -> bool:
    """Whether ``card`` beats every card of its suit still held by the other side."""
    seat = play.deal.owner(card)
    others = [play.remaining(other) for other in (seat.lho, seat.rho)]
    return all(card.rank > other.rank for hand in others for other in hand.suit(card.suit))


# -- plain examples, one per rule ----------------------------------------------------------

# A 3NT deal used for several defensive examples; W leads, S declares, N is dummy.
SECOND_HAND = "N:AK4.QJ2.AK53.752 9832.A98.J4.KJ84 J7.T654.Q62.AQ63 QT65.K73.T987.T9"
THIRD_HAND = "N:AK4.752.AK53.QJ2 9832.KQ3.J4.K984 J7.A64.Q62.AT653 QT65.JT98.T987.7"
PARTNER_HONOUR = "N:AK4.752.AK53.QJ2 9832.AJ3.J4.K984 J7.T64.Q62.AT653 QT65.KQ98.T987.7"
COVER = "N:AK4.Q52.AK53.752 9832.K73.J4.KJ84 J7.AJ6.Q962.AQ63 QT65.T984.T87.T9"
NO_COVER = "N:AK4.QJ5.AK53.752 9832.K73.J4.KJ84 J7.A62.Q962.AQ63 QT65.T984.T87.T9"
CHEAPLY = "N:AK4.J52.AK53.752 9832.A3.J74.KJ84 J7.T64.Q962.AQ63 QT65.KQ987.T8.T9"


class TestOpeningLead:
    def test_partners_suit(self) -> None:
        pbn = "N:AK54.A7.A76.KQJ2 T6.KQJT5.843.T54 QJ872.963.T92.A8 93.842.KQJ5.9763"
        calls = ["1C", "1H", "1S", "P", "4S", "P", "P", "P"]
        assert robot_card(pbn, "4S", S, calls=calls) == Card.parse("H8")

    def test_top_of_a_sequence_without_a_bid_from_partner(self) -> None:
        pbn = "N:AK54.A7.A76.KQJ2 T6.KQJT5.843.T54 QJ872.963.T92.A8 93.842.KQJ5.9763"
        assert robot_card(pbn, "4S", S) == Card.parse("DK")

    def test_top_of_touching_honours_against_a_suit(self) -> None:
        pbn = "N:AQ95.A53.KQ.KJ92 K3.T982.JT87.AQ4 JT864.76.A53.T65 72.KQJ4.9642.873"
        assert robot_card(pbn, "4S", S) == Card.parse("HK")

    def test_fourth_best_from_the_longest_suit_at_notrump(self) -> None:
        pbn = "N:A4.AK5.KJ54.QJ85 Q96.QJ972.9873.T T83.T6.AT2.AK763 KJ752.843.Q6.942"
        assert robot_card(pbn, "3NT", S) == Card.parse("S5")

    def test_singleton_against_a_suit(self) -> None:
        pbn = "N:AK2.KQ94.A65.842 QJ.7.KQJT842.AKT T95.AJT63.93.Q76 87643.852.7.J953"
        assert robot_card(pbn, "4H", S) == Card.parse("D7")

    def test_never_away_from_an_ace_against_a_suit(self) -> None:
        pbn = "N:KQ3.K7.AK84.QJ62 876.QJ92.QT3.K93 AJT94.T5.J65.AT7 52.A8643.972.854"
        card = robot_card(pbn, "4S", S)
        assert card.suit != HEARTS or card.rank == Rank.ACE


class TestFollowing:
    def test_second_hand_low(self) -> None:
        # S leads a low heart towards dummy's QJ; West holds K73.
        assert robot_card(SECOND_HAND, "3NT", S, "S5 S4 S9 SJ H4") == Card.parse("H3")

    def test_third_hand_high_but_only_as_high_as_needed(self) -> None:
        # Partner leads a low heart, dummy plays low: from KQ3 East plays the queen.
        assert robot_card(THIRD_HAND, "3NT", S, "H8 H2") == Card.parse("HQ")

    def test_not_over_partners_winning_card(self) -> None:
        # Partner's king is the best heart but for East's own ace.
        assert robot_card(PARTNER_HONOUR, "3NT", S, "HK H2") == Card.parse("H3")

    def test_cover_an_honour_with_an_honour(self) -> None:
        assert robot_card(COVER, "3NT", S, "S5 SA S2 S7 HQ") == Card.parse("HK")

    def test_no_cover_of_the_first_of_touching_honours(self) -> None:
        # Dummy leads the queen from QJ5: East waits for the jack.
        assert robot_card(NO_COVER, "3NT", S, "S5 SA S2 S7 HQ") == Card.parse("H3")

    def test_fourth_hand_wins_cheaply(self) -> None:
        assert robot_card(CHEAPLY, "3NT", S, "S5 SA S2 S7 H2 H3 HT") == Card.parse("HQ")

    def test_return_partners_suit(self) -> None:
        # East won the first heart with the queen and returns the king from K3.
        assert robot_card(THIRD_HAND, "3NT", S, "H8 H2 HQ H4") == Card.parse("HK")


# 4S by South; West leads hearts; East is void in hearts.
VOID_EAST = "N:J64.873.AKQ5.K92 T983..J8642.AQT5 AKQ72.JT954.3.83 5.AKQ62.T97.J764"


class TestRuffingAndDiscarding:
    def test_no_ruff_of_partners_winner(self) -> None:
        card = robot_card(VOID_EAST, "4S", S, "HA H3")
        assert card.suit != SPADES

    def test_ruff_a_trick_that_would_be_lost(self) -> None:
        assert robot_card(VOID_EAST, "4S", S, "H2 H3") == Card.parse("S3")

    def test_discard_keeps_a_guarded_king_and_dummys_length(self) -> None:
        # 3NT: declarer runs clubs. East (S K7, H 98653, D QJT52) keeps Kx and its
        # diamonds beside dummy's four, and lets a worthless heart go.
        pbn = "N:A52.AK.A976.8765 K74.98653.QJT52. 63.74.K43.AKQJT9 QJT98.QJT2.8.432"
        assert robot_card(pbn, "3NT", S, "SQ SA S4 S3 C5") == Card.parse("H3")


class TestDeclarer:
    def test_draws_trumps(self) -> None:
        pbn = "N:J64.A73.KQ5.8542 T85.QJ965.J86.A7 AKQ72.K4.A73.KQ6 93.T82.T942.JT93"
        card = robot_card(pbn, "4S", S, "HT H3 HJ HK")
        assert card.suit == SPADES

    def test_ruffs_a_loser_in_the_short_trump_hand(self) -> None:
        # Dummy has no hearts and three trumps; South leads a heart loser to ruff it.
        pbn = "N:J64..KQ53.875432 T85.AKJ92.J86.AQ AKQ72.7543.A7.K6 93.QT86.T942.JT9"
        assert robot_card(pbn, "4S", S, "DT D3 DJ DA").suit == HEARTS
        # ... and dummy ruffs it with its lowest trump.
        assert robot_card(pbn, "4S", S, "DT D3 DJ DA H3 H6") == Card.parse("S4")

    def test_takes_enough_sure_winners_at_notrump(self) -> None:
        # 1NT: eight top tricks. Dummy cashes a winner rather than giving up the lead.
        pbn = "N:AK2.432.AK2.5432 JT98.JT98.QJT.AK Q43.AKQ.543.QJ76 765.765.9876.T98"
        play, auction = start(pbn, "1NT", S, "D9 DA DT D3")
        card = choose_card(SeatView.from_play(play, auction, VUL))
        assert is_winner(play, card)

    def test_sets_up_a_long_suit_with_the_top_of_a_sequence(self) -> None:
        # 3NT with six top tricks: South knocks out the club ace with the king.
        pbn = "N:AK4.AK5.A7432.86 QJ98.QJ98.QJ.A75 753.762.K5.KQJT9 T62.T43.T986.432"
        assert robot_card(pbn, "3NT", S, "DT D2 DJ DK") == Card.parse("CK")

    def test_finesse_towards_the_ace_queen(self) -> None:
        # South leads a low heart towards dummy's AQ5; West plays low: the queen.
        pbn = "N:A54.AQ5.KQJ.7542 QJT.J986.6543.J6 K32.742.A987.AKQ 9876.KT3.T2.T983"
        assert robot_card(pbn, "3NT", S, "S9 S4 ST SK H2 H3") == Card.parse("HQ")


# -- properties over random deals ---------------------------------------------------------

deals = st.builds(Deal.random, st.integers(0, 2**32 - 1).map(random.Random))
contracts = st.builds(Contract, st.integers(1, 7), st.sampled_from(list(Strain)))
seats = st.sampled_from(list(Seat))
robot_settings = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def robot_play(deal: Deal, contract: Contract, declarer: Seat) -> list[Card]:
    """Four robots play the deal to the end; returns the cards in order."""
    auction = Auction.replay(declarer, [Bid(contract.level, contract.strain), "P", "P", "P"])
    play = Play(deal, contract, declarer)
    while not play.is_complete:
        view = SeatView.from_play(play, auction, VUL)
        card = _choose(view)  # without the safety net: any error shows here
        assert card in view.legal_cards
        assert choose_card(view) is card
        play.play(card)
    return [card for _, card in play.cards_played]


class TestProperties:
    @robot_settings
    @given(deal=deals, contract=contracts, declarer=seats)
    def test_robots_play_every_deal_to_the_end_with_legal_cards(
        self, deal: Deal, contract: Contract, declarer: Seat
    ) -> None:
        assert len(robot_play(deal, contract, declarer)) == 52

    @robot_settings
    @given(deal=deals, contract=contracts, declarer=seats)
    def test_the_same_deal_gives_the_same_play(
        self, deal: Deal, contract: Contract, declarer: Seat
    ) -> None:
        assert robot_play(deal, contract, declarer) == robot_play(deal, contract, declarer)

    @robot_settings
    @given(
        deal=deals,
        contract=contracts,
        declarer=seats,
        moment=st.integers(0, 51),
        swap_seed=st.integers(0, 2**32 - 1),
    )
    def test_cards_the_seat_cannot_see_never_change_its_decision(
        self, deal: Deal, contract: Contract, declarer: Seat, moment: int, swap_seed: int
    ) -> None:
        auction = Auction.replay(declarer, [Bid(contract.level, contract.strain), "P", "P", "P"])
        history = robot_play(deal, contract, declarer)[:moment]
        play = Play.replay(deal, contract, declarer, history)
        view = SeatView.from_play(play, auction, VUL)
        hidden = [seat for seat in Seat if seat != view.me and seat != play.dummy]
        if not play.is_dummy_exposed:
            hidden = [seat for seat in Seat if seat != view.me]
        rng = random.Random(swap_seed)
        first, second = rng.sample(hidden, 2)
        swapped = swap_hidden_cards(deal, play, first, second, rng)
        other = Play.replay(swapped, contract, declarer, history)
        other_view = SeatView.from_play(other, auction, VUL)
        assert other_view.hand == view.hand
        assert other_view.dummy_hand == view.dummy_hand
        assert choose_card(other_view) == choose_card(view)


def swap_hidden_cards(
    deal: Deal, play: Play, first: Seat, second: Seat, rng: random.Random
) -> Deal:
    """``deal`` with some unplayed cards of the same suit exchanged between two hands."""
    hands = {seat: set(deal[seat]) for seat in Seat}
    for suit in Suit:
        mine = list(play.remaining(first).suit(suit))
        theirs = list(play.remaining(second).suit(suit))
        for _ in range(rng.randint(0, min(len(mine), len(theirs)))):
            a, b = mine.pop(rng.randrange(len(mine))), theirs.pop(rng.randrange(len(theirs)))
            hands[first] ^= {a, b}
            hands[second] ^= {a, b}
    return Deal({seat: Hand(hand) for seat, hand in hands.items()})


@pytest.mark.alone  # a time is measured: nothing may run beside it
def test_decisions_are_fast() -> None:
    """Decision time: typically a few hundredths of a millisecond; the last tricks more."""
    rng = random.Random(7)
    times: list[float] = []
    for _ in range(20):
        deal = Deal.random(rng)
        contract = Contract(rng.randint(1, 7), Strain(rng.randrange(5)))
        declarer = Seat(rng.randrange(4))
        auction = Auction.replay(declarer, [Bid(contract.level, contract.strain), "P", "P", "P"])
        play = Play(deal, contract, declarer)
        while not play.is_complete:
            view = SeatView.from_play(play, auction, VUL)
            begin = time.perf_counter()
            card = choose_card(view)
            times.append(time.perf_counter() - begin)
            play.play(card)
    times.sort()
    assert times[len(times) // 2] < 0.002
    assert times[int(0.99 * len(times))] < 0.040  # generous: CI machines are slow


# -- claims ---------------------------------------------------------------------------------


def ending(
    contract: str, declarer: Seat, hands: dict[Seat, str], leader: Seat
) -> tuple[Play, Auction]:
    """A play reduced to the given ending, with ``leader`` on lead.

    ``hands`` are the last cards of each seat, as many for each. The other cards are dealt
    as filler and played first, in tricks ``leader`` wins with the top filler card of each
    suit. So that the filler makes whole tricks, each suit holds 1, 5, 9 or 13 cards in the
    ending.
    """
    held = {seat: cards(text) for seat, text in hands.items()}
    size = len(held[N])
    assert all(len(cards_held) == size for cards_held in held.values())
    used = {card for cards_held in held.values() for card in cards_held}
    dealt = {seat: list(held[seat]) for seat in Seat}
    rounds = {}
    for suit in Suit:
        rest = sorted(
            (card for card in Hand.from_mask((1 << 52) - 1).suit(suit) if card not in used),
            reverse=True,
        )
        assert len(rest) % 4 == 0, f"the ending must hold 1, 5, 9 or 13 {suit.name.lower()}"
        rounds[suit] = len(rest) // 4
        dealt[leader].extend(rest[: rounds[suit]])
        others = [seat for seat in Seat if seat != leader]
        for index, card in enumerate(rest[rounds[suit] :]):
            dealt[others[index % 3]].append(card)
    play = Play(
        Deal({seat: Hand(dealt[seat]) for seat in Seat}), Contract.parse(contract), declarer
    )
    for suit in Suit:
        for _ in range(4 * rounds[suit]):
            assert play.turn is not None
            play.play(
                max(card for card in play.remaining(play.turn).suit(suit) if card not in used)
            )
    assert play.turn == leader
    assert play.remaining_tricks == size
    return play, Auction.replay(declarer, [contract, "P", "P", "P"])


def judge(play: Play, auction: Auction, judge_seat: Seat, claimer: Seat, tricks: int) -> bool:
    view = SeatView.from_play(play, auction, VUL)
    view = dataclasses.replace(view, me=judge_seat, hand=play.remaining(judge_seat))
    return judge_claim(view, claimer, tricks, play.remaining(claimer))


class TestJudgeClaim:
    def test_top_winners_are_accepted(self) -> None:
        play, auction = ending(
            "4S",
            S,
            {S: "SA HA HK DA", N: "H2 D3 C3 C2", E: "DQ DJ CA CK", W: "HQ HJ DK C9"},
            leader=S,
        )
        assert judge(play, auction, W, S, 4)
        assert judge(play, auction, E, S, 4)

    def test_a_concession_in_our_favour_is_accepted(self) -> None:
        play, auction = ending(
            "4S",
            S,
            {S: "SA HA HK DA", N: "H2 D3 C3 C2", E: "DQ DJ CA CK", W: "HQ HJ DK C9"},
            leader=S,
        )
        assert judge(play, auction, W, S, 2)
        assert judge(play, auction, W, S, 0)

    def test_a_trump_still_out_is_rejected(self) -> None:
        # East's king of trumps ruffs a heart: declarer has three tricks, not four.
        play, auction = ending(
            "4S",
            S,
            {S: "S3 HA HK DA", N: "S5 S4 S2 H2", E: "SK CA CK CQ", W: "HQ HJ C9 C8"},
            leader=S,
        )
        assert not judge(play, auction, W, S, 4)
        assert judge(play, auction, W, S, 3)

    def test_a_blocked_suit_is_rejected(self) -> None:
        # South's ace blocks dummy's KQJ: no way back to dummy.
        play, auction = ending(
            "3NT",
            S,
            {S: "HA S3 S2 C2", N: "HK HQ HJ H2", E: "SA SK DA DK", W: "SQ DQ DJ DT"},
            leader=S,
        )
        assert not judge(play, auction, W, S, 4)
        assert not judge(play, auction, W, S, 3)
        assert judge(play, auction, W, S, 2)

    def test_a_missing_ace_is_rejected(self) -> None:
        play, auction = ending(
            "3NT",
            S,
            {S: "HK HQ HJ HT", N: "SA SK SQ SJ", E: "S6 S5 D2 C2", W: "HA S4 S3 S2"},
            leader=S,
        )
        assert not judge(play, auction, E, S, 4)
        assert judge(play, auction, E, S, 3)

    def test_a_claim_in_the_middle_of_a_trick(self) -> None:
        play, auction = ending(
            "4S",
            S,
            {S: "SA HA HK DA", N: "H2 D3 C3 C2", E: "DQ DJ CA CK", W: "HQ HJ DK C9"},
            leader=W,
        )
        play.play(Card.parse("HQ"))
        assert judge(play, auction, E, S, 4)
        play.play(Card.parse("H2"))
        play.play(Card.parse("CK"))
        assert judge(play, auction, W, S, 4)
        assert not judge(play, auction, W, S, 5)

    def test_a_defenders_claim_decided_by_declarer_and_by_partner(self) -> None:
        # East draws South's last trump with the ace, then cashes two diamonds: three
        # tricks for the defence, and dummy ruffs the club.
        play, auction = ending(
            "4S",
            S,
            {E: "SA DA DK C2", N: "S5 S4 D3 D2", S: "SK H5 H3 H2", W: "S2 HA HK D4"},
            leader=E,
        )
        assert judge(play, auction, S, E, 3)
        assert not judge(play, auction, S, E, 4)
        # West decides partner's concession: conceding two tricks is one too many.
        assert judge(play, auction, W, E, 3)
        assert not judge(play, auction, W, E, 2)

    def test_a_claim_with_cards_that_do_not_match_is_rejected(self) -> None:
        play, auction = ending(
            "4S",
            S,
            {S: "SA HA HK DA", N: "H2 D3 C3 C2", E: "DQ DJ CA CK", W: "HQ HJ DK C9"},
            leader=S,
        )
        view = SeatView.from_play(play, auction, VUL)
        view = dataclasses.replace(view, me=W, hand=play.remaining(W))
        assert not judge_claim(view, S, 4, play.remaining(E))


_DENOMS = {
    Strain.SPADES: Denom.spades,
    Strain.HEARTS: Denom.hearts,
    Strain.DIAMONDS: Denom.diamonds,
    Strain.CLUBS: Denom.clubs,
    Strain.NOTRUMP: Denom.nt,
}


def double_dummy_tricks(play: Play, side: int) -> int:
    """endplay's double-dummy tricks for ``side`` (0: N-S) from the play's position."""
    trick = play.current_trick
    assert trick is not None
    hands = {seat: play.remaining(seat).mask for seat in Seat}
    for seat, card in trick.plays():
        hands[seat] |= card.bit
    pbn = "N:" + " ".join(Hand.from_mask(hands[seat]).to_pbn() for seat in Seat)
    deal = EndplayDeal(pbn, first=Player(int(trick.leader)), trump=_DENOMS[play.contract.strain])
    for _, card in trick.plays():
        deal.play(str(card))
    best = max(tricks for _, tricks in solve_board(deal))
    assert play.turn is not None
    return best if play.turn % 2 == side else play.remaining_tricks - best


def robot_position(seed: int, cards_played: int) -> tuple[Play, Auction]:
    rng = random.Random(seed)
    deal = Deal.random(rng)
    contract = Contract(rng.randint(1, 7), Strain(rng.randrange(5)))
    declarer = Seat(rng.randrange(4))
    auction = Auction.replay(declarer, [Bid(contract.level, contract.strain), "P", "P", "P"])
    play = Play(deal, contract, declarer)
    for _ in range(cards_played):
        play.play(choose_card(SeatView.from_play(play, auction, VUL)))
    return play, auction


class TestJudgeClaimAgainstDoubleDummy:
    @pytest.mark.parametrize("seed", range(24))
    def test_small_endings_are_decided_exactly(self, seed: int) -> None:
        # Endings of up to six tricks, claims by either side, right and wrong by one.
        play, auction = robot_position(seed, 28 + seed)
        assert play.declarer is not None
        for claimer in (play.declarer, play.declarer.lho):
            decider = claimer.lho if claimer == play.declarer else play.declarer
            truth = double_dummy_tricks(play, claimer % 2)
            for tricks in range(max(0, truth - 1), min(play.remaining_tricks, truth + 1) + 1):
                assert judge(play, auction, decider, claimer, tricks) == (tricks <= truth)

    @pytest.mark.parametrize("seed", range(8))
    def test_larger_positions_never_accept_a_wrong_claim(self, seed: int) -> None:
        play, auction = robot_position(100 + seed, 4 * (seed % 3))
        assert play.declarer is not None
        truth = double_dummy_tricks(play, play.declarer % 2)
        defender = play.declarer.lho
        if truth < play.remaining_tricks:
            assert not judge(play, auction, defender, play.declarer, truth + 1)
        if truth:
            # A claim the cashing count covers is accepted; the answer is never wrong.
            judge(play, auction, defender, play.declarer, truth)

"""The play of the cards: tricks, dummy and claims (RULES.md section 3)."""

from __future__ import annotations

import random

import endplay.types as ep
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import (
    Card,
    Claim,
    Contract,
    Deal,
    IllegalPlay,
    OutOfTurn,
    Play,
    Rank,
    Seat,
    Strain,
    Suit,
    Trick,
    WrongPhase,
)

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
ALL_CARDS = [Card(suit, rank) for suit in Suit for rank in Rank]

# Seed 000's example: hearts are trumps, N declares, S is dummy, W is void in clubs.
# E leads the club king, dummy's ace cannot hold the trick: W ruffs with the heart three.
SEED_DEAL = Deal.from_pbn("N:KQJ.KQJT.KQJT.32 2..9876.KQJT9876 T9843.98765..A54 A765.A432.A5432.")
# W holds only hearts and clubs; N and E are void in clubs; S holds only diamonds and clubs.
VOID_DEAL = Deal.from_pbn("N:5432.8765432.76. AKQJT9876..5432. ..AKQJT98.765432 .AKQJT9..AKQJT98")


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def snapshot(play: Play) -> tuple[object, ...]:
    return (
        play.cards_played,
        play.turn,
        play.acting_seat,
        play.legal_cards(),
        play.tricks,
        play.current_trick,
        play.last_trick,
        play.declarer_tricks,
        play.defender_tricks,
        play.is_complete,
        play.result,
        play.pending_claim,
        play.remaining_tricks,
        tuple(play.remaining(seat) for seat in Seat),
    )


def seed_play(contract: str = "4H") -> Play:
    return Play(SEED_DEAL, Contract.parse(contract), N)


class TestSeedExample:
    def test_ruffed_club_king(self) -> None:
        play = seed_play("4H")
        assert play.opening_leader is E
        assert play.dummy is S
        assert play.turn is E
        play.play(Card.parse("CK"), seat=E)
        assert play.turn is S  # dummy's card is due ...
        assert play.acting_seat is N  # ... and declarer chooses it
        play.play(Card.parse("CA"), seat=N)
        assert Card.parse("H3") in play.legal_cards()  # W is void in clubs: any card
        assert len(play.legal_cards()) == 13
        play.play(Card.parse("H3"), seat=W)
        assert play.legal_cards() == tuple(cards("C3 C2"))  # N must follow suit
        play.play(Card.parse("C2"), seat=N)
        assert play.tricks == (Trick(E, tuple(cards("CK CA H3 C2")), W),)
        assert play.last_trick == Trick(E, tuple(cards("CK CA H3 C2")), W)
        assert play.turn is W  # the winner leads next
        assert (play.declarer_tricks, play.defender_tricks) == (0, 1)

    def test_same_trick_at_notrump_goes_to_the_ace(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("3NT"), N, cards("CK CA H3 C2"))
        assert play.last_trick is not None
        assert play.last_trick.winner is S
        assert play.turn is S
        assert play.acting_seat is N
        assert (play.declarer_tricks, play.defender_tricks) == (1, 0)


class TestTricks:
    @pytest.mark.parametrize(
        ("contract", "declarer", "sequence", "winner"),
        [
            # Highest card of the suit led wins at notrump; discards of aces never win.
            ("3NT", S, "CA H8 SA C2", W),
            ("3NT", N, "SA D8 HA S2", E),
            ("1NT", E, "C2 C8 S5 SA", W),
            # A ruff beats the ace led; a discard of an ace (not a trump) does not.
            ("4H", S, "CA H2 SA C2", N),
            ("4S", S, "CA S5 D2 C2", N),
            ("2H", W, "S2 S6 DA H9", W),
            # Over-ruff: the highest trump wins.
            ("4S", S, "CA S2 S6 C2", E),
            # Trumps led: the highest trump wins; a discard of an ace does not.
            ("4D", N, "D5 DA HA D7", S),
        ],
    )
    def test_winner(self, contract: str, declarer: Seat, sequence: str, winner: Seat) -> None:
        play = Play.replay(VOID_DEAL, Contract.parse(contract), declarer, cards(sequence))
        trick = play.last_trick
        assert trick is not None
        assert trick.cards == tuple(cards(sequence))
        assert trick.leader is declarer.lho
        assert trick.winner is winner
        assert play.turn is winner
        declarer_side = winner in (declarer, declarer.partner)
        assert (play.declarer_tricks, play.defender_tricks) == ((1, 0) if declarer_side else (0, 1))

    def test_follow_suit_enforced(self) -> None:
        play = Play(VOID_DEAL, Contract.parse("4S"), S)
        play.play(Card.parse("CA"))
        # N (dummy) has no clubs: anything goes.
        assert set(play.legal_cards()) == set(VOID_DEAL[N])
        play.play(Card.parse("H8"))
        # E has no clubs either: anything, and need not ruff.
        assert set(play.legal_cards()) == set(VOID_DEAL[E])
        play.play(Card.parse("D2"))
        # S has clubs: clubs only.
        assert play.legal_cards() == tuple(cards("C7 C6 C5 C4 C3 C2"))
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.play(Card.parse("DA"))  # a revoke
        assert snapshot(play) == before
        assert not play.is_legal(Card.parse("DA"))
        play.play(Card.parse("C7"))
        assert play.last_trick == Trick(W, tuple(cards("CA H8 D2 C7")), W)

    def test_card_not_in_the_hand_on_turn(self) -> None:
        play = seed_play()
        before = snapshot(play)
        for card in cards("SA HA CA C2"):  # W's, W's, S's and N's cards; E is on lead
            assert card not in SEED_DEAL[E]
            with pytest.raises(IllegalPlay):
                play.play(card)
            assert snapshot(play) == before
        play.play(Card.parse("CK"))
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.play(Card.parse("CK"))  # already played
        with pytest.raises(IllegalPlay):
            play.play(Card.parse("CQ"))  # E's card, but it is dummy's turn
        assert snapshot(play) == before

    def test_not_a_card(self) -> None:
        play = seed_play()
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.play("CK")  # type: ignore[arg-type]
        assert snapshot(play) == before


class TestDummy:
    def test_declarer_plays_dummys_card(self) -> None:
        play = seed_play()
        play.play(Card.parse("CK"), seat=E)
        assert play.turn is S
        assert play.acting_seat is N
        assert play.is_dummy_exposed
        play.play(Card.parse("CA"), seat=N)
        assert play.cards_played == ((E, Card.parse("CK")), (S, Card.parse("CA")))

    def test_dummy_cannot_play_its_own_card(self) -> None:
        # Declarer chooses dummy's cards (RULES.md section 3): the acting seat is N, not S.
        play = seed_play()
        play.play(Card.parse("CK"), seat=E)
        before = snapshot(play)
        with pytest.raises(OutOfTurn):
            play.play(Card.parse("CA"), seat=S)
        assert snapshot(play) == before

    @pytest.mark.parametrize("seat", [E, W])
    def test_defenders_cannot_play_dummys_card(self, seat: Seat) -> None:
        play = seed_play()
        play.play(Card.parse("CK"), seat=E)
        before = snapshot(play)
        with pytest.raises(OutOfTurn):
            play.play(Card.parse("CA"), seat=seat)
        assert snapshot(play) == before

    @pytest.mark.parametrize("seat", [N, S, W])
    def test_opening_lead_out_of_turn(self, seat: Seat) -> None:
        play = seed_play()
        before = snapshot(play)
        with pytest.raises(OutOfTurn):
            play.play(Card.parse("CK"), seat=seat)
        assert snapshot(play) == before
        assert not play.is_dummy_exposed

    def test_declarer_plays_own_card_in_own_turn(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3"))
        assert play.turn is N
        assert play.acting_seat is N
        with pytest.raises(OutOfTurn):
            play.play(Card.parse("C2"), seat=S)
        play.play(Card.parse("C2"), seat=N)
        assert play.turn is W


class TestTrickViews:
    def test_current_and_last_trick(self) -> None:
        play = seed_play()
        assert play.last_trick is None
        assert play.current_trick == Trick(E, (), None)
        play.play(Card.parse("CK"))
        play.play(Card.parse("CA"))
        assert play.current_trick == Trick(E, tuple(cards("CK CA")), None)
        current = play.current_trick
        assert current is not None
        assert current.card_of(S) == Card.parse("CA")
        assert current.card_of(W) is None
        assert not current.is_complete
        assert play.last_trick is None
        play.play(Card.parse("H3"))
        play.play(Card.parse("C2"))
        first = Trick(E, tuple(cards("CK CA H3 C2")), W)
        assert play.last_trick == first
        assert first.is_complete
        assert first.plays() == list(zip([E, S, W, N], cards("CK CA H3 C2"), strict=True))
        assert play.current_trick == Trick(W, (), None)
        assert play.remaining_tricks == 12
        play.play(Card.parse("HA"))
        assert play.last_trick == first  # still visible until the next trick is quitted
        assert play.current_trick == Trick(W, (Card.parse("HA"),), None)

    def test_views_when_finished(self) -> None:
        play = Play(VOID_DEAL, Contract.parse("7NT"), S)
        rng = random.Random(7)
        while not play.is_complete:
            play.play(rng.choice(play.legal_cards()))
        assert play.current_trick is None
        assert play.turn is None
        assert play.acting_seat is None
        assert play.legal_cards() == ()
        assert play.last_trick == play.tricks[-1]
        assert len(play.tricks) == 13
        assert play.result == play.declarer_tricks
        with pytest.raises(WrongPhase):
            play.play(ALL_CARDS[0])
        # W has six top hearts and seven top clubs and leads: all thirteen tricks.
        assert play.defender_tricks == 13


class TestClaims:
    def test_declarer_claim_needs_both_defenders(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        claim = play.claim(N, 12)
        assert claim == Claim(N, 12, 12, frozenset({E, W}))
        assert play.pending_claim == claim
        claim = play.accept_claim(E)
        assert claim.accepted == frozenset({E})
        assert not play.is_complete  # one acceptance is not enough
        assert play.result is None
        assert play.legal_cards() == ()
        claim = play.accept_claim(W)
        assert claim.accepted == frozenset({E, W})
        assert play.is_complete
        assert play.pending_claim is None
        assert (play.declarer_tricks, play.defender_tricks) == (12, 1)
        assert play.result == 12
        assert play.turn is None

    def test_claim_at_the_start(self) -> None:
        play = seed_play()
        play.claim(N, 13)
        play.accept_claim(W)
        play.accept_claim(E)
        assert play.result == 13
        assert play.defender_tricks == 0

    def test_claim_in_the_middle_of_a_trick(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2 HA HK"))
        assert play.remaining_tricks == 12
        claim = play.claim(N, 11)
        assert claim.remaining == 12
        play.accept_claim(E)
        play.accept_claim(W)
        assert (play.declarer_tricks, play.defender_tricks) == (11, 2)

    def test_rejection_leaves_the_play_as_it_was(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3"))
        before = snapshot(play)
        play.claim(N, 13)
        play.accept_claim(E)
        play.reject_claim(W)
        assert snapshot(play) == before
        assert play.pending_claim is None
        play.play(Card.parse("C2"))  # play continues
        assert play.last_trick is not None
        assert play.last_trick.winner is W

    def test_concession(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        play.claim(N, 8)  # of the 12 left: concedes 4
        play.accept_claim(E)
        play.accept_claim(W)
        assert (play.declarer_tricks, play.defender_tricks) == (8, 5)

    def test_concede_everything(self) -> None:
        play = seed_play()
        play.claim(N, 0)
        play.accept_claim(E)
        play.accept_claim(W)
        assert (play.declarer_tricks, play.defender_tricks) == (0, 13)
        assert play.result == 0

    @pytest.mark.parametrize(("claimer", "partner"), [(E, W), (W, E)])
    def test_defender_claim_is_decided_by_declarer_and_partner(
        self, claimer: Seat, partner: Seat
    ) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        claim = play.claim(claimer, 3)
        assert claim.deciders == frozenset({N, partner})
        for outsider in (claimer, S):
            with pytest.raises(OutOfTurn):
                play.accept_claim(outsider)
            with pytest.raises(OutOfTurn):
                play.reject_claim(outsider)
        play.accept_claim(partner)
        assert not play.is_complete
        play.accept_claim(N)
        assert play.is_complete
        assert (play.declarer_tricks, play.defender_tricks) == (9, 4)

    def test_declarer_claim_not_decided_by_dummy_or_declarer(self) -> None:
        play = seed_play()
        play.claim(N, 10)
        for outsider in (N, S):
            with pytest.raises(OutOfTurn):
                play.accept_claim(outsider)
        assert play.pending_claim is not None
        assert play.pending_claim.accepted == frozenset()

    def test_dummy_cannot_claim(self) -> None:
        play = seed_play()
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.claim(S, 13)
        assert snapshot(play) == before

    def test_claim_while_one_is_pending(self) -> None:
        play = seed_play()
        play.claim(N, 10)
        for claimer in (N, E, W):
            with pytest.raises(WrongPhase):
                play.claim(claimer, 5)
        assert play.pending_claim == Claim(N, 10, 13, frozenset({E, W}))

    def test_playing_while_a_claim_is_pending(self) -> None:
        play = seed_play()
        play.claim(E, 1)
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.play(Card.parse("CK"))
        with pytest.raises(WrongPhase):
            play.play(Card.parse("CK"), seat=E)
        assert snapshot(play) == before

    def test_answers_without_a_claim(self) -> None:
        play = seed_play()
        with pytest.raises(WrongPhase):
            play.accept_claim(E)
        with pytest.raises(WrongPhase):
            play.reject_claim(E)

    def test_accepting_twice(self) -> None:
        play = seed_play()
        play.claim(N, 10)
        play.accept_claim(E)
        with pytest.raises(IllegalPlay):
            play.accept_claim(E)
        assert not play.is_complete

    @pytest.mark.parametrize("tricks", [-1, 13, 20])
    def test_claim_out_of_range(self, tricks: int) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.claim(N, tricks)  # 12 tricks remain
        assert snapshot(play) == before

    def test_claim_after_the_end(self) -> None:
        play = seed_play()
        play.rule(10)
        with pytest.raises(WrongPhase):
            play.claim(N, 0)


class TestDirectorRuling:
    def test_rule(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        play.rule(9)
        assert play.is_complete
        assert (play.declarer_tricks, play.defender_tricks) == (9, 4)
        assert play.result == 9
        with pytest.raises(WrongPhase):
            play.rule(9)

    def test_rule_settles_a_pending_claim(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        play.claim(N, 12)
        play.reject_claim(E)
        play.claim(N, 12)
        play.rule(10)
        assert play.pending_claim is None
        assert (play.declarer_tricks, play.defender_tricks) == (10, 3)

    @pytest.mark.parametrize("tricks", [13, -1, 14])
    def test_rule_cannot_undo_tricks_won(self, tricks: int) -> None:
        # W won the first trick: declarer's side can end with 0 to 12.
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.rule(tricks)
        assert snapshot(play) == before

    def test_rule_counts_tricks_already_won(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("3NT"), N, cards("CK CA H3 C2"))
        with pytest.raises(IllegalPlay):
            play.rule(0)  # N-S already have one
        play.rule(1)
        assert (play.declarer_tricks, play.defender_tricks) == (1, 12)


# -- properties over random deals ---------------------------------------------------------


def reference_winner(leader: Seat, trick: list[Card], trump: Suit | None) -> Seat:
    """The simplest statement of the rule: highest trump, else highest of the suit led."""
    trumps = [card for card in trick if card.suit == trump]
    candidates = trumps or [card for card in trick if card.suit == trick[0].suit]
    best = max(candidates, key=lambda card: card.rank)
    return Seat((leader + trick.index(best)) % 4)


contracts = st.builds(Contract, st.integers(1, 7), st.sampled_from(list(Strain)), st.integers(0, 2))


class TestPlayProperties:
    @settings(max_examples=60, deadline=None)
    @given(st.integers(0, 2**32), contracts, st.sampled_from(list(Seat)), st.data())
    def test_random_legal_play(
        self, seed: int, contract: Contract, declarer: Seat, data: st.DataObject
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        trump = contract.strain.suit
        holdings = {seat: set(deal[seat]) for seat in Seat}
        leader = declarer.lho
        winners = []
        played: list[Card] = []
        for number in range(13):
            trick: list[Card] = []
            before_trick = {seat: set(cards) for seat, cards in holdings.items()}
            for position in range(4):
                seat = Seat((leader + position) % 4)
                assert play.turn is seat
                assert play.acting_seat is (declarer if seat is play.dummy else seat)
                legal = play.legal_cards()
                assert legal
                assert set(legal) <= holdings[seat]
                if trick and any(c.suit == trick[0].suit for c in holdings[seat]):
                    assert set(legal) == {c for c in holdings[seat] if c.suit == trick[0].suit}
                else:
                    assert set(legal) == holdings[seat]
                card = legal[data.draw(st.integers(0, len(legal) - 1))]
                play.play(card, seat=play.acting_seat)
                holdings[seat].remove(card)
                trick.append(card)
                played.append(card)
            # Follow suit whenever the player could, judged on the holdings before the trick.
            for position, card in enumerate(trick[1:], start=1):
                seat = Seat((leader + position) % 4)
                if any(c.suit == trick[0].suit for c in before_trick[seat]):
                    assert card.suit == trick[0].suit
            winner = reference_winner(leader, trick, trump)
            assert play.tricks[number] == Trick(leader, tuple(trick), winner)
            winners.append(winner)
            leader = winner
        assert play.is_complete
        assert len(play.tricks) == 13
        assert sorted(played) == sorted(ALL_CARDS)
        assert len(set(played)) == 52
        assert [card for _, card in play.cards_played] == played
        assert all(deal.owner(card) is seat for seat, card in play.cards_played)
        declarer_side = sum(1 for w in winners if w in (declarer, declarer.partner))
        assert play.declarer_tricks == declarer_side
        assert play.declarer_tricks + play.defender_tricks == 13
        assert play.result == declarer_side
        assert all(not holding for holding in holdings.values())
        assert all(len(play.remaining(seat)) == 0 for seat in Seat)

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(0, 2**32),
        contracts,
        st.sampled_from(list(Seat)),
        st.integers(0, 51),
        st.data(),
    )
    def test_illegal_card_changes_nothing(
        self, seed: int, contract: Contract, declarer: Seat, stop: int, data: st.DataObject
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        for _ in range(stop):
            legal = play.legal_cards()
            play.play(legal[data.draw(st.integers(0, len(legal) - 1))])
        legal = play.legal_cards()
        illegal = [card for card in ALL_CARDS if card not in legal]
        card = data.draw(st.sampled_from(illegal))
        before = snapshot(play)
        with pytest.raises(IllegalPlay):
            play.play(card)
        with pytest.raises(IllegalPlay):
            play.play(card, seat=play.acting_seat)
        assert snapshot(play) == before
        assert not play.is_legal(card)
        play.play(legal[0])  # still usable afterwards
        assert play.cards_played[-1][1] == legal[0]


# -- cross-check with endplay -------------------------------------------------------------

ENDPLAY_DENOM = {
    Strain.CLUBS: ep.Denom.clubs,
    Strain.DIAMONDS: ep.Denom.diamonds,
    Strain.HEARTS: ep.Denom.hearts,
    Strain.SPADES: ep.Denom.spades,
    Strain.NOTRUMP: ep.Denom.nt,
}
ENDPLAY_SUIT = {
    ep.Denom.clubs: Suit.CLUBS,
    ep.Denom.diamonds: Suit.DIAMONDS,
    ep.Denom.hearts: Suit.HEARTS,
    ep.Denom.spades: Suit.SPADES,
}


def from_endplay(card: ep.Card) -> Card:
    # endplay ranks are bit values: 2 is 1 << 2, ace 1 << 14.
    return Card(ENDPLAY_SUIT[card.suit], Rank(int(card.rank).bit_length() - 1))


@pytest.mark.parametrize("block", range(4))
def test_trick_winners_match_endplay(block: int) -> None:
    for seed in range(block * 75, (block + 1) * 75):
        rng = random.Random(seed)
        deal = Deal.random(rng)
        strain = rng.choice(list(Strain))
        declarer = rng.choice(list(Seat))
        play = Play(deal, Contract(rng.randint(1, 7), strain), declarer)
        theirs = ep.Deal(deal.to_pbn(), first=ep.Player(declarer.lho), trump=ENDPLAY_DENOM[strain])
        for _ in range(52):
            assert int(theirs.curplayer) == play.turn
            legal = play.legal_cards()
            assert {from_endplay(card) for card in theirs.legal_moves()} == set(legal), seed
            card = rng.choice(legal)
            play.play(card)
            theirs.play(str(card))
            if play.current_trick is None or not play.current_trick.cards:
                last = play.last_trick
                assert last is not None
                assert int(theirs.first) == last.winner, seed
        assert play.is_complete

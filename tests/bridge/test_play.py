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
        play.is_dummy_exposed,
        play.unfinished_trick,
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


class TestFaceDownLead:
    """Law 41A: the opening lead is made face down; the leader's partner faces it."""

    def test_the_lead_waits_face_down_until_the_partner_faces_it(self) -> None:
        play = Play(SEED_DEAL, Contract.parse("4H"), N, face_down_lead=True)
        assert play.awaits_lead_face_down
        lead = Card.parse("CK")
        with pytest.raises(WrongPhase):
            play.play(lead)  # not face up first
        with pytest.raises(OutOfTurn):
            play.lead_face_down(lead, W)
        play.lead_face_down(lead, E)
        assert play.face_down_lead == (E, lead)
        assert lead not in play.remaining(E)  # out of the hand, on the table face down
        assert not play.is_dummy_exposed
        assert play.cards_played == ()
        assert (play.turn, play.acting_seat, play.legal_cards()) == (None, W, ())
        before = snapshot(play)
        for attempt in (
            lambda: play.play(Card.parse("CA")),
            lambda: play.claim(N, 10),
            play.undo,
            lambda: play.lead_face_down(Card.parse("CA"), E),
        ):
            with pytest.raises(WrongPhase):
                attempt()
        with pytest.raises(OutOfTurn):
            play.face_lead(E)  # the partner faces it, not the leader
        assert snapshot(play) == before
        assert play.face_lead(W) == lead
        assert play.face_down_lead is None
        assert play.cards_played == ((E, lead),)
        assert play.is_dummy_exposed
        assert play.turn == S  # dummy plays next, declarer acting
        assert play.acting_seat == N

    def test_an_undone_lead_is_led_face_down_again(self) -> None:
        play = Play(SEED_DEAL, Contract.parse("4H"), N, face_down_lead=True)
        play.lead_face_down(Card.parse("CK"), E)
        play.face_lead(W)
        play.undo()
        assert play.awaits_lead_face_down
        assert Card.parse("CK") in play.remaining(E)

    def test_only_a_card_of_the_leaders_hand(self) -> None:
        play = Play(SEED_DEAL, Contract.parse("4H"), N, face_down_lead=True)
        with pytest.raises(IllegalPlay):
            play.lead_face_down(Card.parse("SK"), E)  # North's
        assert play.awaits_lead_face_down
        with pytest.raises(WrongPhase):
            play.face_lead(W)

    def test_without_the_rule_the_lead_is_played_face_up(self) -> None:
        play = Play(SEED_DEAL, Contract.parse("4H"), N)
        assert not play.awaits_lead_face_down
        with pytest.raises(WrongPhase):
            play.lead_face_down(Card.parse("CK"), E)
        play.play(Card.parse("CK"), E)
        assert play.cards_played == ((E, Card.parse("CK")),)


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

    def test_a_disputed_claim_stops_the_play_until_the_ruling(self) -> None:
        # Law 68D: an opponent disputes; play ceases, nothing changes until the director.
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        claim = play.claim(N, 12)
        play.accept_claim(E)
        disputed = play.reject_claim(W, dispute=True)
        assert play.disputed_claim == disputed
        assert disputed.claimer == claim.claimer
        assert (play.turn, play.acting_seat, play.legal_cards()) == (None, None, ())
        assert not play.is_complete
        before = snapshot(play)
        for attempt in (
            lambda: play.play(Card.parse("HA")),
            lambda: play.claim(N, 12),
            play.undo,
            lambda: play.withdraw_claim(N),
        ):
            with pytest.raises(WrongPhase):
                attempt()
        assert snapshot(play) == before
        play.rule(11)
        assert play.disputed_claim is None
        assert play.is_complete
        assert (play.declarer_tricks, play.defender_tricks) == (11, 2)

    def test_a_rejection_that_is_no_dispute_lets_the_play_go_on(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        play.claim(N, 12)
        play.reject_claim(E)
        assert play.disputed_claim is None
        assert play.turn == W
        play.play(play.legal_cards()[0])

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


class TestUndo:
    def test_undo_the_opening_lead(self) -> None:
        play = seed_play()
        fresh = snapshot(play)
        play.play(Card.parse("CK"), seat=E)
        assert play.undo() == (E, Card.parse("CK"))
        assert snapshot(play) == fresh
        assert not play.is_dummy_exposed
        assert play.turn is E
        assert play.current_trick == Trick(E, (), None)

    def test_undo_dummys_card(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA"))
        assert play.undo() == (S, Card.parse("CA"))
        assert play.turn is S
        assert play.acting_seat is N  # declarer chooses dummy's card again
        assert Card.parse("CA") in play.remaining(S)
        assert snapshot(play) == snapshot(
            Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK"))
        )

    def test_undo_the_card_that_completed_a_trick(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        assert (play.declarer_tricks, play.defender_tricks) == (0, 1)
        assert play.turn is W
        assert play.undo() == (N, Card.parse("C2"))
        assert play.tricks == ()
        assert play.last_trick is None
        assert play.current_trick == Trick(E, tuple(cards("CK CA H3")), None)
        assert (play.declarer_tricks, play.defender_tricks) == (0, 0)
        assert play.turn is N
        assert play.legal_cards() == tuple(cards("C3 C2"))
        assert play.remaining_tricks == 13
        play.play(Card.parse("C3"))  # a different card this time
        assert play.last_trick == Trick(E, tuple(cards("CK CA H3 C3")), W)

    def test_undo_a_trick_won_by_declarers_side(self) -> None:
        # At notrump dummy's club ace wins the first trick; S leads the next.
        sequence = cards("CK CA H3 C2 S3")
        play = Play.replay(SEED_DEAL, Contract.parse("3NT"), N, sequence)
        assert play.undo() == (S, Card.parse("S3"))
        assert play.undo() == (N, Card.parse("C2"))
        assert (play.declarer_tricks, play.defender_tricks) == (0, 0)
        assert snapshot(play) == snapshot(
            Play.replay(SEED_DEAL, Contract.parse("3NT"), N, sequence[:3])
        )

    def test_undo_after_a_rejected_claim(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3"))
        play.claim(N, 13)
        play.reject_claim(E)
        assert play.undo() == (W, Card.parse("H3"))
        assert snapshot(play) == snapshot(
            Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA"))
        )

    def test_nothing_to_undo(self) -> None:
        play = seed_play()
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.undo()
        assert snapshot(play) == before

    def test_no_undo_while_a_claim_is_pending(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA"))
        play.claim(W, 1)
        play.accept_claim(E)
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.undo()
        assert snapshot(play) == before
        assert play.pending_claim is not None

    def test_no_undo_after_thirteen_tricks(self) -> None:
        play = Play(VOID_DEAL, Contract.parse("7NT"), S)
        rng = random.Random(5)
        while not play.is_complete:
            play.play(rng.choice(play.legal_cards()))
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.undo()
        assert snapshot(play) == before

    @pytest.mark.parametrize("ending", ["claim", "rule"])
    def test_no_undo_after_a_claim_or_a_ruling(self, ending: str) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3"))
        end(play, ending)
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.undo()
        assert snapshot(play) == before


def end(play: Play, ending: str) -> None:
    """End ``play`` by declarer's accepted claim of every trick left, or a ruling of the same."""
    if ending == "claim":
        play.claim(play.declarer, play.remaining_tricks)
        for seat in (play.declarer.lho, play.declarer.rho):
            play.accept_claim(seat)
    else:
        play.rule(play.declarer_tricks + play.remaining_tricks)


class TestWithdrawClaim:
    @pytest.mark.parametrize("accepted", [(), (E,), (W,)])
    def test_declarer_withdraws(self, accepted: tuple[Seat, ...]) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3"))
        before = snapshot(play)
        play.claim(N, 12)
        for seat in accepted:
            play.accept_claim(seat)
        claim = play.withdraw_claim(N)
        assert claim == Claim(N, 12, 13, frozenset({E, W}), frozenset(accepted))
        assert snapshot(play) == before
        play.play(Card.parse("C2"), seat=N)  # play goes on
        assert play.last_trick == Trick(E, tuple(cards("CK CA H3 C2")), W)

    def test_defender_withdraws_a_concession(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3 C2"))
        before = snapshot(play)
        play.claim(W, 0)
        play.accept_claim(E)  # the partner agrees; declarer has not yet
        assert play.withdraw_claim(W).accepted == frozenset({E})
        assert snapshot(play) == before
        play.claim(W, 2)  # another claim may follow
        play.accept_claim(E)
        play.accept_claim(N)
        assert (play.declarer_tricks, play.defender_tricks) == (10, 3)

    @pytest.mark.parametrize("seat", [E, S, W])
    def test_only_the_claimer_withdraws(self, seat: Seat) -> None:
        play = seed_play()
        play.claim(N, 10)
        play.accept_claim(E)
        before = snapshot(play)
        with pytest.raises(OutOfTurn):
            play.withdraw_claim(seat)
        assert snapshot(play) == before
        assert play.pending_claim == Claim(N, 10, 13, frozenset({E, W}), frozenset({E}))

    def test_no_claim_to_withdraw(self) -> None:
        play = seed_play()
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.withdraw_claim(N)
        assert snapshot(play) == before
        play.claim(N, 10)
        play.reject_claim(E)
        with pytest.raises(WrongPhase):
            play.withdraw_claim(N)  # rejected: nothing pending
        assert snapshot(play) == before

    def test_too_late_once_accepted(self) -> None:
        play = seed_play()
        end(play, "claim")
        before = snapshot(play)
        with pytest.raises(WrongPhase):
            play.withdraw_claim(N)
        assert snapshot(play) == before


class TestUnfinishedTrick:
    @pytest.mark.parametrize("ending", ["claim", "rule"])
    @pytest.mark.parametrize(
        ("sequence", "expected"),
        [
            ("", None),
            ("CK", Trick(E, tuple(cards("CK")), None)),
            ("CK CA", Trick(E, tuple(cards("CK CA")), None)),
            ("CK CA H3", Trick(E, tuple(cards("CK CA H3")), None)),
            ("CK CA H3 C2", None),  # at a trick's end: nothing of the next trick played
            ("CK CA H3 C2 HA", Trick(W, tuple(cards("HA")), None)),
        ],
    )
    def test_after_a_claim_or_a_ruling(
        self, ending: str, sequence: str, expected: Trick | None
    ) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards(sequence))
        assert play.unfinished_trick is None  # the play runs
        end(play, ending)
        assert play.unfinished_trick == expected
        assert play.current_trick is None
        assert [card for _, card in play.cards_played] == cards(sequence)

    def test_none_after_thirteen_tricks(self) -> None:
        play = Play(VOID_DEAL, Contract.parse("7NT"), S)
        rng = random.Random(11)
        while not play.is_complete:
            assert play.unfinished_trick is None
            play.play(rng.choice(play.legal_cards()))
        assert play.unfinished_trick is None

    def test_none_while_a_claim_is_pending(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK"))
        play.claim(N, 13)
        assert play.unfinished_trick is None
        play.accept_claim(E)
        assert play.unfinished_trick is None
        play.accept_claim(W)
        assert play.unfinished_trick == Trick(E, (Card.parse("CK"),), None)


class TestWithdrawConcession:
    def test_reopen_in_the_middle_of_a_trick(self) -> None:
        sequence = cards("CK CA H3 C2 HA")
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, sequence)
        before = snapshot(play)
        play.claim(W, 1)  # W concedes 11 of the 12 tricks left
        play.accept_claim(N)
        play.accept_claim(E)
        assert (play.declarer_tricks, play.defender_tricks) == (11, 2)
        claim = play.withdraw_concession()
        assert claim == Claim(W, 1, 12, frozenset({N, E}), frozenset({N, E}))
        assert snapshot(play) == before
        assert not play.is_complete
        assert play.turn is N  # the same trick, the same turn
        assert play.current_trick == Trick(W, (Card.parse("HA"),), None)
        assert (play.declarer_tricks, play.defender_tricks) == (0, 1)

    def test_play_on_to_thirteen_tricks(self) -> None:
        sequence = cards("CK CA H3 C2")
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, sequence)
        end(play, "claim")
        assert play.result == 12
        play.withdraw_concession()
        rng = random.Random(2)
        while not play.is_complete:
            card = rng.choice(play.legal_cards())
            play.play(card, seat=play.acting_seat)
            sequence.append(card)
        reference = Play.replay(SEED_DEAL, Contract.parse("4H"), N, sequence)
        assert snapshot(play) == snapshot(reference)
        assert play.declarer_tricks + play.defender_tricks == 13
        assert play.result == reference.result

    def test_claim_again_after_reopening(self) -> None:
        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA"))
        end(play, "claim")
        play.withdraw_concession()
        play.claim(E, 2)
        play.accept_claim(N)
        play.accept_claim(W)
        assert (play.declarer_tricks, play.defender_tricks) == (11, 2)
        assert play.unfinished_trick == Trick(E, tuple(cards("CK CA")), None)
        assert play.withdraw_concession().claimer is E
        assert (play.declarer_tricks, play.defender_tricks) == (0, 0)
        play.rule(9)
        with pytest.raises(WrongPhase):
            play.withdraw_concession()  # a ruling ended it this time

    def test_refused_unless_an_accepted_claim_ended_the_play(self) -> None:
        def refused(play: Play) -> None:
            before = snapshot(play)
            with pytest.raises(WrongPhase):
                play.withdraw_concession()
            assert snapshot(play) == before

        play = Play.replay(SEED_DEAL, Contract.parse("4H"), N, cards("CK CA H3"))
        refused(play)  # still running
        play.claim(N, 13)
        refused(play)  # pending
        play.accept_claim(E)
        refused(play)  # one of two deciders
        play.reject_claim(W)
        refused(play)  # rejected
        play.claim(N, 13)
        play.rule(10)  # the director settles the pending claim
        refused(play)
        finished = Play(VOID_DEAL, Contract.parse("7NT"), S)
        rng = random.Random(4)
        while not finished.is_complete:
            finished.play(rng.choice(finished.legal_cards()))
        refused(finished)
        reopened = seed_play()
        end(reopened, "claim")
        reopened.withdraw_concession()
        refused(reopened)  # once only


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
                assert play.held(seat) == sum(c.bit for c in holdings[seat])
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


def random_cards(play: Play, count: int, data: st.DataObject) -> list[Card]:
    """Play ``count`` random legal cards; return them."""
    played = []
    for _ in range(count):
        legal = play.legal_cards()
        card = legal[data.draw(st.integers(0, len(legal) - 1))]
        play.play(card, seat=play.acting_seat)
        played.append(card)
    return played


def play_to_the_end(play: Play, data: st.DataObject) -> list[Card]:
    return random_cards(play, 52 - len(play.cards_played), data)


class TestUndoAndWithdrawProperties:
    @settings(max_examples=80, deadline=None)
    @given(
        st.integers(0, 2**32), contracts, st.sampled_from(list(Seat)), st.integers(1, 51), st.data()
    )
    def test_undo_equals_replay_without_the_card(
        self, seed: int, contract: Contract, declarer: Seat, stop: int, data: st.DataObject
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        sequence = random_cards(play, stop, data)
        assert play.undo() == (deal.owner(sequence[-1]), sequence[-1])
        without = Play.replay(deal, contract, declarer, sequence[:-1])
        assert snapshot(play) == snapshot(without)
        again = play.legal_cards()
        assert sequence[-1] in again
        card = again[data.draw(st.integers(0, len(again) - 1))]
        play.play(card, seat=play.acting_seat)  # play goes on, with any legal card
        assert snapshot(play) == snapshot(
            Play.replay(deal, contract, declarer, [*sequence[:-1], card])
        )

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(0, 2**32), contracts, st.sampled_from(list(Seat)), st.integers(0, 51), st.data()
    )
    def test_undo_every_card_gives_the_fresh_play(
        self, seed: int, contract: Contract, declarer: Seat, stop: int, data: st.DataObject
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        sequence = random_cards(play, stop, data)
        undone = [play.undo() for _ in sequence]
        assert undone == [(deal.owner(card), card) for card in reversed(sequence)]
        fresh = Play(deal, contract, declarer)
        assert snapshot(play) == snapshot(fresh)
        with pytest.raises(WrongPhase):
            play.undo()
        assert snapshot(play) == snapshot(fresh)
        play_to_the_end(play, data)  # still a good play
        assert play.is_complete
        assert len(play.tricks) == 13

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(0, 2**32),
        contracts,
        st.sampled_from(list(Seat)),
        st.integers(0, 52),
        st.sampled_from(["pending", "claim", "rule", "fresh"]),
        st.data(),
    )
    def test_refused_undo_and_withdrawals_change_nothing(
        self,
        seed: int,
        contract: Contract,
        declarer: Seat,
        stop: int,
        state: str,
        data: st.DataObject,
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        random_cards(play, stop, data)
        if state == "pending" and not play.is_complete:
            play.claim(declarer, data.draw(st.integers(0, play.remaining_tricks)))
        elif state in ("claim", "rule") and not play.is_complete:
            end(play, state)
        before = snapshot(play)
        if play.is_complete or play.pending_claim is not None or not play.cards_played:
            with pytest.raises(WrongPhase):
                play.undo()
        assert snapshot(play) == before
        if play.pending_claim is None:
            with pytest.raises(WrongPhase):
                play.withdraw_claim(declarer)
        else:
            with pytest.raises(OutOfTurn):
                play.withdraw_claim(declarer.lho)
        assert snapshot(play) == before
        if state != "claim" or stop == 52:
            with pytest.raises(WrongPhase):
                play.withdraw_concession()
        assert snapshot(play) == before

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(0, 2**32),
        contracts,
        st.sampled_from(list(Seat)),
        st.integers(0, 51),
        st.sampled_from([Seat.NORTH, Seat.EAST, Seat.WEST]),  # relative to declarer: not dummy
        st.data(),
    )
    def test_withdraw_a_claim_and_play_on(
        self,
        seed: int,
        contract: Contract,
        declarer: Seat,
        stop: int,
        offset: Seat,
        data: st.DataObject,
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        sequence = random_cards(play, stop, data)
        before = snapshot(play)
        claimer = Seat((declarer + offset) % 4)
        claim = play.claim(claimer, data.draw(st.integers(0, play.remaining_tricks)))
        first = data.draw(st.sampled_from([None, *sorted(claim.deciders)]))
        if first is not None:
            play.accept_claim(first)
        assert play.withdraw_claim(claimer).claimer is claimer
        assert snapshot(play) == before
        sequence += play_to_the_end(play, data)
        assert snapshot(play) == snapshot(Play.replay(deal, contract, declarer, sequence))

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(0, 2**32),
        contracts,
        st.sampled_from(list(Seat)),
        st.integers(0, 51),
        st.sampled_from([Seat.NORTH, Seat.EAST, Seat.WEST]),
        st.data(),
    )
    def test_withdraw_a_concession_and_play_on(
        self,
        seed: int,
        contract: Contract,
        declarer: Seat,
        stop: int,
        offset: Seat,
        data: st.DataObject,
    ) -> None:
        deal = Deal.random(random.Random(seed))
        play = Play(deal, contract, declarer)
        sequence = random_cards(play, stop, data)
        before = snapshot(play)
        in_progress = play.current_trick
        assert in_progress is not None
        claimer = Seat((declarer + offset) % 4)
        tricks = data.draw(st.integers(0, play.remaining_tricks))
        claim = play.claim(claimer, tricks)
        for seat in sorted(claim.deciders):
            claim = play.accept_claim(seat)
        assert play.is_complete
        assert play.unfinished_trick == (in_progress if in_progress.cards else None)
        claimers_side = (
            play.declarer_tricks
            if claimer in (declarer, declarer.partner)
            else play.defender_tricks
        )
        taken = sum(1 for trick in play.tricks if trick.winner in (claimer, claimer.partner))
        assert claimers_side == taken + tricks
        assert play.declarer_tricks + play.defender_tricks == 13
        assert play.withdraw_concession() == claim
        assert snapshot(play) == before
        sequence += play_to_the_end(play, data)
        reference = Play.replay(deal, contract, declarer, sequence)
        assert snapshot(play) == snapshot(reference)
        winners = [trick.winner for trick in play.tricks]
        assert play.declarer_tricks == sum(1 for w in winners if w in (declarer, declarer.partner))
        assert play.defender_tricks == 13 - play.declarer_tricks


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


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), contracts, st.sampled_from(list(Seat)), st.integers(0, 51), st.data())
def test_a_copy_plays_on_alone(
    seed: int, contract: Contract, declarer: Seat, stop: int, data: st.DataObject
) -> None:
    play = Play(Deal.random(random.Random(seed)), contract, declarer)
    random_cards(play, stop, data)
    if data.draw(st.booleans()) and play.legal_cards():
        play.claim(play.acting_seat, play.remaining_tricks)
    before = snapshot(play)
    copied = play.copy()
    assert snapshot(copied) == before
    assert copied.last_played == play.last_played == (play.cards_played[-1] if stop else None)
    if copied.pending_claim is not None:
        copied.reject_claim(min(copied.pending_claim.deciders))
    play_to_the_end(copied, data)
    assert snapshot(play) == before  # the original did not move
    assert copied.is_complete

"""PbnPlay.from_play: the play section of a play that a claim or a ruling ended early."""

from __future__ import annotations

import pytest

from bridge import Card, Contract, Deal, Play, Seat, Trick
from bridge.pbn import NO_CARD, AnnotatedCard, PbnGame, PbnPlay, dump_game, parse_game

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
DEAL = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
CONTRACT = Contract.parse("3NT")


def claimed(sequence: str, tricks: int) -> Play:
    """3NT by North with ``sequence`` played, then declarer's claim, accepted."""
    play = Play.replay(DEAL, CONTRACT, N, sequence.split())
    play.claim(N, tricks)
    play.accept_claim(E)
    play.accept_claim(W)
    return play


def game_of(play: Play) -> PbnGame:
    return PbnGame(
        deal=DEAL,
        declarer=N,
        contract=CONTRACT,
        result=play.result,
        play=PbnPlay.from_play(play),
    )


class TestUnfinishedTrick:
    def test_claim_after_the_opening_lead(self) -> None:
        play = claimed("DK", 12)
        assert play.unfinished_trick == Trick(E, (Card.parse("DK"),), None)
        section = PbnPlay.from_play(play)
        assert section.leader is E
        assert section.tricks == ((AnnotatedCard(Card.parse("DK")), NO_CARD, NO_CARD, NO_CARD),)
        assert section.terminated
        text = dump_game(game_of(play))
        assert '[Play "E"]\nDK - - -\n*\n' in text
        read = parse_game(text)
        assert read.play == section
        assert read.result == 12
        replayed = read.build_play()
        assert replayed.cards_played == ((E, Card.parse("DK")),)
        assert replayed.current_trick == play.unfinished_trick

    def test_claim_in_a_later_trick(self) -> None:
        # E leads DK, N wins with the ace and leads the club two; then N claims.
        play = claimed("DK D5 D2 DA C2", 11)
        text = dump_game(game_of(play))
        # Columns run E S W N from the [Play] seat: N's lead of the second trick is column 4.
        assert '[Play "E"]\nDK D5 D2 DA\n- - - C2\n*\n' in text
        assert parse_game(text).build_play().cards_played == play.cards_played

    def test_ruling_in_the_middle_of_a_trick(self) -> None:
        play = Play.replay(DEAL, CONTRACT, N, ["DK", "D5", "D2"])
        play.rule(9)
        assert '[Play "E"]\nDK D5 D2 -\n*\n' in dump_game(game_of(play))

    @pytest.mark.parametrize(("sequence", "rows"), [("", 0), ("DK D5 D2 DA", 1)])
    def test_claim_between_tricks_writes_no_empty_row(self, sequence: str, rows: int) -> None:
        section = PbnPlay.from_play(claimed(sequence, 9))
        assert len(section.tricks) == rows
        assert section.terminated

    def test_a_withdrawn_concession_is_written_as_play_in_progress(self) -> None:
        play = claimed("DK", 12)
        play.withdraw_concession()
        assert PbnPlay.from_play(play) == PbnPlay.from_play(Play.replay(DEAL, CONTRACT, N, ["DK"]))

"""PBN reading and writing (bridge.pbn): real files, lenient reading, errors, writing."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from endplay.parsers import pbn as endplay_pbn
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import (
    BridgeError,
    Call,
    Card,
    Contract,
    Deal,
    IllegalCall,
    IllegalPlay,
    OutOfTurn,
    ParseError,
    Play,
    Seat,
    Strain,
    Vulnerability,
)
from bridge.auction import Auction
from bridge.pbn import (
    NO_CARD,
    AnnotatedCall,
    AnnotatedCard,
    PbnAuction,
    PbnGame,
    PbnPlay,
    PbnTag,
    dump_game,
    dump_games,
    parse_game,
    parse_games,
)
from tests.conftest import DATA_DIR

FILE_1998 = "pbn_1998_euro_youth_teams_ger_aut_r1.pbn"
FILE_2021 = "pbn_2021_online_qual_open_r2_realbridge.pbn"
PBN_FILES = {FILE_1998: 40, FILE_2021: 299}  # file -> number of games

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
DEAL = "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987"

# Fragments of PBN, good and broken, for the fuzz tests.
FUZZ_PIECES = [
    '[Board "1"]', '[Board "#"]', '[Dealer "N"]', '[Auction "N"]', '[Play "E"]', '[Play "W"]',
    '[Contract "4S"]', '[Contract "Pass"]', '[Declarer "N"]', '[Note "1: x"]', '[Note "2:  y "]',
    '[Note "z"]', '[Score "NS 420"]', '[ScoreIMP "EW 2.5"]', '[X "y"]', '[X "#"]', "1S =1= Pass",
    "AP", "*", "+", "SA S2 S3 S4", "- - H3 -", "{", "}", ";", "%", "", "[", '"', "1S!", "$1",
    "10", "#", "N NT  7", "=1=", "=2=", "=9=", f'[Deal "{DEAL}"]', "  x  ", "\\",
    '[E "a\\"b\\\\"]', "!?", "H10 d2", "xx", "?", "\r", "1NT? !", "SA! ?",
]  # fmt: skip


def read_data(name: str) -> str:
    """The text of a data file; fails (never skips) when it is missing."""
    path = DATA_DIR / name
    if not path.is_file():
        pytest.fail(
            f"PBN data file missing: {path}. The tests expect it in tests/data "
            "(see tests/data/SOURCES.md)."
        )
    return path.read_text(encoding="utf-8")


def cards(*texts: str) -> tuple[AnnotatedCard, AnnotatedCard, AnnotatedCard, AnnotatedCard]:
    a, b, c, d = (NO_CARD if text == "-" else AnnotatedCard(Card.parse(text)) for text in texts)
    return (a, b, c, d)


def calls(game: PbnGame) -> list[str]:
    assert game.auction is not None
    return [str(annotated.call) for annotated in game.auction.calls]


class TestRealFiles:
    def test_the_data_folder_holds_exactly_these_pbn_files(self) -> None:
        if not DATA_DIR.is_dir():
            pytest.fail(f"the tests' data folder is missing: {DATA_DIR}")
        assert sorted(path.name for path in DATA_DIR.glob("*.pbn")) == sorted(PBN_FILES)

    @pytest.mark.parametrize(("name", "count"), PBN_FILES.items())
    def test_read_write_read_gives_equal_games(self, name: str, count: int) -> None:
        games = parse_games(read_data(name))
        assert len(games) == count
        text = dump_games(games)
        again = parse_games(text)
        assert again == games
        assert dump_games(again) == text

    @pytest.mark.parametrize("name", PBN_FILES)
    def test_each_game_round_trips_alone(self, name: str) -> None:
        for game in parse_games(read_data(name)):
            assert parse_game(dump_game(game)) == game
            assert parse_game(game.to_pbn()) == game

    @pytest.mark.parametrize("name", PBN_FILES)
    def test_endplay_reads_the_same_from_the_file_and_from_our_output(self, name: str) -> None:
        """An independent reader agrees on deals, calls, alerts' notes and the play order."""

        def card_text(card: Any) -> str:  # an endplay Card
            return f"{card.suit.name[0].upper()}{card.rank.abbr}"

        text = read_data(name)
        ours = parse_games(text)
        theirs = endplay_pbn.loads(text)
        rewritten = endplay_pbn.loads(dump_games(ours))
        assert len(theirs) == len(rewritten) == len(ours)
        for game, original, again in zip(ours, theirs, rewritten, strict=True):
            assert game.deal is not None
            recorded_calls = () if game.auction is None else game.auction.calls
            for board in (original, again):
                assert Deal.from_pbn(board.deal.to_pbn()) == game.deal
                assert [str(bid) for bid in board.auction] == [str(bid) for bid in again.auction]
                assert [card_text(card) for card in board.play] == [
                    str(card) for card in game.played_cards()
                ]
                # endplay keeps a call's last note, the space after "N:" and "\\" escapes.
                assert [
                    None
                    if bid.announcement is None
                    else bid.announcement.replace("\\\\", "\\").removeprefix(" ")
                    for bid in board.auction
                ] == [call.notes[-1] if call.notes else None for call in recorded_calls]

    def test_a_note_keeps_its_escaped_backslash(self) -> None:
        r"""The 2021 file explains a call "2\3", written ``2\\3`` (an escaped backslash): read
        then written, the note line is the file's, and endplay reads the same from both."""
        text = read_data(FILE_2021)
        line = '[Note "3: 2\\\\3 usualy up to 15"]'
        assert line in text.splitlines()
        games = parse_games(text)
        [game] = [
            g
            for g in games
            if g.auction and any("2\\3 usualy up to 15" in c.notes for c in g.auction.calls)
        ]
        written = dump_game(game)
        assert line in written.splitlines()
        assert parse_game(written) == game
        theirs = [bid.announcement for bid in endplay_pbn.loads(text)[games.index(game)].auction]
        again = [bid.announcement for bid in endplay_pbn.loads(written)[0].auction]
        assert again == theirs

    def test_the_1998_file_inherits_values_with_hash(self) -> None:
        games = parse_games(read_data(FILE_1998))
        assert "#" in read_data(FILE_1998)
        first = games[0]
        assert first.event == "16th European Youth Team Championships"
        assert first.site == "Vienna, Austria AUT"
        for game in games:
            assert game.event == first.event
            assert game.site == first.site
            assert game.date == "1998.07.16"
            assert game.tag("HomeTeam") == "J-germany"
            assert game.tag("VisitTeam") == "J-austria"
            assert "#" not in dump_game(game)
        assert [game.tag("Room") for game in games[:2]] == ["Open", "Closed"]
        assert games[1].tag("Table") == "7"  # "#": as in the first game

    def test_the_2021_file_keeps_alert_notes_and_other_tags(self) -> None:
        games = parse_games(read_data(FILE_2021))
        game = games[1]
        assert game.board == 11
        assert game.scoring == "IMP"
        assert game.auction is not None
        first = game.auction.calls[0]
        assert str(first.call) == "1C"
        assert first.notes == ("11-13,17-19 or clubs",)
        assert game.auction.calls[2].notes == ("9-11, no 4cM",)
        assert [tag.name for tag in game.other_tags] == [
            "Table",
            "HomeTeam",
            "VisitTeam",
            "DoubleDummyTricks",
            "OptimumResultTable",
            "OptimumScore",
            "Competition",
        ]
        table = game.other_tags[4]
        assert table.value == "Declarer;Denomination\\2R;Result\\2R"
        assert len(table.section) == 20
        assert table.section[0] == "N NT  7"
        assert game.score == 120
        assert game.score_imp == 1
        # A claim: the play stops after West's lead to the eighth trick.
        assert game.play is not None
        assert game.play.terminated
        assert str(game.played_cards()[-1]) == "H3"
        assert len(game.played_cards()) == 29

    def test_wales_italy_placeholders_are_passed_out_without_auction(self) -> None:
        games = parse_games(read_data(FILE_2021))
        placeholders = [g for g in games if "WALES" in (g.tag("HomeTeam"), g.tag("VisitTeam"))]
        assert len(placeholders) == 20
        for game in placeholders:
            assert game.passed_out
            assert game.contract is None
            assert game.auction is None
            assert game.play is None
            assert game.score is None
            assert game.declarer is None
            assert game.result is None
            assert game.score_imp == 0


class TestLenientReading:
    def test_comments_of_every_kind(self) -> None:
        text = (
            "% PBN 2.1\n"
            "% EXPORT\n"
            "; a line comment\n"
            '[Event "Club; night"] ; the ; in the value is not a comment\n'
            "{ a comment\n"
            "\n"
            '  over several lines, with a blank one } [Board "7"] {inline}\n'
            '[Dealer "S"] {trailing}\n'
            '[Auction "S"]\n'
            "1S {why not} Pass ; end\n"
            "2S AP\n"
        )
        game = parse_game(text)
        assert game.event == "Club; night"
        assert game.board == 7
        assert game.dealer == S
        assert calls(game) == ["1S", "P", "2S", "P", "P", "P"]

    def test_blank_lines_separate_games_and_crlf_is_fine(self) -> None:
        text = '[Board "1"]\r\n\r\n\r\n[Board "2"]\r\n   \r\n[Board "3"]\r\n'
        assert [game.board for game in parse_games(text)] == [1, 2, 3]
        assert parse_games("") == []
        assert parse_games("% only a header\n\n; and a comment\n") == []

    def test_hash_copies_the_previous_games_value(self) -> None:
        text = (
            '[Event "Teams"]\n[Board "1"]\n[Room "Open"]\n\n'
            '[Event "#"]\n[Board "2"]\n[Room "#"]\n\n'
            '[Event "#"]\n[Board "#"]\n'
        )
        games = parse_games(text)
        assert [(g.event, g.board, g.tag("Room")) for g in games] == [
            ("Teams", 1, "Open"),
            ("Teams", 2, "Open"),
            ("Teams", 2, None),
        ]

    def test_hash_without_that_tag_in_the_previous_game_is_an_error(self) -> None:
        with pytest.raises(ParseError) as caught:
            parse_games('[Board "1"]\n\n[Board "2"]\n[Room "#"]\n')
        assert caught.value.line == 4
        with pytest.raises(ParseError) as caught:
            parse_games('[Board "#"]\n')
        assert caught.value.line == 1

    def test_all_pass(self) -> None:
        def auction(text: str) -> list[str]:
            return calls(parse_game(f'[Auction "N"]\n{text}\n'))

        assert auction("AP") == ["P", "P", "P", "P"]
        assert auction("Pass AP") == ["P", "P", "P", "P"]
        assert auction("1S ap") == ["1S", "P", "P", "P"]
        assert auction("1S X Pass AP") == ["1S", "X", "P", "P", "P"]

    def test_star_and_plus_end_the_auction(self) -> None:
        game = parse_game('[Auction "E"]\n1H Pass\n*\n')
        assert game.auction == PbnAuction(
            E, (AnnotatedCall(Call.parse("1H")), AnnotatedCall(Call.parse("P"))), terminated=True
        )
        assert dump_game(game).endswith('[Auction "E"]\n1H Pass\n*\n')
        game = parse_game('[Auction "E"]\n1H Pass 2H +\n')
        assert game.auction is not None
        assert game.auction.continues
        assert not game.auction.terminated
        assert calls(game) == ["1H", "P", "2H"]
        assert parse_game(dump_game(game)) == game

    def test_call_annotations_and_notes(self) -> None:
        game = parse_game(
            '[Auction "N"]\n'
            "1C! 1D? 1NT=2= $3 X !?\n"
            "2C =1= =2= Pass! $12 AP\n"
            '[Note "1: Stayman"]\n'
            '[Note "2: 15-17"]\n'
        )
        assert game.auction is not None
        one_club, one_diamond, one_notrump, double, two_clubs, pass_, *rest = game.auction.calls
        assert one_club == AnnotatedCall(Call.parse("1C"), alert=True)
        assert one_diamond.suffix == "?"
        assert not one_diamond.alert
        assert one_notrump == AnnotatedCall(Call.parse("1NT"), nags=(3,), notes=("15-17",))
        assert double.suffix == "!?"
        assert two_clubs.notes == ("Stayman", "15-17")
        assert pass_.alert
        assert pass_.nags == (12,)
        assert len(rest) == 2
        assert game.other_tags == ()  # the notes were taken by the calls
        assert parse_game(dump_game(game)) == game

    def test_alert_with_another_suffix_round_trips(self) -> None:
        annotated = AnnotatedCall(Call.parse("2D"), alert=True, suffix="?")
        game = PbnGame(auction=PbnAuction(N, (annotated,)))
        assert "2D! ?" in dump_game(game)
        assert parse_game(dump_game(game)) == game

    def test_notes_are_renumbered_in_order_and_unreferenced_notes_kept(self) -> None:
        game = parse_game(
            '[Auction "N"]\n'
            "1C =7= Pass 1D =3= Pass =7=\n"
            '[Note "3: relay"]\n'
            '[Note "7: artificial"]\n'
            '[Note "9: nobody refers to me"]\n'
            '[Play "E"]\n'
            "DK =1= D2 D3 D4\n"
            '[Note "1: from KQJ"]\n'
        )
        assert game.auction is not None
        assert game.play is not None
        assert game.auction.calls[0].notes == ("artificial",)
        assert game.auction.calls[2].notes == ("relay",)
        assert game.auction.calls[3].notes == ("artificial",)
        assert game.play.tricks[0][0].notes == ("from KQJ",)
        assert game.other_tags == (PbnTag("Note", "9: nobody refers to me"),)
        text = dump_game(game)
        assert "1C =1= Pass 1D =2= Pass =1=\n" in text
        assert '[Note "1: artificial"]\n[Note "2: relay"]\n[Play "E"]\nDK =3= D2 D3 D4\n' in text
        assert '[Note "3: from KQJ"]' in text
        assert parse_game(text) == game

    def test_a_note_without_a_number_is_kept_as_another_tag(self) -> None:
        game = parse_game('[Auction "N"]\nAP\n[Note "see the bulletin"]\n')
        assert game.other_tags == (PbnTag("Note", "see the bulletin"),)
        assert parse_game(dump_game(game)) == game

    def test_a_note_in_the_play_section_does_not_shadow_the_auctions(self) -> None:
        game = parse_game(
            '[Auction "N"]\n1C =1= AP\n[Note "1: strong"]\n'
            '[Play "E"]\nDK =1= D2 D3 D4\n[Note "1: top of a sequence"]\n'
        )
        assert game.auction is not None
        assert game.play is not None
        assert game.auction.calls[0].notes == ("strong",)
        assert game.play.tricks[0][0].notes == ("top of a sequence",)

    def test_lowercase_and_ten(self) -> None:
        game = parse_game(
            '[dealer "s"]\n[Vulnerable "both"]\n[Declarer "e"]\n[Contract "3nt"]\n'
            '[Deal "n:akq.akqj.a.65432 1098.1098.kqj109.ak 765.765.8765.qj10 j432.432.432.987"]\n'
            '[Auction "s"]\npass 1nt pass 3nt\npass pass pass\n'
            '[Play "s"]\nc10 s9 cq ca\n'
        )
        assert game.dealer == S
        assert game.vulnerability is Vulnerability.BOTH
        assert str(game.contract) == "3NT"
        assert game.declarer == E
        assert game.deal is not None
        assert Card.parse("ST") in game.deal[E]
        assert calls(game) == ["P", "1NT", "P", "3NT", "P", "P", "P"]
        assert [str(card) for card in game.played_cards()] == ["CT", "S9", "CQ", "CA"]

    def test_play_rows_with_dashes_stop_at_the_first_dash_in_playing_order(self) -> None:
        # West leads; the second trick is won by South (the 2 of spades is no trump here).
        game = parse_game('[Contract "4H"]\n[Declarer "N"]\n[Play "E"]\nD2 D3 DA DK\n- - H3 -\n')
        assert game.play is not None
        assert game.play.tricks[1] == cards("-", "-", "H3", "-")
        # Trick 1: E D2, S D3, W DA, N DK -> West wins and leads H3; North's "-" stops it.
        assert [str(c) for c in game.played_cards()] == ["D2", "D3", "DA", "DK", "H3"]
        assert game.play.terminated  # implied by the early stop, written as "*"
        assert dump_game(game).endswith("- - H3 -\n*\n")

    def test_the_trump_strain_decides_who_leads_next(self) -> None:
        game = parse_game('[Play "W"]\nSK S2 SA H3\nC2 C3 C4 C5\n')
        # In notrump East's SA wins, so East (column 2) leads C4; in hearts South ruffs
        # with H3 and leads C5.
        assert [str(c) for c in game.played_cards(Strain.NOTRUMP)][4:] == ["C4", "C5", "C2", "C3"]
        assert [str(c) for c in game.played_cards(Strain.HEARTS)][4:] == ["C5", "C2", "C3", "C4"]
        with pytest.raises(BridgeError):
            game.played_cards()  # no contract, so no trump strain

    def test_short_play_rows_are_padded_and_long_ones_split(self) -> None:
        game = parse_game('[Play "W"]\nSK S2\nC2 C3 C4 C5 D2 D3 D4 D5 H2\n*\n')
        assert game.play is not None
        assert game.play.tricks == (
            cards("SK", "S2", "-", "-"),
            cards("C2", "C3", "C4", "C5"),
            cards("D2", "D3", "D4", "D5"),
            cards("H2", "-", "-", "-"),
        )

    def test_card_annotations(self) -> None:
        game = parse_game('[Play "W"]\nSK! S2 =1= SA?? $4 S3\n[Note "1: suit preference"]\n')
        assert game.play is not None
        king, two, ace, three = game.play.tricks[0]
        assert king.suffix == "!"
        assert two.notes == ("suit preference",)
        assert ace.suffix == "??"
        assert ace.nags == (4,)
        assert three == AnnotatedCard(Card.parse("S3"))
        assert parse_game(dump_game(game)) == game

    def test_several_tags_on_a_line_and_section_text_on_the_tag_line(self) -> None:
        game = parse_game('[Board "5" ] [ Dealer"N"][Auction "N"] 1S Pass\n2S AP\n')
        assert game.board == 5
        assert game.dealer == N
        assert calls(game) == ["1S", "P", "2S", "P", "P", "P"]

    def test_escaped_quotes_and_backslashes(self) -> None:
        game = parse_game(r'[Event "the \"big\" one"]' + "\n" + r'[Site "C:\\Bridge\\"]' + "\n")
        assert game.event == 'the "big" one'
        assert game.site == "C:\\Bridge\\"
        assert parse_game(dump_game(game)) == game
        odd = PbnGame(event='a\\"b\\', site="x\\2R\\\\y", other_tags=(PbnTag("X", "\\"),))
        assert parse_game(dump_game(odd)) == odd
        assert dump_game(odd).splitlines()[:2] == [r'[Event "a\\\"b\\"]', r'[Site "x\\2R\\\\y"]']

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("NS 120", 120),
            ("EW -50", 50),
            ("EW 50", -50),
            ("-110", -110),
            ("NS 620 EW -620", 620),
            ("NS 0 EW -0", 0),
            ("ew 100 ns -100", -100),
        ],
    )
    def test_score_forms(self, text: str, expected: int) -> None:
        assert parse_game(f'[Score "{text}"]\n').score == expected

    @pytest.mark.parametrize(
        ("text", "expected"),
        [("NS 4 EW -4", 4), ("EW 3 NS -3", -3), ("NS -7", -7), ("NS 2.5 EW -2.5", 2.5), ("0", 0)],
    )
    def test_score_imp_forms(self, text: str, expected: float) -> None:
        game = parse_game(f'[ScoreIMP "{text}"]\n')
        assert game.score_imp == expected
        assert parse_game(dump_game(game)) == game

    @pytest.mark.parametrize(
        ("text", "expected"),
        [("None", Vulnerability.NONE), ("Love", Vulnerability.NONE), ("-", Vulnerability.NONE),
         ("NS", Vulnerability.NS), ("EW", Vulnerability.EW), ("All", Vulnerability.BOTH),
         ("Both", Vulnerability.BOTH)],
    )  # fmt: skip
    def test_vulnerability_spellings(self, text: str, expected: Vulnerability) -> None:
        assert parse_game(f'[Vulnerable "{text}"]\n').vulnerability is expected

    def test_empty_and_unknown_values_read_as_none(self) -> None:
        game = parse_game(
            '[Board "?"]\n[Dealer ""]\n[Declarer "?"]\n[Contract ""]\n[Result ""]\n'
            '[Deal ""]\n[Score "?"]\n[Event ""]\n[Auction ""]\n[Play "?"]\n'
        )
        assert game == PbnGame()

    def test_passed_out(self) -> None:
        game = parse_game('[Declarer ""]\n[Contract "Pass"]\n[Result ""]\n[Auction "W"]\nAP\n')
        assert game.passed_out
        assert game.contract is None
        assert game.declarer is None
        assert game.build_auction().is_passed_out
        assert game.tag("Contract") == "Pass"

    def test_other_tags_are_kept_verbatim_in_order_after_score_imp(self) -> None:
        text = (
            '[Zeta "1"]\n'
            '[BidSystemEW "Acol"]\n'
            '[ScoreTable "Round;Score\\5R"]\n'
            "1    120\n"
            "  2   -50\n"
            '[Board "3"]\n'
            '[ScoreIMP "NS 2 EW -2"]\n'
            '[Score "NS 120"]\n'
        )
        game = parse_game(text)
        assert game.other_tags == (
            PbnTag("Zeta", "1"),
            PbnTag("BidSystemEW", "Acol"),
            PbnTag("ScoreTable", "Round;Score\\5R", ("1    120", "  2   -50")),
        )
        names = re.findall(r"^\[(\w+)", dump_game(game), re.MULTILINE)
        assert names[-5:] == ["Score", "ScoreIMP", "Zeta", "BidSystemEW", "ScoreTable"]
        assert '[ScoreTable "Round;Score\\5R"]\n1    120\n  2   -50\n' in dump_game(game)
        assert parse_game(dump_game(game)) == game


def error_line(text: str) -> tuple[int | None, str]:
    with pytest.raises(ParseError) as caught:
        parse_games(text)
    return caught.value.line, str(caught.value)


class TestParseErrors:
    @pytest.mark.parametrize(
        ("text", "line", "words"),
        [
            ('[Board "1"]\n[Event "no end\n', 2, "unterminated value"),
            ('[Board "1"]\n\n[Event "x"\n', 3, "no closing ']'"),
            ('[Board "1"]\n[Event\n', 2, "unterminated tag"),
            ('[Board "1"]\n[Board 2]\n', 2, "bad tag syntax"),
            ('[Board "1"]\n[Bo-ard "2"]\n', 2, "bad tag syntax"),
            ("just text\n", 1, "text before any tag"),
            ('[Board "1"]\n\n1S Pass\n', 3, "text before any tag"),
            ('[Board "1"]\n2\n', 2, "unexpected text after [Board]"),
            ('[Board "1"]\n[Room "Open"]%x\n', 2, "cannot start with '%'"),
            ('[Board "1"]\n[Board "2"]\n', 2, "appears twice"),
            ('[Board "x1"]\n', 1, "[Board]"),
            ('[Board "0"]\n', 1, "[Board]"),
            ('\n\n[Dealer "Q"]\n', 3, "[Dealer]"),
            ('[Vulnerable "Some"]\n', 1, "[Vulnerable]"),
            (
                '[Board "1"]\n[Deal "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT"]\n',
                2,
                "[Deal]",
            ),
            (
                '[Deal "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.98A"]\n',
                1,
                "[Deal]",
            ),
            ('[Contract "8S"]\n', 1, "[Contract]"),
            ('[Declarer "Z"]\n', 1, "[Declarer]"),
            ('[Result "14"]\n', 1, "[Result]"),
            ('[Score "NS lots"]\n', 1, "[Score]"),
            ('[Score "NS 100 200"]\n', 1, "[Score]"),
            ('[Score "NS 100 EW 100"]\n', 1, "[Score]"),
            ('[Score "NS 2.5"]\n', 1, "[Score]"),
            ('[ScoreIMP "NS 3 EW -4"]\n', 1, "[ScoreIMP]"),
            ('[Auction "X"]\n', 1, "[Auction]"),
            ('[Auction "N"]\n1S Pass\n2Z Pass\n', 3, "not a call: '2Z'"),
            ('[Auction "N"]\n1S Pass - Pass\n', 2, "not a call: '-'"),
            ('[Auction "N"]\n1S 8C\n', 2, "not a call: '8C'"),
            ('[Auction "N"]\n1C=x= Pass\n', 2, "annotation"),
            ('[Auction "N"]\n=1= 1C\n[Note "1: x"]\n', 2, "annotation before any call"),
            ('[Auction "N"]\n1C =2= AP\n[Note "1: x"]\n', 2, "=2= refers to no"),
            ('[Auction "N"]\n1C? ?? AP\n', 2, "two suffix"),
            ('[Auction "N"]\n1C *\nPass\n', 3, "after the '*'"),
            ('[Auction "N"]\n1C +\nPass\n', 3, "after the '+'"),
            ('[Play "W"]\nSK S2 SA S3\nSZ\n', 3, "not a card: 'SZ'"),
            ('[Play "W"]\nSK S2 SA 10\n', 2, "not a card: '10'"),
            ('[Play "W"]\n*\nS2\n', 3, "after the '*'"),
            ('[Play "W"]\nSK S2\nSA! ?\n', 3, "two suffix"),
            ('[Play "W"]\n' + "S2 S3 S4 S5\n" * 13 + "H2\n", 15, "more than 13 tricks"),
            ('[Board "1"]\n{ never closed\n\n[Board "2"]\n', 2, "unterminated { comment"),
        ],
    )
    def test_broken_text_raises_with_the_line(self, text: str, line: int, words: str) -> None:
        found_line, message = error_line(text)
        assert found_line == line, message
        assert words in message
        assert message.startswith(f"line {line}: ")

    def test_parse_error_is_a_bridge_error_and_a_value_error(self) -> None:
        with pytest.raises(ValueError, match="unterminated"):
            parse_games('[Board "1')
        assert issubclass(ParseError, BridgeError)

    def test_parse_game_needs_exactly_one_game(self) -> None:
        with pytest.raises(ParseError, match="found 2"):
            parse_game('[Board "1"]\n\n[Board "2"]\n')
        with pytest.raises(ParseError, match="found 0"):
            parse_game("")

    @settings(max_examples=400, deadline=None)
    @given(
        st.lists(
            st.tuples(st.sampled_from(FUZZ_PIECES), st.sampled_from(["\n", " ", ""])),
            max_size=20,
        )
    )
    def test_any_text_parses_or_raises_parse_error_and_what_parses_round_trips(
        self, pieces: list[tuple[str, str]]
    ) -> None:
        text = "".join(piece + separator for piece, separator in pieces)
        try:
            games = parse_games(text)
        except ParseError:
            with pytest.raises(ParseError) as caught:
                parse_games(text)
            assert caught.value.line is not None
            return
        written = dump_games(games)
        assert parse_games(written) == games
        assert dump_games(parse_games(written)) == written

    @settings(max_examples=200, deadline=None)
    @given(st.text(max_size=200))
    def test_arbitrary_text_parses_or_raises_parse_error(self, text: str) -> None:
        try:
            games = parse_games(text)
        except ParseError:
            return
        assert parse_games(dump_games(games)) == games


class TestBuildingLibraryObjects:
    def game(
        self, auction: str, play: str = "", declarer: str = "N", contract: str = "3NT"
    ) -> PbnGame:
        return parse_game(
            f'[Dealer "N"]\n[Deal "{DEAL}"]\n[Declarer "{declarer}"]\n[Contract "{contract}"]\n'
            f'[Auction "N"]\n{auction}\n'
            + (f'[Play "{Seat.parse(declarer).lho}"]\n{play}\n' if play else "")
        )

    def test_auction_and_play_replay(self) -> None:
        game = self.game("2C Pass 2D Pass\n3NT AP", "DK D8 D2 DA\nS8 S5 S2 SA")
        auction = game.build_auction()
        assert auction.contract == game.contract
        assert auction.declarer == game.declarer
        play = game.build_play()
        assert len(play.tricks) == 2
        assert play.declarer_tricks == 2
        assert play.turn == N

    def test_an_illegal_call_raises_illegal_call(self) -> None:
        with pytest.raises(IllegalCall, match="insufficient"):
            self.game("2C 1S").build_auction()

    def test_a_revoke_raises_illegal_play(self) -> None:
        with pytest.raises(IllegalPlay, match="follow suit"):
            self.game("3NT AP", "DK H7 D2 DA").build_play()

    def test_the_play_must_start_with_the_opening_leader(self) -> None:
        game = parse_game(
            f'[Deal "{DEAL}"]\n[Declarer "N"]\n[Contract "3NT"]\n[Play "W"]\nS2 S4 S3 S5\n'
        )
        with pytest.raises(OutOfTurn):
            game.build_play()

    def test_the_auction_must_start_with_the_dealer(self) -> None:
        with pytest.raises(OutOfTurn):
            parse_game('[Dealer "E"]\n[Auction "N"]\nAP\n').build_auction()

    def test_what_cannot_be_built(self) -> None:
        passed = parse_game('[Contract "Pass"]\n[Auction "N"]\nAP\n')
        with pytest.raises(BridgeError, match="passed out"):
            passed.build_play()
        with pytest.raises(BridgeError, match="no auction"):
            PbnGame().build_auction()
        with pytest.raises(BridgeError, match="no deal"):
            PbnGame(contract=Contract.parse("1S"), declarer=N).build_play()
        with pytest.raises(BridgeError, match="no declarer"):
            PbnGame(contract=Contract.parse("1S"), deal=Deal.from_pbn(DEAL)).build_play()

    def test_a_game_without_play_section_builds_a_play_at_the_opening_lead(self) -> None:
        game = PbnGame(contract=Contract.parse("1S"), declarer=S, deal=Deal.from_pbn(DEAL))
        play = game.build_play()
        assert play.turn == W
        assert play.cards_played == ()


class TestWriting:
    def test_a_board_built_from_scratch_reads_back_equal(self) -> None:
        rng = random.Random(20240607)
        deal = Deal.random(rng)
        auction = Auction(E)
        for text in ["1NT", "Pass", "2C", "Pass", "2S", "Pass", "4S", "X", "Pass", "Pass", "Pass"]:
            auction.call(Call.parse(text))
        assert auction.contract is not None
        assert auction.declarer is not None
        play = Play(deal, auction.contract, auction.declarer)
        for _ in range(4 * 5 + 2):  # five tricks and two cards, then a claim
            play.play(rng.choice(play.legal_cards()))
        recorded = PbnAuction.from_auction(auction)
        calls_with_notes = list(recorded.calls)
        calls_with_notes[2] = AnnotatedCall(Call.parse("2C"), alert=True, notes=("Stayman",))
        game = PbnGame(
            event="Club night",
            date="2024.06.07",
            board=2,
            west="Wendy",
            north="Nick",
            east="Eve",
            south="Sam",
            dealer=E,
            vulnerability=Vulnerability.NS,
            deal=deal,
            deal_first=E,
            scoring="IMP",
            declarer=auction.declarer,
            contract=auction.contract,
            result=8,
            auction=PbnAuction(E, tuple(calls_with_notes)),
            play=PbnPlay.from_play(play),
            score=-300,
            score_imp=-7,
            other_tags=(PbnTag("Room", "Open"), PbnTag("ScoreTable", "Pair;Score", ("1 -300",))),
        )
        text = dump_game(game)
        assert parse_game(text) == game
        assert parse_games(dump_games([game, game])) == [game, game]
        names = re.findall(r"^\[(\w+)", text, re.MULTILINE)
        assert names == [
            "Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer",
            "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result", "Auction", "Note",
            "Play", "Score", "ScoreIMP", "Room", "ScoreTable",
        ]  # fmt: skip
        assert f'[Deal "{deal.to_pbn(E)}"]' in text
        assert '[Auction "E"]\n1NT Pass 2C! =1= Pass\n2S Pass 4S X\nPass Pass Pass\n' in text
        assert '[Note "1: Stayman"]' in text
        assert '[Contract "4SX"]' in text
        assert '[Score "NS -300"]' in text
        assert '[ScoreIMP "NS -7 EW 7"]' in text
        play_lines = text.split('[Play "')[1].split("\n")[1:8]
        assert all(len(line.split()) == 4 for line in play_lines[:6])
        assert play_lines[6] == "*"
        read = parse_game(text)
        replayed = read.build_play()
        assert replayed.tricks == play.tricks
        assert replayed.current_trick == play.current_trick

    def test_play_from_a_complete_play_has_no_star(self) -> None:
        deal = Deal.from_pbn(DEAL)
        play = Play(deal, Contract.parse("7NT"), N)
        rng = random.Random(3)
        while not play.is_complete:
            play.play(rng.choice(play.legal_cards()))
        section = PbnPlay.from_play(play)
        assert section.is_complete
        assert not section.terminated
        game = PbnGame(deal=deal, declarer=N, contract=Contract.parse("7NT"), play=section)
        assert not dump_game(game).rstrip().endswith("*")
        assert parse_game(dump_game(game)).build_play().tricks == play.tricks
        assert [card for _, card in play.cards_played] == list(game.played_cards())

    def test_an_empty_game_writes_the_mandatory_tags(self) -> None:
        assert dump_game(PbnGame()).count('""') == 14
        assert parse_game(dump_game(PbnGame())) == PbnGame()
        assert dump_games([]) == "% PBN 2.1\n% EXPORT\n"

    def test_invalid_values_are_refused(self) -> None:
        with pytest.raises(BridgeError):
            PbnTag("Bad Name", "x")
        with pytest.raises(BridgeError):
            PbnTag("X", "two\nlines")
        with pytest.raises(BridgeError):
            PbnTag("X", "y", ("[not a line]",))
        with pytest.raises(BridgeError):
            PbnTag("X", "y", ("%escape",))
        with pytest.raises(BridgeError):
            PbnGame(other_tags=(PbnTag("Board", "1"),))
        with pytest.raises(BridgeError):
            PbnGame(contract=Contract.parse("1S"), passed_out=True)
        with pytest.raises(BridgeError):
            PbnGame(result=14)
        with pytest.raises(BridgeError):
            AnnotatedCall(Call.parse("1S"), suffix="!")
        with pytest.raises(BridgeError):
            AnnotatedCard(None, suffix="x")
        with pytest.raises(BridgeError):
            AnnotatedCall(Call.parse("1S"), notes=("two\nlines",))
        with pytest.raises(BridgeError):
            PbnGame(event="two\nlines")
        with pytest.raises(BridgeError):
            PbnPlay(W, (cards("SA", "S2", "S3", "S4"),) * 14)

    def test_player_names(self) -> None:
        game = PbnGame(north="Nick", east="Eve", south="Sam", west="Wendy")
        assert [game.player(seat) for seat in Seat] == ["Nick", "Eve", "Sam", "Wendy"]

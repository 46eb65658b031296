"""LIN reading and writing (bridge.lin): a real vugraph match, hand-viewer lines, errors, writing."""

from __future__ import annotations

import contextlib
import random
import re
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import pytest
from endplay.config import suppress_unicode
from endplay.parsers import lin as endplay_lin
from endplay.utils.escape import unescape_suits
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import (
    DOUBLE,
    PASS,
    REDOUBLE,
    Auction,
    BridgeError,
    Call,
    Card,
    Contract,
    Deal,
    IllegalCall,
    IllegalPlay,
    ParseError,
    Play,
    Seat,
    Strain,
    Vulnerability,
    WrongPhase,
    board_dealer,
    board_vulnerability,
    imps,
    score,
)
from bridge.lin import (
    HANDVIEWER_URL,
    LinBoard,
    LinCall,
    LinComment,
    LinError,
    LinMatch,
    LinResult,
    Room,
    dump_lin,
    dump_lin_lines,
    dump_lin_match,
    handviewer_url,
    parse_handviewer_url,
    parse_lin,
    parse_lin_match,
)
from tests.conftest import DATA_DIR

USBF = "lin_2010_usbf_sf_nickell_fleisher_seg4.lin"
N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

# Board 47 of the USBF file, dealer South: the auction ends in 3NT by West, North leads.
MD = "md|1S9642H765DJTCQJ93,SK3HKQ8DKQ972CA84,SQJTHA432D8643CK2,SA875HJT9DA5CT765|"
MD_THREE_HANDS = "md|1S9642H765DJTCQJ93,SK3HKQ8DKQ972CA84,SQJTHA432D8643CK2,|"
AUCTION = "mb|p|mb|1D|mb|p|mb|1S|mb|p|mb|2N!|an|18-19|mb|p|mb|3N|mb|p|mb|p|mb|p|"
TRICK_1 = "pc|sQ|pc|s5|pc|s2|pc|sK|"  # North's lead, won by West's king
BOARD_47 = f"pn|S,W,N,E|st||{MD}rh||ah|Board 47|sv|n|{AUCTION}pg||{TRICK_1}pg||mc|10|pg||"

# IMPs of each board for NICKELL (N-S in the open room), worked out from the rs line and
# checked by hand on boards 48, 52, 53 and 55 (TestRealMatch.test_boards_checked_by_hand).
USBF_IMPS = {
    46: 0, 47: 0, 48: -7, 49: 1, 50: 0, 51: 0, 52: -12, 53: 15,
    54: 1, 55: -12, 56: -5, 57: 2, 58: 6, 59: 5, 60: -5,
}  # fmt: skip
# The segment as the USBF Daily Bulletin (vol. 4 no. 10, 26 June 2010) scored it: in the
# "46-60" column of the semi-final, NICKELL 30, FLEISHER 41 (after 20+26+34 and 21+40+38,
# the vg carry-overs 80 and 99).
USBF_SEGMENT = (30, 41)


def read_data(name: str) -> str:
    """The text of a data file; fails (never skips) when it is missing."""
    path = DATA_DIR / name
    if not path.is_file():
        pytest.fail(f"LIN data file missing: {path} (see tests/data/SOURCES.md)")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def usbf_text() -> str:
    return read_data(USBF)


@pytest.fixture(scope="module")
def usbf(usbf_text: str) -> LinMatch:
    return parse_lin_match(usbf_text)


def blocks(text: str) -> list[str]:
    """The raw ``qx`` blocks of a vugraph file, one line each (line breaks deleted)."""
    flat = text.replace("\r", "").replace("\n", "")
    return ["qx|" + block for block in flat.split("qx|")[1:]]


def one(text: str) -> LinBoard:
    boards = parse_lin(text)
    assert len(boards) == 1
    return boards[0]


class TestRealMatch:
    def test_the_header(self, usbf: LinMatch) -> None:
        assert usbf.event == "2010 USBF SF A"
        assert usbf.segment == "Segment 4 of 8"
        assert usbf.scoring == "I"
        assert (usbf.first_board, usbf.last_board) == (46, 60)
        assert usbf.teams == ("Nickell", "Fleisher")
        assert usbf.carry_over == (80, 99)
        assert len(usbf.results) == 30
        assert usbf.results[:4] == ("4HE=", "4HE=", "3NW+1", "3NW+1")

    def test_every_table_of_both_rooms_parses(self, usbf: LinMatch, usbf_text: str) -> None:
        assert parse_lin(usbf_text) == list(usbf.boards)
        assert [(board.room, board.number) for board in usbf.boards] == [
            (room, number) for number in range(46, 61) for room in (Room.OPEN, Room.CLOSED)
        ]
        for board in usbf.boards:
            assert board.number is not None
            assert board.dealer == board_dealer(board.number)
            assert board.vulnerability == board_vulnerability(board.number)
            if board.room is Room.OPEN:
                names = ("Rodwell", "Weinstein", "Meckstroth", "Levin")
            else:
                names = ("Martel", "Mahmood", "Stansby", "Hamman")
            assert tuple(board.player(seat) for seat in Seat) == names
        for open_room, closed_room in zip(usbf.boards[::2], usbf.boards[1::2], strict=True):
            assert open_room.deal == closed_room.deal

    def test_every_call_and_card_of_the_file_is_read(self, usbf: LinMatch, usbf_text: str) -> None:
        raw = blocks(usbf_text)
        assert len(raw) == 30
        for block, board in zip(raw, usbf.boards, strict=True):
            assert len(board.calls) == len(re.findall(r"(?:^|\|)mb\|", block))
            assert len(board.cards) == len(re.findall(r"(?:^|\|)pc\|", block))
            claims = re.findall(r"(?:^|\|)mc\|([0-9]+)\|", block)
            assert board.claim == int(claims[-1])
        assert sum(len(board.cards) for board in usbf.boards) == 732

    def test_the_deal_of_board_46(self, usbf: LinMatch) -> None:
        deal = usbf.boards[0].deal
        assert deal.to_pbn(Seat.SOUTH) == (
            "S:J5.9.AT862.Q8752 KQT94.AK73.Q4.93 872.QT5.J97.AT64 A63.J8642.K53.KJ"
        )

    def test_auctions_replay_to_the_contract_and_declarer_of_rs(self, usbf: LinMatch) -> None:
        for board, entry in zip(usbf.boards, usbf.results, strict=True):
            expected = LinResult.parse(entry)
            auction = Auction.replay(board.dealer, [call.call for call in board.calls])
            assert auction.is_complete
            assert (auction.contract, auction.declarer) == (expected.contract, expected.declarer)
            assert (board.contract, board.declarer) == (expected.contract, expected.declarer)
            assert board.build_auction().calls == auction.calls

    def test_every_play_is_legal_and_the_claim_gives_the_tricks_of_rs(self, usbf: LinMatch) -> None:
        for board, entry in zip(usbf.boards, usbf.results, strict=True):
            assert board.contract is not None
            assert board.declarer is not None
            play = Play.replay(board.deal, board.contract, board.declarer, board.cards)
            assert not play.is_complete  # every table of this segment ended in a claim
            assert board.claim is not None
            claim = play.claim(board.declarer, board.claim - play.declarer_tricks)
            for seat in claim.deciders:
                play.accept_claim(seat)
            assert play.declarer_tricks == LinResult.parse(entry).tricks
            assert board.result == play.declarer_tricks
            assert board.build_play().declarer_tricks == play.declarer_tricks

    def test_scores_are_consistent_with_rs(self, usbf: LinMatch) -> None:
        assert usbf.computed_results() == usbf.results
        for board, entry in zip(usbf.boards, usbf.results, strict=True):
            assert str(board.table_result) == entry
            expected = LinResult.parse(entry).score(board.vulnerability)
            assert board.score == expected
            assert board.score == score(
                board.contract, board.declarer, board.vulnerability, board.result or 0
            )

    @pytest.mark.parametrize(
        ("number", "open_score", "closed_score", "swing"),
        [
            (48, 130, 400, -7),  # 4D= N-S against 3NT= N-S, E-W vulnerable
            (52, -620, 100, -12),  # 4H= by West vulnerable against 4H-1
            (53, 800, -300, 15),  # 4SX-4 by West not vulnerable against 3NT-3 vulnerable
            (55, -500, 200, -12),  # 5DX-2 vulnerable against 4H-2 vulnerable
        ],
    )
    def test_boards_checked_by_hand(
        self, usbf: LinMatch, number: int, open_score: int, closed_score: int, swing: int
    ) -> None:
        tables = {board.room: board for board in usbf.boards if board.number == number}
        assert tables[Room.OPEN].score == open_score
        assert tables[Room.CLOSED].score == closed_score
        assert imps(open_score - closed_score) == swing
        assert usbf.imps_by_board()[number] == swing

    def test_imps_of_each_board_and_the_segment(self, usbf: LinMatch) -> None:
        by_board = usbf.imps_by_board()
        assert by_board == USBF_IMPS
        nickell = sum(swing for swing in by_board.values() if swing > 0)
        fleisher = -sum(swing for swing in by_board.values() if swing < 0)
        assert (nickell, fleisher) == USBF_SEGMENT
        # After the segment: 110 to 140, as the bulletin's running columns give.
        assert (usbf.carry_over[0] + nickell, usbf.carry_over[1] + fleisher) == (110, 140)

    def test_alerts_and_explanations(self, usbf: LinMatch) -> None:
        first = usbf.boards[0].calls
        assert first[2] == LinCall(Call.parse("3C"), alert=True, explanation="jacoby 2N")
        calls = [call for board in usbf.boards for call in board.calls]
        assert sum(call.alert for call in calls) == 20
        explained = [call.explanation for call in calls if call.explanation]
        assert len(explained) == 16
        assert "5!s-4!h" in explained  # BBO's suit markup is kept verbatim
        unalerted = [call for call in calls if call.explanation and not call.alert]
        assert LinCall(Call.parse("3D"), explanation="with values") in unalerted
        alerted_pass = [call for call in calls if call.call == PASS and call.alert]
        assert len(alerted_pass) == 1

    def test_commentary_is_kept_in_its_place(self, usbf: LinMatch, usbf_text: str) -> None:
        flat = usbf_text.replace("\n", "")
        every = re.findall(r"(?:^|\|)nt\|([^|]*)\|", flat)
        assert len(every) == 549
        assert [comment.text for board in usbf.boards for comment in board.commentary] == every
        assert not any("jlall" in call.explanation for board in usbf.boards for call in board.calls)
        # The closed room of board 46 opens with commentary before any call; then a comment
        # after its first call, and one after the opening lead (the auction's 12 calls).
        assert "|sv|o|nt|jlall: hi all|" in usbf_text
        closed = usbf.boards[1]
        assert closed.commentary[:3] == (
            LinComment(0, "jlall: hi all"),
            LinComment(0, "Vugraphzfc: Players are discussing systems"),
            LinComment(1, "bbramley: hello everybody"),
        )
        assert LinComment(13, "jlall: should be an easy 10 tricks") in closed.commentary
        # Without its commentary, the match is the same but for the commentary.
        stripped, removed = re.subn(r"(^|\|)nt\|[^|]*\|", r"\1", usbf_text, flags=re.MULTILINE)
        assert removed == 549
        assert parse_lin_match(stripped) == replace(
            usbf, boards=tuple(replace(board, commentary=()) for board in usbf.boards)
        )

    def test_agrees_with_endplay(self, usbf: LinMatch, usbf_text: str) -> None:
        # endplay reads a board from each "pn|" on, and trips on commentary before any call.
        denoms = {"nt": Strain.NOTRUMP} | {s.name.lower(): s for s in Strain}
        vulnerabilities = {"none": "NONE", "ns": "NS", "ew": "EW", "both": "BOTH"}
        for block, board in zip(blocks(usbf_text), usbf.boards, strict=True):
            theirs: Any = endplay_lin.loads("pn|,,,|" + re.sub(r"nt\|[^|]*\|", "", block))[0]
            assert theirs.deal.to_pbn() == board.deal.to_pbn()
            assert int(theirs.dealer) == board.dealer
            assert vulnerabilities[theirs.vul.name] == board.vulnerability.name
            with suppress_unicode():
                their_calls = [str(bid).rstrip("!*") for bid in theirs.auction]
                their_cards = [str(card) for card in theirs.play]
            assert their_calls == [str(call.call) for call in board.calls]
            assert [bid.alertable for bid in theirs.auction] == [c.alert for c in board.calls]
            # endplay turns BBO's suit markup (!s) into symbols; this module keeps it.
            assert [bid.announcement or "" for bid in theirs.auction] == [
                unescape_suits(c.explanation) for c in board.calls
            ]
            assert their_cards == [str(card) for card in board.cards]
            contract = theirs.contract
            assert board.contract is not None
            assert contract.level == board.contract.level
            assert denoms[contract.denom.name] == board.contract.strain
            assert {1: 0, 2: 1, 4: 2}[int(contract.penalty)] == board.contract.doubled
            assert int(contract.declarer) == board.declarer
            assert contract.result == (board.result or 0) - board.contract.tricks_needed

    def test_the_match_round_trips(self, usbf: LinMatch) -> None:
        written = dump_lin_match(usbf)
        assert parse_lin_match(written) == usbf
        assert dump_lin_match(parse_lin_match(written)) == written
        assert written.count("pn|") == 1  # the players never changed

    def test_read_then_written_the_file_keeps_what_it_said(
        self, usbf: LinMatch, usbf_text: str
    ) -> None:
        """The vg header and the rs results verbatim (rs in the file's order: each board's
        open then closed room), every nt comment, and alerts as they were: an alert without
        an explanation stays a bare ``!`` (no ``an``)."""
        written = dump_lin_match(usbf)
        assert written.splitlines()[:2] == usbf_text.splitlines()[:2]
        assert written.startswith(
            "vg|2010 USBF SF A,Segment 4 of 8,I,46,60,Nickell,80,Fleisher,99|\n"
        )

        def tags(text: str, key: str) -> list[str]:
            return re.findall(rf"(?:^|\|){key}\|([^|]*)\|", text.replace("\n", ""))

        for key in ("nt", "an", "mb", "mc", "rs", "vg"):
            assert tags(written, key) == tags(usbf_text, key), key
        assert "mb|2S!|mb|p|mb|2N!|" in written.replace("\n", "")
        assert "alerted" not in written

    def test_the_match_round_trips_as_hand_viewer_lines(self, usbf: LinMatch) -> None:
        written = dump_lin_lines(usbf)
        lines = written.splitlines()
        assert len(lines) == 2 + len(usbf.boards)  # vg, rs, then one line per table
        assert lines[0].startswith("vg|2010 USBF SF A,")
        assert all(line.startswith(("qx|o", "qx|c")) for line in lines[2:])
        assert [parse_lin(line)[0] for line in lines[2:]] == list(usbf.boards)
        assert parse_lin_match(written) == usbf

    def test_each_table_round_trips_as_a_hand_viewer_line_and_url(self, usbf: LinMatch) -> None:
        for board in usbf.boards:
            line = dump_lin(board)
            assert "\n" not in line
            assert parse_lin(line) == [board]
            assert parse_handviewer_url(handviewer_url(board)) == board


class TestReading:
    def test_a_hand_viewer_line(self) -> None:
        board = one(BOARD_47)
        assert (board.number, board.room, board.dealer) == (47, None, S)
        assert board.vulnerability == Vulnerability.NS
        assert (board.south, board.west, board.north, board.east) == ("S", "W", "N", "E")
        assert (str(board.contract), board.declarer) == ("3NT", W)
        assert board.calls[5] == LinCall(Call.parse("2NT"), alert=True, explanation="18-19")
        assert [str(card) for card in board.cards] == ["SQ", "S5", "S2", "SK"]
        assert (board.claim, board.result, board.score) == (10, 10, -430)
        assert str(board.table_result) == "3NW+1"

    @pytest.mark.parametrize(
        "md", [MD_THREE_HANDS, MD_THREE_HANDS.replace(",|", "|"), MD_THREE_HANDS.lower()]
    )
    def test_the_fourth_hand_is_what_the_other_three_do_not_hold(self, md: str) -> None:
        assert one(md).deal == one(MD).deal
        assert Card.parse("SA") in one(md).deal[E]

    def test_any_hand_may_be_the_one_left_out(self) -> None:
        hands = MD[len("md|1") : -1].split(",")
        assert len(hands) == 4
        for missing in range(4):
            parts = [hand if i != missing else "" for i, hand in enumerate(hands)]
            assert one(f"md|1{','.join(parts)}|").deal == one(MD).deal

    @pytest.mark.parametrize(
        ("texts", "call"),
        [
            (["p", "P", "pass", "p "], PASS),
            (["d", "D", "x", "X", "dbl"], DOUBLE),
            (["r", "R", "xx", "XX", "rdbl"], REDOUBLE),
            (["1n", "1N", "1NT", "1nt"], Call.parse("1NT")),
            (["3c", "3C"], Call.parse("3C")),
        ],
    )
    def test_calls_are_read_leniently(self, texts: list[str], call: Call) -> None:
        for text in texts:
            prefix = "mb|1S|" if call in (DOUBLE, REDOUBLE) else ""
            extra = "mb|d|" if call == REDOUBLE else ""
            board = one(f"{MD}mb|p|{prefix}{extra}mb|{text}|")
            assert board.calls[-1].call == call
            assert not board.calls[-1].alert
            alerted = one(f"{MD}mb|p|{prefix}{extra}mb|{text}!|")
            assert alerted.calls[-1] == LinCall(call, alert=True)

    @pytest.mark.parametrize("text", ["sQ", "SQ", "sq", "♠Q"])
    def test_cards_are_read_leniently(self, text: str) -> None:
        assert one(f"{MD}{AUCTION}pc|{text}|").cards == (Card.parse("SQ"),)

    def test_a_ten_may_be_written_10(self) -> None:
        board = one(f"{MD}{AUCTION}{TRICK_1}pc|hK|pc|h2|pc|h10|")
        assert board.cards[-1] == Card.parse("HT")
        assert one(MD.replace("HJT9", "HJ109")).deal == one(MD).deal

    @pytest.mark.parametrize(
        ("letter", "vulnerability"),
        [
            ("o", Vulnerability.NONE),
            ("O", Vulnerability.NONE),
            ("0", Vulnerability.NONE),
            ("-", Vulnerability.NONE),
            ("n", Vulnerability.NS),
            ("N", Vulnerability.NS),
            ("e", Vulnerability.EW),
            ("b", Vulnerability.BOTH),
            ("B", Vulnerability.BOTH),
        ],
    )
    def test_vulnerability(self, letter: str, vulnerability: Vulnerability) -> None:
        assert one(f"{MD}sv|{letter}|").vulnerability == vulnerability

    def test_without_sv_or_dealer_digit_the_board_number_decides(self) -> None:
        board = one(MD.replace("md|1", "md|") + "ah|Board 2|")
        assert (board.number, board.dealer, board.vulnerability) == (2, E, Vulnerability.NS)
        assert one(MD).vulnerability == Vulnerability.NONE  # no number, no sv
        assert one(f"qx|c7|{MD}").vulnerability == Vulnerability.BOTH

    def test_a_file_of_hand_viewer_lines(self) -> None:
        second = BOARD_47.replace("Board 47", "Board 48").replace("pn|S,W,N,E", "pn|s,w,n,e")
        boards = parse_lin(BOARD_47 + "\n" + second + "\n")
        assert [(board.number, board.south) for board in boards] == [(47, "S"), (48, "s")]
        # Without names, a second md starts the next board too.
        boards = parse_lin(f"{MD}{AUCTION}\n{MD}mb|1C|")
        assert [len(board.calls) for board in boards] == [11, 1]

    def test_names_pick_the_room_of_eight(self) -> None:
        names = "pn|a,b,c,d,e,f,g,h|"
        assert one(f"{names}{MD}").south == "a"  # no room: the first four
        assert one(f"{names}qx|o1|{MD}").east == "d"
        assert one(f"{names}qx|c1|{MD}").south == "e"
        assert one(f"{names}qx|c1|{MD}").east == "h"
        assert one(f"qx|o1|pn|w,x,y,z|{MD}").north == "y"

    def test_names_in_effect_at_the_deal(self) -> None:
        boards = parse_lin(f"pn|a,b,c,d|qx|o1|{MD}pn|e,f,g,h|qx|o2|{MD}")
        assert [board.south for board in boards] == ["a", "e"]

    def test_qx_forms(self) -> None:
        assert (one(f"qx|O12|{MD}").room, one(f"qx|O12|{MD}").number) == (Room.OPEN, 12)
        assert one(f"qx|c3,BOARD 3|{MD}").room == Room.CLOSED
        assert (one(f"qx|5|{MD}").room, one(f"qx|5|{MD}").number) == (None, 5)
        assert one(f"qx|o9|{MD}ah|Board 1|").number == 9  # qx wins over the heading

    def test_a_claim_in_the_middle_of_a_trick(self) -> None:
        board = one(f"{MD}{AUCTION}{TRICK_1}pc|hK|pc|hA|mc|9|")
        assert board.result == 9
        play = board.build_play()
        assert play.is_complete
        assert play.unfinished_trick is not None
        assert len(play.unfinished_trick.cards) == 2

    def test_the_last_claim_counts_and_one_after_thirteen_tricks_must_agree(self) -> None:
        assert one(f"{MD}{AUCTION}mc|8|mc|9|").claim == 9
        board = self.played_out()
        text = dump_lin(board)
        assert one(text + f"mc|{board.result}|").claim == board.result
        assert board.result is not None
        with pytest.raises(LinError, match=r"so [0-9]+ to [0-9]+"):
            parse_lin(text + f"mc|{(board.result + 1) % 14}|")

    def played_out(self) -> LinBoard:
        board = one(f"{MD}{AUCTION}")
        play = board.build_play()
        while not play.is_complete:
            play.play(play.legal_cards()[-1])
        return replace(board, cards=tuple(card for _, card in play.cards_played))

    def test_line_breaks_are_not_part_of_the_format(self) -> None:
        broken = BOARD_47.replace("|mb|", "|\r\nmb|").replace("an|18-19|", "an|18-\n19|")
        assert one(broken) == one(BOARD_47)
        assert one(BOARD_47 + " \n") == one(BOARD_47)
        assert one(BOARD_47.replace("|rh|", "| rh|")) == one(BOARD_47)

    def test_explanations(self) -> None:
        assert one(f"{MD}mb|p|an||").calls[0].explanation == ""
        assert one(f"{MD}mb|p|an|a|nt|chat|an|b|").calls[0].explanation == "a; b"
        assert one(f"{MD}mb|p|an| 5+ !s, 100% |").calls[0].explanation == " 5+ !s, 100% "

    def test_unknown_tags_are_skipped(self) -> None:
        noisy = BOARD_47.replace("st||", "st||sk|x|bn|1,2|zz|whatever|pw|hi|")
        assert one(noisy) == one(BOARD_47)
        assert parse_lin("") == []
        assert parse_lin(" \n pg||\n") == []

    def test_commentary(self) -> None:
        board = one(
            f"nt|before|{MD}nt|deal|{AUCTION}nt|after the auction|{TRICK_1}nt|x|mc|10|nt|end|"
        )
        assert board.commentary == (
            LinComment(0, "before"),
            LinComment(0, "deal"),
            LinComment(11, "after the auction"),
            LinComment(15, "x"),
            LinComment(16, "end"),
        )
        # A comment between two calls does not part a call from its explanation.
        assert one(f"{MD}mb|p|an|a|nt|chat|an|b|").commentary == (LinComment(1, "chat"),)
        # Commentary between two boards opens the next; after a claim a later claim
        # replaced, it follows the claim.
        first, second = parse_lin(f"{BOARD_47}nt|ends 47|pn|a,b,c,d|nt|opens 46|{MD}")
        assert first.commentary == (LinComment(16, "ends 47"),)
        assert second.commentary == (LinComment(0, "opens 46"),)
        assert one(f"{MD}{AUCTION}mc|8|nt|a|mc|9|").commentary == (LinComment(12, "a"),)
        assert parse_lin("nt|no board|") == []

    def test_a_board_without_play(self) -> None:
        passed = one(f"{MD}mb|p|mb|p|mb|p|mb|p|")
        assert (passed.is_passed_out, passed.contract) == (True, None)
        assert (passed.result, passed.score, str(passed.table_result)) == (None, 0, "PASS")
        with pytest.raises(WrongPhase, match="passed out"):
            passed.build_play()
        running = one(f"{MD}mb|p|mb|1D|")
        assert (running.contract, running.score, running.table_result) == (None, None, None)
        with pytest.raises(WrongPhase, match="not over"):
            running.build_play()
        unplayed = one(f"{MD}{AUCTION}")
        assert (unplayed.result, unplayed.score, unplayed.table_result) == (None, None, None)
        assert unplayed.build_play().turn == N


class TestErrors:
    @pytest.mark.parametrize(
        ("text", "words"),
        [
            # truncated deals
            ("md|1S9642H765DJTCQJ93,SK3HKQ8DKQ972CA84,SQJTHA432|", "North has 7 cards, not 13"),
            ("md|1S9642H765DJTCQJ93|", "no hand for West, North, East"),
            ("md|1S9642H765DJT|", "South has 9 cards, not 13"),
            ("md|1|", "no hand for South, West, North, East"),
            ("md|5S9642H765DJTCQJ93,,,|", "dealer digit is 1 (S), 2 (W), 3 (N) or 4 (E)"),
            (MD.replace("DJTCQJ93", "DJTCQJ9Z"), "'Z' is not a suit (S H D C) or a rank"),
            (MD.replace("md|1S", "md|19"), "rank '9' before any suit letter"),
            (MD.replace("SK3H", "SK93H").replace("CA84", "CA8"), "card dealt twice: S9"),
            (MD.replace("CQJ93", "CQJ33"), "South's hand has C3 twice"),
            (MD[:-1] + ",SA|", "more than four hands"),
            (MD.replace("md|1", "md|"), "no dealer digit"),
            # calls
            (f"{MD}mb|p|mb|1D|mb|p|mb|1C|", "1C is insufficient: the last bid was 1D"),
            (f"{MD}mb|1S|mb|p|mb|d|", "double is only allowed of an opponent's last bid"),
            (f"{MD}mb|1S|mb|r|", "redouble is only allowed"),
            (f"{AUCTION}", "before the deal"),
            (f"{MD}{AUCTION}mb|p|", "the auction is over"),
            (f"{MD}mb|8S|", "not a call '8S'"),
            (f"{MD}mb|!|", "not a call ''"),
            (f"{MD}an|x|", "an explanation before any call"),
            # cards and claims
            (f"{MD}{AUCTION}pc|sA|", "SA is not in North's hand"),
            (f"{MD}{AUCTION}pc|sQ|pc|hJ|", "East must follow suit to spades"),
            (f"{MD}{AUCTION}pc|Z9|", "not a card 'Z9'"),
            (f"{MD}mb|p|mb|1D|pc|sQ|", "a card, but the auction is not over"),
            (f"{MD}mb|p|mb|p|mb|p|mb|p|pc|sQ|", "a card, but the auction was passed out"),
            (f"{MD}mb|p|mb|1D|mc|7|", "a claim, but the auction is not over"),
            (f"{MD}{AUCTION}mc|14|", "a claim is declarer's total tricks, 0 to 13"),
            (f"{MD}{AUCTION}mc|ten|", "a claim is declarer's total tricks"),
            (f"{MD}{AUCTION}{TRICK_1}mc|0|", "declarer has 1 with 12 to play, so 1 to 13"),
            (f"{MD}{AUCTION}mc|9|pc|sQ|", "a card after the claim of 9 tricks"),
            # other tags and the text itself
            (f"{MD}sv|z|", "not a vulnerability 'z' (expected o none, n N-S, e E-W or b both)"),
            (f"{MD}sv|all|", "not a vulnerability 'all'"),
            (f"pn|a,b,c|{MD}", "expected 4 names (S, W, N, E) or 8"),
            (f"qx|z1|{MD}", "expected o (open room) or c (closed room) and the board number"),
            (f"qx|o0|{MD}", "expected o (open room) or c"),
            (f"qx|o1|qx|o2|{MD}", "a board without a deal (md|...|) at qx|o1|"),
            ("sv|o|", "a board without a deal"),
            (f"{MD}mb", "'mb' is not followed by '|value|'"),
            ("hello world", "'hello world' is not followed by '|value|'"),
            ("abc|x|", "expected a tag (two letters, like md or mb) before '|', found 'abc'"),
            (f"|{MD}", "expected a tag (two letters, like md or mb) before '|', found ''"),
            (f"vg|a,b,I,1,2,x,0,y,0|vg|x|{MD}", "a second vg| header"),
            (f"pn|a,b\ud800,c,d|{MD}", "not encodable text"),
        ],
    )
    def test_malformed_text_raises_lin_error_saying_what(self, text: str, words: str) -> None:
        with pytest.raises(LinError) as caught:
            parse_lin(text)
        assert words in str(caught.value)
        assert caught.value.line is not None
        assert caught.value.column is not None

    @pytest.mark.parametrize(
        ("text", "line", "column", "words"),
        [
            (f"pn|a,b,c,d|\n{MD}\nsv|z|", 3, 4, "sv|z|"),
            (f"{MD}\nmb|p|mb|1D|\nmb|p|mb|1C|", 3, 9, "mb|1C|: 1C is insufficient"),
            (f"{MD}{AUCTION}\n\n  pc|sA|", 3, 6, "pc|sA|: SA is not in North's hand"),
            ("pg||\n  xyz|1|", 2, 3, "found 'xyz'"),
            ("md|1SAKQ|", 1, 4, "md|1SAKQ|: South has 3 cards, not 13"),
        ],
    )
    def test_errors_say_where(self, text: str, line: int, column: int, words: str) -> None:
        with pytest.raises(LinError) as caught:
            parse_lin(text)
        assert (caught.value.line, caught.value.column) == (line, column)
        assert str(caught.value).startswith(f"line {line}, column {column}: ")
        assert words in str(caught.value)

    def test_lin_error_is_a_parse_error_a_bridge_error_and_a_value_error(self) -> None:
        assert issubclass(LinError, ParseError)
        assert issubclass(LinError, BridgeError)
        with pytest.raises(ValueError, match="South has 3 cards"):
            parse_lin("md|1SAKQ|")

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            (BOARD_47, "not a vugraph match file: no vg| header"),
            ("vg|a,b,I|", "expected 9 fields (event, segment, scoring, first board"),
            ("vg|a,b,I,x,2,t,0,u,0|", "not a board number: 'x'"),
            ("vg|a,b,I,1,2,t,lots,u,0|", "not a carry-over score: 'lots'"),
            (f"vg|a,b,I,1,2,t,0,u,0|{BOARD_47}", "needs its room and number"),
        ],
    )
    def test_a_match_file_needs_its_header_and_rooms(self, text: str, words: str) -> None:
        with pytest.raises(LinError, match=re.escape(words)):
            parse_lin_match(text)

    def test_result_entries(self) -> None:
        assert LinResult.parse("p") == LinResult() == LinResult.parse("PASS")
        assert LinResult.parse("7NTSxx=") == LinResult(Contract.parse("7NTXX"), S, 13)
        for text in ["", "4H", "4HE", "8HE=", "4HQ=", "4HE+4", "1NN-8", "4HE+0", "4HEx-0"]:
            with pytest.raises(LinError, match="not a table result"):
                LinResult.parse(text)
        with pytest.raises(BridgeError):
            LinResult(Contract.parse("4H"), None, 10)
        with pytest.raises(BridgeError):
            LinResult(None, None, 3)

    def test_handviewer_url_without_one_board(self) -> None:
        with pytest.raises(LinError, match="no lin= parameter"):
            parse_handviewer_url("https://www.bridgebase.com/tools/handviewer.html?n=SAK")
        with pytest.raises(LinError, match="expected one board"):
            parse_handviewer_url(HANDVIEWER_URL + quote(BOARD_47 + BOARD_47, safe=""))


class TestBoardValue:
    def test_an_illegal_board_cannot_be_made(self) -> None:
        board = one(f"{MD}{AUCTION}")
        with pytest.raises(IllegalCall, match="insufficient"):
            replace(board, calls=(*board.calls[:3], LinCall(Call.parse("1C"))))
        with pytest.raises(IllegalPlay, match="not in North's hand"):
            replace(board, cards=(Card.parse("SA"),))
        with pytest.raises(IllegalPlay, match="so 0 to 13"):
            replace(board, claim=14)
        with pytest.raises(WrongPhase, match="not over"):
            replace(board, calls=board.calls[:3], cards=(Card.parse("SQ"),))

    @pytest.mark.parametrize(
        "change",
        [
            {"south": "a,b"},
            {"west": "a|b"},
            {"north": "a\nb"},
            {"east": "a\rb"},
            {"room": Room.OPEN},
            {"number": 0},
            {"number": True},
            {"claim": "10"},
            {"dealer": 0},
            {"cards": ("SQ",)},
            {"calls": (PASS,)},
        ],
    )
    def test_what_lin_cannot_carry_is_refused(self, change: dict[str, object]) -> None:
        with pytest.raises(BridgeError):
            replace(one(MD), **change)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        "commentary",
        [
            (LinComment(1, "a"), LinComment(0, "b")),  # out of order
            (LinComment(1, "past the end"),),  # the board has no call
            ("text",),
        ],
    )
    def test_commentary_out_of_place_is_refused(self, commentary: tuple[LinComment, ...]) -> None:
        with pytest.raises(BridgeError, match="comment"):
            replace(one(MD), commentary=commentary)

    @pytest.mark.parametrize(("after", "text"), [(-1, "a"), (True, "a"), (0, "a|b"), (0, "a\nb")])
    def test_a_comment_lin_cannot_carry_is_refused(self, after: int, text: str) -> None:
        with pytest.raises(BridgeError):
            LinComment(after, text)

    @pytest.mark.parametrize("explanation", ["a|b", "line\nbreak", "cr\r", "\udc00"])
    def test_an_explanation_lin_cannot_carry_is_refused(self, explanation: str) -> None:
        with pytest.raises(BridgeError, match=r"LIN cannot carry|not encodable"):
            LinCall(PASS, explanation=explanation)
        with pytest.raises(BridgeError, match="not a call"):
            LinCall(Call())

    @pytest.mark.parametrize(
        "change",
        [
            {"event": "a,b"},
            {"segment": "a|b"},
            {"teams": ("x", "y\n")},
            {"teams": ("x",)},
            {"carry_over": (1e-7, 0)},
            {"carry_over": (float("nan"), 0)},
            {"carry_over": (True, 0)},
            {"results": ("4HE=,4HE=",)},
            {"first_board": -1},
            {"boards": ("board",)},
        ],
    )
    def test_what_a_match_file_cannot_carry_is_refused(self, change: dict[str, object]) -> None:
        with pytest.raises(BridgeError):
            LinMatch(**change)  # type: ignore[arg-type]


class TestWriting:
    def test_one_board_as_one_hand_viewer_line(self) -> None:
        board = one(BOARD_47)
        assert dump_lin(board) == (
            f"pn|S,W,N,E|st||{MD}rh||ah|Board 47|sv|n|{AUCTION}pg||"
            "pc|SQ|pc|S5|pc|S2|pc|SK|pg||mc|10|pg||"
        )
        three = one(f"pn|S,W,N,E|st||{MD_THREE_HANDS}rh||ah|Board 47|sv|n|")
        assert MD in dump_lin(three)  # all four hands are written

    def test_the_writer_spells_calls_as_bbo_does(self) -> None:
        board = one(f"{MD}mb|1S|mb|X|mb|XX|mb|1NT|mb|Pass|")
        assert "mb|1S|mb|d|mb|r|mb|1N|mb|p|" in dump_lin(board)

    def test_a_board_of_a_room_keeps_it(self) -> None:
        board = one(f"qx|c46|pn|a,b,c,d|{MD}")
        assert dump_lin(board).startswith("qx|c46|pn|a,b,c,d|st||md|")
        assert one(dump_lin(board)) == board

    def test_the_handviewer_url(self) -> None:
        board = replace(
            one(BOARD_47),
            south="Zoë",
            calls=(LinCall(PASS, explanation="100% sure! ♠, really"), *one(BOARD_47).calls[1:]),
        )
        url = handviewer_url(board)
        assert url.startswith(
            "https://www.bridgebase.com/tools/handviewer.html?lin="
            "pn%7CZo%C3%AB%2CW%2CN%2CE%7Cst%7C%7Cmd%7C1S9642H765DJTCQJ93%2C"
        )
        assert "an%7C100%25%20sure%21%20%E2%99%A0%2C%20really%7C" in url
        assert parse_handviewer_url(url) == board
        assert not {" ", "|", ","} & set(url.partition("?")[2])

    def test_the_match_writes_names_again_when_they_change(self) -> None:
        board = one(MD)
        boards = (
            replace(board, room=Room.OPEN, number=1, south="a"),
            replace(board, room=Room.CLOSED, number=1, south="b"),
            replace(board, room=Room.OPEN, number=2, south="a"),
            replace(board, room=Room.CLOSED, number=2, south="c"),
        )
        match = LinMatch(
            event="Final",
            segment="1",
            first_board=1,
            last_board=2,
            teams=("X", "Y"),
            carry_over=(1.5, 0),
            results=("", ""),
            boards=boards,
        )
        written = dump_lin_match(match)
        assert written.splitlines()[:3] == ["vg|Final,1,I,1,2,X,1.5,Y,0|", "rs|,|", "pn|a,,,,b,,,|"]
        assert "pn|a,,,,c,,,|\nqx|c2|" in written
        assert parse_lin_match(written) == match
        assert match.computed_results() == ("", "", "", "")


# -- properties --------------------------------------------------------------------------

NAME = st.text(st.characters(codec="utf-8", exclude_characters="|,\r\n"), max_size=8)
EXPLANATION = st.one_of(
    st.just(""),
    st.sampled_from(["3!h", "100%", "%7C", "a, b", "!", "é ü ♠ 🂡", " lead", "trail ", "pg"]),
    st.text(st.characters(codec="utf-8", exclude_characters="|\r\n"), max_size=12),
)


@st.composite
def lin_boards(draw: st.DrawFn, room: Room | None = None, number: int | None = None) -> LinBoard:
    """A random deal, a random legal auction, a random legal play to the end or a claim, and
    comments anywhere among them."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    deal = Deal.random(rng)
    dealer = draw(st.sampled_from(list(Seat)))
    annotations = draw(st.lists(st.tuples(st.booleans(), EXPLANATION), max_size=12))
    auction = Auction(dealer)
    calls: list[LinCall] = []
    while not auction.is_complete:
        call = PASS if rng.random() < 0.6 else rng.choice(auction.legal_calls())
        auction.call(call)
        alert, explanation = (
            annotations[len(calls)] if len(calls) < len(annotations) else (False, "")
        )
        calls.append(LinCall(call, alert, explanation))
    cards: list[Card] = []
    claim: int | None = None
    if auction.contract is not None and auction.declarer is not None:
        play = Play(deal, auction.contract, auction.declarer)
        stop = draw(st.one_of(st.just(52), st.integers(0, 52)))
        while len(cards) < stop:
            card = rng.choice(play.legal_cards())
            play.play(card)
            cards.append(card)
        if draw(st.booleans()):
            won, left = play.declarer_tricks, 0 if play.is_complete else play.remaining_tricks
            claim = won + draw(st.integers(0, left))
    events = len(calls) + len(cards) + (claim is not None)
    places = draw(st.lists(st.integers(0, events), max_size=4))
    commentary = tuple(LinComment(place, draw(EXPLANATION)) for place in sorted(places))
    if number is None:
        number = draw(st.one_of(st.none(), st.integers(1, 10**6)))
    return LinBoard(
        deal=deal,
        dealer=dealer,
        vulnerability=draw(st.sampled_from(list(Vulnerability))),
        number=number,
        room=room if room is not None else draw(st.sampled_from([None, *Room])) if number else None,
        south=draw(NAME),
        west=draw(NAME),
        north=draw(NAME),
        east=draw(NAME),
        calls=tuple(calls),
        cards=tuple(cards),
        claim=claim,
        commentary=commentary,
    )


@st.composite
def lin_matches(draw: st.DrawFn) -> LinMatch:
    numbers = draw(st.lists(st.integers(1, 40), max_size=4))
    boards = [draw(lin_boards(room=room, number=number)) for number in numbers for room in Room]
    return LinMatch(
        event=draw(NAME),
        segment=draw(NAME),
        scoring=draw(st.sampled_from(["I", "P", "B", ""])),
        first_board=draw(st.one_of(st.none(), st.integers(1, 99))),
        last_board=draw(st.one_of(st.none(), st.integers(1, 99))),
        teams=(draw(NAME), draw(NAME)),
        carry_over=(
            draw(st.integers(-999, 999).map(lambda n: n / 2)),
            draw(st.integers(-(10**6), 10**6)),
        ),
        results=tuple(draw(st.lists(NAME, max_size=4))),
        boards=tuple(boards),
    )


# Fragments of LIN, good and broken, for the fuzz test.
FUZZ_PIECES = [
    MD, MD_THREE_HANDS, "md|", "1S9642H765DJTCQJ93", ",", "|", "||", "mb|", "p", "1D", "2N",
    "3N", "d", "r", "!", "pc|", "sQ", "s5", "s2", "sK", "hK", "mc|", "10", "14", "qx|", "o1",
    "c1", "pn|", "a,b,c,d", "sv|", "o", "b", "z", "an|", "vg|", "rs|", "ah|Board 3|", "nt|x|",
    "pg||", "\n", " ", AUCTION, TRICK_1, BOARD_47, "vg|e,s,I,1,2,t,0,u,0|",
]  # fmt: skip


class TestProperties:
    @settings(max_examples=120, deadline=None)
    @given(lin_boards())
    def test_a_board_written_then_read_is_the_same(self, board: LinBoard) -> None:
        line = dump_lin(board)
        assert parse_lin(line) == [board]
        assert parse_handviewer_url(handviewer_url(board)) == board
        assert dump_lin(one(line)) == line

    @settings(max_examples=60, deadline=None)
    @given(lin_boards())
    def test_result_and_score_follow_the_rules(self, board: LinBoard) -> None:
        auction = Auction.replay(board.dealer, [call.call for call in board.calls])
        assert (board.contract, board.declarer) == (auction.contract, auction.declarer)
        if auction.contract is None:
            assert (board.result, board.cards) == (None, ())
            assert board.score == (0 if auction.is_passed_out else None)
            return
        play = board.build_play()
        assert [card for _, card in play.cards_played] == list(board.cards)
        if board.claim is not None or len(board.cards) == 52:
            assert board.result == play.declarer_tricks
            if board.claim is not None:
                assert board.result == board.claim
            assert board.score == score(
                board.contract, board.declarer, board.vulnerability, play.declarer_tricks
            )
            assert board.table_result == LinResult.parse(str(board.table_result))
        else:
            assert (board.result, board.score) == (None, None)

    @settings(max_examples=25, deadline=None)
    @given(lin_matches())
    def test_a_match_written_then_read_is_the_same(self, match: LinMatch) -> None:
        written = dump_lin_match(match)
        assert parse_lin_match(written) == match
        assert parse_lin(written) == list(match.boards)

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=120))
    def test_arbitrary_text_raises_only_lin_error(self, text: str) -> None:
        for parse in (parse_lin, parse_lin_match):
            with contextlib.suppress(LinError):
                parse(text)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(FUZZ_PIECES), max_size=16))
    def test_lin_fragments_parse_or_raise_lin_error_and_what_parses_round_trips(
        self, pieces: list[str]
    ) -> None:
        text = "".join(pieces)
        try:
            boards = parse_lin(text)
        except LinError:
            with pytest.raises(LinError) as caught:
                parse_lin(text)
            assert caught.value.line is not None
            assert caught.value.column is not None
            return
        for board in boards:
            assert parse_lin(dump_lin(board)) == [board]

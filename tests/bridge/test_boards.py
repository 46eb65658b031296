"""Dealer and vulnerability by board number (RULES.md section 1)."""

from __future__ import annotations

import pytest
from endplay.types import Player, Vul

from bridge import BridgeError, ParseError, Seat, Vulnerability, board_dealer, board_vulnerability

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
NONE, NS, EW, BOTH = Vulnerability.NONE, Vulnerability.NS, Vulnerability.EW, Vulnerability.BOTH

# RULES.md section 1, boards 1..16.
BOARD_TABLE = [
    (1, N, NONE),
    (2, E, NS),
    (3, S, EW),
    (4, W, BOTH),
    (5, N, NS),
    (6, E, EW),
    (7, S, BOTH),
    (8, W, NONE),
    (9, N, EW),
    (10, E, BOTH),
    (11, S, NONE),
    (12, W, NS),
    (13, N, BOTH),
    (14, E, NONE),
    (15, S, NS),
    (16, W, EW),
]

ENDPLAY_VUL = {Vul.none: NONE, Vul.ns: NS, Vul.ew: EW, Vul.both: BOTH}
ENDPLAY_PLAYER = {Player.north: N, Player.east: E, Player.south: S, Player.west: W}


class TestBoardTable:
    @pytest.mark.parametrize(("number", "dealer", "vulnerability"), BOARD_TABLE)
    def test_boards_1_to_16(self, number: int, dealer: Seat, vulnerability: Vulnerability) -> None:
        assert board_dealer(number) is dealer
        assert board_vulnerability(number) is vulnerability

    @pytest.mark.parametrize(("number", "dealer", "vulnerability"), BOARD_TABLE)
    @pytest.mark.parametrize("cycle", [1, 2, 3, 10, 1000, 10**12])
    def test_cycle_repeats(
        self, number: int, dealer: Seat, vulnerability: Vulnerability, cycle: int
    ) -> None:
        assert board_dealer(number + 16 * cycle) is dealer
        assert board_vulnerability(number + 16 * cycle) is vulnerability

    def test_board_17_and_33_start_again(self) -> None:
        for start in (17, 33):
            assert board_dealer(start) is N
            assert board_vulnerability(start) is NONE
            assert board_vulnerability(start + 1) is NS

    def test_dealer_rotates(self) -> None:
        for number in range(1, 200):
            assert board_dealer(number + 1) is board_dealer(number).next

    def test_each_side_vulnerable_on_eight_of_sixteen(self) -> None:
        for seat in (N, E):
            vulnerable = [n for n in range(1, 17) if board_vulnerability(n).is_vulnerable(seat)]
            assert len(vulnerable) == 8

    @pytest.mark.parametrize("number", [0, -1, -16, -17])
    def test_board_numbers_start_at_one(self, number: int) -> None:
        with pytest.raises(BridgeError):
            board_dealer(number)
        with pytest.raises(BridgeError):
            board_vulnerability(number)

    @pytest.mark.parametrize("number", [True, "1", 1.0, None])
    def test_board_number_must_be_an_int(self, number: object) -> None:
        with pytest.raises(BridgeError):
            board_dealer(number)  # type: ignore[arg-type]
        with pytest.raises(BridgeError):
            board_vulnerability(number)  # type: ignore[arg-type]


class TestAgainstEndplay:
    def test_endplay_api_exists(self) -> None:
        # The names this module relies on, checked so a rename fails loudly here.
        assert callable(Vul.from_board)
        assert callable(Player.from_board)
        assert set(ENDPLAY_VUL) == set(Vul)
        assert set(ENDPLAY_PLAYER) == set(Player)

    @pytest.mark.parametrize("number", range(1, 65))
    def test_matches_endplay(self, number: int) -> None:
        assert board_vulnerability(number) is ENDPLAY_VUL[Vul.from_board(number)]
        assert board_dealer(number) is ENDPLAY_PLAYER[Player.from_board(number)]


class TestVulnerability:
    @pytest.mark.parametrize(
        ("text", "vulnerability"),
        [
            ("None", NONE),
            ("none", NONE),
            ("Love", NONE),
            ("-", NONE),
            ("NS", NS),
            ("ns", NS),
            ("EW", EW),
            ("All", BOTH),
            ("ALL", BOTH),
            ("Both", BOTH),
            (" Both ", BOTH),
        ],
    )
    def test_parse(self, text: str, vulnerability: Vulnerability) -> None:
        assert Vulnerability.parse(text) is vulnerability

    @pytest.mark.parametrize("text", ["", "N", "NE", "SN", "WE", "Neither", "0", "x"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Vulnerability.parse(text)

    @pytest.mark.parametrize("vulnerability", list(Vulnerability))
    def test_str_round_trip(self, vulnerability: Vulnerability) -> None:
        assert Vulnerability.parse(str(vulnerability)) is vulnerability

    @pytest.mark.parametrize(
        ("vulnerability", "vulnerable_seats"),
        [(NONE, set()), (NS, {N, S}), (EW, {E, W}), (BOTH, {N, E, S, W})],
    )
    def test_is_vulnerable(self, vulnerability: Vulnerability, vulnerable_seats: set[Seat]) -> None:
        for seat in Seat:
            assert vulnerability.is_vulnerable(seat) == (seat in vulnerable_seats)

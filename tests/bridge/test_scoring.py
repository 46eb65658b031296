"""Duplicate scores (RULES.md section 4) against endplay, and the IMP scale (section 5)."""

from __future__ import annotations

import itertools

import pytest
from endplay.types import Contract as EndplayContract
from endplay.types import Denom, Penalty, Player, Vul

from bridge import BridgeError, Contract, Seat, Strain, Vulnerability, declarer_score, imps, score

ENDPLAY_DENOM = {
    Strain.CLUBS: Denom.clubs,
    Strain.DIAMONDS: Denom.diamonds,
    Strain.HEARTS: Denom.hearts,
    Strain.SPADES: Denom.spades,
    Strain.NOTRUMP: Denom.nt,
}
ENDPLAY_PENALTY = {0: Penalty.passed, 1: Penalty.doubled, 2: Penalty.redoubled}
ENDPLAY_VUL = {
    Vulnerability.NONE: Vul.none,
    Vulnerability.NS: Vul.ns,
    Vulnerability.EW: Vul.ew,
    Vulnerability.BOTH: Vul.both,
}
ENDPLAY_PLAYER = {
    Seat.NORTH: Player.north,
    Seat.EAST: Player.east,
    Seat.SOUTH: Player.south,
    Seat.WEST: Player.west,
}
CONTRACTS = [
    Contract(level, strain, doubled)
    for level in range(1, 8)
    for strain in Strain
    for doubled in (0, 1, 2)
]


def endplay_declarer_score(
    contract: Contract, declarer: Seat, vulnerability: Vulnerability, tricks: int
) -> int:
    """endplay's score, which is from declarer's side (see test_endplay_scores_for_declarer)."""
    theirs = EndplayContract(
        level=contract.level,
        denom=ENDPLAY_DENOM[contract.strain],
        declarer=ENDPLAY_PLAYER[declarer],
        penalty=ENDPLAY_PENALTY[contract.doubled],
        result=tricks - contract.tricks_needed,
    )
    return int(theirs.score(ENDPLAY_VUL[vulnerability]))


class TestAgainstEndplay:
    def test_endplay_scores_for_declarer(self) -> None:
        # 4S made by East, nobody vulnerable: endplay gives +420 (declarer's view), not -420.
        assert (
            endplay_declarer_score(Contract.parse("4S"), Seat.EAST, Vulnerability.NONE, 10) == 420
        )
        assert endplay_declarer_score(Contract.parse("4S"), Seat.EAST, Vulnerability.NONE, 9) == -50
        # Vulnerability belongs to the declarer's side in endplay as in ours.
        assert endplay_declarer_score(Contract.parse("4S"), Seat.EAST, Vulnerability.EW, 10) == 620
        assert endplay_declarer_score(Contract.parse("4S"), Seat.EAST, Vulnerability.NS, 10) == 420

    @pytest.mark.parametrize("contract", CONTRACTS, ids=str)
    def test_every_result_matches_endplay(self, contract: Contract) -> None:
        mismatches = []
        for vulnerability, declarer, tricks in itertools.product(Vulnerability, Seat, range(14)):
            expected = endplay_declarer_score(contract, declarer, vulnerability, tricks)
            signed = expected if declarer in (Seat.NORTH, Seat.SOUTH) else -expected
            ours = score(contract, declarer, vulnerability, tricks)
            ours_for_declarer = declarer_score(
                contract, vulnerability.is_vulnerable(declarer), tricks
            )
            if ours != signed or ours_for_declarer != expected:
                mismatches.append((str(vulnerability), declarer.letter, tricks, ours, signed))
        assert mismatches == []


class TestScoreTable:
    @pytest.mark.parametrize(
        ("contract", "declarer", "vulnerability", "tricks", "expected"),
        [
            # The checks in RULES.md section 4 (from seed 000).
            ("4S", Seat.NORTH, Vulnerability.NONE, 10, 420),
            ("3S", Seat.NORTH, Vulnerability.NONE, 10, 170),
            ("4HX", Seat.NORTH, Vulnerability.BOTH, 8, -500),
            # The same from the E-W side: the sign is N-S's.
            ("4S", Seat.EAST, Vulnerability.NONE, 10, -420),
            ("3S", Seat.WEST, Vulnerability.NONE, 10, -170),
            ("4HX", Seat.EAST, Vulnerability.BOTH, 8, 500),
            ("4HX", Seat.EAST, Vulnerability.EW, 8, 500),
            ("4HX", Seat.EAST, Vulnerability.NS, 8, 300),
            # A few classic figures.
            ("3NT", Seat.SOUTH, Vulnerability.NONE, 9, 400),
            ("3NT", Seat.SOUTH, Vulnerability.NS, 9, 600),
            ("1NT", Seat.NORTH, Vulnerability.NONE, 7, 90),
            ("2C", Seat.NORTH, Vulnerability.NONE, 8, 90),
            ("5D", Seat.NORTH, Vulnerability.NS, 11, 600),
            ("1CX", Seat.NORTH, Vulnerability.NONE, 7, 140),
            ("1CXX", Seat.NORTH, Vulnerability.NONE, 7, 230),
            ("2HX", Seat.NORTH, Vulnerability.NONE, 8, 470),
            ("2SX", Seat.NORTH, Vulnerability.BOTH, 9, 870),
            ("6S", Seat.NORTH, Vulnerability.NONE, 12, 980),
            ("6NT", Seat.NORTH, Vulnerability.BOTH, 12, 1440),
            ("7NT", Seat.NORTH, Vulnerability.BOTH, 13, 2220),
            ("7NTXX", Seat.NORTH, Vulnerability.BOTH, 13, 2980),
            ("4S", Seat.NORTH, Vulnerability.NONE, 9, -50),
            ("4S", Seat.NORTH, Vulnerability.NS, 7, -300),
            ("4SX", Seat.NORTH, Vulnerability.NONE, 6, -800),
            ("4SX", Seat.NORTH, Vulnerability.NONE, 5, -1100),
            ("4SXX", Seat.NORTH, Vulnerability.NONE, 6, -1600),
            ("7NTXX", Seat.NORTH, Vulnerability.BOTH, 0, -7600),
        ],
    )
    def test_known_scores(
        self,
        contract: str,
        declarer: Seat,
        vulnerability: Vulnerability,
        tricks: int,
        expected: int,
    ) -> None:
        assert score(Contract.parse(contract), declarer, vulnerability, tricks) == expected

    def test_seed_arithmetic(self) -> None:
        # Seed 000: 4x30+300 = 420; 3x30+30+50 = 170; 200+300 = 500.
        assert declarer_score(Contract.parse("4S"), False, 10) == 4 * 30 + 300
        assert declarer_score(Contract.parse("3S"), False, 10) == 3 * 30 + 30 + 50
        assert declarer_score(Contract.parse("4HX"), True, 8) == -(200 + 300)

    @pytest.mark.parametrize("vulnerability", list(Vulnerability))
    def test_passed_out_scores_zero(self, vulnerability: Vulnerability) -> None:
        assert score(None, None, vulnerability, 0) == 0

    @pytest.mark.parametrize("tricks", [14, -1, 100])
    def test_tricks_out_of_range(self, tricks: int) -> None:
        with pytest.raises(BridgeError):
            score(Contract.parse("4S"), Seat.NORTH, Vulnerability.NONE, tricks)
        with pytest.raises(BridgeError):
            declarer_score(Contract.parse("4S"), False, tricks)

    def test_tricks_must_be_an_int(self) -> None:
        with pytest.raises(BridgeError):
            score(Contract.parse("4S"), Seat.NORTH, Vulnerability.NONE, True)
        with pytest.raises(BridgeError):
            score(Contract.parse("4S"), Seat.NORTH, Vulnerability.NONE, 10.0)  # type: ignore[arg-type]

    def test_contract_without_declarer(self) -> None:
        with pytest.raises(BridgeError):
            score(Contract.parse("4S"), None, Vulnerability.NONE, 10)

    def test_declarer_without_contract(self) -> None:
        with pytest.raises(BridgeError):
            score(None, Seat.NORTH, Vulnerability.NONE, 0)


# RULES.md section 5: (lowest difference, highest difference, IMPs).
IMP_BANDS = [
    (0, 10, 0),
    (20, 40, 1),
    (50, 80, 2),
    (90, 120, 3),
    (130, 160, 4),
    (170, 210, 5),
    (220, 260, 6),
    (270, 310, 7),
    (320, 360, 8),
    (370, 420, 9),
    (430, 490, 10),
    (500, 590, 11),
    (600, 740, 12),
    (750, 890, 13),
    (900, 1090, 14),
    (1100, 1290, 15),
    (1300, 1490, 16),
    (1500, 1740, 17),
    (1750, 1990, 18),
    (2000, 2240, 19),
    (2250, 2490, 20),
    (2500, 2990, 21),
    (3000, 3490, 22),
    (3500, 3990, 23),
    (4000, 10**9, 24),
]


class TestImps:
    @pytest.mark.parametrize(("low", "high", "expected"), IMP_BANDS)
    def test_band_edges(self, low: int, high: int, expected: int) -> None:
        assert imps(low) == expected
        assert imps(high) == expected
        assert imps(-low) == -expected
        assert imps(-high) == -expected

    @pytest.mark.parametrize(("low", "high", "expected"), IMP_BANDS)
    def test_every_multiple_of_ten_in_band(self, low: int, high: int, expected: int) -> None:
        for difference in range(low, min(high, 5000) + 1, 10):
            assert imps(difference) == expected
            assert imps(-difference) == -expected

    def test_bands_are_contiguous(self) -> None:
        for (_, high, imp), (low, _, next_imp) in itertools.pairwise(IMP_BANDS):
            assert low == high + 10
            assert next_imp == imp + 1

    @pytest.mark.parametrize(
        ("difference", "expected"),
        [
            (10**15, 24),
            (-(10**15), -24),
            (7600 * 2, 24),
            (0, 0),
        ],
    )
    def test_extremes(self, difference: int, expected: int) -> None:
        assert imps(difference) == expected

    @pytest.mark.parametrize(
        ("difference", "expected"),
        [
            (5, 0),
            (15, 0),
            (19, 0),
            (25, 1),
            (45, 1),
            (49, 1),
            (55, 2),
            (219, 5),
            (221, 6),
            (3999, 23),
            (4005, 24),
            (-15, 0),
            (-25, -1),
            (-4005, -24),
        ],
    )
    def test_adjusted_scores_take_the_band_whose_lower_edge_they_reach(
        self, difference: int, expected: int
    ) -> None:
        assert imps(difference) == expected

    def test_seed_example_swing(self) -> None:
        # Seed 000: table 1 N-S make 4S (420), table 2 N-S make 3S+1 (170): 250, 6 IMPs.
        table_1 = score(Contract.parse("4S"), Seat.NORTH, Vulnerability.NONE, 10)
        table_2 = score(Contract.parse("3S"), Seat.NORTH, Vulnerability.NONE, 10)
        assert (table_1, table_2) == (420, 170)
        assert imps(table_1 - table_2) == 6
        assert imps(table_2 - table_1) == -6
        assert imps(250) == 6
        assert imps(-250) == -6

    def test_penalty_swing(self) -> None:
        # Vulnerable 4HX down 2 is -500 for N-S declaring; against a passed-out board: 11 IMPs.
        penalty = score(Contract.parse("4HX"), Seat.NORTH, Vulnerability.BOTH, 8)
        assert penalty == -500
        assert imps(penalty - score(None, None, Vulnerability.BOTH, 0)) == -11
        assert imps(-500) == -11

    @pytest.mark.parametrize("difference", [1.5, 20.0, "20", True, None])
    def test_rejects_non_integers(self, difference: object) -> None:
        with pytest.raises(BridgeError):
            imps(difference)  # type: ignore[arg-type]

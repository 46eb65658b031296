"""Duplicate scoring of one table, and the IMP scale that compares two tables."""

from __future__ import annotations

from bisect import bisect_right

from bridge.auction import Contract
from bridge.boards import Vulnerability
from bridge.cards import Seat, Strain
from bridge.errors import BridgeError

__all__ = ["declarer_score", "imps", "score"]


def declarer_score(contract: Contract, vulnerable: bool, tricks: int) -> int:
    """The duplicate score for declarer's side: positive when made, negative when defeated.

    >>> declarer_score(Contract.parse("4S"), False, 10)
    420
    >>> declarer_score(Contract.parse("4HX"), True, 8)
    -500
    """
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= 13:
        raise BridgeError(f"tricks taken are 0 to 13, got {tricks!r}")
    level, strain, doubled = contract.level, contract.strain, contract.doubled
    multiplier = (1, 2, 4)[doubled]
    over = tricks - 6 - level
    if over < 0:
        return -_undertrick_penalty(-over, vulnerable, doubled)

    if strain == Strain.NOTRUMP:
        trick_points = 40 + 30 * (level - 1)
    elif strain in (Strain.HEARTS, Strain.SPADES):
        trick_points = 30 * level
    else:
        trick_points = 20 * level
    trick_points *= multiplier

    total = trick_points
    total += (500 if vulnerable else 300) if trick_points >= 100 else 50
    total += (0, 50, 100)[doubled]
    if level == 6:
        total += 750 if vulnerable else 500
    elif level == 7:
        total += 1500 if vulnerable else 1000
    if doubled:
        total += over * (200 if vulnerable else 100) * (doubled)
    else:
        total += over * (20 if strain in (Strain.CLUBS, Strain.DIAMONDS) else 30)
    return total


def _undertrick_penalty(down: int, vulnerable: bool, doubled: int) -> int:
    if not doubled:
        return down * (100 if vulnerable else 50)
    if vulnerable:
        penalty = 200 + 300 * (down - 1)
    else:
        penalty = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
    return penalty * doubled


def score(
    contract: Contract | None, declarer: Seat | None, vulnerability: Vulnerability, tricks: int
) -> int:
    """The table's duplicate score, signed from North-South (positive when N-S earned it).

    ``tricks`` are declarer's. A passed-out board, ``score(None, None, vul, 0)``, scores 0.

    >>> score(Contract.parse("3S"), Seat.EAST, Vulnerability.NONE, 10)
    -170
    """
    if contract is None:
        if declarer is not None:
            raise BridgeError("a passed-out board has no declarer")
        return 0
    if declarer is None:
        raise BridgeError(f"contract {contract} needs a declarer")
    points = declarer_score(contract, vulnerability.is_vulnerable(declarer), tricks)
    return points if declarer % 2 == 0 else -points


# Lower edge of each IMP band from 1 IMP upward: |difference| reaching edge k gives k+1 IMPs.
_IMP_EDGES = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
    750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
)  # fmt: skip


def imps(difference: int) -> int:
    """International Match Points for a difference of scores, with the difference's sign.

    A difference that is not a multiple of ten (an adjusted score) takes the band
    whose lower edge it reaches.

    >>> imps(250), imps(-500), imps(10), imps(4500)
    (6, -11, 0, 24)
    """
    if isinstance(difference, bool) or not isinstance(difference, int):
        raise BridgeError(f"a score difference is a whole number, got {difference!r}")
    value = bisect_right(_IMP_EDGES, abs(difference))
    return value if difference >= 0 else -value

"""What a board number fixes at every table: the dealer and the vulnerability."""

from __future__ import annotations

from enum import Enum

from bridge.cards import Seat
from bridge.errors import BridgeError, ParseError

__all__ = ["Vulnerability", "board_dealer", "board_vulnerability"]


class Vulnerability(Enum):
    """Which sides are vulnerable on a board.

    >>> Vulnerability.parse("All").is_vulnerable(Seat.EAST)
    True
    """

    NONE = "None"
    NS = "NS"
    EW = "EW"
    BOTH = "All"

    @classmethod
    def parse(cls, text: str) -> Vulnerability:
        """PBN spellings: ``None``, ``Love``, ``-``, ``NS``, ``EW``, ``All``, ``Both``."""
        vulnerability = _VULNERABILITY_NAMES.get(text.strip().upper())
        if vulnerability is None:
            raise ParseError(f"not a vulnerability: {text!r} (expected None, NS, EW or All)")
        return vulnerability

    def is_vulnerable(self, seat: Seat) -> bool:
        """Whether ``seat``'s side is vulnerable."""
        if self is Vulnerability.BOTH:
            return True
        if self is Vulnerability.NONE:
            return False
        return (self is Vulnerability.NS) == (seat % 2 == 0)

    def __str__(self) -> str:
        return self.value


_VULNERABILITY_NAMES = {
    "NONE": Vulnerability.NONE,
    "LOVE": Vulnerability.NONE,
    "-": Vulnerability.NONE,
    "NS": Vulnerability.NS,
    "N-S": Vulnerability.NS,
    "EW": Vulnerability.EW,
    "E-W": Vulnerability.EW,
    "ALL": Vulnerability.BOTH,
    "BOTH": Vulnerability.BOTH,
}

# Boards 1..16; board 17 starts the cycle again.
_CYCLE = tuple(
    Vulnerability[name]
    for name in (
        [
            "NONE",
            "NS",
            "EW",
            "BOTH",
            "NS",
            "EW",
            "BOTH",
            "NONE",
            "EW",
            "BOTH",
            "NONE",
            "NS",
            "BOTH",
            "NONE",
            "NS",
            "EW",
        ]
    )
)


def _check_board(number: int) -> None:
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise BridgeError(f"board numbers start at 1, got {number!r}")


def board_dealer(number: int) -> Seat:
    """The dealer of board ``number``: N, E, S, W for boards 1, 2, 3, 4 and so on.

    >>> board_dealer(3)
    <Seat.SOUTH: 2>
    """
    _check_board(number)
    return Seat((number - 1) % 4)


def board_vulnerability(number: int) -> Vulnerability:
    """The vulnerability of board ``number``, in the standard 16-board cycle.

    >>> board_vulnerability(2)
    <Vulnerability.NS: 'NS'>
    """
    _check_board(number)
    return _CYCLE[(number - 1) % 16]

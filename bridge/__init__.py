"""The rules of duplicate bridge: cards, boards, auction, play, scoring and IMPs.

Pure: the standard library only, no I/O, no clock, no global random state.

>>> from bridge import Contract, Seat, Vulnerability, score, imps
>>> score(Contract.parse("4S"), Seat.NORTH, Vulnerability.NONE, 10)
420
>>> imps(420 - 170)
6
"""

from bridge.auction import (
    DOUBLE,
    PASS,
    REDOUBLE,
    Auction,
    Bid,
    Call,
    Contract,
    Double,
    Pass,
    Redouble,
)
from bridge.boards import Vulnerability, board_dealer, board_vulnerability
from bridge.cards import Card, Deal, Hand, Rank, Seat, Strain, Suit
from bridge.errors import (
    BridgeError,
    IllegalCall,
    IllegalPlay,
    MovementError,
    OutOfTurn,
    ParseError,
    WrongPhase,
)
from bridge.play import Claim, Play, Trick
from bridge.scoring import declarer_score, imps, score

__all__ = [
    "DOUBLE", "PASS", "REDOUBLE", "Auction", "Bid", "BridgeError", "Call", "Card", "Claim",
    "Contract", "Deal", "Double", "Hand", "IllegalCall", "IllegalPlay", "MovementError",
    "OutOfTurn", "ParseError",
    "Pass", "Play", "Rank", "Redouble", "Seat", "Strain", "Suit", "Trick", "Vulnerability",
    "WrongPhase", "board_dealer", "board_vulnerability", "declarer_score", "imps", "score",
]  # fmt: skip

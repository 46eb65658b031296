"""Double-dummy analysis of a board with endplay's solver: the tricks each declarer takes
in each strain with all hands in view, and the par result. Shown with each comparison."""

from __future__ import annotations

import threading

from endplay.dds import calc_dd_table, par
from endplay.types import Deal as EndplayDeal
from endplay.types import Penalty, Player, Vul

from bridge import Deal, Seat, Strain, Vulnerability
from server.state import Analysis

__all__ = ["analyse"]

# endplay's table is indexed [denomination][player]: spades, hearts, diamonds, clubs, NT.
_ENDPLAY_ROWS = {
    Strain.SPADES: 0,
    Strain.HEARTS: 1,
    Strain.DIAMONDS: 2,
    Strain.CLUBS: 3,
    Strain.NOTRUMP: 4,
}
_SOLVER = threading.Lock()
"""Held around every call into endplay's solver: it is not thread-safe (two analyses at once,
from two matches created together, corrupt its memory and crash the server), and analysis
runs in worker threads (``asyncio.to_thread``)."""

_VUL = {
    Vulnerability.NONE: Vul.none,
    Vulnerability.NS: Vul.ns,
    Vulnerability.EW: Vul.ew,
    Vulnerability.BOTH: Vul.both,
}


def analyse(deal: Deal, dealer: Seat, vulnerability: Vulnerability) -> Analysis:
    """Solve the deal double dummy (a tenth of a second or so) and find its par; one deal at
    a time, whichever thread asks."""
    with _SOLVER:
        table = calc_dd_table(EndplayDeal(deal.to_pbn()))
        rows = table.to_list()
        result = par(table, _VUL[vulnerability], Player(int(dealer)))
    tricks: dict[str, dict[str, int]] = {
        seat.letter: {strain.letter: rows[_ENDPLAY_ROWS[strain]][seat] for strain in Strain}
        for seat in Seat
    }
    contracts: list[str] = []
    for contract in result:
        doubled = {Penalty.passed: 0, Penalty.doubled: 1, Penalty.redoubled: 2}[contract.penalty]
        text = _contract_text(
            contract.level,
            int(contract.denom),
            doubled,
            int(contract.declarer),
            int(contract.result),
        )
        if text not in contracts:
            contracts.append(text)
    return Analysis(tricks, int(result.score), tuple(contracts))


def _contract_text(level: int, denom: int, doubled: int, declarer: int, result: int) -> str:
    """Like ``"1NT N +1"``, ``"5DX E -2"``, ``"4S S ="``."""
    strain = ("S", "H", "D", "C", "NT")[denom]  # endplay's Denom order
    outcome = "=" if result == 0 else f"{result:+d}"
    return f"{level}{strain}{'X' * doubled} {'NESW'[declarer]} {outcome}"

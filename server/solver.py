"""Double-dummy analysis of a board with endplay's solver: the tricks each declarer takes
in each strain with all hands in view, and the par result. Shown with each comparison.

:func:`main` is the worker a server's :class:`server.analysis.Analyst` runs: it reads one
JSON line of boards at a time and answers one JSON line, and leaves when it has had nothing
to do for ``idle`` seconds (exit status 0; default :data:`IDLE_EXIT`).

endplay is imported where it is used, never by the server's process."""

from __future__ import annotations

import json
import os
import select
import sys
import threading
import time
from typing import IO, Any

from bridge import Deal, Seat, Strain, Vulnerability
from robots.dds import endplay_without_its_package
from server.config import Analysis, BoardSpec
from server.redis_process import death_signal

__all__ = ["DELAY_VARIABLE", "IDLE_EXIT", "analyse"]

IDLE_EXIT = 60.0
"""Seconds without a request after which the worker leaves (its memory back to the system);
the next request starts another."""
DELAY_VARIABLE = "DUPLICATE_ANALYSIS_DELAY"
"""A test hook: the environment variable whose value, in seconds, the worker waits before
working out each request (unset or empty: no wait). The worker inherits the server's
environment, so ``DUPLICATE_ANALYSIS_DELAY=3600 duplicate serve ...`` holds every analysis
back for an hour: the crash tests kill such a server while its analysis is surely still to
come (tests/server/test_analysis_crash.py)."""

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
from two matches created together, corrupted its memory and crashed the server when it ran
in the server's threads). The worker asks one deal at a time anyway; a program that calls
:func:`analyse` from several threads (a benchmark) is kept safe by it."""
_VUL = {
    Vulnerability.NONE: "none",
    Vulnerability.NS: "ns",
    Vulnerability.EW: "ew",
    Vulnerability.BOTH: "both",
}
"""endplay's ``Vul`` member of each vulnerability, by name."""


def analyse(deal: Deal, dealer: Seat, vulnerability: Vulnerability) -> Analysis:
    """Solve the deal double dummy (a tenth of a second or so) and find its par; one deal at
    a time, whichever thread asks."""
    from endplay.dds import calc_dd_table, par
    from endplay.types import Deal as EndplayDeal
    from endplay.types import Penalty, Player, Vul

    with _SOLVER:
        table = calc_dd_table(EndplayDeal(deal.to_pbn()))
        rows = table.to_list()
        result = par(table, Vul[_VUL[vulnerability]], Player(int(dealer)))
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


def _work(
    requests: IO[bytes], answers: IO[bytes], idle: float = IDLE_EXIT, delay: float = 0.0
) -> None:
    """The worker: analyse each request line until the server closes its end, or sends
    nothing for ``idle`` seconds; ``delay``: seconds it waits before each (the test hook of
    :data:`DELAY_VARIABLE`). (The server sends a request only once the one before is
    answered, so nothing is ever left in the reader's buffer when it waits.)"""
    while select.select([requests], [], [], idle)[0] and (line := requests.readline()):
        if delay > 0:
            time.sleep(delay)
        try:
            boards = [BoardSpec.from_json(board) for board in json.loads(line)]
            found = {b.number: analyse(b.deal, b.dealer, b.vulnerability) for b in boards}
            answer: list[Any] = ["ok", {n: a.to_json() for n, a in found.items()}]
        except Exception as error:  # a bad request is answered, never the end of the worker
            answer = ["error", f"{type(error).__name__}: {error}"]
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()


def main(parent: int, idle: float = IDLE_EXIT) -> None:
    """The worker of server process ``parent`` (started at the lowest priority: see
    ``server.analysis``)."""
    set_death_signal = death_signal(parent)
    if set_death_signal is not None:
        set_death_signal()
    endplay_without_its_package()
    from endplay._dds import SetMaxThreads

    SetMaxThreads(1)
    # Answers go out on a copy of standard output; anything the solver prints (it does, on
    # a bad deal) goes to standard error instead of into an answer.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _work(sys.stdin.buffer, answers, idle, float(os.environ.get(DELAY_VARIABLE) or 0))

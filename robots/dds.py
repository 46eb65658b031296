"""Double-dummy solving of play positions for the strong robots: endplay's solver (Bo
Haglund's DDS), fed its own structures directly.

A :class:`Position` is any moment of the play: the cards each hand still holds, the trump,
who led the current trick and what has been played to it. :func:`solve` answers, for a batch
of positions, how many of the remaining tricks (the current one included) the side on play
takes after each card it may play, with every hand in view and best play all round. A batch
is handed to the solver at once, which spreads it over the machine's cores.

The solver is not thread-safe (see ``server.solver``): calls are serialised by a lock. It
runs in C without Python's lock held, so a thread that waits for it does not stop others.

>>> from bridge import Deal, Seat, Strain
>>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
>>> hands = tuple(deal[seat].mask for seat in Seat)
>>> [tricks] = solve([Position(hands, Strain.NOTRUMP, Seat.EAST, ())])
>>> len(tricks), tricks[Card.parse("DK")], tricks[Card.parse("CA")]
(13, 5, 5)
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bridge import Card, Seat, Strain
from bridge.cards import Rank, Suit

__all__ = ["Position", "endplay_without_its_package", "solve", "use_one_thread"]

_LOCK = threading.Lock()
_BATCH = 200
"""Boards per call of the solver (its MAXNOOFBOARDS)."""


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of the play. ``hands`` are the cards each seat still holds (52-bit masks of
    :attr:`Card.index` bits, indexed by :class:`Seat`), without the cards of the current
    trick; ``trick`` holds those, led by ``leader`` (0 to 3 cards)."""

    hands: tuple[int, int, int, int]
    trump: Strain
    leader: Seat
    trick: tuple[Card, ...] = ()


def endplay_without_its_package() -> None:
    """Let endplay's solver and types be imported without the package's ``__init__``, which
    imports all of endplay: its dealer's plotting pulls in matplotlib, for 80 MB and a second
    more than the solver needs (40 MB, a third of a second). Afterwards the process holds
    that bare package: endplay's modules import as usual (``endplay.types``, ``endplay.dds``),
    but the names the package's ``__init__`` would have gathered (``endplay.Deal``) are not
    there."""
    spec = importlib.util.find_spec("endplay")
    if "endplay" in sys.modules or spec is None or not spec.submodule_search_locations:
        return
    package = types.ModuleType("endplay")
    package.__path__ = list(spec.submodule_search_locations)
    package.__spec__ = spec
    sys.modules["endplay"] = package


def _solver() -> Any:
    endplay_without_its_package()
    from endplay import _dds

    return _dds


def use_one_thread() -> None:
    """Have the solver keep to one thread (by default it takes every core for a batch): for
    a process of its own that must leave the other cores to others."""
    _solver().SetMaxThreads(1)


def solve(positions: Sequence[Position]) -> list[dict[Card, int]]:
    """For each position, each card the side on play may play now, and the tricks that side
    then takes from here (the current trick included) with best play all round."""
    if not positions:
        return []
    dds = _solver()
    answers: list[dict[Card, int]] = []
    with _LOCK:
        for start in range(0, len(positions), _BATCH):
            chunk = positions[start : start + _BATCH]
            boards = dds.boards()
            boards.noOfBoards = len(chunk)
            for index, position in enumerate(chunk):
                _fill(boards.deals[index], position)
                boards.target[index] = -1  # the most tricks...
                boards.solutions[index] = 3  # ... for every card
                boards.mode[index] = 1
            solved = dds.solvedBoards()
            dds.SolveAllBoardsBin(boards, solved)
            answers.extend(_read(solved.solvedBoard[index]) for index in range(len(chunk)))
    return answers


# DDS numbers suits spades 0 to clubs 3 (ours: clubs 0 to spades 3), strains the same with
# notrump 4, and seats North 0 clockwise (as ours). A holding is a bit per rank, 2 to 14.


def _fill(target: Any, position: Position) -> None:
    target.trump = 4 if position.trump == Strain.NOTRUMP else 3 - int(position.trump)
    target.first = int(position.leader)
    for index in range(3):
        if index < len(position.trick):
            card = position.trick[index]
            target.currentTrickSuit[index] = 3 - int(card.suit)
            target.currentTrickRank[index] = int(card.rank)
        else:
            target.currentTrickSuit[index] = 0
            target.currentTrickRank[index] = 0
    for seat, mask in enumerate(position.hands):
        row = target.remainCards[seat]
        for suit in range(4):
            row[3 - suit] = ((mask >> (13 * suit)) & 0x1FFF) << 2


_CARDS = {(suit, int(rank)): Card(Suit(3 - suit), rank) for suit in range(4) for rank in Rank}


def _read(future: Any) -> dict[Card, int]:
    tricks: dict[Card, int] = {}
    for index in range(future.cards):
        score = future.score[index]
        if score < 0:
            continue
        suit = future.suit[index]
        holding = (1 << future.rank[index]) | future.equals[index]
        for rank in range(2, 15):
            if holding >> rank & 1:
                tricks[_CARDS[(suit, rank)]] = score
    return tricks

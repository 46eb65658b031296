"""The 8-player teams match (RULES.md 6.1): two tables, every board at both, IMPs per board.

Team A sits North-South at table 1 and East-West at table 2. A board's swing for team A
is the IMP value of (table 1's N-S score) - (table 2's N-S score); team B gets the opposite.

>>> from bridge import Contract, Seat
>>> match = TeamsMatch(boards=(1,))
>>> match = match.record(1, 1, TableResult.played(1, Contract.parse("4S"), Seat.NORTH, 10))
>>> match = match.record(1, 2, TableResult.played(1, Contract.parse("3S"), Seat.NORTH, 10))
>>> match.comparison(1).swing, match.total, match.winner
(6, 6, 'A')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from bridge.auction import Contract
from bridge.boards import Vulnerability, board_vulnerability
from bridge.cards import Seat
from bridge.errors import BridgeError
from bridge.scoring import imps, score

__all__ = ["BoardComparison", "TableResult", "TeamsMatch"]

Team = Literal["A", "B"]


@dataclass(frozen=True, slots=True)
class TableResult:
    """What one table did on one board: contract (None when passed out), declarer, tricks.

    ``ns_score`` is the table's duplicate score signed from North-South.
    """

    contract: Contract | None
    declarer: Seat | None
    tricks: int
    vulnerability: Vulnerability
    ns_score: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "ns_score", score(self.contract, self.declarer, self.vulnerability, self.tricks)
        )

    @classmethod
    def played(
        cls, board: int, contract: Contract | None, declarer: Seat | None, tricks: int
    ) -> TableResult:
        """The result of ``board`` with the board number's standard vulnerability."""
        return cls(contract, declarer, tricks, board_vulnerability(board))

    @classmethod
    def passed_out(cls, board: int) -> TableResult:
        """A board passed out at this table: it scores 0 and is still compared."""
        return cls(None, None, 0, board_vulnerability(board))

    def __str__(self) -> str:
        if self.contract is None or self.declarer is None:
            return "passed out"
        made = self.tricks - self.contract.tricks_needed
        outcome = "=" if made == 0 else f"{made:+d}"
        return f"{self.contract} {self.declarer.letter} {outcome}"


@dataclass(frozen=True, slots=True)
class BoardComparison:
    """One board compared across the two tables: the swing is team A's IMPs (B gets -swing)."""

    board: int
    table1: TableResult
    table2: TableResult

    @property
    def difference(self) -> int:
        """Table 1's N-S score minus table 2's: team A's net points on the board."""
        return self.table1.ns_score - self.table2.ns_score

    @property
    def swing(self) -> int:
        """Team A's IMPs on the board (negative when team B gained)."""
        return imps(self.difference)


@dataclass(frozen=True)
class TeamsMatch:
    """A teams match as a value: record results to get a new match; read swings and totals.

    ``boards`` are the board numbers played (1..4 in the standard 4-board match).
    """

    boards: tuple[int, ...]
    team_a: str = "A"
    team_b: str = "B"
    results: Mapping[tuple[int, int], TableResult] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        if not self.boards:
            raise BridgeError("a match has at least one board")
        if len(set(self.boards)) != len(self.boards):
            raise BridgeError(f"board numbers repeat: {self.boards}")
        for number in self.boards:
            board_vulnerability(number)  # validates the number
        object.__setattr__(self, "results", MappingProxyType(dict(self.results)))

    @classmethod
    def of(cls, count: int, team_a: str = "A", team_b: str = "B") -> TeamsMatch:
        """A match of boards 1..``count``."""
        return cls(tuple(range(1, count + 1)), team_a, team_b)

    def record(self, board: int, table: int, result: TableResult) -> TeamsMatch:
        """A new match with ``table`` (1 or 2)'s result of ``board`` recorded.

        A board's result is recorded once per table; a second result raises BridgeError.
        """
        if board not in self.boards:
            raise BridgeError(f"board {board} is not in this match")
        if table not in (1, 2):
            raise BridgeError(f"a teams match has tables 1 and 2, not {table!r}")
        if (board, table) in self.results:
            raise BridgeError(f"board {board} at table {table} already has a result")
        return replace(self, results={**self.results, (board, table): result})

    def comparison(self, board: int) -> BoardComparison | None:
        """The board compared across the tables, or None until both tables have finished it."""
        table1 = self.results.get((board, 1))
        table2 = self.results.get((board, 2))
        if table1 is None or table2 is None:
            return None
        return BoardComparison(board, table1, table2)

    @property
    def comparisons(self) -> list[BoardComparison]:
        """Every board finished at both tables, in match order."""
        found = (self.comparison(board) for board in self.boards)
        return [comparison for comparison in found if comparison is not None]

    @property
    def imps_a(self) -> int:
        """IMPs won by team A so far (the sum of its positive swings)."""
        return sum(max(c.swing, 0) for c in self.comparisons)

    @property
    def imps_b(self) -> int:
        """IMPs won by team B so far."""
        return sum(max(-c.swing, 0) for c in self.comparisons)

    @property
    def total(self) -> int:
        """Team A's running total: A's IMPs minus B's."""
        return sum(c.swing for c in self.comparisons)

    def running_totals(self) -> list[tuple[int, int]]:
        """(board, team A's running total after it) for each compared board, in order."""
        totals: list[tuple[int, int]] = []
        running = 0
        for comparison in self.comparisons:
            running += comparison.swing
            totals.append((comparison.board, running))
        return totals

    @property
    def is_complete(self) -> bool:
        """True when every board has been finished at both tables."""
        return len(self.comparisons) == len(self.boards)

    @property
    def winner(self) -> Team | Literal["draw"] | None:
        """``"A"``, ``"B"`` or ``"draw"`` once the match is complete; None before."""
        if not self.is_complete:
            return None
        total = self.total
        return "A" if total > 0 else "B" if total < 0 else "draw"

"""The 8-player teams match (RULES.md 6.1): two tables, every board at both, IMPs per board.

Team A sits North-South at table 1 and East-West at table 2. A board's swing for team A
is the IMP value of (table 1's N-S score) - (table 2's N-S score); team B gets the opposite.
The director may adjust a board (Laws 12 and 86): assign a table's result
(:meth:`TeamsMatch.assign`), give an artificial score in IMPs (:meth:`TeamsMatch.adjust`),
or void the board (:meth:`TeamsMatch.void`).

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
from functools import cached_property
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
    """One board compared across the two tables: the swing is team A's IMPs (B gets -swing).

    A director's adjustment can stand in for the comparison of the two results:
    ``artificial`` is an artificial adjusted score, team A's IMPs (+3 is average-plus to A
    and average-minus to B), and a ``void`` board is worth 0 to both. The results present
    (maybe none) are then kept for the record. ``assigned`` holds the tables (1, 2) whose
    result the director assigned.

    >>> BoardComparison(1, None, None, artificial=3).swing
    3
    """

    board: int
    table1: TableResult | None
    table2: TableResult | None
    artificial: int | None = None
    void: bool = False
    assigned: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if self.artificial is not None:
            _check_artificial(self.artificial)
            if self.void:
                raise BridgeError("a voided board has no artificial score")
        elif not self.void and (self.table1 is None or self.table2 is None):
            raise BridgeError(
                f"board {self.board} is compared with both results, or adjusted, or voided"
            )
        if not self.assigned <= {1, 2}:
            raise BridgeError(f"a teams match has tables 1 and 2, not {set(self.assigned)}")

    @property
    def difference(self) -> int | None:
        """Table 1's N-S score minus table 2's (team A's net points); None without both."""
        if self.table1 is None or self.table2 is None:
            return None
        return self.table1.ns_score - self.table2.ns_score

    @property
    def swing(self) -> int:
        """Team A's IMPs on the board (negative when team B gained); 0 when it is void."""
        if self.void:
            return 0
        if self.artificial is not None:
            return self.artificial
        difference = self.difference
        return 0 if difference is None else imps(difference)  # both results: __post_init__


def _check_artificial(imps_a: int) -> None:
    if isinstance(imps_a, bool) or not isinstance(imps_a, int) or not -24 <= imps_a <= 24:
        raise BridgeError(f"an artificial score is -24 to 24 IMPs, got {imps_a!r}")


@dataclass(frozen=True)
class TeamsMatch:
    """A teams match as a value: record results to get a new match; read swings and totals.

    ``boards`` are the board numbers played (1..4 in the standard 4-board match).
    ``results`` maps (board, table) to the table's result; ``assigned`` holds the
    (board, table) pairs whose result the director assigned; ``artificial_scores`` maps a
    board to team A's IMPs by an artificial adjusted score; ``voided`` holds the voided boards.
    """

    boards: tuple[int, ...]
    team_a: str = "A"
    team_b: str = "B"
    results: Mapping[tuple[int, int], TableResult] = field(
        default_factory=lambda: MappingProxyType({})
    )
    assigned: frozenset[tuple[int, int]] = frozenset()
    artificial_scores: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    voided: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if not self.boards:
            raise BridgeError("a match has at least one board")
        if len(set(self.boards)) != len(self.boards):
            raise BridgeError(f"board numbers repeat: {self.boards}")
        for number in self.boards:
            board_vulnerability(number)  # validates the number
        object.__setattr__(self, "results", MappingProxyType(dict(self.results)))
        object.__setattr__(self, "assigned", frozenset(self.assigned))
        object.__setattr__(
            self, "artificial_scores", MappingProxyType(dict(self.artificial_scores))
        )
        object.__setattr__(self, "voided", frozenset(self.voided))
        if not self.assigned <= self.results.keys():
            raise BridgeError("an assigned result must be one of the results")
        for board, imps_a in self.artificial_scores.items():
            self._check_board(board)
            _check_artificial(imps_a)
        for board in self.voided:
            self._check_board(board)
            if board in self.artificial_scores:
                raise BridgeError(f"board {board} is voided: it has no artificial score")

    @classmethod
    def of(cls, count: int, team_a: str = "A", team_b: str = "B") -> TeamsMatch:
        """A match of boards 1..``count``."""
        return cls(tuple(range(1, count + 1)), team_a, team_b)

    def record(self, board: int, table: int, result: TableResult) -> TeamsMatch:
        """A new match with ``table`` (1 or 2)'s result of ``board`` recorded.

        A board's result is recorded once per table; a second result raises BridgeError
        (the director replaces a result with :meth:`assign`).
        """
        self._check_table(board, table)
        if (board, table) in self.results:
            raise BridgeError(
                f"board {board} at table {table} already has a result (a director assigns one)"
            )
        return replace(self, results={**self.results, (board, table): result})

    def assign(self, board: int, table: int, result: TableResult) -> TeamsMatch:
        """A new match with the director's assigned ``result`` for ``table`` on ``board``.

        It is recorded, or replaces the result already there, and is marked assigned.

        >>> from bridge import Contract, Seat
        >>> match = TeamsMatch.of(1).record(1, 1, TableResult.passed_out(1))
        >>> match = match.assign(1, 1, TableResult.played(1, Contract.parse("3NT"), Seat.NORTH, 9))
        >>> match.results[(1, 1)].ns_score, match.comparison(1) is None, match.assigned
        (400, True, frozenset({(1, 1)}))
        """
        self._check_table(board, table)
        return replace(
            self,
            results={**self.results, (board, table): result},
            assigned=self.assigned | {(board, table)},
        )

    def adjust(self, board: int, imps_a: int) -> TeamsMatch:
        """A new match with an artificial adjusted score on ``board``: team A's IMPs.

        ``imps_a`` is -24 to 24 (else BridgeError); team B gets the opposite. It replaces an
        earlier adjustment of the board, and a voided board is no longer void.

        >>> TeamsMatch.of(1).adjust(1, 3).total  # average-plus to A, average-minus to B
        3
        """
        self._check_board(board)
        _check_artificial(imps_a)
        return replace(
            self,
            artificial_scores={**self.artificial_scores, board: imps_a},
            voided=self.voided - {board},
        )

    def void(self, board: int) -> TeamsMatch:
        """A new match with ``board`` voided: it is not compared and is worth 0 to both teams.

        It replaces an artificial score of the board.

        >>> match = TeamsMatch.of(1).void(1)
        >>> match.comparison(1).swing, match.is_complete, match.winner
        (0, True, 'draw')
        """
        self._check_board(board)
        scores = dict(self.artificial_scores)
        scores.pop(board, None)
        return replace(self, artificial_scores=scores, voided=self.voided | {board})

    def comparison(self, board: int) -> BoardComparison | None:
        """The board compared across the tables, or None until both tables have finished it.

        A voided board, or one with an artificial score, is compared whatever results are
        in: they are kept in the comparison for the record.
        """
        table1 = self.results.get((board, 1))
        table2 = self.results.get((board, 2))
        artificial = self.artificial_scores.get(board)
        void = board in self.voided
        if artificial is None and not void and (table1 is None or table2 is None):
            return None
        assigned = frozenset(table for table in (1, 2) if (board, table) in self.assigned)
        return BoardComparison(board, table1, table2, artificial, void, assigned)

    @cached_property
    def comparisons(self) -> tuple[BoardComparison, ...]:
        """Every board compared (both results in, or adjusted, or voided), in match order:
        worked out once per match value (it never changes; a new result makes a new one)."""
        found = (self.comparison(board) for board in self.boards)
        return tuple(comparison for comparison in found if comparison is not None)

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
        """True when every board has been compared (a voided or adjusted board counts)."""
        return len(self.comparisons) == len(self.boards)

    @property
    def winner(self) -> Team | Literal["draw"] | None:
        """``"A"``, ``"B"`` or ``"draw"`` once the match is complete; None before."""
        if not self.is_complete:
            return None
        total = self.total
        return "A" if total > 0 else "B" if total < 0 else "draw"

    def _check_board(self, board: int) -> None:
        if board not in self.boards:
            raise BridgeError(f"board {board} is not in this match")

    def _check_table(self, board: int, table: int) -> None:
        self._check_board(board)
        if table not in (1, 2):
            raise BridgeError(f"a teams match has tables 1 and 2, not {table!r}")

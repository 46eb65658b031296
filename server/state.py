"""A match's state, folded from its event log. Pure: no I/O, no clock, no randomness.

The store keeps three logs per match: one per table (its calls, cards, claims, chat, board
starts, and the comparisons and the end of the match once they happen) and one for
watchers (every table event tagged with its table, plus the comparisons). Folding the
watchers' log gives the whole match; folding a table's log gives all that table's players
may ever learn. Actions are checked by applying them: :meth:`MatchState.apply` raises a
:class:`bridge.BridgeError` and changes nothing when the laws refuse them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from bridge import (
    Auction,
    BridgeError,
    Call,
    Card,
    Contract,
    Deal,
    IllegalCall,
    Play,
    Seat,
    Vulnerability,
    WrongPhase,
)
from bridge.formats import TableResult, TeamsMatch
from bridge.play import Claim

__all__ = ["BoardSpec", "BoardState", "MatchConfig", "MatchState", "StoredEvent", "TableState"]

StoredEvent = dict[str, Any]
"""One entry of a log, as stored (JSON): ``{"type": "call", "seat": "N", "call": "1S", ...}``."""

ENDING_EVENTS = frozenset({"call", "card", "answer", "rule"})
"""The table events that can finish a board."""

SpectatorMode = Literal["live", "delayed", "off"]
MatchFormat = Literal["teams", "robot-table"]


@dataclass(frozen=True, slots=True)
class Analysis:
    """A board solved double dummy (``server.analysis``): ``tricks[seat][strain]`` for each
    declarer, the par score (from North-South) and the par contracts (``"4S N ="``)."""

    tricks: dict[str, dict[str, int]]
    par_score: int
    par_contracts: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"tricks": self.tricks, "par_score": self.par_score, "par": list(self.par_contracts)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Analysis:
        return cls(data["tricks"], data["par_score"], tuple(data["par"]))


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """One board of a match: its number, dealer, vulnerability, the four hands, and their
    double-dummy analysis (shown only with the board's comparison)."""

    number: int
    dealer: Seat
    vulnerability: Vulnerability
    deal: Deal
    analysis: Analysis | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dealer": self.dealer.letter,
            "vulnerability": self.vulnerability.value,
            "deal": self.deal.to_pbn(),
            "analysis": None if self.analysis is None else self.analysis.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardSpec:
        analysis = data.get("analysis")
        return cls(
            data["number"],
            Seat.parse(data["dealer"]),
            Vulnerability.parse(data["vulnerability"]),
            Deal.from_pbn(data["deal"]),
            None if analysis is None else Analysis.from_json(analysis),
        )


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What the organiser set up: the teams, the boards in order, the spectator mode."""

    match_id: str
    team_a: str
    team_b: str
    boards: tuple[BoardSpec, ...]
    spectators: SpectatorMode = "live"
    format: MatchFormat = "teams"
    """``teams`` (RULES.md 6.1) or ``robot-table`` (6.2: table 2 is the robots' table)."""
    robots: tuple[tuple[int, str], ...] = ()
    """(table, seat letter) of the seats the server's robots play."""

    def to_json(self) -> str:
        return json.dumps(
            {
                "match_id": self.match_id,
                "team_a": self.team_a,
                "team_b": self.team_b,
                "boards": [board.to_json() for board in self.boards],
                "spectators": self.spectators,
                "format": self.format,
                "robots": [list(seat) for seat in self.robots],
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchConfig:
        data = json.loads(text)
        return cls(
            data["match_id"],
            data["team_a"],
            data["team_b"],
            tuple(BoardSpec.from_json(board) for board in data["boards"]),
            data["spectators"],
            data.get("format", "teams"),
            tuple((table, seat) for table, seat in data.get("robots", [])),
        )

    def team_of(self, table: int, seat: Seat) -> Literal["A", "B"]:
        """Team A sits N-S at table 1 and E-W at table 2."""
        return "A" if (table == 1) == seat.is_north_south else "B"


def result_to_json(result: TableResult) -> dict[str, Any]:
    """A table's result as stored (and as compared by the store's script)."""
    return {
        "contract": None if result.contract is None else str(result.contract),
        "declarer": None if result.declarer is None else result.declarer.letter,
        "tricks": result.tricks,
        "vulnerability": result.vulnerability.value,
        "ns_score": result.ns_score,
    }


def result_from_json(data: dict[str, Any]) -> TableResult:
    contract = data["contract"]
    declarer = data["declarer"]
    return TableResult(
        None if contract is None else Contract.parse(contract),
        None if declarer is None else Seat.parse(declarer),
        data["tricks"],
        Vulnerability.parse(data["vulnerability"]),
    )


@dataclass
class BoardState:
    """One board at one table: the auction, the play, alerts, the claim and the result."""

    spec: BoardSpec
    auction: Auction
    alerts: dict[int, str] = field(default_factory=dict)
    play: Play | None = None
    result: TableResult | None = None
    claim: Claim | None = None
    """The pending claim, or the last one answered (kept for display)."""
    claim_rejected: bool = False
    """A claim was rejected: the director is called and the play waits for a ruling."""
    questions: set[int] = field(default_factory=set)
    """Calls (by index) an opponent asked about that their caller has not explained yet."""

    @classmethod
    def start(cls, spec: BoardSpec) -> BoardState:
        return cls(spec, Auction(spec.dealer))

    @property
    def phase(self) -> Literal["auction", "play", "claim", "director", "finished"]:
        if self.result is not None:
            return "finished"
        if self.play is None:
            return "auction"
        if self.claim_rejected:
            return "director"
        if self.play.pending_claim is not None:
            return "claim"
        return "play"


@dataclass
class TableState:
    """One table: the boards it has started, in order, and its chat."""

    number: int
    boards: list[BoardState] = field(default_factory=list)
    chat: list[tuple[Seat, str]] = field(default_factory=list)

    @property
    def current(self) -> BoardState | None:
        """The board in play, or the last one played; None before the first board."""
        return self.boards[-1] if self.boards else None

    @property
    def results(self) -> list[tuple[int, TableResult]]:
        """(board number, result) for each board this table has finished."""
        return [(b.spec.number, b.result) for b in self.boards if b.result is not None]


class MatchState:
    """A match folded from events: both tables (as far as fed) and the comparisons."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.tables = {1: TableState(1), 2: TableState(2)}
        self.match = TeamsMatch(
            tuple(b.number for b in config.boards), config.team_a, config.team_b
        )
        self.finished = False

    # -- folding ---------------------------------------------------------------------

    def apply(self, table: int, event: StoredEvent) -> BoardState | None:
        """Fold one event. Table events (``table`` 1 or 2) are checked by the laws and raise
        a :class:`BridgeError`, changing nothing, when refused; match events (``table`` 0:
        ``compared``, ``finished``) are the store's own. Returns the board a table event
        touched."""
        kind = event.get("type")
        if table == 0:
            if kind == "compared":
                board = event["board"]
                match = self.match
                for number in (1, 2):
                    match = match.record(board, number, result_from_json(event[f"table{number}"]))
                self.match = match
            elif kind == "finished":
                self.finished = True
            else:
                raise BridgeError(f"unknown match event {kind!r}")
            return None
        state = self.tables[table]
        if kind == "start":
            index = len(state.boards)
            if (
                index >= len(self.config.boards)
                or self.config.boards[index].number != event["board"]
            ):
                raise BridgeError(f"board {event['board']} is not next at table {table}")
            if state.current is not None and state.current.result is None:
                raise WrongPhase("the board in play is not finished")
            board = BoardState.start(self.config.boards[index])
            state.boards.append(board)
            return board
        if kind == "chat":
            state.chat.append((Seat.parse(event["seat"]), event["text"]))
            return state.current
        board = state.current
        if board is None or board.result is not None:
            raise WrongPhase("no board is in play at this table")
        seat = Seat.parse(event["seat"]) if "seat" in event else None
        if kind == "call":
            self._call(board, seat, event)
        elif kind == "card":
            self._card(board, seat, event)
        elif kind == "claim":
            self._claim(board, seat, event)
        elif kind == "answer":
            self._answer(board, seat, event)
        elif kind == "rule":
            self._rule(board, event)
        elif kind == "ask":
            self._ask(board, seat, event)
        elif kind == "explain":
            self._explain(board, seat, event)
        else:
            raise BridgeError(f"unknown table event {kind!r}")
        return board

    def _call(self, board: BoardState, seat: Seat | None, event: StoredEvent) -> None:
        if board.play is not None:
            raise WrongPhase("the auction is over: the play has begun")
        assert seat is not None
        board.auction.call(Call.parse(event["call"]), seat=seat)
        if event.get("alert"):
            board.alerts[len(board.auction.calls) - 1] = event["alert"]
        if board.auction.is_complete:
            contract, declarer = board.auction.contract, board.auction.declarer
            if contract is None or declarer is None:
                board.result = TableResult(None, None, 0, board.spec.vulnerability)
            else:
                board.play = Play(board.spec.deal, contract, declarer)

    def _require_play(self, board: BoardState) -> Play:
        if board.play is None:
            raise WrongPhase("the play has not begun: the auction is on")
        if board.claim_rejected:
            raise WrongPhase("a claim was rejected: the director must rule first")
        return board.play

    def _card(self, board: BoardState, seat: Seat | None, event: StoredEvent) -> None:
        play = self._require_play(board)
        assert seat is not None
        play.play(Card.parse(event["card"]), seat=seat)
        self._finish_if_done(board, play)

    def _claim(self, board: BoardState, seat: Seat | None, event: StoredEvent) -> None:
        play = self._require_play(board)
        assert seat is not None
        board.claim = play.claim(seat, event["tricks"])

    def _answer(self, board: BoardState, seat: Seat | None, event: StoredEvent) -> None:
        play = self._require_play(board)
        assert seat is not None
        if event["accept"]:
            board.claim = play.accept_claim(seat)
            self._finish_if_done(board, play)
        else:
            board.claim = play.reject_claim(seat)
            board.claim_rejected = True

    @staticmethod
    def caller(board: BoardState, index: int) -> Seat:
        """Who made call ``index`` of the board's auction (IllegalCall if there is none)."""
        if not 0 <= index < len(board.auction.calls):
            raise IllegalCall(f"there is no call number {index} in this auction")
        return Seat((board.spec.dealer + index) % 4)

    def _ask(self, board: BoardState, seat: Seat | None, event: StoredEvent) -> None:
        assert seat is not None
        if self.caller(board, event["index"]) in (seat, seat.partner):
            raise IllegalCall("ask about the opponents' calls; your side's are yours to explain")
        board.questions.add(event["index"])

    def _explain(self, board: BoardState, seat: Seat | None, event: StoredEvent) -> None:
        if self.caller(board, event["index"]) != seat:
            raise IllegalCall("each player explains their own calls only")
        board.alerts[event["index"]] = event["text"]
        board.questions.discard(event["index"])

    def _rule(self, board: BoardState, event: StoredEvent) -> None:
        if board.play is None:
            raise WrongPhase("there is nothing to rule on before the play")
        if not board.claim_rejected:
            raise WrongPhase("the director rules only on a rejected claim")
        board.play.rule(event["tricks"])
        board.claim_rejected = False
        self._finish_if_done(board, board.play)

    @staticmethod
    def _finish_if_done(board: BoardState, play: Play) -> None:
        if play.is_complete:
            board.result = TableResult(
                play.contract, play.declarer, play.declarer_tricks, board.spec.vulnerability
            )

    # -- what the store must append after an event ---------------------------------------

    def next_board(self, table: int) -> int | None:
        """The number of the board to start at ``table`` now, if any."""
        state = self.tables[table]
        if state.current is not None and state.current.result is None:
            return None
        index = len(state.boards)
        return self.config.boards[index].number if index < len(self.config.boards) else None

"""A match's state, folded from its event log. Pure: no I/O, no clock, no randomness.

The store keeps a log per table of the match's movement (its calls, cards, claims, chat,
board starts, the names and presence of the players sitting there, and the comparisons
and the end of the match once they happen) and one for watchers (every table event tagged
with its table, plus the match events). Folding the watchers' log gives the whole match;
who sits where follows from the movement and each table's round (a board start names
it), so that a player's updates are the entries of the table where they sat then. Actions are checked by applying them:
:meth:`MatchState.apply` raises a :class:`bridge.BridgeError` and changes nothing when the
laws refuse them. Times (``at``, milliseconds since the epoch) are data in the events,
written by the server when it logged them.

Table events (``seat`` a letter, ``at`` on each):

- ``start`` {board, round (none before movements: round 1), calls? (an imposed auction)}
- ``call`` {seat, call, alert?}; ``card`` {seat, card}; ``lead_face_down`` {seat, card} (the
  opening lead, in a match whose leads are made face down); ``lead_faced`` {seat} (the
  leader's partner faces it: it is played)
- ``claim`` {seat, tricks, statement?}; ``answer`` {seat, accept} (a rejection, in a match
  with disputes, is a dispute: the play stops for the director); ``withdraw_claim`` {seat};
  ``withdrawal_asked`` {seat} (to withdraw a concession); ``withdraw_concession`` {seat} (the
  director allowed it; a match stored before logged it as the player withdrew);
  ``withdrawal_refused`` {seat} (the director)
- ``undo_request`` {seat}; ``undo_answer`` {seat? (none: the director), accept};
  ``undo`` {} (the director takes back the last call or card)
- ``rule`` {tricks, by? ("server": its ruling on a claim a program disputed)}; ``assign``
  {board, contract, declarer, tricks} (the director)
- ``ask`` {seat, index, caller}; ``explain`` {seat, index, text}
- ``chat`` {seat? (none: the director), text, to}; ``director_call`` {seat, text?}
- ``name`` {seat, name?}; ``presence`` {seat, connected, robot}; ``substitute`` {seat, robot}
- ``ready`` {seat}; ``review_over`` {board}
- ``time_up`` {round} (the round's clock ran out with boards to play)

Match events (logged at "table 0", in every log): ``compared`` {board, plays: [{round,
table, result}], fix} (before movements: {board, table1, table2, fix}), ``finished``,
``release`` {round} (the director starts a held round).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from bridge import (
    Auction,
    BridgeError,
    Call,
    Card,
    Contract,
    Deal,
    IllegalCall,
    IllegalPlay,
    OutOfTurn,
    Play,
    Seat,
    Vulnerability,
    WrongPhase,
)
from bridge.formats import SessionScore, TableResult, TeamsMatch
from bridge.play import Claim
from server.config import Analysis, BoardSpec, MatchConfig

__all__ = [
    "BoardState",
    "Effect",
    "MatchState",
    "StoredEvent",
    "TableState",
]

StoredEvent = dict[str, Any]
"""One entry of a log, as stored (JSON): ``{"type": "call", "seat": "N", "call": "1S", ...}``."""

ClaimStatus = Literal["pending", "accepted", "rejected", "withdrawn", "disputed"]

_EPOCHS = itertools.count()
"""The epochs of :attr:`MatchState.epoch`, unique in the process."""
PLAIN_BOARD_KEYS = (
    "phase",
    "hands",
    "hand_sizes",
    "auction",
    "contract",
    "declarer",
    "dummy",
    "tricks",
    "last_trick",
    "current_trick",
    "turn",
    "acting",
    "tricks_ns",
    "tricks_ew",
    "claim",
    "undo",
    "legal",
    "actions",
)
"""The fields of a board view (in its order) that a plain call, card or ready may change
(:meth:`MatchState.plain`); nothing else of any view changes with one but a player's
``review`` (:data:`PLAIN_VIEW_KEYS`)."""
PLAIN_VIEW_KEYS = ("review",)
"""The fields of a player's view besides its board's that a plain event may change: the
seats ready for the next board, with a plain ready."""
PLAIN_KINDS = frozenset({"call", "card", "ready", "claim", "answer"})
"""The events that may be plain (:meth:`MatchState.plain`)."""
PLAY_EVENTS = frozenset(
    {
        "call",
        "card",
        "lead_face_down",
        "lead_faced",
        "claim",
        "answer",
        "withdraw_claim",
        "undo_request",
        "undo_answer",
        "undo",
    }
)
"""The table events of the play itself (refused once the match is over)."""
TABLE_EVENTS = PLAY_EVENTS | {
    "ask",
    "explain",
    "chat",
    "director_call",
    "calls_seen",
    "calls_closed",
    "presence",
}
"""The table events that, unless they finish a board (or do more: :class:`Effect`), change
nothing that a player at another table sees: its board, its players' presence, its chat and
calls to the director (not a name, which the next seats of others show, nor a board's end,
which their results and waits do)."""
PEOPLE_EVENTS = frozenset({"name", "presence", "substitute"})
"""The events that change :attr:`MatchState.people` (the only ones a checkpoint copies it
for)."""
MATCH_EVENTS = frozenset({"compared", "finished", "release", "analysed"})
"""Events logged for the whole match (at every table and for watchers)."""
EXTRA_EVENTS = frozenset(
    {
        "chat",
        "claim",
        "withdraw_claim",
        "withdraw_concession",
        "withdrawal_asked",
        "undo_request",
        "undo_answer",
        "ask",
        "explain",
        "director_call",
        "name",
    }
)
"""A player's events that the play does not bound (counted in :attr:`BoardState.extras`)."""


Decision = Literal["ruled", "assigned"]
"""How the director decided a table's result, when the play did not: ``ruled`` (the play
ended by a ruling, ``rule``), ``assigned`` (an assigned adjusted score)."""


def result_to_json(result: TableResult, decided: Decision | None = None) -> dict[str, Any]:
    """A table's result as stored (and as compared by the store's script)."""
    data: dict[str, Any] = {
        "contract": None if result.contract is None else str(result.contract),
        "declarer": None if result.declarer is None else result.declarer.letter,
        "tricks": result.tricks,
        "vulnerability": result.vulnerability.value,
        "ns_score": result.ns_score,
    }
    if decided is not None:
        data[decided] = True
    return data


def decision_of(data: dict[str, Any]) -> Decision | None:
    """How a stored result (:func:`result_to_json`) was decided, if by the director."""
    return "assigned" if data.get("assigned") else "ruled" if data.get("ruled") else None


def compared_plays(event: StoredEvent) -> list[tuple[int, int, dict[str, Any] | None]]:
    """(round, table, result) of each play in a ``compared`` event (logged before
    movements: ``table1`` and ``table2``, round 1)."""
    if "plays" in event:
        return [(p["round"], p["table"], p["result"]) for p in event["plays"]]
    return [(1, table, event.get(f"table{table}")) for table in (1, 2)]


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
class ClaimState:
    """The last claim of a board: pending, or settled and kept for display."""

    claim: Claim
    statement: str | None
    status: ClaimStatus = "pending"
    disputed_by: Seat | None = None
    """Who disputed the claim (law 68D), once someone did."""
    withdrawal: Seat | None = None
    """Who asked the director to let their side withdraw the concession (laws 69 and 71),
    while the director has not decided: the board stays finished, and on review, until then."""


@dataclass(frozen=True, slots=True)
class UndoRequest:
    """A player's request to take back their last call or card."""

    seat: Seat
    call: Call | None
    card: Card | None
    deciders: frozenset[Seat]
    accepted: frozenset[Seat] = frozenset()


@dataclass
class BoardState:
    """One board at one table: the auction, the play, alerts, claims, undo requests, the
    result and the review after it."""

    spec: BoardSpec
    auction: Auction
    round: int = 1
    """The round of the movement in which the table plays the board."""
    alerts: dict[int, str] = field(default_factory=dict)
    play: Play | None = None
    result: TableResult | None = None
    assigned: bool = False
    """The director assigned the result."""
    ruled: bool = False
    """The director's ruling ended the play (``rule``)."""
    claim: ClaimState | None = None
    undo: UndoRequest | None = None
    questions: set[int] = field(default_factory=set)
    """Calls (by index) an opponent asked about that their caller has not explained yet."""
    finished_at: int | None = None
    ready: set[Seat] = field(default_factory=set)
    """Seats that asked for the next board while this one is on review."""
    committed: bool = False
    """The table is done with the board: the review is over and its result is stored for
    the comparison (or the director ended the board without one)."""
    abandoned: bool = False
    """The director voided the board (or gave it an artificial score) while it was played."""
    fixed: bool = False
    """The director voided the board or gave it an artificial score: its result no longer
    counts, and a concession in it cannot be withdrawn."""
    taken_back: tuple[Seat, Call | None, Card | None] | None = None
    """The call or card the last undo event took back (who made it, which), if it took one."""
    extras: dict[Seat, int] = field(default_factory=dict)
    """How many of the table's events besides calls and cards each seat logged while this
    board was the table's (chat, claims, undo requests, questions...): the server bounds
    them, so that no player can grow a match's log without end."""
    presences: dict[Seat, int] = field(default_factory=dict)
    """How many presence events each seat had logged while this board was the table's."""
    begun_at: int | None = None
    """When the board's first call (or card) was made: a round's clock starts with its
    first board's."""
    time_up: bool = False
    """The round's time ran out while this board was the table's (``time_up``)."""
    gathered: bool = True
    """The table's four players have been there at once since the board started (or the
    match does not wait for them): its first call or card may be made."""
    director_lines: int = 0
    """How many chat lines the director sent the table while this board was the table's:
    the server bounds them too (a director's link can leak like any other)."""
    links: dict[tuple[object, ...], str | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    """The finished board's hand-viewer links made so far, by everything they are made of
    (:func:`server.views`): a board on review is shown again and again."""
    shown: dict[object, Any] = field(default_factory=dict, compare=False, repr=False)
    """What :mod:`server.views` made of the board for one view and may use again for the
    next, each part kept with what it was made of (its own, never read here); only while
    the board is its table's last (emptied when the next starts)."""

    @classmethod
    def start(cls, spec: BoardSpec, round_number: int = 1) -> BoardState:
        return cls(spec, Auction(spec.dealer), round_number)

    @property
    def decided(self) -> Decision | None:
        """How the director decided the result, if the play did not."""
        return "assigned" if self.assigned else "ruled" if self.ruled else None

    def copy(self) -> BoardState:
        """An independent copy, to fold an event into that may be undone: what a fold changes
        in place is copied; the spec and the immutable values are shared. (A deep copy cost
        a millisecond and more per action.)"""
        return replace(
            self,
            auction=self.auction.copy(),
            alerts=dict(self.alerts),
            play=None if self.play is None else self.play.copy(),
            claim=None if self.claim is None else copy.copy(self.claim),
            questions=set(self.questions),
            ready=set(self.ready),
            extras=dict(self.extras),
            presences=dict(self.presences),
            links=dict(self.links),
            shown=dict(self.shown),
        )

    @property
    def is_finished(self) -> bool:
        return self.result is not None or self.abandoned

    @property
    def phase(self) -> Literal["auction", "play", "claim", "finished"]:
        if self.is_finished:
            return "finished"
        if self.play is None:
            return "auction"
        if self.play.pending_claim is not None or self.play.disputed_claim is not None:
            return "claim"
        return "play"

    @property
    def is_reviewing(self) -> bool:
        """Finished, and still on the table: the next board has not started."""
        return self.is_finished and not self.committed

    def last_action(self) -> tuple[Seat, Call | None, Card | None] | None:
        """Who made the table's last call or card, and which (declarer for dummy's card)."""
        play = self.play
        last = None if play is None else play.last_played
        if play is not None and last is not None:
            owner, card = last
            return (play.declarer if owner == play.dummy else owner), None, card
        calls = self.auction.calls
        if not calls:
            return None
        return Seat((self.spec.dealer + len(calls) - 1) % 4), calls[-1], None


@dataclass
class SeatState:
    """Who sits at a seat, and whether they are connected."""

    name: str | None = None
    named: bool = False
    """The organiser named the player: the name cannot be changed from the seat."""
    server_robot: bool = False
    """The server's robot plays the seat."""
    robot: bool = False
    """A program plays the seat: the server's robot, or a client that said it is one."""
    connected: bool = False
    since: int | None = None


@dataclass(frozen=True, slots=True)
class ChatEntry:
    seat: Seat | None
    text: str
    to: frozenset[Seat]
    round: int = 1
    """The round of the table when the line was sent: who sat in the seats then."""


WITHDRAWAL_CALL = "asks to withdraw the concession (laws 69 and 71)"
"""The text of the call for the director that a player's request to withdraw a concession
opens (the browser says it in its language: clients/web/errors.js)."""
DISPUTE_CALL = "disputes the claim: play has stopped until the director rules (law 68D)"
"""The text of the call for the director that a disputed claim opens."""


@dataclass(frozen=True, slots=True)
class DirectorCall:
    seat: Seat
    board: int | None
    text: str | None
    at: int
    state: Literal["open", "seen", "answered"] = "open"
    """``seen``: the director is on the way; ``answered``: the director wrote to the table."""


@dataclass(frozen=True, slots=True)
class Clock:
    """A round's clock at a table (:meth:`MatchState.clock`): its boards, how many are
    played, when it started, when its time is up and when the board in play is due."""

    table: int
    round: int
    boards: int
    played: int
    started_at: int
    ends_at: int
    due_at: int
    time_up: bool

    @property
    def running(self) -> bool:
        """Boards still to play and the time not yet up."""
        return self.played < self.boards and not self.time_up


@dataclass
class TableState:
    """One table: the boards it has started, in order, its chat and director calls."""

    number: int
    boards: list[BoardState] = field(default_factory=list)
    chat: list[ChatEntry] = field(default_factory=list)
    calls: list[DirectorCall] = field(default_factory=list)
    """Calls for the director not closed yet."""

    def close_calls(self, board: int) -> None:
        """A ruling, an assigned result or an adjusted score on ``board``: its calls are
        dealt with, a request to withdraw its concession too (decided, or moot)."""
        self.calls[:] = [call for call in self.calls if call.board != board]
        for played in self.boards:
            if played.spec.number == board and played.claim is not None:
                played.claim.withdrawal = None

    @property
    def current(self) -> BoardState | None:
        """The board in play, or the last one played; None before the first board."""
        return self.boards[-1] if self.boards else None

    @property
    def results(self) -> list[tuple[int, TableResult, Decision | None, int]]:
        """(board number, result, how the director decided it, round) for each board this
        table has finished."""
        return [
            (b.spec.number, b.result, b.decided, b.round)
            for b in self.boards
            if b.result is not None
        ]

    @property
    def round(self) -> int | None:
        """The round the table is in (its board's), None before its first board."""
        current = self.current
        return None if current is None else current.round

    def board(self, number: int, round_number: int | None = None) -> BoardState | None:
        """The table's play of board ``number`` (in ``round_number``; else the latest)."""
        return next(
            (
                b
                for b in reversed(self.boards)
                if b.spec.number == number and round_number in (None, b.round)
            ),
            None,
        )

    def is_between_boards(self) -> bool:
        current = self.current
        return current is None or current.is_finished


@dataclass(frozen=True, slots=True)
class Effect:
    """What one folded event did, for the server to act on: the board it touched, whether it
    finished that board, whether it committed it (its result, if any, is due to the store),
    and the tables whose board in play a director's decision ended."""

    board: BoardState | None = None
    finished: bool = False
    committed: bool = False
    abandoned: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What folding one event may change, as it was before: restored by
    :meth:`MatchState.restore` when the event could not be stored."""

    table: int
    boards: list[BoardState]
    chat: list[ChatEntry]
    calls: list[DirectorCall]
    people: dict[int, SeatState]
    released: set[int]
    finished: bool
    analyses: dict[int, Analysis]


class MatchState:
    """A match folded from events: every table (as far as fed), the players, the
    comparisons."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.tables = {number: TableState(number) for number in config.tables}
        names = dict(config.names)
        robots = {f"{table}{letter}" for table, letter in config.robots}
        self.people: dict[int, SeatState] = {}
        """Each player: their name and presence (they follow the player's moves)."""
        for player in config.movement.players:
            key = config.first_seat(player)
            name = names.get(key)
            robot = key in robots
            self.people[player] = SeatState(name, name is not None, robot, robot)
        self.released: set[int] = set()
        """Held rounds the director started."""
        self.match = TeamsMatch(
            tuple(b.number for b in config.boards), config.team_a, config.team_b
        )
        self.fixed: set[int] = set()
        """Boards the director voided or gave an artificial score."""
        self.compared: dict[int, dict[tuple[int, int], TableResult | None]] = {}
        """Each compared board's result at each of its plays (round, table): None where the
        director's fix stood in for a play."""
        self.compared_assigned: dict[int, frozenset[tuple[int, int]]] = {}
        """Each compared board's plays (round, table) whose result the director assigned, as
        the comparison published them (a result assigned since is not in until the board is
        compared again)."""
        self.compared_ruled: dict[int, frozenset[tuple[int, int]]] = {}
        """Each compared board's plays (round, table) that a ruling ended, as published."""
        plays = [config.movement.plays(number) for number in config.movement.boards]
        self.match_by_table = all(len({t for _r, t in p}) == len(p) == 2 for p in plays)
        """Every board is played once at each of two tables: the match is compared table
        against table (:attr:`match`), as a teams match."""
        self.finished = False
        self.epoch = next(_EPOCHS)
        """Drawn afresh by every fold but a plain call or card (:meth:`plain`) or one that
        changes only its table (:data:`TABLE_EVENTS`, which draw its :attr:`table_epochs`
        instead): two views of a player made at the same epoch and the same epoch of their
        table (of a watcher: the same :attr:`tables_epoch`) differ at most in the fields of
        a board that plain calls and cards change (:data:`PLAIN_BOARD_KEYS`)."""
        self.table_epochs = dict.fromkeys(self.tables, self.epoch)
        """Each table's epoch: drawn afresh by every fold at that table that changes only
        what its players and the watchers see, and neither plain nor global."""
        self.tables_epoch = self.epoch
        """Drawn afresh with any table's epoch."""
        self.analyses: dict[int, Analysis] = {
            spec.number: spec.analysis for spec in config.boards if spec.analysis is not None
        }
        """Each board's double-dummy analysis, once worked out (after the match is created:
        an ``analysed`` match event; a match stored before that has it in its config)."""
        self._standings: (
            tuple[
                dict[int, dict[tuple[int, int], int]],
                list[tuple[str, float]],
                tuple[SessionScore, ...],
            ]
            | None
        ) = None
        """The scores :meth:`standings` last ranked, its answer, and each session's."""

    # -- folding ---------------------------------------------------------------------

    def apply(self, table: int, event: StoredEvent) -> Effect:
        """Fold one event. Table events (``table`` 1 to 3) are checked by the laws and raise
        a :class:`BridgeError`, changing nothing, when refused (an event at a table or of a
        board the match does not have too); match events (``table`` 0: ``compared``,
        ``finished``, the director's ``release``) are checked too."""
        kind = event.get("type")
        effect = self._apply(table, kind, event)
        if self.plain(table, event, effect):
            return effect
        if table != 0 and kind in TABLE_EVENTS and not (effect.finished or effect.abandoned):
            self.table_epochs[table] = self.tables_epoch = next(_EPOCHS)
        else:
            self.epoch = next(_EPOCHS)
        return effect

    def plain(self, table: int, event: StoredEvent, effect: Effect) -> bool:
        """Whether folding ``event`` (just done, doing ``effect``) was a plain call or card:
        not the board's first call in a match with a clock (it starts the clock), nor one
        that ended the board, no claim or undo request standing, no lead face down; or a
        claim, or a defender's acceptance of one, that leaves it pending (not one that ends
        the board, nor a refusal: that one may summon the director); or a player's ``ready``
        for the next board that leaves some not ready yet (whether or not the board ended by
        a claim). It changes nothing but :data:`PLAIN_BOARD_KEYS` of its
        table's board, in any view, and a player's :data:`PLAIN_VIEW_KEYS`."""
        kind = event.get("type")
        board = effect.board
        if table == 0 or kind not in PLAIN_KINDS or board is None:
            return False
        if effect.finished or effect.committed or effect.abandoned:
            return False
        if board is not self.tables[table].current or board.undo is not None:
            return False
        if self.config.format == "robot-table":
            return False
        if kind == "ready":
            return board.is_reviewing
        if kind in ("claim", "answer"):  # a claim made, or accepted by one defender so far
            return board.claim is not None and board.claim.status == "pending"
        if board.claim is not None:
            return False
        if kind == "call":
            return len(board.auction.calls) > 1 or self.config.board_ms is None
        return board.play is not None and board.play.face_down_lead is None

    def _apply(self, table: int, kind: str | None, event: StoredEvent) -> Effect:
        if table == 0:
            if kind == "compared":
                return self._compared(event)
            if kind == "finished":
                self.finished = True
                return Effect()
            if kind == "analysed":
                for number, analysis in event["boards"].items():
                    self.analyses[int(number)] = Analysis.from_json(analysis)
                return Effect()
            if kind == "release":
                number = event["round"]
                if number not in self.config.held or number in self.released:
                    raise WrongPhase(f"round {number} is not waiting for the director")
                if not self.round_done(number - 1):
                    raise WrongPhase(f"round {number - 1} is not over yet")
                self.released.add(number)
                return Effect()
            raise BridgeError(f"unknown match event {kind!r}")
        state = self.tables.get(table)
        if state is None:
            raise BridgeError(f"this match has no table {table}")
        handler = self._TABLE_EVENTS.get(kind or "")
        if handler is None:
            raise BridgeError(f"unknown table event {kind!r}")
        effect: Effect = handler(self, state, event)
        board = effect.board
        if kind in ("call", "card") and board is not None and board.begun_at is None:
            board.begun_at = event.get("at", 0)
        if kind in EXTRA_EVENTS and state.current is not None:
            if event.get("seat") is not None:
                seat = self._seat(event)
                state.current.extras[seat] = state.current.extras.get(seat, 0) + 1
            elif kind == "chat":
                state.current.director_lines += 1
        return effect

    def checkpoint(self, table: int, event: StoredEvent) -> Checkpoint:
        """Keep what folding ``event`` at ``table`` (0: a match event that is not a
        comparison) may change, and give the fold copies to change instead: the board the
        event touches, the players (for the events that change them: :data:`PEOPLE_EVENTS`).
        Cheap: one board is copied, the rest is shared."""
        state = self.tables.get(table)
        saved = Checkpoint(
            table,
            [] if state is None else list(state.boards),
            [] if state is None else list(state.chat),
            [] if state is None else list(state.calls),
            self.people,
            set(self.released),
            self.finished,
            dict(self.analyses),
        )
        if event.get("type") in PEOPLE_EVENTS:
            self.people = self._people_copied()
        if state is not None and state.boards:
            touched = state.board(event["board"]) if event["type"] == "assign" else None
            index = next(
                (i for i, board in enumerate(state.boards) if board is touched),
                len(state.boards) - 1,
            )
            state.boards[index] = state.boards[index].copy()
        return saved

    def fork(self) -> MatchState:
        """An independent copy to fold on (a resume regenerates updates from it, off the
        event loop, while this state goes on): every board and container is copied, the
        immutable values shared. Its cost grows with the boards started, not with the log
        (a chat line is one shared pointer)."""
        other = copy.copy(self)
        other.tables = {
            number: TableState(
                number,
                [board.copy() for board in table.boards],
                list(table.chat),
                list(table.calls),
            )
            for number, table in self.tables.items()
        }
        other.people = self._people_copied()
        other.released = set(self.released)
        other.fixed = set(self.fixed)
        other.compared = {number: dict(plays) for number, plays in self.compared.items()}
        other.compared_assigned = dict(self.compared_assigned)
        other.compared_ruled = dict(self.compared_ruled)
        other.analyses = dict(self.analyses)
        other.table_epochs = dict(self.table_epochs)
        return other

    def restore(self, saved: Checkpoint) -> None:
        """Undo the fold of the event since :meth:`checkpoint`."""
        state = self.tables.get(saved.table)
        if state is not None:
            state.boards[:] = saved.boards
            state.chat[:] = saved.chat
            state.calls[:] = saved.calls
        self.people = saved.people
        self.released = saved.released
        self.finished = saved.finished
        self.analyses = saved.analyses
        self.epoch = next(_EPOCHS)

    def _people_copied(self) -> dict[int, SeatState]:
        return {number: copy.copy(person) for number, person in self.people.items()}

    def check(self, table: int, event: StoredEvent) -> None:
        """Raise the :class:`BridgeError` that :meth:`apply` would raise for a player's event
        at ``table`` now, changing nothing: the event is tried on a scratch copy of the
        table's current board (a player's events touch no other)."""
        source = self.tables[table]
        scratch = MatchState.__new__(MatchState)
        scratch.config = self.config
        scratch.match = self.match
        scratch.fixed = set(self.fixed)
        scratch.compared = self.compared
        scratch.match_by_table = self.match_by_table
        scratch.finished = self.finished
        scratch.people = (
            self._people_copied() if event.get("type") in PEOPLE_EVENTS else self.people
        )
        scratch.released = self.released
        scratch.table_epochs = {}
        current = source.current
        scratch.tables = {
            table: TableState(
                table,
                boards=[] if current is None else [current.copy()],
            )
        }
        scratch.apply(table, event)

    # -- who sits where ----------------------------------------------------------------

    @property
    def round(self) -> int:
        """The match's round: the latest any table has started (tables go on to a round
        together, once every table is done with the one before)."""
        started = [t.round for t in self.tables.values() if t.round is not None]
        return max(started) if started else self.config.movement.rounds[0]

    def table_round(self, table: int) -> int:
        """The round of ``table``'s players now: its board's, else the first."""
        found = self.tables[table].round
        return self.config.movement.rounds[0] if found is None else found

    def player_at(self, table: int, seat: Seat, round_number: int | None = None) -> int | None:
        """Who sits at ``seat`` of ``table`` in ``round_number`` (default: the table's round
        now); None if the table does not play then."""
        number = self.table_round(table) if round_number is None else round_number
        sitting = self.config.movement.at(number, table)
        return None if sitting is None else sitting.player(seat)

    def person(self, table: int, seat: Seat) -> SeatState:
        """The player at ``seat`` of ``table`` now (a table that does not play this round
        shows its players of the round it last played)."""
        player = self.player_at(table, seat)
        assert player is not None
        return self.people[player]

    def absent(self, table: int) -> list[Seat]:
        """The seats of ``table`` whose player is not there now: neither connected nor the
        server's robot (who comes as soon as the server starts it)."""
        return [
            seat
            for seat in Seat
            if not (person := self.person(table, seat)).connected and not person.server_robot
        ]

    def _gather(self, state: TableState) -> None:
        """Someone came (or the director put a robot in): the board may start once all four
        are there at once. It does not stop for a player who leaves later."""
        board = state.current
        if board is not None and not board.gathered and not self.absent(state.number):
            board.gathered = True

    def where(self, player: int) -> tuple[int, Seat] | None:
        """Where ``player`` sits in the match's round: table and seat."""
        return self.config.movement.seat_of(player, self.round)

    def presences(self, table: int, seat: Seat) -> int:
        """How many presence events ``seat`` has had logged on the table's board."""
        current = self.tables[table].current
        return 0 if current is None else current.presences.get(seat, 0)

    def extras(self, table: int, seat: Seat) -> int:
        """How many extra events (:data:`EXTRA_EVENTS`) ``seat`` logged on the table's board."""
        current = self.tables[table].current
        return 0 if current is None else current.extras.get(seat, 0)

    def director_lines(self, table: int) -> int:
        """How many chat lines the director sent ``table`` on its board."""
        current = self.tables[table].current
        return 0 if current is None else current.director_lines

    def _seat(self, event: StoredEvent) -> Seat:
        return Seat.parse(event["seat"])

    # -- the table's own life: boards, names, presence, chat -------------------------

    def _start(self, state: TableState, event: StoredEvent) -> Effect:
        number = event["board"]
        round_number = event.get("round", 1)  # logged before movements: one round
        spec = next((b for b in self.config.boards if b.number == number), None)
        sitting = next(
            (
                s
                for s in self.config.movement.round(round_number)
                if s.table == state.number and number in s.boards
            ),
            None,
        )
        if spec is None or sitting is None or state.board(number, round_number) is not None:
            raise BridgeError(f"board {number} is not next at table {state.number}")
        current = state.current
        if current is not None and not current.committed:
            raise WrongPhase("the board in play is not finished")
        board = BoardState.start(spec, round_number)
        state.boards.append(board)
        if current is not None:
            current.shown.clear()  # the views keep what they made of the board in play only
        board.gathered = not self.config.gathers(state.number) or not self.absent(state.number)
        for call in event.get("calls", ()):  # an imposed auction (config.imposed)
            board.auction.call(Call.parse(call))
        if board.auction.is_complete:
            contract, declarer = board.auction.contract, board.auction.declarer
            if contract is None or declarer is None:
                result = TableResult(None, None, 0, spec.vulnerability)
                return self._finish(state, board, result, event)
            board.play = self._play(state, spec.deal, contract, declarer)
        return Effect(board)

    def _name(self, state: TableState, event: StoredEvent) -> Effect:
        seat = self.person(state.number, self._seat(event))
        if seat.named:
            raise IllegalCall("the organiser named this seat's player")
        seat.name = event.get("name")
        return Effect(state.current)

    def _presence(self, state: TableState, event: StoredEvent) -> Effect:
        seat = self.person(state.number, self._seat(event))
        if state.current is not None:
            key = self._seat(event)
            state.current.presences[key] = state.current.presences.get(key, 0) + 1
        seat.connected = bool(event["connected"])
        seat.robot = bool(event["robot"]) or seat.server_robot
        seat.since = event.get("at")
        self._gather(state)
        return Effect(state.current)

    def _substitute(self, state: TableState, event: StoredEvent) -> Effect:
        robot = bool(event["robot"])
        # A new player, not connected yet (``since`` None: never connected).
        player = self.player_at(state.number, self._seat(event))
        assert player is not None
        name = self.config.robot_name(self.config.first_seat(player)) if robot else None
        self.people[player] = SeatState(name=name, server_robot=robot, robot=robot)
        self._gather(state)
        return Effect(state.current)

    def _chat(self, state: TableState, event: StoredEvent) -> Effect:
        seat = None if event.get("seat") is None else self._seat(event)
        to = frozenset(Seat.parse(letter) for letter in event["to"])
        state.chat.append(ChatEntry(seat, event["text"], to, self.table_round(state.number)))
        if seat is None:  # the director answered the table
            state.calls[:] = [replace(call, state="answered") for call in state.calls]
        return Effect(state.current)

    def _calls_seen(self, state: TableState, event: StoredEvent) -> Effect:
        if not any(call.state == "open" for call in state.calls):
            raise WrongPhase(f"no call for the director at table {state.number} is open")
        state.calls[:] = [
            replace(call, state="seen") if call.state == "open" else call for call in state.calls
        ]
        return Effect(state.current)

    def _calls_closed(self, state: TableState, event: StoredEvent) -> Effect:
        if not state.calls:
            raise WrongPhase(f"no call for the director at table {state.number} is open")
        state.calls.clear()
        return Effect(state.current)

    def _director_call(self, state: TableState, event: StoredEvent) -> Effect:
        current = state.current
        state.calls.append(
            DirectorCall(
                self._seat(event),
                None if current is None else current.spec.number,
                event.get("text"),
                event.get("at", 0),
            )
        )
        return Effect(current)

    def chat_audience(self, table: int, sender: Seat | None) -> frozenset[Seat]:
        """The players a chat line from ``sender`` (None: the director) reaches now: all four
        between boards or from the director; during a board, as the match's chat mode says.
        Empty when chat is off."""
        if sender is None or self.tables[table].is_between_boards():
            return frozenset(Seat)
        if self.config.chat == "table":
            return frozenset(Seat)
        if self.config.chat == "opponents":
            return frozenset({sender, sender.lho, sender.rho})
        return frozenset()

    # -- the auction and the play ------------------------------------------------------

    def _in_play(self, state: TableState) -> BoardState:
        board = state.current
        if board is None or board.is_finished:
            raise WrongPhase("no board is in play at this table")
        return board

    def _no_undo_pending(self, board: BoardState) -> None:
        if board.undo is not None:
            raise WrongPhase("an undo is waiting for the opponents' answer")

    def _waiting(self, state: TableState, board: BoardState) -> None:
        if not board.gathered:
            seats = " and ".join(seat.name.title() for seat in self.absent(state.number))
            raise WrongPhase(
                f"the table waits for its players ({seats} not here yet): the board starts "
                "when all four are there, or when the director puts a robot in"
            )

    def _call(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        if board.play is not None:
            raise WrongPhase("the auction is over: the play has begun")
        self._waiting(state, board)
        self._no_undo_pending(board)
        board.auction.call(Call.parse(event["call"]), seat=self._seat(event))
        if event.get("alert"):
            board.alerts[len(board.auction.calls) - 1] = event["alert"]
        if board.auction.is_complete:
            contract, declarer = board.auction.contract, board.auction.declarer
            if contract is None or declarer is None:
                return self._finish(
                    state, board, TableResult(None, None, 0, board.spec.vulnerability), event
                )
            board.play = self._play(state, board.spec.deal, contract, declarer)
        return Effect(board)

    def _play(self, state: TableState, deal: Deal, contract: Contract, declarer: Seat) -> Play:
        """The play of a board whose auction ended at ``state``'s table."""
        face_down = self.config.leads_face_down(state.number)
        return Play(deal, contract, declarer, face_down_lead=face_down)

    def _require_play(self, board: BoardState) -> Play:
        if board.play is None:
            raise WrongPhase("the play has not begun: the auction is on")
        return board.play

    def _card(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        play = self._require_play(board)
        self._waiting(state, board)
        self._no_undo_pending(board)
        play.play(Card.parse(event["card"]), seat=self._seat(event))
        if board.claim is not None and board.claim.status != "pending":
            board.claim = None  # a settled claim shows until the play goes on
        return self._finish_if_done(state, board, play, event)

    def _lead_face_down(self, state: TableState, event: StoredEvent) -> Effect:
        """The opening leader leads face down (law 41A): the card is off their hand, seen
        by them (and the director and live spectators) until their partner faces it."""
        board = self._in_play(state)
        play = self._require_play(board)
        self._waiting(state, board)
        self._no_undo_pending(board)
        play.lead_face_down(Card.parse(event["card"]), seat=self._seat(event))
        return Effect(board)

    def _lead_faced(self, state: TableState, event: StoredEvent) -> Effect:
        """The leader's partner faces the opening lead: it is played, dummy goes down."""
        board = self._in_play(state)
        play = self._require_play(board)
        play.face_lead(seat=self._seat(event))
        return self._finish_if_done(state, board, play, event)

    def _claim(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        play = self._require_play(board)
        self._no_undo_pending(board)
        claim = play.claim(self._seat(event), event["tricks"])
        board.claim = ClaimState(claim, event.get("statement"))
        return Effect(board)

    def _answer(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        play = self._require_play(board)
        seat = self._seat(event)
        assert board.claim is not None or play.pending_claim is None
        if event["accept"]:
            claim = play.accept_claim(seat)
            statement = None if board.claim is None else board.claim.statement
            status: ClaimStatus = "accepted" if play.is_complete else "pending"
            board.claim = ClaimState(claim, statement, status)
            return self._finish_if_done(state, board, play, event)
        dispute = self.config.disputes
        claim = play.reject_claim(seat, dispute=dispute)
        board.claim = ClaimState(claim, None if board.claim is None else board.claim.statement)
        board.claim.status = "disputed" if dispute else "rejected"
        if dispute:  # law 68D: the director is summoned at once
            board.claim.disputed_by = seat
            state.calls.append(
                DirectorCall(seat, board.spec.number, DISPUTE_CALL, event.get("at", 0))
            )
        return Effect(board)

    def _withdraw_claim(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        play = self._require_play(board)
        claim = play.withdraw_claim(self._seat(event))
        statement = None if board.claim is None else board.claim.statement
        board.claim = ClaimState(claim, statement, "withdrawn")
        return Effect(board)

    def _conceded(self, board: BoardState | None, seat: Seat) -> ClaimState:
        """The accepted claim of the board on review, in which ``seat``'s side conceded
        tricks (the claimer's side those not claimed, the other side those claimed): else
        why its concession cannot be withdrawn."""
        if board is None or not board.is_reviewing or board.claim is None:
            raise WrongPhase("no concession can be withdrawn now: the board was not conceded")
        if board.claim.status != "accepted" or board.play is None or board.assigned:
            raise WrongPhase("no concession can be withdrawn now: the board was not conceded")
        if board.fixed:
            raise WrongPhase("the director has decided this board's score")
        claim = board.claim.claim
        if seat == board.play.dummy:
            raise IllegalPlay("dummy takes no part in the play and cannot withdraw a concession")
        claimers = seat in (claim.claimer, claim.claimer.partner)
        conceded = claim.tricks < claim.remaining if claimers else claim.tricks > 0
        if not conceded:
            raise IllegalPlay("your side conceded no trick in this claim")
        return board.claim

    def _withdrawal_asked(self, state: TableState, event: StoredEvent) -> Effect:
        """A player asks to withdraw their side's concession: the director decides (laws 69
        and 71), called to the table at once; the board stays finished until then."""
        board = state.current
        seat = self._seat(event)
        claim = self._conceded(board, seat)
        assert board is not None
        if claim.withdrawal is not None:
            raise WrongPhase("the withdrawal of this concession was asked: the director decides")
        claim.withdrawal = seat
        state.calls.append(
            DirectorCall(seat, board.spec.number, WITHDRAWAL_CALL, event.get("at", 0))
        )
        return Effect(board)

    def _withdraw_concession(self, state: TableState, event: StoredEvent) -> Effect:
        """The concession is withdrawn: the play resumes where the claim stopped it. Logged
        when the director allows the withdrawal a player asked for (a match stored before
        logged it when the player withdrew)."""
        board = state.current
        seat = self._seat(event)
        claim = self._conceded(board, seat)
        assert board is not None
        assert board.play is not None
        if claim.withdrawal not in (None, seat):
            raise WrongPhase("another player asked for this withdrawal")
        board.play.withdraw_concession()
        claim.status = "withdrawn"
        claim.withdrawal = None
        board.result = None
        board.finished_at = None
        board.ready.clear()
        state.close_calls(board.spec.number)
        return Effect(board)

    def _withdrawal_refused(self, state: TableState, event: StoredEvent) -> Effect:
        """The director refuses the withdrawal: the concession stands, and the board's
        review starts again (its players may look at it anew)."""
        board = state.current
        if board is None or board.claim is None or board.claim.withdrawal is None:
            raise WrongPhase(f"nobody at table {state.number} asked to withdraw a concession")
        board.claim.withdrawal = None
        board.finished_at = event.get("at", 0)
        board.ready.clear()
        state.close_calls(board.spec.number)
        return Effect(board)

    def review_held(self, table: int) -> bool:
        """The board on review at ``table`` waits for the director's decision on a
        withdrawal of its concession: its review does not end meanwhile."""
        board = self.tables[table].current
        return board is not None and board.claim is not None and board.claim.withdrawal is not None

    # -- undo ----------------------------------------------------------------------------

    def _undo_request(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        seat = self._seat(event)
        self._no_undo_pending(board)
        if board.play is not None and board.play.pending_claim is not None:
            raise WrongPhase("a claim is pending: withdraw it or wait for the answer")
        if board.play is not None and board.play.disputed_claim is not None:
            raise WrongPhase("the claim is disputed: play has ceased until the director rules")
        if board.play is not None and board.play.face_down_lead is not None:
            raise WrongPhase("the opening lead is face down: a lead made stays made (law 47)")
        last = board.last_action()
        if last is None:
            raise WrongPhase("nothing has been called or played on this board yet")
        maker, call, card = last
        if maker != seat:
            raise OutOfTurn("only the player who made the last call or card may ask to undo it")
        board.undo = UndoRequest(seat, call, card, frozenset({seat.lho, seat.rho}))
        return Effect(board)

    def _undo_answer(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        request = board.undo
        if request is None:
            raise WrongPhase("no undo is waiting for an answer")
        if event.get("seat") is None:  # the director decides it
            board.undo = None
            board.taken_back = None
            if event["accept"]:
                self._take_back(board)
            return Effect(board)
        seat = self._seat(event)
        if seat not in request.deciders:
            raise OutOfTurn(f"{seat.name.title()} does not decide this undo")
        if seat in request.accepted:
            raise OutOfTurn(f"{seat.name.title()} has already agreed: the other opponent decides")
        board.taken_back = None
        if not event["accept"]:
            board.undo = None
            return Effect(board)
        accepted = request.accepted | {seat}
        if accepted != request.deciders:
            board.undo = UndoRequest(
                request.seat, request.call, request.card, request.deciders, accepted
            )
            return Effect(board)
        board.undo = None
        self._take_back(board)
        return Effect(board)

    def _undo(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        if board.play is not None and board.play.pending_claim is not None:
            raise WrongPhase("a claim is pending: it must be settled first")
        if board.play is not None and board.play.disputed_claim is not None:
            raise WrongPhase("the claim is disputed: the director rules on it first")
        if board.play is not None and board.play.face_down_lead is not None:
            raise WrongPhase("the opening lead is face down: its partner faces it first")
        if board.last_action() is None:
            raise WrongPhase("nothing has been called or played on this board yet")
        board.undo = None
        board.taken_back = None
        self._take_back(board)
        return Effect(board)

    @staticmethod
    def _take_back(board: BoardState) -> None:
        """Take back the board's last call or card."""
        board.taken_back = board.last_action()
        play = board.play
        if play is not None and play.played_count:
            play.undo()
            if board.claim is not None and board.claim.status != "pending":
                board.claim = None
            return
        board.play = None
        board.claim = None
        board.auction.undo()
        index = len(board.auction.calls)
        board.alerts.pop(index, None)
        board.questions.discard(index)

    # -- questions about calls -----------------------------------------------------------

    @staticmethod
    def caller(board: BoardState, index: int) -> Seat:
        """Who made call ``index`` of the board's auction (IllegalCall if there is none)."""
        if not 0 <= index < len(board.auction.calls):
            raise IllegalCall(f"there is no call number {index} in this auction")
        return Seat((board.spec.dealer + index) % 4)

    def _ask(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._current(state)
        seat = self._seat(event)
        if self.caller(board, event["index"]) in (seat, seat.partner):
            raise IllegalCall("ask about the opponents' calls; your side's are yours to explain")
        board.questions.add(event["index"])
        return Effect(board)

    def _explain(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._current(state)
        if self.caller(board, event["index"]) != self._seat(event):
            raise IllegalCall("each player explains their own calls only")
        board.alerts[event["index"]] = event["text"]
        board.questions.discard(event["index"])
        return Effect(board)

    @staticmethod
    def _current(state: TableState) -> BoardState:
        board = state.current
        if board is None:
            raise WrongPhase("no board has started at this table")
        return board

    # -- the director ------------------------------------------------------------------

    def _rule(self, state: TableState, event: StoredEvent) -> Effect:
        board = self._in_play(state)
        if board.play is None:
            raise WrongPhase("there is nothing to rule on before the play")
        board.undo = None
        pending = board.play.pending_claim
        board.play.rule(event["tricks"])
        if pending is not None and board.claim is not None:
            board.claim.status = "rejected"
        board.ruled = True
        state.close_calls(board.spec.number)
        return self._finish_if_done(state, board, board.play, event)

    def _assign(self, state: TableState, event: StoredEvent) -> Effect:
        number = event["board"]
        if all(spec.number != number for spec in self.config.boards):
            raise BridgeError(f"board {number} is not in this match")
        board = state.board(number)
        if board is None:
            raise WrongPhase(f"board {number} has not been played at table {state.number}")
        if board.abandoned:
            raise WrongPhase(f"board {number} was voided at table {state.number}")
        contract = None if event["contract"] is None else Contract.parse(event["contract"])
        declarer = None if event["declarer"] is None else Seat.parse(event["declarer"])
        if (contract is None) != (declarer is None):
            raise IllegalCall("an assigned result has both a contract and a declarer, or neither")
        tricks = event["tricks"] if contract is not None else 0
        result = TableResult(contract, declarer, tricks, board.spec.vulnerability)
        board.assigned = True
        board.ruled = False
        board.undo = None
        state.close_calls(number)
        if board.is_finished:
            board.result = result
            return Effect(board)
        return self._finish(state, board, result, event)

    # -- the end of a board and its review ---------------------------------------------

    def _finish_if_done(
        self, state: TableState, board: BoardState, play: Play, event: StoredEvent
    ) -> Effect:
        if not play.is_complete:
            return Effect(board)
        result = TableResult(
            play.contract, play.declarer, play.declarer_tricks, board.spec.vulnerability
        )
        return self._finish(state, board, result, event)

    def _finish(
        self, state: TableState, board: BoardState, result: TableResult, event: StoredEvent
    ) -> Effect:
        board.result = result
        board.finished_at = event.get("at", 0)
        board.ready.clear()
        board.committed = self.config.review_seconds_at(state.number) == 0
        return Effect(board, finished=True, committed=board.committed)

    def _ready(self, state: TableState, event: StoredEvent) -> Effect:
        board = state.current
        if board is None or not board.is_reviewing:
            raise WrongPhase("no finished board is on review at this table")
        if self.review_held(state.number):
            raise WrongPhase("the director decides on the withdrawal of the concession first")
        board.ready.add(self._seat(event))
        if len(board.ready) < 4:
            return Effect(board)
        board.committed = True
        return Effect(board, committed=True)

    def _review_over(self, state: TableState, event: StoredEvent) -> Effect:
        board = state.current
        if board is None or not board.is_reviewing or board.spec.number != event["board"]:
            raise WrongPhase("that board is not on review at this table")
        if self.review_held(state.number):
            raise WrongPhase("the director decides on the withdrawal of the concession first")
        board.committed = True
        return Effect(board, committed=True)

    def review_deadline(self, table: int) -> int | None:
        """When the current board's review at ``table`` ends (ms), if it is on review."""
        board = self.tables[table].current
        if board is None or not board.is_reviewing or board.finished_at is None:
            return None
        return board.finished_at + 1000 * self.config.review_seconds_at(table)

    def clock(self, table: int) -> Clock | None:
        """The round's clock at ``table`` now: None in a match without one, at a table of
        the server's robots, and before the round's first call (or card) there."""
        board_ms = self.config.board_ms
        state = self.tables[table]
        current = state.current
        if board_ms is None or current is None:
            return None
        number = current.round
        if self.config.robots_only(number, table):
            return None
        boards = [b for b in state.boards if b.round == number]
        started = next((b.begun_at for b in boards if b.begun_at is not None), None)
        if started is None:
            return None
        total = len(self.config.movement.sitting(number, table).boards)
        played = sum(1 for b in boards if b.is_finished)
        return Clock(
            table,
            number,
            total,
            played,
            started,
            started + total * board_ms,
            started + min(played + 1, total) * board_ms,
            any(b.time_up for b in boards),
        )

    def _time_up(self, state: TableState, event: StoredEvent) -> Effect:
        clock = self.clock(state.number)
        if clock is None or clock.round != event["round"] or not clock.running:
            raise WrongPhase("the round's clock is not running at this table")
        board = state.current
        assert board is not None
        board.time_up = True
        return Effect(board)

    # -- comparisons ---------------------------------------------------------------------

    def _compared(self, event: StoredEvent) -> Effect:
        number = event["board"]
        match = self.match
        plays = compared_plays(event)
        self.compared[number] = {
            (round_number, table): None if data is None else result_from_json(data)
            for round_number, table, data in plays
        }
        self.compared_assigned[number] = frozenset(
            (round_number, table)
            for round_number, table, data in plays
            if data is not None and data.get("assigned")
        )
        self.compared_ruled[number] = frozenset(
            (round_number, table)
            for round_number, table, data in plays
            if data is not None and decision_of(data) == "ruled"
        )
        for _round, table, data in plays:
            if data is None or not self.match_by_table:
                continue
            result = result_from_json(data)
            if data.get("assigned") or (number, table) in match.results:
                if match.results.get((number, table)) != result or data.get("assigned"):
                    match = match.assign(number, table, result)
            else:
                match = match.record(number, table, result)
        fix = event.get("fix")
        abandoned: list[int] = []
        if fix is not None:
            match = (
                match.void(number) if fix["kind"] == "void" else match.adjust(number, fix["imps_a"])
            )
            self.fixed.add(number)
            for table, state in self.tables.items():
                state.close_calls(number)
                for played in state.boards:
                    if played.spec.number == number:
                        played.fixed = True
                board = state.current
                if board is not None and board.spec.number == number and not board.is_finished:
                    board.abandoned = True
                    board.committed = True
                    board.undo = None
                    abandoned.append(table)
        self.match = match
        return Effect(abandoned=tuple(abandoned))

    # -- what the store must append after an event ---------------------------------------

    def next_board(
        self, table: int, starting: frozenset[tuple[int, int]] = frozenset()
    ) -> tuple[int, int] | None:
        """The (round, board) to start at ``table`` now, if any. A table plays its boards of
        a round in the movement's order, leaving out those the director voided or scored;
        it goes on to the next round once every table is done with this one (until then
        it waits for the other tables). A table of the server's robots only waits for a
        table of people to start a board first (:meth:`awaits_people`; ``starting``: the
        (table, board) starts about to be logged with it)."""
        state = self.tables[table]
        if state.current is not None and not state.current.committed:
            return None
        movement = self.config.movement
        rounds = movement.rounds
        current = state.round or rounds[0]
        for round_number in rounds[rounds.index(current) :]:
            if round_number != current and not self.round_done(round_number - 1):
                return None
            if round_number in self.config.held and round_number not in self.released:
                return None
            sitting = next((s for s in movement.round(round_number) if s.table == table), None)
            if sitting is None:
                continue
            for number in sitting.boards:
                if number not in self.fixed and state.board(number, round_number) is None:
                    if self.awaits_people(table, round_number, number, starting):
                        return None
                    return round_number, number
        return None

    def awaits_people(
        self,
        table: int,
        round_number: int,
        number: int,
        starting: frozenset[tuple[int, int]] = frozenset(),
    ) -> bool:
        """Whether ``table``, where only the server's robots sit in ``round_number``, must
        wait before it starts board ``number``: no table of people that plays the board has
        started it yet (``starting``: (table, board) starts about to be logged). Robots play
        fast; a spectator must not see them finish boards the people have not begun. A
        match of robots only, and the robot-table format's table 2 (played at creation and
        hidden until table 1 has finished each board), never wait."""
        config = self.config
        if config.format == "robot-table" or not config.has_people():
            return False
        if not config.robots_only(round_number, table):
            return False
        people = [(r, t) for r, t in config.movement.plays(number) if not config.robots_only(r, t)]
        return bool(people) and not any(
            self.tables[t].board(number, r) is not None or (t, number) in starting
            for r, t in people
        )

    def held_next(self) -> bool:
        """Every table has played the round, and the next waits for the director."""
        following = self.round + 1
        return (
            following in self.config.held
            and following not in self.released
            and all(self.table_played(t, self.round) for t in self.tables)
        )

    def round_done(self, round_number: int) -> bool:
        """Whether every table is done with its boards of ``round_number`` (a board the
        director voided or scored needs no play)."""
        return all(self.table_done(t, round_number) for t in self.tables)

    def table_done(self, table: int, round_number: int) -> bool:
        """Whether ``table`` is done with its boards of ``round_number``: each committed
        (its review over), or voided or scored by the director (none to play: done)."""
        return self._every_board(table, round_number, lambda board: board.committed)

    def table_known_done(self, table: int, round_number: int) -> bool:
        """Whether the players at the other tables may know that ``table`` is done with its
        boards of ``round_number``: the round is over at every table (they are all told: it
        ends, or the next starts), or each of its boards is compared (a comparison is
        public) or voided or scored by the director. Its own players know it sooner
        (:meth:`table_played`)."""
        if self.round_done(round_number):
            return True
        return self._every_board(
            table, round_number, lambda board: board.spec.number in self.compared
        )

    def table_played(self, table: int, round_number: int) -> bool:
        """Whether ``table`` has played its boards of ``round_number``: each finished (maybe
        still on review), or voided or scored by the director (none to play: played)."""
        return self._every_board(table, round_number, lambda board: board.is_finished)

    def _every_board(
        self, table: int, round_number: int, done: Callable[[BoardState], bool]
    ) -> bool:
        movement = self.config.movement
        if round_number not in movement.rounds:
            return True
        sitting = movement.at(round_number, table)
        if sitting is None:
            return True
        for number in sitting.boards:
            board = self.tables[table].board(number, round_number)
            if number not in self.fixed and (board is None or not done(board)):
                return False
        return True

    def standings(self) -> list[tuple[str, float]]:
        """Each competitor's total so far, best first: the teams' IMPs (the director's
        adjustments included) in the team formats; else the movement's scoring over the
        boards compared with a result at every play (a voided board counts for no one)."""
        if self.config.teams:
            totals = [("A", float(self.match.imps_a)), ("B", float(self.match.imps_b))]
            return sorted(totals, key=lambda item: -item[1])
        return list(self._ranked()[1])

    def session_scores(self) -> tuple[SessionScore, ...]:
        """A replay-duplicate series' sessions, each with its boards and the pairs' points
        on those compared (as :meth:`standings` counts them); empty for any other match."""
        if not self.config.movement.sessions:
            return ()
        return self._ranked()[2]

    def _ranked(
        self,
    ) -> tuple[
        dict[int, dict[tuple[int, int], int]], list[tuple[str, float]], tuple[SessionScore, ...]
    ]:
        """The scores of the boards compared with a result at every play, the standings
        and the sessions' scores they make."""
        scores = {
            board: {play: result.ns_score for play, result in plays.items() if result is not None}
            for board, plays in self.compared.items()
            if board not in self.fixed and None not in plays.values()
        }
        # Ranked again only when a score changed: every update's view shows the standings,
        # and a movement's ranking (matchpoints over every board) is worth keeping.
        if self._standings is None or self._standings[0] != scores:
            movement = self.config.movement
            sessions = movement.session_scores(scores) if movement.sessions else ()
            self._standings = (scores, movement.standings(scores), sessions)
        return self._standings

    def starts(self, at: int) -> list[tuple[int, StoredEvent]]:
        """The board to start now at every table that has one (logged at ``at``)."""
        found: list[tuple[int, StoredEvent]] = []
        starting: set[tuple[int, int]] = set()
        # The tables of people first: a table of robots may start what they start.
        ordered = sorted(self.tables, key=lambda t: self._robots_now(t))
        for table in ordered:
            upcoming = self.next_board(table, frozenset(starting))
            if upcoming is not None:
                starting.add((table, upcoming[1]))
                round_number, number = upcoming
                start: StoredEvent = {
                    "type": "start",
                    "board": number,
                    "round": round_number,
                    "at": at,
                }
                calls = self._imposed(number, round_number)
                if calls:
                    start["calls"] = calls
                found.append((table, start))
        return found

    def _robots_now(self, table: int) -> bool:
        """Whether only robots sit at ``table`` in its current (or first) round."""
        round_number = self.tables[table].round or self.config.movement.rounds[0]
        return self.config.robots_only(round_number, table)

    def _imposed(self, number: int, round_number: int) -> list[str]:
        """The calls a board's replay starts with when the auction is imposed: those of its
        first play (none for the first play itself, or when not imposed)."""
        first_round, first_table = self.config.movement.plays(number)[0]
        if not self.config.imposed or round_number == first_round:
            return []
        first = self.tables[first_table].board(number, first_round)
        if first is None or first.abandoned:
            return []
        return [str(call) for call in first.auction.calls]

    _TABLE_EVENTS: ClassVar[dict[str, Callable[[MatchState, TableState, StoredEvent], Effect]]] = {
        "start": _start,
        "name": _name,
        "presence": _presence,
        "substitute": _substitute,
        "chat": _chat,
        "director_call": _director_call,
        "calls_seen": _calls_seen,
        "calls_closed": _calls_closed,
        "call": _call,
        "card": _card,
        "lead_face_down": _lead_face_down,
        "lead_faced": _lead_faced,
        "claim": _claim,
        "answer": _answer,
        "withdraw_claim": _withdraw_claim,
        "withdraw_concession": _withdraw_concession,
        "withdrawal_asked": _withdrawal_asked,
        "withdrawal_refused": _withdrawal_refused,
        "undo_request": _undo_request,
        "undo_answer": _undo_answer,
        "undo": _undo,
        "ask": _ask,
        "explain": _explain,
        "rule": _rule,
        "assign": _assign,
        "ready": _ready,
        "review_over": _review_over,
        "time_up": _time_up,
    }

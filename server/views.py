"""THE place that decides what each viewer may see.

:func:`project` turns the match state right after a logged event into what a viewer is
told of it, :func:`view_data` into what the viewer sees then (``server.frames`` sends what
changed), and :func:`board_record` answers ``get_board``. Nothing else in the
server builds a payload with cards, alerts, claims or results in it, so the laws' limits on
information live here and only here:

- a player (who may sit at another table, in another seat, each round) sees, where they
  sit now, their own hand; dummy once the opening lead is faced; the claimer's cards while
  they decide a claim; of the quitted tricks only the last, until their side has played to
  the next (law 66); their table's auction (alerts only from opponents, and their own),
  claims and the chat lines sent to them in this round; the whole deal and every trick of
  a board they finished; their own results (a board they are to replay: once the replay
  is finished); and of every other play of a board nothing but the comparison (and, on
  request, the board as played there) once every play of it is done;
- spectators (``live``) and the director see every table as it is played, all hands;
  the director also every chat line and the calls for the director;
- spectators (``delayed``) see a board only once every play of it is done.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import TypeAdapter

from bridge import BridgeError, Card, Contract, Seat, Suit
from bridge.cards import ALL_CARDS, Hand
from bridge.formats import BoardComparison, Movement, TableResult
from bridge.play import Trick
from protocol.messages import (
    Action,
    BoardCompared,
    BoardFinished,
    BoardRecord,
    BoardStarted,
    BoardView,
    CallExplained,
    CallMade,
    CardPlayed,
    ChatSent,
    ClaimAnswered,
    ClaimMade,
    ClaimWithdrawn,
    ComparisonView,
    ConcessionWithdrawalAsked,
    ConcessionWithdrawalRefused,
    ConcessionWithdrawn,
    DirectorCalled,
    DirectorCallsClosed,
    DirectorCallsSeen,
    DirectorRuled,
    Event,
    LeadFaceDown,
    MatchFinished,
    MatchSummary,
    NameSet,
    PlayerView,
    PresenceChanged,
    QuestionAsked,
    ReadyForNext,
    ResultAssigned,
    ReviewEnded,
    SeatSubstituted,
    Standing,
    TableResultView,
    TimeUp,
    UndoAnswered,
    Undone,
    UndoRequested,
    View,
    WatchView,
)
from protocol.messages import Seat as SeatLetter
from server.config import Analysis, BoardSpec
from server.handviewer import handviewer
from server.state import (
    BoardState,
    ChatEntry,
    Decision,
    Effect,
    MatchState,
    StoredEvent,
    TableState,
)

__all__ = [
    "BOARD_FIELDS",
    "Player",
    "Seated",
    "Shared",
    "Viewer",
    "Watcher",
    "board_moving",
    "board_record",
    "match_entry",
    "match_summary",
    "project",
    "project_data",
    "receives",
    "review_data",
    "seated",
    "summary_data",
    "view_data",
    "view_of",
]

SEATS = tuple(Seat)
"""The seats in order, N E S W (iterating a tuple costs less than the enum's)."""

log = logging.getLogger(__name__)

CHAT_LINES = 50
"""How many lines of table chat a view carries (per table, for the director)."""


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the match's movement, by number: who they are for the whole match, while
    their table and seat change from round to round."""

    number: int


@dataclass(frozen=True, slots=True)
class Seated:
    """A player where they sit: a seat at a table (what the laws' limits are about)."""

    table: int
    seat: Seat
    player: int


@dataclass(frozen=True, slots=True)
class Watcher:
    """A spectator (``live`` or ``delayed``) or the director."""

    mode: Literal["live", "delayed", "director"]


Viewer = Player | Watcher
"""Who a frame is for: a player (whatever their seat) or a watcher."""
Seen = Seated | Watcher
"""What a view is made for: a player in their seat now, or a watcher."""


def seated(state: MatchState, player: int, table: int | None = None) -> Seated | None:
    """Where ``player`` sits now (at ``table``: in that table's round, if they sit there)."""
    if table is None:
        where = state.where(player)
        return None if where is None else Seated(where[0], where[1], player)
    sitting = state.config.movement.at(state.table_round(table), table)
    seat = None if sitting is None else sitting.seat_of(player)
    return None if seat is None else Seated(table, seat, player)


def receives(state: MatchState, viewer: Viewer, log: int, event: StoredEvent) -> bool:
    """Whether ``viewer`` gets an update for ``event``, an entry of a log tagged ``log`` (0 for
    match events, else its table), given the ``state`` right after it. A player gets the
    entries of the table where they sit in that table's round that concern them: not chat
    lines sent to others, not questions about others' calls, not explanations of partner's
    calls. Chat reaches the director but no spectator; delayed spectators get only the
    match events."""
    kind = event["type"]
    if log == 0:
        # A board's analysis shows only with its comparison: news to nobody before that.
        return kind != "analysed" or any(int(n) in state.compared for n in event["boards"])
    if isinstance(viewer, Player):
        at = seated(state, viewer.number, log)
        if at is None:
            return False
        seat = at.seat.letter
        if kind == "chat":
            return seat in event["to"]
        if kind == "ask":
            return seat in (event["seat"], event["caller"])
        if kind == "explain":
            return at.seat != Seat.parse(event["seat"]).partner
        return True
    if kind == "chat":
        return viewer.mode == "director"
    return viewer.mode != "delayed"


def project(
    state: MatchState,
    viewer: Viewer,
    table: int,
    event: StoredEvent,
    effect: Effect | None = None,
    summary: Data | None = None,
) -> list[Event]:
    """What ``viewer`` is told happened in ``event`` (logged at ``table``, 0 for match
    events), given the match ``state`` right after it and what folding it did (``effect``);
    :func:`view_data` is what the viewer sees after it. ``summary``: the state's
    :func:`summary_data`, when the caller has it already (it is the same for every viewer of
    the event)."""
    seen = _seen(state, viewer, table or None)
    if table == 0:  # only match events tell of the summary
        summary = summary or summary_data(state)
    return _events(state, seen, table, event, effect or Effect(), summary or {})


_TOLD_APART = frozenset({"call", "explain"})
"""The entries whose events :func:`_events` tells some viewers otherwise than others (an
alert, an explanation: not to the caller's partner); every other entry's are the same for
all who receive it."""


def project_data(
    state: MatchState,
    viewer: Viewer,
    table: int,
    event: StoredEvent,
    effect: Effect | None,
    shared: Shared | None = None,
    summary: Data | None = None,
) -> list[Data]:
    """:func:`project`'s events as plain data (each model's ``model_dump(mode="json")``);
    a call, a card or a ready that starts nothing without making the models (the hot path
    of every update). ``shared``: the publication's memo (events told alike to every viewer
    are made once: a card played, a board started). Shared: never changed."""
    kind = event["type"]
    if table and kind in ("call", "card") and not (effect and effect.finished):
        if kind == "call":
            return [_call_made(_seen(state, viewer, table), table, event)]
        board = (effect and effect.board) or state.tables[table].current
        return _once(shared, ("card_played", table), lambda: [_card_played(board, table, event)])
    if table and kind == "ready" and effect is not None and not effect.committed:
        return [{"type": "ready_for_next", "table": table, "seat": event["seat"]}]

    def told() -> list[Data]:
        events = project(state, viewer, table, event, effect, summary)
        return [e.model_dump(mode="json") for e in events]

    return told() if kind in _TOLD_APART else _once(shared, ("events", table), told)


def _seen(state: MatchState, viewer: Viewer, table: int | None = None) -> Seen:
    """The viewer as the laws see them: a player in their seat (at ``table``, if given)."""
    if isinstance(viewer, Watcher):
        return viewer
    at = seated(state, viewer.number, table) or seated(state, viewer.number)
    if at is None:  # every movement here seats every player in every round
        raise ValueError(f"player {viewer.number} has no seat now")
    return at


Data = dict[str, Any]
"""A view, or a part of one, as plain data: exactly the model's ``model_dump(mode="json")``,
fields in the model's order (built so, without the models, on every update's hot path)."""
BOARD_FIELDS = len(BoardView.model_fields)
"""The fields of a board view (:func:`_board_data` makes each)."""

_VIEWS: TypeAdapter[PlayerView | WatchView] = TypeAdapter(View)

Shared = dict[Hashable, Any]
"""The parts of views that are the same for every viewer of a publication, each made once:
a fresh dict per state it is made from (:class:`server.frames.Publication` keeps one)."""

_T = TypeVar("_T")


def _once(shared: Shared | None, key: Hashable, make: Callable[[], _T]) -> _T:
    """``make()``, made once per ``shared`` (every call when it is None)."""
    if shared is None:
        return make()
    if key not in shared:
        shared[key] = make()
    made: _T = shared[key]
    return made


def view_of(
    state: MatchState, viewer: Viewer, summary: Data | None = None
) -> PlayerView | WatchView:
    """Everything ``viewer`` may see now, as a model: :func:`view_data`, validated."""
    return _VIEWS.validate_python(view_data(state, viewer, summary or summary_data(state)))


def view_data(
    state: MatchState, viewer: Viewer, summary: Data, shared: Shared | None = None
) -> Data:
    """Everything ``viewer`` may see now, as plain data (``summary``: the state's
    :func:`summary_data`; ``shared``: the parts made for other viewers of the same state,
    see :data:`Shared`)."""
    if isinstance(viewer, Player):
        at = _seen(state, viewer)
        assert isinstance(at, Seated)
        table = state.tables[at.table]
        board = table.current
        movement = state.config.movement
        now = state.round
        sitting = movement.sitting(now, at.table)
        played = _once(shared, ("played", at.table), lambda: state.table_played(at.table, now))
        return {
            "type": "player_view",
            "match": summary,
            "player": viewer.number,
            "round": now,
            "table": at.table,
            "seat": at.seat.letter,
            "team": state.config.team_of(at.table, at.seat) if state.config.teams else None,
            "competitor": movement.competitors[viewer.number],
            "partner": sitting.partner(viewer.number),
            "opponents": list(sitting.opponents(viewer.number)),
            "played_round": played,
            "waiting_for": (
                _once(shared, ("still playing", at.table), lambda: _still_playing(state, at.table))
                if played and not state.finished
                else []
            ),
            "next_seat": _next_seat(state, viewer.number),
            "board": (
                None if board is None else _board_data(state, board, at.table, at, shared=shared)
            ),
            "results": _once(
                shared,
                ("results", _tables_of(movement, viewer.number)),
                lambda: _results_of(state, viewer.number),
            ),
            "players": _once(shared, ("players", at.table), lambda: _players(state, (at.table,))),
            "chat": _last_chat(table, at.seat, state.table_round(at.table)),
            "review": review_data(state, at.table, shared),
            "director_calls": _once(shared, ("calls", at.table), lambda: _calls(table)),
            "answered_calls": _once(
                shared, ("answered", at.table), lambda: _calls(table, answered=True)
            ),
            "waiting_for_seats": _waiting_seats(state, at.table),
            "clock": _once(shared, ("clock", at.table), lambda: _clock(state, at.table)),
            "face_down_lead": _face_down(state, at.table, at),
        }
    compared = summary["comparisons"]  # in the order of the match's boards
    if state.config.teams:
        revealed = compared[-1]["board"] if compared else None
    else:  # the board compared last
        revealed = next(reversed(state.compared), None)
    director = viewer.mode == "director"
    shown = (1,) if state.config.format == "robot-table" else state.config.tables
    players = _players(state, shown)
    chat = (
        [_chat_line(n, line) for n, t in state.tables.items() for line in t.chat[-CHAT_LINES:]]
        if director
        else []
    )
    calls = [call for t in state.tables.values() for call in _calls(t)] if director else []
    answered = (
        [call for t in state.tables.values() for call in _calls(t, answered=True)]
        if director
        else []
    )
    compared_boards = {c["board"] for c in compared}
    if viewer.mode == "delayed":
        tables = (
            []
            if revealed is None
            else [
                _board_data(state, board, t, viewer, shared=shared)
                for r, t in state.config.movement.plays(revealed)
                if (board := state.tables[t].board(revealed, r)) is not None
            ]
        )
        results = [
            _result_data(n, number, result, decided, r)
            for n, t in state.tables.items()
            for number, result, decided, r in t.results
            if number in compared_boards
        ]
        return _watch(
            summary, "delayed", tables, results, players, chat, calls, answered, [], [], []
        )
    tables = []
    robot_table = state.config.format == "robot-table"
    for number, table in state.tables.items():
        if robot_table and number == 2:
            # The robots' table was played at creation: a board of it shows once compared.
            if revealed is not None:
                tables.append(_board_of(state, 2, revealed, viewer, shared))
        elif table.current is not None:
            tables.append(_board_data(state, table.current, number, viewer, shared=shared))
    results = [
        _result_data(n, number, result, decided, r)
        for n, t in state.tables.items()
        for number, result, decided, r in t.results
        if not (robot_table and n == 2 and number not in compared_boards)
    ]
    waiting = [
        {"table": number, "seats": seats}
        for number in state.tables
        if (seats := _waiting_seats(state, number))
    ]
    clocks = [clock for number in state.tables if (clock := _clock(state, number)) is not None]
    face_down = [
        lead for number in state.tables if (lead := _face_down(state, number, viewer)) is not None
    ]
    return _watch(
        summary,
        viewer.mode,
        tables,
        results,
        players,
        chat,
        calls,
        answered,
        waiting,
        clocks,
        face_down,
    )


def _face_down(state: MatchState, table: int, viewer: Seen) -> Data | None:
    """``table``'s opening lead while it is face down (law 41A): the card for the leader,
    the director and live spectators only."""
    board = state.tables[table].current
    lead = None if board is None or board.play is None else board.play.face_down_lead
    if lead is None:
        return None
    leader, card = lead
    sees = not isinstance(viewer, Seated) or viewer.seat == leader
    return {"table": table, "seat": leader.letter, "card": str(card) if sees else None}


def _waiting_seats(state: MatchState, table: int) -> list[str]:
    """The seats ``table``'s board waits for before its first call (empty: none)."""
    board = state.tables[table].current
    if board is None or board.gathered or board.is_finished:
        return []
    return [seat.letter for seat in state.absent(table)]


def _clock(state: MatchState, table: int) -> Data | None:
    """The round's clock at ``table`` (``RoundClock``), if it has one running or run."""
    clock = state.clock(table)
    if clock is None:
        return None
    return {
        "table": clock.table,
        "round": clock.round,
        "boards": clock.boards,
        "played": clock.played,
        "started_at": clock.started_at,
        "ends_at": clock.ends_at,
        "due_at": clock.due_at,
        "time_up": clock.time_up,
    }


def _watch(
    summary: Data,
    mode: str,
    tables: list[Data],
    results: list[Data],
    players: list[Data],
    chat: list[Data],
    calls: list[Data],
    answered: list[Data],
    waiting: list[Data],
    clocks: list[Data],
    face_down: list[Data],
) -> Data:
    return {
        "type": "watch_view",
        "match": summary,
        "mode": mode,
        "tables": tables,
        "results": results,
        "players": players,
        "chat": chat,
        "director_calls": calls,
        "answered_calls": answered,
        "waiting": waiting,
        "clocks": clocks,
        "face_down_leads": face_down,
    }


def _board_of(
    state: MatchState, table: int, number: int, viewer: Seen, shared: Shared | None
) -> Data:
    board = state.tables[table].board(number)
    assert board is not None
    return _board_data(state, board, table, viewer, shared=shared)


def board_record(state: MatchState, viewer: Viewer, number: int) -> BoardRecord | None:
    """The answer to ``get_board``: ``number`` as each table played it, as ``viewer`` may see
    it (None when the viewer may see nothing of it yet). A player sees their own table's
    board once finished and the other table's once the board is compared; live spectators
    and the director each table's board as it stands; delayed spectators a compared board."""
    comparison = next((c for c in match_summary(state).comparisons if c.board == number), None)
    tables: list[BoardView] = []
    for round_number, table in state.config.movement.plays(number):
        board = state.tables[table].board(number, round_number)
        if board is None:
            continue
        seen: Seen
        if isinstance(viewer, Player):
            sitting = state.config.movement.sitting(round_number, table)
            seat = sitting.seat_of(viewer.number)
            played = seat is not None and board.is_finished
            pending = _replay_pending(state, viewer.number, number)
            visible = comparison is not None or (played and not pending)
            seen = Seated(table, seat, viewer.number) if seat is not None else _seen(state, viewer)
        elif viewer.mode == "delayed" or (state.config.format == "robot-table" and table == 2):
            visible, seen = comparison is not None, viewer
        else:
            visible, seen = True, viewer
        if visible:
            data = _board_data(state, board, table, seen, record=True)
            tables.append(BoardView.model_validate(data))
    if not tables and comparison is None:
        return None
    return BoardRecord(board=number, tables=tables, comparison=comparison)


# -- what a match's viewers are told happened ----------------------------------------


def _events(
    state: MatchState,
    viewer: Seen,
    table: int,
    event: StoredEvent,
    effect: Effect,
    summary: Data,
) -> list[Event]:
    kind = event["type"]
    if table == 0:
        if kind == "compared":
            comparison = next(c for c in summary["comparisons"] if c["board"] == event["board"])
            return [BoardCompared(comparison=ComparisonView.model_validate(comparison))]
        if kind in ("release", "analysed"):
            return []  # only the view changed: a round may start, an analysis shows
        return [
            MatchFinished(
                imps_a=summary["imps_a"],
                imps_b=summary["imps_b"],
                winner=summary["winner"] or "draw",
                standings=[Standing.model_validate(s) for s in summary["standings"]],
            )
        ]
    tables = state.tables[table]
    board = effect.board or tables.current
    seat: Any = event.get("seat")  # a seat's letter, checked when the event was folded
    events: list[Event] = []
    if kind == "start":
        events.append(BoardStarted(table=table, board=event["board"], round=event.get("round", 1)))
    elif kind == "chat":
        events.append(ChatSent(table=table, seat=seat, text=event["text"], to=list(event["to"])))
    elif kind == "call":
        events.append(CallMade.model_validate(_call_made(viewer, table, event)))
    elif kind == "card":
        events.append(CardPlayed.model_validate(_card_played(board, table, event)))
    elif kind == "lead_face_down":
        events.append(LeadFaceDown(table=table, seat=seat))  # the card: in the views, to some
    elif kind == "lead_faced":
        assert board is not None
        assert board.play is not None
        leader, faced = board.play.cards_played[0]
        events.append(CardPlayed(table=table, seat=leader.letter, card=str(faced)))
    elif kind == "claim":
        events.append(ClaimMade(table=table, claimer=seat, tricks=event["tricks"]))
    elif kind == "answer":
        events.append(ClaimAnswered(table=table, seat=seat, accept=event["accept"]))
    elif kind == "withdraw_claim":
        events.append(ClaimWithdrawn(table=table, seat=seat))
    elif kind == "withdraw_concession":
        events.append(ConcessionWithdrawn(table=table, seat=seat))
    elif kind == "withdrawal_asked":
        events.append(ConcessionWithdrawalAsked(table=table, seat=seat))
    elif kind == "withdrawal_refused":
        events.append(ConcessionWithdrawalRefused(table=table, seat=seat))
    elif kind == "undo_request":
        assert board is not None
        assert board.undo is not None
        request = board.undo
        events.append(
            UndoRequested(
                table=table,
                seat=seat,
                call=None if request.call is None else str(request.call),
                card=None if request.card is None else str(request.card),
            )
        )
    elif kind in ("undo_answer", "undo"):
        if kind == "undo_answer":
            events.append(UndoAnswered(table=table, seat=seat, accept=event["accept"]))
        if board is not None and board.taken_back is not None:
            maker, call, card = board.taken_back
            events.append(
                Undone(
                    table=table,
                    seat=maker.letter,
                    call=None if call is None else str(call),
                    card=None if card is None else str(card),
                )
            )
    elif kind == "rule":
        events.append(
            DirectorRuled(
                table=table,
                declarer_tricks=event["tricks"],
                by_server=event.get("by") == "server",
            )
        )
    elif kind == "assign":
        assigned = tables.board(event["board"])
        assert assigned is not None
        assert assigned.result is not None
        result = _result_view(table, event["board"], assigned.result, "assigned", assigned.round)
        events.append(ResultAssigned(table=table, result=result))
    elif kind in ("ask", "explain"):
        assert board is not None
        caller = MatchState.caller(board, event["index"])
        if kind == "ask":
            events.append(QuestionAsked(table=table, seat=seat, index=event["index"]))
        elif _sees_alert(viewer, caller):
            events.append(
                CallExplained(
                    table=table, seat=caller.letter, index=event["index"], text=event["text"]
                )
            )
    elif kind == "director_call":
        called = tables.calls[-1]
        events.append(DirectorCalled(table=table, seat=seat, board=called.board, text=called.text))
    elif kind == "calls_seen":
        events.append(DirectorCallsSeen(table=table))
    elif kind == "calls_closed":
        events.append(DirectorCallsClosed(table=table))
    elif kind == "name":
        events.append(NameSet(table=table, seat=seat, name=event.get("name")))
    elif kind == "presence":
        info = state.person(table, Seat.parse(seat))
        events.append(
            PresenceChanged(table=table, seat=seat, connected=info.connected, robot=info.robot)
        )
    elif kind == "substitute":
        events.append(SeatSubstituted(table=table, seat=seat, robot=event["robot"]))
    elif kind == "ready":
        events.append(ReadyForNext(table=table, seat=seat))
    elif kind == "time_up":
        events.append(TimeUp(table=table, round=event["round"]))
    if effect.finished and board is not None and board.result is not None:
        result = _result_view(table, board.spec.number, board.result, board.decided, board.round)
        events.append(BoardFinished(table=table, result=result))
    if effect.committed and kind in ("ready", "review_over") and board is not None:
        events.append(ReviewEnded(table=table, board=board.spec.number))
    return events


def _call_made(viewer: Seen, table: int, event: StoredEvent) -> Data:
    """A ``call_made`` event as ``viewer`` is told it."""
    caller = Seat.parse(event["seat"])
    alert = event.get("alert") if _sees_alert(viewer, caller) else None
    return {
        "type": "call_made",
        "table": table,
        "seat": caller.letter,
        "call": event["call"],
        "alert": alert,
    }


def _card_played(board: BoardState | None, table: int, event: StoredEvent) -> Data:
    """A ``card_played`` event (the same for every viewer)."""
    return {
        "type": "card_played",
        "table": table,
        "seat": _card_owner(board, event),
        "card": event["card"],
        "trick_winner": _trick_winner(board, event),
    }


def _card_owner(board: BoardState | None, event: StoredEvent) -> SeatLetter:
    """The seat whose hand the card came from (dummy's, when declarer played it)."""
    assert board is not None
    return board.spec.deal.owner(Card.parse(event["card"])).letter


def _trick_winner(board: BoardState | None, event: StoredEvent) -> SeatLetter | None:
    """The winner of the trick the card completed, if it completed one."""
    assert board is not None
    assert board.play is not None
    last = board.play.last_trick
    current = board.play.current_trick
    if last is None or str(last.cards[-1]) != event["card"] or (current and current.cards):
        return None
    assert last.winner is not None
    return last.winner.letter


# -- who sees what ---------------------------------------------------------------------------


def _sees_alert(viewer: Seen, caller: Seat) -> bool:
    """Alerts go to the caller's opponents (and back to the caller), never to partner."""
    return not isinstance(viewer, Seated) or viewer.seat != caller.partner


def _claim_shown(board: BoardState, viewer: Seen) -> bool:
    """Whether ``viewer`` sees the claimer's remaining cards: watchers always; players while
    they decide the claim (or made it) and while the director has its dispute to rule on,
    and everyone once the board is over."""
    claim = board.claim
    if claim is None or not isinstance(viewer, Seated) or board.is_finished:
        return claim is not None
    open_ = claim.status in ("pending", "disputed")
    return open_ and viewer.seat in claim.claim.deciders | {claim.claim.claimer}


_EVERY_SEAT = frozenset(Seat)


def _visible_hands(board: BoardState, viewer: Seen) -> frozenset[Seat]:
    if not isinstance(viewer, Seated) or board.is_finished:
        return _EVERY_SEAT
    play = board.play
    if play is None:
        return frozenset((viewer.seat,))
    seen = {viewer.seat}
    if play.is_dummy_exposed:
        seen.add(play.dummy)
    if _claim_shown(board, viewer):
        assert board.claim is not None
        seen.add(board.claim.claim.claimer)
    return frozenset(seen)


def _last_trick_hidden(board: BoardState) -> frozenset[Seat]:
    """Law 66: a player may look at the last quitted trick until their side has played to
    the next one (dummy's cards count for declarer's side): the players who may not now
    (watchers always may)."""
    if board.is_finished or board.play is None:
        return frozenset()
    current = board.play.current_trick
    if current is None:
        return frozenset()
    played = {seat for seat, _card in current.plays()}
    return frozenset(seat for seat in SEATS if seat in played or seat.partner in played)


def _actions(board: BoardState, viewer: Seen, last_actor: Seat | None) -> list[Action]:
    """The actions besides calls and cards open to ``viewer`` now (the fold checks them
    again when they come; ``last_actor``: who made the last call or card)."""
    if not isinstance(viewer, Seated):
        return _NOTHING
    me = viewer.seat
    play = board.play
    actions: list[Action] = []
    if board.is_reviewing:
        claim = board.claim
        if (
            claim is not None
            and claim.status == "accepted"
            and play is not None
            and not board.assigned
            and not board.fixed
            and me != play.dummy
            and claim.withdrawal is None
        ):
            claimers = me in (claim.claim.claimer, claim.claim.claimer.partner)
            if claim.claim.tricks < claim.claim.remaining if claimers else claim.claim.tricks > 0:
                actions.append("withdraw_concession")
        if me not in board.ready and (claim is None or claim.withdrawal is None):
            actions.append("next_board")
        return actions
    if board.is_finished:
        return actions
    if board.undo is not None:
        if me in board.undo.deciders and me not in board.undo.accepted:
            actions.append("undo_answer")
        return actions
    pending = None if play is None else play.pending_claim
    if pending is not None:
        if me in pending.deciders and me not in pending.accepted:
            actions.append("claim_answer")
        if me == pending.claimer:
            actions.append("withdraw_claim")
        return actions
    if play is not None and play.disputed_claim is not None:
        return actions  # law 68D: play has ceased until the director rules
    if play is not None and play.face_down_lead is not None:
        if me == play.opening_leader.partner:
            actions.append("face_lead")  # law 41A: after any question about the auction
        return actions
    if play is not None and me != play.dummy:
        actions.append("claim")
    if last_actor == me:
        actions.append("undo")
    return actions


@dataclass(slots=True)
class _BoardShown:
    """What every viewer of a board is shown alike, made once per publication: each viewer's
    board is put together from it with what that viewer alone sees."""

    spec: BoardSpec
    kept: dict[object, Any]
    """What views made of the board and keep for the next publication (the board's
    :attr:`BoardState.shown` while it is its table's last; else a dict of this one's)."""
    held: dict[Seat, int]
    """Each seat's cards now, as a mask."""
    hands: dict[Seat, list[str]]
    """Each seat's cards now (views show some of them)."""
    hand_sizes: Data
    tricks: list[Data]
    last_trick: Data | None
    current_trick: Data | None
    claim: Data | None
    claim_cards: list[str] | None
    undo: Data | None
    tricks_ns: int
    tricks_ew: int
    result: Data | None
    last_trick_hidden: frozenset[Seat]
    """The players who may not look at the last trick now (:func:`_last_trick_hidden`)."""
    contract: str | None
    declarer: str | None
    dummy: str | None
    turn: Seat | None
    acting: Seat | None
    """Whose turn it is and who acts for them (declarer for dummy), while the board may be
    played on (:func:`_board_moving` shows them then)."""
    last_actor: Seat | None
    """Who made the last call or card (declarer for dummy's card): who may ask to undo it."""
    dealt: Data | None = None

    def deal(self) -> Data:
        """The board's four hands as dealt (made when a view shows them: while the board is
        played, only watchers' whole views do; nothing else holds them)."""
        if self.dealt is None:
            self.dealt = {s.letter: _cards(self.spec.deal[s].mask) for s in Seat}
        return self.dealt

    def auction(self, board: BoardState, hidden: Seat | None) -> list[Data]:
        """The auction as a viewer who may not see the alerts of ``hidden``'s calls sees it:
        one list for all who see the same, made again only when the calls or the alerts
        changed (calls are made once each: a tuple of the same calls is equal at the cost of
        a few pointers compared). Shared: never changed."""
        if not board.alerts:
            hidden = None  # no alert to hide: the same for everyone
        calls = board.auction.calls

        def entries() -> list[Data]:
            made = []
            seat = board.auction.dealer
            for index, call in enumerate(calls):
                alert = board.alerts.get(index) if seat != hidden else None
                made.append({"seat": seat.letter, "call": str(call), "alert": alert})
                seat = seat.next
            return made

        made_of = (calls, tuple(board.alerts.items()))
        auction: list[Data] = _kept(self.kept, ("auction", hidden), made_of, entries)
        return auction

    def hands_seen(self, visible: frozenset[Seat]) -> Data:
        """The hands shown to a viewer who sees ``visible``'s: one map for all who see the
        same, made again only when those hands change (an update then compares it at the
        cost of a pointer). Shared: never changed."""
        masks = tuple(self.held[seat] for seat in SEATS if seat in visible)
        hands: Data = _kept(
            self.kept,
            ("hands", visible),
            masks,
            lambda: {seat.letter: self.hands[seat] for seat in SEATS if seat in visible},
        )
        return hands


def _kept(kept: dict[object, Any], key: Hashable, made_of: object, make: Callable[[], _T]) -> _T:
    """``make()``, kept in ``kept`` (a :attr:`_BoardShown.kept`) under ``key`` with
    ``made_of``, what it is made of: made again only when that is no longer equal."""
    known = kept.get(key)
    if known is not None and known[0] == made_of:
        value: _T = known[1]
        return value
    value = make()
    kept[key] = (made_of, value)
    return value


def _board_shown(board: BoardState, table: int, last: bool) -> _BoardShown:
    """What every viewer of ``board`` at ``table`` is shown alike now (``last``: the board is
    the table's last, whose :attr:`BoardState.shown` keeps what views made of it)."""
    spec = board.spec
    play = board.play
    kept = board.shown if last else {}
    held = {seat: spec.deal[seat].mask if play is None else play.held(seat) for seat in SEATS}
    tricks: list[Data] = _NOTHING
    last_trick: Data | None = None
    current: Data | None = None
    tricks_ns = tricks_ew = 0
    if play is None:
        contract, declarer = board.auction.contract, board.auction.declarer
    else:
        contract, declarer = play.contract, play.declarer  # as the auction ended
        finished = play.tricks
        tricks = _kept(kept, "tricks", finished, lambda: [_trick_data(t) for t in finished])
        last_trick = tricks[-1] if tricks else None
        trick = play.unfinished_trick if play.is_complete else play.current_trick
        current = None if trick is None else _trick_made(trick)
        tricks_ns = play.declarer_tricks if play.declarer.is_north_south else play.defender_tricks
        tricks_ew = play.defender_tricks if play.declarer.is_north_south else play.declarer_tricks
    claim_view = None
    claim_cards = None
    if board.claim is not None and play is not None:
        claim = board.claim.claim
        claim_view = {
            "claimer": claim.claimer.letter,
            "tricks": claim.tricks,
            "remaining": claim.remaining,
            "statement": board.claim.statement,
            "deciders": [s.letter for s in sorted(claim.deciders)],
            "accepted": [s.letter for s in sorted(claim.accepted)],
            "status": board.claim.status,
        }
        claim_cards = [str(c) for c in _claimer_cards(board)]
    undo_view = None
    if board.undo is not None:
        request = board.undo
        undo_view = {
            "seat": request.seat.letter,
            "call": None if request.call is None else str(request.call),
            "card": None if request.card is None else str(request.card),
            "deciders": [s.letter for s in sorted(request.deciders)],
            "accepted": [s.letter for s in sorted(request.accepted)],
        }
    turn = acting = None
    if board.gathered and board.phase in ("auction", "play"):
        if play is None:
            turn = acting = board.auction.turn
        else:
            turn, acting = play.turn, play.acting_seat
    last_action = board.last_action()
    return _BoardShown(
        spec=spec,
        kept=kept,
        held=held,
        hands={seat: _cards(mask) for seat, mask in held.items()},
        hand_sizes=_hand_sizes(*(mask.bit_count() for mask in held.values())),
        tricks=tricks,
        last_trick=last_trick,
        current_trick=current,
        claim=claim_view,
        claim_cards=claim_cards,
        undo=undo_view,
        tricks_ns=tricks_ns,
        tricks_ew=tricks_ew,
        result=(
            None
            if board.result is None
            else _result_data(table, spec.number, board.result, board.decided, board.round)
        ),
        last_trick_hidden=_last_trick_hidden(board),
        contract=None if contract is None else _contract_text(contract),
        declarer=None if declarer is None else declarer.letter,
        dummy=None if play is None else play.dummy.letter,
        turn=turn,
        acting=acting,
        last_actor=None if last_action is None else last_action[0],
    )


def board_moving(state: MatchState, viewer: Viewer, table: int, shared: Shared) -> Data | None:
    """The fields of ``table``'s board that a plain call or card changes
    (:data:`PLAIN_BOARD_KEYS`, in that order), as ``viewer`` sees them now; None when the
    table has no board in play. Exactly those fields of its :func:`view_data`."""
    board = state.tables[table].current
    if board is None:
        return None
    shown = _once(shared, ("board", table, id(board)), lambda: _board_shown(board, table, True))
    return _board_moving(board, shown, _seen(state, viewer, table), record=False)


def _board_data(
    state: MatchState,
    board: BoardState,
    table: int,
    viewer: Seen,
    *,
    record: bool = False,
    shared: Shared | None = None,
) -> Data:
    """``board`` at ``table`` as ``viewer`` may see it (``record``: answering ``get_board``,
    with no turn or actions)."""
    last = state.tables[table].current is board
    shown = _once(shared, ("board", table, id(board)), lambda: _board_shown(board, table, last))
    moving = _board_moving(board, shown, viewer, record=record)
    spec = board.spec
    return {
        "table": table,
        "round": board.round,
        "board": spec.number,
        "dealer": spec.dealer.letter,
        "vulnerability": spec.vulnerability.value,
        "phase": moving["phase"],
        "hands": moving["hands"],
        "hand_sizes": moving["hand_sizes"],
        "deal": shown.deal() if board.is_finished or not isinstance(viewer, Seated) else None,
        "auction": moving["auction"],
        "contract": moving["contract"],
        "declarer": moving["declarer"],
        "dummy": moving["dummy"],
        "tricks": moving["tricks"],
        "last_trick": moving["last_trick"],
        "current_trick": moving["current_trick"],
        "turn": moving["turn"],
        "acting": moving["acting"],
        "tricks_ns": moving["tricks_ns"],
        "tricks_ew": moving["tricks_ew"],
        "claim": moving["claim"],
        "undo": moving["undo"],
        "result": shown.result,
        "legal": moving["legal"],
        "actions": moving["actions"],
        "questions": (
            sorted(i for i in board.questions if MatchState.caller(board, i) == viewer.seat)
            if isinstance(viewer, Seated) and not record
            else []
        ),
        "handviewer": _handviewer(state, board, table, viewer)
        if board.result is not None
        else None,
    }


def _board_moving(board: BoardState, shown: _BoardShown, viewer: Seen, *, record: bool) -> Data:
    """The fields of :func:`_board_data` that plain calls and cards change
    (:data:`PLAIN_BOARD_KEYS`, in that order)."""
    play = board.play
    auction = board.auction
    finished = board.is_finished
    player = isinstance(viewer, Seated)
    turn: Seat | None = None
    acting: Seat | None = None
    legal: list[str] = _NOTHING
    if not record:
        turn, acting = shown.turn, shown.acting
        if isinstance(viewer, Seated) and viewer.seat == acting and board.undo is None:
            if play is None:
                legal = [str(call) for call in auction.legal_calls()]
            else:
                legal = [str(card) for card in play.legal_cards()]

    claim_view = shown.claim
    if claim_view is not None:
        cards = shown.claim_cards if _claim_shown(board, viewer) else None
        asked = None if board.claim is None else board.claim.withdrawal
        withdrawal = None if asked is None else asked.letter
        disputer = None if board.claim is None else board.claim.disputed_by
        claim_view = {
            **claim_view,
            "cards": cards,
            "withdrawal": withdrawal,
            "disputed_by": None if disputer is None else disputer.letter,
        }

    return {
        "phase": board.phase,
        "hands": shown.hands_seen(_visible_hands(board, viewer)),
        "hand_sizes": shown.hand_sizes,
        "auction": shown.auction(
            board, viewer.seat.partner if isinstance(viewer, Seated) else None
        ),
        "contract": shown.contract,
        "declarer": shown.declarer,
        "dummy": shown.dummy,
        "tricks": shown.tricks if not player or finished else _NOTHING,
        "last_trick": (
            None
            if isinstance(viewer, Seated) and viewer.seat in shown.last_trick_hidden
            else shown.last_trick
        ),
        "current_trick": shown.current_trick,
        "turn": None if turn is None else turn.letter,
        "acting": None if acting is None else acting.letter,
        "tricks_ns": shown.tricks_ns,
        "tricks_ew": shown.tricks_ew,
        "claim": claim_view,
        "undo": shown.undo,
        "legal": legal,
        "actions": _NOTHING if record else _actions(board, viewer, shown.last_actor),
    }


def _handviewer(state: MatchState, board: BoardState, table: int, viewer: Seen) -> str | None:
    """The finished board's BBO hand-viewer link, with the alerts ``viewer`` sees: made once
    for each thing it is made of (the players' names, the alerts, the play, the result, how
    the director decided it, the claim)."""
    hidden = viewer.seat.partner if isinstance(viewer, Seated) and board.alerts else None
    sitting = state.config.movement.sitting(board.round, table)
    key = (
        hidden,
        tuple(state.people[sitting.player(seat)].name for seat in Seat),
        tuple(board.alerts.items()),
        len(board.auction.calls),
        0 if board.play is None else board.play.played_count,
        board.result,
        board.decided,  # the records' words on a ruling or an assigned result...
        None if board.claim is None else (board.claim.status, board.claim.statement),
    )
    link = board.links.get(key)
    if link is None:
        try:
            link = handviewer(state, board, table, hidden)
        except BridgeError:  # a view is never refused for its link: it goes without
            log.exception("board %d at table %d: no hand-viewer link", board.spec.number, table)
            link = None
        board.links[key] = link
    return link


def _claimer_cards(board: BoardState) -> Hand:
    """The claimer's cards as they were at the claim (the cards of the trick in progress then
    are in ``current_trick``)."""
    assert board.claim is not None
    assert board.play is not None
    return board.play.remaining(board.claim.claim.claimer)


class _Kept(list[Any]):
    """A list that views share, and that a weak reference can name (a list cannot)."""

    __slots__ = ("__weakref__",)


class _KeptData(dict[str, Any]):
    """A map that views share, and that a weak reference can name (a dict cannot)."""

    __slots__ = ("__weakref__",)


_HOLDINGS: weakref.WeakValueDictionary[int, _Kept] = weakref.WeakValueDictionary()
"""Each holding some view shows, by its mask: kept while a view holds it, no longer. (It was
an LRU cache sized for a thousand matches' boards in play: once full, some 4 MB, more than a
kilobyte a connection with 250 matches.)"""


def _names(suit: Suit, lowest: int, width: int) -> tuple[tuple[str, ...], ...]:
    """For every set of ``suit``'s ``width`` ranks from its ``lowest``-th up (as bits, the
    lowest rank bit 0), their cards' names, high to low."""
    base = 13 * suit + lowest
    return tuple(
        tuple(str(ALL_CARDS[base + i]) for i in range(width - 1, -1, -1) if bits >> i & 1)
        for bits in range(1 << width)
    )


_SUIT_NAMES = tuple(
    (13 * suit, _names(suit, 7, 6), _names(suit, 0, 7))
    for suit in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
)
"""By suit, spades first: its bits' place in a mask, and the names of its cards in each set
of its six highest ranks and of its seven lowest (768 short tuples: a holding's names are
eight of them put together)."""


def _cards(mask: int) -> list[str]:
    """A holding's cards as views show them, spades first, high to low: made once per
    holding and shared by every view that shows it while any does. Shared: never changed."""
    cards = _HOLDINGS.get(mask)
    if cards is None:
        cards = _HOLDINGS[mask] = _Kept()
        for shift, high, low in _SUIT_NAMES:
            bits = mask >> shift
            cards += high[bits >> 7 & 0x3F]
            cards += low[bits & 0x7F]
    return cards


_PLAYED: dict[tuple[Seat, Card], Data] = {
    (seat, card): {"seat": seat.letter, "card": str(card)} for seat in Seat for card in ALL_CARDS
}
"""Each card a seat can play, as a trick in a view shows it: one dict each, shared by every
trick (a trick is a few hundred bytes, not more than a kilobyte: views keep the tricks of
every board in play). Shared: never changed."""


def _trick_made(trick: Trick) -> _KeptData:
    """A trick as views show it. Shared: never changed."""
    return _KeptData(
        leader=trick.leader.letter,
        cards=[_PLAYED[play] for play in trick.plays()],
        winner=None if trick.winner is None else trick.winner.letter,
    )


_TRICKS: weakref.WeakValueDictionary[Trick, _KeptData] = weakref.WeakValueDictionary()
"""Each finished trick some view shows: kept while a view holds it."""


def _trick_data(trick: Trick) -> Data:
    """A finished trick as views show it: made once and shared by every update that shows it
    while any does (a spectator's view shows every trick of both tables each time). The trick
    in progress is made once a publication (:func:`_board_shown`): it changes with each card.
    Shared: never changed."""
    data = _TRICKS.get(trick)
    if data is None:
        data = _TRICKS[trick] = _trick_made(trick)
    return data


_NOTHING: list[Any] = []
"""No legal call or card, no action, no trick (before the first is finished; a player's
while the board is played): the same list each time, so that an update compares it at the
cost of a pointer. Shared: never changed."""


@functools.cache
def _contract_text(contract: Contract) -> str:
    """A contract as views show it: one string for each of the 105 contracts."""
    return str(contract)


@functools.cache
def _hand_sizes(north: int, east: int, south: int, west: int) -> Data:
    """How many cards each seat holds, as views show it: one map for each four counts a
    play passes through (a few hundred). Shared: never changed."""
    return {"N": north, "E": east, "S": south, "W": west}


def _result_data(
    table: int, board: int, result: TableResult, decided: Decision | None, round_number: int
) -> Data:
    return {
        "table": table,
        "round": round_number,
        "board": board,
        "contract": None if result.contract is None else str(result.contract),
        "declarer": None if result.declarer is None else result.declarer.letter,
        "tricks": result.tricks,
        "ns_score": result.ns_score,
        "assigned": decided == "assigned",
        "ruled": decided == "ruled",
    }


def _result_view(
    table: int, board: int, result: TableResult, decided: Decision | None, round_number: int
) -> TableResultView:
    return TableResultView(**_result_data(table, board, result, decided, round_number))


def _players(state: MatchState, tables: tuple[int, ...]) -> list[Data]:
    """Who sits at each seat of ``tables`` now, and whether they are there."""
    infos = []
    for number in tables:
        for seat in Seat:
            player = state.player_at(number, seat)
            assert player is not None
            info = state.people[player]
            infos.append(
                {
                    "table": number,
                    "seat": seat.letter,
                    "player": player,
                    "name": info.name,
                    "robot": info.robot,
                    "connected": info.connected,
                    "since": info.since,
                }
            )
    return infos


def _tables_of(movement: Movement, player: int) -> tuple[int | None, ...]:
    """Where ``player`` sits, round by round: players who sit at the same tables have played
    the same boards, with the same results (:func:`_results_of`)."""
    return tuple(
        None if (where := movement.seat_of(player, number)) is None else where[0]
        for number in movement.rounds
    )


def _results_of(state: MatchState, player: int) -> list[Data]:
    """The results of the boards ``player`` has played, round by round (not one they are
    to play again, until that replay is finished: replay duplicate's stage 1)."""
    results = []
    for number in state.config.movement.rounds:
        where = state.config.movement.seat_of(player, number)
        if where is None:
            continue
        table = where[0]
        for board in state.tables[table].boards:
            if board.round != number or board.result is None:
                continue
            if _replay_pending(state, player, board.spec.number):
                continue
            results.append(
                _result_data(table, board.spec.number, board.result, board.decided, number)
            )
    return results


def _replay_pending(state: MatchState, player: int, number: int) -> bool:
    """Whether ``player`` is still to finish a play of board ``number`` (replay duplicate:
    stage 1's result of a board stays out of sight until its replay is finished)."""
    movement = state.config.movement
    for round_number, table in movement.plays(number):
        if movement.sitting(round_number, table).seat_of(player) is None:
            continue
        board = state.tables[table].board(number, round_number)
        if number not in state.fixed and (board is None or not board.is_finished):
            return True
    return False


def _still_playing(state: MatchState, table: int) -> list[int]:
    """The other tables that ``table``'s players may not know to be done with the match's
    round (:meth:`MatchState.table_known_done`): that another table has finished its boards
    is not theirs to know before they are told, or a view made afresh would show it where
    the one they were sent does not."""
    return [
        t for t in state.config.tables if t != table and not state.table_known_done(t, state.round)
    ]


def _next_seat(state: MatchState, player: int) -> Data | None:
    """Where ``player`` sits in the next round, if there is one."""
    movement = state.config.movement
    later = [r for r in movement.rounds if r > state.round]
    if not later:
        return None
    where = movement.seat_of(player, later[0])
    if where is None:
        return None
    sitting = movement.sitting(later[0], where[0])
    partner = sitting.partner(player)
    opponents = list(sitting.opponents(player))
    names = {
        str(n): name for n in (partner, *opponents) if (name := state.people[n].name) is not None
    }
    return {
        "round": later[0],
        "table": where[0],
        "seat": where[1].letter,
        "partner": partner,
        "opponents": opponents,
        "names": names,
    }


def _last_chat(table: TableState, seat: Seat, round_number: int) -> list[Data]:
    """The last CHAT_LINES lines of the table's chat in ``round_number`` (its players then)
    that reached ``seat``, oldest first (looked for from the end: a long chat costs no
    more)."""
    lines: list[Data] = []
    for line in reversed(table.chat):
        if line.round != round_number:
            break
        if seat in line.to:
            lines.append(_chat_line(table.number, line))
            if len(lines) == CHAT_LINES:
                break
    lines.reverse()
    return lines


def _chat_line(table: int, line: ChatEntry) -> Data:
    return {
        "table": table,
        "seat": None if line.seat is None else line.seat.letter,
        "text": line.text,
        "to": [s.letter for s in sorted(line.to)],
    }


def _calls(table: TableState, *, answered: bool = False) -> list[Data]:
    """The table's calls for the director not answered yet (``answered``: those answered in
    the table's chat and not closed yet)."""
    return [
        {
            "table": table.number,
            "seat": call.seat.letter,
            "board": call.board,
            "text": call.text,
            "at": call.at,
            "state": call.state,
        }
        for call in table.calls
        if (call.state == "answered") == answered
    ]


def review_data(state: MatchState, table: int, shared: Shared | None = None) -> Data | None:
    """The ``review`` of a player's view at ``table``: made once per publication."""
    return _once(shared, ("review", table), lambda: _review(state, table))


def _review(state: MatchState, table: int) -> Data | None:
    board = state.tables[table].current
    if board is None or not board.is_reviewing or board.abandoned:
        return None
    # A table without review time puts no board on review: a board on review has a deadline.
    return {
        "board": board.spec.number,
        "until": state.review_deadline(table),
        "ready": [s.letter for s in sorted(board.ready)],
    }


@dataclass(slots=True)
class _Compared:
    """A comparison's data with what it was made from (:func:`_comparison_data`)."""

    inputs: tuple[Any, ...]
    analysis: Analysis | None
    data: Data


_COMPARED: weakref.WeakKeyDictionary[MatchState, dict[int, _Compared]] = weakref.WeakKeyDictionary()
"""Each match's comparisons as last made: made again only when what they are made of
changed (most events change none, and every view carries all of them)."""


def _comparison_data(
    state: MatchState, number: int, c: BoardComparison | None, running_total: int | None
) -> Data:
    """Board ``number`` compared: every play's result and each competitor's points; in the
    team formats also the teams' comparison ``c``. Shared: never changed."""
    analysis = state.analyses.get(number)
    plays = state.compared.get(number, {})
    assigned_plays = state.compared_assigned.get(number, frozenset())
    ruled_plays = state.compared_ruled.get(number, frozenset())
    fixed = number in state.fixed
    inputs = (c, running_total, dict(plays), assigned_plays, ruled_plays, fixed)
    made = _COMPARED.setdefault(state, {})
    earlier = made.get(number)
    if earlier is not None and earlier.analysis is analysis and earlier.inputs == inputs:
        return earlier.data
    assigned = frozenset() if c is None else c.assigned

    def decided(play: tuple[int, int], assigned: bool) -> Decision | None:
        return "assigned" if assigned else "ruled" if play in ruled_plays else None

    def team_table(table: int, result: TableResult | None) -> Data | None:
        if result is None:
            return None
        play = (_round_of(plays, table), table)
        return _result_data(table, number, result, decided(play, table in assigned), play[0])

    results = [
        _result_data(table, number, result, decided((r, table), (r, table) in assigned_plays), r)
        for (r, table), result in sorted(plays.items())
        if result is not None
    ]
    points: dict[str, float] = {}
    if c is not None:
        points = {"A": float(c.swing), "B": float(-c.swing)}
    elif not fixed and plays and None not in plays.values():
        scores = {play: result.ns_score for play, result in plays.items() if result is not None}
        board_points = state.config.movement.board_points(number, scores)
        points = {name: float(value) for name, value in board_points.items()}
    data = {
        "board": number,
        "results": results,
        "points": points,
        "table1": None if c is None else team_table(1, c.table1),
        "table2": None if c is None else team_table(2, c.table2),
        "difference": None if c is None else c.difference,
        "swing": None if c is None else c.swing,
        "running_total": running_total,
        "artificial": None if c is None else c.artificial,
        "void": c.void if c is not None else fixed,
        "double_dummy": (
            None
            if analysis is None
            else {seat: dict(strains) for seat, strains in analysis.tricks.items()}
        ),
        "par": (
            None
            if analysis is None
            else {"score": analysis.par_score, "contracts": list(analysis.par_contracts)}
        ),
    }
    made[number] = _Compared(inputs, analysis, data)
    return data


def _round_of(plays: dict[tuple[int, int], TableResult | None], table: int) -> int:
    """The round in which ``table`` played the board (team formats: once per table)."""
    return next((r for r, t in plays if t == table), 1)


def match_summary(state: MatchState) -> MatchSummary:
    """The match panel, as a model: :func:`summary_data`, validated."""
    return MatchSummary.model_validate(summary_data(state))


def summary_data(state: MatchState) -> Data:
    """The match panel: every comparison so far, the standings, the settings players see;
    as plain data (its comparisons are shared: never change them)."""
    config = state.config
    match = state.match
    if config.teams:
        totals: dict[int, int] = dict(match.running_totals())
        comparisons = [
            _comparison_data(state, c.board, c, totals[c.board]) for c in match.comparisons
        ]
    else:
        comparisons = [
            _comparison_data(state, n, None, None) for n in match.boards if n in state.compared
        ]
    standings = state.standings()
    return {
        "match_id": config.match_id,
        "format": config.format,
        "scoring": config.movement.scoring,
        "rounds": len(config.movement.rounds),
        "team_a": config.team_a,
        "team_b": config.team_b,
        "boards": list(match.boards),
        "comparisons": comparisons,
        "standings": [_standing(state, name, points) for name, points in standings],
        "imps_a": match.imps_a if config.teams else 0,
        "imps_b": match.imps_b if config.teams else 0,
        "finished": state.finished,
        "winner": _winner(state, standings),
        "held_round": state.round + 1 if state.held_next() else None,
        "sessions": [
            {
                "session": session.session,
                "rounds": list(session.rounds),
                "boards": list(session.boards),
                "points": dict(session.points),
            }
            for session in state.session_scores()
        ],
        "chat": config.chat,
        "review_seconds": config.review_seconds,
        "deals_commitment": config.deals_commitment,
        "deals_seed_commitment": config.deals_seed_commitment,
        "deals_public_value": config.deals_public,
        "deals_public_form": config.deals_form,
    }


def _winner(state: MatchState, standings: list[tuple[str, float]]) -> str | None:
    """Once the match is over: the winning team (or ``"draw"``), else the leading
    competitor (or ``"draw"`` for a tie at the top); None before."""
    if not state.finished:
        return None
    if state.config.teams:
        return state.match.winner or "draw"
    if len(standings) > 1 and standings[0][1] == standings[1][1]:
        return "draw"
    return standings[0][0] if standings else None


def _standing(state: MatchState, competitor: str, points: float) -> Data:
    """A competitor's line of the standings: its members and its name (the team's, or its
    members' names joined, ``Player 7`` for one without a name)."""
    config = state.config
    members = sorted(p for p, c in config.movement.competitors.items() if c == competitor)
    if config.teams:
        name = config.team_a if competitor == "A" else config.team_b
    else:
        name = " & ".join(state.people[p].name or f"Player {p}" for p in members)
    return {"competitor": competitor, "name": name, "players": members, "points": float(points)}


def match_entry(state: MatchState, *, archived: bool) -> Data:
    """The match as the organiser's list shows it (``MatchEntry``): where it stands, and at
    each table the board in play, the trick, who is there, the calls for the director and
    the clock. No hand and no result that is not compared yet: only what the summary and a
    live spectator see (the robots' table 2 of a robot-table match, hidden until table 1
    has played each board, is not shown at all)."""
    config = state.config
    standings = state.standings()
    shown = (1,) if config.format == "robot-table" else config.tables
    begun = any(
        board.auction.calls or board.is_finished
        for number in shown
        for board in state.tables[number].boards
    )
    return {
        "match_id": config.match_id,
        "format": config.format,
        "scoring": config.movement.scoring,
        "status": "finished" if state.finished else "playing" if begun else "waiting",
        "archived": archived,
        "created_at": config.created_at,
        "boards": len(config.boards),
        "rounds": len(config.movement.rounds),
        "compared": (
            len(state.match.comparisons)
            if config.teams
            else sum(1 for n in state.match.boards if n in state.compared)
        ),
        "team_a": config.team_a,
        "team_b": config.team_b,
        "spectators": config.spectators,
        "standings": [_standing(state, name, points) for name, points in standings],
        "winner": _winner(state, standings),
        "tables": [_table_entry(state, number) for number in shown],
    }


def _table_entry(state: MatchState, number: int) -> Data:
    table = state.tables[number]
    board = table.current
    play = None if board is None else board.play
    contract = declarer = trick = None
    if board is not None and play is not None:
        contract, declarer = str(play.contract), play.declarer.letter
        if board.phase in ("play", "claim"):
            trick = min(13, len(play.tricks) + 1)
    return {
        "table": number,
        "round": table.round,
        "board": None if board is None else board.spec.number,
        "phase": None if board is None else board.phase,
        "trick": trick,
        "contract": contract,
        "declarer": declarer,
        "boards_played": sum(1 for played in table.boards if played.is_finished),
        "players": _players(state, (number,)),
        "director_calls": _calls(table),
        "clock": _clock(state, number),
        "waiting_for": _waiting_seats(state, number),
    }

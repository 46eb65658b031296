"""THE place that decides what each viewer may see.

:func:`project` turns the match state right after a logged event into the one update a
viewer receives for it. Nothing else in the server builds a payload with cards, alerts,
claims or results in it, so the laws' limits on information live here and only here:

- a player sees their own hand; dummy once the opening lead is faced; the claimer's cards
  when they decide a claim; their table's auction (alerts only from opponents, and their
  own), play, claims, chat and results; the whole deal of a board their table finished;
  and of the other table nothing but the comparisons, once both tables finished a board;
- spectators (``live``) and the director see both tables as they are played, all hands;
- spectators (``delayed``) see a board only once both tables finished it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bridge import Card, Seat
from bridge.cards import Hand
from bridge.formats import TableResult
from protocol.messages import (
    AuctionEntry,
    BoardCompared,
    BoardFinished,
    BoardStarted,
    BoardView,
    CallExplained,
    CallMade,
    CardPlayed,
    ChatLine,
    ChatSent,
    ClaimAnswered,
    ClaimMade,
    ClaimView,
    ComparisonView,
    DirectorRuled,
    Event,
    MatchFinished,
    MatchSummary,
    ParView,
    PlayedCard,
    PlayerView,
    QuestionAsked,
    Snapshot,
    TableResultView,
    TrickView,
    Update,
    WatchView,
)
from server.state import ENDING_EVENTS, BoardState, MatchState, StoredEvent

__all__ = ["Player", "Viewer", "Watcher", "project", "receives"]

CHAT_LINES = 50
"""How many lines of table chat a view carries."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seat at a table."""

    table: int
    seat: Seat


@dataclass(frozen=True, slots=True)
class Watcher:
    """A spectator (``live`` or ``delayed``) or the director."""

    mode: Literal["live", "delayed", "director"]


Viewer = Player | Watcher


def receives(viewer: Viewer, log: int, event: StoredEvent) -> bool:
    """Whether ``viewer`` gets an update for ``event``, an entry of a log tagged ``log`` (0 for
    match events, else its table). A player gets every entry of their table's log; table chat
    reaches no one else; delayed spectators get only the match events."""
    if isinstance(viewer, Player):
        return log in (0, viewer.table)
    if event["type"] == "chat":
        return False
    return viewer.mode != "delayed" or log == 0


def project(state: MatchState, viewer: Viewer, table: int, event: StoredEvent, seq: int) -> Update:
    """The update ``viewer`` receives for ``event`` (logged at ``table``, 0 for match events),
    given the match ``state`` right after it."""
    return Update(seq=seq, events=_events(state, viewer, table, event), view=view_of(state, viewer))


def snapshot(state: MatchState, viewer: Viewer, seq: int) -> Update:
    """A whole view that stands in for every update up to ``seq``."""
    return Update(seq=seq, events=[Snapshot()], view=view_of(state, viewer))


def view_of(state: MatchState, viewer: Viewer) -> PlayerView | WatchView:
    """Everything ``viewer`` may see now."""
    summary = _summary(state)
    if isinstance(viewer, Player):
        table = state.tables[viewer.table]
        board = table.current
        return PlayerView(
            match=summary,
            table=viewer.table,
            seat=viewer.seat.letter,
            team=state.config.team_of(viewer.table, viewer.seat),
            board=None if board is None else _board_view(board, viewer.table, viewer),
            results=[_result_view(viewer.table, n, r) for n, r in table.results],
            chat=[ChatLine(seat=s.letter, text=t) for s, t in table.chat[-CHAT_LINES:]],
        )
    compared = summary.comparisons
    revealed = compared[-1].board if compared else None
    if viewer.mode == "delayed":
        tables = [] if revealed is None else [_board_of(state, t, revealed, viewer) for t in (1, 2)]
        return WatchView(match=summary, mode="delayed", tables=tables)
    tables = []
    first = state.tables[1].current
    if first is not None:
        tables.append(_board_view(first, 1, viewer))
    if state.config.format == "robot-table":
        # The robots' table was played at creation: a board of it shows once compared.
        if revealed is not None:
            tables.append(_board_of(state, 2, revealed, viewer))
    elif (second := state.tables[2].current) is not None:
        tables.append(_board_view(second, 2, viewer))
    return WatchView(match=summary, mode=viewer.mode, tables=tables)


def _board_of(state: MatchState, table: int, number: int, viewer: Viewer) -> BoardView:
    board = next(b for b in state.tables[table].boards if b.spec.number == number)
    return _board_view(board, table, viewer)


# -- events ------------------------------------------------------------------------------


def _events(state: MatchState, viewer: Viewer, table: int, event: StoredEvent) -> list[Event]:
    kind = event["type"]
    if table == 0:
        if kind == "compared":
            comparison = next(c for c in _summary(state).comparisons if c.board == event["board"])
            return [BoardCompared(comparison=comparison)]
        match = state.match
        outcome = match.winner or "draw"
        return [MatchFinished(imps_a=match.imps_a, imps_b=match.imps_b, winner=outcome)]
    board = state.tables[table].current
    assert board is not None
    events: list[Event] = []
    if kind == "start":
        events.append(BoardStarted(table=table, board=event["board"]))
    elif kind == "chat":
        events.append(ChatSent(table=table, seat=event["seat"], text=event["text"]))
    elif kind == "call":
        caller = Seat.parse(event["seat"])
        alert = event.get("alert") if _sees_alert(viewer, caller) else None
        events.append(CallMade(table=table, seat=caller.letter, call=event["call"], alert=alert))
    elif kind == "card":
        play = board.play
        assert play is not None
        seat, card = play.cards_played[-1]
        last = play.last_trick
        winner = last.winner if last is not None and last.cards[-1] is card else None
        events.append(
            CardPlayed(
                table=table,
                seat=seat.letter,
                card=str(card),
                trick_winner=None if winner is None else winner.letter,
            )
        )
    elif kind == "claim":
        events.append(ClaimMade(table=table, claimer=event["seat"], tricks=event["tricks"]))
    elif kind == "answer":
        events.append(ClaimAnswered(table=table, seat=event["seat"], accept=event["accept"]))
    elif kind == "rule":
        events.append(DirectorRuled(table=table, declarer_tricks=event["tricks"]))
    elif kind in ("ask", "explain"):
        caller = MatchState.caller(board, event["index"])
        if kind == "ask" and (
            _all_seeing(viewer) or _seat_of(viewer) in (caller, Seat.parse(event["seat"]))
        ):
            events.append(QuestionAsked(table=table, seat=event["seat"], index=event["index"]))
        if kind == "explain" and _sees_alert(viewer, caller):
            events.append(
                CallExplained(
                    table=table, seat=caller.letter, index=event["index"], text=event["text"]
                )
            )
    if kind in ENDING_EVENTS and board.result is not None:
        result = _result_view(table, board.spec.number, board.result)
        events.append(BoardFinished(table=table, result=result))
    return events


# -- who sees what ---------------------------------------------------------------------------


def _all_seeing(viewer: Viewer) -> bool:
    return not isinstance(viewer, Player)


def _seat_of(viewer: Viewer) -> Seat | None:
    return viewer.seat if isinstance(viewer, Player) else None


def _sees_alert(viewer: Viewer, caller: Seat) -> bool:
    """Alerts go to the caller's opponents (and back to the caller), never to partner."""
    return not isinstance(viewer, Player) or viewer.seat != caller.partner


def _visible_hands(board: BoardState, viewer: Viewer) -> set[Seat]:
    if not isinstance(viewer, Player):
        return set(Seat)
    seen = {viewer.seat}
    play = board.play
    if play is None:
        return seen
    if play.is_dummy_exposed:
        seen.add(play.dummy)
    claim = board.claim
    deciding = claim is not None and (play.pending_claim is not None or board.claim_rejected)
    if claim is not None and deciding and viewer.seat in claim.deciders | {claim.claimer}:
        seen.add(claim.claimer)
    return seen


def _board_view(board: BoardState, table: int, viewer: Viewer) -> BoardView:
    spec = board.spec
    play = board.play
    auction = board.auction
    finished = board.result is not None
    visible = set(Seat) if finished else _visible_hands(board, viewer)

    def remaining(seat: Seat) -> Hand:
        return spec.deal[seat] if play is None else play.remaining(seat)

    entries = []
    seat = auction.dealer
    for index, call in enumerate(auction.calls):
        alert = board.alerts.get(index) if _sees_alert(viewer, seat) else None
        entries.append(AuctionEntry(seat=seat.letter, call=str(call), alert=alert))
        seat = seat.next

    turn: Seat | None = None
    acting: Seat | None = None
    legal: list[str] = []
    if not finished and board.phase in ("auction", "play"):
        if play is None:
            turn = acting = auction.turn
            if isinstance(viewer, Player) and viewer.seat == acting:
                legal = [str(call) for call in auction.legal_calls()]
        else:
            turn, acting = play.turn, play.acting_seat
            if isinstance(viewer, Player) and viewer.seat == acting:
                legal = [str(card) for card in play.legal_cards()]

    tricks: list[TrickView] = []
    current: TrickView | None = None
    if play is not None:
        tricks = [_trick_view(t.plays(), t.leader, t.winner) for t in play.tricks]
        trick = play.current_trick
        if trick is not None:
            current = _trick_view(trick.plays(), trick.leader, None)

    claim_view = None
    if board.claim is not None and play is not None:
        claim = board.claim
        shown = claim.claimer in visible or not isinstance(viewer, Player)
        claim_view = ClaimView(
            claimer=claim.claimer.letter,
            tricks=claim.tricks,
            remaining=claim.remaining,
            deciders=[s.letter for s in sorted(claim.deciders)],
            accepted=[s.letter for s in sorted(claim.accepted)],
            rejected=board.claim_rejected,
            cards=[str(c) for c in remaining(claim.claimer)] if shown else None,
        )

    tricks_ns = tricks_ew = 0
    if play is not None:
        tricks_ns = play.declarer_tricks if play.declarer.is_north_south else play.defender_tricks
        tricks_ew = play.defender_tricks if play.declarer.is_north_south else play.declarer_tricks

    return BoardView(
        table=table,
        board=spec.number,
        dealer=spec.dealer.letter,
        vulnerability=spec.vulnerability.value,
        phase=board.phase,
        hands={s.letter: [str(c) for c in remaining(s)] for s in Seat if s in visible},
        hand_sizes={s.letter: len(remaining(s)) for s in Seat},
        deal=(
            {s.letter: [str(c) for c in spec.deal[s]] for s in Seat}
            if finished or not isinstance(viewer, Player)
            else None
        ),
        auction=entries,
        contract=None if auction.contract is None else str(auction.contract),
        declarer=None if auction.declarer is None else auction.declarer.letter,
        dummy=None if play is None else play.dummy.letter,
        tricks=tricks,
        current_trick=current,
        turn=None if turn is None else turn.letter,
        acting=None if acting is None else acting.letter,
        tricks_ns=tricks_ns,
        tricks_ew=tricks_ew,
        claim=claim_view,
        result=None if board.result is None else _result_view(table, spec.number, board.result),
        legal=legal,
        questions=sorted(
            index
            for index in board.questions
            if isinstance(viewer, Player) and MatchState.caller(board, index) == viewer.seat
        ),
    )


def _trick_view(plays: list[tuple[Seat, Card]], leader: Seat, winner: Seat | None) -> TrickView:
    return TrickView(
        leader=leader.letter,
        cards=[PlayedCard(seat=seat.letter, card=str(card)) for seat, card in plays],
        winner=None if winner is None else winner.letter,
    )


def _result_view(table: int, board: int, result: TableResult) -> TableResultView:
    return TableResultView(
        table=table,
        board=board,
        contract=None if result.contract is None else str(result.contract),
        declarer=None if result.declarer is None else result.declarer.letter,
        tricks=result.tricks,
        ns_score=result.ns_score,
    )


def _summary(state: MatchState) -> MatchSummary:
    match = state.match
    totals = dict(match.running_totals())
    analyses = {spec.number: spec.analysis for spec in state.config.boards}
    comparisons = []
    for c in match.comparisons:
        analysis = analyses.get(c.board)
        comparisons.append(
            ComparisonView(
                board=c.board,
                table1=_result_view(1, c.board, c.table1),
                table2=_result_view(2, c.board, c.table2),
                difference=c.difference,
                swing=c.swing,
                running_total=totals[c.board],
                double_dummy=None if analysis is None else analysis.tricks,  # type: ignore[arg-type]
                par=(
                    None
                    if analysis is None
                    else ParView(score=analysis.par_score, contracts=list(analysis.par_contracts))
                ),
            )
        )
    return MatchSummary(
        match_id=state.config.match_id,
        team_a=state.config.team_a,
        team_b=state.config.team_b,
        boards=list(match.boards),
        comparisons=comparisons,
        imps_a=match.imps_a,
        imps_b=match.imps_b,
        finished=state.finished,
        winner=match.winner if state.finished else None,
    )

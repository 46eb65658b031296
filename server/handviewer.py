"""A finished board as BBO's LIN, and the link that opens it in BBO's hand viewer."""

from __future__ import annotations

from bridge import Seat
from bridge.lin import LinBoard, LinCall, Room, handviewer_url
from server.state import BoardState, MatchState

__all__ = ["handviewer", "lin_board", "lin_text"]


def lin_text(text: str, list_item: bool = False) -> str:
    """Text LIN can carry: it has no escapes, so ``|`` (and ``,`` in a list of names)
    become ``/`` and a space, line breaks spaces."""
    text = " ".join(text.replace("|", "/").split())
    return text.replace(",", " ") if list_item else text


def lin_board(
    state: MatchState,
    board: BoardState,
    table: int,
    hidden: Seat | None = None,
    room: bool = False,
) -> LinBoard:
    """One table's play of a finished board as LIN: the players as they sat, the auction
    with its alerts (but those of ``hidden``'s calls: a partner never sees them), the play,
    and a claim (``mc``) when the play stopped before the last trick. ``room``: marked as
    the open (table 1) or closed room of a team match."""
    spec = board.spec
    sitting = state.config.movement.sitting(board.round, table)
    names = {seat: lin_text(state.people[sitting.player(seat)].name or "", True) for seat in Seat}
    calls = []
    seat = spec.dealer
    for index, call in enumerate(board.auction.calls):
        alert = board.alerts.get(index) if seat != hidden else None
        calls.append(LinCall(call, alert is not None, lin_text(alert or "")))
        seat = seat.next
    play = board.play
    cards = () if play is None else tuple(card for _, card in play.cards_played)
    claim = None
    result = board.result
    if (
        play is not None
        and len(cards) < 52
        and result is not None
        and (result.contract, result.declarer) == (play.contract, play.declarer)
    ):
        claim = result.tricks  # the play ended at a claim or a ruling: declarer's tricks
    return LinBoard(
        deal=spec.deal,
        dealer=spec.dealer,
        vulnerability=spec.vulnerability,
        number=spec.number,
        room=(Room.OPEN if table == 1 else Room.CLOSED) if room else None,
        north=names[Seat.NORTH],
        east=names[Seat.EAST],
        south=names[Seat.SOUTH],
        west=names[Seat.WEST],
        calls=tuple(calls),
        cards=cards,
        claim=claim,
    )


def handviewer(state: MatchState, board: BoardState, table: int, hidden: Seat | None) -> str:
    """The BBO hand-viewer link of a finished board as ``table`` played it."""
    return handviewer_url(lin_board(state, board, table, hidden))

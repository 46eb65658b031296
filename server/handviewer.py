"""A finished board as BBO's LIN, and the link that opens it in BBO's hand viewer."""

from __future__ import annotations

from bridge import Card, Contract, Deal, Play, Seat
from bridge.formats.teams import TableResult
from bridge.lin import LinBoard, LinCall, LinComment, Room, handviewer_url
from server.state import BoardState, MatchState

__all__ = ["assigned_words", "handviewer", "lin_board", "lin_text", "shown_play"]


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
    the open (table 1) or closed room of a team match.

    The claim is the table's result: declarer's tricks in all. A result the director
    assigned in the contract played may be one the play no longer allowed (declarer had
    already won more tricks, or could no longer make as many): the play then shows as far
    as the last trick after which the assigned total was still possible, and the claim
    ends it there, so that the viewer counts the assigned tricks and no more. A result
    the director assigned is also said in a last comment (``nt``): the only way LIN has to
    say one in another contract than the auction's (its play and claim are that contract's,
    so they show the play as it went).
    """
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
    cards = () if play is None else play.played_cards
    claim = None
    result = board.result
    if (
        play is not None
        and result is not None
        and (result.contract, result.declarer) == (play.contract, play.declarer)
    ):
        cards = shown_play(spec.deal, play.contract, play.declarer, cards, result.tricks)
        if len(cards) < 52:
            claim = result.tricks  # the play ended at a claim or a ruling: declarer's tricks
    events = len(calls) + len(cards) + (claim is not None)
    commentary = tuple(LinComment(events, words) for words in decision_words(board))
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
        commentary=commentary,
    )


def shown_play(
    deal: Deal, contract: Contract, declarer: Seat, cards: tuple[Card, ...], tricks: int
) -> tuple[Card, ...]:
    """The cards of the play that a result of ``tricks`` for declarer can end: all of them
    when declarer could still end with ``tricks`` after them (13 tricks played: when
    declarer won ``tricks``); else the tricks up to the last after which declarer had won
    no more than ``tricks`` and had enough left to play to make them.

    >>> from bridge import Contract, Seat
    >>> deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T98.JT98.JT9.JT9 765.765.8765.876 432.432.432.5432")
    >>> play = Play(deal, Contract.parse("3NT"), Seat.NORTH)
    >>> while len(play.cards_played) < 22:
    ...     play.play(play.legal_cards()[0])
    >>> cards = tuple(card for _, card in play.cards_played)  # North won all five tricks
    >>> len(shown_play(deal, play.contract, Seat.NORTH, cards, 9))
    22
    >>> len(shown_play(deal, play.contract, Seat.NORTH, cards, 3))  # three tricks, no more
    12
    """
    replay = Play(deal, contract, declarer)
    shown = 0
    for count, card in enumerate(cards, start=1):
        replay.play(card)
        if count % 4 == 0:
            won, left = replay.declarer_tricks, 13 - count // 4
            if not won <= tricks <= won + left:
                return cards[:shown]
            shown = count
    return cards


def decision_words(board: BoardState) -> list[str]:
    """What the records say of a finished board beyond its play, in words, when the director
    decided its result or a claim was disputed: the last claim, with its statement, and how
    the director decided the result.

    >>> from bridge import Contract, Seat, Vulnerability
    >>> from bridge.play import Claim
    >>> from server.state import ClaimState
    >>> board = BoardState.__new__(BoardState)
    >>> board.claim = ClaimState(Claim(Seat.SOUTH, 12, 13, frozenset()), "trumps, then hearts", "rejected")
    >>> board.assigned, board.ruled = False, True
    >>> board.result = TableResult(Contract.parse("6S"), Seat.SOUTH, 11, Vulnerability.NONE)
    >>> decision_words(board)
    ['South claimed 12 of the 13 left, rejected: trumps, then hearts', 'Tricks ruled by the director: 11 to declarer']
    """
    said = []
    claim = board.claim
    disputed = claim is not None and claim.status == "rejected"
    if claim is not None and (disputed or board.decided is not None):
        words = (
            f"{claim.claim.claimer.name.title()} claimed {claim.claim.tricks} of "
            f"the {claim.claim.remaining} left, {claim.status}"
        )
        said.append(words if claim.statement is None else f"{words}: {claim.statement}")
    if board.result is not None:
        if board.assigned:
            said.append(assigned_words(board.result))
        elif board.ruled:
            said.append(f"Tricks ruled by the director: {board.result.tricks} to declarer")
    return said


def assigned_words(result: TableResult) -> str:
    """A result the director assigned, as the hand viewer's comment says it.

    >>> from bridge import Contract, Seat, Vulnerability
    >>> assigned_words(TableResult(Contract.parse("3NT"), Seat.NORTH, 7, Vulnerability.NONE))
    'Result assigned by the director: 3NT by North, 7 tricks'
    """
    if result.contract is None or result.declarer is None:
        return "Result assigned by the director: passed out"
    return (
        f"Result assigned by the director: {result.contract} by "
        f"{result.declarer.name.title()}, {result.tricks} tricks"
    )


def handviewer(state: MatchState, board: BoardState, table: int, hidden: Seat | None) -> str:
    """The BBO hand-viewer link of a finished board as ``table`` played it."""
    return handviewer_url(lin_board(state, board, table, hidden))

"""The match record: every board at both tables as PBN, auctions and play card for card."""

from __future__ import annotations

from bridge import Seat
from bridge.auction import Auction
from bridge.pbn import AnnotatedCall, PbnAuction, PbnGame, PbnPlay, PbnTag, dump_games
from server.state import BoardState, MatchState

__all__ = ["match_record"]


def _auction(board: BoardState) -> PbnAuction:
    """The auction with its alerts and explanations as PBN notes."""
    auction: Auction = board.auction
    calls = tuple(
        AnnotatedCall(
            call,
            alert=index in board.alerts,
            notes=(board.alerts[index],) if index in board.alerts else (),
        )
        for index, call in enumerate(auction.calls)
    )
    return PbnAuction(auction.dealer, calls)


def match_record(state: MatchState) -> str:
    """PBN of every board finished at both tables (no other: results stay hidden until
    then), both tables: table 1 as Room "Open", table 2 as "Closed"; HomeTeam is the team
    sitting North-South at that table; ScoreIMP is that table's N-S swing."""
    config = state.config
    # A voided board is not compared: it stays out of the record, like an unfinished one.
    swings = {c.board: c.swing for c in state.match.comparisons if not c.void}
    games: list[PbnGame] = []
    for spec in config.boards:
        for table in (1, 2):
            board = next(
                (b for b in state.tables[table].boards if b.spec.number == spec.number), None
            )
            if board is None or board.result is None:
                continue
            home, visit = (
                (config.team_a, config.team_b) if table == 1 else (config.team_b, config.team_a)
            )
            result = board.result
            swing = swings.get(spec.number)
            if swing is None:
                continue
            seats = state.tables[table].seats
            north, east, south, west = (seats[seat].name for seat in Seat)
            games.append(
                PbnGame(
                    event=f"duplicate match {config.match_id}",
                    board=spec.number,
                    north=north,
                    east=east,
                    south=south,
                    west=west,
                    dealer=spec.dealer,
                    vulnerability=spec.vulnerability,
                    deal=spec.deal,
                    scoring="IMP",
                    declarer=result.declarer,
                    contract=result.contract,
                    passed_out=result.contract is None,
                    result=result.tricks if result.contract is not None else None,
                    auction=_auction(board),
                    play=None if board.play is None else PbnPlay.from_play(board.play),
                    score=result.ns_score,
                    score_imp=swing if table == 1 else -swing,
                    other_tags=(
                        PbnTag("Room", "Open" if table == 1 else "Closed"),
                        PbnTag("HomeTeam", home),
                        PbnTag("VisitTeam", visit),
                    ),
                )
            )
    return dump_games(games)

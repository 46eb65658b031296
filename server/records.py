"""The match record: every play of every compared board as PBN, auctions and play card for
card."""

from __future__ import annotations

from dataclasses import replace

from bridge import Seat
from bridge.auction import Auction
from bridge.commitment import deal_set_lines
from bridge.lin import LinBoard, LinCall, LinComment, LinMatch, dump_lin, dump_lin_lines
from bridge.pbn import AnnotatedCall, PbnAuction, PbnGame, PbnPlay, PbnTag, dump_games
from protocol.messages import ComparisonView
from server.handviewer import decision_words, lin_board, lin_text
from server.state import BoardState, MatchState
from server.views import match_summary

__all__ = ["as_recorded", "event_record", "lin_record", "match_record"]


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


SCORING_TAGS = {"imps": "IMP", "matchpoints": "MP", "board_a_match": "BAM", "total_points": "TP"}


def match_record(state: MatchState) -> str:
    """PBN of every board compared (no other: results stay hidden until then), as every
    table played it, in each round: ``Room`` "Open" (table 1) or "Closed" (table 2) and
    ``HomeTeam`` (the team sitting North-South) in the team formats, ``Table`` and
    ``Round`` always, the players' names as they sat. ``ScoreIMP`` is North-South's IMPs
    on the board in the IMP formats (the teams' swing; cross-IMPs averaged in an
    individual); in the others ``ScoreMP`` (matchpoints), or the tag ``NSPoints``
    (board-a-match, total points)."""
    config = state.config
    movement = config.movement
    summary = {c.board: c for c in _comparisons(state)}
    games: list[PbnGame] = []
    for spec in config.boards:
        comparison = summary.get(spec.number)
        # A voided board is not compared: it stays out of the record, like an unfinished one.
        if comparison is None or comparison.void:
            continue
        for round_number, table in movement.plays(spec.number):
            board = state.tables[table].board(spec.number, round_number)
            if board is None or board.result is None:
                continue
            sitting = movement.sitting(round_number, table)
            north, east, south, west = (state.people[sitting.player(seat)].name for seat in Seat)
            result = board.result
            tags = [PbnTag("Table", str(table)), PbnTag("Round", str(round_number))]
            # The claim and the director's decision, in words (no standard tag says them).
            said = decision_words(board)
            if said:
                tags.append(PbnTag("Director", "; ".join(said)))
            score_imp: float | None = None
            extra = None
            if config.teams:
                assert comparison.swing is not None
                home, visit = (
                    (config.team_a, config.team_b) if table == 1 else (config.team_b, config.team_a)
                )
                tags = [
                    PbnTag("Room", "Open" if table == 1 else "Closed"),
                    PbnTag("HomeTeam", home),
                    PbnTag("VisitTeam", visit),
                    *tags,
                ]
                score_imp = comparison.swing if table == 1 else -comparison.swing
            else:
                credit = _credit(state, spec.number, sitting.player(Seat.NORTH))
                if movement.scoring == "imps":
                    score_imp = credit
                elif movement.scoring == "matchpoints":
                    extra = PbnTag("ScoreMP", f"{credit:g}")
                else:
                    extra = PbnTag("NSPoints", f"{credit:g}")
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
                    scoring=SCORING_TAGS[movement.scoring],
                    declarer=result.declarer,
                    contract=result.contract,
                    passed_out=result.contract is None,
                    result=result.tricks if result.contract is not None else None,
                    auction=_auction(board),
                    play=None if board.play is None else PbnPlay.from_play(board.play),
                    score=result.ns_score,
                    score_imp=score_imp,
                    other_tags=(*tags, *(() if extra is None else (extra,))),
                )
            )
    # The commitment from the start; the deal set it commits to once the match is over.
    header = dump_games(())
    published = (
        deal_set_lines(
            config.deals_commitment,
            config.deal_set() if state.finished else None,
            config.deals_seed_commitment,
        )
        if config.deals_commitment is not None
        else []
    )
    return (
        header + "".join(line + "\n" for line in published) + dump_games(games).removeprefix(header)
    )


def _comparisons(state: MatchState) -> list[ComparisonView]:
    return match_summary(state).comparisons


def _credit(state: MatchState, board: int, player: int) -> float:
    """``player``'s credit on ``board`` (all its plays have results)."""
    plays = state.compared[board]
    scores = {play: result.ns_score for play, result in plays.items() if result is not None}
    return state.config.movement.credits(board, scores)[player]


def lin_record(state: MatchState, source: LinMatch | None = None) -> str:
    """The match record as LIN, one hand-viewer line per table per board compared (the
    boards of :func:`match_record`, in its order). A team match's starts with a ``vg``
    header (the event, the teams: team A sits North-South in the open room, table 1) and
    marks each line's room (``qx|o12|`` table 1, ``qx|c12|`` table 2), so that it reads
    back as a vugraph match file.

    ``source``: the vugraph file a team match was imported from, which says more than the
    match keeps; the record gives it back (:func:`as_recorded`)."""
    config = state.config
    teams = config.teams
    lines: list[LinBoard] = []
    compared = {c.board: c for c in _comparisons(state)}
    for spec in config.boards:
        comparison = compared.get(spec.number)
        if comparison is None or comparison.void:
            continue
        for round_number, table in config.movement.plays(spec.number):
            board = state.tables[table].board(spec.number, round_number)
            if board is None or board.result is None:
                continue
            lines.append(lin_board(state, board, table, room=teams))
    if not teams:
        return "".join(dump_lin(board) + "\n" for board in lines)
    match = LinMatch(
        event=lin_text(f"duplicate match {config.match_id}", True),
        scoring="I",
        teams=(lin_text(config.team_a, True), lin_text(config.team_b, True)),
        results=tuple("" if b.table_result is None else str(b.table_result) for b in lines),
        boards=tuple(lines),
    )
    return dump_lin_lines(match if source is None else as_recorded(match, source))


def as_recorded(match: LinMatch, source: LinMatch) -> LinMatch:
    """``match``, imported from the vugraph file ``source``, with what the file said and the
    match does not keep: the ``vg`` header (event, segment, scoring, first and last board,
    teams, carry-overs); the ``rs`` results verbatim, in the file's order, while every
    table's result is still the file's (a result the director changed since makes them
    afresh); each table's commentary (``nt``, in its place, kept within the play shown);
    and each call's alert as the file had it where the match has what the import made of
    it (an alert without an explanation has no ``an``: the import explained it
    ``"alerted"``; an explanation of a call not alerted has no ``!``)."""
    recorded = {(board.number, board.room): board for board in source.boards}
    boards = tuple(
        _board_as_recorded(board, recorded.get((board.number, board.room)))
        for board in match.boards
    )
    unchanged = all(
        (original := recorded.get((board.number, board.room))) is not None
        and original.table_result == board.table_result
        for board in match.boards
    )
    return replace(
        match,
        event=source.event,
        segment=source.segment,
        scoring=source.scoring,
        first_board=source.first_board,
        last_board=source.last_board,
        teams=source.teams,
        carry_over=source.carry_over,
        results=source.results if unchanged else match.results,
        boards=boards,
    )


def _board_as_recorded(board: LinBoard, original: LinBoard | None) -> LinBoard:
    if original is None:
        return board
    calls = board.calls
    if [c.call for c in calls] == [c.call for c in original.calls]:
        calls = tuple(
            theirs if ours == _imported(theirs) else ours
            for ours, theirs in zip(calls, original.calls, strict=True)
        )
    events = len(board.calls) + len(board.cards) + (board.claim is not None)
    commentary = tuple(
        LinComment(min(comment.after, events), comment.text) for comment in original.commentary
    )
    return replace(board, calls=calls, commentary=commentary + board.commentary)


def _imported(call: LinCall) -> LinCall:
    """``call`` as an imported match has it: alerted when the record alerted or explained
    it, with the explanation as the import words it (``"alerted"`` when there is none)."""
    if not (call.alert or call.explanation):
        return call
    return LinCall(call.call, True, lin_text(" ".join(call.explanation.split())[:300] or "alerted"))


def event_record(name: str, matches: list[tuple[int, str, str, MatchState]]) -> str:
    """PBN of a whole event: every match's record (:func:`match_record`), round by round,
    each under a comment naming its round and teams (``matches``: round, home team, away
    team, the match)."""
    header = dump_games(())
    parts = [header, f"% {name}\n"]
    for round_number, home, away, state in matches:
        # A blank line ends the match before: PBN games are separated by one.
        parts.append(f"\n% Round {round_number}: {home} v {away}\n")
        parts.append(match_record(state).removeprefix(header).strip("\n") + "\n")
    return "".join(parts)

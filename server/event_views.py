"""What an event's viewers see: the organiser's view of an event and its results page.

:func:`event_view` is the one function that decides it, from the event's state folded by
:mod:`server.events` (as :mod:`server.views` decides what a match's viewers see).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bridge import events as events_domain
from bridge.formats import TableResult
from bridge.scoring import imps
from protocol.messages import (
    ButlerEntry,
    CrossTableEntry,
    EventAdjustment,
    EventMatchEntry,
    EventRoundEntry,
    EventStanding,
    EventTeamEntry,
    EventView,
    Traveller,
    TravellerLine,
)

if TYPE_CHECKING:
    from server.events import EventState

__all__ = ["event_view"]


def event_view(state: EventState) -> EventView:
    """The event as the organiser and its results page see it: the teams, each round's
    pairing, the standings, the cross-table and the adjustments; a match's IMPs and VPs
    only once it has ended; a board's results at every table, and the Butler ranking over
    them, only once every table of the event has played that board (nothing of a match in
    play: its boards' results stay with its own players and watchers until then)."""
    config, log = state.config, state.log
    scores = state.scores()
    vps = {
        (score.round, score.home): (score.home_vps, score.away_vps)
        for score in scores
        if isinstance(score, events_domain.MatchScore)
    }
    schedule: list[EventRoundEntry] = []
    for number in sorted(log.pairings):
        plan = log.pairings[number]
        matches: list[EventMatchEntry] = []
        for index, pairing in enumerate(plan.matches):
            outcome = state.outcomes.get((number, index))
            ended = outcome is not None and outcome.status == "finished"
            converted = vps.get((number, pairing.home)) if ended else None
            matches.append(
                EventMatchEntry(
                    home=pairing.home,
                    away=pairing.away,
                    match_id=None if outcome is None else outcome.match_id,
                    status="waiting" if outcome is None else outcome.status,  # type: ignore[arg-type]
                    home_imps=outcome.home_imps if ended and outcome else None,
                    away_imps=outcome.away_imps if ended and outcome else None,
                    home_vps=None if converted is None else float(converted[0]),
                    away_vps=None if converted is None else float(converted[1]),
                )
            )
        status = (
            "finished"
            if state.round_finished(number)
            else "playing"
            if number in log.started
            else "drawn"
        )
        schedule.append(
            EventRoundEntry(
                round=number,
                status=status,  # type: ignore[arg-type]
                boards=[board.number for board in config.round_boards(number)],
                matches=matches,
                bye=plan.bye,
                bye_vps=None if plan.bye is None else float(config.bye_vps),
            )
        )
    played = _boards_played_everywhere(state)
    butler = events_domain.butler(table for _, _, table, _ in played)
    travellers: dict[int, list[TravellerLine]] = {}
    for match_id, number, table, result in played:
        datum = butler.datum(table.board)
        travellers.setdefault(table.board, []).append(
            TravellerLine(
                match_id=match_id,
                table=number,
                north_south=list(table.north_south.players),
                east_west=list(table.east_west.players),
                contract=None if result.contract is None else str(result.contract),
                declarer=None if result.declarer is None else result.declarer.letter,
                tricks=None if result.contract is None else result.tricks,
                score=table.score,
                ns_imps=imps(table.score - datum),
            )
        )
    boards = {board.number: board for board in config.boards}
    ended = log.ended or (log.current == config.rounds and state.round_finished(config.rounds))
    return EventView(
        event_id=config.event_id,
        name=config.name,
        kind=config.kind,  # type: ignore[arg-type]
        status="finished" if ended else "playing" if log.started else "waiting",
        rounds=config.rounds,
        boards_per_round=config.boards_per_round,
        round=log.current,
        teams=[
            EventTeamEntry(
                team=number, name=team.name, players=list(team.players), robots=team.robots
            )
            for number, team in enumerate(config.teams, 1)
        ],
        schedule=schedule,
        standings=[
            EventStanding(
                rank=s.rank,
                team=s.team,
                vps=float(s.vps),
                played=s.played,
                imps_for=s.imps_for,
                imps_against=s.imps_against,
                tied=s.tied,
            )
            for s in events_domain.standings(len(config.teams), scores, log.adjustments)
        ],
        cross_table=[
            CrossTableEntry(
                team=team,
                opponent=opponent,
                round=entry.round,
                imps_for=entry.imps_for,
                imps_against=entry.imps_against,
                vps=float(entry.vps),
            )
            for (team, opponent), entries in sorted(
                events_domain.cross_table(len(config.teams), scores).items()
            )
            for entry in entries
        ],
        adjustments=[
            EventAdjustment(team=a.team, vps=float(a.vps), reason=a.reason, round=a.round)
            for a in log.adjustments
        ],
        butler=[
            ButlerEntry(
                rank=p.rank,
                team=p.pair.team,
                players=list(p.pair.players),
                boards=p.boards,
                imps=p.imps,
                per_board=float(p.imps_per_board),
            )
            for p in butler.pairs
        ],
        travellers=[
            Traveller(
                board=number,
                dealer=boards[number].dealer.letter,
                vulnerability=boards[number].vulnerability.value,
                deal=boards[number].deal.to_pbn(),
                datum=butler.datum(number),
                lines=lines,
            )
            for number, lines in sorted(travellers.items())
        ],
    )


def _boards_played_everywhere(
    state: EventState,
) -> list[tuple[str, int, events_domain.TableScore, TableResult]]:
    """Every table's result on each board that every match of its round has compared
    (match id, table, the table's score for Butler, the result), table 1 then table 2."""
    found: list[tuple[str, int, events_domain.TableScore, TableResult]] = []
    for number in state.log.started:
        plan = state.log.pairings[number]
        outcomes = [state.outcomes.get((number, index)) for index in range(len(plan.matches))]
        for board in state.config.round_boards(number):
            if any(o is None or board.number not in o.compared for o in outcomes):
                continue
            for pairing, outcome in zip(plan.matches, outcomes, strict=True):
                assert outcome is not None
                names = outcome.names
                first, second = outcome.compared[board.number]
                for table, result, ns, ew, ns_team, ew_team in (
                    (1, first, ("1N", "1S"), ("1E", "1W"), pairing.home, pairing.away),
                    (2, second, ("2N", "2S"), ("2E", "2W"), pairing.away, pairing.home),
                ):
                    found.append(
                        (
                            outcome.match_id,
                            table,
                            events_domain.TableScore(
                                board.number,
                                events_domain.Pair(ns_team, (names[ns[0]], names[ns[1]])),
                                events_domain.Pair(ew_team, (names[ew[0]], names[ew[1]])),
                                result.ns_score,
                            ),
                            result,
                        )
                    )
    return found

"""Movements: who sits where in each round, which boards each table plays, and how a
board's results at its tables become points (RULES.md 6.1-6.5; seed 002 for 6.3-6.5).

A movement is a list of *sittings*: in round ``r`` at table ``t`` players (numbered from 1)
sit North, East, South and West and play these boards, in this order. A board's *plays*
are the sittings that play it; once all of them have a result, the board is compared: each
player is credited with their side's result against each other play of the board, and a
competitor (a team, a pair or a player, as the format scores) gets the mean of its
members' credits on the board. One mechanism serves every format:

>>> movement = individual(8, boards=14)
>>> [sitting.players for sitting in movement.round(1)]
[(8, 2, 1, 6), (3, 5, 4, 7)]
>>> [sitting.players for sitting in movement.round(2)]
[(8, 1, 7, 5), (2, 4, 3, 6)]
>>> movement.plays(3)
((2, 1), (2, 2))

Everything here is pure: a movement that needs random orders (replay duplicate) is given
them, or a :class:`random.Random` to draw them from.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bridge.cards import Seat
from bridge.errors import MovementError
from bridge.scoring import imps

__all__ = [
    "Movement",
    "Scoring",
    "SessionScore",
    "Sitting",
    "individual",
    "replay",
    "replay_series",
    "robot_table",
    "team_of_four",
    "teams_match",
]

Scoring = Literal["imps", "board_a_match", "total_points", "matchpoints"]
"""How a play's result is set against each other play of the same board:

- ``imps``: the IMPs of the difference (with three or more plays, averaged: cross-IMPs);
- ``board_a_match``: 1 for the better result, 1/2 each for equal ones, 0 for the worse;
- ``total_points``: the difference itself, in points;
- ``matchpoints``: 2 for each result beaten, 1 for each equalled (no average)."""

SEATS = (Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST)


@dataclass(frozen=True, slots=True)
class Sitting:
    """One table in one round: the players at North, East, South and West (in that order),
    and the boards the table plays, in the order it plays them."""

    round: int
    table: int
    players: tuple[int, int, int, int]
    boards: tuple[int, ...]

    def player(self, seat: Seat) -> int:
        """Who sits at ``seat``."""
        return self.players[SEATS.index(seat)]

    def seat_of(self, player: int) -> Seat | None:
        """Where ``player`` sits at this table, if here."""
        return SEATS[self.players.index(player)] if player in self.players else None

    def partner(self, player: int) -> int:
        seat = self.seat_of(player)
        if seat is None:
            raise MovementError(f"player {player} is not at table {self.table}")
        return self.player(seat.partner)

    def opponents(self, player: int) -> tuple[int, int]:
        seat = self.seat_of(player)
        if seat is None:
            raise MovementError(f"player {player} is not at table {self.table}")
        left, right = seat.lho, seat.rho
        return self.player(left), self.player(right)


@dataclass(frozen=True, slots=True)
class Movement:
    """A whole match's seating and boards, and how it is scored.

    ``competitors`` names, for each player, what the standings rank: a team (``"A"``), a
    pair (``"1-2"``) or the player (``"3"``). ``robots`` are the players the server's
    robots are (the robot table's second table). ``sessions``, for a match played over
    several meetings (a replay-duplicate series), is the first round of each: empty, the
    match is one session."""

    format: str
    sittings: tuple[Sitting, ...]
    scoring: Scoring
    competitors: Mapping[int, str]
    robots: frozenset[int] = frozenset()
    sessions: tuple[int, ...] = ()
    _rounds: dict[int, tuple[Sitting, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    """The sittings of each round, by table (an index: views ask for them at every event)."""
    _where: dict[tuple[int, int], Sitting] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        rounds: defaultdict[int, list[Sitting]] = defaultdict(list)
        for sitting in self.sittings:
            rounds[sitting.round].append(sitting)
        self._rounds.update(
            (number, tuple(sorted(found, key=_table))) for number, found in rounds.items()
        )
        self._where.update(((s.round, s.table), s) for s in self.sittings)
        seen: set[tuple[int, int]] = set()
        players = set(self.competitors)
        for sitting in self.sittings:
            where = (sitting.round, sitting.table)
            if where in seen:
                raise MovementError(f"round {sitting.round} has two tables {sitting.table}")
            seen.add(where)
            if len(set(sitting.players)) != 4 or not set(sitting.players) <= players:
                raise MovementError(f"round {sitting.round} table {sitting.table}: bad players")
        if self.tables != tuple(range(1, len(self.tables) + 1)):
            raise MovementError(f"tables are numbered from 1 without gaps, not {self.tables}")
        for number in self.rounds:
            sitting_out = [p for s in self.round(number) for p in s.players]
            if len(sitting_out) != len(set(sitting_out)):
                raise MovementError(f"round {number}: a player sits at two tables")
        if self.sessions and (
            self.sessions[0] != self.rounds[0]
            or list(self.sessions) != sorted(set(self.sessions))
            or not set(self.sessions) <= set(self.rounds)
        ):
            raise MovementError(
                f"sessions begin at rounds of the match, the first at its first: {self.sessions}"
            )

    def renumbered(self, numbers: Sequence[int]) -> Movement:
        """The same movement with board ``i`` (from 1) called ``numbers[i - 1]``: a match
        whose deals come from a file keeps the file's board numbers."""
        if len(numbers) != len(self.boards) or len(set(numbers)) != len(numbers):
            raise MovementError(f"{len(self.boards)} distinct board numbers are needed")
        name = dict(zip(self.boards, numbers, strict=True))
        sittings = tuple(
            Sitting(s.round, s.table, s.players, tuple(name[b] for b in s.boards))
            for s in self.sittings
        )
        return Movement(
            self.format, sittings, self.scoring, self.competitors, self.robots, self.sessions
        )

    def to_dict(self) -> dict[str, Any]:
        """The movement as JSON-ready data (:meth:`from_dict` reads it back)."""
        return {
            "format": self.format,
            "scoring": self.scoring,
            "sittings": [
                [s.round, s.table, list(s.players), list(s.boards)] for s in self.sittings
            ],
            "competitors": {str(player): name for player, name in self.competitors.items()},
            "robots": sorted(self.robots),
        } | ({"sessions": list(self.sessions)} if self.sessions else {})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Movement:
        sittings = tuple(
            Sitting(r, t, (p[0], p[1], p[2], p[3]), tuple(b)) for r, t, p, b in data["sittings"]
        )
        competitors = {int(player): name for player, name in data["competitors"].items()}
        return cls(
            data["format"],
            sittings,
            data["scoring"],
            competitors,
            frozenset(data["robots"]),
            tuple(data.get("sessions", ())),
        )

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(sorted(self.competitors))

    @property
    def rounds(self) -> tuple[int, ...]:
        return tuple(sorted({s.round for s in self.sittings}))

    @property
    def tables(self) -> tuple[int, ...]:
        return tuple(sorted({s.table for s in self.sittings}))

    @property
    def boards(self) -> tuple[int, ...]:
        return tuple(sorted({b for s in self.sittings for b in s.boards}))

    def session_rounds(self) -> tuple[tuple[int, ...], ...]:
        """The rounds of each session, in order (one session of every round when the
        match is not played over several)."""
        rounds = self.rounds
        starts = self.sessions or rounds[:1]
        ends = (*starts[1:], rounds[-1] + 1)
        return tuple(
            tuple(r for r in rounds if start <= r < end)
            for start, end in zip(starts, ends, strict=True)
        )

    def session_scores(
        self, results: Mapping[int, Mapping[tuple[int, int], int]]
    ) -> tuple[SessionScore, ...]:
        """Each session's boards (those whose last play is in one of its rounds: a board
        counts where it is decided) and every competitor's total on those of them compared
        so far (``results`` as for :meth:`standings`)."""
        found = []
        for number, rounds in enumerate(self.session_rounds(), start=1):
            boards = tuple(b for b in self.boards if self.plays(b)[-1][0] in rounds)
            totals = dict.fromkeys(sorted(set(self.competitors.values()), key=_natural), 0.0)
            for board in boards:
                if board in results:
                    for name, points in self.board_points(board, results[board]).items():
                        totals[name] += points
            found.append(SessionScore(number, rounds, boards, totals))
        return tuple(found)

    def tables_of(self, round_number: int) -> tuple[int, ...]:
        """The tables that play in round ``round_number``."""
        return tuple(s.table for s in self.round(round_number))

    def round(self, number: int) -> tuple[Sitting, ...]:
        """The tables of round ``number``, by table number."""
        return self._rounds.get(number, ())

    def sitting(self, round_number: int, table: int) -> Sitting:
        found = self._where.get((round_number, table))
        if found is None:
            raise MovementError(f"there is no table {table} in round {round_number}")
        return found

    def at(self, round_number: int, table: int) -> Sitting | None:
        """Table ``table`` in round ``round_number``, if it plays then."""
        return self._where.get((round_number, table))

    def seat_of(self, player: int, round_number: int) -> tuple[int, Seat] | None:
        """Where ``player`` sits in round ``round_number`` (table, seat), if anywhere."""
        for sitting in self.round(round_number):
            seat = sitting.seat_of(player)
            if seat is not None:
                return sitting.table, seat
        return None

    def plays(self, board: int) -> tuple[tuple[int, int], ...]:
        """The (round, table) of every sitting that plays ``board``: its comparison waits
        for all of them."""
        found = tuple((s.round, s.table) for s in self.sittings if board in s.boards)
        if not found:
            raise MovementError(f"board {board} is not in this movement")
        return tuple(sorted(found))

    def credits(self, board: int, ns_scores: Mapping[tuple[int, int], int]) -> dict[int, float]:
        """Each player's credit on ``board`` from the N-S score at each of its plays (keyed
        by (round, table)): their side's result set against each other play's, as the
        movement scores, averaged over the other plays (matchpoints: summed)."""
        plays = self.plays(board)
        missing = [play for play in plays if play not in ns_scores]
        if missing:
            raise MovementError(f"board {board} has no result yet at {missing}")
        credits: dict[int, float] = {}
        for play in plays:
            others = [ns_scores[other] for other in plays if other != play]
            ns = [_compare(self.scoring, ns_scores[play], other) for other in others]
            ew = [_compare(self.scoring, -ns_scores[play], -other) for other in others]
            if self.scoring == "matchpoints":
                ns_credit, ew_credit = float(sum(ns)), float(sum(ew))
            else:
                ns_credit, ew_credit = sum(ns) / len(ns), sum(ew) / len(ew)
            sitting = self.sitting(*play)
            for seat in SEATS:
                north_south = seat in (Seat.NORTH, Seat.SOUTH)
                credits[sitting.player(seat)] = ns_credit if north_south else ew_credit
        return credits

    def board_points(
        self, board: int, ns_scores: Mapping[tuple[int, int], int]
    ) -> dict[str, float]:
        """Each competitor's points on ``board``: the mean of its members' credits."""
        members: defaultdict[str, list[float]] = defaultdict(list)
        for player, credit in self.credits(board, ns_scores).items():
            members[self.competitors[player]].append(credit)
        return {name: sum(values) / len(values) for name, values in members.items()}

    def standings(
        self, results: Mapping[int, Mapping[tuple[int, int], int]]
    ) -> list[tuple[str, float]]:
        """Every competitor's total over the boards compared so far (``results``: board ->
        (round, table) -> N-S score, complete boards only), best first."""
        totals = dict.fromkeys(sorted(set(self.competitors.values()), key=_natural), 0.0)
        for board, scores in results.items():
            for name, points in self.board_points(board, scores).items():
                totals[name] += points
        return sorted(totals.items(), key=lambda item: -item[1])


@dataclass(frozen=True, slots=True)
class SessionScore:
    """One session of a match played over several: its rounds, the boards decided in it
    and each competitor's points on those compared so far."""

    session: int
    rounds: tuple[int, ...]
    boards: tuple[int, ...]
    points: dict[str, float]


def _table(sitting: Sitting) -> int:
    return sitting.table


def _natural(name: str) -> tuple[int, str]:
    head = name.split("-")[0]
    return (int(head), name) if head.isdigit() else (0, name)


def _compare(scoring: Scoring, ours: int, theirs: int) -> float:
    """One play's result (signed for the side credited) set against another's."""
    if scoring == "imps":
        return imps(ours - theirs)
    if scoring == "total_points":
        return ours - theirs
    if scoring == "board_a_match":
        return 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0
    return 2.0 if ours > theirs else 1.0 if ours == theirs else 0.0


def _count(boards: int, least: int = 1) -> None:
    if boards < least:
        raise MovementError(f"a match has at least {least} boards, not {boards}")


# -- the formats ---------------------------------------------------------------------------

TEAM_A = (1, 2, 3, 4)
"""Teams (6.1): team A is players 1-4 (1 N and 3 S at table 1, 2 E and 4 W at table 2)."""


def teams_match(boards: int) -> Movement:
    """The 8-player teams match (6.1): one round, every board at both tables; team A sits
    North-South at table 1 and East-West at table 2; IMPs per board."""
    _count(boards)
    numbers = tuple(range(1, boards + 1))
    sittings = (
        Sitting(1, 1, (1, 5, 3, 7), numbers),  # A: 1 N, 3 S; B: 5 E, 7 W
        Sitting(1, 2, (6, 2, 8, 4), numbers),  # B: 6 N, 8 S; A: 2 E, 4 W
    )
    competitors = {p: "A" if p in TEAM_A else "B" for p in range(1, 9)}
    return Movement("teams", sittings, "imps", competitors)


def robot_table(boards: int) -> Movement:
    """One table of people, robots at the second (6.2): the teams movement, with the
    server's robots as every player of table 2."""
    if boards not in (4, 8, 16):
        raise MovementError(f"a robot-table match has 4, 8 or 16 boards, not {boards}")
    movement = teams_match(boards)
    robots = frozenset(movement.sitting(1, 2).players)
    return Movement("robot-table", movement.sittings, "imps", movement.competitors, robots)


INDIVIDUAL_START = {
    8: ((8, 2, 1, 6), (3, 5, 4, 7)),
    12: ((12, 9, 1, 2), (3, 6, 4, 8), (5, 7, 11, 10)),
}
"""The starting tables of seed 002's individuals (N, E, S, W at each table)."""
INDIVIDUAL_BOARDS = {8: (14, 21, 28), 12: (11, 22, 33)}


def individual(players: Literal[8, 12], boards: int, scoring: Scoring = "imps") -> Movement:
    """An individual for 8 or 12 players (6.4): the highest-numbered player (the anchor)
    stays North at table 1; after each round every other player ``k`` takes the seat that
    player ``k + 1`` left, and the highest mover takes player 1's. 7 or 11 rounds, each
    with the same new boards at every table; everyone partners every other player once
    and opposes each twice. Scored in IMPs (cross-IMPs at three tables), or matchpoints."""
    if players not in INDIVIDUAL_START:
        raise MovementError(f"an individual has 8 or 12 players, not {players}")
    if boards not in INDIVIDUAL_BOARDS[players]:
        allowed = ", ".join(map(str, INDIVIDUAL_BOARDS[players]))
        raise MovementError(f"an individual of {players} has {allowed} boards, not {boards}")
    if scoring not in ("imps", "matchpoints"):
        raise MovementError(f"an individual is scored in imps or matchpoints, not {scoring}")
    rounds = players - 1
    per_round = boards // rounds
    seats = [list(table) for table in INDIVIDUAL_START[players]]
    sittings = []
    for number in range(1, rounds + 1):
        first = (number - 1) * per_round + 1
        played = tuple(range(first, first + per_round))
        for table, at in enumerate(seats, start=1):
            sittings.append(Sitting(number, table, (at[0], at[1], at[2], at[3]), played))
        where = {p: (t, i) for t, at in enumerate(seats) for i, p in enumerate(at)}
        moved = [list(at) for at in seats]
        for k in range(1, players):  # the movers; the anchor (``players``) stays
            t, i = where[k + 1] if k + 1 < players else where[1]
            moved[t][i] = k
        seats = moved
    competitors = {p: str(p) for p in range(1, players + 1)}
    return Movement(f"individual-{players}", tuple(sittings), scoring, competitors)


def team_of_four(boards: int) -> Movement:
    """Two teams of four with board exchange (6.5): boards a multiple of 4. Team 1 (``"A"``,
    as in the teams match) has pairs 1-2 and 3-4, sitting N-S at table 1 and E-W at table 2
    throughout; team 2's pairs (``"B"``: 5-6, 7-8) the other seats. In each half of the boards, its first half is played at table 1 and
    its second at table 2, then the sets change tables and are replayed. At half-time team
    2's pairs change tables, keeping partners. IMPs per board."""
    if boards < 4 or boards % 4:
        raise MovementError(f"a team-of-four match has a multiple of 4 boards, not {boards}")
    quarter = boards // 4
    sets = [tuple(range(q * quarter + 1, (q + 1) * quarter + 1)) for q in range(4)]
    first = ((1, 5, 2, 6), (7, 3, 8, 4))  # team 2's pair 5-6 E-W at table 1, 7-8 N-S at 2
    second = ((1, 7, 2, 8), (5, 3, 6, 4))  # team 2's pairs changed tables
    sittings = []
    for half, (one, two) in enumerate((first, second)):
        own, other = sets[2 * half], sets[2 * half + 1]
        base = 2 * half
        sittings += [
            Sitting(base + 1, 1, one, own),
            Sitting(base + 1, 2, two, other),
            Sitting(base + 2, 1, one, other),  # the sets exchanged and replayed
            Sitting(base + 2, 2, two, own),
        ]
    competitors = {p: "A" if p <= 4 else "B" for p in range(1, 9)}
    return Movement("team-of-four", tuple(sittings), "imps", competitors)


def replay(
    boards: int,
    scoring: Literal["board_a_match", "total_points"] = "board_a_match",
    orders: tuple[Sequence[int], Sequence[int]] | None = None,
    rng: random.Random | None = None,
) -> Movement:
    """Replay duplicate for four players (6.3): stage 1 (round 1) plays the boards in a
    random order; stage 2 (round 2) replays every board rotated one seat, so that each
    pair holds the cards the other pair held, in another random order. Pairs 1-3 (North
    and South in stage 1) and 2-4. Scored by board-a-match or total points.

    ``orders`` gives both stages' orders; else they are drawn from ``rng``, stage 2's
    among the orders other than stage 1's (the seed: "ideally not in order"; a player who
    remembers the order would know which board comes next). With one board there is no
    other order."""
    _count(boards)
    if scoring not in ("board_a_match", "total_points"):
        raise MovementError(
            f"replay duplicate is scored board-a-match or total points, not {scoring}"
        )
    numbers = list(range(1, boards + 1))
    if orders is None:
        if rng is None:
            raise MovementError("replay duplicate needs its two orders, or a random source")
        first = rng.sample(numbers, boards)
        second = rng.sample(numbers, boards)
        while second == first and boards > 1:  # uniform among the other orders
            second = rng.sample(numbers, boards)
    else:
        first, second = list(orders[0]), list(orders[1])
        if sorted(first) != numbers or sorted(second) != numbers:
            raise MovementError("each stage plays every board once")
        if first == second and boards > 1:
            raise MovementError("stage 2 replays the boards in another order than stage 1")
    sittings = (
        Sitting(1, 1, (1, 2, 3, 4), tuple(first)),
        # The boards turned one seat: East's player holds North's cards, and so on round.
        Sitting(2, 1, (2, 3, 4, 1), tuple(second)),
    )
    competitors = {1: "1-3", 3: "1-3", 2: "2-4", 4: "2-4"}
    return Movement("replay", sittings, scoring, competitors)


SERIES_SESSIONS = range(2, 13)
"""A replay-duplicate series has 2 to 12 sessions."""


def replay_series(
    sessions: int,
    boards: int,
    scoring: Literal["board_a_match", "total_points"] = "board_a_match",
    orders: Sequence[tuple[Sequence[int], Sequence[int]]] | None = None,
    rng: random.Random | None = None,
) -> Movement:
    """A replay-duplicate series (seed 002: "a continuous series of meetings, each giving
    half its time to new deals and half to replaying earlier ones"): the same four players
    meet ``sessions`` times. Set ``k`` of ``boards`` new boards (numbered on from the sets
    before it) is played in session ``k`` and replayed, turned one seat as in
    :func:`replay`, at the start of session ``k + 1``; then that session's new set. So the
    first session plays set 1 only and the last replays the last set only: ``sessions - 1``
    sets. Set ``k`` is rounds ``2k - 1`` (new) and ``2k`` (replayed); a session begins with
    its replay. A board is scored in the session that replays it; the series is their sum.

    ``orders`` gives each set's two orders (of its boards numbered from 1), else they are
    drawn from ``rng``, each set's as :func:`replay` draws them."""
    if sessions not in SERIES_SESSIONS:
        raise MovementError(
            f"a replay-duplicate series has {SERIES_SESSIONS.start} to "
            f"{SERIES_SESSIONS.stop - 1} sessions, not {sessions}"
        )
    sets = sessions - 1
    if orders is not None and len(orders) != sets:
        raise MovementError(f"{sessions} sessions play {sets} sets: give an order pair for each")
    sittings: list[Sitting] = []
    movement = None
    for index in range(sets):
        movement = replay(boards, scoring, None if orders is None else orders[index], rng)
        offset = index * boards
        sittings.extend(
            Sitting(s.round + 2 * index, s.table, s.players, tuple(b + offset for b in s.boards))
            for s in movement.sittings
        )
    assert movement is not None
    starts = (1, *range(2, 2 * sets + 1, 2))
    return Movement("replay", tuple(sittings), scoring, movement.competitors, sessions=starts)

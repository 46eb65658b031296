"""A teams event of many matches: who meets whom in each round, the standings, the
cross-table, and the Butler ranking of the pairs.

An event is a round robin or a Swiss of short two-table matches (RULES.md 6.1). Teams are
numbered 1 to N, the numbers the organiser sees. Everything here is pure data in, data
out; victory points come in already converted (the WBF scale lives in :mod:`bridge.vp`).

**Rounds.** A :class:`RoundPlan` lists the round's matches, each a :class:`Pairing` whose
``home`` team's pair sits North-South at table 1 and East-West at table 2, and the team
that sits out (``bye``) when N is odd.

- :func:`round_robin` ``(teams) -> tuple[RoundPlan, ...]``: every team meets every other
  once, on the Berger tables (home and away alternate; each team is home in half its
  matches, rounded up or down).
- :func:`swiss_first_round` ``(teams, rng=None) -> RoundPlan``: top half against bottom
  half by seeding, or a random draw.
- :func:`swiss_round` ``(ranking, met, byes, home_counts=None) -> RoundPlan``: teams close
  in the standings who have not met; rematches only when they cannot all be avoided, and
  then as few as possible.
- :func:`check_round` ``(teams, plan) -> None``: raises :class:`BadPairing` for a plan
  made by hand that does not use each team exactly once.

**Results.** A finished match is a :class:`MatchScore`, a bye a :class:`ByeScore`, a
director's penalty or award an :class:`Adjustment`, all in victory points (VPs).

- :func:`standings` ``(teams, scores, adjustments=()) -> tuple[Standing, ...]``, ranked
  by these tie-breaks, in order:

  (a) total VPs: matches, byes and the director's adjustments;
  (b) VPs won in the matches between the tied teams, only when each of them has played
      every other one of them;
  (c) IMP quotient: IMPs won divided by IMPs lost over all the team's matches (none lost
      and some won is best of all; none won and none lost counts as 1);
  (d) still tied: the teams share the rank (``2=``), listed by team number; the next
      rank skips the places they took (1, 2=, 2=, 4).

  Whenever a tie-break separates some of the tied teams but not all, those still level are
  compared again from (b), among themselves only (the matches between them alone).
- :func:`cross_table` ``(teams, scores) -> dict[tuple[int, int], tuple[CrossEntry, ...]]``:
  each team's matches against each opponent, from its side.

**Butler.** :func:`butler` ``(results, trim_from=5) -> Butler`` scores each table's
North-South result (a :class:`TableScore`) against the board's datum: the mean of every
table's score (without the single top and bottom ones when at least ``trim_from`` tables
played the board), rounded to the nearest 10, halves away from zero. North-South get
``imps(score - datum)``, East-West the opposite. The pairs (each a :class:`Pair`: team
number and the two names) are ranked by total IMPs when they all played as many boards,
else by IMPs per board.

>>> plan = round_robin(4)
>>> [(m.home, m.away) for m in plan[0].matches]
[(1, 4), (2, 3)]
>>> from decimal import Decimal
>>> table = standings(3, [
...     MatchScore(1, 1, 2, 30, 10, Decimal("15.62"), Decimal("4.38")),
...     ByeScore(1, 3, Decimal("12.00")),
... ])
>>> [(s.rank, s.team, s.vps, s.played) for s in table]
[(1, 1, Decimal('15.62'), 1), (2, 3, Decimal('12.00'), 0), (3, 2, Decimal('4.38'), 1)]
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any, Protocol, TypeGuard, TypeVar

from bridge.errors import BridgeError
from bridge.scoring import imps

__all__ = [
    "Adjustment",
    "BadPairing",
    "BoardDatum",
    "Butler",
    "ButlerPair",
    "ButlerTable",
    "ByeScore",
    "CrossEntry",
    "EventError",
    "MatchScore",
    "Pair",
    "Pairing",
    "RoundPlan",
    "Standing",
    "TableScore",
    "butler",
    "check_round",
    "cross_table",
    "round_robin",
    "standings",
    "swiss_first_round",
    "swiss_round",
]


class _Comparable(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


Item = TypeVar("Item")
Key = TypeVar("Key", bound=_Comparable)


class EventError(BridgeError):
    """Event data the rules refuse: a team number out of range, a team's result counted
    twice in a round, a pair on both sides of a table."""


class BadPairing(EventError):
    """A round that does not use each team exactly once: a team missing, twice, playing
    itself or out of range, or a bye where there is none to give (or none where one is)."""


# Rounds


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a round: ``home``'s pair sits North-South at table 1, its other pair
    East-West at table 2; ``away``'s pairs take the other seats.

    Not checked when made (a hand-made plan may be wrong): :func:`check_round` says what
    is wrong with it.

    >>> Pairing(3, 5).teams
    frozenset({3, 5})
    """

    home: int
    away: int

    @property
    def teams(self) -> frozenset[int]:
        """The two teams, as the ``met`` sets of :func:`swiss_round` hold them."""
        return frozenset((self.home, self.away))


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """A round: its matches, in table order, and the team that sits out (None when the
    number of teams is even).

    >>> RoundPlan((Pairing(1, 3),), bye=2).teams
    (1, 3, 2)
    """

    matches: tuple[Pairing, ...]
    bye: int | None = None

    @property
    def teams(self) -> tuple[int, ...]:
        """Every team the plan names, match by match (home first), then the bye."""
        named = [team for match in self.matches for team in (match.home, match.away)]
        if self.bye is not None:
            named.append(self.bye)
        return tuple(named)


def _is_number(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_team_count(teams: int) -> None:
    if not _is_number(teams) or teams < 2:
        raise EventError(f"an event has at least 2 teams, got {teams!r}")


def round_robin(teams: int) -> tuple[RoundPlan, ...]:
    """A complete round robin on the Berger tables: N-1 rounds for an even N, N for an odd
    N (each team sits out exactly one round); every two teams meet exactly once.

    Round 1 is 1 v N, 2 v N-1, ...; each next round moves every team but N on by N/2
    places, and team N changes sides. Each team's home and away alternate, with the fewest
    breaks there can be (N-2 for an even N, none for an odd one, byes skipped), so each
    team is home in half its matches, rounded up or down. For an odd N, the team that
    would have met the phantom team N+1 sits out.

    >>> [[(m.home, m.away) for m in plan.matches] for plan in round_robin(4)]
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    >>> [plan.bye for plan in round_robin(3)]
    [1, 3, 2]
    """
    _check_team_count(teams)
    size = teams + teams % 2
    turning = size - 1
    first = [(1, size)] + [(team, size + 1 - team) for team in range(2, size // 2 + 1)]
    plans = []
    for index in range(turning):
        step = index * (size // 2)
        matches: list[Pairing] = []
        bye = None
        for table, pairing in enumerate(first):
            home, away = (
                team if team == size else (team - 1 + step) % turning + 1 for team in pairing
            )
            if table == 0 and index % 2 == 1:
                home, away = away, home
            if size > teams and size in (home, away):
                bye = away if home == size else home
            else:
                matches.append(Pairing(home, away))
        plans.append(RoundPlan(tuple(matches), bye))
    return tuple(plans)


def swiss_first_round(teams: int, rng: random.Random | None = None) -> RoundPlan:
    """The first round of a Swiss.

    Without ``rng``, by seeding (team 1 the top seed): the top half meets the bottom half,
    1 v N/2+1, 2 v N/2+2, ..., the higher seed at home; for an odd N the lowest seed, team
    N, sits out first. With ``rng``, a draw: the teams in random order meet two by two,
    the first drawn at home, and the last drawn of an odd number sits out.

    >>> [(m.home, m.away) for m in swiss_first_round(6).matches]
    [(1, 4), (2, 5), (3, 6)]
    >>> swiss_first_round(5).bye
    5
    >>> len(swiss_first_round(7, random.Random(1)).matches)
    3
    """
    _check_team_count(teams)
    if rng is None:
        order = list(range(1, teams + 1))
        bye = order.pop() if teams % 2 else None
        half = len(order) // 2
        return RoundPlan(tuple(Pairing(order[i], order[i + half]) for i in range(half)), bye)
    order = list(range(1, teams + 1))
    rng.shuffle(order)
    bye = order.pop() if teams % 2 else None
    return RoundPlan(tuple(Pairing(order[i], order[i + 1]) for i in range(0, len(order), 2)), bye)


def swiss_round(
    ranking: Sequence[int],
    met: Collection[frozenset[int]],
    byes: Collection[int] = (),
    home_counts: Mapping[int, int] | None = None,
) -> RoundPlan:
    """The next round of a Swiss: teams close in the standings who have not met.

    ``ranking`` is the current standings order, best first (it names the teams playing
    on: a team left out of it is left out of the round). ``met`` holds each pair of teams
    that has played (``frozenset({3, 5})``), ``byes`` one entry per bye given so far (a
    team twice if it sat out twice), ``home_counts`` how often each team has been home
    (None, or a team missing: never).

    The pairing: the highest team not yet paired meets the highest-ranked team still
    free that it has not met, and so on down, backtracking (depth first) whenever the
    teams left cannot all be paired without a rematch. If no pairing at all avoids
    rematches, the fewest rematches there can be are allowed, still taking the highest
    free opponent first, rematch or not.

    The bye, for an odd number of teams, is chosen first: among the teams with the fewest
    byes (so no team sits out twice while another has not sat out), the lowest-ranked.
    If that bye leaves no pairing without a rematch (or more rematches than some other
    bye would), it moves up the ranking to the first team whose bye needs the fewest.

    The home team of each match is the one that has been home less often so far; when
    both have been home as often, the higher-ranked one. Matches are in table order:
    the match of the highest-ranked team first.

    >>> plan = swiss_round([1, 2, 3, 4], met={frozenset({1, 2}), frozenset({3, 4})})
    >>> [(m.home, m.away) for m in plan.matches], plan.bye
    ([(1, 3), (2, 4)], None)
    """
    order = list(ranking)
    if len(order) < 2:
        raise EventError(f"a Swiss round needs at least 2 teams, got {order!r}")
    for team in order:
        if not _is_number(team) or team < 1:
            raise EventError(f"team numbers start at 1, got {team!r}")
    if len(set(order)) != len(order):
        twice = sorted(team for team, count in Counter(order).items() if count > 1)
        raise EventError(f"the ranking names team {twice[0]} twice")
    position = {team: index for index, team in enumerate(order)}
    size = len(order)
    met_with = [0] * size
    for pair in met:
        teams = [position[team] for team in pair if team in position]
        if len(teams) == 2:
            first, second = teams
            met_with[first] |= 1 << second
            met_with[second] |= 1 << first
    bye_counts = Counter(byes)
    everyone = (1 << size) - 1

    if size % 2:
        fewest = min(bye_counts[team] for team in order)
        candidates: list[int | None] = [
            index for index in reversed(range(size)) if bye_counts[order[index]] == fewest
        ]
    else:
        candidates = [None]

    search = _PairingSearch(met_with)
    free_sets = [
        everyone if resting is None else everyone & ~(1 << resting) for resting in candidates
    ]
    needed = [search.fewest_rematches(free) for free in free_sets]
    choice = needed.index(min(needed))
    resting = candidates[choice]
    pairs = search.pair(free_sets[choice], needed[choice])
    assert pairs is not None

    homes = home_counts or {}
    matches = []
    for higher, lower in pairs:
        high, low = order[higher], order[lower]
        if homes.get(low, 0) < homes.get(high, 0):
            matches.append(Pairing(low, high))
        else:
            matches.append(Pairing(high, low))
    return RoundPlan(tuple(matches), None if resting is None else order[resting])


class _PairingSearch:
    """The depth-first search of a Swiss pairing, on places in the ranking (0 the top):
    sets of places are bit masks, and ``met_with[place]`` the mask of the places it has
    met.

    Before going down into a set of teams, the search asks how many rematches pairing it
    needs at the fewest (from a maximum matching of the teams that have not met), so it
    never goes down a branch that cannot succeed: at most a few hundred steps, not the
    billions of pairings 20 teams have."""

    def __init__(self, met_with: list[int]) -> None:
        self.met_with = met_with
        self._fewest: dict[int, int] = {}

    def fewest_rematches(self, free: int) -> int:
        """The fewest rematches any pairing of the places in ``free`` has."""
        known = self._fewest.get(free)
        if known is None:
            places = [place for place in range(free.bit_length()) if free >> place & 1]
            index = {place: number for number, place in enumerate(places)}
            unmet = [
                [index[other] for other in places if other != place and not met >> other & 1]
                for place, met in ((place, self.met_with[place]) for place in places)
            ]
            known = len(places) // 2 - _maximum_matching(unmet)
            self._fewest[free] = known
        return known

    def pair(self, free: int, rematches: int) -> list[tuple[int, int]] | None:
        """The first pairing of the places in ``free`` in search order with at most
        ``rematches`` rematches, as (higher place, lower place) pairs, or None."""
        if free == 0:
            return []
        if self.fewest_rematches(free) > rematches:
            return None
        top_bit = free & -free
        top = top_bit.bit_length() - 1
        rest = free ^ top_bit
        others = rest
        while others:
            bit = others & -others
            others ^= bit
            opponent = bit.bit_length() - 1
            cost = (self.met_with[top] >> opponent) & 1
            if cost > rematches:
                continue
            paired = self.pair(rest ^ bit, rematches - cost)
            if paired is not None:
                return [(top, opponent), *paired]
        raise AssertionError("a set that can be paired has a first pairing")  # pragma: no cover


def _maximum_matching(neighbours: list[list[int]]) -> int:
    """The size of a maximum matching of a graph on vertices 0 to n-1 (Edmonds' blossom
    algorithm: grow alternating trees from each unmatched vertex, shrinking odd cycles)."""
    size = len(neighbours)
    mate = [-1] * size
    matched = 0

    def augmenting_path_end(root: int) -> tuple[int, list[int]]:
        parent = [-1] * size
        base = list(range(size))
        in_tree = [False] * size
        in_tree[root] = True
        queue = [root]

        def common_base(first: int, second: int) -> int:
            seen = [False] * size
            while True:
                first = base[first]
                seen[first] = True
                if mate[first] == -1:
                    break
                first = parent[mate[first]]
            while True:
                second = base[second]
                if seen[second]:
                    return second
                second = parent[mate[second]]

        def mark_blossom(vertex: int, blossom_base: int, child: int, blossom: list[bool]) -> None:
            while base[vertex] != blossom_base:
                blossom[base[vertex]] = blossom[base[mate[vertex]]] = True
                parent[vertex] = child
                child = mate[vertex]
                vertex = parent[mate[vertex]]

        head = 0
        while head < len(queue):
            vertex = queue[head]
            head += 1
            for other in neighbours[vertex]:
                if base[vertex] == base[other] or mate[vertex] == other:
                    continue
                if other == root or (mate[other] != -1 and parent[mate[other]] != -1):
                    blossom_base = common_base(vertex, other)
                    blossom = [False] * size
                    mark_blossom(vertex, blossom_base, other, blossom)
                    mark_blossom(other, blossom_base, vertex, blossom)
                    for member in range(size):
                        if blossom[base[member]]:
                            base[member] = blossom_base
                            if not in_tree[member]:
                                in_tree[member] = True
                                queue.append(member)
                elif parent[other] == -1:
                    parent[other] = vertex
                    if mate[other] == -1:
                        return other, parent
                    in_tree[mate[other]] = True
                    queue.append(mate[other])
        return -1, parent

    for root in range(size):
        if mate[root] != -1:
            continue
        end, parent = augmenting_path_end(root)
        if end == -1:
            continue
        matched += 1
        while end != -1:
            previous = parent[end]
            following = mate[previous]
            mate[end], mate[previous] = previous, end
            end = following
    return matched


def check_round(teams: int, plan: RoundPlan) -> None:
    """Raise :class:`BadPairing` unless ``plan`` uses each of the teams 1 to ``teams``
    exactly once (its bye included), no team plays itself, and there is a bye exactly
    when the number of teams is odd.

    >>> check_round(3, RoundPlan((Pairing(1, 2),), bye=3))
    >>> check_round(4, RoundPlan((Pairing(1, 2), Pairing(3, 3))))
    Traceback (most recent call last):
    ...
    bridge.events.BadPairing: team 3 plays itself
    """
    _check_team_count(teams)
    for team in plan.teams:
        if not _is_number(team) or not 1 <= team <= teams:
            raise BadPairing(f"team {team!r} is not one of the teams 1 to {teams}")
    for match in plan.matches:
        if match.home == match.away:
            raise BadPairing(f"team {match.home} plays itself")
    if teams % 2 == 0 and plan.bye is not None:
        raise BadPairing(f"with {teams} teams no team sits out, but team {plan.bye} is given a bye")
    if teams % 2 == 1 and plan.bye is None:
        raise BadPairing(f"with {teams} teams one team sits out, but no team is given a bye")
    counts = Counter(plan.teams)
    for team in range(1, teams + 1):
        if counts[team] > 1:
            raise BadPairing(f"team {team} is in the round {counts[team]} times")
        if counts[team] == 0:
            raise BadPairing(f"team {team} is missing from the round")


# Results


def _check_round_number(number: object) -> None:
    if not _is_number(number) or number < 1:
        raise EventError(f"round numbers start at 1, got {number!r}")


def _check_team(team: object) -> None:
    if not _is_number(team) or team < 1:
        raise EventError(f"team numbers start at 1, got {team!r}")


def _check_vps(vps: object) -> None:
    if not isinstance(vps, Decimal) or not vps.is_finite():
        raise EventError(f"victory points are a finite Decimal, got {vps!r}")


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A finished match of ``round``: each side's IMPs (its total won in the match, not
    the net) and its victory points, already converted.

    >>> MatchScore(1, 4, 2, 23, 11, Decimal("14.84"), Decimal("5.16")).margin
    12
    """

    round: int
    home: int
    away: int
    home_imps: int
    away_imps: int
    home_vps: Decimal
    away_vps: Decimal

    def __post_init__(self) -> None:
        _check_round_number(self.round)
        _check_team(self.home)
        _check_team(self.away)
        if self.home == self.away:
            raise EventError(f"round {self.round}: team {self.home} cannot play itself")
        for points in (self.home_imps, self.away_imps):
            if not _is_number(points) or points < 0:
                raise EventError(f"a side's IMPs in a match are 0 or more, got {points!r}")
        _check_vps(self.home_vps)
        _check_vps(self.away_vps)

    @property
    def margin(self) -> int:
        """The home team's net IMPs (negative when it lost)."""
        return self.home_imps - self.away_imps


@dataclass(frozen=True, slots=True)
class ByeScore:
    """The victory points ``team`` gets for sitting out ``round``.

    >>> ByeScore(3, 7, Decimal("12")).vps
    Decimal('12')
    """

    round: int
    team: int
    vps: Decimal

    def __post_init__(self) -> None:
        _check_round_number(self.round)
        _check_team(self.team)
        _check_vps(self.vps)


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A director's adjustment to ``team``'s victory points: a penalty (negative) or an
    award (positive), for a round or (``round`` None) for the whole event.

    >>> Adjustment(None, 2, Decimal("-1.5"), "slow play").vps
    Decimal('-1.5')
    """

    round: int | None
    team: int
    vps: Decimal
    reason: str

    def __post_init__(self) -> None:
        if self.round is not None:
            _check_round_number(self.round)
        _check_team(self.team)
        _check_vps(self.vps)


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's line in the standings. ``rank`` is shared by teams still level after
    every tie-break (``tied`` then True: shown ``2=``); ``vps`` includes byes and
    adjustments; ``played`` counts matches only, not byes."""

    rank: int
    team: int
    vps: Decimal
    played: int
    imps_for: int
    imps_against: int
    tied: bool = False


def _check_in_event(team: int, teams: int, where: str) -> None:
    if not 1 <= team <= teams:
        raise EventError(f"{where}: team {team} is not one of the teams 1 to {teams}")


def standings(
    teams: int,
    scores: Iterable[MatchScore | ByeScore],
    adjustments: Iterable[Adjustment] = (),
) -> tuple[Standing, ...]:
    """The teams ranked by their victory points, best first, with the tie-breaks of the
    module docstring: (a) total VPs, (b) VPs in the matches between the tied teams when
    each has played every other, (c) IMP quotient, (d) a shared rank, by team number; a
    tie-break that separates some tied teams but not all sends those still level back to
    (b), among themselves. A team with no result yet has 0 VPs.

    Raises :class:`EventError` for a team out of range, or a team with two results (two
    matches, or a match and a bye) in one round.

    >>> table = standings(4, [
    ...     MatchScore(1, 1, 2, 20, 20, Decimal("10.00"), Decimal("10.00")),
    ...     MatchScore(1, 3, 4, 31, 0, Decimal("17.50"), Decimal("2.50")),
    ... ])
    >>> [(s.rank, s.team, s.tied) for s in table]
    [(1, 3, False), (2, 1, True), (2, 2, True), (4, 4, False)]
    """
    _check_team_count(teams)
    vps = {team: Decimal(0) for team in range(1, teams + 1)}
    played = dict.fromkeys(vps, 0)
    imps_for = dict.fromkeys(vps, 0)
    imps_against = dict.fromkeys(vps, 0)
    head_to_head: dict[tuple[int, int], Decimal] = {}
    seen: set[tuple[int, int]] = set()

    def once(round_number: int, team: int) -> None:
        if (round_number, team) in seen:
            raise EventError(f"round {round_number}: team {team} has two results")
        seen.add((round_number, team))

    for result in scores:
        if isinstance(result, ByeScore):
            _check_in_event(result.team, teams, f"round {result.round}")
            once(result.round, result.team)
            vps[result.team] += result.vps
            continue
        for side, other, won, lost, points in (
            (result.home, result.away, result.home_imps, result.away_imps, result.home_vps),
            (result.away, result.home, result.away_imps, result.home_imps, result.away_vps),
        ):
            _check_in_event(side, teams, f"round {result.round}")
            once(result.round, side)
            vps[side] += points
            played[side] += 1
            imps_for[side] += won
            imps_against[side] += lost
            head_to_head[side, other] = head_to_head.get((side, other), Decimal(0)) + points
    for adjustment in adjustments:
        _check_in_event(adjustment.team, teams, f"adjustment ({adjustment.reason})")
        vps[adjustment.team] += adjustment.vps

    def quotient(team: int) -> tuple[int, Fraction]:
        won, lost = imps_for[team], imps_against[team]
        if lost == 0:
            return (1, Fraction(0)) if won else (0, Fraction(1))
        return (0, Fraction(won, lost))

    def break_tie(group: list[int]) -> list[list[int]]:
        if len(group) == 1:
            return [group]
        if all((team, other) in head_to_head for team in group for other in group if other != team):
            parts = _split(
                group,
                lambda team: sum(
                    (head_to_head[team, other] for other in group if other != team), Decimal(0)
                ),
            )
            if len(parts) > 1:
                return [tied for part in parts for tied in break_tie(part)]
        parts = _split(group, quotient)
        if len(parts) > 1:
            return [tied for part in parts for tied in break_tie(part)]
        return [sorted(group)]

    ranked: list[Standing] = []
    for group in _split(list(vps), vps.__getitem__):
        for tied in break_tie(group):
            rank = len(ranked) + 1
            ranked.extend(
                Standing(
                    rank,
                    team,
                    vps[team],
                    played[team],
                    imps_for[team],
                    imps_against[team],
                    len(tied) > 1,
                )
                for team in tied
            )
    return tuple(ranked)


def _split(items: Iterable[Item], key: Callable[[Item], Key]) -> list[list[Item]]:
    """``items`` cut into runs of equal ``key``, the highest key first, each run in the
    order the items came in."""
    keys = [(key(item), item) for item in items]
    runs: dict[Key, list[Item]] = {}
    for level, item in sorted(keys, key=lambda keyed: keyed[0], reverse=True):
        runs.setdefault(level, []).append(item)
    return list(runs.values())


@dataclass(frozen=True, slots=True)
class CrossEntry:
    """One match in the cross-table, from one team's side against one opponent."""

    round: int
    imps_for: int
    imps_against: int
    vps: Decimal


def cross_table(
    teams: int, scores: Iterable[MatchScore | ByeScore]
) -> dict[tuple[int, int], tuple[CrossEntry, ...]]:
    """For each ordered pair ``(team, opponent)`` of different teams, their matches from
    ``team``'s side, by round: empty when they have not met, more than one only after a
    Swiss had to allow a rematch. Byes are left out.

    >>> table = cross_table(3, [MatchScore(2, 3, 1, 9, 14, Decimal("7.90"), Decimal("12.10"))])
    >>> table[1, 3]
    (CrossEntry(round=2, imps_for=14, imps_against=9, vps=Decimal('12.10')),)
    >>> table[1, 2]
    ()
    """
    _check_team_count(teams)
    entries: dict[tuple[int, int], list[CrossEntry]] = {
        (team, opponent): []
        for team in range(1, teams + 1)
        for opponent in range(1, teams + 1)
        if team != opponent
    }
    for result in scores:
        if isinstance(result, ByeScore):
            continue
        for team in (result.home, result.away):
            _check_in_event(team, teams, f"round {result.round}")
        entries[result.home, result.away].append(
            CrossEntry(result.round, result.home_imps, result.away_imps, result.home_vps)
        )
        entries[result.away, result.home].append(
            CrossEntry(result.round, result.away_imps, result.home_imps, result.away_vps)
        )
    return {
        pair: tuple(sorted(matches, key=lambda entry: entry.round))
        for pair, matches in entries.items()
    }


# Butler


@dataclass(frozen=True, slots=True, order=True)
class Pair:
    """A pair of a team: its team number and its two players' names, kept in alphabetical
    order, so the pair is the same whichever of them sat North (or East).

    >>> Pair(2, ("West", "East")) == Pair(2, ("East", "West"))
    True
    """

    team: int
    players: tuple[str, str]

    def __post_init__(self) -> None:
        _check_team(self.team)
        if len(self.players) != 2 or not all(isinstance(name, str) for name in self.players):
            raise EventError(f"a pair is two players' names, got {self.players!r}")
        first, second = sorted(self.players)
        object.__setattr__(self, "players", (first, second))

    def __str__(self) -> str:
        return f"{self.players[0]} & {self.players[1]} (team {self.team})"


@dataclass(frozen=True, slots=True)
class TableScore:
    """One table's result on a board for the Butler: the two pairs and North-South's
    score (420, or -100 when North-South went one off).

    (:class:`bridge.formats.teams.TableResult` is what a table did; this is only its
    score, with who scored it.)
    """

    board: int
    north_south: Pair
    east_west: Pair
    score: int

    def __post_init__(self) -> None:
        if not _is_number(self.board) or self.board < 1:
            raise EventError(f"board numbers start at 1, got {self.board!r}")
        if not _is_number(self.score):
            raise EventError(f"a score is a whole number, got {self.score!r}")
        if self.north_south == self.east_west:
            raise EventError(f"board {self.board}: {self.north_south} cannot play itself")


@dataclass(frozen=True, slots=True)
class BoardDatum:
    """A board's datum: the mean of the ``counted`` North-South scores (``tables`` played
    it; the top and bottom scores were left out when ``trimmed``), rounded to 10."""

    board: int
    tables: int
    trimmed: bool
    mean: Fraction
    datum: int


@dataclass(frozen=True, slots=True)
class ButlerTable:
    """A table's score against its board's datum: ``imps`` are North-South's,
    ``imps(score - datum)``; East-West get the opposite."""

    result: TableScore
    datum: int
    imps: int

    @property
    def east_west_imps(self) -> int:
        return -self.imps


@dataclass(frozen=True, slots=True)
class ButlerPair:
    """A pair's line in the Butler ranking. ``imps_per_board`` is shown to two decimals;
    the ranking compares the exact quotients."""

    rank: int
    pair: Pair
    imps: int
    boards: int
    imps_per_board: Decimal
    tied: bool = False


@dataclass(frozen=True, slots=True)
class Butler:
    """The Butler scoring of an event: each board's datum (by board number), each
    table's IMPs against it (by board, then as given) and the pairs ranked."""

    boards: tuple[BoardDatum, ...]
    tables: tuple[ButlerTable, ...]
    pairs: tuple[ButlerPair, ...]
    by_total: bool
    """True when the pairs are ranked by total IMPs (they all played as many boards),
    False when by IMPs per board."""

    def datum(self, board: int) -> int:
        """The datum of ``board`` (raises :class:`EventError` if nobody played it)."""
        for entry in self.boards:
            if entry.board == board:
                return entry.datum
        raise EventError(f"board {board} has no scores")


def _round_to_ten(value: Fraction) -> int:
    """``value`` to the nearest multiple of 10, halves away from zero."""
    tens = math.floor(abs(value) / 10 + Fraction(1, 2))
    return 10 * tens if value >= 0 else -10 * tens


def butler(results: Iterable[TableScore], trim_from: int = 5) -> Butler:
    """Each table's North-South score against the board's datum, in IMPs, and the pairs
    ranked by them.

    A board's datum is the mean of the North-South scores of every table that played it,
    leaving out the single top and the single bottom score when at least ``trim_from``
    tables played it, rounded to the nearest 10 (halves away from zero). The default 5
    trims only when 3 scores or more are left to average: with 3 or 4 tables, dropping two
    of them would make one or two tables the whole datum. North-South get
    ``imps(score - datum)``, East-West the opposite.

    A pair's total is the sum of its IMPs over its boards. When every pair played as many
    boards, the pairs are ranked by total IMPs; otherwise by IMPs per board. Pairs level
    (exactly, not on the two decimals shown) share the rank, listed by team then names.

    >>> ann_bob, cat_dan = Pair(1, ("Ann", "Bob")), Pair(2, ("Cat", "Dan"))
    >>> eve_fay, gil_hal = Pair(2, ("Eve", "Fay")), Pair(1, ("Gil", "Hal"))
    >>> result = butler([TableScore(1, ann_bob, cat_dan, 420), TableScore(1, eve_fay, gil_hal, 170)])
    >>> result.datum(1), [table.imps for table in result.tables]
    (300, [3, -4])
    """
    if not _is_number(trim_from) or trim_from < 3:
        raise EventError(f"trimming takes 3 tables or more, got trim_from={trim_from!r}")
    by_board: dict[int, list[TableScore]] = {}
    for result in results:
        if not isinstance(result, TableScore):
            raise EventError(f"not a TableScore: {result!r}")
        tables = by_board.setdefault(result.board, [])
        for earlier in tables:
            for pair in (result.north_south, result.east_west):
                if pair in (earlier.north_south, earlier.east_west):
                    raise EventError(f"board {result.board}: {pair} played it twice")
        tables.append(result)

    boards: list[BoardDatum] = []
    scored: list[ButlerTable] = []
    totals: dict[Pair, list[int]] = {}
    for board in sorted(by_board):
        tables = by_board[board]
        counted = sorted(table.score for table in tables)
        trimmed = len(counted) >= trim_from
        if trimmed:
            counted = counted[1:-1]
        mean = Fraction(sum(counted), len(counted))
        datum = _round_to_ten(mean)
        boards.append(BoardDatum(board, len(tables), trimmed, mean, datum))
        for table in tables:
            swing = imps(table.score - datum)
            scored.append(ButlerTable(table, datum, swing))
            for pair, points in ((table.north_south, swing), (table.east_west, -swing)):
                total = totals.setdefault(pair, [0, 0])
                total[0] += points
                total[1] += 1

    by_total = len({boards_played for _, boards_played in totals.values()}) <= 1

    def key(pair: Pair) -> Fraction:
        points, boards_played = totals[pair]
        return Fraction(points) if by_total else Fraction(points, boards_played)

    ranked: list[ButlerPair] = []
    for level in _split(sorted(totals), key):
        rank = len(ranked) + 1
        for pair in level:
            points, boards_played = totals[pair]
            per_board = (Decimal(points) / Decimal(boards_played)).quantize(
                Decimal("0.01"), rounding=ROUND_HALF_UP
            )
            ranked.append(ButlerPair(rank, pair, points, boards_played, per_board, len(level) > 1))
    return Butler(tuple(boards), tuple(scored), tuple(ranked), by_total)

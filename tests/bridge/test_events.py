"""A teams event of many matches (bridge.events): round robin and Swiss pairings, the
standings and their tie-breaks, the cross-table, and the Butler scoring of the pairs."""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.errors import BridgeError
from bridge.events import (
    Adjustment,
    BadPairing,
    Butler,
    ByeScore,
    CrossEntry,
    EventError,
    MatchScore,
    Pair,
    Pairing,
    RoundPlan,
    Standing,
    TableScore,
    butler,
    check_round,
    cross_table,
    round_robin,
    standings,
    swiss_first_round,
    swiss_round,
)
from bridge.scoring import imps


def dec(value: str | int) -> Decimal:
    return Decimal(value)


def pairs_of(plan: RoundPlan) -> list[tuple[int, int]]:
    return [(match.home, match.away) for match in plan.matches]


# Round robin


class TestRoundRobin:
    @pytest.mark.parametrize("teams", range(2, 13))
    def test_every_two_teams_meet_exactly_once(self, teams: int) -> None:
        plans = round_robin(teams)
        assert len(plans) == (teams - 1 if teams % 2 == 0 else teams)
        meetings = Counter(match.teams for plan in plans for match in plan.matches)
        assert set(meetings) == {
            frozenset(pair) for pair in itertools.combinations(range(1, teams + 1), 2)
        }
        assert set(meetings.values()) == {1}

    @pytest.mark.parametrize("teams", range(2, 13))
    def test_every_round_uses_each_team_once(self, teams: int) -> None:
        for plan in round_robin(teams):
            check_round(teams, plan)

    @pytest.mark.parametrize("teams", range(3, 13, 2))
    def test_each_team_sits_out_exactly_once_when_odd(self, teams: int) -> None:
        byes = [plan.bye for plan in round_robin(teams) if plan.bye is not None]
        assert sorted(byes) == list(range(1, teams + 1))

    @pytest.mark.parametrize("teams", range(2, 13, 2))
    def test_no_byes_when_even(self, teams: int) -> None:
        assert all(plan.bye is None for plan in round_robin(teams))

    @pytest.mark.parametrize("teams", range(2, 13))
    def test_each_team_home_in_half_its_matches(self, teams: int) -> None:
        homes = Counter(match.home for plan in round_robin(teams) for match in plan.matches)
        played = teams - 1
        for team in range(1, teams + 1):
            assert homes[team] in (played // 2, (played + 1) // 2)

    @pytest.mark.parametrize("teams", range(2, 13))
    def test_home_and_away_alternate_with_fewest_breaks(self, teams: int) -> None:
        # A break: home (or away) twice running, a bye skipped. A round robin of an even
        # number of teams has at least N-2 breaks; of an odd number, none are needed.
        sides: dict[int, list[str]] = {team: [] for team in range(1, teams + 1)}
        for plan in round_robin(teams):
            for match in plan.matches:
                sides[match.home].append("home")
                sides[match.away].append("away")
        breaks = sum(
            sum(1 for before, after in itertools.pairwise(run) if before == after)
            for run in sides.values()
        )
        assert breaks == (teams - 2 if teams % 2 == 0 else 0)

    def test_six_teams_is_the_berger_table(self) -> None:
        assert [pairs_of(plan) for plan in round_robin(6)] == [
            [(1, 6), (2, 5), (3, 4)],
            [(6, 4), (5, 3), (1, 2)],
            [(2, 6), (3, 1), (4, 5)],
            [(6, 5), (1, 4), (2, 3)],
            [(3, 6), (4, 2), (5, 1)],
        ]

    def test_five_teams_leave_out_the_phantom_sixth(self) -> None:
        plans = round_robin(5)
        assert [pairs_of(plan) for plan in plans] == [
            [(2, 5), (3, 4)],
            [(5, 3), (1, 2)],
            [(3, 1), (4, 5)],
            [(1, 4), (2, 3)],
            [(4, 2), (5, 1)],
        ]
        assert [plan.bye for plan in plans] == [1, 4, 2, 5, 3]

    def test_deterministic(self) -> None:
        assert round_robin(9) == round_robin(9)

    @pytest.mark.parametrize("teams", [-1, 0, 1, True, 4.0])
    def test_refuses_fewer_than_two_teams(self, teams: object) -> None:
        with pytest.raises(EventError, match="at least 2 teams"):
            round_robin(teams)  # type: ignore[arg-type]


# Swiss


class TestSwissFirstRound:
    @pytest.mark.parametrize(
        ("teams", "expected", "bye"),
        [
            (2, [(1, 2)], None),
            (8, [(1, 5), (2, 6), (3, 7), (4, 8)], None),
            (7, [(1, 4), (2, 5), (3, 6)], 7),
            (3, [(1, 2)], 3),
        ],
    )
    def test_seeded_top_half_meets_bottom_half(
        self, teams: int, expected: list[tuple[int, int]], bye: int | None
    ) -> None:
        plan = swiss_first_round(teams)
        assert (pairs_of(plan), plan.bye) == (expected, bye)

    @pytest.mark.parametrize("teams", range(2, 14))
    def test_drawn_is_a_round_and_repeatable(self, teams: int) -> None:
        plan = swiss_first_round(teams, random.Random(teams))
        check_round(teams, plan)
        assert plan == swiss_first_round(teams, random.Random(teams))

    def test_drawn_differs_with_the_draw(self) -> None:
        plans = {swiss_first_round(10, random.Random(seed)) for seed in range(20)}
        assert len(plans) > 10


class TestSwissRound:
    def test_five_teams_by_hand(self) -> None:
        # Round 1: 1 v 2, 3 v 4, 5 sits out. Round 2: 1 v 3, 2 v 5, 4 sits out.
        met = {frozenset({1, 2}), frozenset({3, 4}), frozenset({1, 3}), frozenset({2, 5})}
        byes = [5, 4]
        home_counts = {1: 2, 3: 1, 2: 1}
        ranking = [1, 3, 2, 5, 4]
        # The bye: of the teams that have not sat out (1, 2, 3), the lowest-ranked: 2.
        # Left: 1, 3, 5, 4. Team 1 has met 3, so it takes 5; then 3 v 4 would be a
        # rematch: back up, 1 takes 4, and 3 v 5 is new.
        # Home: 4 (never home) rather than 1 (twice); 5 (never) rather than 3 (once).
        plan = swiss_round(ranking, met, byes, home_counts)
        assert plan == RoundPlan((Pairing(4, 1), Pairing(5, 3)), bye=2)

    def test_the_bye_moves_up_when_it_leaves_a_rematch(self) -> None:
        # Team 1 has met 2, 3 and 4 (a carried-over qualifying stage): if 5 sits out, 1
        # has nobody new to play. With 4 sitting out, 1 v 5 and 2 v 3 are both new.
        met = {frozenset({1, 2}), frozenset({1, 3}), frozenset({1, 4})}
        plan = swiss_round([1, 2, 3, 4, 5], met, byes=[])
        assert (pairs_of(plan), plan.bye) == ([(1, 5), (2, 3)], 4)

    def test_no_second_bye_while_a_team_has_had_none(self) -> None:
        # 5 has sat out once; 4 has not: 4 sits out, though 5 is lower.
        plan = swiss_round([1, 2, 3, 4, 5], met=set(), byes=[5])
        assert plan.bye == 4
        # Everyone has sat out once, 5 twice: the lowest of those with one bye.
        plan = swiss_round([1, 2, 3, 4, 5], met=set(), byes=[1, 2, 3, 4, 5, 5])
        assert plan.bye == 4

    def test_fewest_rematches_when_none_can_be_avoided(self) -> None:
        # Team 6 has met everyone: one rematch at least. 1 v 2 would be a second (1 and
        # 2 have met), so 1 takes 3, then 2 v 4, and 5 v 6 is the one rematch.
        met = {frozenset({6, other}) for other in range(1, 6)} | {frozenset({1, 2})}
        plan = swiss_round([1, 2, 3, 4, 5, 6], met)
        assert pairs_of(plan) == [(1, 3), (2, 4), (5, 6)]

    def test_all_met_pairs_by_standing(self) -> None:
        met = {frozenset(pair) for pair in itertools.combinations(range(1, 5), 2)}
        assert pairs_of(swiss_round([4, 3, 2, 1], met)) == [(4, 3), (2, 1)]

    def test_home_goes_to_the_team_home_less_often(self) -> None:
        plan = swiss_round([1, 2, 3, 4], met=set(), home_counts={1: 3, 2: 2, 3: 1, 4: 1})
        assert pairs_of(plan) == [(2, 1), (3, 4)]

    def test_teams_left_out_of_the_ranking_are_left_out(self) -> None:
        plan = swiss_round([7, 2, 9, 4], met={frozenset({7, 2}), frozenset({7, 5})})
        assert pairs_of(plan) == [(7, 9), (2, 4)]

    @pytest.mark.parametrize(
        ("ranking", "message"),
        [
            ([1], "at least 2 teams"),
            ([1, 2, 1], "team 1 twice"),
            ([1, 0], "start at 1"),
            ([1, "2"], "start at 1"),
        ],
    )
    def test_refuses_a_bad_ranking(self, ranking: list[int], message: str) -> None:
        with pytest.raises(EventError, match=message):
            swiss_round(ranking, met=set())


def brute_force_swiss(
    ranking: Sequence[int], met: set[frozenset[int]], byes: Sequence[int], homes: Counter[int]
) -> RoundPlan:
    """swiss_round's rules, by trying every pairing in the order the rules prefer them."""

    def pairings(teams: list[int]) -> Iterator[list[tuple[int, int]]]:
        if not teams:
            yield []
            return
        first, rest = teams[0], teams[1:]
        for index, other in enumerate(rest):
            for tail in pairings(rest[:index] + rest[index + 1 :]):
                yield [(first, other), *tail]

    def rematches(pairing: list[tuple[int, int]]) -> int:
        return sum(frozenset(pair) in met for pair in pairing)

    counts = Counter(byes)
    if len(ranking) % 2:
        fewest = min(counts[team] for team in ranking)
        choices: list[int | None] = [team for team in reversed(ranking) if counts[team] == fewest]
    else:
        choices = [None]
    best: tuple[int, int | None, list[tuple[int, int]]] | None = None
    for bye in choices:
        playing = [team for team in ranking if team != bye]
        for pairing in pairings(playing):
            if best is None or rematches(pairing) < best[0]:
                best = (rematches(pairing), bye, pairing)
    assert best is not None
    _, bye, pairing = best
    return RoundPlan(
        tuple(
            Pairing(low, high) if homes[low] < homes[high] else Pairing(high, low)
            for high, low in pairing
        ),
        bye,
    )


class TestSwissProperties:
    @settings(max_examples=80, deadline=None)
    @given(
        teams=st.integers(2, 9),
        rounds=st.integers(1, 11),
        seed=st.integers(0, 2**32),
        drawn=st.booleans(),
    )
    def test_a_swiss_with_random_results(
        self, teams: int, rounds: int, seed: int, drawn: bool
    ) -> None:
        rng = random.Random(seed)
        met: set[frozenset[int]] = set()
        byes: list[int] = []
        homes: Counter[int] = Counter()
        vps: Counter[int] = Counter()
        plan = swiss_first_round(teams, rng if drawn else None)
        for number in range(1, rounds + 1):
            if number > 1:
                ranking = sorted(range(1, teams + 1), key=lambda team: (-vps[team], team))
                plan = swiss_round(ranking, met, byes, homes)
                # Rematches only when they cannot be avoided, then as few as can be; the
                # bye and the pairing as the rules prefer them.
                assert plan == brute_force_swiss(ranking, met, byes, homes)
                for match in plan.matches:
                    assert homes[match.home] <= homes[match.away]
            check_round(teams, plan)  # every team exactly once
            if plan.bye is not None:
                # one bye each before any second bye
                assert Counter(byes)[plan.bye] == min(Counter(byes)[t] for t in range(1, teams + 1))
                byes.append(plan.bye)
                vps[plan.bye] += 12
            for match in plan.matches:
                met.add(match.teams)
                homes[match.home] += 1
                won = rng.randint(0, 20)
                vps[match.home] += won
                vps[match.away] += 20 - won

    @settings(max_examples=150, deadline=None)
    @given(data=st.data(), teams=st.integers(2, 9))
    def test_any_history_against_brute_force(self, data: st.DataObject, teams: int) -> None:
        all_pairs = [frozenset(pair) for pair in itertools.combinations(range(1, teams + 1), 2)]
        met = set(data.draw(st.lists(st.sampled_from(all_pairs), unique=True)))
        ranking = data.draw(st.permutations(range(1, teams + 1)))
        byes = data.draw(st.lists(st.integers(1, teams), max_size=2 * teams))
        homes = Counter(data.draw(st.lists(st.integers(1, teams), max_size=3 * teams)))
        plan = swiss_round(ranking, met, byes, homes)
        check_round(teams, plan)
        assert plan == brute_force_swiss(ranking, met, byes, homes)

    @pytest.mark.alone  # measures a time: see pyproject.toml
    def test_twenty_teams_ten_rounds_well_under_a_second(self) -> None:
        rng = random.Random(20)
        met: set[frozenset[int]] = set()
        homes: Counter[int] = Counter()
        vps: Counter[int] = Counter()
        started = time.perf_counter()
        plan = swiss_first_round(20, rng)
        for number in range(1, 11):
            if number > 1:
                ranking = sorted(range(1, 21), key=lambda team: (-vps[team], team))
                plan = swiss_round(ranking, met, (), homes)
            for match in plan.matches:
                assert match.teams not in met
                met.add(match.teams)
                homes[match.home] += 1
                won = rng.randint(0, 20)
                vps[match.home] += won
                vps[match.away] += 20 - won
        assert time.perf_counter() - started < 0.5

    @pytest.mark.alone  # measures a time: see pyproject.toml
    def test_a_hard_history_stays_fast(self) -> None:
        # Teams 1 and 2 are the only ones 11 others have not met: a rematch-free pairing
        # is impossible, which a plain depth-first search takes seconds to find out.
        rng = random.Random(9)
        teams = list(range(1, 25))
        leaves = set(rng.sample(range(3, 25), 12))
        met = {
            frozenset(pair)
            for pair in itertools.combinations(teams, 2)
            if set(pair) & leaves and not set(pair) & {1, 2}
        }
        rng.shuffle(teams)
        started = time.perf_counter()
        plan = swiss_round(teams, met)
        assert time.perf_counter() - started < 0.5
        assert sum(match.teams in met for match in plan.matches) == 5


class TestCheckRound:
    def test_a_good_round_passes(self) -> None:
        check_round(4, RoundPlan((Pairing(3, 1), Pairing(2, 4))))
        check_round(5, RoundPlan((Pairing(3, 1), Pairing(2, 4)), bye=5))

    @pytest.mark.parametrize(
        ("teams", "plan", "message"),
        [
            (4, RoundPlan((Pairing(1, 2), Pairing(3, 5))), "team 5 is not one of the teams 1 to 4"),
            (4, RoundPlan((Pairing(1, 2), Pairing(0, 3))), "team 0 is not one of"),
            (4, RoundPlan((Pairing(1, 2), Pairing(3, 3))), "team 3 plays itself"),
            (4, RoundPlan((Pairing(1, 2), Pairing(2, 3))), "team 2 is in the round 2 times"),
            (6, RoundPlan((Pairing(1, 2), Pairing(3, 4))), "team 5 is missing"),
            (4, RoundPlan((Pairing(1, 2),), bye=3), "no team sits out, but team 3 is given a bye"),
            (5, RoundPlan((Pairing(1, 2), Pairing(3, 4))), "one team sits out, but no team"),
            (5, RoundPlan((Pairing(1, 2), Pairing(3, 4)), bye=1), "team 1 is in the round 2"),
            (3, RoundPlan((Pairing(1, 2),), bye=7), "team 7 is not one of"),
        ],
    )
    def test_refuses(self, teams: int, plan: RoundPlan, message: str) -> None:
        with pytest.raises(BadPairing, match=message):
            check_round(teams, plan)

    def test_errors_are_bridge_errors(self) -> None:
        assert issubclass(BadPairing, EventError)
        assert issubclass(EventError, BridgeError)


# Standings


def match(
    round_number: int, home: int, away: int, home_imps: int, away_imps: int, home_vps: str
) -> MatchScore:
    """A match whose VPs add up to 20."""
    return MatchScore(
        round_number, home, away, home_imps, away_imps, dec(home_vps), dec(20) - dec(home_vps)
    )


def order(table: Sequence[Standing]) -> list[tuple[int, int, bool]]:
    return [(line.rank, line.team, line.tied) for line in table]


class TestStandings:
    def test_totals_byes_and_adjustments(self) -> None:
        scores: list[MatchScore | ByeScore] = [
            match(1, 1, 2, 31, 12, "15.31"),
            ByeScore(1, 3, dec("12.00")),
            match(2, 3, 1, 20, 20, "10.00"),
            ByeScore(2, 2, dec("12.00")),
        ]
        table = standings(3, scores, [Adjustment(2, 1, dec("-1.50"), "slow play")])
        assert table == (
            Standing(1, 1, dec("23.81"), 2, 51, 32, False),
            Standing(2, 3, dec("22.00"), 1, 20, 20, False),
            Standing(3, 2, dec("16.69"), 1, 12, 31, False),
        )

    def test_an_adjustment_for_the_event_changes_the_order(self) -> None:
        scores = [match(1, 1, 2, 25, 20, "11.50")]
        assert order(standings(2, scores)) == [(1, 1, False), (2, 2, False)]
        award = Adjustment(None, 2, dec("3.01"), "opponents' misinformation")
        assert order(standings(2, scores, [award])) == [(1, 2, False), (2, 1, False)]

    def test_decimal_sums_are_exact(self) -> None:
        scores = [ByeScore(number, 1, dec("0.1")) for number in range(1, 4)]
        (first, _) = standings(2, scores)
        assert first.vps == dec("0.3")

    def test_no_results_yet_everyone_shares_first(self) -> None:
        assert order(standings(3, [])) == [(1, 1, True), (1, 2, True), (1, 3, True)]

    def test_b_head_to_head_among_tied_teams_who_all_met(self) -> None:
        # A 4-team round robin: 1, 2 and 3 end on 35 VPs. Among them, 1 won 12 + 9 = 21,
        # 3 won 11 + 9 = 20, 2 won 8 + 11 = 19. By IMP quotient it would be 2, 3, 1.
        scores = [
            match(1, 1, 2, 20, 15, "12.00"),
            match(1, 3, 4, 30, 10, "15.00"),
            match(2, 1, 3, 10, 14, "9.00"),
            match(2, 2, 4, 40, 5, "16.00"),
            match(3, 1, 4, 25, 15, "14.00"),
            match(3, 2, 3, 22, 20, "11.00"),
        ]
        table = standings(4, scores)
        assert [line.vps for line in table] == [dec(35), dec(35), dec(35), dec(15)]
        assert order(table) == [(1, 1, False), (2, 3, False), (3, 2, False), (4, 4, False)]

    def test_b_again_among_the_teams_still_level(self) -> None:
        # 1, 2 and 3 end on 31 VPs. Among the three: 1 won 26, 2 and 3 won 17 each; then
        # between 2 and 3 alone, 2 won their match 12-8. (By IMP quotient 3 is ahead of 2.)
        scores = [
            match(1, 1, 2, 30, 10, "15.00"),
            match(1, 3, 4, 40, 20, "14.00"),
            match(2, 1, 3, 20, 17, "11.00"),
            match(2, 2, 4, 25, 10, "14.00"),
            match(3, 2, 3, 18, 14, "12.00"),
            match(3, 1, 4, 10, 30, "5.00"),
        ]
        table = standings(4, scores)
        assert [line.vps for line in table[:3]] == [dec(31)] * 3
        assert order(table) == [(1, 1, False), (2, 2, False), (3, 3, False), (4, 4, False)]
        quotient = {line.team: line.imps_for / line.imps_against for line in table}
        assert quotient[3] > quotient[2]

    def test_c_imp_quotient_when_the_tied_teams_have_not_all_met(self) -> None:
        # A Swiss: 1 and 3 both have 25 VPs and have not met. 1: 55/35; 3: 56/35.
        scores = [
            match(1, 1, 2, 40, 20, "15.00"),
            match(1, 3, 4, 25, 17, "12.00"),
            match(2, 1, 4, 15, 15, "10.00"),
            match(2, 3, 2, 31, 18, "13.00"),
        ]
        assert order(standings(4, scores)) == [
            (1, 3, False),
            (2, 1, False),
            (3, 4, False),
            (4, 2, False),
        ]

    def test_c_when_only_some_of_the_tied_teams_met(self) -> None:
        # All four on 10 VPs; 1 met 2 and 3 met 4, but 1 has not met 3: no head to head.
        scores = [
            match(1, 1, 2, 12, 10, "10.00"),  # quotients 1.2 and 0.833
            match(1, 3, 4, 9, 10, "10.00"),  # 0.9 and 1.111
        ]
        assert order(standings(4, scores)) == [
            (1, 1, False),
            (2, 4, False),
            (3, 3, False),
            (4, 2, False),
        ]

    @pytest.mark.parametrize(
        ("imps_of", "expected"),
        [
            # IMPs for and against of teams 1, 3, 5 (all on 10 VPs, none of them met)
            ({1: (0, 0), 3: (12, 0), 5: (6, 12)}, [3, 1, 5]),  # infinite, then 1, then 0.5
            ({1: (0, 0), 3: (10, 10), 5: (1, 2)}, [1, 3, 5]),  # 0/0 is 1, level with 10/10
            ({1: (0, 5), 3: (5, 0), 5: (0, 0)}, [3, 5, 1]),  # 0 won is quotient 0
        ],
    )
    def test_c_quotient_edges(
        self, imps_of: dict[int, tuple[int, int]], expected: list[int]
    ) -> None:
        scores = [
            MatchScore(1, team, team + 1, *imps_of[team], dec(10), dec(10)) for team in (1, 3, 5)
        ]
        table = standings(6, scores)
        assert [line.team for line in table if line.team in imps_of] == expected

    def test_d_level_after_every_tie_break_share_the_rank(self) -> None:
        # All on 10 VPs. 3 lost no IMP: first. 1 and 2 drew their match (10-10 head to
        # head) and have a quotient of 1 each: they share second place; 4 is fourth.
        scores = [
            MatchScore(1, 1, 2, 10, 10, dec(10), dec(10)),
            MatchScore(1, 3, 4, 12, 0, dec(10), dec(10)),
        ]
        assert order(standings(4, scores)) == [
            (1, 3, False),
            (2, 1, True),
            (2, 2, True),
            (4, 4, False),
        ]

    def test_d_no_quotient_counts_as_one(self) -> None:
        # 0/0 and 10/10 are both a quotient of 1, and 1 has met neither 3 nor 4: all
        # four share first place, listed by team number.
        scores = [
            MatchScore(1, 3, 4, 10, 10, dec(10), dec(10)),
            MatchScore(1, 1, 2, 0, 0, dec(10), dec(10)),
        ]
        assert order(standings(4, scores)) == [(1, team, True) for team in range(1, 5)]

    def test_d_a_drawn_match_between_two_level_teams(self) -> None:
        table = standings(2, [MatchScore(1, 2, 1, 20, 20, dec(10), dec(10))])
        assert order(table) == [(1, 1, True), (1, 2, True)]

    def test_a_rematch_counts_both_matches_head_to_head(self) -> None:
        scores = [match(1, 1, 2, 10, 30, "4.00"), match(2, 2, 1, 25, 20, "11.00")]
        # 2 has 16 + 11 = 27 VPs, 1 has 4 + 9 = 13.
        assert [(line.team, line.vps, line.played) for line in standings(2, scores)] == [
            (2, dec(27), 2),
            (1, dec(13), 2),
        ]

    @pytest.mark.parametrize(
        ("scores", "adjustments", "message"),
        [
            ([match(1, 1, 5, 10, 10, "10")], [], "round 1: team 5 is not one of the teams 1 to 4"),
            ([ByeScore(2, 9, dec(12))], [], "team 9"),
            ([], [Adjustment(None, 5, dec(-1), "late")], r"adjustment \(late\): team 5"),
            (
                [match(1, 1, 2, 10, 10, "10"), match(1, 3, 1, 10, 10, "10")],
                [],
                "round 1: team 1 has two results",
            ),
            (
                [match(3, 1, 2, 10, 10, "10"), ByeScore(3, 2, dec(12))],
                [],
                "round 3: team 2 has two results",
            ),
        ],
    )
    def test_refuses(
        self, scores: list[MatchScore | ByeScore], adjustments: list[Adjustment], message: str
    ) -> None:
        with pytest.raises(EventError, match=message):
            standings(4, scores, adjustments)

    @pytest.mark.parametrize(
        ("make", "message"),
        [
            (lambda: MatchScore(0, 1, 2, 0, 0, dec(10), dec(10)), "round numbers start at 1"),
            (lambda: MatchScore(1, 1, 1, 0, 0, dec(10), dec(10)), "cannot play itself"),
            (lambda: MatchScore(1, 1, 2, -3, 0, dec(10), dec(10)), "IMPs in a match are 0 or more"),
            (lambda: MatchScore(1, 1, 2, 0, 0, 10, dec(10)), "finite Decimal"),  # type: ignore[arg-type]
            (lambda: MatchScore(1, 1, 2, 0, 0, dec("NaN"), dec(10)), "finite Decimal"),
            (lambda: ByeScore(1, 0, dec(12)), "team numbers start at 1"),
            (lambda: Adjustment(0, 1, dec(-1), "x"), "round numbers start at 1"),
            (lambda: Adjustment(None, 1, 1.5, "x"), "finite Decimal"),  # type: ignore[arg-type]
        ],
    )
    def test_results_refuse_bad_values(self, make: Callable[[], object], message: str) -> None:
        with pytest.raises(EventError, match=message):
            make()


class TestCrossTable:
    def test_each_side_of_each_match(self) -> None:
        scores: list[MatchScore | ByeScore] = [
            match(2, 2, 1, 5, 30, "3.10"),
            ByeScore(1, 3, dec(12)),
            match(1, 1, 2, 18, 11, "13.34"),
            match(2, 3, 2, 0, 0, "10"),
        ]
        table = cross_table(3, scores)
        assert set(table) == {(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)}
        assert table[1, 2] == (
            CrossEntry(1, 18, 11, dec("13.34")),
            CrossEntry(2, 30, 5, dec("16.90")),
        )
        assert table[2, 1] == (
            CrossEntry(1, 11, 18, dec("6.66")),
            CrossEntry(2, 5, 30, dec("3.10")),
        )
        assert table[3, 2] == (CrossEntry(2, 0, 0, dec(10)),)
        assert table[1, 3] == table[3, 1] == ()

    def test_refuses_a_team_out_of_range(self) -> None:
        with pytest.raises(EventError, match="team 4 is not one of the teams 1 to 3"):
            cross_table(3, [match(1, 4, 1, 0, 0, "10")])


# Butler


def pair(team: int, letter: str) -> Pair:
    return Pair(team, (f"{letter}{team} North", f"{letter}{team} South"))


def match_tables(board: int, home: int, away: int, scores: tuple[int, int]) -> list[TableScore]:
    """A two-table match's tables on a board: home's pair A is North-South at table 1,
    away's pair B North-South at table 2."""
    return [
        TableScore(board, pair(home, "A"), pair(away, "A"), scores[0]),
        TableScore(board, pair(away, "B"), pair(home, "B"), scores[1]),
    ]


class TestButler:
    # Six teams in three matches, 1 v 2, 3 v 4, 5 v 6. Board 1 at all six tables; board 2
    # only in matches 1 and 2 (match 3 ran out of time).
    RESULTS = (
        match_tables(1, 1, 2, (420, 450))
        + match_tables(1, 3, 4, (420, -50))
        + match_tables(1, 5, 6, (170, 620))
        + match_tables(2, 1, 2, (-100, -100))
        + match_tables(2, 3, 4, (110, 140))
    )

    def test_the_worked_example(self) -> None:
        result = butler(self.RESULTS)
        # Board 1: six tables, at least 5, so the top (620) and bottom (-50) go; the mean
        # of 170, 420, 420, 450 is 1460 / 4 = 365, rounded (a half: away from zero) 370.
        # Board 2: four tables, all count: 50 / 4 = 12.5, rounded 10.
        assert [(b.board, b.tables, b.trimmed, b.mean, b.datum) for b in result.boards] == [
            (1, 6, True, Fraction(365), 370),
            (2, 4, False, Fraction(25, 2), 10),
        ]
        assert result.datum(1) == 370
        # North-South's IMPs: imps(score - datum).
        #   420 - 370 = +50 -> +2    450 - 370 = +80 -> +2    420 - 370 = +50  -> +2
        #   -50 - 370 = -420 -> -9   170 - 370 = -200 -> -5   620 - 370 = +250 -> +6
        #  -100 - 10 = -110 -> -3   -100 - 10 = -110 -> -3
        #   110 - 10 = +100 -> +3    140 - 10 = +130 -> +4
        assert [table.imps for table in result.tables] == [2, 2, 2, -9, -5, 6, -3, -3, 3, 4]
        assert [table.east_west_imps for table in result.tables][:2] == [-2, -2]
        for table in result.tables:
            assert table.imps == imps(table.result.score - table.datum)
        # The pairs did not all play as many boards: ranked by IMPs per board.
        #   6B +6/1, 6A +5/1, 3A and 3B +5/2, 1B and 2A +1/2, 1A and 2B -1/2,
        #   4A and 4B -5/2, 5A -5/1, 5B -6/1.
        assert not result.by_total
        assert [
            (line.rank, line.pair, line.imps, line.boards, line.imps_per_board, line.tied)
            for line in result.pairs
        ] == [
            (1, pair(6, "B"), 6, 1, dec("6.00"), False),
            (2, pair(6, "A"), 5, 1, dec("5.00"), False),
            (3, pair(3, "A"), 5, 2, dec("2.50"), True),
            (3, pair(3, "B"), 5, 2, dec("2.50"), True),
            (5, pair(1, "B"), 1, 2, dec("0.50"), True),
            (5, pair(2, "A"), 1, 2, dec("0.50"), True),
            (7, pair(1, "A"), -1, 2, dec("-0.50"), True),
            (7, pair(2, "B"), -1, 2, dec("-0.50"), True),
            (9, pair(4, "A"), -5, 2, dec("-2.50"), True),
            (9, pair(4, "B"), -5, 2, dec("-2.50"), True),
            (11, pair(5, "A"), -5, 1, dec("-5.00"), False),
            (12, pair(5, "B"), -6, 1, dec("-6.00"), False),
        ]

    def test_by_total_when_every_pair_played_as_many_boards(self) -> None:
        result = butler(
            match_tables(1, 1, 2, (420, 450))
            + match_tables(2, 1, 2, (-100, 50))
            + match_tables(1, 3, 4, (420, 420))
            + match_tables(2, 3, 4, (-200, -100))
        )
        # Board 1: 420, 450, 420, 420 (four tables: none dropped), mean 427.5, datum 430:
        #   0, +1, 0, 0. Board 2: -100, 50, -200, -100, mean -87.5, datum -90: 0, +4, -3, 0.
        assert [b.datum for b in result.boards] == [430, -90]
        assert result.by_total
        assert [(line.rank, line.pair, line.imps, line.tied) for line in result.pairs] == [
            (1, pair(2, "B"), 5, False),
            (2, pair(4, "A"), 3, False),
            (3, pair(1, "A"), 0, True),
            (3, pair(2, "A"), 0, True),
            (3, pair(3, "B"), 0, True),
            (3, pair(4, "B"), 0, True),
            (7, pair(3, "A"), -3, False),
            (8, pair(1, "B"), -5, False),
        ]

    @pytest.mark.parametrize(
        ("scores", "trim_from", "datum"),
        [
            ([-100, 70], 5, -20),  # mean -15: a half, away from zero
            ([100, -70], 5, 20),  # mean 15
            ([100, 120, 130], 5, 120),  # mean 116.67
            ([420, 420, 420, 420, 100], 5, 420),  # one 420 and the 100 dropped
            ([420, 420, 420, 100], 5, 340),  # four tables: none dropped (mean 340)
            ([420, 420, 420, 100], 4, 420),  # trimming from 4 tables
            ([0, 0, 0, 0, 0, 0, 0, 1430], 5, 0),
            ([0, 0, 1430], 3, 0),
            ([-1430], 5, -1430),
        ],
    )
    def test_datum(self, scores: list[int], trim_from: int, datum: int) -> None:
        tables = [
            TableScore(1, Pair(1, (f"N{index}", "S")), Pair(2, (f"E{index}", "W")), score)
            for index, score in enumerate(scores)
        ]
        assert butler(tables, trim_from=trim_from).datum(1) == datum

    def test_nothing_played(self) -> None:
        assert butler([]) == Butler((), (), (), True)
        with pytest.raises(EventError, match="board 3 has no scores"):
            butler([]).datum(3)

    def test_a_pair_is_the_same_whoever_sat_north(self) -> None:
        assert Pair(1, ("Zoe", "Al")).players == ("Al", "Zoe")
        assert Pair(1, ("Zoe", "Al")) == Pair(1, ("Al", "Zoe"))
        assert str(Pair(1, ("Zoe", "Al"))) == "Al & Zoe (team 1)"

    def test_refuses(self) -> None:
        a, b, c = Pair(1, ("A", "B")), Pair(2, ("C", "D")), Pair(3, ("E", "F"))
        with pytest.raises(EventError, match="board 1: C & D \\(team 2\\) played it twice"):
            butler([TableScore(1, a, b, 100), TableScore(1, b, c, 100)])
        with pytest.raises(EventError, match="cannot play itself"):
            TableScore(1, a, a, 100)
        with pytest.raises(EventError, match="board numbers start at 1"):
            TableScore(0, a, b, 100)
        with pytest.raises(EventError, match="a score is a whole number"):
            TableScore(1, a, b, 100.0)  # type: ignore[arg-type]
        with pytest.raises(EventError, match="trim_from=2"):
            butler([], trim_from=2)
        with pytest.raises(EventError, match="two players' names"):
            Pair(1, ("A",))  # type: ignore[arg-type]

"""Movements (RULES.md 6.1-6.5, seed 002): seats, boards and scoring, checked against the
seed's tables and against calculations written out here independently."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge import MovementError, Seat, imps
from bridge.formats import (
    individual,
    replay,
    replay_series,
    robot_table,
    team_of_four,
    teams_match,
)
from bridge.formats.movements import Movement, Sitting

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

# Seed 002's starting tables, as it draws them (table: seat -> player).
SEED_START = {
    8: {1: {N: 8, S: 1, W: 6, E: 2}, 2: {N: 3, S: 4, W: 7, E: 5}},
    12: {
        1: {N: 12, S: 1, W: 2, E: 9},
        2: {N: 3, S: 4, W: 8, E: 6},
        3: {N: 5, S: 11, W: 10, E: 7},
    },
}


def seed_rounds(players: int) -> list[dict[int, tuple[int, Seat]]]:
    """Every round's seat of every player, by the seed's words: the anchor stays; every
    other player takes the seat the player with the next number left, and the last mover
    takes player 1's."""
    where = {p: (t, seat) for t, seats in SEED_START[players].items() for seat, p in seats.items()}
    rounds = [where]
    for _ in range(players - 2):
        before = rounds[-1]
        after = {players: before[players]}
        for k in range(1, players):
            after[k] = before[k + 1] if k < players - 1 else before[1]
        rounds.append(after)
    return rounds


def meetings(movement: Movement) -> tuple[Counter[frozenset[int]], Counter[frozenset[int]]]:
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    for sitting in movement.sittings:
        for player in sitting.players:
            partners[frozenset((player, sitting.partner(player)))] += 1
            for other in sitting.opponents(player):
                opponents[frozenset((player, other))] += 1
    # Each pair was counted from both of its players.
    return (
        Counter({k: v // 2 for k, v in partners.items()}),
        Counter({k: v // 2 for k, v in opponents.items()}),
    )


class TestIndividual:
    @pytest.mark.parametrize(("players", "boards"), [(8, 14), (8, 21), (8, 28), (12, 33)])
    def test_every_seat_of_every_round_is_the_seeds(self, players: int, boards: int) -> None:
        movement = individual(players, boards)  # type: ignore[arg-type]
        expected = seed_rounds(players)
        assert movement.rounds == tuple(range(1, players))
        for number, where in enumerate(expected, start=1):
            for player, seat in where.items():
                assert movement.seat_of(player, number) == seat, (number, player)

    def test_the_second_round_of_eight_as_worked_by_hand(self) -> None:
        # 1 to 2's seat (table 1 East), 2 to 3's (table 2 North), ..., 7 to 1's (1 South).
        movement = individual(8, 14)
        assert [s.players for s in movement.round(2)] == [(8, 1, 7, 5), (2, 4, 3, 6)]

    @pytest.mark.parametrize(("players", "boards"), [(8, 14), (12, 11)])
    def test_everyone_partners_each_once_and_opposes_each_twice(
        self, players: int, boards: int
    ) -> None:
        partners, opponents = meetings(individual(players, boards))  # type: ignore[arg-type]
        pairs = {frozenset(pair) for pair in combinations(range(1, players + 1), 2)}
        assert set(partners) == set(opponents) == pairs
        assert set(partners.values()) == {1}
        assert set(opponents.values()) == {2}

    @pytest.mark.parametrize(("players", "boards"), [(8, 21), (12, 22)])
    def test_each_round_brings_the_same_new_boards_to_every_table(
        self, players: int, boards: int
    ) -> None:
        movement = individual(players, boards)  # type: ignore[arg-type]
        per_round = boards // (players - 1)
        seen: set[int] = set()
        for number in movement.rounds:
            tables = movement.round(number)
            assert len(tables) == players // 4
            assert len({s.boards for s in tables}) == 1
            played = tables[0].boards
            assert len(played) == per_round
            assert not seen & set(played)
            seen |= set(played)
        assert seen == set(range(1, boards + 1))

    @pytest.mark.parametrize(
        ("players", "boards"), [(8, 7), (8, 15), (8, 35), (12, 12), (12, 44), (10, 14)]
    )
    def test_wrong_numbers_are_refused(self, players: int, boards: int) -> None:
        with pytest.raises(MovementError):
            individual(players, boards)  # type: ignore[arg-type]

    def test_three_tables_score_cross_imps(self) -> None:
        movement = individual(12, 11)
        plays = movement.plays(1)
        assert len(plays) == 3
        scores = dict(zip(plays, (420, 170, -50), strict=True))
        credits = movement.credits(1, scores)
        north = {play: movement.sitting(*play).player(N) for play in plays}
        east = {play: movement.sitting(*play).player(E) for play in plays}
        # Each result against each of the other two, averaged.
        assert credits[north[plays[0]]] == (imps(250) + imps(470)) / 2
        assert credits[north[plays[1]]] == (imps(-250) + imps(220)) / 2
        assert credits[east[plays[2]]] == (imps(470) + imps(220)) / 2
        assert sum(credits.values()) == 0  # what one side gains the other loses

    def test_matchpoints_give_two_a_result_beaten(self) -> None:
        movement = individual(12, 11, scoring="matchpoints")
        plays = movement.plays(1)
        credits = movement.credits(1, dict(zip(plays, (420, 420, -50), strict=True)))
        north = [movement.sitting(*play).player(N) for play in plays]
        west = [movement.sitting(*play).player(W) for play in plays]
        assert [credits[p] for p in north] == [3.0, 3.0, 0.0]  # a tie 1, a result beaten 2
        assert [credits[p] for p in west] == [1.0, 1.0, 4.0]


class TestTeamOfFour:
    @pytest.mark.parametrize("boards", [4, 12, 16])
    def test_each_board_twice_once_at_each_table_with_each_team_once_north_south(
        self, boards: int
    ) -> None:
        movement = team_of_four(boards)
        team = movement.competitors
        for board in range(1, boards + 1):
            plays = movement.plays(board)
            assert len(plays) == 2
            assert {table for _, table in plays} == {1, 2}
            holding = [team[movement.sitting(*play).player(N)] for play in plays]
            assert sorted(holding) == ["A", "B"]

    def test_the_first_half_of_a_set_at_table_1_then_exchanged(self) -> None:
        movement = team_of_four(8)
        assert movement.sitting(1, 1).boards == (1, 2)
        assert movement.sitting(1, 2).boards == (3, 4)
        assert movement.sitting(2, 1).boards == (3, 4)
        assert movement.sitting(2, 2).boards == (1, 2)
        assert movement.sitting(3, 1).boards == (5, 6)
        assert movement.sitting(4, 2).boards == (5, 6)

    def test_team_2_changes_tables_at_half_time_keeping_partners(self) -> None:
        movement = team_of_four(8)
        for player in range(1, 9):
            before = movement.seat_of(player, 2)
            after = movement.seat_of(player, 3)
            assert before is not None
            assert after is not None
            moved = before[0] != after[0]
            assert moved == (player > 4)  # team 1 stays; team 2's pairs change tables
            partner = movement.sitting(2, before[0]).partner(player)
            assert movement.sitting(3, after[0]).partner(player) == partner
        first = {frozenset(s.opponents(1)) for s in movement.round(1)[:1]}
        second = {frozenset(s.opponents(1)) for s in movement.round(3)[:1]}
        assert first != second  # now against the other pair

    @pytest.mark.parametrize("boards", [0, 2, 6, 10])
    def test_boards_not_a_multiple_of_4_are_refused(self, boards: int) -> None:
        with pytest.raises(MovementError, match="multiple of 4"):
            team_of_four(boards)

    def test_imps_per_board_to_the_team(self) -> None:
        movement = team_of_four(4)
        plays = movement.plays(1)  # round 1 table 1 (team 1 N-S), round 2 table 2
        points = movement.board_points(1, dict(zip(plays, (620, 170), strict=True)))
        assert points == {"A": imps(450), "B": -imps(450)}


class TestReplay:
    def test_stage_2_turns_every_board_one_seat(self) -> None:
        movement = replay(6, orders=((1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1)))
        one, two = movement.sitting(1, 1), movement.sitting(2, 1)
        # The player at East in stage 1 holds North's cards in stage 2, and so on round:
        # each pair now holds what the other pair held.
        for seat in Seat:
            assert two.player(seat) == one.player(seat.next)
        pairs = movement.competitors
        assert pairs[one.player(N)] == pairs[two.player(E)] == "1-3"

    def test_orders_are_random_and_cover_every_board(self) -> None:
        movement = replay(8, rng=random.Random(7))
        one, two = movement.sitting(1, 1).boards, movement.sitting(2, 1).boards
        assert sorted(one) == sorted(two) == list(range(1, 9))
        assert one != tuple(range(1, 9)) or two != tuple(range(1, 9))
        with pytest.raises(MovementError):
            replay(3, orders=((1, 2, 3), (1, 2, 2)))
        with pytest.raises(MovementError):
            replay(3)

    @pytest.mark.parametrize("boards", [2, 3, 4])
    def test_stage_2_never_repeats_stage_1s_order(self, boards: int) -> None:
        # With 2 boards half of all draws would repeat the order, with 4 one in 24.
        seen = set()
        for seed in range(300):
            movement = replay(boards, rng=random.Random(seed))
            one, two = movement.sitting(1, 1).boards, movement.sitting(2, 1).boards
            assert one != two, seed
            seen.add(two)
        # Every other order still comes up: stage 2's is drawn among all of them.
        assert len(seen) == math.factorial(boards)
        with pytest.raises(MovementError, match="another order"):
            replay(2, orders=((2, 1), (2, 1)))
        assert replay(1, rng=random.Random(1)).sitting(2, 1).boards == (1,)

    def test_board_a_match_and_total_points(self) -> None:
        # Stage 1: pair 1-3 N-S +420; stage 2: pair 2-4 N-S with those cards +170.
        bam = replay(2, orders=((1, 2), (2, 1)))
        scores = {(1, 1): 420, (2, 1): 170}
        assert bam.board_points(1, scores) == {"1-3": 1.0, "2-4": 0.0}
        assert bam.board_points(1, {(1, 1): 170, (2, 1): 170}) == {"1-3": 0.5, "2-4": 0.5}
        total = replay(2, "total_points", orders=((1, 2), (2, 1)))
        assert total.board_points(1, scores) == {"1-3": 250.0, "2-4": -250.0}
        standings = total.standings({1: scores, 2: {(1, 1): -100, (2, 1): 50}})
        assert standings == [("1-3", 100.0), ("2-4", -100.0)]


class TestReplaySeries:
    """Seed 002's continuous series: each meeting replays the boards the one before played
    new, turned one seat, and plays a new half."""

    ORDERS = (((1, 2, 3), (3, 1, 2)), ((2, 3, 1), (1, 3, 2)), ((3, 2, 1), (2, 1, 3)))

    def test_each_session_replays_the_last_ones_new_boards_then_plays_new_ones(self) -> None:
        movement = replay_series(4, 3, orders=self.ORDERS)
        # Set k: rounds 2k-1 (new, 1-3 North-South) and 2k (replayed, turned one seat).
        assert [(s.round, s.players, s.boards) for s in movement.sittings] == [
            (1, (1, 2, 3, 4), (1, 2, 3)),
            (2, (2, 3, 4, 1), (3, 1, 2)),
            (3, (1, 2, 3, 4), (5, 6, 4)),
            (4, (2, 3, 4, 1), (4, 6, 5)),
            (5, (1, 2, 3, 4), (9, 8, 7)),
            (6, (2, 3, 4, 1), (8, 7, 9)),
        ]
        # Session 1 plays set 1; sessions 2 and 3 replay a set, then play the next; the
        # last replays only.
        assert movement.session_rounds() == ((1,), (2, 3), (4, 5), (6,))
        assert movement.sessions == (1, 2, 4, 6)
        # Every board is played twice, once by each pair holding each side's cards, a
        # session apart.
        for board in movement.boards:
            (first, _), (second, _) = movement.plays(board)
            assert second == first + 1
            one, two = movement.sitting(first, 1), movement.sitting(second, 1)
            for seat in Seat:
                assert two.player(seat) == one.player(seat.next)

    def test_a_session_scores_the_boards_it_replays_and_the_series_sums_them(self) -> None:
        movement = replay_series(3, 2, "total_points", orders=(((1, 2), (2, 1)), ((1, 2), (2, 1))))
        # Set 1: boards 1-2 (rounds 1 and 2); set 2: boards 3-4 (rounds 3 and 4).
        results = {
            1: {(1, 1): 420, (2, 1): 170},  # 1-3 +250
            2: {(1, 1): -50, (2, 1): -100},  # 1-3 +50 (2-4 held N-S: -100 from N-S)
            3: {(3, 1): 100, (4, 1): 600},  # 1-3 -500
        }
        sessions = movement.session_scores(results)
        assert [(s.session, s.rounds, s.boards) for s in sessions] == [
            (1, (1,), ()),
            (2, (2, 3), (1, 2)),
            (3, (4,), (3, 4)),
        ]
        assert [s.points for s in sessions] == [
            {"1-3": 0.0, "2-4": 0.0},
            {"1-3": 300.0, "2-4": -300.0},
            {"1-3": -500.0, "2-4": 500.0},  # board 4 not yet compared
        ]
        series = movement.standings(results)
        assert series == [("2-4", 200.0), ("1-3", -200.0)]
        assert dict(series) == {
            name: sum(s.points[name] for s in sessions) for name in ("1-3", "2-4")
        }

    def test_two_sessions_are_a_replay_over_two_meetings(self) -> None:
        orders = ((1, 2, 3, 4), (4, 3, 2, 1))
        series = replay_series(2, 4, orders=(orders,))
        plain = replay(4, orders=orders)
        assert series.sittings == plain.sittings
        assert series.session_rounds() == ((1,), (2,))
        assert plain.session_rounds() == ((1, 2),)

    def test_the_orders_are_drawn_per_set_and_a_movement_keeps_its_sessions(self) -> None:
        movement = replay_series(5, 4, rng=random.Random(3))
        for first in (1, 3, 5, 7):
            one, two = movement.sitting(first, 1).boards, movement.sitting(first + 1, 1).boards
            assert sorted(one) == sorted(two)
            assert one != two
        again = Movement.from_dict(movement.to_dict())
        assert again == movement
        assert again.sessions == (1, 2, 4, 6, 8)
        renamed = movement.renumbered(range(101, 117))
        assert renamed.sessions == movement.sessions
        assert renamed.session_rounds() == movement.session_rounds()

    @pytest.mark.parametrize("sessions", [0, 1, 13])
    def test_refused(self, sessions: int) -> None:
        with pytest.raises(MovementError, match="2 to 12 sessions"):
            replay_series(sessions, 2, rng=random.Random(1))
        with pytest.raises(MovementError, match="an order pair for each"):
            replay_series(3, 2, orders=(((1, 2), (2, 1)),))
        with pytest.raises(MovementError, match="sessions begin"):
            Movement(
                "replay",
                replay(2, orders=((1, 2), (2, 1))).sittings,
                "total_points",
                {1: "1-3", 3: "1-3", 2: "2-4", 4: "2-4"},
                sessions=(2,),
            )


class TestTeamsAndRobotTable:
    def test_teams_every_board_at_both_tables_team_a_north_south_at_table_1(self) -> None:
        movement = teams_match(4)
        assert movement.plays(3) == ((1, 1), (1, 2))
        team = movement.competitors
        assert team[movement.sitting(1, 1).player(N)] == team[movement.sitting(1, 2).player(E)]
        assert team[movement.sitting(1, 1).player(N)] == "A"
        points = movement.board_points(1, {(1, 1): 420, (1, 2): 170})
        assert points == {"A": 6.0, "B": -6.0}  # RULES.md 6.1: 420 against 170 is 6 IMPs

    def test_the_robot_table_is_table_2_of_the_teams_movement(self) -> None:
        movement = robot_table(8)
        assert movement.robots == frozenset(movement.sitting(1, 2).players)
        assert movement.sittings == teams_match(8).sittings
        with pytest.raises(MovementError):
            robot_table(6)

    def test_a_board_is_compared_only_with_every_result(self) -> None:
        with pytest.raises(MovementError, match="no result yet"):
            teams_match(2).credits(1, {(1, 1): 420})
        with pytest.raises(MovementError, match="not in this movement"):
            teams_match(2).plays(3)


SCORES = st.integers(min_value=-7600, max_value=7600).map(lambda x: x - x % 10)


@given(st.lists(SCORES, min_size=3, max_size=3))
def test_imps_are_zero_sum_at_any_number_of_tables(scores: list[int]) -> None:
    movement = individual(12, 11)
    credits = movement.credits(1, dict(zip(movement.plays(1), scores, strict=True)))
    assert sum(credits.values()) == pytest.approx(0)


@given(SCORES, SCORES)
def test_board_a_match_shares_one_point(first: int, second: int) -> None:
    movement = replay(1, orders=((1,), (1,)))
    points = movement.board_points(1, {(1, 1): first, (2, 1): second})
    assert sum(points.values()) == 1.0


class TestStoring:
    @pytest.mark.parametrize(
        "movement",
        [
            teams_match(3),
            robot_table(4),
            individual(12, 22, "matchpoints"),
            team_of_four(8),
            replay(3, "total_points", orders=((3, 1, 2), (2, 3, 1))),
        ],
        ids=lambda m: m.format,
    )
    def test_a_movement_reads_back_as_it_was(self, movement: Movement) -> None:
        assert Movement.from_dict(movement.to_dict()) == movement

    def test_renumbered_boards_keep_their_places(self) -> None:
        movement = team_of_four(4).renumbered((9, 10, 11, 12))
        assert movement.boards == (9, 10, 11, 12)
        assert movement.sitting(1, 1).boards == (9,)
        assert movement.sitting(2, 2).boards == (9,)  # set 1 replayed at table 2
        with pytest.raises(MovementError):
            team_of_four(4).renumbered((1, 1, 2, 3))

    def test_tables_are_numbered_from_1_without_gaps(self) -> None:
        # The store keeps table n's log at the n-th place of the append script's keys.
        sittings = (Sitting(1, 1, (1, 2, 3, 4), (1,)), Sitting(1, 3, (5, 6, 7, 8), (1,)))
        with pytest.raises(MovementError, match="without gaps"):
            Movement("gap", sittings, "imps", {p: str(p) for p in range(1, 9)})

"""The match state over a movement: rounds, tables that wait for each other, comparisons."""

from __future__ import annotations

import json
import random
from dataclasses import fields, replace

import pytest

from bridge import Deal, board_dealer, board_vulnerability
from bridge.errors import WrongPhase
from bridge.formats import Movement, replay, team_of_four
from server.config import BoardSpec, MatchConfig, default_movement
from server.state import MatchState, StoredEvent

RESULT = {
    "contract": "4S",
    "declarer": "N",
    "tricks": 10,
    "vulnerability": "None",
    "ns_score": 420,
}


def config(movement: Movement) -> MatchConfig:
    rng = random.Random(7)
    boards = tuple(
        BoardSpec(n, board_dealer(n), board_vulnerability(n), Deal.random(rng))
        for n in movement.boards
    )
    return MatchConfig("m", "A", "B", boards, movement=movement)


def finish(state: MatchState, table: int) -> None:
    """The director assigns the table's board in play a result (it ends the board)."""
    current = state.tables[table].current
    assert current is not None
    number = current.spec.number
    event = {"type": "assign", "board": number, "contract": "3N", "declarer": "S", "tricks": 9}
    effect = state.apply(table, event)
    assert effect.committed


def start_all(state: MatchState) -> list[tuple[int, StoredEvent]]:
    starts = state.starts(0)
    for table, event in starts:
        state.apply(table, event)
    return starts


def test_a_table_waits_for_the_others_before_the_next_round() -> None:
    state = MatchState(config(team_of_four(4)))
    assert start_all(state) == [
        (1, {"type": "start", "board": 1, "round": 1, "at": 0}),
        (2, {"type": "start", "board": 2, "round": 1, "at": 0}),
    ]
    finish(state, 1)
    assert state.next_board(1) is None  # table 2 still plays round 1
    assert not state.round_done(1)
    finish(state, 2)
    assert state.round_done(1)
    # Round 2: the sets change tables.
    assert [(t, e["board"], e["round"]) for t, e in start_all(state)] == [(1, 2, 2), (2, 1, 2)]
    assert state.tables[1].round == 2


def test_a_voided_board_needs_no_play_to_end_the_round() -> None:
    state = MatchState(config(team_of_four(4)))
    start_all(state)
    finish(state, 1)
    void: StoredEvent = {
        "type": "compared",
        "board": 2,
        "plays": [
            {"round": 1, "table": 2, "result": None},
            {"round": 2, "table": 1, "result": None},
        ],
        "fix": {"kind": "void"},
    }
    effect = state.apply(0, void)
    assert effect.abandoned == (2,)  # table 2 stops playing it
    assert state.round_done(1)
    # Round 2 at table 1 would replay board 2, which is voided: table 1 waits for round 3.
    assert [(t, e["board"], e["round"]) for t, e in start_all(state)] == [(2, 1, 2)]


def test_replay_plays_each_board_twice_at_one_table() -> None:
    state = MatchState(config(replay(2, orders=((2, 1), (1, 2)))))
    order = []
    while starts := start_all(state):
        order += [(e["round"], e["board"]) for _, e in starts]
        finish(state, 1)
    assert order == [(1, 2), (1, 1), (2, 1), (2, 2)]
    assert state.tables[1].board(1, 1) is not state.tables[1].board(1, 2)


def test_a_comparison_logged_before_movements_still_folds() -> None:
    movement = default_movement("teams", config(team_of_four(4)).boards)
    state = MatchState(config(movement))
    start_all(state)
    old = {"type": "compared", "board": 1, "table1": RESULT, "table2": RESULT, "fix": None}
    state.apply(0, old)
    assert state.match.comparison(1).swing == 0
    assert set(state.compared[1]) == {(1, 1), (1, 2)}


def test_a_config_stored_before_movements_reads_as_teams() -> None:
    stored = config(team_of_four(4))
    data = stored.to_json().replace('"movement"', '"unused"')
    again = MatchConfig.from_json(data)
    assert again.movement.format == "teams"
    assert again.movement.plays(3) == ((1, 1), (1, 2))
    assert MatchConfig.from_json(stored.to_json()).movement == stored.movement


def test_robot_levels_are_stored_and_a_seat_wins_over_its_table() -> None:
    stored = replace(
        config(team_of_four(4)),
        robot_level="strong",
        robot_levels=(("1E", "strong"), ("t1", "seed")),
    )
    again = MatchConfig.from_json(stored.to_json())
    assert (again.robot_level, again.robot_levels) == (stored.robot_level, stored.robot_levels)
    levels = {key: again.robot_level_of(key) for key in ("1N", "1E", "2N", "2W")}
    assert levels == {"1N": "seed", "1E": "strong", "2N": "strong", "2W": "strong"}
    assert [again.robot_name(key) for key in ("1N", "1E")] == ["Robot", "Robot (strong)"]
    # A match stored before levels: its robots play at the seed level.
    older = json.loads(stored.to_json())
    del older["robot_level"], older["robot_levels"]
    assert MatchConfig.from_json(json.dumps(older)).robot_level_of("1E") == "seed"


def test_a_board_copy_shares_nothing_a_fold_changes() -> None:
    # A checkpoint copies the board an event touches; what the copy shares with the original
    # must be immutable, or undoing a refused or conflicting event would leave it changed.
    state = MatchState(config(team_of_four(4)))
    start_all(state)
    for event in [
        {"type": "call", "seat": "N", "call": "1S", "alert": "five or more"},
        {"type": "call", "seat": "E", "call": "P"},
        {"type": "call", "seat": "S", "call": "4S"},
        {"type": "call", "seat": "W", "call": "P"},
        {"type": "call", "seat": "N", "call": "P"},
        {"type": "call", "seat": "E", "call": "P"},
    ]:
        event["seat"] = state.tables[1].current.auction.turn.letter  # type: ignore[union-attr]
        state.apply(1, event)
    board = state.tables[1].current
    assert board is not None
    copied = board.copy()
    assert copied.auction.calls == board.auction.calls
    assert copied.play is not None
    assert board.play is not None
    assert copied.play.contract == board.play.contract
    for name in {f.name for f in fields(board)} - {"auction", "play"}:
        assert getattr(copied, name) == getattr(board, name), name
    shared = {
        f.name
        for f in fields(board)
        if getattr(copied, f.name) is getattr(board, f.name)
        and not isinstance(getattr(board, f.name), int | bool | str | tuple | type(None))
    }
    assert shared == {"spec"}  # a new mutable field must be copied in BoardState.copy


def test_the_round_clock_runs_from_the_rounds_first_call_over_its_boards() -> None:
    minute = 60_000
    state = MatchState(replace(config(team_of_four(4)), board_ms=7 * minute))
    start_all(state)
    assert state.clock(1) is None  # started, nobody has called
    turn = state.tables[1].current.auction.turn.letter  # type: ignore[union-attr]
    state.apply(1, {"type": "call", "seat": turn, "call": "P", "at": 1_000})
    clock = state.clock(1)
    assert clock is not None
    assert (clock.round, clock.boards, clock.played, clock.time_up) == (1, 1, 0, False)
    assert (clock.started_at, clock.due_at, clock.ends_at) == (1_000, 421_000, 421_000)
    assert state.clock(2) is None  # each table's round starts with its own first call
    with pytest.raises(WrongPhase):
        state.apply(1, {"type": "time_up", "round": 2, "at": 500_000})  # not this round
    state.apply(1, {"type": "time_up", "round": 1, "at": 500_000})
    assert state.clock(1).time_up  # type: ignore[union-attr]
    with pytest.raises(WrongPhase):
        state.apply(1, {"type": "time_up", "round": 1, "at": 500_001})  # said once
    finish(state, 1)
    done = state.clock(1)
    assert done is not None
    assert (done.played, done.running) == (1, False)
    # The config keeps the time per board; a match stored before clocks has none.
    assert MatchConfig.from_json(state.config.to_json()).board_ms == 7 * minute
    older = json.loads(state.config.to_json())
    del older["board_ms"]
    assert MatchConfig.from_json(json.dumps(older)).board_ms is None


def test_no_time_up_without_a_clock() -> None:
    state = MatchState(config(team_of_four(4)))
    start_all(state)
    turn = state.tables[1].current.auction.turn.letter  # type: ignore[union-attr]
    state.apply(1, {"type": "call", "seat": turn, "call": "P", "at": 1_000})
    assert state.clock(1) is None
    with pytest.raises(WrongPhase):
        state.apply(1, {"type": "time_up", "round": 1, "at": 2_000})

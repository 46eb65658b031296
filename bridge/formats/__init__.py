"""Match formats: how tables' results on the same boards become a match result."""

from bridge.formats.movements import (
    Movement,
    SessionScore,
    Sitting,
    individual,
    replay,
    replay_series,
    robot_table,
    team_of_four,
    teams_match,
)
from bridge.formats.teams import BoardComparison, TableResult, TeamsMatch

__all__ = [
    "BoardComparison",
    "Movement",
    "SessionScore",
    "Sitting",
    "TableResult",
    "TeamsMatch",
    "individual",
    "replay",
    "replay_series",
    "robot_table",
    "team_of_four",
    "teams_match",
]

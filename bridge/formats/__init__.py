"""Match formats: how tables' results on the same boards become a match result."""

from bridge.formats.teams import BoardComparison, TableResult, TeamsMatch

__all__ = ["BoardComparison", "TableResult", "TeamsMatch"]

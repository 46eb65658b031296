"""A runtime's watchers' log (server.matches.EntryLog): entries packed end to end in one
buffer read back as a list of them would be."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.matches import EntryLog, pack_entry, unpack_entry

entries = st.lists(st.binary(max_size=300), max_size=60)


@given(entries, st.integers(-70, 70), st.integers(-70, 70), st.integers(-70, 70))
def test_an_entry_log_reads_as_the_list_of_its_entries(
    made: list[bytes], index: int, start: int, stop: int
) -> None:
    log = EntryLog(made[:10])
    for entry in made[10:]:
        log.append(entry)
    assert len(log) == len(made)
    assert list(log) == made
    assert log[start:] == made[start:]
    assert log[start:stop] == made[start:stop]
    if -len(made) <= index < len(made):
        assert log[index] == made[index]
    else:
        with pytest.raises(IndexError):
            log[index]


def test_an_entry_read_back_unpacks_as_packed() -> None:
    log = EntryLog()
    events = [{"type": "call", "call": "1NT", "id": str(n)} for n in range(5)]
    for table, event in enumerate(events):
        log.append(pack_entry(table, event))  # type: ignore[arg-type]
    assert [unpack_entry(entry) for entry in log] == list(enumerate(events))
    assert isinstance(log[3], bytes)

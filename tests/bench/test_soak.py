"""A short run of the soak (bench/soak.py): robot matches against a server killed with
SIGKILL and restarted (or only its Redis), clients dropping at random; nothing lost,
doubled or leaked."""

from __future__ import annotations

import pytest

from bench.soak import report, soak


@pytest.mark.asyncio
async def test_a_short_soak_loses_doubles_and_leaks_nothing() -> None:
    # Then every match under way plays to its end, undisturbed: that they all end is what
    # is checked, not how many ended during the kills (that depends on the machine's pace:
    # a fresh-clone CI run beside other work finished none in 45 s).
    figures = await soak(
        minutes=0.75, matches=3, kill_every=4.0, boards=4, first_kill=1.5, finish_within=600
    )
    assert report(figures, 0.75), figures
    assert figures.finished == figures.matches, figures
    assert figures.restarts >= 1
    assert figures.store_kills >= 1  # the embedded Redis alone, every other time
    assert figures.reconnects > 0
    assert figures.chat > 0  # the lines that would show an action applied twice

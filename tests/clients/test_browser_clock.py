"""The round's clock in the browser (a match with ``minutes_per_board``): the player's top bar
counts the round's time down, the director's page shows each table's board, time left and
whether it is behind time, and both are told when the time is up.

To show a table behind time, the pages' wall clocks are set ahead (``page.clock``), never
waited for, so that what is shown does not hang on the machine's pace. (The page watches its
connection by a monotonic clock, which this does not move.)"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from server.app import Server
from tests.clients.test_browser import (
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    press,
    screenshots,
    wait_for_my_turn_or_the_end,
)
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

ROBOTS = ["t2", "1E", "1S", "1W"]


def deals(boards: int) -> str:
    return "\n".join(
        one_board(STRONG_NORTH).replace('[Board "1"]', f'[Board "{n}"]')
        for n in range(1, boards + 1)
    )


async def first_call(page: Page) -> None:
    """North's first call of the round (it starts the round's clock)."""
    assert await wait_for_my_turn_or_the_end(page) == "auction"
    await press(page, '#bidding-box button[data-call="1NT"]')


async def test_the_round_clock_counts_down_and_the_director_sees_a_slow_table(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server, boards=4, robots=ROBOTS, deals_pbn=deals(4), minutes_per_board=30
    )
    page = await open_page(browser, link_of(created, 1, "N"), 375, 667)
    director = await open_page(browser, created.director, 1280, 900)
    try:
        clock = page.locator("#round-clock")
        await expect(page.locator("#calls")).to_be_visible()
        await expect(clock).to_be_hidden()  # nobody has called yet: the round has not begun
        await first_call(page)
        # Four boards of 30 minutes: two hours from North's call.
        await expect(clock).to_have_text(re.compile(r"^The round: (2:00:00|1:59:\d\d) left$"))
        table = director.locator("#table-1 .table-clock")
        await expect(table).to_contain_text("Board 1 of 4 in the round")
        await expect(table.locator(".slow-badge")).to_have_text("")
        await screenshots(page, "round-clock")

        # 31 minutes on: board 1 is past its half hour, and the round has 89 minutes left.
        later = datetime.now() + timedelta(minutes=31)
        for each in (page, director):
            await each.clock.set_fixed_time(later)
        await expect(clock).to_have_text(re.compile(r"^The round: 1:2[89]:\d\d left$"))
        await expect(table.locator(".slow-badge")).to_have_text("behind time")
        await expect(table).to_contain_text(re.compile(r"1:2[89]:\d\d left"))
        await screenshots(director, "round-clock-slow")
        assert_no_script_errors(page)
        assert_no_script_errors(director)
    finally:
        await end_match(created)


async def test_the_end_of_the_rounds_time_is_told_and_nothing_is_played(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server, boards=1, robots=ROBOTS, deals_pbn=deals(1), minutes_per_board=0.02
    )
    page = await open_page(browser, link_of(created, 1, "N"), 375, 667)
    director = await open_page(browser, created.director, 1280, 900)
    try:
        await first_call(page)  # the round's time, 1.2 s, begins
        clock = page.locator("#round-clock")
        await expect(clock).to_have_text("Time is up", timeout=30_000)
        await expect(page.locator("#messages")).to_contain_text("The round's time is up")
        table = director.locator("#table-1 .table-clock")
        await expect(table).to_have_text("Time is up: 1 of 1 board still to play.")
        await expect(director.locator("#messages")).to_contain_text(
            "Table 1: the round's time is up"
        )
        # Nothing was played for North: the board waits for North's next call or card.
        assert await wait_for_my_turn_or_the_end(page) in ("auction", "play")
        await screenshots(page, "round-clock-time-up")
        await screenshots(director, "round-clock-time-up-director")
        assert_no_script_errors(page)
        assert_no_script_errors(director)
    finally:
        await end_match(created)


async def test_a_match_without_a_clock_shows_none(server: Server, browser: Browser) -> None:
    created = await create(server, boards=1, robots=ROBOTS, deals_pbn=one_board(STRONG_NORTH))
    page = await open_page(browser, link_of(created, 1, "N"), 375, 667)
    director = await open_page(browser, created.director, 1280, 900)
    try:
        await first_call(page)
        await expect(director.locator("#table-1")).to_contain_text("1NT")
        await expect(page.locator("#round-clock")).to_be_hidden()
        await expect(director.locator(".table-clock")).to_have_count(0)
        assert_no_script_errors(page)
        assert_no_script_errors(director)
    finally:
        await end_match(created)

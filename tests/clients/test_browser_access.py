"""Blind players (#24, item 8): every page passes axe-core with no serious or critical
violation, at a phone's size and a desktop's; a whole board is bid and played from the
keyboard alone; what happens is spoken through a live region, cards and calls by name.

axe-core is the copy that ``axe-playwright-python`` ships, run in the tests' Chromium."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import pytest_asyncio
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, expect

from server.app import Server
from tests.clients.test_browser import (
    SIZES,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    enabled,
    end_match,
    link_of,
    north_link,
    open_page,
    settled,
    wait_for_my_turn_or_the_end,
)
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

ROBOTS = ["t2", "1E", "1S", "1W"]
SERIOUS = ("serious", "critical")
SCREENS = {
    "small phone": (360, 640),
    "phone": (375, 667),
    "tall phone": (390, 844),
    "large phone": (412, 915),
    "phone on its side": (740, 360),
    "tablet": (768, 1024),
    "desktop": (1366, 768),
}
"""The screens the table is made for (#24, item 1), from the smallest phone up."""


async def violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (every rule axe-core runs)."""
    results = await Axe().run(page)
    found: list[dict[str, Any]] = results.response["violations"]
    return found


def summary(found: list[dict[str, Any]]) -> str:
    return json.dumps(
        [
            {
                "id": v["id"],
                "impact": v["impact"],
                "nodes": [n["target"] for n in v["nodes"][:5]],
                "help": v["help"],
            }
            for v in found
        ],
        indent=1,
    )


async def assert_accessible(page: Page, name: str) -> None:
    """No serious or critical violation at each of the SCREENS."""
    for size, (width, height) in SCREENS.items():
        await page.set_viewport_size({"width": width, "height": height})
        found = [v for v in await violations(page) if v["impact"] in SERIOUS]
        assert not found, f"{name} at {size}: {summary(found)}"


async def test_every_page_passes_axe_core(server: Server, browser: Browser) -> None:
    created = await create(
        server,
        boards=1,
        robots=ROBOTS,
        deals_pbn=one_board(STRONG_NORTH),
        names={"1N": "Nora"},
    )
    page = await open_page(browser, link_of(created, 1, "N"), *SIZES["phone"])
    director = await open_page(browser, created.director, *SIZES["desktop"])
    spectator = await open_page(browser, created.spectator or "", *SIZES["desktop"])
    try:
        assert await wait_for_my_turn_or_the_end(page) == "auction"
        await assert_accessible(page, "/play in the auction")
        await assert_accessible(director, "/direct")
        await assert_accessible(spectator, "/watch")
        for each in (page, director, spectator):
            assert_no_script_errors(each)
    finally:
        await end_match(created)


async def key_in_turn(page: Page, key: str, focused: str) -> None:
    """Press ``key`` once North may act, expecting the focus on ``focused`` (a selector)."""
    await settled(page)
    await page.keyboard.press(key)
    await expect(page.locator(focused)).to_be_focused()


async def test_a_whole_board_from_the_keyboard_alone_spoken_as_it_goes(
    server: Server, browser: Browser
) -> None:
    """East's robot opens 1NT; North bids 3NT and plays it (dummy's cards too) with keys
    only: a level key or p in the auction, a suit key in the play, Tab along the row,
    Enter to make the call or play the card. The live region says each call and card."""
    page = await open_page(browser, await north_link(server), *SIZES["desktop"])
    spoken = page.locator("#spoken")
    assert await wait_for_my_turn_or_the_end(page) == "auction"
    await expect(page.locator("#turn")).to_contain_text("Your turn")
    await key_in_turn(page, "3", 'button[data-call="3C"]')
    for _ in range(4):
        await page.keyboard.press("Tab")
    await expect(page.locator('button[data-call="3NT"]')).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(spoken).to_contain_text("You bid 3 notrump.")
    await expect(spoken).to_contain_text("South passes.")  # the calls after the page opened
    await expect(page.locator(".contract")).to_contain_text("by N", timeout=WAIT_MS)
    # The play: East's robot leads; North plays dummy's cards and North's own.
    await expect(spoken).to_contain_text(re.compile(r"East plays the \w+ of \w+\."))
    played = 0
    while await wait_for_my_turn_or_the_end(page) == "play":
        legal = await enabled(page, "card")
        first = legal[0]
        await key_in_turn(page, first[0].lower(), f'button[data-card="{first}"]')
        await page.keyboard.press("Enter")
        await page.wait_for_function(
            """card => document.body.dataset.phase === "finished"
                || !document.querySelector(`button[data-card="${card}"]`)""",
            arg=first,
            timeout=WAIT_MS,
        )
        played += 1
        if played == 6:  # the second trick under way: dummy, the trick, the play controls
            await assert_accessible(page, "/play in the play")
    assert played == 26  # every card of North's and dummy's, by keys alone
    await expect(spoken).to_contain_text(re.compile(r"(You|East|South|West) wins? the trick\."))
    await expect(page.locator("#comparison")).to_contain_text("Board 1", timeout=WAIT_MS)
    await expect(page.locator("#final")).to_contain_text("Final result")
    await assert_accessible(page, "/play at the end: the comparison and the score sheet")
    assert_no_script_errors(page)

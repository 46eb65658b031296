"""The browser table's layout, measured: on a phone (375x667) nothing overlaps and what a
player needs now is on the screen without scrolling; on a tablet (768x1024) and a laptop
(1366x768) the table has no large empty band.

Each test reads the bounding boxes of the page's parts in Chromium and compares them.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from protocol.messages import PlayerView
from server.app import Server
from tests.clients.test_browser import (
    DEAL,
    ROBOTS_PLAY_MS,
    SIZES,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    press,
)
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

PHONE = SIZES["phone"]
Box = tuple[float, float, float, float]  # left, top, right, bottom

BOXES = """selector => [...document.querySelectorAll(selector)]
    .filter(e => e.getClientRects().length > 0)
    .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"""


async def boxes(page: Page, selector: str) -> list[Box]:
    found = await page.evaluate(BOXES, selector)
    assert found, f"nothing visible matches {selector}"
    return [(a, b, c, d) for a, b, c, d in found]


def overlap(one: Box, other: Box) -> bool:
    """Whether two boxes share more than a pixel's edge."""
    return (
        min(one[2], other[2]) - max(one[0], other[0]) > 1
        and min(one[3], other[3]) - max(one[1], other[1]) > 1
    )


async def assert_apart(page: Page, selectors: list[str]) -> None:
    """No box of one selector overlaps a box of another (each part of the table keeps to
    itself: seat by seat, the trick, the hand, the panels)."""
    # One snapshot of every part (a live table may be drawn again between two reads).
    found = await page.evaluate(f"selectors => selectors.map({BOXES})", selectors)
    measured = {
        selector: [tuple(box) for box in boxes]
        for selector, boxes in zip(selectors, found, strict=True)
    }
    for selector, parts in measured.items():
        assert parts, f"nothing visible matches {selector}"
    for index, selector in enumerate(selectors):
        for other in selectors[index + 1 :]:
            for one in measured[selector]:
                for two in measured[other]:
                    assert not overlap(one, two), f"{selector} {one} overlaps {other} {two}"


async def assert_on_screen(page: Page, selectors: list[str]) -> None:
    """Every box of each selector lies inside the viewport as it is (no scrolling needed)."""
    width, height = await page.evaluate("[innerWidth, innerHeight]")
    for selector in selectors:
        for left, top, right, bottom in await boxes(page, selector):
            assert left >= 0, (selector, left)
            assert right <= width, (selector, right)
            assert top >= 0, (selector, top)
            assert bottom <= height, f"{selector} ends at {bottom}, below the screen ({height})"
    assert await page.evaluate("document.scrollingElement.scrollWidth") <= width


SEATS = [f'#compass .seat-box[data-seat="{seat}"]' for seat in "NESW"]


async def my_turn(page: Page, phase: str) -> None:
    await page.wait_for_function(
        """phase => document.body.dataset.phase === phase
            && document.querySelector("#turn.mine") !== null
            && document.body.dataset.guard !== "on" """,
        arg=phase,
        timeout=WAIT_MS,
    )


async def test_the_phone_shows_the_bidding_box_first_screen(
    server: Server, browser: Browser
) -> None:
    # North deals and opens: every level is open, the first screen shows 1 to 3.
    created = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1S", "1W"],
        deals_pbn=one_board(STRONG_NORTH),
        names={"1N": "Nora"},
    )
    page = await open_page(browser, link_of(created, 1, "N"), *PHONE)
    await my_turn(page, "auction")
    first_screen = [
        "#turn",
        "#compass .board-info",
        "#auction",
        "#hand button[data-card]",
        "#call-specials button",
        "#alert-text",
        "#confirm-bid",
        '[data-level="1"] button',
        '[data-level="2"] button',
        '[data-level="3"] button',
    ]
    await assert_on_screen(page, first_screen)
    await assert_apart(page, [*SEATS, "#compass .centre", "#hand", "#bidding-box"])

    # Over East's 1NT (DEAL), North's first screen is 2 to 4, with the auction so far.
    other = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1S", "1W"],
        deals_pbn=one_board(DEAL, dealer="E", vulnerable="NS"),
        names={"1N": "Nora"},
    )
    over = await open_page(browser, link_of(other, 1, "N"), *PHONE)
    await my_turn(over, "auction")
    await expect(over.locator('[data-level="1"]')).to_be_hidden()
    await assert_on_screen(
        over,
        [
            "#auction",
            "#call-specials button",
            "#alert-text",
            '[data-level="2"] button',
            '[data-level="3"] button',
            '[data-level="4"] button',
        ],
    )
    await assert_apart(over, [*SEATS, "#compass .centre", "#hand", "#bidding-box"])
    await end_match(created)
    await end_match(other)
    assert_no_script_errors(page)
    assert_no_script_errors(over)


async def test_the_phone_keeps_the_claim_and_undo_buttons_in_view(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1S", "1W"],
        deals_pbn=one_board(STRONG_NORTH),
        names={"1N": "Nora"},
    )
    page = await open_page(browser, link_of(created, 1, "N"), *PHONE)
    await press(page, 'button[data-call="7NT"]')
    await my_turn(page, "play")  # East led: North plays from dummy, at the top
    parts = [*SEATS, "#trick", "#hand", "#table-controls"]
    await assert_apart(page, parts)
    await assert_on_screen(page, ["#turn", "#trick", "#claim", "#undo", "#call-director"])
    await assert_on_screen(page, ['.seat-box[data-seat="S"] button[data-card]'])
    await press(page, '.seat-box[data-seat="S"] button[data-card]:enabled')
    await my_turn(page, "play")  # West followed: North's own card, which wins the trick
    await assert_apart(page, parts)
    await assert_on_screen(page, ["#hand button[data-card]", "#claim", "#undo"])
    await press(page, "#hand button[data-card]:enabled")
    await expect(page.locator("#undo")).to_be_enabled()  # North's card is the table's last
    await assert_on_screen(page, ["#claim", "#undo"])
    await end_match(created)
    assert_no_script_errors(page)


TURNED = "E:AKQ2.K32.AQ4.Q32 J43.AQ4.KJ3.AJ54 T98.JT9.T98.T987 765.8765.7652.K6"
"""DEAL turned a seat: East (dealer) opens 2NT and declares it; dummy is West, at North's
right; South (the Python client) leads and concedes, and North must answer."""


async def test_the_phone_defender_decides_a_claim_beside_dummy(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1W"],
        deals_pbn=one_board(TURNED, dealer="E", vulnerable="All"),
        names={"1N": "Nora", "1S": "Sue"},
    )
    south = await Client.connect(link_of(created, 1, "S"), name="test South")

    def south_acts(view: PlayerView) -> PlayerView | None:
        board = view.board
        if board is None or board.acting != "S" or not board.legal:
            return None
        return view

    async def play_south() -> None:
        while True:
            board = (await south.wait_for(south_acts)).board
            assert board is not None
            if board.phase == "play":
                break
            await south.call("P")
        await south.play(board.legal[0])
        await south.claim(0, "Take them all")

    south_task = asyncio.create_task(play_south())
    page = await open_page(browser, link_of(created, 1, "N"), *PHONE)
    try:
        await my_turn(page, "auction")
        while await page.evaluate("document.body.dataset.phase") == "auction":
            await my_turn(page, "auction")
            await press(page, 'button[data-call="P"]')
            await page.wait_for_function(
                "document.body.dataset.phase !== 'auction' || !document.querySelector('#turn.mine')",
                timeout=WAIT_MS,
            )
        accept = page.locator("#claim-accept")
        await expect(accept).to_be_visible(timeout=WAIT_MS)
        await south_task
        # Dummy (West, at the right) and the claimer's hand (South, at the top) are shown
        # beside the trick; none overlaps another, and the answer is in view.
        await expect(page.locator('#compass .seat-box[data-seat="W"] .hand-rows')).to_be_visible()
        await assert_apart(page, [*SEATS, "#trick", "#hand", "#claim-panel"])
        await assert_on_screen(page, ["#claim-panel", "#claim-accept", "#claim-reject", "#turn"])
        await accept.click()
        await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)
    finally:
        south_task.cancel()
        await south.close()
        await end_match(created)
    assert_no_script_errors(page)


async def test_the_phone_spectator_sees_four_hands_apart(server: Server, browser: Browser) -> None:
    created = await create(
        server,
        boards=1,
        robots=["t1", "t2"],
        deals_pbn=one_board(DEAL, dealer="E", vulnerable="NS"),
        spectators="live",
    )
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, *PHONE)
    table = '.watch-table[data-table="1"]'
    await expect(page.locator(f"{table} .hand-rows")).to_have_count(4, timeout=WAIT_MS)
    await expect(page.locator("#final")).to_be_visible(timeout=ROBOTS_PLAY_MS)  # table still
    seats = [f'{table} .seat-box[data-seat="{seat}"]' for seat in "NESW"]
    await assert_apart(page, [*seats, f"{table} .centre"])
    assert await page.evaluate("document.scrollingElement.scrollWidth") <= PHONE[0]
    assert_no_script_errors(page)


LARGEST_GAP = """() => {
    // The vertical extents of what the main column shows, merged: the largest gap between
    // them, from the top of the table to the bottom of the player's actions.
    const parts = [...document.querySelectorAll(
        "#compass .seat-tag, #compass .hand-rows, #compass .trick, #compass .board-info,"
        + " #compass .contract-info, #compass .auction, #compass .centre-note, #hand .card,"
        + " #actions > :not([hidden])")]
        .filter(e => e.getClientRects().length > 0)
        .map(e => e.getBoundingClientRect())
        .filter(r => r.bottom > 0 && r.top < innerHeight)
        .map(r => [r.top, r.bottom])
        .sort((a, b) => a[0] - b[0]);
    let reached = parts[0][0];
    let gap = 0;
    for (const [top, bottom] of parts) {
        gap = Math.max(gap, top - reached);
        reached = Math.max(reached, bottom);
    }
    return gap;
}"""


@pytest.mark.parametrize("size", ["tablet", "desktop"])
async def test_the_table_has_no_large_empty_band(
    server: Server, browser: Browser, size: str
) -> None:
    # Board 1 is conceded at once and compared: the side column then holds both tables'
    # play, a long panel beside the table on a laptop, which must not pull the table apart.
    two = one_board(STRONG_NORTH)
    two += "\n" + two.replace('[Board "1"]', '[Board "2"]')
    created = await create(
        server, boards=2, robots=["t2", "1E", "1S", "1W"], deals_pbn=two, names={"1N": "Nora"}
    )
    page = await open_page(browser, link_of(created, 1, "N"), *SIZES[size])
    await press(page, 'button[data-call="7NT"]')
    await my_turn(page, "play")
    await page.click("#claim")
    await page.click('button[data-claim="13"]')
    await page.click("#claim-send")
    await expect(page.locator("#comparison .record-table")).to_have_count(2, timeout=WAIT_MS)
    await my_turn(page, "auction")  # board 2
    gap = await page.evaluate(LARGEST_GAP)
    assert gap < 48, f"an empty band of {gap} px in the table's column"
    await assert_apart(page, [*SEATS, "#compass .centre", "#hand", "#bidding-box"])
    await press(page, 'button[data-call="7NT"]')
    await my_turn(page, "play")
    gap = await page.evaluate(LARGEST_GAP)
    assert gap < 48, f"an empty band of {gap} px in the table's column"
    await assert_apart(page, [*SEATS, "#trick", "#hand", "#table-controls"])
    await end_match(created)
    assert_no_script_errors(page)

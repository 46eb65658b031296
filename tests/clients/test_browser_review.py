"""After each board and at the end of the match, in the browser: the finished board on review
(all four hands, the result, a trick-by-trick replay, "Next board" with its countdown and
who is ready), a concession withdrawn, both tables side by side once compared, and at the
end the score sheet, every board's replay and the match record as a PBN download.

North plays in Chromium; robots play the other seats (they ask for the next board at once).
"""

from __future__ import annotations

import asyncio
import re

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from server.app import Server
from tests.clients.test_browser import (
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    link_of,
    open_page,
    press,
    screenshots,
)
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

TWO = "\n".join(one_board(STRONG_NORTH).replace('[Board "1"]', f'[Board "{n}"]') for n in (1, 2))
"""Two boards, dealer North, who holds every ace, king and queen."""
ROBOTS = ["t2", "1E", "1S", "1W"]


async def trick(page: Page) -> None:
    """North's side plays a trick: a card from dummy (South) and one from North's hand, in
    whichever order the play asks for them, until the trick is complete."""
    mine = "#hand button[data-card]:enabled, .seat-box[data-seat='S'] button[data-card]:enabled"
    for _ in range(2):
        await press(page, mine)
    await expect(page.locator("#last-trick")).to_be_enabled(timeout=WAIT_MS)


async def claim(page: Page, tricks: int, statement: str | None = None) -> None:
    await expect(page.locator("#claim")).to_be_enabled(timeout=WAIT_MS)
    await page.click("#claim")
    await page.click(f'button[data-claim="{tricks}"]')
    if statement is not None:
        await page.fill("#claim-statement", statement)
    await page.click("#claim-send")


async def test_a_finished_board_is_reviewed_then_the_next_one_starts(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=2,
        robots=ROBOTS,
        deals_pbn=TWO,
        review_seconds=60,
        names={"1N": "Nora"},
        team_a="Sharks",
        team_b="Minnows",
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    await press(page, 'button[data-call="7NT"]')
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)
    await trick(page)  # East led; dummy and North follow: North wins
    await press(page, "#hand button[data-card]:enabled")  # North leads; East and West follow
    await press(page, ".seat-box[data-seat='S'] button[data-card]:enabled")

    # North concedes a trick he need not: the board is over, and on review he may take the
    # concession back. The play resumes where it stopped.
    await claim(page, 10, "Top tricks, but I give up a diamond")
    controls = page.locator("#review-controls")
    await expect(controls).to_be_visible(timeout=WAIT_MS)
    await expect(controls).to_contain_text("You claimed 10 of the last 11")
    await page.click("#withdraw-concession")
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)
    await claim(page, 11)
    await expect(controls).to_be_visible(timeout=WAIT_MS)
    await expect(page.locator("#withdraw-concession")).to_have_count(0)

    # The review: all four hands, the result, who is ready (the robots), the countdown.
    await expect(controls.locator(".review-result")).to_contain_text("7NT N =")
    await expect(controls.locator('[data-ready="yes"]')).to_have_count(3)
    await expect(controls.locator('[data-ready="no"]')).to_contain_text("You")
    await expect(controls.locator("[data-countdown]")).to_contain_text(" s")
    replay = page.locator("#compass .replay")
    await expect(replay.locator(".hand-rows")).to_have_count(4)
    await expect(replay.locator(".hand-rows [data-card]")).to_have_count(52)
    # Trick by trick: the cards played so far leave the hands.
    steps = replay.locator(".replay-where")
    await expect(steps).to_have_text("0 / 2")
    await replay.locator('[data-move="next"]').click()
    await expect(replay.locator("[data-trick-card]")).to_have_count(4)
    await expect(replay.locator(".hand-rows [data-card]")).to_have_count(48)
    await expect(replay.locator(".centre-note")).to_contain_text("Trick 1: East led, North won")
    await replay.locator('[data-move="next"]').click()
    await expect(replay.locator(".hand-rows [data-card]")).to_have_count(44)
    await expect(replay.locator('[data-move="next"]')).to_be_disabled()
    await replay.locator('[data-move="previous"]').click()
    await expect(steps).to_have_text("1 / 2")
    await screenshots(page, "review")

    # North is ready too: the next board starts at once, long before the review time is up.
    await page.click("#next-board")
    await expect(page.locator("#compass .board-number")).to_have_text("Board 2", timeout=WAIT_MS)
    await expect(page.locator("body")).to_have_attribute("data-phase", "auction")
    await expect(controls).to_be_hidden()

    # Board 1 is compared: both tables' auctions and plays side by side, the swing, double
    # dummy and par.
    record = page.locator('#comparison .record[data-record-board="1"]')
    await expect(record.locator(".record-table")).to_have_count(2, timeout=WAIT_MS)
    for table in (1, 2):
        played = record.locator(f'.record-table[data-table="{table}"]')
        await expect(played.locator(".auction-grid td[data-called]").first).to_be_visible()
        await expect(played.locator(".play-table tbody tr").first).to_be_visible()
    await expect(record.locator(".swing")).to_contain_text("IMP")
    await expect(record.locator(".double-dummy")).to_be_visible()
    await expect(record.locator(".par")).to_contain_text("N-S")
    await screenshots(page, "both-tables", show="#comparison")

    # Board 2: passed out, and North is done: the match is over.
    await press(page, 'button[data-call="P"]')
    await expect(controls).to_be_visible(timeout=WAIT_MS)
    await page.click("#next-board")
    await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)
    assert_no_script_errors(page)


async def test_the_review_time_runs_out_and_the_match_ends(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=2,
        robots=ROBOTS,
        deals_pbn=TWO,
        review_seconds=2,
        names={"1N": "Nora"},
        team_a="Sharks",
        team_b="Minnows",
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    controls = page.locator("#review-controls")
    # North passes: the board is passed out and on review; North never asks for the next
    # one, yet it starts when the time is up.
    await press(page, 'button[data-call="P"]')
    await expect(controls.locator("[data-countdown]")).to_be_visible(timeout=WAIT_MS)
    loop = asyncio.get_running_loop()
    reviewed = loop.time()
    await expect(page.locator("#compass .board-number")).to_have_text("Board 2", timeout=WAIT_MS)
    assert loop.time() - reviewed > 0.5, "the next board did not wait for the review time"
    await press(page, 'button[data-call="P"]')
    await expect(controls).to_be_visible(timeout=WAIT_MS)

    # The end: the final result, the score sheet with both tables' results.
    final = page.locator("#final")
    await expect(final).to_contain_text("Final result", timeout=WAIT_MS)
    sheet = page.locator("#boards .boards-table")
    await expect(sheet.locator("caption")).to_have_text("Score sheet")
    await expect(sheet.locator("tbody tr")).to_have_count(2)
    for board in (1, 2):
        row = sheet.locator(f'tr[data-board="{board}"]')
        await expect(row.locator('[data-table-result="1"]')).to_contain_text("Passed out")
        await expect(row.locator('[data-table-result="2"]')).to_contain_text(" N ")
    await expect(sheet.locator("[data-final]")).to_contain_text("Sharks")
    await screenshots(page, "score-sheet", show="#match")

    # The match record, as a PBN file.
    async with page.expect_download() as downloading:
        await page.click("#download-record")
    download = await downloading.value
    assert download.suggested_filename.endswith(".pbn")
    path = await download.path()
    pbn = path.read_text(encoding="utf-8")
    assert '[Board "1"]' in pbn
    assert '[Board "2"]' in pbn

    # Every board replays from both tables: board 2 as table 2 played it, trick by trick.
    await sheet.locator('button[data-get-board="2"]').click()
    record = page.locator('#comparison .record[data-record-board="2"]')
    await expect(record.locator(".record-table")).to_have_count(2, timeout=WAIT_MS)
    await record.get_by_role("button", name="Replay table 2").click()
    replay = record.locator(".replay")
    await expect(replay).to_have_attribute("data-replay-key", "record:2:2")
    await replay.locator('[data-move="last"]').click()
    await expect(replay.locator(".replay-where")).to_have_text(re.compile(r"^(\d+) / \1$"))
    await expect(replay.locator("[data-trick-card]")).not_to_have_count(0)
    await expect(replay.locator(".hand-rows [data-card]")).not_to_have_count(52)
    await screenshots(page, "board-replay", show="#comparison .replay")
    assert_no_script_errors(page)

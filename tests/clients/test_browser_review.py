"""After each board and at the end of the match, in the browser: the finished board on review
(all four hands, the result, a trick-by-trick replay, "Next board" with its countdown and
who is ready), a concession withdrawn with the director's leave, both tables side by side once compared, and at the
end the score sheet, every board's replay and the match record as a PBN download.

North plays in Chromium; robots play the other seats (they ask for the next board at once).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from bridge import Seat
from bridge.commitment import seeded_deal, verify_record
from bridge.lin import parse_handviewer_url, parse_lin_match
from clients.client import Client, Link
from server.app import Server
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    link_of,
    open_page,
    press,
    screenshots,
)
from tests.conftest import ORGANISER_KEY
from tests.server.harness import STRONG_NORTH, analysed, create, one_board
from tests.server.test_import import USBF, import_record

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
    # The double-dummy analysis is worked out in the background, as long as the machine
    # takes: the comparison below shows it only if it is logged by then.
    await analysed(server, created.match_id)
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    await press(page, 'button[data-call="7NT"]')
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)
    await trick(page)  # East led; dummy and North follow: North wins
    await press(page, "#hand button[data-card]:enabled")  # North leads; East and West follow
    await press(page, ".seat-box[data-seat='S'] button[data-card]:enabled")

    # North concedes a trick he need not: the board is over, and on review he may ask to
    # take the concession back. That is for the director (laws 69 and 71): the page asks
    # first, then calls the director, and the board is held until they decide.
    await claim(page, 10, "Top tricks, but I give up a diamond")
    controls = page.locator("#review-controls")
    await expect(controls).to_be_visible(timeout=WAIT_MS)
    await expect(controls).to_contain_text("You claimed 10 of the last 11")
    # (the robots are ready at once: the box is drawn again for each, then stands still)
    await expect(controls.locator('[data-ready="yes"]')).to_have_count(3)
    await page.click("#withdraw-concession")
    confirm = controls.locator(".withdraw-confirm")
    await expect(confirm).to_contain_text("needs the director")
    await screenshots(page, "withdraw-confirm", "#review-controls")
    await page.click("#withdraw-cancel")  # not yet: nothing was sent
    await expect(confirm).to_have_count(0)
    await expect(page.locator("body")).to_have_attribute("data-phase", "finished")
    await page.click("#withdraw-concession")
    await page.click("#withdraw-confirm")
    await expect(controls.locator(".withdrawal-note")).to_contain_text("You asked the director")
    await expect(controls.locator(".countdown")).to_have_text("(held for the director)")
    await expect(page.locator("#next-board")).to_be_disabled()
    await expect(page.locator("#withdraw-concession")).to_have_count(0)
    await expect(page.locator("body")).to_have_attribute("data-phase", "finished")
    # The director's page shows the request, and the director allows it: the play resumes
    # where it stopped.
    director = await open_page(browser, created.director, 1280, 900)
    panel = director.locator(".withdrawal-panel")
    await expect(panel).to_contain_text("North asks to withdraw the concession")
    await expect(director.locator("#director-queue")).to_contain_text("withdraw the concession")
    await screenshots(director, "director-withdrawal", ".withdrawal-panel")
    await director.click('[data-director="withdrawal-allow"]')
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)
    await expect(panel).to_have_count(0)
    assert_no_script_errors(director)
    await director.close()
    await claim(page, 11)
    await expect(controls).to_be_visible(timeout=WAIT_MS)
    await expect(page.locator("#withdraw-concession")).to_have_count(0)

    # The review: all four hands, the result, who is ready (the robots), the countdown.
    await expect(controls.locator(".review-result")).to_contain_text("7NT N =")
    # The score sheet says what the board waits for: this table's review, not the other's.
    await expect(page.locator('#boards tr[data-board="1"]')).to_contain_text(
        "on review at your table"
    )
    # The board in BBO's hand viewer: its link holds the deal, the auction and the claim.
    link = controls.locator("a.handviewer")
    href = await link.get_attribute("href")
    assert href is not None
    assert href.startswith("https://www.bridgebase.com/tools/handviewer.html?lin=")
    assert await link.get_attribute("target") == "_blank"
    linked = parse_handviewer_url(href)
    assert (str(linked.contract), linked.declarer, linked.result) == ("7NT", Seat.NORTH, 13)
    assert linked.north == "Nora"
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
    await expect(record.locator("a.handviewer")).to_have_count(2)
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
    # The deals: the ones committed to before the first card, checked here.
    check = final.locator("[data-deals]")
    await expect(check).to_have_attribute("data-deals", "verified", timeout=WAIT_MS)
    await expect(check).to_contain_text(f"SHA-256 {created.deals_commitment}")
    assert verify_record(pbn, created.deals_commitment).games == 4
    # And as LIN, for BBO.
    async with page.expect_download() as downloading:
        await page.click("#download-lin")
    download = await downloading.value
    assert download.suggested_filename.endswith(".lin")
    lin = (await download.path()).read_text(encoding="utf-8")
    assert parse_lin_match(lin).teams == ("Sharks", "Minnows")

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


async def test_an_imported_match_is_watched_and_replayed(server: Server, browser: Browser) -> None:
    """A real match played elsewhere (the 2010 USBF semi-final segment, from its LIN file),
    imported: the spectator's page shows it finished, with the published score, its deals
    verified, and every board replayed from both rooms and opened in BBO's hand viewer."""
    created = await import_record(server, USBF, format="lin")
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, 1280, 900)
    final = page.locator("#final")
    await expect(final).to_contain_text("Nickell 30 – 41 Fleisher", timeout=WAIT_MS)
    await expect(final.locator("[data-deals]")).to_have_attribute(
        "data-deals", "verified", timeout=WAIT_MS
    )
    await expect(page.locator("#deals [data-commitment]")).to_have_attribute(
        "data-commitment", created.deals_commitment
    )
    sheet = page.locator("#boards .boards-table")
    await expect(sheet.locator("tbody tr")).to_have_count(15)
    await expect(sheet.locator('tr[data-board="53"] .swing')).to_have_text("15 Nickell")
    await sheet.locator('button[data-get-board="53"]').click()
    record = page.locator('#comparison .record[data-record-board="53"]')
    await expect(record.locator(".record-table")).to_have_count(2, timeout=WAIT_MS)
    await expect(record.locator(".replay")).to_contain_text("Meckstroth")  # table 1's South
    links = record.locator("a.handviewer")
    await expect(links).to_have_count(2)
    closed = parse_handviewer_url(await links.nth(1).get_attribute("href") or "")
    assert (str(closed.contract), closed.declarer) == ("3NT", Seat.SOUTH)
    replay = record.locator(".replay")
    await replay.locator('[data-move="last"]').click()
    await expect(replay.locator(".replay-where")).to_have_text(re.compile(r"^(\d+) / \1$"))
    await screenshots(page, "imported-match", show="#match")
    assert_no_script_errors(page)


async def test_the_page_hashes_and_draws_deals_as_the_server_does(
    server: Server, browser: Browser
) -> None:
    """The browser's own SHA-256 and seeded draw (clients/web/deals.js), which its deals
    check rests on, against Python's hashlib and bridge.commitment.seeded_deal."""
    created = await create(server, boards=1, spectators="live")
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, 1280, 900)
    rng = random.Random(6)
    texts = ["", "abc", "é" * 40, "x" * 55, "y" * 64, "duplicate deal set 1\n" * 9]
    cases = [
        (f"{rng.getrandbits(256):064x}", f"public ✓ {n}", rng.randint(1, 64)) for n in range(8)
    ]
    got = await page.evaluate(
        """async ([texts, cases]) => {
            const deals = await import("./web/deals.js");
            return [texts.map(deals.sha256), cases.map(([s, p, b]) => deals.seededDeal(s, p, b))];
        }""",
        [texts, cases],
    )
    assert got[0] == [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    assert got[1] == [seeded_deal(s, p, b).to_pbn() for s, p, b in cases]
    assert_no_script_errors(page)


async def test_a_match_sealed_with_a_form_is_verified_by_the_page(
    server: Server, browser: Browser
) -> None:
    """Boards drawn from a seed sealed with the public value's form (#23, item 14): the page
    shows the form beside the value, and at the end checks the version-2 deal set (the
    seed and the form against the seed's commitment, each board against the draw)."""
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    sealed = await organiser.seal_deals("digits 5: five dice, read left to right")
    created = await organiser.create_match(
        boards=2,
        robots=["t1", "t2"],
        review_seconds=0,
        seal=sealed.seal,
        public_value="Dice: 6-2-5-1-3",
    )
    await organiser.close()
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, 1280, 900)
    shown = page.locator("#deals")
    await expect(shown.locator("[data-public-value]")).to_have_text("62513", timeout=WAIT_MS)
    await expect(shown.locator("[data-public-form]")).to_have_attribute(
        "data-public-form", "digits 5: five dice, read left to right"
    )
    check = page.locator("#final [data-deals]")
    await expect(check).to_have_attribute("data-deals", "verified", timeout=ROBOTS_PLAY_MS)
    await expect(check).to_contain_text("public value “62513”")
    await screenshots(page, "sealed-deals", show="#final")
    assert_no_script_errors(page)


async def test_calls_are_named_as_players_say_them(server: Server, browser: Browser) -> None:
    """What the page says of a call (the explain prompt, the auction's spoken labels)."""
    created = await create(server, boards=1, spectators="live")
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, 1280, 900)
    named = await page.evaluate(
        """async (calls) => {
            const bridge = await import("./web/bridge.js");
            return calls.map(bridge.callName);
        }""",
        ["1S", "2S", "1NT", "3NTX", "1CXX", "P", "X"],
    )
    assert named == [
        "1 spade",
        "2 spades",
        "1 notrump",
        "3 notrump doubled",
        "1 club redoubled",
        "pass",
        "double",
    ]
    assert_no_script_errors(page)

"""Three languages (#24, item 7) in Chromium: a browser whose language is Russian or Swedish
gets /play, /watch and /direct in it from the first screen to the final result, and the
switch in the top bar changes the language of an open page and is remembered.

A text drawn without its translation fails these tests twice over: the page reports it on
the console (i18n.js), which fails any browser test; and what the page shows is read here,
every text node and every spoken or hinted attribute: in Russian no English word may be
left (besides the names the test gave and the marks bridge players write in Latin letters),
and in either language no text may be a catalogue's English where its translation differs.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, expect

from bridge import Seat
from server.app import Server
from tests.clients.test_browser import (
    DEAL,
    ROBOTS_BESIDE_NORTH,
    SIZES,
    WAIT_MS,
    assert_no_script_errors,
    bid,
    chromium,
    end_match,
    north_match,
    open_page,
    screenshot,
    wait_for_my_turn_or_the_end,
)
from tests.clients.test_translations import catalogues
from tests.server.harness import create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

NAMES = {"Nora", "Sharks", "Minnows"}
"""The names the test gives the match: a page shows them as they are."""
LATIN_MARKS = {"IMP", "IMPs", "PBN", "LIN", "BBO", "Handviewer", "Tab", "Enter", "Bridge", "SHA"}
"""Words a Russian page writes in Latin letters, as Russian players do: the scoring unit,
the file formats, the site they come from and its handviewer, the keys of a keyboard, the hash the deals
are sealed with; "Bridge" is BBO's handviewer's name in a link's title."""
NOTATION = re.compile(r"\b[0-9a-f]{8,}|\b[1-7](?:[CDHS]|NT)X{0,2}\b")
"""A hash's digits (the deals' commitment) and contracts as the director types them (4SX),
shown as they are."""

SHOWN_TEXTS = """() => {
    const shown = [];
    const where = (element) => {
        const named = element.closest("[id]");
        return `${named ? "#" + named.id : "body"} ${element.tagName.toLowerCase()}.${element.className}`;
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest("#language, script, style")) continue;
        if (!parent.checkVisibility() && !parent.closest("#spoken")) continue;
        const text = node.textContent.trim();
        if (text) shown.push([text, where(parent)]);
    }
    for (const element of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
        if (element.closest("#language") || !element.checkVisibility()) continue;
        for (const name of ["aria-label", "title", "placeholder"]) {
            const text = element.getAttribute(name)?.trim();
            if (text) shown.push([text, `${where(element)} [${name}]`]);
        }
    }
    for (const element of document.body.querySelectorAll("*")) {
        if (!element.checkVisibility()) continue;
        for (const pseudo of ["::before", "::after"]) {
            const content = getComputedStyle(element, pseudo).content;
            // A text drawn by the style sheet, like an empty list's "no messages yet".
            if (/^".*[A-Za-z\u0400-\u04ff]{2}.*"$/.test(content)) {
                shown.push([JSON.parse(content), `${where(element)} ${pseudo}`]);
            }
        }
    }
    return shown;
}"""


def english_left(texts: list[tuple[str, str]], language: str) -> list[tuple[str, str]]:
    """The texts still in English: a catalogue's English (without placeholders) where the
    language says it otherwise; in Russian, any word in Latin letters but the allowed."""
    english = {
        text
        for catalogue in catalogues().values()
        for text, entry in catalogue.items()
        # Not one letter or two: a seat's letter in one language is a rank's in another
        # (Swedish writes East Ö, and the ace E).
        if "{" not in text and len(text) > 2 and entry.get(language) != text
    }
    left = [(text, where) for text, where in texts if text in english]
    if language == "ru":
        for text, where in texts:
            words = set(re.findall(r"[A-Za-z]{2,}", NOTATION.sub("", text))) - NAMES - LATIN_MARKS
            if words and (text, where) not in left:
                left.append((text, where))
    return left


async def assert_all_in(page: Page, language: str, where: str) -> None:
    texts = [(text, where) for text, where in await page.evaluate(SHOWN_TEXTS)]
    assert texts, where
    left = english_left(texts, language)
    assert not left, f"{where}: English left in the {language} page: {left}"
    assert await page.evaluate("document.documentElement.lang") == language


@pytest_asyncio.fixture
async def russian(browser: Browser) -> AsyncIterator[BrowserContext]:
    context = await browser.new_context(locale="ru-RU")
    yield context
    await context.close()


@pytest_asyncio.fixture
async def swedish(browser: Browser) -> AsyncIterator[BrowserContext]:
    context = await browser.new_context(locale="sv-SE")
    yield context
    await context.close()


async def play_a_board_in(server: Server, context: BrowserContext, language: str) -> None:
    """North bids 3NT over East's 1NT and, once dummy is down, concedes the rest; the
    defenders' robots accept. /play (on a phone), /watch and /direct are read at each step."""
    created, north = await north_match(server, spectators="live")
    assert created.spectator is not None
    page = await open_page(context, north, *SIZES["phone"])
    director = await open_page(context, created.director, *SIZES["desktop"])
    spectator = await open_page(context, created.spectator, *SIZES["desktop"])

    async def in_the_auction() -> None:
        await assert_all_in(page, language, "/play in the auction")
        await screenshot(page, f"language-{language}-auction.png", full_page=False)

    await bid(page, Seat.EAST, "3NT", in_the_auction)
    assert await wait_for_my_turn_or_the_end(page) == "play"
    await expect(page.locator('.seat-box[data-seat="S"] [data-card]')).to_have_count(13)
    await assert_all_in(page, language, "/play in the play")
    await assert_all_in(director, language, "/direct in the play")
    await page.click("#claim")
    await assert_all_in(page, language, "/play composing a claim")
    await page.click('button[data-claim="0"]')
    await page.click("#claim-send")
    await expect(page.locator("#final")).to_be_visible(timeout=WAIT_MS)
    await expect(page.locator("#comparison [data-board]").first).to_be_visible()
    await assert_all_in(page, language, "/play at the end")
    await screenshot(page, f"language-{language}-end.png", full_page=False)
    for other, name in ((director, "/direct"), (spectator, "/watch")):
        await expect(other.locator("#final")).to_be_visible(timeout=WAIT_MS)
        await assert_all_in(other, language, f"{name} at the end")
    await screenshot(director, f"language-{language}-director.png", full_page=False)
    for each in (page, director, spectator):
        assert_no_script_errors(each)


async def test_a_russian_browser_gets_every_page_in_russian(
    server: Server, russian: BrowserContext
) -> None:
    await play_a_board_in(server, russian, "ru")


async def test_a_swedish_browser_gets_every_page_in_swedish(
    server: Server, swedish: BrowserContext
) -> None:
    await play_a_board_in(server, swedish, "sv")


async def test_the_switch_changes_the_open_page_and_is_remembered(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=1,
        robots=ROBOTS_BESIDE_NORTH,
        deals_pbn=one_board(DEAL, dealer="E", vulnerable="NS"),
    )
    north = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
    assert north is not None
    context = await browser.new_context(locale="en-GB")
    try:
        page = await open_page(context, north, *SIZES["phone"])
        assert await wait_for_my_turn_or_the_end(page) == "auction"
        await expect(page.locator("#match-heading")).to_have_text("Match")
        await expect(page.locator(".board-number")).to_have_text("Board 1")
        await page.select_option("#language", "sv")
        # The page's own words and the table drawn from the view, at once, without a reload.
        await expect(page.locator("#match-heading")).to_have_text("Match")
        await expect(page.locator(".board-number")).to_have_text("Bricka 1")
        await expect(page.locator("#chat-send")).to_have_text("Skicka")
        await assert_all_in(page, "sv", "/play after the switch")
        await page.reload()
        await expect(page.locator(".board-number")).to_have_text("Bricka 1", timeout=WAIT_MS)
        assert await page.evaluate("document.documentElement.lang") == "sv"
        await page.select_option("#language", "ru")
        await expect(page.locator(".board-number")).to_have_text("Сдача 1")
        await assert_all_in(page, "ru", "/play after the second switch")
        await page.select_option("#language", "en")
        await expect(page.locator(".board-number")).to_have_text("Board 1")
        await expect(page.locator("#chat-send")).to_have_text("Send")
        assert_no_script_errors(page)
    finally:
        await context.close()
        await end_match(created)

"""The console's events in Chromium: /organise, the tab "Events".

The organiser makes a round robin of three teams of the server's robots, one board a
round, its rounds begun by the director; finds it in the list of events; opens it; begins
round 1 and sees its match end (robots play at once here) with its IMPs and VPs, and its
links with their QR codes; adjusts a team's VPs and sees the standings change; and opens
the event's results link in a page of its own (/event). A teams line with three players is
refused beside the teams field, and so is a Swiss of more rounds than its teams can play
(the server's refusal, beside the rounds). Everything fits a laptop's and a tablet's
screen; the screenshots land in ``artifacts/screenshots/organise-events/``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Locator, Page, expect

from server.app import Server
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    SCREENSHOTS,
    assert_no_script_errors,
    chromium,
    open_page,
)
from tests.clients.test_browser_languages import SHOWN_TEXTS, english_left
from tests.clients.test_browser_organise import (
    SCREENS,
    assert_fits_and_accessible,
    sign_in,
    signed_in,
)
from tests.clients.test_browser_organise import shots as console_shots

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

SHOTS = SCREENSHOTS / "organise-events"
"""A laptop, and a tablet held upright."""
TEAMS = "Ash: robots\nBirch: robots\nCedar: robots\n"
GIVEN = ("Club teams", "Ash", "Birch", "Cedar", "late start")
"""The names the test gives: shown as typed, in any language."""
DATA = re.compile(r"code\.link-text|span\.match-id")
"""Where the page shows what the server or the organiser wrote, as written."""


@pytest.fixture
def server(own_server: Server) -> Server:
    """The console lists the whole store's events: a Redis of the test's own."""
    return own_server


@pytest_asyncio.fixture
async def organiser(browser: Browser) -> AsyncIterator[BrowserContext]:
    """The organiser's browser: its own storage (the session lives in its tab)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    yield context
    await context.close()


async def signed_in_console(context: BrowserContext, server: Server) -> Page:
    page = await open_page(context, f"{server.public_url}/organise", *SCREENS["laptop"])
    await sign_in(page)
    await signed_in(page)
    await page.click("#tab-events")
    await expect(page.locator("#events-view")).to_be_visible()
    await expect(page.locator("#ev-new")).to_be_visible()
    return page


async def shots(page: Page, name: str, show: str | None = None) -> None:
    """The screen at each size as ``organise-events/{name}-{screen}.png`` (``show``: a
    selector scrolled to the top first); the page gets its size back."""
    await console_shots(page, name, show, folder=SHOTS)


async def assert_all_said_in(page: Page, language: str, where: str) -> None:
    """No text of the events view left in English, but the names given and the data."""
    texts = [
        (text, place)
        for text, place in await page.evaluate(SHOWN_TEXTS)
        if place.startswith("#ev")
        and not DATA.search(place)
        and not any(name in text for name in GIVEN)
    ]
    left = english_left(texts, language)
    assert not left, f"{where}: English left in the {language} page: {left}"


def vps_of(page: Page, team: int) -> Locator:
    return page.locator(f'#ev-standings-table tr[data-team="{team}"] td.vps')


async def test_a_round_robin_run_from_the_console(
    server: Server, organiser: BrowserContext
) -> None:
    page = await signed_in_console(organiser, server)
    await expect(page.locator("#ev-list-part")).to_contain_text("No event yet")

    # The form: a round robin of three teams of robots, one board a round, begun by hand.
    await page.click("#ev-new")
    await expect(page.locator("#ev-form")).to_be_visible()
    await expect(page.locator("#ev-boards_per_round")).to_have_value("8")
    await expect(page.locator("#ev-bye_vps")).to_have_value("12")
    await page.fill("#ev-name", "Club teams")
    await page.select_option("#ev-kind", "round_robin")
    await expect(page.locator("#ev-rounds")).to_have_count(0)  # a round robin's follow
    await page.fill("#ev-teams", TEAMS)
    await page.fill("#ev-boards_per_round", "1")
    await page.select_option("#ev-start", "director")
    await assert_fits_and_accessible(page, "the new-event form")
    await shots(page, "new-event")
    await page.click("#ev-create-send")

    # Its page: made, not begun; round 1 drawn (Ash sits out), waiting for the director.
    await expect(page.locator("#events-heading")).to_have_text("Club teams")
    event_page = page.locator("#ev-event-part")
    await expect(event_page).to_have_attribute("data-status", "waiting")
    event_id = await event_page.get_attribute("data-event-id")
    assert event_id is not None
    assert re.fullmatch(r"[0-9a-f]{16}", event_id), event_id
    results = page.locator("#ev-results-link")
    await expect(results).to_have_text(re.compile(r"^http://.+/event#ev_[\w-]+$"))
    await expect(page.locator("#ev-results")).to_contain_text("Anyone may have this link")
    begin = page.locator("#ev-begin-send")
    await expect(begin).to_have_text("Begin round 1")
    await expect(page.locator('.ev-round[data-round="1"] .ev-bye')).to_contain_text("Ash")
    await expect(page.locator(".ev-round")).to_have_count(1)
    await assert_fits_and_accessible(page, "the event, drawn")
    await shots(page, "event-drawn")

    # The list shows it; its name opens it again.
    await page.click("#ev-back")
    row = page.locator(f'#ev-list tr[data-event-id="{event_id}"]')
    await expect(row).to_contain_text("Club teams")
    await expect(row).to_contain_text("Round robin")
    await expect(row).to_contain_text("Waiting to start")
    await expect(row).to_contain_text("Not begun: 3 rounds")
    await expect(row.locator("td.points")).to_have_text("3")
    await assert_fits_and_accessible(page, "the list of events")
    await shots(page, "list")
    await row.locator(".ev-open").click()
    await expect(page.locator("#events-heading")).to_have_text("Club teams")

    # Round 1 begins; its match is played by the robots and ends with its IMPs and VPs.
    await expect(begin).to_be_enabled()
    await begin.click()
    await expect(page.locator("#ev-begin")).to_be_hidden()
    round_one = page.locator('.ev-round[data-round="1"]')
    match = round_one.locator(".ev-match")
    await expect(match).to_have_count(1)
    await expect(match).not_to_have_attribute("data-match-id", "")
    await expect(round_one).to_have_attribute("data-status", "finished", timeout=ROBOTS_PLAY_MS)
    await expect(match.locator(".ev-score")).to_contain_text(re.compile(r"IMPs \d+–\d+ · VPs"))
    await expect(page.locator('.ev-round[data-round="1"] .ev-bye')).to_contain_text(
        "Ash sat out: 12.00 VPs"
    )
    # Round 2 is drawn once round 1 has ended, for the director to begin.
    await expect(begin).to_have_text("Begin round 2")
    await expect(vps_of(page, 1)).to_have_text("12.00")
    await expect(page.locator("#ev-event-part")).to_have_attribute("data-status", "playing")

    # The match's links: robots at every seat; the spectators' and director's QR codes.
    await match.locator(".ev-links-button").click()
    links = match.locator(".ev-links")
    await expect(links).to_be_visible()
    await expect(links.locator(".link-robots").first).to_contain_text("robots play every seat")
    director = links.locator('.link-item[data-role="director"]')
    await expect(director.locator("img.qr")).to_be_visible()
    await expect(director.locator(".link-text")).to_contain_text("/direct")
    await assert_fits_and_accessible(page, "a match's links")
    await shots(page, "event-links", show='.ev-round[data-round="1"]')
    await match.locator(".ev-links-button").click()
    await expect(links).to_be_hidden()

    # The director takes two VPs from Ash for round 1: the standings say so at once.
    await page.select_option("#ev-adj-team", "1")
    await page.fill("#ev-adj-vps", "-2")
    await page.fill("#ev-adj-reason", "late start")
    await page.select_option("#ev-adj-round", "1")
    await page.click("#ev-adjust-send")
    await expect(vps_of(page, 1)).to_have_text("10.00")
    await expect(page.locator('#ev-adjustments li[data-team="1"]')).to_contain_text("late start")
    await expect(page.locator("#ev-adj-vps")).to_have_value("")
    # A reason is asked for before anything is sent.
    await page.select_option("#ev-adj-team", "2")
    await page.fill("#ev-adj-vps", "1")
    await page.click("#ev-adjust-send")
    await expect(page.locator("#ev-adj-error-reason")).to_be_visible()
    await expect(page.locator("#ev-adj-reason")).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#ev-adjustments li")).to_have_count(1)
    await page.fill("#ev-adj-reason", "slow play")  # mended: the message goes
    await expect(page.locator("#ev-adj-error-reason")).to_be_hidden()
    await assert_fits_and_accessible(page, "the event, round 1 ended")
    await shots(page, "event-ended")
    await shots(page, "event-standings", show="#ev-standings")

    # In Russian and Swedish, nothing of the view is left in English.
    for code in ("ru", "sv"):
        await page.select_option("#language", code)
        await expect(page.locator("html")).to_have_attribute("lang", code)
        await expect(begin).not_to_have_text("Begin round 2")
        await assert_all_said_in(page, code, "the event")
        await shots(page, f"event-{code}")
        await page.click("#ev-back")
        await expect(row).to_be_visible()
        await assert_all_said_in(page, code, "the list")
        await row.locator(".ev-open").click()
        await expect(page.locator("#ev-standings")).to_be_visible()
    await page.select_option("#language", "en")
    await expect(begin).to_have_text("Begin round 2")

    # The results link opens the event's own page, for anyone who has it.
    link = await results.inner_text()
    await expect(page.locator("#ev-results-open")).to_have_attribute("href", link)
    async with organiser.expect_page() as opened:
        await page.click("#ev-results-open")
    results_page = await opened.value
    await results_page.wait_for_load_state()
    assert results_page.url == link
    assert re.search(r"/event#ev_", results_page.url)
    await expect(results_page.locator("#results")).to_be_visible()
    await expect(results_page.locator("#title")).to_contain_text("Club teams")
    await results_page.close()
    assert_no_script_errors(page)


async def test_a_refused_event_says_why_beside_the_field(
    server: Server, organiser: BrowserContext
) -> None:
    page = await signed_in_console(organiser, server)
    await page.click("#ev-new")
    await page.fill("#ev-name", "Refused")
    await page.fill("#ev-teams", "Ash: Ann, Bo, Cy\nBirch: robots\n")
    await page.fill("#ev-rounds", "1")
    await page.click("#ev-create-send")
    error = page.locator("#ev-error-teams")
    await expect(error).to_have_text(
        "Line 1: team “Ash” has 3 players: a team has four to six players, or robots"
    )
    await expect(page.locator("#ev-teams")).to_have_attribute("aria-invalid", "true")
    await assert_fits_and_accessible(page, "the refused teams")
    await shots(page, "refused-teams", show='[data-field="teams"]')
    # Mended, the message goes.
    await page.fill("#ev-teams", "Ash: Ann, Bo, Cy, Di\nBirch: robots\nCedar: robots\n")
    await expect(error).to_be_hidden()
    await expect(page.locator("#ev-teams")).not_to_have_attribute("aria-invalid", "true")

    # The server's refusal is shown beside the field it names: three teams play a Swiss of
    # three rounds at most.
    await page.fill("#ev-rounds", "5")
    await page.click("#ev-create-send")
    await expect(page.locator("#ev-error-rounds")).to_contain_text("3 teams meet each other")
    await expect(page.locator("#ev-rounds")).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#ev-form")).to_be_visible()  # nothing made
    await shots(page, "refused-rounds", show='[data-field="rounds"]')
    await page.click("#ev-back")
    await expect(page.locator("#ev-list-part")).to_contain_text("No event yet")
    assert_no_script_errors(page)


async def test_a_swiss_round_paired_by_hand(server: Server, organiser: BrowserContext) -> None:
    page = await signed_in_console(organiser, server)
    await page.click("#ev-new")
    await page.fill("#ev-name", "Club teams")
    await page.fill("#ev-teams", TEAMS + "Dale: robots\n")
    await page.fill("#ev-rounds", "2")
    await page.fill("#ev-boards_per_round", "1")
    await page.select_option("#ev-start", "director")
    await page.click("#ev-create-send")
    # Seeded: the top half against the bottom half, 1 v 3 and 2 v 4.
    drawn = page.locator("#ev-begin .ev-drawn")
    await expect(drawn).to_have_text("Ash – Cedar · Birch – Dale")
    await page.check("#ev-repair")
    await expect(page.locator(".ev-pair")).to_have_count(2)
    await expect(page.locator("#ev-pair-0-home")).to_have_value("1")
    await expect(page.locator("#ev-pair-0-away")).to_have_value("3")
    await page.select_option("#ev-pair-0-away", "2")
    await page.select_option("#ev-pair-1-home", "3")
    await assert_fits_and_accessible(page, "a round paired by hand")
    await shots(page, "repair", show="#ev-begin")
    await page.click("#ev-begin-send")
    round_one = page.locator('.ev-round[data-round="1"]')
    await expect(page.locator("#ev-begin")).to_be_hidden()
    await expect(round_one.locator(".ev-teams")).to_have_text(["Ash – Birch", "Cedar – Dale"])
    # A pairing the server refuses says so above the button: here, once round 1 has
    # ended, round 2 paired with a team twice.
    await expect(round_one).to_have_attribute("data-status", "finished", timeout=ROBOTS_PLAY_MS)
    await expect(page.locator("#ev-begin-send")).to_have_text("Begin round 2")
    await page.check("#ev-repair")
    await page.select_option("#ev-pair-0-home", "1")
    await page.select_option("#ev-pair-0-away", "4")
    await page.select_option("#ev-pair-1-home", "1")
    await page.select_option("#ev-pair-1-away", "3")
    await page.click("#ev-begin-send")
    await expect(page.locator("#ev-begin-error")).not_to_be_empty()
    await expect(page.locator('.ev-round[data-round="2"]')).to_have_attribute(
        "data-status", "drawn"
    )
    assert_no_script_errors(page)

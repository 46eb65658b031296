"""Every format's pages at every size (360x640 to 1366x768, :data:`sizes.SCREENS`): a
player's table (the auction with seats still empty, the play as declarer with dummy at the
top, the play as a defender with dummy at the side), the spectators' and the director's.

The player at table 1 North plays in Chromium. Their partner is one of the server's strong
robots ("Robot (strong)"); East and West are people with long names, who come to the table
only once the player has seen them "not here yet" (Python robots: the toasts of their
arrival are measured too); table 2 is the server's robots. The measurements and the
screenshots are :mod:`tests.clients.sizes`'.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from clients.robot import Robot
from protocol.messages import MatchCreated
from server.app import Server
from tests.clients.sizes import measure
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    press,
    wait_for_my_turn_or_the_end,
)
from tests.server.harness import create

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

PLAYER = "Nora Bergström-Kuznetsova"
PEOPLE = {"1E": "Konstantin Konstantinopolsky", "1W": "Wilhelmina Featherstonehaugh"}
"""East and West: people with long names, who join late (played by Python robots that do
not say they are robots)."""


HANDS = "AKQJ.AKQ.AKQ.AKQ T98.43.JT9.JT987 2.JT98765.432.32 76543.2.8765.654"
"""The dealer holds every ace, king and queen (7NT makes); their partner, dummy, seven
hearts (from the ten down): dummy's longest suit is a long line."""


def board(number: int, dealer: str) -> str:
    return (
        f'[Board "{number}"]\n[Dealer "{dealer}"]\n[Vulnerable "All"]\n[Deal "{dealer}:{HANDS}"]\n'
    )


def deals(count: int) -> str:
    """Board 1: North (the player) deals and holds the top cards; the others: East."""
    return "\n".join(board(number, "N" if number == 1 else "E") for number in range(1, count + 1))


STRONG_PARTNER = {"1N": "strong", "1S": "strong"}
"""South, the player's partner, is a strong robot (North's level too: partners' robots play
one system)."""
FORMATS: dict[str, dict[str, object]] = {
    "teams": {
        "format": "teams",
        "boards": 2,
        "robots": ["t2", "1S"],
        "robot_levels": STRONG_PARTNER,
    },
    "robot-table": {
        "format": "robot-table",
        "boards": 4,
        "robots": ["1S"],
        "robot_levels": STRONG_PARTNER,
    },
    "team-of-four": {
        "format": "team-of-four",
        "boards": 8,
        "robots": ["t2", "1S"],
        "robot_levels": STRONG_PARTNER,
    },
    "replay": {"format": "replay", "boards": 2, "robots": ["1S"], "robot_levels": STRONG_PARTNER},
    # Partners change every round: every robot is strong.
    "individual": {
        "format": "individual",
        "boards": 14,
        "robots": ["t2", "1S"],
        "robot_level": "strong",
    },
}


async def start(server: Server, form: str) -> MatchCreated:
    options = dict(FORMATS[form])
    boards = options["boards"]
    assert isinstance(boards, int)
    return await create(
        server,
        **options,
        deals_pbn=deals(boards),
        names={"1N": PLAYER, **PEOPLE},
        robot_delay_ms=0,
        spectators="live",
        team_a="Nordic Lights of Gothenburg",
        team_b="St Petersburg White Nights",
    )


async def phase_turn(page: Page, phase: str) -> None:
    """Wait until it is the player's turn in ``phase`` (and clicks count)."""
    await page.wait_for_function(
        """phase => document.body.dataset.phase === phase
            && document.querySelector("#turn.mine") !== null
            && document.body.dataset.guard !== "on" """,
        arg=phase,
        timeout=WAIT_MS,
    )


CALLS = "() => document.querySelectorAll('#compass .auction-grid td[data-index]').length"
"""How many calls the auction on the table shows."""


async def my_turn_or_play(page: Page) -> str:
    """Wait until the player must call, or the play has begun; returns the phase."""
    await page.wait_for_function(
        """() => document.body.dataset.phase === "play" || (
            document.body.dataset.phase === "auction"
            && document.querySelector("#turn.mine") !== null
            && document.body.dataset.guard !== "on")""",
        timeout=WAIT_MS,
    )
    return str(await page.evaluate("document.body.dataset.phase"))


async def play_out(page: Page) -> None:
    """Play the first card the player may (from their hand) until the board is over."""
    accept = page.locator("#claim-accept")
    while await wait_for_my_turn_or_the_end(page) == "play":
        if await accept.is_visible():  # declarer claimed the rest
            await accept.click()
            await expect(accept).to_be_hidden()
        else:
            await press(page, "#hand button[data-card]:enabled")


async def dummy_beside(page: Page) -> None:
    """Wait until dummy's hand is on the table, at the player's left or right."""
    await page.wait_for_function(
        """() => document.querySelector(
            '#compass .place-left.with-hand, #compass .place-right.with-hand') !== null""",
        timeout=WAIT_MS,
    )


CASES = [(form, "en") for form in FORMATS] + [("teams", "ru"), ("individual", "sv")]
"""Every format in English; two in the project's other languages, whose words are longer."""


@pytest.mark.parametrize(("form", "language"), CASES)
async def test_every_page_fits_every_screen(
    server: Server, browser: Browser, form: str, language: str
) -> None:
    created = await start(server, form)
    where = await browser.new_context(locale=language)  # the browser's language: the page's
    label = form if language == "en" else f"{form}-{language}"
    page = await open_page(where, link_of(created, 1, "N"), 360, 640)
    people: list[Robot] = []
    tasks: list[asyncio.Task[None]] = []
    ended = False
    try:
        # The auction, before East and West are there.
        await expect(page.locator("body")).to_have_attribute("data-phase", "auction")
        await expect(page.locator("[data-away]")).to_have_count(2)
        await measure(page, f"{label}-play-auction-empty-seats", player=True)

        # East and West come: their toasts must not cover the hand or the bidding box.
        for seat, name in PEOPLE.items():
            link = link_of(created, int(seat[0]), seat[1])
            person = Robot(link, name=name)
            person.client = await Client.connect(link, name=name)  # not marked a robot
            people.append(person)
            tasks.append(asyncio.create_task(person.run()))
        await expect(page.locator("[data-away]")).to_have_count(0)
        await expect(page.locator("#messages .message").last).to_be_visible()  # X has joined
        # A message lasts seconds: one more (two lines on a phone) stays while every size
        # is measured, wherever the page puts its messages.
        kept = await page.evaluate_handle(
            """text => {
                const line = document.createElement("p");
                line.className = "message error";
                line.append(Object.assign(document.createElement("span"), {className: "message-text", textContent: text}));
                return document.querySelector("#messages").appendChild(line);
            }""",
            "West (Wilhelmina Featherstonehaugh) rejected the claim: play goes on.",
        )
        await measure(page, f"{label}-play-auction-toasts", player=True)
        await kept.evaluate("line => line.remove()")

        # Two boards, in the match's order (replay duplicate draws it): on board 1 the player
        # deals and declares 7NT, dummy at the top; on the other East deals and declares,
        # and the player defends with dummy beside.
        done: set[str] = set()
        while done != {"declarer", "defender"}:
            await my_turn_or_play(page)
            number = await page.get_attribute("#compass .compass-grid", "data-board")
            if number == "1":
                await press(page, 'button[data-call="7NT"]')
                await phase_turn(page, "play")
                await measure(page, f"{label}-play-declarer", player=True, contract=True)
                done.add("declarer")
                await page.click("#claim")
                await page.click('button[data-claim="13"]')
                await page.click("#claim-send")
            else:
                while await my_turn_or_play(page) == "auction":
                    calls = await page.evaluate(CALLS)
                    await press(page, 'button[data-call="P"]')
                    await page.wait_for_function(
                        f"document.body.dataset.phase !== 'auction' || ({CALLS})() > {calls}",
                        timeout=WAIT_MS,
                    )
                await dummy_beside(page)
                await measure(page, f"{label}-play-defender", player=True, contract=True)
                done.add("defender")
                if "declarer" not in done:  # board 1 is still to come: play this one out
                    await play_out(page)
            if done != {"declarer", "defender"}:
                await page.wait_for_function(
                    """board => document.querySelector(`#compass .compass-grid:not([data-board="${board}"])`)""",
                    arg=number,
                    timeout=ROBOTS_PLAY_MS,
                )

        # The spectators' and the director's pages, while the play goes on.
        if created.spectator is not None:
            watch = await open_page(where, created.spectator, 360, 640)
            await expect(watch.locator('.watch-table[data-table="1"] .hand-rows')).to_have_count(4)
            await measure(watch, f"{label}-watch", player=False)
            assert_no_script_errors(watch)
        direct = await open_page(where, created.director, 360, 640)
        await expect(direct.locator('.watch-table[data-table="1"] .hand-rows')).to_have_count(4)
        await measure(direct, f"{label}-direct", player=False)

        # The match is over (the director voids what is left): the result and the sheet.
        await end_match(created)
        ended = True
        await expect(page.locator("#final")).to_be_visible()
        await measure(page, f"{label}-play-final", player=True)
        await expect(direct.locator("#final")).to_be_visible()
        await measure(direct, f"{label}-direct-final", player=False)
        assert_no_script_errors(direct)
    finally:
        for task in tasks:
            task.cancel()
        for robot in people:
            await robot.close()
        if not ended:
            await end_match(created)
        await where.close()
    assert_no_script_errors(page)


async def test_three_tables_fit_every_screen(server: Server, browser: Browser) -> None:
    # An individual of 12: tables 2 and 3 are the server's robots, who play on; at table 1
    # North (a person) never comes, so that its hands stay on the table.
    created = await create(
        server,
        format="individual",
        players=12,
        robots=["t2", "t3", "1E", "1S", "1W"],
        names={"1N": PLAYER, "1E": PEOPLE["1E"], "1W": PEOPLE["1W"]},
        robot_delay_ms=0,
        spectators="live",
    )
    try:
        for link, name in [
            (created.spectator, "individual-12-watch"),
            (created.director, "individual-12-direct"),
        ]:
            assert link is not None
            page = await open_page(browser, link, 360, 640)
            await expect(page.locator(".watch-table")).to_have_count(3)
            for table in "123":
                await expect(
                    page.locator(f'.watch-table[data-table="{table}"] .hand-rows')
                ).to_have_count(4)
            await measure(page, name, player=False)
            assert_no_script_errors(page)
    finally:
        await end_match(created)

"""The browser table in a real browser: Debian's Chromium, driven by Playwright.

North plays from a seat link while the server's robots play the seven other seats: bidding
from the bidding box, cards by clicking, dummy, the comparison with the other table. The
screenshots land in ``artifacts/screenshots/`` at the repository's root.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
import pytest_asyncio
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Page,
    Route,
    WebSocketRoute,
    async_playwright,
    expect,
)

from bridge import Auction, Deal, Seat
from clients.client import Client
from protocol.messages import (
    HEARTBEAT_SILENCE_S,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    MatchCreated,
    PlayerView,
    WatchView,
)
from server.app import Server
from tests.server.harness import analysed, create, one_board

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEAL = "N:AKQ2.K32.AQ4.Q32 J43.AQ4.KJ3.AJ54 T98.JT9.T98.T987 765.8765.7652.K6"
"""East (dealer) opens 1NT with 16; North holds 20 and bids 3NT over it, South is dummy."""
ROBOTS_BESIDE_NORTH = ["t2", "1E", "1S", "1W"]
WAIT_MS = 10_000
ROBOTS_PLAY_MS = 90_000
"""How long a test waits for the server's robots to play whole boards: about two seconds a
board on an idle machine, several times that on a busy one. A wait, not a measurement."""

pytestmark = pytest.mark.asyncio
expect.set_options(timeout=WAIT_MS)  # a busy machine may take a while to draw a change


def chromium_path() -> str:
    """Debian's Chromium (``$CHROMIUM`` overrides); the tests fail, never skip, without it."""
    path = (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if path is None or not Path(path).exists():
        pytest.fail(
            "the browser tests need Chromium: apt-get install chromium "
            "(or set $CHROMIUM to a Chromium binary)"
        )
    return path


async def chromium() -> AsyncIterator[Browser]:
    """Chromium, headless, for one test: the ``browser`` fixture of every browser test
    module (``browser = pytest_asyncio.fixture(chromium, name="browser")``)."""
    async with async_playwright() as playwright:
        instance = await playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield instance
        finally:
            await instance.close()


browser = pytest_asyncio.fixture(chromium, name="browser")


async def open_page(
    browser: Browser | BrowserContext,
    link: str,
    width: int,
    height: int,
    network: Callable[[WebSocketRoute], Awaitable[None]] | None = None,
) -> Page:
    """A fresh page at ``link`` whose script errors fail the test; ``network`` (when given)
    handles every WebSocket the page opens. A browser gives the page a context of its own
    (its own storage); a context shares its storage with its other pages."""
    if isinstance(browser, BrowserContext):
        page = await browser.new_page()
        await page.set_viewport_size({"width": width, "height": height})
    else:
        page = await browser.new_page(viewport={"width": width, "height": height})
    # The page scrolls what the player must act on into view, smoothly unless the reader
    # asks for less motion: here it does so at once, so that a test reads where things are.
    await page.emulate_media(reduced_motion="reduce")
    if network is not None:
        await page.route_web_socket(lambda url: url.endswith("/ws"), network)
    page.on("dialog", accept_dialog)
    problems: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(message.text)

    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", console)
    SCRIPT_ERRORS[page] = problems
    await page.goto(link)
    return page


SCRIPT_ERRORS: dict[Page, list[str]] = {}
"""Each page's uncaught errors and console errors."""


def assert_no_script_errors(page: Page) -> None:
    problems = SCRIPT_ERRORS.pop(page)
    assert not problems, problems


async def accept_dialog(dialog: Dialog) -> None:
    """The director's confirmations (window.confirm) are answered yes."""
    await dialog.accept()


async def screenshot(page: Page, name: str, *, full_page: bool = True) -> None:
    """Save a screenshot as an artifact (the phone's: what its screen shows)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENSHOTS / name, full_page=full_page)


SIZES = {"phone": (375, 667), "tablet": (768, 1024), "desktop": (1366, 768)}
"""The screens every new screen is shown on: a phone, a tablet, a laptop."""


async def screenshots(page: Page, name: str, show: str | None = None) -> None:
    """Save what the screen shows at each of SIZES as ``{name}-{size}.png``; ``show`` is a
    selector scrolled into view first (else the top of the page). The page gets its size
    back afterwards."""
    original = page.viewport_size
    for size, (width, height) in SIZES.items():
        await page.set_viewport_size({"width": width, "height": height})
        await page.evaluate(
            """show => {
                if (show === null) return window.scrollTo(0, 0);
                document.querySelector(show).scrollIntoView({block: "start"});
                window.scrollBy(0, -56);  // below the sticky turn bar
            }""",
            show,
        )
        await screenshot(page, f"{name}-{size}.png", full_page=False)
    if original is not None:
        await page.set_viewport_size(original)


async def settled(page: Page) -> None:
    """Wait until the guard after a change of the table is over (clicks count again)."""
    await page.wait_for_function("document.body.dataset.guard !== 'on'", timeout=WAIT_MS)


async def press(page: Page, selector: str) -> None:
    """Click a card or a call once the table is settled (again if the click was ignored
    because the view changed under it at that very moment)."""
    for _ in range(5):
        await settled(page)
        ignored = "Number(document.body.dataset.ignored ?? 0)"
        before = await page.evaluate(ignored)
        await page.click(selector, timeout=WAIT_MS)
        if await page.evaluate(ignored) == before:
            return
    raise AssertionError(f"every click on {selector} was ignored")


async def end_match(created: MatchCreated) -> None:
    """The director voids every board not compared yet: the match ends at once (a test
    leaves no match unfinished, or the next server over the store would resume its robots)."""
    director = await Client.connect(created.director, name="test director")
    try:
        view = director.view
        assert isinstance(view, WatchView)
        compared = {c.board for c in view.match.comparisons}
        for board in view.match.boards:
            if board not in compared:
                await director.void_board(board)
        await director.wait_for(lambda v: v.match.finished or None)
    finally:
        await director.close()


def link_of(created: MatchCreated, table: int, seat: str) -> str:
    """A seat's join link (the seat is not a robot's)."""
    link = next(s.link for s in created.seats if (s.table, s.seat) == (table, seat))
    assert link is not None, f"{table}{seat} is a robot's seat"
    return link


async def enabled(page: Page, kind: str) -> list[str]:
    """The ``data-{kind}`` values of the enabled buttons (``kind`` "call" or "card")."""
    return list(
        await page.locator(f"button[data-{kind}]:enabled").evaluate_all(
            f"buttons => buttons.map(b => b.dataset.{kind})"
        )
    )


async def wait_for_my_turn_or_the_end(page: Page) -> str:
    """Wait until North must act (and may) or the board is over; returns the phase."""
    await page.wait_for_function(
        """() => {
            const mine = document.querySelector("#turn.mine") !== null;
            const ready = document.querySelector(
                "button[data-card]:enabled, button[data-call]:enabled, #claim-accept:enabled");
            const settled = document.body.dataset.guard !== "on";
            return document.body.dataset.phase === "finished" || (mine && ready && settled);
        }""",
        timeout=WAIT_MS,
    )
    return str(await page.evaluate("document.body.dataset.phase"))


async def bid(
    page: Page, dealer: Seat, first_call: str, before_first: Callable[[], Awaitable[None]]
) -> list[str]:
    """Make North's calls from the bidding box (``first_call``, then passes), checking each
    time that the box offers exactly the legal calls; ``before_first`` runs when North must
    make the first call. Returns the auction."""
    made = 0
    while (phase := await wait_for_my_turn_or_the_end(page)) == "auction":
        calls = await page.locator("#auction td[data-called]").evaluate_all(
            "cells => cells.map(c => c.dataset.called)"
        )
        legal = [str(call) for call in Auction.replay(dealer, calls).legal_calls()]
        assert await enabled(page, "call") == legal
        if made == 0:
            await before_first()
        call = first_call if made == 0 else "P"
        await page.click(f'#bidding-box button[data-call="{call}"]')
        await expect(page.locator("#bidding-box")).to_be_hidden(timeout=WAIT_MS)
        made += 1
    assert phase != "auction", phase
    return list(
        await page.locator("#auction-played td[data-called]").evaluate_all(
            "cells => cells.map(c => c.dataset.called)"
        )
    )


async def legal_cards_shown(page: Page, hand: str) -> list[str]:
    """The cards the rules allow now from the hand drawn at ``hand`` (a selector): those of
    the suit led when the hand holds one, else all of them."""
    held = await page.locator(f"{hand} [data-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )
    led = await page.evaluate(
        '() => document.querySelector(".trick-live [data-led]")?.dataset.led ?? null'
    )
    following = [card for card in held if led is not None and card[0] == led[0]]
    return following or list(held)


async def play_out(
    page: Page, deal: Deal, after_trick: Callable[[], Awaitable[None]], stop_after: int = 26
) -> int:
    """Click North's cards (and dummy's: North declares) until the board ends or
    ``stop_after`` cards were clicked, checking each time that only the legal cards are
    enabled and that dummy is shown; ``after_trick`` runs before the 6th click (the second
    trick is under way). Returns the number of cards clicked."""
    south = {str(card) for card in deal[Seat.SOUTH]}
    clicked = 0
    while clicked < stop_after and await wait_for_my_turn_or_the_end(page) == "play":
        from_dummy = "from dummy" in await page.inner_text("#turn")
        hand = '.seat-box[data-seat="S"] .hand-rows' if from_dummy else "#hand"
        expected = await legal_cards_shown(page, hand)
        assert await enabled(page, "card") == expected
        dummy = await page.locator('.seat-box[data-seat="S"] [data-card]').evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        assert set(dummy) <= south
        if clicked == 0:
            # East led; dummy (South) plays first, from North's clicks: all 13 cards shown.
            assert from_dummy
            assert len(dummy) == 13, "dummy is not shown after the opening lead"
        if clicked == 5:
            await after_trick()
        card = expected[0]
        await page.click(f'button[data-card="{card}"]')
        await page.wait_for_function(
            """card => document.body.dataset.phase === "finished"
                || !document.querySelector(`button[data-card="${card}"]`)""",
            arg=card,
            timeout=WAIT_MS,
        )
        clicked += 1
    return clicked


async def north_match(server: Server, **options: object) -> tuple[MatchCreated, str]:
    """Create a one-board match of DEAL with robots in every seat but North at table 1
    (``options``: more of create_match's); returns it and North's link."""
    created = await create(
        server,
        boards=1,
        robots=ROBOTS_BESIDE_NORTH,
        team_a="Sharks",
        team_b="Minnows",
        deals_pbn=one_board(DEAL, dealer="E", vulnerable="NS"),
        names={"1N": "Nora"},
        **options,
    )
    north = created.seats[0]
    assert (north.table, north.seat, north.robot) == (1, "N", False)
    assert north.link is not None
    # Its double-dummy analysis is worked out in the background, as long as the machine
    # takes: logged before anyone plays, it is in the comparison whenever that comes.
    await analysed(server, created.match_id)
    return created, north.link


async def north_link(server: Server) -> str:
    """North's link in a new :func:`north_match`."""
    return (await north_match(server))[1]


async def test_north_plays_a_whole_board_against_robots(server: Server, browser: Browser) -> None:
    page = await open_page(browser, await north_link(server), 1280, 900)

    await expect(page.locator("#status")).to_have_attribute("data-state", "connected")
    await expect(page.locator(".board-info")).to_contain_text("Board 1")
    await expect(page.locator(".board-info")).to_contain_text("Dealer E")
    await expect(page.locator(".vulnerability")).to_have_text("Vul N-S")
    hand = await page.locator("#hand [data-card]").evaluate_all("c => c.map(x => x.dataset.card)")
    assert hand == [str(card) for card in Deal.from_pbn(DEAL)[Seat.NORTH]]

    async def at_the_first_call() -> None:
        # East opened 1NT: the box offers a double and 2C up, not 1C to 1NT nor a redouble.
        for call in ["1C", "1S", "1NT", "XX"]:
            await expect(page.locator(f'button[data-call="{call}"]')).to_be_disabled()
        for call in ["P", "X", "2C", "7NT"]:
            await expect(page.locator(f'button[data-call="{call}"]')).to_be_enabled()
        await page.fill("#alert-text", "to play")  # goes with the call, to East and West
        await screenshot(page, "bidding.png")

    auction = await bid(page, Seat.EAST, "3NT", at_the_first_call)
    assert auction[0] == "1NT", auction  # East's robot opened 1NT: North saw 2C and up, and X
    await expect(page.locator('#auction-played td[data-called="3NT"]')).to_have_class("alerted")
    await expect(page.locator("#auction-played .explanations")).to_contain_text("3NT (N): to play")
    await expect(page.locator(".contract")).to_contain_text("by N")

    deal = Deal.from_pbn(DEAL)
    clicked = await play_out(page, deal, lambda: screenshot(page, "play.png"))
    assert clicked == 26  # every card of North's and of dummy's, by clicking

    comparison = page.locator("#comparison")
    await expect(comparison).to_contain_text("Board 1 at both tables", timeout=WAIT_MS)
    await expect(comparison).to_contain_text("Swing")
    # Both tables side by side (get_board): each one's auction and its 13 tricks.
    await expect(comparison.locator(".record-table")).to_have_count(2)
    for table in (1, 2):
        played = comparison.locator(f'.record-table[data-table="{table}"]')
        await expect(played.locator(".play-table tbody tr")).to_have_count(13)
        await expect(played.locator(".auction-grid td[data-called]").first).to_be_visible()
    await expect(comparison.locator(".par")).to_be_visible()
    await expect(page.locator("#boards")).to_contain_text("Other table")
    await expect(page.locator("#final")).to_contain_text("Final result")
    await expect(page.locator("#turn")).to_have_text("The match is over.")
    await screenshot(page, "comparison.png")
    assert_no_script_errors(page)


PHONE_WIDTH = 375


async def assert_fits_the_phone(page: Page, selectors: list[str]) -> None:
    """Each selector matches something, and all of it lies within the phone's width; the page
    does not scroll sideways."""
    for selector in selectors:
        # Drawn first: an update that came just before (the comparison's analysis at a
        # board's end) may still be redrawing it, and an element being redrawn has no box.
        with contextlib.suppress(AssertionError):
            await expect(page.locator(selector).first).to_be_visible()
        boxes = await page.locator(selector).evaluate_all(
            """elements => elements
                .filter(e => e.getClientRects().length > 0)
                .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"""
        )
        assert boxes, f"nothing visible matches {selector}: {await page_state(page)}"
        for left, right in boxes:
            assert left >= 0, (selector, left)
            assert right <= PHONE_WIDTH, (selector, right)
    width = await page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE_WIDTH, f"the page scrolls sideways: {width} px wide"


async def page_state(page: Page) -> str:
    """What a failure needs to be understood: the page's phase, review and role, what its
    table area and hand hold, and its script errors so far."""
    state = await page.evaluate(
        """() => ({
            body: {...document.body.dataset},
            handAreaHidden: document.getElementById("hand-area")?.hidden,
            hand: document.getElementById("hand")?.textContent.slice(0, 200),
            compass: document.getElementById("compass")?.textContent.slice(0, 400),
            status: document.getElementById("status")?.dataset.state,
        })"""
    )
    return f"{state}, script errors {SCRIPT_ERRORS.get(page)}"


async def test_everything_needed_for_play_fits_a_phone(server: Server, browser: Browser) -> None:
    page = await open_page(browser, await north_link(server), PHONE_WIDTH, 667)

    async def auction_fits() -> None:
        await assert_fits_the_phone(
            page,
            [
                "#turn",
                ".board-info",
                "#auction",
                "#hand button[data-card]",
                "#bidding-box button[data-call]",
                "#alert-text",
            ],
        )
        await screenshot(page, "phone-bidding.png", full_page=False)

    await bid(page, Seat.EAST, "3NT", auction_fits)

    async def play_fits() -> None:
        await assert_fits_the_phone(
            page,
            [
                "#turn",
                ".contract-info",
                "#trick",
                "#hand button[data-card]",
                '.seat-box[data-seat="S"] button[data-card]',  # dummy, North declaring
                "#last-trick",
                "#claim",
            ],
        )
        await screenshot(page, "phone-play.png", full_page=False)

    await play_out(page, Deal.from_pbn(DEAL), play_fits, stop_after=6)

    # Concede the rest: a claim of none of the remaining tricks, which the defenders accept.
    await wait_for_my_turn_or_the_end(page)
    await page.click("#claim")
    await assert_fits_the_phone(page, ["button[data-claim]", "#claim-send", "#claim-cancel"])
    await page.click('button[data-claim="0"]')
    await page.click("#claim-send")
    comparison = page.locator("#comparison")
    await expect(comparison).to_contain_text("Swing", timeout=WAIT_MS)
    await expect(page.locator("#final")).to_contain_text("Final result")
    # At the end of the match the page shows the last board's deal, North's 13 cards in the
    # hand below it (no review time here: the board is not on review).
    try:
        await expect(page.locator("body")).to_have_attribute("data-review", "off")
        await expect(page.locator("#hand [data-card]")).to_have_count(13)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{await page_state(page)}") from error
    await assert_fits_the_phone(page, ["#comparison", "#boards", "#final", "#hand [data-card]"])
    await comparison.scroll_into_view_if_needed()
    await screenshot(page, "phone-comparison.png", full_page=False)
    assert_no_script_errors(page)


async def test_the_spectator_page_shows_both_tables(server: Server, browser: Browser) -> None:
    # Robots play both tables (a test leaves no match unfinished: the next server started
    # over the same store would resume its robots).
    board = one_board(DEAL, dealer="E", vulnerable="NS")
    created = await create(
        server,
        boards=2,
        robots=["t1", "t2"],
        team_a="Sharks",
        team_b="Minnows",
        deals_pbn=board + "\n" + board.replace('[Board "1"]', '[Board "2"]'),
        spectators="live",
    )
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, 1280, 900)
    await expect(page.locator(".watch-table")).to_have_count(2)
    await expect(page.locator("#watch-mode")).to_contain_text("live")
    for number, north_south in [(1, "Sharks N-S"), (2, "Minnows N-S")]:
        table = page.locator(f'.watch-table[data-table="{number}"]')
        await expect(table.locator("h2")).to_contain_text(north_south)
        await expect(table.locator(".final-result")).to_be_visible(timeout=ROBOTS_PLAY_MS)
        await expect(table.locator(".hand-rows")).to_have_count(4)
        await expect(table.locator(".hand-rows [data-card]")).to_have_count(52)  # the deal
        await expect(table.locator(".auction")).to_contain_text("1NT")
        await expect(table.locator('[data-seat-tag="N"] .robot-mark')).to_be_visible()
    await expect(page.locator("#comparison")).to_contain_text("Swing")
    await expect(page.locator("#final")).to_contain_text("Final result", timeout=ROBOTS_PLAY_MS)
    # The board table shows every board each table finished, not only the current one.
    for number in (1, 2):
        row = page.locator(f'#boards tr[data-board="{number}"]')
        for table_number in (1, 2):
            await expect(row.locator(f'[data-table-result="{table_number}"]')).to_contain_text(
                "1NT"
            )
    await screenshot(page, "watch.png")
    assert_no_script_errors(page)


async def test_a_dropped_connection_is_shown_and_resumed(server: Server, browser: Browser) -> None:
    # The fault: the network between the page and the server goes down (every WebSocket is
    # routed through the test), then comes back.
    network_up = True
    sockets: list[WebSocketRoute] = []

    async def network(socket: WebSocketRoute) -> None:
        if not network_up:
            await socket.close()  # refused: nothing gets through
            return
        socket.connect_to_server()
        sockets.append(socket)

    page = await open_page(browser, await north_link(server), 1280, 900, network)
    await wait_for_my_turn_or_the_end(page)
    await expect(page.locator("#status")).to_have_attribute("data-state", "connected")

    network_up = False
    await sockets[-1].close()
    notice = page.locator("#notice")
    await expect(notice).to_contain_text("Connection lost. Reconnecting in")
    await expect(page.locator("#status")).to_have_text("Offline")
    await expect(page.locator("#bidding-box button[data-call]:enabled")).to_have_count(0)
    await screenshot(page, "connection-lost.png", full_page=False)

    network_up = True
    await expect(notice).to_contain_text("Connection is back", timeout=WAIT_MS)
    await expect(page.locator("#status")).to_have_attribute("data-state", "connected")
    await expect(page.locator("body")).to_have_attribute("data-drops", "1")
    # The resumed page plays on, from the keyboard alone: "3" goes to the cheapest bid of
    # that level, Tab walks along the row, Enter makes the call.
    await page.keyboard.press("3")
    await expect(page.locator('button[data-call="3C"]')).to_be_focused()
    for _ in range(4):
        await page.keyboard.press("Tab")
    await expect(page.locator('button[data-call="3NT"]')).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator('#auction-played td[data-called="3NT"]')).to_have_count(1)
    await concede(page)
    assert_no_script_errors(page)


async def test_a_silently_dead_connection_is_offline_within_the_silence_and_replaced(
    server: Server, browser: Browser
) -> None:
    # The fault: the traffic of the page's connection stops both ways without a close (a
    # phone's Wi-Fi that changed): its socket stays open, and only the heartbeats tell.
    silenced: set[int] = set()
    sockets: list[WebSocketRoute] = []

    async def network(socket: WebSocketRoute) -> None:
        to_server = socket.connect_to_server()
        mine = len(sockets)
        sockets.append(socket)

        def from_page(message: str | bytes) -> None:
            if mine not in silenced:
                to_server.send(message)

        def from_server(message: str | bytes) -> None:
            if mine not in silenced:
                socket.send(message)

        socket.on_message(from_page)
        to_server.on_message(from_server)

    page = await open_page(browser, await north_link(server), 1280, 900, network)
    await wait_for_my_turn_or_the_end(page)
    status = page.locator("#status")
    await expect(status).to_have_attribute("data-state", "connected")
    # Every status the page shows, however briefly (the new connection may come at once).
    await page.evaluate(
        """() => {
          window.statuses = [];
          const text = document.getElementById("status-text");
          new MutationObserver(() => window.statuses.push(text.textContent))
            .observe(text, { childList: true, characterData: true, subtree: true });
        }"""
    )
    silenced.add(len(sockets) - 1)
    # Offline within the silence (the page watches every second), where a dead socket used
    # to look connected for a minute; and a new connection at once, not after a backoff.
    within = (HEARTBEAT_SILENCE_S + 2) * 1000
    await expect(page.locator("body")).to_have_attribute("data-drops", "1", timeout=within)
    await expect(page.locator("#notice")).to_contain_text("Connection is back", timeout=5_000)
    await expect(status).to_have_attribute("data-state", "connected")
    statuses = await page.evaluate("window.statuses")
    assert statuses[0] == "Offline", statuses
    assert statuses[-1] == "Connected", statuses
    assert len(sockets) == 2
    await screenshot(page, "connection-silent-back.png", full_page=False)
    await page.click('#bidding-box button[data-call="3NT"]')
    await expect(page.locator('#auction-played td[data-called="3NT"]')).to_have_count(1)
    await concede(page)
    assert_no_script_errors(page)


async def test_a_call_whose_answer_the_drop_took_is_made_once_and_not_sent_again(
    server: Server, browser: Browser
) -> None:
    # The fault: the server takes North's call, and the network drops before its ack gets
    # back (every WebSocket is routed through the test).
    sent: list[dict[str, object]] = []
    lose_the_next_ack = False

    async def network(socket: WebSocketRoute) -> None:
        to_server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if isinstance(message, bytes):
                sent.append(msgpack.unpackb(message))
            to_server.send(message)

        def from_server(message: str | bytes) -> None:
            nonlocal lose_the_next_ack
            acked = isinstance(message, bytes) and msgpack.unpackb(message).get("type") == "ack"
            if lose_the_next_ack and acked:
                lose_the_next_ack = False
                drops.append(asyncio.ensure_future(socket.close()))
                return
            socket.send(message)

        socket.on_message(from_page)
        to_server.on_message(from_server)

    drops: list[asyncio.Future[None]] = []
    page = await open_page(browser, await north_link(server), 1280, 900, network)
    assert await wait_for_my_turn_or_the_end(page) == "auction"
    lose_the_next_ack = True
    await page.click('#bidding-box button[data-call="3NT"]')
    await expect(page.locator("body")).to_have_attribute("data-drops", "1")
    await expect(page.locator("#notice")).to_contain_text("Connection is back", timeout=WAIT_MS)
    await expect(page.locator('#auction-played td[data-called="3NT"]')).to_have_count(1)
    # Back, the page first caught up: the table shows the call made, so the page does not
    # send it again (a call in doubt goes again only while the table is where it was).
    await expect(page.locator("#messages")).to_contain_text("3NT was not sent again")
    calls = [frame for frame in sent if frame.get("type") == "call"]
    assert [frame["call"] for frame in calls] == ["3NT"]
    runtime = next(c.runtime for c in server.connections if c.runtime is not None)
    board = runtime.state.tables[1].current
    assert board is not None
    assert [str(call) for call in board.auction.calls].count("3NT") == 1
    await asyncio.gather(*drops)
    await concede(page)
    assert_no_script_errors(page)


@pytest.mark.parametrize(
    ("message", "retry_after_ms"),
    [
        ("the store is unavailable; try again", None),
        ("the server is busy: nothing was done; send it again after retry_after_ms", 4000),
    ],
)
async def test_a_call_the_store_could_not_take_is_sent_again_once_it_can(
    server: Server, browser: Browser, message: str, retry_after_ms: int | None
) -> None:
    # The fault: the server's store is down when North calls, or the server is past what it
    # can serve and says when to come back (the test answers for the server, as it would:
    # `unavailable`); a moment later it can. The call goes again, with its action id, when
    # the refusal said, or 2 s later when it did not.
    sent: list[dict[str, Any]] = []
    sent_at: list[float] = []
    store_down = False

    async def network(socket: WebSocketRoute) -> None:
        to_server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            nonlocal store_down
            frame = msgpack.unpackb(message) if isinstance(message, bytes) else {}
            sent.append(frame)
            sent_at.append(time.monotonic())
            if store_down and frame.get("type") == "call":
                store_down = False
                unavailable = {
                    "type": "error",
                    "code": "unavailable",
                    "message": message,
                    "ref": frame["ref"],
                    "retry_after_ms": retry_after_ms,
                }
                socket.send(msgpack.packb(unavailable))
                return
            to_server.send(message)

        socket.on_message(from_page)
        to_server.on_message(socket.send)

    page = await open_page(browser, await north_link(server), 1280, 900, network)
    assert await wait_for_my_turn_or_the_end(page) == "auction"
    store_down = True
    await page.click('#bidding-box button[data-call="3NT"]')
    await expect(page.locator("#messages")).to_contain_text("could not store your")
    await expect(page.locator('#auction-played td[data-called="3NT"]')).to_have_count(1)
    calls = [frame for frame in sent if frame.get("type") == "call"]
    assert [frame["call"] for frame in calls] == ["3NT", "3NT"]
    assert calls[0]["action_id"] == calls[1]["action_id"]
    first, again = (sent_at[n] for n, frame in enumerate(sent) if frame.get("type") == "call")
    assert again - first >= (retry_after_ms or 2000) / 1000 - 0.05
    await concede(page)
    assert_no_script_errors(page)


async def test_a_page_from_before_an_update_is_told_to_reload(
    server: Server, browser: Browser
) -> None:
    # A page kept open (or cached) from before the server moved to a newer protocol, and
    # stopped serving the page's (version 6 is still served: the page's is older).
    page = await browser.new_page(viewport={"width": 1280, "height": 900})
    source = (ROOT / "clients" / "web" / "connection.js").read_text(encoding="utf-8")
    old = source.replace(
        f"export const PROTOCOL_VERSION = {PROTOCOL_VERSION};",
        f"export const PROTOCOL_VERSION = {min(SUPPORTED_VERSIONS) - 1};",
    )
    assert old != source

    async def serve_old(route: Route) -> None:
        await route.fulfill(body=old, content_type="text/javascript")

    await page.route("**/connection.js", serve_old)
    await page.goto(await north_link(server))
    await expect(page.locator("#notice")).to_contain_text(
        "Cannot join the table: the server was updated: reload this page"
    )
    await page.close()


async def concede(page: Page) -> None:
    """North, declaring, concedes the remaining tricks (the defenders accept): the match ends."""
    assert await wait_for_my_turn_or_the_end(page) == "play"
    await page.click("#claim")
    await page.click('button[data-claim="0"]')
    await page.click("#claim-send")
    await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)


async def nothing() -> None:
    return None


async def test_north_asks_chats_and_accepts_a_concession(server: Server, browser: Browser) -> None:
    # DEAL turned a seat clockwise: East opens 2NT with 20 and declares; South, a client
    # driven from here, leads and concedes every trick; North must answer.
    turned = "E:AKQ2.K32.AQ4.Q32 J43.AQ4.KJ3.AJ54 T98.JT9.T98.T987 765.8765.7652.K6"
    created = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1W"],
        team_a="Sharks",
        team_b="Minnows",
        deals_pbn=one_board(turned, dealer="E", vulnerable="All"),
        chat="table",
        names={"1N": "Nora"},
    )
    north_link, south_link = created.seats[0].link, created.seats[2].link
    assert north_link is not None
    assert south_link is not None
    south = await Client.connect(south_link, name="test South")

    def south_acts(view: PlayerView) -> PlayerView | None:
        board = view.board
        if board is None or board.phase not in ("auction", "play"):
            return None
        return view if board.phase == "play" or board.acting == "S" else None

    async def play_south() -> None:
        await south.chat("good luck partner")
        while True:
            board = (await south.wait_for(south_acts)).board
            assert board is not None
            if board.phase == "play":
                break
            await south.call("P")
        # Lead first: before dummy is faced, declarer's robot cannot check any claim.
        await south.play(board.legal[0])
        await south.claim(0, "You have the rest: my partner's hand is dead")

    south_task = asyncio.create_task(play_south())
    page = await open_page(browser, north_link, 1280, 900)
    try:
        await expect(page.locator("#chat-log")).to_contain_text("South: good luck partner")
        await page.fill("#chat-input", "thanks")
        await page.press("#chat-input", "Enter")
        await south.wait_for(lambda v: any(line.text == "thanks" for line in v.chat) or None)
        await expect(page.locator("#chat-log")).to_contain_text("You: thanks")

        await wait_for_my_turn_or_the_end(page)
        opening = page.locator('#auction td[data-index="0"]')
        await expect(opening).to_have_attribute("data-called", "2NT")
        # The page says that an opponent's call is asked about by tapping it.
        await expect(page.locator("#auction .auction-hint")).to_contain_text(
            "Tap an opponent's call to ask what it means"
        )
        await opening.locator("button[data-ask]").click()  # what does East's 2NT mean?
        await expect(page.locator("#auction .explanations")).to_contain_text("(E)")
        await bid(page, Seat.EAST, "P", nothing)

        panel = page.locator("#claim-panel")
        await expect(panel).to_contain_text("South claims 0 of the 13 remaining tricks")
        await expect(panel.locator(".claim-cards .card")).to_have_count(12)
        await expect(panel.locator(".claim-statement")).to_contain_text("my partner's hand is dead")
        await screenshot(page, "claim.png")
        await screenshots(page, "claim-statement")
        await page.click("#claim-accept")
        await expect(page.locator("#comparison")).to_contain_text("Swing", timeout=WAIT_MS)
        await expect(page.locator("#compass .contract-info")).to_contain_text("N-S 0 · E-W 13")
        await south_task
    finally:
        south_task.cancel()
        await south.close()
    assert_no_script_errors(page)

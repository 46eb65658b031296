"""The browser table at the table: people and their presence, the guard time, the completed
trick and the last one (law 66), "Confirm my bid", undo, claims and chat.

North plays in Chromium; the other humans are the Python client, driven from here; robots
fill the rest. The screenshots (at a phone's, a tablet's and a laptop's size) land in
``artifacts/screenshots/``.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from clients.client import Client
from protocol.messages import BoardView, PlayerView
from server.app import Server
from tests.clients.test_browser import (
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    press,
    screenshots,
    settled,
)
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

ONE_BOARD = one_board(STRONG_NORTH)
"""Dealer North, who holds every ace, king and queen: North bids 7NT and makes it."""


def seat_info(view: PlayerView, seat: str) -> tuple[str | None, bool]:
    player = next(p for p in view.players if p.seat == seat)
    return player.name, player.connected


def current(view: PlayerView) -> BoardView | None:
    return view.board


async def north_declares(page: Page, east: Client | None = None) -> None:
    """North bids 7NT; East passes (the client, when East is one), the robots pass."""
    await press(page, 'button[data-call="7NT"]')
    if east is not None:
        await east.wait_for(lambda v: v.board.acting == "E" or None)
        await east.call("P")
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)


# -- people -----------------------------------------------------------------------------------


async def test_a_strong_robot_is_marked_by_its_level(server: Server, browser: Browser) -> None:
    created = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1S", "1W"],
        robot_levels={"1E": "strong", "1W": "strong"},  # partners: one level
        deals_pbn=ONE_BOARD,
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    try:
        west, south = page.locator('[data-seat-tag="W"]'), page.locator('[data-seat-tag="S"]')
        await expect(west.locator(".robot-mark")).to_have_text("Robot (strong)")
        await expect(south.locator(".robot-mark")).to_have_text("Robot")
        # The server's names for its robots are the marks, not names shown beside them.
        await expect(west.locator(".player-name")).to_have_count(0)
        await expect(south.locator(".player-name")).to_have_count(0)
    finally:
        await page.close()
        await end_match(created)
    assert_no_script_errors(page)


async def test_names_robots_and_who_is_away(server: Server, browser: Browser) -> None:
    # East is named by the organiser; North and South are not, West is a robot.
    created = await create(
        server,
        boards=1,
        robots=["t2", "1W"],
        deals_pbn=ONE_BOARD,
        names={"1E": "Bob"},
        wait_for_players=True,
    )
    east = await Client.connect(link_of(created, 1, "E"), name="test East")
    context = await browser.new_context()  # one browser's storage, for two seats' pages
    page = await open_page(context, link_of(created, 1, "N"), 1280, 900)
    try:
        await expect(page.locator('#compass [data-seat-tag="E"]')).to_contain_text("Bob")
        await expect(page.locator('[data-seat-tag="W"] .robot-mark')).to_have_text("Robot")
        # North's seat has no name: the page asks for one.
        form = page.locator("#name-form")
        await expect(form).to_be_visible()
        await screenshots(page, "name-prompt")
        await page.fill("#name-input", "Nora")
        await page.click("#name-send")
        await expect(form).to_be_hidden()
        await expect(page.locator('[data-seat-tag="N"] .player-name')).to_have_text("Nora")
        named = await east.wait_for(lambda v: v if seat_info(v, "N")[0] == "Nora" else None)
        assert seat_info(named, "N") == ("Nora", True)
        stored = await page.evaluate("localStorage.getItem('duplicate.name')")
        assert stored == "Nora"
        # South is not here yet: the board waits for its four players, and nobody calls.
        turn = page.locator("#turn")
        await expect(turn).to_have_text(
            "Waiting for South to come to the table: the board starts when all four are here."
        )
        await expect(page.locator("#bidding-box button[data-call]:enabled")).to_have_count(0)
        await screenshots(page, "waiting-for-the-table")

        # A fresh join from this browser at a seat without a name sends the name it remembers.
        south = await open_page(context, link_of(created, 1, "S"), 1280, 900)
        await expect(page.locator('[data-seat-tag="S"] .player-name')).to_have_text("Nora")
        await expect(south.locator("#name-form")).to_be_hidden()
        await expect(turn).to_have_text("Your turn to call")

        # North calls; East, who must call next, drops: everyone sees East away, and the
        # turn bar says whom the table waits for.
        await press(page, 'button[data-call="2C"]')
        await east.close()
        away = page.locator('[data-seat-tag="E"] .away-mark')
        await expect(away).to_contain_text("away")
        await expect(page.locator("#turn")).to_contain_text("Waiting for East (Bob), who must call")
        await expect(page.locator("#turn .away-mark")).to_contain_text("away")
        await expect(south.locator('[data-seat-tag="E"] .away-mark')).to_be_visible()
        await screenshots(page, "away")
        # Back again: the mark goes.
        east = await Client.connect(link_of(created, 1, "E"), name="test East")
        await expect(away).to_have_count(0)
        await expect(page.locator("#turn")).to_have_text("East to call")
        assert_no_script_errors(south)
        await south.close()
    finally:
        await east.close()
        await end_match(created)
    assert_no_script_errors(page)


# -- the guard time, the completed trick, the last trick ---------------------------------------

IN_THE_GUARD = """async ([selector, act]) => {
    // The first moment the button is there and enabled while the guard is on (the view just
    // changed under it): seen by a MutationObserver, whose callback runs right after the
    // change, in the same task, not at the next animation frame (which a busy machine may
    // give only after the guard's 300 ms). The guard is then held on until the test lets it
    // go (LET_GO), so that a key press sent from the test arrives within it however slowly.
    const ui = await import("./web/ui.js");  // the page's own module: its state
    return await new Promise(resolve => {
        const moment = () => {
            const button = document.querySelector(selector);
            if (document.body.dataset.guard !== "on" || !button || button.disabled) return false;
            ui.state.guardUntil = Date.now() + 600000;
            if (act === "click") button.click(); else button.focus();
            resolve(true);
            return true;
        };
        if (moment()) return;
        const observer = new MutationObserver(() => { if (moment()) observer.disconnect(); });
        observer.observe(document.body, {attributes: true, childList: true, subtree: true});
    });
}"""
"""Click (``act`` ``"click"``) or focus a button at the first moment it is there while the
guard is on, and hold the guard on."""

LET_GO = """() => import("./web/ui.js").then(ui => { ui.state.guardUntil = 0; })"""
"""Let the guard held by IN_THE_GUARD end (its timer turns ``data-guard`` off)."""


async def ignored(page: Page) -> int:
    return int(await page.evaluate("Number(document.body.dataset.ignored ?? 0)"))


async def test_a_click_just_after_the_table_changed_is_ignored(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server, boards=1, robots=["t2", "1E", "1S", "1W"], deals_pbn=ONE_BOARD, names={"1N": "Nora"}
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    calls = page.locator("#auction td[data-called]")
    # North opens 2C; the robots answer, and the bidding box comes back under North's pointer:
    # a click on 7NT at that moment does nothing.
    await press(page, 'button[data-call="2C"]')
    before = await ignored(page)
    async with asyncio.timeout(WAIT_MS / 1000):
        await page.evaluate(IN_THE_GUARD, ['button[data-call="7NT"]', "click"])
    assert await ignored(page) == before + 1
    await page.evaluate(LET_GO)
    await settled(page)
    await expect(page.locator("#bidding-box")).to_be_visible()
    await expect(calls).to_have_count(4)  # 2C and three answers; 7NT was not sent
    # Once the guard is over, the same click counts.
    await press(page, 'button[data-call="7NT"]')
    await expect(page.locator('#auction-played td[data-called="7NT"]')).to_have_count(
        1, timeout=WAIT_MS
    )
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)

    # East leads; North plays from dummy; West plays: a key press on North's card at that
    # very moment is ignored too.
    await press(page, '.seat-box[data-seat="S"] button[data-card]:enabled')
    card = "#hand button[data-card]:enabled"
    async with asyncio.timeout(WAIT_MS / 1000):
        await page.evaluate(IN_THE_GUARD, [card, "focus"])
    await page.keyboard.press("Enter")
    assert await ignored(page) == before + 2
    await page.evaluate(LET_GO)
    await settled(page)
    await expect(page.locator("#trick [data-trick-card]")).to_have_count(3)

    # North's card completes the trick (North wins it): the trick stays a moment, then it is
    # gathered while North thinks about the lead.
    await press(page, card)
    trick = page.locator("#trick")
    await expect(trick).to_have_attribute("data-trick-state", "complete")
    await expect(trick.locator("[data-trick-card]")).to_have_count(4)
    loop = asyncio.get_running_loop()
    shown = loop.time()
    await expect(trick).to_have_attribute("data-trick-state", "live", timeout=3000)
    assert loop.time() - shown > 0.3, "the completed trick was gathered at once"
    await expect(trick.locator("[data-trick-card]")).to_have_count(0)

    # Law 66: the last trick may be looked at until North's side plays to the next one.
    last = page.locator("#last-trick")
    await expect(last).to_be_enabled()
    await last.click()
    await expect(trick).to_have_attribute("data-trick-state", "last")
    await expect(trick.locator("[data-trick-card]")).to_have_count(4)
    await press(page, card)  # North leads to the second trick
    await expect(last).to_be_disabled()
    await expect(trick).to_have_attribute("data-trick-state", "live")
    await end_match(created)
    assert_no_script_errors(page)


async def test_confirm_my_bid(server: Server, browser: Browser) -> None:
    created = await create(
        server, boards=1, robots=["t2", "1E", "1S", "1W"], deals_pbn=ONE_BOARD, names={"1N": "Nora"}
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    setting = page.locator("#confirm-bid")
    await expect(setting).not_to_be_checked()
    await setting.check()
    assert await page.evaluate("localStorage.getItem('duplicate.confirm-bid')") == "1"
    # The setting is the player's: it is there after a reload.
    await page.reload()
    await expect(setting).to_be_checked()

    # A call is chosen first, and sent only on "Confirm".
    await press(page, 'button[data-call="7NT"]')
    await expect(page.locator('button[data-call="7NT"]')).to_have_attribute("aria-pressed", "true")
    confirm = page.locator("#call-confirm")
    await expect(confirm).to_have_text("Confirm 7NT")
    await screenshots(page, "confirm-bid", show="#bidding-box")
    await page.wait_for_timeout(300)
    await expect(page.locator("#auction td[data-called]")).to_have_count(0)  # nothing sent
    await press(page, 'button[data-call="6NT"]')  # changed my mind
    await expect(confirm).to_have_text("Confirm 6NT")
    await press(page, "#call-confirm")
    await expect(
        page.locator('#auction-played td[data-called="6NT"], #auction td[data-called="6NT"]')
    ).to_have_count(1, timeout=WAIT_MS)
    await end_match(created)
    assert_no_script_errors(page)


# -- undo ---------------------------------------------------------------------------------------


def undo_pending(view: PlayerView) -> BoardView | None:
    return view.board if view.board is not None and view.board.undo is not None else None


async def test_undo_refused_then_agreed_both_ways(server: Server, browser: Browser) -> None:
    # East and South are people (the Python client): nobody calls before they do; West is a
    # robot, who agrees to any undo at once.
    created = await create(
        server,
        boards=1,
        robots=["t2", "1W"],
        deals_pbn=ONE_BOARD,
        names={"1N": "Nora", "1E": "Bob", "1S": "Sue"},
    )
    east = await Client.connect(link_of(created, 1, "E"), name="test East")
    south = await Client.connect(link_of(created, 1, "S"), name="test South")
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    calls = page.locator("#auction td[data-called]")
    panel = page.locator("#undo-panel")
    try:
        # North's slip: 2C. North asks to take it back; East refuses.
        await press(page, 'button[data-call="2C"]')
        await expect(calls).to_have_count(1)
        await page.click("#undo")
        await expect(panel).to_contain_text("You ask to take back your 2♣")
        await east.wait_for(undo_pending)
        await east.answer_undo(False)
        await expect(page.locator("#messages")).to_contain_text("East (Bob) refused the undo")
        await expect(panel).to_be_hidden()
        await expect(calls).to_have_count(1)
        # Asked again, East agrees (West's robot agrees at once): the call is taken back.
        await expect(page.locator("#undo")).to_be_enabled()
        await page.click("#undo")
        await east.wait_for(undo_pending)
        await east.answer_undo(True)
        await expect(calls).to_have_count(0)
        await expect(page.locator("#messages")).to_contain_text("was taken back")
        await expect(page.locator("#bidding-box")).to_be_visible()

        # Now East slips, and North decides: refused, then agreed.
        await press(page, 'button[data-call="7NT"]')
        await east.wait_for(lambda v: v.board.acting == "E" or None)
        await east.call("P")
        await east.undo()
        await south.wait_for(undo_pending)
        await south.answer_undo(True)
        agree = page.locator("#undo-agree")
        await expect(agree).to_be_visible()
        await expect(panel).to_contain_text("East (Bob) asks to take back their Pass")
        await expect(page.locator("#turn")).to_contain_text("Your answer")
        await screenshots(page, "undo")
        await page.click("#undo-refuse")
        await expect(panel).to_be_hidden()
        await expect(calls).to_have_count(2)
        await east.undo()
        await south.wait_for(undo_pending)
        await south.answer_undo(True)
        await agree.click()
        await expect(calls).to_have_count(1)
        await east.wait_for(lambda v: (v.board.acting == "E" and v.board.legal) or None)
    finally:
        await east.close()
        await south.close()
        await end_match(created)
    assert_no_script_errors(page)


# -- claims ----------------------------------------------------------------------------------------


def claim_pending(view: PlayerView) -> BoardView | None:
    board = view.board
    if board is None or board.claim is None or board.claim.status != "pending":
        return None
    return board


async def test_a_claim_rejected_is_played_on_and_one_is_withdrawn(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=1,
        robots=["t2", "1S", "1W"],
        deals_pbn=ONE_BOARD,
        names={"1N": "Nora", "1E": "Bob"},
    )
    east = await Client.connect(link_of(created, 1, "E"), name="test East")
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    panel = page.locator("#claim-panel")
    try:
        await north_declares(page, east)
        lead = await east.wait_for(lambda v: (v.board.acting == "E" and v.board.legal) or None)
        await east.play(lead[0])
        await press(page, '.seat-box[data-seat="S"] button[data-card]:enabled')
        await press(page, "#hand button[data-card]:enabled")  # North wins the first trick

        # North claims the rest with a statement; East sees both and rejects: play goes on.
        statement = "All my cards are top tricks"
        await page.click("#claim")
        await page.click('button[data-claim="12"]')
        await page.fill("#claim-statement", statement)
        await page.click("#claim-send")
        await expect(panel).to_contain_text("You claim 12 of the 12 remaining tricks")
        await expect(panel).to_contain_text(statement)
        await expect(page.locator("#claim-withdraw")).to_be_visible()
        claimed = await east.wait_for(claim_pending)
        assert claimed.claim is not None
        assert claimed.claim.statement == statement
        assert claimed.claim.cards is not None
        assert len(claimed.claim.cards) == 12
        await east.answer_claim(False)
        await expect(panel).to_have_attribute("data-claim-status", "rejected")
        await expect(panel).to_contain_text("rejected: play goes on")
        # (The turn bar carries the contract after the turn in the play.)
        await expect(page.locator("#turn")).to_have_text("Your turn: play a card 7NT by N")
        await screenshots(page, "claim-rejected")
        await press(page, "#hand button[data-card]:enabled")
        await expect(panel).to_be_hidden()  # the next card clears it

        # East follows, North plays dummy's card, West follows; North claims again and
        # withdraws the claim: the play goes on.
        follow = await east.wait_for(lambda v: (v.board.acting == "E" and v.board.legal) or None)
        await east.play(follow[0])
        await press(page, '.seat-box[data-seat="S"] button[data-card]:enabled')
        await expect(page.locator("#claim")).to_be_enabled(timeout=WAIT_MS)
        await page.click("#claim")
        await page.click('button[data-claim="11"]')
        await page.click("#claim-send")
        await page.click("#claim-withdraw")
        await expect(panel).to_have_attribute("data-claim-status", "withdrawn")
        await expect(panel).to_contain_text("withdrawn: play goes on")

        # The third claim East accepts (and West's robot): the board is over.
        await page.click("#claim")
        await page.click('button[data-claim="11"]')
        await page.click("#claim-send")
        await east.wait_for(claim_pending)
        await east.answer_claim(True)
        await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)
    finally:
        await east.close()
        await end_match(created)
    assert_no_script_errors(page)


# -- chat ---------------------------------------------------------------------------------------


async def test_chat_reaches_whom_the_match_says(server: Server, browser: Browser) -> None:
    # The default: during a board, a line reaches the opponents only.
    created = await create(
        server, boards=1, robots=["t2", "1W"], deals_pbn=ONE_BOARD, names={"1N": "Nora"}
    )
    east = await Client.connect(link_of(created, 1, "E"), name="test East")
    south = await Client.connect(link_of(created, 1, "S"), name="test South")
    quiet = await create(
        server, boards=1, robots=["t2", "1E", "1S", "1W"], deals_pbn=ONE_BOARD, chat="off"
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    silent = await open_page(browser, link_of(quiet, 1, "N"), 1280, 900)
    try:
        await expect(page.locator("#chat-note")).to_contain_text("your opponents only")
        await page.fill("#chat-input", "good luck")
        await page.press("#chat-input", "Enter")
        line = page.locator("#chat-log li").last
        await expect(line).to_contain_text("You: good luck (to your opponents)")
        await east.wait_for(lambda v: any(c.text == "good luck" for c in v.chat) or None)
        await south.ping()
        assert isinstance(south.view, PlayerView)
        assert all(c.text != "good luck" for c in south.view.chat), "partner got the line"

        # Chat off: the box is disabled during the board, and says why.
        await expect(silent.locator("#chat-input")).to_be_disabled()
        await expect(silent.locator("#chat-note")).to_contain_text("Chat is off during a board")
        await end_match(quiet)
        await expect(silent.locator("#chat-input")).to_be_enabled(timeout=WAIT_MS)
    finally:
        await east.close()
        await south.close()
        await end_match(created)
    assert_no_script_errors(page)
    assert_no_script_errors(silent)


# -- the opening lead face down (law 41A) ------------------------------------------------------


async def test_north_faces_partners_opening_lead_made_face_down(
    server: Server, browser: Browser
) -> None:
    # East (the Python client) declares 1NT; South's robot leads face down; North, in
    # Chromium, sees the card's back, may ask about the auction, then faces the lead.
    created = await create(
        server,
        boards=1,
        robots=["t2", "1S"],
        deals_pbn=one_board(STRONG_NORTH.replace("N:", "E:"), dealer="E"),
        face_down_lead=True,
    )
    east = await Client.connect(link_of(created, 1, "E"), name="test E")
    west = await Client.connect(link_of(created, 1, "W"), name="test W")
    page = await open_page(browser, link_of(created, 1, "N"), 390, 844)
    try:
        await east.wait_for(lambda v: v.board.acting == "E" or None)
        await east.call("1NT")  # South's robot passes
        await west.wait_for(lambda v: v.board.acting == "W" or None)
        await west.call("P")
        await press(page, 'button[data-call="P"]')  # three passes: East declares 1NT
        # South leads face down: North sees its back, and the offer to face it.
        back = page.locator('.trick-slot[data-seat="S"] .card-back')
        await expect(back).to_be_visible(timeout=WAIT_MS)
        await expect(page.locator("#turn")).to_contain_text(
            "Your partner led face down: face the lead when you are ready"
        )
        await expect(page.locator("#face-lead")).to_contain_text("tap a call in the auction")
        await expect(page.locator(".seat-box[data-seat='W'] [data-card]")).to_have_count(0)
        declarer = await east.wait_for(lambda v: v.face_down_lead or None)
        assert (declarer.seat, declarer.card) == ("S", None)  # East does not see it
        await screenshots(page, "lead-face-down")
        await press(page, "#face-lead-send")
        # Faced: the card is played, dummy (West) goes down, and the panel goes.
        await expect(page.locator('.trick-slot[data-seat="S"] [data-trick-card]')).to_have_count(1)
        await expect(page.locator(".seat-box[data-seat='W'] [data-card]")).to_have_count(13)
        await expect(page.locator("#face-lead")).to_be_hidden()
        await expect(page.locator("#spoken")).to_contain_text("South leads face down.")
        faced = await east.wait_for(lambda v: v.board.current_trick.cards or None)
        assert [c.seat for c in faced] == ["S"]
        assert_no_script_errors(page)
    finally:
        await east.close()
        await west.close()
        await end_match(created)

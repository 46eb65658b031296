"""A replay-duplicate series in the browser: the same four players meet three times, each
meeting after the first replaying, turned, the board the one before played new and then
playing a new one (``sessions`` 3, one board a meeting), each begun by the director.

The director's page shows the meeting beside the round, the meetings table (each meeting's
boards and the pairs' points on them, the series' total) and the button that starts the
next meeting; a player's page says the meeting in its round bar and marks their pair. The
organiser's console makes such a match from its form, refusing a number of meetings it
cannot take beside the field. Every number on the page is checked against what the server
says (``view.match.sessions``, ``view.match.standings``); the pages pass axe-core and fit a
phone without scrolling sideways. The screenshots land in ``artifacts/screenshots/``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Locator, Page, expect

from clients.client import Client
from protocol.messages import MatchSummary, WatchView
from server.app import Server
from tests.clients.sizes import layout_faults, settle
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    SCREENSHOTS,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    screenshots,
)
from tests.clients.test_browser_languages import SHOWN_TEXTS, english_left
from tests.clients.test_browser_movement import my_turn_or, play_passively
from tests.clients.test_browser_organise import (
    assert_fits_and_accessible,
    finish,
    organise_url,
    shots,
    sign_in,
    signed_in,
)
from tests.server.harness import STRONG_NORTH, create

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

SHOTS = SCREENSHOTS / "series"
PHONE = (360, 740)
DESKTOP = (1366, 900)
NAMES = {"1N": "Ann", "1E": "Bob", "1S": "Cat", "1W": "Dan"}
"""Pair 1-3 is North-South in meeting 1 (Ann & Cat), pair 2-4 East-West (Bob & Dan)."""


def deals() -> str:
    """Board 1 (meeting 1's new board): North holds every ace, king and queen; board 2
    (meeting 2's): West does. Turned one seat on their replay, the other pair holds them."""
    hands = STRONG_NORTH.removeprefix("N:")
    return "\n".join(
        f'[Board "{board}"]\n[Dealer "{seat}"]\n[Vulnerable "None"]\n[Deal "{seat}:{hands}"]\n'
        for board, seat in ((1, "N"), (2, "W"))
    )


SERIES = {
    "format": "replay",
    "sessions": 3,
    "boards": 1,
    "scoring": "total_points",
    "stage_two": "director",
    "review_seconds": 0,
    "names": NAMES,
    "deals_pbn": deals(),
}
"""Three meetings of one new board each: rounds 1 (meeting 1), 2-3 (meeting 2: board 1
replayed, board 2 new), 4 (meeting 3: board 2 replayed); meetings 2 and 3 wait for the
director."""


def runs(boards: list[int]) -> str:
    """Board numbers as the page writes them: "–" for none, "3", "1–4" (a series' boards
    of a meeting are consecutive)."""
    if not boards:
        return "–"
    return str(boards[0]) if len(boards) == 1 else f"{boards[0]}–{boards[-1]}"


def points_text(points: float) -> str:
    """Total points as the page writes them (whole, a true minus sign)."""
    text = str(round(points))
    return f"−{text[1:]}" if text.startswith("-") else text


async def assert_meetings_shown(
    page: Page, match: MatchSummary, current: int | None = None, following: int | None = None
) -> None:
    """The meetings table says what the server says: each meeting's boards and the pairs'
    points on them (a meeting with nothing compared shows none), the series' total the
    standings; ``current`` marked as now, or (held for the director) ``following`` as
    next."""
    table = page.locator("#meetings")
    compared = {c.board for c in match.comparisons}
    await expect(table.locator("tbody tr")).to_have_count(len(match.sessions))
    for session in match.sessions:
        row = table.locator(f'tbody tr[data-session="{session.session}"]')
        await expect(row.locator("th")).to_contain_text(f"Meeting {session.session}")
        boards = row.locator(".meeting-boards")
        await expect(boards).to_have_attribute("data-boards", " ".join(map(str, session.boards)))
        await expect(boards).to_have_text(runs(session.boards))
        scored = any(board in compared for board in session.boards)
        for pair, points in session.points.items():
            cell = row.locator(f'td[data-competitor="{pair}"]')
            await expect(cell).to_have_text(points_text(points) if scored else "–")
            if scored:
                assert float(await cell.get_attribute("data-points") or "nan") == points
        if session.session == current:
            await expect(row).to_have_attribute("aria-current", "true")
            await expect(row).to_contain_text("(now)")
        else:
            await expect(row).not_to_have_attribute("aria-current", "true")
            await expect(row).not_to_contain_text("(now)")
        if session.session == following:
            await expect(row).to_contain_text("(next)")
        else:
            await expect(row).not_to_contain_text("(next)")
    total = table.locator("tfoot tr")
    await expect(total).to_contain_text("Series total")
    for standing in match.standings:
        cell = total.locator(f'td[data-competitor="{standing.competitor}"]')
        await expect(cell).to_have_text(points_text(standing.points))
        assert float(await cell.get_attribute("data-points") or "nan") == standing.points


PAGE_SIZES = {"small phone": PHONE, "phone": (375, 667), "desktop": DESKTOP}


async def shot(page: Page, name: str, show: str) -> None:
    """``show`` at the top of the screen, at a phone's size and a desktop's."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    for size, (width, height) in (("phone", PHONE), ("desktop", DESKTOP)):
        await page.set_viewport_size({"width": width, "height": height})
        await settle(page)
        await page.locator(show).evaluate("e => e.scrollIntoView({block: 'start'})")
        await page.evaluate("window.scrollBy(0, -64)")  # below the header at the top
        await page.screenshot(path=SHOTS / f"{name}-{size}.png")
    if original is not None:
        await page.set_viewport_size(original)


async def truth(client: Client, predicate: Callable[[MatchSummary], bool]) -> MatchSummary:
    """The match panel as the server sends it, once ``predicate(match)`` holds."""
    view = await client.wait_for(
        lambda v: v if predicate(v.match) else None, timeout=ROBOTS_PLAY_MS / 1000
    )
    assert isinstance(view, WatchView)
    return view.match


async def play_along(client: Client) -> None:
    """A player driven from here passes, plays their first legal card (and dummy's) and
    accepts claims, however long the director keeps a meeting waiting, to the end."""
    while True:
        view = await client.wait_for(my_turn_or(lambda _: False), timeout=None)
        board = view.board
        if view.match.finished or board is None:
            return
        if "claim_answer" in board.actions:
            await client.answer_claim(True)
        elif board.phase == "auction":
            await client.call("P")
        else:
            await client.play(board.legal[0])
        await client.ping()


SERIES_PARTS = ("#meetings", "#round-hold", "#table-")
"""Where the director's page speaks of the series: the meetings table, the meeting held,
the tables' headings."""


async def said_in(page: Page, language: str) -> None:
    """In ``language``, the parts of the page about the series say nothing in English (the
    players' names aside); a screenshot at a phone's size; then English again."""
    await page.select_option("#language", language)
    await expect(page.locator("html")).to_have_attribute("lang", language)
    texts = [
        (text, where)
        for text, where in await page.evaluate(SHOWN_TEXTS)
        if where.startswith(SERIES_PARTS) and not any(n in text for n in NAMES.values())
    ]
    assert any(where.startswith("#meetings") for _, where in texts), texts
    left = english_left(texts, language)
    assert not left, f"English left in the {language} page: {left}"
    await page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    await settle(page)
    faults = await layout_faults(page, player=False)
    assert not faults, f"the director's page in {language} at a phone's size: {faults}"
    await shot(page, f"director-meeting-2-{language}", "#meetings")
    await page.select_option("#language", "en")


def heading(page: Page) -> Locator:
    return page.locator(".watch-table h2 .teams").first


async def test_the_director_runs_a_series_of_meetings(server: Server, browser: Browser) -> None:
    # North (player 1) only passes: holding the top cards (board 1 in meeting 1, board 2,
    # turned, in meeting 3) they make nothing, where the robots with them make 7NT. So the
    # meetings have points to show, not 0s.
    created = await create(server, robots=["1E", "1S", "1W"], **SERIES)
    north = await Client.connect(link_of(created, 1, "N"), name="Ann")
    player = asyncio.create_task(play_along(north))
    truth_client = await Client.connect(created.director, name="test director")
    page = await open_page(browser, created.director, *DESKTOP)
    try:
        # Meeting 1 played (round 1): meeting 2 waits for the director.
        match = await truth(truth_client, lambda m: m.held_round == 2)
        assert [s.session for s in match.sessions] == [1, 2, 3]
        assert [s.rounds for s in match.sessions] == [[1], [2, 3], [4]]
        assert [s.boards for s in match.sessions] == [[], [1], [2]]
        button = page.locator("#start-round")
        await expect(button).to_have_text("Start meeting 2", timeout=ROBOTS_PLAY_MS)
        await expect(button).to_have_attribute("data-round", "2")
        await expect(page.locator("#round-hold .held-round")).to_have_text(
            "Meeting 1 is over: meeting 2 (round 2) waits for you."
        )
        await expect(heading(page)).to_have_text("meeting 1 of 3 · round 1 of 4")
        await assert_meetings_shown(page, match, following=2)
        await expect(page.locator("#meetings caption")).to_have_text(
            "Meetings (Total points)A board counts in the meeting that replays it."
        )
        await shot(page, "director-meeting-1", "#match")

        # Meeting 2: board 1 replayed (scored here), board 2 new; then meeting 3 waits.
        await button.click()
        match = await truth(truth_client, lambda m: m.held_round == 4)
        assert {c.board for c in match.comparisons} == {1}
        assert match.sessions[1].boards == [1]
        await expect(button).to_have_text("Start meeting 3", timeout=ROBOTS_PLAY_MS)
        await expect(heading(page)).to_have_text("meeting 2 of 3 · round 3 of 4")
        row = page.locator('#meetings tbody tr[data-session="2"]')
        await expect(row.locator(".meeting-boards")).to_have_text("1")
        await assert_meetings_shown(page, match, following=3)
        assert match.sessions[1].points == {"1-3": -1520.0, "2-4": 1520.0}
        await expect(row.locator('td[data-competitor="1-3"]')).to_have_text("−1520")
        await shot(page, "director-meeting-2", "#match")
        await shot(page, "director-hold", "#watch")
        await assert_fits_and_accessible(page, "the director's page, meeting 3 held", PAGE_SIZES)
        for language in ("ru", "sv"):
            await said_in(page, language)

        # Meeting 3 replays board 2: the series is over, its total the standings.
        await button.click()
        match = await truth(truth_client, lambda m: m.finished)
        await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)
        await expect(button).to_have_count(0)
        await assert_meetings_shown(page, match)
        for standing in match.standings:
            assert standing.points == sum(s.points[standing.competitor] for s in match.sessions)
        await shot(page, "director-final", "#match")
        await assert_fits_and_accessible(page, "the director's page, the series over", PAGE_SIZES)
        await player
    finally:
        player.cancel()
        await north.close()
        await truth_client.close()
        await end_match(created)
    assert_no_script_errors(page)


async def test_a_player_sees_the_meeting_and_their_pair(server: Server, browser: Browser) -> None:
    # North (Ann, pair 1-3) is a person, driven from here; their page is open beside.
    created = await create(server, robots=["1E", "1S", "1W"], **SERIES)
    link = link_of(created, 1, "N")
    north = await Client.connect(link, name="Ann")
    page = await open_page(browser, link, *PHONE)
    try:
        info = page.locator("#round-info")
        await expect(info.locator(".round")).to_have_text(
            "Meeting 1 of 3 · round 1 of 4", timeout=WAIT_MS
        )
        await expect(info.locator(".round")).to_have_attribute("data-meeting", "1")
        table = page.locator("#meetings")
        await expect(table.locator('tbody tr[data-session="1"]')).to_have_attribute(
            "aria-current", "true"
        )
        await expect(table.locator('tbody tr[data-session="1"] th')).to_have_text("Meeting 1 (now)")
        view = await play_passively(north, lambda view: view.played_round)
        held = page.locator("#held-round")
        await expect(held).to_have_text("Meeting 2 waits for the director", timeout=WAIT_MS)
        await expect(page.locator("#turn")).to_have_text("Meeting 2 waits for the director")
        await expect(table.locator('thead th[data-competitor="1-3"]')).to_have_text(
            "Ann & Cat (you)"
        )
        await expect(table.locator('thead th[data-competitor="2-4"]')).to_have_text("Bob & Dan")
        await assert_meetings_shown(page, view.match, following=2)
        await screenshots(page, "series-player-held", show="#seating")
        await shot(page, "player-meetings", "#match")
        await assert_fits_and_accessible(page, "the player's page", PAGE_SIZES)

        # The director starts meeting 2: the round bar says so.
        director = await Client.connect(created.director, name="test director")
        try:
            await director.start_round(2)
        finally:
            await director.close()
        await expect(info.locator(".round")).to_have_text(
            "Meeting 2 of 3 · round 2 of 4", timeout=WAIT_MS
        )
        await expect(held).to_have_count(0)
        await expect(table.locator('tbody tr[data-session="2"]')).to_have_attribute(
            "aria-current", "true"
        )
    finally:
        await north.close()
        await end_match(created)
    assert_no_script_errors(page)


@pytest_asyncio.fixture
async def organiser(browser: Browser) -> AsyncIterator[BrowserContext]:
    """The organiser's browser: its own storage (the session lives in its tab)."""
    context = await browser.new_context(viewport={"width": 1366, "height": 768})
    yield context
    await context.close()


async def test_the_console_makes_a_series(
    server: Server, browser: Browser, organiser: BrowserContext
) -> None:
    page = await open_page(organiser, organise_url(server), 1366, 768)
    director: str | None = None
    try:
        await sign_in(page)
        await signed_in(page)
        await page.click("#tab-create")
        # No Meetings but for replay duplicate.
        await expect(page.locator("#sessions")).to_have_count(0)
        await page.select_option("#format", "replay")
        sessions = page.locator("#sessions")
        await expect(sessions).to_have_value("")
        await expect(page.locator("#hint-sessions")).to_contain_text(
            "each meeting replays the last one's new boards, turned, then plays new ones"
        )
        await expect(page.locator('label[for="stage_two"]')).to_have_text("Stage 2 starts")
        await expect(page.locator('label[for="boards"]')).to_have_text("Boards")

        # 13 meetings: refused beside the field, before anything is sent.
        await sessions.fill("13")
        await expect(page.locator('label[for="stage_two"]')).to_have_text(
            "Each later meeting starts"
        )
        await expect(page.locator('label[for="boards"]')).to_have_text("New boards per meeting")
        await expect(page.locator("#hint-boards")).to_contain_text("each meeting plays")
        await expect(page.locator("#stage_two option")).to_have_text(
            ["As soon as the one before is over", "When the director starts it"]
        )
        await page.click("#create-send")
        error = page.locator("#error-sessions")
        await expect(error).to_have_text(
            "A whole number of meetings, 2 to 12 (empty: a single match)."
        )
        await expect(sessions).to_have_attribute("aria-invalid", "true")
        await expect(sessions).to_be_focused()
        await shots(page, "series-refused", show='[data-field="sessions"]', folder=SHOTS)
        await assert_fits_and_accessible(
            page, "the form, meetings refused", {"desktop": (1366, 768), "tablet": (768, 1024)}
        )

        # Too many boards in all (40 new boards in each of 2 meetings): beside Boards.
        await sessions.fill("3")
        await expect(error).to_be_hidden()
        await expect(sessions).not_to_have_attribute("aria-invalid", "true")
        await page.fill("#boards", "40")
        await page.click("#create-send")
        await expect(page.locator("#error-boards")).to_contain_text("make 80 boards")
        await page.fill("#boards", "1")

        # Emptied, the form reads as one replay match again; filled, as a series.
        await sessions.fill("")
        await expect(page.locator('label[for="stage_two"]')).to_have_text("Stage 2 starts")
        await sessions.fill("3")
        await page.select_option("#stage_two", "director")
        await page.check("#robots-t1")
        await page.fill("#review_seconds", "0")
        await page.fill("#team_a", "Series")
        await shots(page, "series-form", show='[data-field="sessions"]', folder=SHOTS)
        await page.click("#create-send")
        banner = page.locator("#created")
        await expect(banner).to_contain_text("The match is made")
        match_id = await banner.get_attribute("data-match-id")
        assert match_id is not None
        runtime = await server.runtime(match_id)
        assert runtime.config.movement.sessions == (1, 2, 4)
        assert runtime.config.movement.boards == (1, 2)
        card = page.locator(f'.org-match[data-match-id="{match_id}"]')
        director = await card.locator(".link-item[data-role='director'] .link-text").inner_text()
        assert_no_script_errors(page)
    finally:
        if director is not None:
            await finish(director)

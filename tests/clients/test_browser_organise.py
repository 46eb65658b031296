"""The organiser's console (#25) in Chromium: /organise.

An organiser signs in with the key, makes a teams match from the form (a pasted roster, the
server's robots at table 2, prepared deals), reads a seat's QR code back from the page's
picture of it and opens that link as the player, watches the player come to the table and
the board go on (its contract and trick, a call for the director), downloads the record
once the match is over, archives it, and prints the table cards (one page a table). A
second organiser sees the same list. A wrong key, a missing or unknown session and a page
of another site are refused. The console passes axe-core at a laptop's and a tablet's
size, with nothing off the screen; its screenshots land in
``artifacts/screenshots/organise/``.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import msgpack
import pytest
import pytest_asyncio
import websockets
import zxingcpp
from PIL import Image
from playwright.async_api import Browser, BrowserContext, Locator, Page, WebSocketRoute, expect
from websockets.typing import Origin

from clients.client import Client, ClientError
from protocol.messages import HEARTBEAT_SILENCE_S, PROTOCOL_VERSION, PlayerView, WatchView
from server.app import Server
from tests.clients.sizes import layout_faults, settle
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    SCREENSHOTS,
    assert_no_script_errors,
    chromium,
    open_page,
)
from tests.clients.test_browser_access import SERIOUS, summary, violations
from tests.clients.test_browser_languages import SHOWN_TEXTS, english_left
from tests.conftest import ORGANISER_KEY
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")


@pytest.fixture
def server(own_server: Server) -> Server:
    """The console lists the whole store's matches: a Redis of the test's own, which no
    test running at the same time adds matches to."""
    return own_server


SHOTS = SCREENSHOTS / "organise"
SCREENS = {"desktop": (1366, 768), "laptop": (1024, 768), "tablet": (768, 1024)}
"""The organiser's screens: a laptop, a small laptop, a tablet held upright."""
ROSTER = '[Table "1"]\n[North "Ann"]\n[East "Bo"]\n[South "Cy"]\n[West "Di"]\n'
"""Table 1's players, pasted as a PBN-style roster (table 2 is the server's robots)."""
SESSION_KEY = "duplicate-organiser-session"
GIVEN = ("Sharks", "Minnows", "Robots Red", "Robots Blue", "Sealed", "Team B", "Ann", "Bo")
"""The names this module's tests give (and the server's default for a team without one): a
page shows them as they are, in any language."""


def organise_url(server: Server) -> str:
    return f"{server.public_url}/organise"


async def sign_in(page: Page, key: str = ORGANISER_KEY) -> None:
    await expect(page.locator("#sign-in-form")).to_be_visible()
    await page.fill("#organiser-key", key)
    await page.click("#sign-in-send")


async def signed_in(page: Page) -> None:
    await expect(page.locator("#console")).to_be_visible()
    await expect(page.locator("#status")).to_have_attribute("data-state", "connected")


async def shots(
    page: Page, name: str, show: str | None = None, *, full: bool = False, folder: Path = SHOTS
) -> None:
    """The screen at each of SCREENS as ``{folder}/{name}-{screen}.png`` (``show``: a
    selector scrolled to the top first; ``full``: the whole page); the page gets its size
    back."""
    folder.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    for screen, (width, height) in SCREENS.items():
        await page.set_viewport_size({"width": width, "height": height})
        await settle(page)
        await page.evaluate(
            """show => {
                if (show === null) return window.scrollTo(0, 0);
                document.querySelector(show).scrollIntoView({block: "start"});
                window.scrollBy(0, -64);  // below the header that stays at the top
            }""",
            show,
        )
        await page.screenshot(path=folder / f"{name}-{screen}.png", full_page=full)
    if original is not None:
        await page.set_viewport_size(original)


async def assert_fits_and_accessible(
    page: Page, name: str, screens: Mapping[str, tuple[int, int]] = SCREENS
) -> None:
    """At each of ``screens`` (the organiser's: a laptop's and a tablet's size): nothing
    clipped or off the screen, and no serious or critical violation of axe-core's rules."""
    original = page.viewport_size
    problems: dict[str, object] = {}
    for screen, (width, height) in screens.items():
        await page.set_viewport_size({"width": width, "height": height})
        await settle(page)
        faults = await layout_faults(page, player=False)
        found = [v for v in await violations(page) if v["impact"] in SERIOUS]
        if faults:
            problems[f"{screen} layout"] = faults
        if found:
            problems[f"{screen} axe"] = summary(found)
    if original is not None:
        await page.set_viewport_size(original)
    assert not problems, f"{name}: {problems}"


DATA = re.compile(r"code\.link-text|span\.match-id|p\.commitment")
"""Where the page shows what the server wrote, as written: the links, the match's id, the
deals' commitment."""


async def assert_all_said_in(
    page: Page, language: str, where: str, matches: tuple[str, ...] = ()
) -> None:
    """No text of the page left in English (test_browser_languages' rules), but the names
    the organiser gave (teams, players) and what the server wrote (links, ids, the teams'
    default names). Of the list, only ``matches`` are read: the store holds other tests'
    matches too, with names of their own."""
    await page.evaluate(
        """ids => { for (const card of document.querySelectorAll(".org-match")) {
            if (!ids.includes(card.dataset.matchId)) card.style.display = "none";
        } }""",
        list(matches),
    )
    texts = [
        # "QR-код": Russian writes the code's name in Latin letters too.
        (re.sub(r"\bQR\b", "", text) if language == "ru" else text, place)
        for text, place in await page.evaluate(SHOWN_TEXTS)
        if not DATA.search(place) and not any(name in text for name in GIVEN)
    ]
    await page.evaluate(
        """() => { for (const card of document.querySelectorAll(".org-match")) card.style.display = ""; }"""
    )
    left = english_left(texts, language)
    assert not left, f"{where}: English left in the {language} page: {left}"


def qr_text(png: bytes) -> str:
    """What the QR code in a screenshot says."""
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert len(found) == 1, f"{len(found)} codes read"
    return str(found[0].text)


def pdf_pages(pdf: bytes) -> int:
    """The pages of a PDF (its page objects; ``/Type /Pages`` is their tree)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


async def finish(director_link: str) -> None:
    """The director voids every board not compared yet: the match is over (a test leaves
    no match unfinished, or the next server over the store would resume its robots)."""
    director = await Client.connect(director_link, name="test director")
    try:
        view = director.view
        assert isinstance(view, WatchView)
        compared = {c.board for c in view.match.comparisons}
        for number in view.match.boards:
            if number not in compared:
                await director.void_board(number)
        await director.wait_for(lambda v: v.match.finished or None)
    finally:
        await director.close()


@pytest_asyncio.fixture
async def organiser(browser: Browser) -> AsyncIterator[BrowserContext]:
    """The organiser's browser: its own storage (the session lives in its tab)."""
    context = await browser.new_context(viewport={"width": 1366, "height": 768})
    yield context
    await context.close()


def match_card(page: Page, match_id: str) -> Locator:
    return page.locator(f'.org-match[data-match-id="{match_id}"]')


def table_of(card: Locator, table: int) -> Locator:
    return card.locator(f'.org-table[data-table="{table}"]')


async def test_an_evening_from_the_console(
    server: Server, browser: Browser, organiser: BrowserContext, tmp_path: Path
) -> None:
    page = await open_page(organiser, organise_url(server), *SCREENS["desktop"])
    clients: list[Client] = []
    director_link: str | None = None
    try:
        # Nothing but the form before signing in; a wrong key is refused, with the reason.
        await expect(page.locator("#sign-in-form")).to_be_visible()
        await expect(page.locator("#console")).to_be_hidden()
        await shots(page, "sign-in")
        await sign_in(page, "not-the-key")
        await expect(page.locator("#sign-in-error")).not_to_be_empty()
        await expect(page.locator("#console")).to_be_hidden()
        await expect(page.locator("#organiser-key")).to_have_attribute("aria-invalid", "true")
        await shots(page, "sign-in-refused")

        await sign_in(page)
        await signed_in(page)
        session = await page.evaluate(f"sessionStorage.getItem({SESSION_KEY!r})")
        assert session is not None
        assert session.startswith("os_"), session
        kept = await page.evaluate(
            "JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)])"
        )
        assert ORGANISER_KEY not in kept  # the key is never stored
        assert ORGANISER_KEY not in page.url
        # A reload keeps the session (this tab's): the console again, no form.
        await page.reload()
        await signed_in(page)
        await expect(page.locator("#sign-in-form")).to_have_count(0)

        # The form: a teams match of one prepared board, table 1 named by a pasted roster,
        # table 2 the server's robots.
        await page.click("#tab-create")
        await expect(page.locator("#create-form")).to_be_visible()
        await page.fill("#boards", "1")
        await page.fill("#team_a", "Sharks")
        await page.fill("#team_b", "Minnows")
        await page.check("#robots-t2")
        await page.check("#deals-pbn")
        await page.set_input_files(
            "#deals-file",
            {
                "name": "deals.pbn",
                "mimeType": "text/plain",
                "buffer": one_board(STRONG_NORTH).encode(),
            },
        )
        await expect(page.locator("#deals_pbn")).to_have_value(one_board(STRONG_NORTH))
        await page.fill("#name-1W", "Dora")  # a name typed here wins over the roster's
        await page.uncheck("#face_down_lead")
        await page.fill("#review_seconds", "0")
        # A roster naming a table the match does not have is refused beside the roster.
        await page.fill("#roster", ROSTER + '\n[Table "3"]\n[North "Xena"]\n')
        await page.click("#create-send")
        roster_error = page.locator("#error-roster")
        await expect(roster_error).to_contain_text("3N")
        await expect(page.locator("#roster")).to_have_attribute("aria-invalid", "true")
        await shots(page, "create-refused", show='[data-field="roster"]')
        await page.fill("#roster", ROSTER)
        await shots(page, "create-form")
        await page.click("#create-send")

        # Made: the list shows it with its links open.
        banner = page.locator("#created")
        await expect(banner).to_contain_text("The match is made: Sharks – Minnows.")
        card = page.locator(".org-match").first
        match_id = await card.get_attribute("data-match-id")
        assert match_id is not None
        assert re.fullmatch(r"[0-9a-f]{16}", match_id), match_id
        card = match_card(page, match_id)
        await expect(card.locator(".org-title")).to_have_text("Sharks – Minnows")
        links = card.locator(".org-links")
        await expect(links).to_be_visible()
        north_item = links.locator('.link-item[data-table="1"][data-seat="N"]')
        await expect(north_item.locator(".link-who")).to_contain_text("Ann")
        await expect(links.locator('.link-table[data-table="2"] .link-robots')).to_have_text(
            "The server's robots play every seat here: no links to hand out."
        )
        await expect(links.locator('.link-table[data-table="2"] .link-item')).to_have_count(0)
        await expect(links.locator('.link-item[data-role="director"] .link-text')).to_have_count(1)
        director_link = await links.locator(
            '.link-item[data-role="director"] .link-text'
        ).inner_text()
        north_link = await north_item.locator(".link-text").inner_text()
        assert north_link.startswith(f"{server.public_url}/play#"), north_link
        for seat, name in zip("ESW", ("Bo", "Cy", "Dora"), strict=True):
            item = links.locator(f'.link-item[data-table="1"][data-seat="{seat}"]')
            await expect(item.locator(".link-who")).to_contain_text(name)

        # The QR code on the page says North's link.
        qr = north_item.locator("img.qr")
        await expect(qr).to_be_visible()
        await page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=await qr.element_handle()
        )
        # (In the middle of the screen: not under the header that stays at the top.)
        await qr.evaluate("img => img.scrollIntoView({block: 'center'})")
        assert qr_text(await qr.screenshot()) == north_link
        await shots(page, "links", show=f'.org-match[data-match-id="{match_id}"] .org-links')

        # North opens it: the console sees them come to table 1.
        table1 = table_of(card, 1)
        north_seat = table1.locator('.org-seat[data-seat="N"]')
        await expect(north_seat).to_have_attribute("data-connected", "false")
        await expect(north_seat).to_contain_text("Ann")
        await expect(table_of(card, 2).locator('.org-seat[data-robot="true"]')).to_have_count(4)
        player = await open_page(browser, north_link, 1280, 900)
        await expect(north_seat).to_have_attribute("data-connected", "true")

        # The others at table 1 (and North's moves) are Python clients.
        seats = {}
        for seat in "NESW":
            item = links.locator(f'.link-item[data-table="1"][data-seat="{seat}"] .link-text')
            seats[seat] = await Client.connect(await item.inner_text(), name=f"test {seat}")
            clients.append(seats[seat])
        await expect(table1.locator('.org-seat[data-connected="true"]')).to_have_count(4)

        # The auction: 7NT by North; the console shows the contract, then the play.
        await seats["N"].wait_for(lambda v: (v.board is not None and v.board.legal) or None)
        await seats["N"].call("7NT")
        await expect(table1).to_have_attribute("data-phase", "auction")
        for seat in "ESW":
            await seats[seat].wait_for(lambda v: v.board.acting == v.seat or None)
            await seats[seat].call("P")
        await expect(table1).to_have_attribute("data-contract", "7NT")
        await expect(table1.locator(".org-contract")).to_contain_text("by N")
        await expect(table1).to_have_attribute("data-trick", "1")
        # The first trick: East leads, North plays dummy's card and then their own.
        for seat in ("E", "N", "W", "N"):
            legal = await seats[seat].wait_for(lambda v: v.board.legal or None)
            await seats[seat].play(legal[0])
        await expect(table1).to_have_attribute("data-trick", "2")

        # East calls the director: the table is highlighted, the call shown.
        await seats["E"].call_director("North hesitated")
        await expect(table1).to_have_class(re.compile(r"\bcalling\b"))
        await expect(table1.locator(".org-call")).to_contain_text(
            "East called the director on board 1: “North hesitated”"
        )
        await expect(table1.locator(".org-clock")).to_contain_text("left")
        await shots(page, "watching", show=f'.org-match[data-match-id="{match_id}"]')

        # North claims the rest; East and West accept; table 2's robots finish the board.
        await seats["N"].claim(12)
        for seat in "EW":
            await seats[seat].wait_for(lambda v: "claim_answer" in v.board.actions or None)
            await seats[seat].answer_claim(True)
        await expect(card).to_have_attribute("data-status", "finished", timeout=ROBOTS_PLAY_MS)
        await expect(page.locator('.match-group[data-group="finished"]')).to_contain_text(
            "Sharks – Minnows"
        )
        # (Table 2's robots may reach 7NT too: a draw then.)
        await expect(card.locator(".org-winner")).to_have_text(
            re.compile(r"Winner: (Sharks|Minnows)\.|The match is a draw\.")
        )
        await expect(card.locator('.org-standings-table tr[data-competitor="A"]')).to_contain_text(
            "Sharks"
        )
        await expect(card.locator(f'a[data-director="{match_id}"]')).to_have_attribute(
            "href", director_link
        )
        await shots(page, "finished", show=f'.org-match[data-match-id="{match_id}"]')

        # The record, downloaded.
        async with page.expect_download() as waiting:
            await card.locator('[data-action="record"][data-format="pbn"]').click()
        download = await waiting.value
        assert download.suggested_filename == f"match-{match_id}.pbn"
        saved = tmp_path / download.suggested_filename
        await download.save_as(saved)
        record = saved.read_text(encoding="utf-8")
        assert record.startswith("% PBN 2.1"), record[:100]
        for text in ('[Board "1"]', '"Sharks"', '"Minnows"', '[Contract "7NT"]', '[North "Ann"]'):
            assert text in record, text
        assert '[West "Dora"]' in record

        # The record imported again (the import tab): a second, finished match; a file that
        # is no record is refused, saying why.
        await page.click('[data-action="dismiss-created"]')
        await expect(banner).to_be_hidden()
        await page.click("#tab-import")
        await page.set_input_files(
            "#import-file", {"name": "nothing.pbn", "mimeType": "text/plain", "buffer": b"no"}
        )
        await page.click("#import-send")
        await expect(page.locator("#import-error")).not_to_be_empty()
        await shots(page, "import-refused")
        await page.set_input_files("#import-file", saved)
        await expect(page.locator("#import-error")).to_be_hidden()
        await page.click("#import-send")
        await expect(banner).to_contain_text("The match is made: Sharks – Minnows.")
        imported = await banner.get_attribute("data-match-id")
        assert imported is not None
        assert imported != match_id
        await expect(match_card(page, imported)).to_have_attribute("data-status", "finished")
        await expect(match_card(page, imported).locator(".org-title")).to_have_text(
            "Sharks – Minnows"
        )
        await page.click('[data-action="dismiss-created"]')
        await expect(banner).to_be_hidden()

        # A second organiser, signed in elsewhere, sees the same list.
        other = await browser.new_context(viewport={"width": 1024, "height": 768})
        try:
            second = await open_page(other, organise_url(server), 1024, 768)
            await sign_in(second)
            await signed_in(second)
            await expect(match_card(second, match_id)).to_have_attribute("data-status", "finished")
            await expect(match_card(second, match_id).locator(".org-title")).to_have_text(
                "Sharks – Minnows"
            )
            assert_no_script_errors(second)
        finally:
            await other.close()

        # The copy button puts a link on the clipboard.
        await organiser.grant_permissions(
            ["clipboard-read", "clipboard-write"], origin=server.public_url
        )
        await expect(card.locator('[data-action="links"]')).to_have_attribute(
            "aria-expanded", "true"
        )
        await north_item.get_by_role("button", name="Copy the link of North").click()
        await expect(page.locator("#flash")).to_have_text("Link copied.")
        assert await page.evaluate("navigator.clipboard.readText()") == north_link

        # A new link for West (player 7): the old one is refused from then on.
        west_item = links.locator('.link-item[data-table="1"][data-seat="W"]')
        west_link = await west_item.locator(".link-text").inner_text()
        await west_item.get_by_role("button", name="New link for player 7").click()
        await expect(west_item).to_have_class(re.compile(r"\brenewed\b"))
        await expect(west_item.locator(".link-text")).not_to_have_text(west_link)
        new_west = await west_item.locator(".link-text").inner_text()
        assert new_west.startswith(f"{server.public_url}/play#"), new_west
        with pytest.raises(ClientError) as refused:
            await Client.connect(west_link, name="old West")
        assert refused.value.code == "bad_token"
        west = await Client.connect(new_west, name="new West")
        clients.append(west)
        assert isinstance(west.view, PlayerView)
        assert (west.view.table, west.view.seat) == (1, "W")

        # The table cards: one printed page a table.
        await card.locator('[data-action="cards"]').click()
        await expect(page.locator("#cards")).to_be_visible()
        await expect(page.locator(".table-card")).to_have_count(2)
        first = page.locator('.table-card[data-table="1"]')
        await expect(first.locator('.table-card-seat[data-seat="N"]')).to_contain_text("Ann")
        await expect(first.locator('.table-card-seat[data-seat="N"]')).to_contain_text(north_link)
        await shots(page, "table-cards")
        await page.emulate_media(media="print")
        await expect(page.locator(".cards-toolbar")).to_be_hidden()
        await expect(page.locator("#header")).to_be_hidden()
        await page.set_viewport_size({"width": 794, "height": 1123})  # A4's width at 96 dpi
        await page.screenshot(path=SHOTS / "table-cards-print.png", full_page=True)
        pdf = await page.pdf(format="A4")
        (SHOTS / "table-cards.pdf").write_bytes(pdf)
        assert pdf_pages(pdf) == 2
        await page.emulate_media(media="screen")
        await page.click('[data-action="cards-back"]')
        await expect(card).to_be_visible()

        # Archived: gone from the list, back with "show archived".
        await card.locator('[data-action="archive"]').click()
        await expect(card).to_have_count(0)
        await page.check("#show-archived")
        await expect(match_card(page, match_id)).to_have_attribute("data-archived", "true")
        await expect(
            page.locator('.match-group[data-group="archived"]').locator(
                f'[data-match-id="{match_id}"]'
            )
        ).to_be_visible()
        await match_card(page, match_id).locator('[data-action="archive"]').click()
        await expect(match_card(page, match_id)).to_have_attribute("data-archived", "false")

        # Signed out: the session is gone, here and on reloading.
        await page.click("#sign-out")
        await expect(page.locator("#sign-in-form")).to_be_visible()
        assert await page.evaluate(f"sessionStorage.getItem({SESSION_KEY!r})") is None
        await expect(page.locator(".org-match")).to_have_count(0)
        await sign_in(page)  # and in again, on the same page
        await signed_in(page)
        await expect(page.locator("#tab-matches")).to_be_visible()
        await expect(match_card(page, match_id)).to_be_visible()
        await page.click("#sign-out")
        await expect(page.locator("#sign-in-form")).to_be_visible()
        await page.reload()
        await expect(page.locator("#sign-in-form")).to_be_visible()
        await expect(page.locator(".org-match")).to_have_count(0)
        async with websockets.connect(server.ws_url) as websocket:
            answer = await say_hello(websocket, session)
            assert answer.get("code") == "bad_token", answer
        assert_no_script_errors(page)
        assert_no_script_errors(player)
    finally:
        for client in clients:
            await client.close()
        if director_link is not None:
            await finish(director_link)


async def say_hello(websocket: websockets.ClientConnection, token: str) -> dict[str, object]:
    await websocket.send(
        msgpack.packb(
            {
                "type": "hello",
                "version": PROTOCOL_VERSION,
                "versions": [PROTOCOL_VERSION],
                "token": token,
                "client": "test",
            }
        )
    )
    answer: dict[str, object] = msgpack.unpackb(await websocket.recv())
    return answer


async def test_no_session_no_console(server: Server, browser: Browser) -> None:
    # A fresh browser: the sign-in form only, and no connection at all.
    context = await browser.new_context()
    try:
        page = await context.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        await page.goto(organise_url(server))
        await expect(page.locator("#sign-in-form")).to_be_visible()
        await expect(page.locator("#console")).to_be_hidden()
        await expect(page.locator(".org-match")).to_have_count(0)
        assert sockets == []
        # A session the server does not know (made up, or closed): back to the form, saying so.
        await page.evaluate(f"sessionStorage.setItem({SESSION_KEY!r}, 'os_' + 'x'.repeat(43))")
        await page.reload()
        await expect(page.locator("#sign-in-error")).to_contain_text("session")
        await expect(page.locator("#console")).to_be_hidden()
        assert await page.evaluate(f"sessionStorage.getItem({SESSION_KEY!r})") is None
    finally:
        await context.close()
    # The same from a program: an unknown session is a bad token.
    async with websockets.connect(server.ws_url) as websocket:
        answer = await say_hello(websocket, "os_" + "y" * 43)
        assert answer["type"] == "error", answer
        assert answer["code"] == "bad_token", answer
    # A page of another site may not sign in, not even with the key.
    async with websockets.connect(server.ws_url, origin=Origin("http://evil.example")) as websocket:
        answer = await say_hello(websocket, ORGANISER_KEY)
        assert answer["type"] == "error", answer
        assert answer["code"] == "forbidden", answer
    # With this server's own origin, the key is welcomed.
    async with websockets.connect(
        server.ws_url, origin=Origin(server.public_url or "")
    ) as websocket:
        answer = await say_hello(websocket, ORGANISER_KEY)
        assert answer["type"] == "welcome", answer
        assert answer["role"] == "organiser", answer


async def test_a_dropped_connection_comes_back_with_the_session(
    server: Server, organiser: BrowserContext
) -> None:
    # The fault: the network between the page and the server goes down (every WebSocket is
    # routed through the test), then comes back. The page says hello again with its
    # session (the key is long forgotten) and follows the list live again.
    network_up = True
    sockets: list[WebSocketRoute] = []
    hellos: list[str] = []  # the token of each hello the page says
    heartbeats: set[int] = set()  # the server's, on the page's newest connection
    answered = asyncio.Event()  # the page answered one of them

    async def network(socket: WebSocketRoute) -> None:
        if not network_up:
            await socket.close()  # refused: nothing gets through
            return
        to_server = socket.connect_to_server()
        sockets.append(socket)
        heartbeats.clear()

        def from_page(message: str | bytes) -> None:
            frame = msgpack.unpackb(message) if isinstance(message, bytes) else {}
            if frame.get("type") == "hello":
                hellos.append(frame["token"])
            if frame.get("type") == "heartbeat_answer" and frame.get("ref") in heartbeats:
                answered.set()
            to_server.send(message)

        def from_server(message: str | bytes) -> None:
            frame = msgpack.unpackb(message) if isinstance(message, bytes) else {}
            if frame.get("type") == "heartbeat":
                heartbeats.add(frame["ref"])
            socket.send(message)

        socket.on_message(from_page)
        to_server.on_message(from_server)

    page = await open_page(organiser, organise_url(server), *SCREENS["tablet"], network)
    created = []
    try:
        await sign_in(page)
        await signed_in(page)
        session = await page.evaluate(f"sessionStorage.getItem({SESSION_KEY!r})")
        created.append(await create(server, boards=1, robots=["t2"], team_a="Before"))
        await expect(match_card(page, created[0].match_id)).to_be_visible()

        network_up = False
        await sockets[-1].close()
        await expect(page.locator("#status")).to_have_attribute("data-state", "lost")
        await expect(page.locator("#notice")).to_contain_text(
            "The connection to the server was lost"
        )
        await expect(match_card(page, created[0].match_id)).to_be_visible()  # kept meanwhile
        await shots(page, "connection-lost")

        network_up = True
        await expect(page.locator("#status")).to_have_attribute("data-state", "connected")
        await expect(page.locator("#notice")).to_be_hidden()
        assert await page.evaluate(f"sessionStorage.getItem({SESSION_KEY!r})") == session
        created.append(await create(server, boards=1, robots=["t2"], team_a="After"))
        await expect(match_card(page, created[1].match_id)).to_be_visible()
        # The key went once, to open the session; every hello since says the session's.
        assert hellos[0] == ORGANISER_KEY
        assert hellos[1:] == [session] * (len(hellos) - 1), hellos
        assert len(hellos) >= 3
        # Quiet now: the server's heartbeats come, and the page answers them.
        await asyncio.wait_for(answered.wait(), timeout=HEARTBEAT_SILENCE_S * 2)
        await expect(page.locator("#status")).to_have_attribute("data-state", "connected")
        assert len(sockets) == len(hellos)  # no connection given up meanwhile

        # The session closed elsewhere (another program signs it out): the page is told at
        # once, forgets it, and asks for the key.
        async with websockets.connect(server.ws_url) as websocket:
            welcome = await say_hello(websocket, session)
            assert welcome["type"] == "welcome", welcome
            await websocket.send(msgpack.packb({"type": "close_session", "ref": 1}))
            closed = msgpack.unpackb(await websocket.recv())
            assert closed["type"] == "session_closed", closed
        await expect(page.locator("#sign-in-form")).to_be_visible()
        await expect(page.locator("#sign-in-error")).to_contain_text("closed")
        await expect(page.locator(".org-match")).to_have_count(0)
        assert await page.evaluate(f"sessionStorage.getItem({SESSION_KEY!r})") is None
        assert_no_script_errors(page)
    finally:
        for match in created:
            await finish(match.director)


async def test_the_console_fits_a_laptop_and_a_tablet(
    server: Server, browser: Browser, organiser: BrowserContext
) -> None:
    # Two matches: one the server's robots play to the end, one waiting for its people.
    finished = await create(
        server,
        boards=1,
        robots=["t1", "t2"],
        deals_pbn=one_board(STRONG_NORTH),
        team_a="Robots Red",
        team_b="Robots Blue",
    )
    waiting = await create(
        server,
        boards=2,
        robots=["t2"],
        team_a="Sharks",
        team_b="Minnows",
        names={"1N": "Ann", "1E": "Bo"},
        minutes_per_board=7.5,
    )
    page = await open_page(organiser, organise_url(server), *SCREENS["desktop"])
    sealed_director: str | None = None
    try:
        await assert_fits_and_accessible(page, "the sign-in form")
        await sign_in(page)
        await signed_in(page)
        await expect(match_card(page, finished.match_id)).to_have_attribute(
            "data-status", "finished", timeout=ROBOTS_PLAY_MS
        )
        await expect(match_card(page, waiting.match_id)).to_be_visible()
        await assert_fits_and_accessible(page, "the list of matches")
        await shots(page, "list")
        await match_card(page, waiting.match_id).locator('[data-action="links"]').click()
        await expect(
            match_card(page, waiting.match_id).locator(".link-item img.qr").first
        ).to_be_visible()
        await assert_fits_and_accessible(page, "the links")
        await shots(page, "list-links", show=f'.org-match[data-match-id="{waiting.match_id}"]')
        for tab in ("create", "import"):
            await page.click(f"#tab-{tab}")
            await expect(page.locator(f"#{tab}-view")).to_be_visible()
            await assert_fits_and_accessible(page, f"the tab {tab}")
            await shots(page, f"tab-{tab}", full=True)
        await page.click("#tab-create")
        # Each format draws its own form: its tables of the first round, its scorings.
        for format, tables, scorings in (
            ("robot-table", 2, ["", "imps"]),
            ("team-of-four", 2, ["", "imps"]),
            ("replay", 1, ["", "board_a_match", "total_points"]),
            ("individual", 2, ["", "imps", "matchpoints"]),
            ("teams", 2, ["", "imps"]),
        ):
            await page.select_option("#format", format)
            await expect(page.locator("fieldset.table-seats")).to_have_count(tables)
            options = page.locator("#scoring option")
            assert await options.evaluate_all("options => options.map(o => o.value)") == scorings
            await expect(page.locator("#stage_two")).to_have_count(int(format == "replay"))
            await expect(page.locator("#players")).to_have_count(int(format == "individual"))
            if format == "robot-table":
                await expect(page.locator('fieldset.table-seats[data-table="2"]')).to_contain_text(
                    "The robots' table"
                )
            if format == "individual":
                await page.select_option("#players", "12")
                await expect(page.locator("fieldset.table-seats")).to_have_count(3)
                await expect(page.locator("#hint-boards")).to_contain_text("11, 22 or 33")
        await page.check("#deals-seal")
        await page.click("#seal-send")
        await expect(page.locator(".sealed")).to_contain_text("sha256")
        await expect(page.locator("#seal")).not_to_have_value("")
        await assert_fits_and_accessible(page, "the sealed deals")
        await shots(page, "create-sealed", show='[data-field="deals"]')
        # A public value that does not fit the seal's form (digits 5) is refused beside it;
        # mended, the match is made from the seal.
        await page.fill("#boards", "1")
        await page.fill("#team_a", "Sealed")
        await page.check("#robots-t2")
        await page.fill("#public_value", "6 2 5 1")
        await page.click("#create-send")
        await expect(page.locator("#error-public_value")).to_contain_text("digits")
        await expect(page.locator("#public_value")).to_have_attribute("aria-invalid", "true")
        await page.fill("#public_value", "Dice: 6-2-5-1-3")
        await expect(page.locator("#error-public_value")).to_be_hidden()
        await page.click("#create-send")
        banner = page.locator("#created")
        await expect(banner).to_contain_text("The match is made: Sealed – Team B.")
        sealed = await banner.get_attribute("data-match-id")
        await expect(match_card(page, sealed or "")).to_be_visible()
        assert sealed is not None
        director = match_card(page, sealed).locator(".link-item[data-role='director'] .link-text")
        sealed_director = await director.inner_text()
        await page.click("#tab-matches")
        await match_card(page, waiting.match_id).locator('[data-action="cards"]').click()
        await expect(page.locator(".table-card")).to_have_count(2)
        await assert_fits_and_accessible(page, "the table cards")
        await page.click('[data-action="cards-back"]')

        # In Russian and in Swedish (a text without its translation fails on the console).
        for code, title, tab in (
            ("ru", "Пульт организатора", "Новый матч"),
            ("sv", "Arrangörens konsol", "Ny match"),
        ):
            await page.select_option("#language", code)
            await expect(page.locator("#title")).to_have_text(title)
            await expect(page.locator("html")).to_have_attribute("lang", code)
            await expect(page.locator("#tab-create")).to_have_text(tab)
            await expect(
                match_card(page, finished.match_id).locator(".status-badge")
            ).not_to_have_text("Finished")
            await shots(page, f"list-{code}")
            await page.click("#tab-create")
            await shots(page, f"tab-create-{code}")
            await assert_fits_and_accessible(page, f"the form in {code}")
            await assert_all_said_in(page, code, "the form")
            await page.click("#tab-import")
            await assert_all_said_in(page, code, "the import")
            await page.click("#tab-matches")
            await match_card(page, finished.match_id).locator('[data-action="links"]').click()
            await expect(match_card(page, finished.match_id).locator(".org-links")).to_be_visible()
            await assert_fits_and_accessible(page, f"the list in {code}")
            await assert_all_said_in(
                page, code, "the list", (finished.match_id, waiting.match_id, sealed or "")
            )
            await match_card(page, finished.match_id).locator('[data-action="links"]').click()
        await page.select_option("#language", "en")
        await expect(page.locator("#title")).to_have_text("Organiser's console")
        assert_no_script_errors(page)
    finally:
        await finish(waiting.director)
        if sealed_director is not None:
            await finish(sealed_director)

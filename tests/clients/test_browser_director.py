"""The director in the browser: the calls for the director, the answer in a table's chat, and
the tools (undo, decide an undo, rule, assign a result, adjusted scores, void, substitute).

Players are the Chromium page (North) or the Python client; robots fill the rest.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
from playwright.async_api import Browser, WebSocketRoute, expect

from clients.client import Client
from protocol.messages import BoardView, PlayerView, WatchView
from server.app import Server
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    screenshots,
)
from tests.server.harness import STRONG_NORTH, create, one_board

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")


async def test_a_player_calls_the_director_who_answers_in_the_chat(
    server: Server, browser: Browser
) -> None:
    created = await create(
        server,
        boards=1,
        robots=["t2", "1E", "1S", "1W"],
        deals_pbn=one_board(STRONG_NORTH),
        names={"1N": "Nora"},
    )
    page = await open_page(browser, link_of(created, 1, "N"), 1280, 900)
    director = await open_page(browser, created.director, 1280, 900)
    try:
        await expect(director.locator("#director-queue")).to_contain_text("No table is calling")
        # North calls the director, saying why.
        await page.click("#call-director")
        await page.fill("#director-text", "East's hesitation")
        await page.click("#director-send")
        banner = page.locator("#director-calls")
        await expect(banner).to_contain_text("The director has been called (called by you, board 1")
        await expect(banner).to_contain_text("East's hesitation")
        await screenshots(page, "director-called")

        # The director's queue shows the call: table, board, who, why, how long ago.
        call = director.locator('.queue-call[data-call-table="1"]')
        await expect(call).to_contain_text("Table 1 · board 1 · North (Nora)")
        await expect(call).to_contain_text("East's hesitation")
        # How long ago, by the page's clock held at moments after the call (whatever the
        # machine's pace: a slow one took over 5 s to get here, and saw "5 s ago").
        ago = call.locator(".queue-ago")
        at = int(await ago.get_attribute("data-at") or 0)
        await director.clock.set_fixed_time((at + 125_000) / 1000)
        await expect(ago).to_contain_text("2 min ago")
        await director.clock.set_fixed_time((at + 1_000) / 1000)
        await expect(ago).to_contain_text("just now")
        await screenshots(director, "director-queue")

        # The director sees it: the table knows the director is on the way.
        await call.get_by_role("button", name="On my way").click()
        await expect(banner.locator('[data-call-state="seen"]')).to_contain_text(
            "The director is on the way"
        )
        await expect(call).to_contain_text("seen: on your way")
        await expect(call.get_by_role("button", name="On my way")).to_have_count(0)
        # The answer goes in the table's chat: the call is answered, and stays until closed.
        await call.get_by_role("button", name="Answer in chat").click()
        chat = director.locator("#director-chat-1")
        await expect(chat).to_be_focused()
        await chat.fill("I am coming to your table")
        await chat.press("Enter")
        await expect(page.locator("#chat-log")).to_contain_text(
            "Director: I am coming to your table"
        )
        await expect(banner.locator('[data-call-state="answered"]')).to_contain_text(
            "The director answered in the chat"
        )
        await expect(call).to_contain_text("answered in the chat")
        await screenshots(page, "director-answered")
        await expect(director.locator('[data-chat-table="1"]')).to_contain_text(
            "Director: I am coming to your table"
        )
        # Closed (the page asks first): the banner goes from the table, the call from the queue.
        await call.get_by_role("button", name="Close").click()
        await expect(banner).to_be_hidden()
        await expect(director.locator("#director-queue")).to_contain_text("No table is calling")
    finally:
        await end_match(created)
    assert_no_script_errors(page)
    assert_no_script_errors(director)


THREE = "\n".join(
    one_board(STRONG_NORTH).replace('[Board "1"]', f'[Board "{n}"]') for n in (1, 2, 3)
)


def board_of(view: PlayerView, number: int) -> BoardView | None:
    return view.board if view.board is not None and view.board.board == number else None


async def test_the_directors_tools(server: Server, browser: Browser) -> None:
    # Four people at table 1 (the Python client), robots at table 2, the director in Chromium.
    created = await create(
        server, boards=3, robots=["t2"], deals_pbn=THREE, team_a="Sharks", team_b="Minnows"
    )
    players = {
        seat: await Client.connect(link_of(created, 1, seat), name=f"test {seat}")
        for seat in "NESW"
    }
    north = players["N"]
    # The page's frames from the server go through the test, which may hold them back.
    held: list[tuple[WebSocketRoute, str | bytes]] | None = None

    async def network(socket: WebSocketRoute) -> None:
        to_server = socket.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if held is None:
                socket.send(message)
            else:
                held.append((socket, message))

        socket.on_message(to_server.send)
        to_server.on_message(from_server)

    def let_through() -> None:
        nonlocal held
        frames, held = held or [], None
        for socket, message in frames:
            socket.send(message)

    page = await open_page(browser, created.director, 1280, 900, network)
    table = page.locator('.watch-table[data-table="1"]')
    try:
        # Undo the table's last call at once.
        await north.call("1C")
        await expect(table.locator('td[data-called="1C"]')).to_have_count(1)
        await table.locator('[data-director="undo"]').click()
        await north.wait_for(lambda v: (v.board.auction == [] and v.board.acting == "N") or None)

        # Decide a player's undo request the opponents have not answered.
        await north.call("1C")
        await north.undo()
        undo = table.locator(".undo-panel")
        await expect(undo).to_contain_text("North asks to take back their 1♣")
        await screenshots(page, "director-tools", show='.watch-table[data-table="1"] .place-bottom')
        await undo.locator('[data-director="undo-allow"]').click()
        await north.wait_for(lambda v: (v.board.auction == [] and v.board.undo is None) or None)

        # Rule during the play: declarer's side takes 13 tricks.
        for seat, call in [("N", "7NT"), ("E", "P"), ("S", "P"), ("W", "P")]:
            await players[seat].call(call)
        lead = await players["E"].wait_for(lambda v: v.board.legal or None)
        await players["E"].play(lead[0])
        await table.locator('[data-rule-tricks="13"]').click()
        ruled = await north.wait_for(lambda v: v.results or None)
        assert (ruled[0].contract, ruled[0].tricks) == ("7NT", 13)
        assert ruled[0].ruled
        # The score sheet says the tricks are the director's, not played out.
        await expect(page.locator('#boards tr[data-board="1"]')).to_contain_text("(ruled)")

        # Assign a result on board 1 instead.
        await page.fill("#assign-board-1", "1")
        await page.fill("#assign-contract-1", "6NT")
        await page.select_option("#assign-declarer-1", "S")
        await page.fill("#assign-tricks-1", "12")
        await table.locator('form[data-form="assign"] button[type="submit"]').click()
        assigned = await north.wait_for(lambda v: v.results if v.results[0].assigned else None)
        assert (assigned[0].contract, assigned[0].declarer, assigned[0].tricks) == ("6NT", "S", 12)
        assert not assigned[0].ruled
        await expect(page.locator('#boards tr[data-board="1"]')).to_contain_text("(assigned)")
        await north.wait_for(lambda v: board_of(v, 2))

        # Substitute East: a new link to hand over; West: the server's robot.
        await page.select_option("#substitute-seat-1", "E")
        await table.locator('[data-director="substitute"]').click()
        new_link = table.locator("#new-link-1")
        value = await new_link.input_value(timeout=WAIT_MS)
        assert value.startswith(f"{server.public_url}/play#"), value
        assert value != link_of(created, 1, "E")
        await page.select_option("#substitute-seat-1", "W")
        await table.locator('[data-director="substitute-robot"]').click()
        await expect(table.locator(".new-link")).to_contain_text("A robot now plays West")
        await expect(table.locator('[data-seat-tag="W"] .robot-mark')).to_be_visible()

        # Board 2: an artificial adjusted score, Avg+ to Sharks; board 3: void. The score
        # sends table 1 on to board 3, and table 2's robots (who wait for people to begin a
        # board) play it out at once: their frames come while the director clicks "Void the
        # board". Held back until the button is pressed, they are drawn before its release:
        # every drawing put the button in again, and the click was lost (row 3 kept table 2's
        # 7NT= and never said "void"). Table 2 is done with board 2 first, and with board 3
        # at the release: the button is where it was pressed.
        board_2 = page.locator('#boards tr[data-board="2"]')
        board_3 = page.locator('#boards tr[data-board="3"]')
        await expect(board_2.locator('[data-table-result="2"]')).to_contain_text(
            "7NT", timeout=ROBOTS_PLAY_MS
        )
        # The match's tools are folded above the tables (a table that grows cannot move
        # them from under the pointer): opened, they push the tables down.
        tools = page.locator("#match-tools")
        tables = page.locator("#tables")
        folded = await tools.bounding_box()
        assert folded is not None
        await expect(tools.locator("#adjust-board")).to_be_hidden()
        await screenshots(page, "director-tools-folded", show="#watch")
        await tools.get_by_text("Adjusted scores").click()
        await screenshots(page, "director-tools-open", show="#watch")
        opened = await tools.bounding_box()
        below = await tables.bounding_box()
        assert opened is not None
        assert below is not None
        assert opened["height"] > folded["height"]
        assert opened["y"] + opened["height"] <= below["y"]
        await tools.locator("#adjust-board").select_option("2")
        held = []
        await tools.get_by_role("button", name="Avg+ to Sharks (+3)").click()
        await tools.locator("#adjust-board").select_option("3")
        await tools.get_by_role("button", name="Void the board").hover()
        await page.mouse.down()
        let_through()
        await expect(board_2).to_contain_text("adj.")
        await expect(board_3.locator('[data-table-result="2"]')).to_contain_text(
            "7NT", timeout=ROBOTS_PLAY_MS
        )
        await page.mouse.up()
        await expect(board_3).to_contain_text("void")
        await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)
        watched = await Client.connect(created.director)
        view = watched.view
        assert isinstance(view, WatchView)
        fixed = {c.board: (c.artificial, c.void) for c in view.match.comparisons}
        assert fixed[2] == (3, False)
        assert fixed[3] == (None, True)
        await watched.close()
    finally:
        for client in players.values():
            await client.close()
        await end_match(created)
    assert_no_script_errors(page)


async def test_a_disputed_claim_stops_the_table_until_the_directors_ruling(
    server: Server, browser: Browser
) -> None:
    # Law 68D, in a match created so: North (Chromium) claims; East (the Python client)
    # disputes; North's page says the play has stopped and offers no card; the director
    # (Chromium) sees the call and rules with the tools on the table.
    created = await create(
        server,
        boards=1,
        robots=["t2", "1S"],
        deals_pbn=one_board(STRONG_NORTH),
        disputed_claims="director",
    )
    east = await Client.connect(link_of(created, 1, "E"), name="test E")
    west = await Client.connect(link_of(created, 1, "W"), name="test W")
    page = await open_page(browser, link_of(created, 1, "N"), 390, 844)
    director = await open_page(browser, created.director, 1280, 900)
    table = director.locator('.watch-table[data-table="1"]')
    try:
        await page.click('#bidding-box button[data-call="7NT"]')
        for client in (east, west):
            await client.wait_for(lambda v: v.board.acting == v.seat or None)
            await client.call("P")
        await east.wait_for(lambda v: v.board.acting == v.seat or None)  # the opening lead
        await east.play((await east.wait_for(lambda v: v.board.legal or None))[0])
        await expect(page.locator("#claim")).to_be_enabled()
        await page.click("#claim")
        await page.click('button[data-claim="13"]')
        await page.click("#claim-send")
        await east.wait_for(lambda v: "claim_answer" in v.board.actions or None)
        await east.answer_claim(False)
        panel = page.locator('#claim-panel [data-claim-status="disputed"]')
        await expect(panel).to_contain_text("East disputed the claim (13 of the 13 remaining")
        await expect(panel).to_contain_text("the director is called to rule on it")
        await expect(page.locator("#turn")).to_contain_text("waiting for the director's ruling")
        await expect(page.locator("#messages")).to_contain_text(
            "East disputed the claim: play has stopped until the director rules."
        )
        await expect(page.locator("#hand button[data-card]:enabled")).to_have_count(0)
        await expect(page.locator("#claim")).to_be_disabled()
        await screenshots(page, "claim-disputed")
        await expect(table.locator('[data-claim-status="disputed"]')).to_contain_text(
            "disputed: play has stopped for your ruling (law 68D)"
        )
        await expect(director.locator("#director-queue")).to_contain_text("law 68D")
        await table.locator('[data-rule-tricks="13"]').click()
        ruled = await east.wait_for(lambda v: v.results or None)
        assert (ruled[0].contract, ruled[0].tricks, ruled[0].ruled) == ("7NT", 13, True)
        await expect(page.locator("#final")).to_be_visible(timeout=WAIT_MS)
        await expect(director.locator("#director-queue")).not_to_contain_text("law 68D")
        for each in (page, director):
            assert_no_script_errors(each)
    finally:
        await east.close()
        await west.close()
        await end_match(created)

"""A match that follows a movement, in the browser: an individual of eight players, where a
player changes seat (and partner) between rounds. The page shows the round, partner and
opponents; on the round's last board the move for the next round; then it follows the
player to their new seat. The standings and each board's points stand in for team swings.
A spectator's page shows three tables of a 12-player individual, and a replay match. A
replay match whose stage 2 waits for the director: the players and spectators are told so,
and the director's page starts it.

Player 1 plays in Chromium; the server's robots play the seven others. The screenshots
land in ``artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from bridge import Seat
from bridge.formats import individual
from clients.client import Client
from protocol.messages import MatchCreated, PlayerView
from server.app import Server
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    WAIT_MS,
    assert_no_script_errors,
    chromium,
    end_match,
    link_of,
    open_page,
    press,
    screenshots,
    wait_for_my_turn_or_the_end,
)
from tests.server.harness import STRONG_NORTH, create

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")

SEAT_WORD = {"N": "North", "E": "East", "S": "South", "W": "West"}
NAMES = {"1N": "Nick", "1E": "Eve", "1W": "Will", "2N": "Ned", "2E": "Bo", "2S": "Sam", "2W": "Wes"}
"""Every robot has a name (player 1, at 1S, has none: the page asks for it)."""
FIRST_ROUND = {
    (1, "N"): 8, (1, "E"): 2, (1, "S"): 1, (1, "W"): 6,
    (2, "N"): 3, (2, "E"): 5, (2, "S"): 4, (2, "W"): 7,
}  # fmt: skip
"""Who sits where in round 1 of the 8-player individual (its seed starting tables)."""
MOVEMENT = individual(8, 14)


def name_of(player: int) -> str:
    """The name the organiser gave ``player`` (by their first-round seat)."""
    (table, seat) = next(where for where, number in FIRST_ROUND.items() if number == player)
    return NAMES[f"{table}{seat}"]


def strong_at(seat: str, board: int) -> str:
    """A board whose dealer ``seat`` holds every ace, king and queen: 7NT makes."""
    hands = STRONG_NORTH.removeprefix("N:")
    return f'[Board "{board}"]\n[Dealer "{seat}"]\n[Vulnerable "None"]\n[Deal "{seat}:{hands}"]\n'


def deals() -> str:
    """14 boards: on each of them player 1 deals and holds the top cards, wherever the
    movement seats them in the board's round."""
    boards = []
    for number in range(1, 15):
        (round_number,) = {s.round for s in MOVEMENT.sittings if number in s.boards}
        where = MOVEMENT.seat_of(1, round_number)
        assert where is not None
        boards.append(strong_at(where[1].letter, number))
    return "\n".join(boards)


def expected_move(round_number: int, here: int) -> tuple[str, int, str]:
    """The move instruction for player 1 before ``round_number`` (they sit at table
    ``here`` now), from the movement: its text, the table and the seat."""
    where = MOVEMENT.seat_of(1, round_number)
    assert where is not None
    table, seat = where
    partner = MOVEMENT.sitting(round_number, table).partner(1)
    verb = "stay at" if table == here else "go to"
    text = f"Round {round_number}: {verb} table {table}, {SEAT_WORD[seat.letter]}; your partner is {name_of(partner)}"
    return text, table, seat.letter


def link_of_player(created: MatchCreated, player: int) -> str:
    link = next(s for s in created.seats if s.player == player)
    assert link.link is not None, f"player {player} is a robot"
    return link.link


async def declare_7nt(page: Page) -> None:
    """Player 1 deals and opens 7NT; the robots pass: player 1 declares."""
    await press(page, 'button[data-call="7NT"]')
    await expect(page.locator("body")).to_have_attribute("data-phase", "play", timeout=WAIT_MS)


async def play_out(page: Page) -> int:
    """Click the first playable card (from the hand or from dummy) until the board ends;
    returns how many were clicked."""
    clicked = 0
    while await wait_for_my_turn_or_the_end(page) == "play":
        await press(page, "#hand button[data-card]:enabled, .seat-box button[data-card]:enabled")
        clicked += 1
    return clicked


async def claim_all(page: Page) -> None:
    """Player 1, declaring with every top card, claims all 13 tricks; the robots accept."""
    await expect(page.locator("#claim")).to_be_enabled(timeout=WAIT_MS)
    await page.click("#claim")
    await page.click('button[data-claim="13"]')
    await page.click("#claim-send")


async def next_board(page: Page) -> None:
    await expect(page.locator("#next-board")).to_be_enabled(timeout=WAIT_MS)
    await page.click("#next-board")


async def at_seat(page: Page, round_number: int, table: int, seat: str) -> None:
    """The page shows player 1 at ``table``, ``seat`` in ``round_number``: the round bar,
    the top bar, and the compass turned so that the seat is at the bottom."""
    info = page.locator("#round-info")
    await expect(info).to_have_attribute("data-round", str(round_number), timeout=WAIT_MS)
    await expect(info).to_have_attribute("data-table", str(table))
    await expect(info).to_have_attribute("data-seat", seat)
    await expect(info).to_contain_text(f"Round {round_number} of 7")
    await expect(info).to_contain_text(f"Table {table}, {SEAT_WORD[seat]}")
    sitting = MOVEMENT.sitting(round_number, table)
    partner = sitting.partner(1)
    await expect(info.locator(".partner")).to_contain_text(name_of(partner))
    for opponent in sitting.opponents(1):
        await expect(info.locator(".opponents")).to_contain_text(name_of(opponent))
    await expect(page.locator("#title")).to_contain_text(f"{SEAT_WORD[seat]}, table {table}")
    here = Seat.parse(seat)
    compass = page.locator("#compass")
    await expect(compass.locator(".place-bottom")).to_have_attribute("data-seat", seat)
    await expect(compass.locator(".place-top")).to_have_attribute("data-seat", here.partner.letter)
    await expect(compass.locator(".place-left")).to_have_attribute("data-seat", here.lho.letter)
    await expect(compass.locator(".place-right")).to_have_attribute("data-seat", here.rho.letter)
    await expect(compass.locator(f'[data-seat-tag="{seat}"]')).to_have_class(re.compile(r"\bme\b"))
    await expect(compass.locator(f'[data-seat-tag="{here.partner.letter}"]')).to_contain_text(
        name_of(partner)
    )
    await expect(page.locator("#hand button[data-card]")).to_have_count(13)


async def test_a_player_follows_the_movement_to_a_new_seat(
    server: Server, browser: Browser
) -> None:
    # Round 1: player 1 sits South at table 1 (partner 8); round 2: East at table 1, the
    # seat player 2 left (partner 5); round 3: North at table 2 (partner 2).
    assert MOVEMENT.seat_of(1, 1) == (1, Seat.SOUTH)
    assert MOVEMENT.seat_of(1, 2) == (1, Seat.EAST)
    assert MOVEMENT.seat_of(2, 1) == (1, Seat.EAST)
    assert MOVEMENT.sitting(2, 1).partner(1) == 5
    created = await create(
        server,
        format="individual",
        players=8,
        boards=14,
        robots=["1N", "1E", "1W", "t2"],
        names=NAMES,
        deals_pbn=deals(),
        # A finished board stays on review until player 1 goes on: the robots' table is
        # done with each round long before, so the round's last review is when the move
        # is shown (with no review the next round would start at once).
        review_seconds=300,
    )
    me = next(s for s in created.seats if s.player == 1)
    assert (me.table, me.seat, me.competitor) == (1, "S", "1")
    page = await open_page(browser, link_of_player(created, 1), 1280, 900)
    try:
        await at_seat(page, 1, 1, "S")
        move = page.locator("#move")
        await expect(move).to_have_count(0)
        # Before any comparison the top bar has no place to show, and says nothing of one.
        await expect(page.locator("#score")).to_have_text(re.compile(r"\(you\) 0 IMPs$"))

        # Board 1: 7NT, every card clicked (from the hand and from dummy).
        await declare_7nt(page)
        assert await play_out(page) == 26
        await expect(page.locator("#review-controls")).to_be_visible(timeout=WAIT_MS)
        await expect(move).to_have_count(0)  # a board of the round is still to come
        await expect(page.locator("#waiting")).to_have_count(0)
        await next_board(page)

        # Board 2, the round's last: a claim of all 13 tricks. On review the page says
        # where player 1 sits in round 2.
        await expect(page.locator("#compass .board-number")).to_have_text(
            "Board 2", timeout=WAIT_MS
        )
        await declare_7nt(page)
        await claim_all(page)
        await expect(page.locator("#review-controls")).to_be_visible(timeout=WAIT_MS)
        text, table, seat = expected_move(2, here=1)
        assert text == "Round 2: stay at table 1, East; your partner is Bo"
        await expect(move).to_have_text(f"➜ {text}", timeout=WAIT_MS)
        await expect(move).to_have_attribute("data-round", "2")
        await expect(move).to_have_attribute("data-table", str(table))
        await expect(move).to_have_attribute("data-seat", seat)
        await expect(page.locator("#next-board")).to_have_text("On to round 2")

        # Board 1 is compared (table 2's robots played it long ago): points, no swing.
        row = page.locator('#boards tr[data-board="1"]')
        await expect(row.locator("td.swing")).not_to_be_empty(timeout=WAIT_MS)
        await expect(row.locator("[data-other-results]")).to_contain_text("T2 R1")
        standings = page.locator("#standings")
        await expect(standings.locator("tbody tr")).to_have_count(8)
        await expect(standings.locator("tr.own")).to_contain_text("(you)")
        await expect(page.locator("#score")).to_contain_text("(you)")
        for team in ("Team A", "Team B", "Swing"):
            await expect(page.locator("#match")).not_to_contain_text(team)
        await expect(page.locator("#score")).not_to_contain_text("Team")
        await screenshots(page, "movement-move", show="#seating")
        await screenshots(page, "movement-standings", show="#match")
        comparison = page.locator("#comparison")
        await expect(comparison.locator(".record-table")).to_have_count(2, timeout=WAIT_MS)
        await expect(comparison.locator("[data-your-points]")).to_contain_text("IMPs")
        await screenshots(page, "movement-comparison", show="#comparison")

        # Round 2 starts: the page follows player 1 to East at table 1.
        await next_board(page)
        await at_seat(page, 2, 1, "E")
        await expect(move).to_have_count(0)
        await expect(page.locator("#compass .board-number")).to_have_text("Board 3")
        await screenshots(page, "movement-round-2")

        # Round 2's two boards, then the move to round 3: another table.
        for board in (3, 4):
            await expect(page.locator("#compass .board-number")).to_have_text(f"Board {board}")
            await declare_7nt(page)
            await claim_all(page)
            await expect(page.locator("#review-controls")).to_be_visible(timeout=WAIT_MS)
            if board == 3:
                await expect(move).to_have_count(0)
                await next_board(page)
        text, table, seat = expected_move(3, here=1)
        assert text.startswith("Round 3: go to table 2, North")
        await expect(move).to_have_text(f"➜ {text}", timeout=WAIT_MS)
        await next_board(page)
        await at_seat(page, 3, table, seat)
    finally:
        await end_match(created)
    await expect(page.locator("#final")).to_contain_text("Final result", timeout=WAIT_MS)
    await expect(page.locator("#final")).not_to_contain_text("Team")
    assert_no_script_errors(page)


def my_turn_or(done: Callable[[PlayerView], bool]) -> Callable[[PlayerView], PlayerView | None]:
    """A predicate for :meth:`Client.wait_for`: the view once the player must act (a call,
    a card, an answer to a claim), or once ``done`` says so or the match is over."""

    def check(view: PlayerView) -> PlayerView | None:
        if done(view) or view.match.finished:
            return view
        board = view.board
        if board is None:
            return None
        if "claim_answer" in board.actions:
            return view
        return view if board.acting == view.seat and board.legal else None

    return check


async def play_passively(client: Client, done: Callable[[PlayerView], bool]) -> PlayerView:
    """A player driven from here passes, plays their first legal card (and dummy's) and
    accepts claims until ``done`` says so of their view (or the match is over); returns
    that view."""
    while True:
        view = await client.wait_for(my_turn_or(done), timeout=WAIT_MS / 1000)
        board = view.board
        if done(view) or view.match.finished or board is None:
            return view
        if "claim_answer" in board.actions:
            await client.answer_claim(True)
        elif board.phase == "auction":
            await client.call("P")
        else:
            await client.play(board.legal[0])
        await client.ping()


async def test_a_player_waits_for_the_other_table_then_moves(
    server: Server, browser: Browser
) -> None:
    # Player 3 (North at table 2 in round 1) is a person who takes their time: player 1's
    # table finishes round 1 first and waits for table 2.
    robots = ["1N", "1E", "1W", "2E", "2S", "2W"]
    created = await create(
        server,
        format="individual",
        players=8,
        boards=14,
        robots=robots,
        names=NAMES,
        deals_pbn=deals(),
        review_seconds=0,
    )
    slow = await Client.connect(link_of_player(created, 3), name="player 3")
    page = await open_page(browser, link_of_player(created, 1), 1280, 900)
    try:
        await at_seat(page, 1, 1, "S")
        for board in (1, 2):
            await expect(page.locator("#compass .board-number")).to_have_text(
                f"Board {board}", timeout=WAIT_MS
            )
            await declare_7nt(page)
            await claim_all(page)
        waiting = page.locator("#waiting")
        await expect(waiting).to_have_text("Waiting for table 2 to finish round 1", timeout=WAIT_MS)
        await expect(waiting).to_have_attribute("data-waiting-for", "2")
        text, _, _ = expected_move(2, here=1)
        await expect(page.locator("#move")).to_have_text(f"➜ {text}")
        await expect(page.locator("#turn")).to_have_text("Waiting for table 2 to finish round 1")
        await screenshots(page, "movement-waiting", show="#seating")

        # Table 2 plays its boards of round 1: round 2 starts at both tables.
        await play_passively(slow, lambda view: view.round > 1)
        await at_seat(page, 2, 1, "E")
        await expect(waiting).to_have_count(0)
        await expect(page.locator("#move")).to_have_count(0)
    finally:
        await slow.close()
        await end_match(created)
    assert_no_script_errors(page)


@pytest.mark.parametrize(
    ("options", "tables", "competitors"),
    [
        ({"format": "individual", "players": 12, "robots": ["t1", "t2", "t3"]}, 3, 12),
        ({"format": "replay", "boards": 2, "robots": ["t1"]}, 1, 2),
    ],
    ids=["individual-12", "replay"],
)
async def test_the_spectator_page_without_teams(
    server: Server, browser: Browser, options: dict[str, object], tables: int, competitors: int
) -> None:
    created = await create(server, spectators="live", **options)
    assert created.spectator is not None
    page = await open_page(browser, created.spectator, 1366, 900)
    try:
        await expect(page.locator(".watch-table")).to_have_count(tables, timeout=WAIT_MS)
        await expect(page.locator(".watch-table h2").first).to_contain_text("round")
        await expect(page.locator("#standings tbody tr")).to_have_count(competitors)
        await expect(page.locator("#comparison .comparison-list").first).to_be_visible(
            timeout=ROBOTS_PLAY_MS
        )
        for team in ("Team A", "Team B", "Swing"):
            await expect(page.locator("#main")).not_to_contain_text(team)
        await screenshots(page, f"movement-watch-{tables}")
        # The director sees every table too; without teams, a board is voided, not adjusted
        # in team A's IMPs.
        director = await open_page(browser, created.director, 1366, 900)
        await expect(director.locator(".watch-table")).to_have_count(tables, timeout=WAIT_MS)
        tools = director.locator("#match-tools")
        await tools.get_by_text("Void a board").click()  # the tools, folded: opened
        await expect(tools.get_by_role("button", name="Void the board")).to_be_visible()
        await expect(tools).not_to_contain_text("Avg+")
        await screenshots(director, f"movement-direct-{tables}", show="#match")
    finally:
        await end_match(created)
    await expect(page.locator("#final")).to_contain_text("Final result", timeout=ROBOTS_PLAY_MS)
    await expect(director.locator("#final")).to_contain_text("Final result", timeout=ROBOTS_PLAY_MS)
    assert_no_script_errors(page)
    assert_no_script_errors(director)


async def test_a_team_of_four_shows_its_rounds_and_the_team_score(
    server: Server, browser: Browser
) -> None:
    # Two teams of four with board exchange: four rounds, scored as a team match.
    created = await create(
        server,
        format="team-of-four",
        boards=8,
        robots=["1E", "1S", "1W", "t2"],
        team_a="Sharks",
        team_b="Minnows",
        names={"1N": "Nora"},
    )
    me = next(s for s in created.seats if (s.table, s.seat) == (1, "N"))
    assert me.link is not None
    page = await open_page(browser, me.link, 1280, 900)
    try:
        info = page.locator("#round-info")
        await expect(info).to_contain_text("Round 1 of 4", timeout=WAIT_MS)
        await expect(info).to_contain_text("Table 1, North")
        await expect(page.locator("#score")).to_contain_text("Sharks (you)")
        await expect(page.locator("#standings")).to_have_count(0)
        await expect(page.locator("#boards")).to_contain_text("Other table")
    finally:
        await end_match(created)
    await expect(page.locator("#final")).to_contain_text("Sharks", timeout=WAIT_MS)
    assert_no_script_errors(page)


HELD = {"format": "replay", "boards": 2, "stage_two": "director", "review_seconds": 0}
"""Replay duplicate whose stage 2 (round 2) waits for the director's start_round."""


async def test_the_director_starts_the_round_held_for_them(
    server: Server, browser: Browser
) -> None:
    # The server's robots play every seat: stage 1 is over at once, and stage 2 waits.
    created = await create(server, robots=["t1"], spectators="live", **HELD)
    assert created.spectator is not None
    director = await open_page(browser, created.director, 1366, 900)
    spectator = await open_page(browser, created.spectator, 1366, 900)
    try:
        button = director.locator("#start-round")
        await expect(button).to_have_text("Start round 2", timeout=ROBOTS_PLAY_MS)
        await expect(button).to_have_attribute("data-round", "2")
        await expect(button).to_be_enabled()
        await expect(director.locator("#round-hold")).to_contain_text(
            "Every table has played round 1: round 2 waits for you."
        )
        hold = spectator.locator("#round-hold")
        await expect(hold).to_have_text("Round 2 waits for the director", timeout=ROBOTS_PLAY_MS)
        await expect(hold.locator(".held-round")).to_have_attribute("data-round", "2")
        await expect(spectator.locator("#start-round")).to_have_count(0)
        # Nothing of stage 2 is played: no board is compared, the match goes on.
        await expect(director.locator(".watch-table h2").first).to_contain_text("round 1 of 2")
        await expect(director.locator("#final")).to_be_hidden()
        await screenshots(director, "director-start-round", show="#watch")

        # The director starts round 2: the robots replay the boards, and the match ends.
        await button.click()
        for page in (director, spectator):
            await expect(page.locator("#final")).to_contain_text(
                "Final result", timeout=ROBOTS_PLAY_MS
            )
        await expect(director.locator("#round-hold")).to_be_hidden()
        await expect(director.locator("#start-round")).to_have_count(0)
        await expect(hold).to_be_hidden()
        await expect(spectator.locator("#standings tbody tr")).to_have_count(2)
    finally:
        await end_match(created)
    assert_no_script_errors(director)
    assert_no_script_errors(spectator)


async def test_a_player_is_told_the_round_waits_for_the_director(
    server: Server, browser: Browser
) -> None:
    # North (player 1) is a person, driven from here; their page is open beside.
    created = await create(server, robots=["1E", "1S", "1W"], **HELD)
    link = link_of(created, 1, "N")
    north = await Client.connect(link, name="test North")
    page = await open_page(browser, link, 1280, 900)
    try:
        await expect(page.locator("#round-info")).to_have_attribute(
            "data-round", "1", timeout=WAIT_MS
        )
        view = await play_passively(north, lambda view: view.played_round)
        # Stage 2 turns the boards one seat: player 1 holds West's cards at the same table.
        assert view.next_seat is not None
        assert (view.next_seat.round, view.next_seat.table, view.next_seat.seat) == (2, 1, "W")
        hold = page.locator("#held-round")
        await expect(hold).to_have_text("Round 2 waits for the director", timeout=ROBOTS_PLAY_MS)
        await expect(hold).to_have_attribute("data-round", "2")
        move = page.locator("#move")
        await expect(move).to_contain_text("Round 2: stay at table 1, West; your partner is")
        await expect(move).to_have_attribute("data-seat", "W")
        await expect(page.locator("#waiting")).to_have_count(0)  # every table has played
        await expect(page.locator("#turn")).to_have_text("Round 2 waits for the director")
        await screenshots(page, "movement-held", show="#seating")

        # The director starts round 2: the page follows player 1 to West.
        director = await Client.connect(created.director, name="test director")
        try:
            await director.start_round(2)
        finally:
            await director.close()
        info = page.locator("#round-info")
        await expect(info).to_have_attribute("data-round", "2", timeout=WAIT_MS)
        await expect(info).to_have_attribute("data-seat", "W")
        await expect(hold).to_have_count(0)
        await expect(move).to_have_count(0)
    finally:
        await north.close()
        await end_match(created)
    assert_no_script_errors(page)

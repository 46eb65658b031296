"""An event's results page in Chromium: /event#TOKEN, the link ``create_event`` hands out.

A Swiss of four teams, one round of one board, seeded: 1 v 3 and 2 v 4. Teams 1 and 3 are
the server's robots, whose match ends by itself; teams 2 and 4 are people, whose match
waits for them. The page shows the robots' match ended with its VPs while the board's
results stay hidden (the people's table has not played it), and says so; once the people
(robots here, from their links) have played, the event is finished and board 1's traveller
shows its four tables and the hand diagram. At a phone's size the page never scrolls
sideways, and every tab passes axe-core. A link the server does not know is said to be so.
And a Swiss of five teams as a server would send it (the test speaks for the server on the
page's WebSocket): byes, a rematch in the cross-table, four travellers to choose from, a
board passed out and one of voids, and an update that ends the event. The screenshots land
in ``artifacts/screenshots/event/``.
"""

from __future__ import annotations

import asyncio
import re

import msgpack
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, WebSocketRoute, expect

from bridge.scoring import imps
from clients.client import Client, Link
from clients.robot import Robot
from protocol.codec import encode
from protocol.messages import EventTeamSpec, EventView, Pong, Welcome
from server.app import Server
from tests.clients.sizes import settle
from tests.clients.test_browser import (
    ROBOTS_PLAY_MS,
    SCREENSHOTS,
    assert_no_script_errors,
    chromium,
    open_page,
)
from tests.clients.test_browser_access import SERIOUS, summary, violations
from tests.conftest import ORGANISER_KEY

pytestmark = pytest.mark.asyncio
browser = pytest_asyncio.fixture(chromium, name="browser")


@pytest.fixture
def server(own_server: Server) -> Server:
    """An event reads the whole store's matches: a Redis of the test's own."""
    return own_server


SHOTS = SCREENSHOTS / "event"
SCREENS = {"phone": (360, 740), "desktop": (1280, 800)}
"""A small phone held upright, a desktop."""
TABS = ("standings", "rounds", "cross", "butler", "boards")
TEAMS = [
    EventTeamSpec(name="Robots Red", robots=True),
    EventTeamSpec(name="Sharks", players=["Ann", "Bo", "Cy", "Di"]),
    EventTeamSpec(name="Robots Blue", robots=True),
    EventTeamSpec(name="Minnows", players=["Ed", "Flo", "Gus", "Hal"]),
]
"""Seeded, round 1 is 1 v 3 (the robots' match) and 2 v 4 (the people's)."""
HIDDEN_NOTE = "appear once every table has played"
VPS = re.compile(r"^\d+\.\d\d–\d+\.\d\d$")


async def choose(page: Page, tab: str) -> None:
    await page.click(f"#tab-{tab}")
    await expect(page.locator(f"#{tab}-view")).to_be_visible()


async def shots(page: Page, name: str, tabs: tuple[str, ...] = TABS) -> None:
    """Each tab, the whole page, at each of SCREENS as ``event/{name}-{tab}-{screen}.png``;
    the page gets its size and tab back."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    selected = await page.get_attribute('[role="tab"][aria-selected="true"]', "data-tab")
    for tab in tabs:
        await choose(page, tab)
        for screen, (width, height) in SCREENS.items():
            await page.set_viewport_size({"width": width, "height": height})
            await settle(page)
            await page.evaluate("window.scrollTo(0, 0)")
            await page.screenshot(path=SHOTS / f"{name}-{tab}-{screen}.png", full_page=True)
    if original is not None:
        await page.set_viewport_size(original)
    if selected is not None:
        await choose(page, selected)


async def assert_no_sideways_scroll(page: Page) -> None:
    """At a phone's width, on every tab: the page never scrolls sideways (a wide table
    scrolls in its own box)."""
    original = page.viewport_size
    width, height = SCREENS["phone"]
    await page.set_viewport_size({"width": width, "height": height})
    wide = {}
    for tab in TABS:
        await choose(page, tab)
        await settle(page)
        sizes = await page.evaluate(
            "() => [document.documentElement.scrollWidth, innerWidth, document.body.scrollWidth]"
        )
        if sizes[0] > sizes[1] or sizes[2] > sizes[1]:
            wide[tab] = sizes
    if original is not None:
        await page.set_viewport_size(original)
    assert not wide, f"the page scrolls sideways at {width} px: {wide}"


async def assert_accessible(page: Page, where: str) -> None:
    """Every tab at each of SCREENS: no serious or critical violation of axe-core's rules."""
    original = page.viewport_size
    problems = {}
    for tab in TABS:
        await choose(page, tab)
        for screen, (width, height) in SCREENS.items():
            await page.set_viewport_size({"width": width, "height": height})
            await settle(page)
            found = [v for v in await violations(page) if v["impact"] in SERIOUS]
            if found:
                problems[f"{tab} at {screen}"] = summary(found)
    if original is not None:
        await page.set_viewport_size(original)
    assert not problems, f"{where}: {problems}"


async def test_the_results_page_follows_an_event_and_hides_what_is_in_play(
    browser: Browser, server: Server
) -> None:
    director = await Client.connect(Link(server.ws_url, ORGANISER_KEY), name="test director")
    tasks: list[asyncio.Task[None]] = []
    robots: list[Robot] = []
    try:
        created = await director.create_event(
            TEAMS,
            name="Club teams",
            kind="swiss",
            rounds=1,
            boards_per_round=1,
            robot_delay_ms=0,
        )
        assert created.results is not None
        page = await open_page(browser, created.results, *SCREENS["phone"])
        await expect(page.locator("#status")).to_have_attribute("data-state", "connected")
        await expect(page.locator("#title")).to_have_text("Club teams")
        await expect(page.locator("html")).to_have_attribute("lang", "en")
        await expect(page.locator("#summary")).to_contain_text("Swiss")

        # The robots' match ends by itself: its IMPs and VPs are shown.
        await choose(page, "rounds")
        robots_match = page.locator('#rounds-view tr.match-row[data-home="1"][data-away="3"]')
        await expect(robots_match).to_have_attribute(
            "data-status", "finished", timeout=ROBOTS_PLAY_MS
        )
        await expect(robots_match.locator("td.vps")).to_have_text(VPS)
        await expect(robots_match).to_contain_text("Robots Red")
        await expect(robots_match).to_contain_text("Robots Blue")
        people_match = page.locator('#rounds-view tr.match-row[data-home="2"][data-away="4"]')
        await expect(people_match).not_to_have_attribute("data-status", "finished")
        await expect(people_match.locator("td.vps")).to_have_count(0)
        await expect(people_match.locator("td.imps")).to_have_count(0)
        await expect(people_match).to_contain_text("Sharks")

        # The board's results stay hidden: the people's table has not played it.
        await choose(page, "boards")
        await expect(page.locator("#boards-view .traveller")).to_have_count(0)
        await expect(page.locator("#boards-view .traveller-line")).to_have_count(0)
        await expect(page.locator("#boards-view .diagram")).to_have_count(0)
        await expect(page.locator("#boards-view .hidden-note")).to_contain_text(HIDDEN_NOTE)
        await expect(page.locator("#boards-view .hidden-note")).to_be_visible()
        await expect(page.locator("#boards-view .pending-boards")).to_contain_text("1")
        await choose(page, "butler")
        await expect(page.locator("#butler-view table")).to_have_count(0)
        await expect(page.locator("#butler-view .hidden-note")).to_contain_text(HIDDEN_NOTE)
        await choose(page, "standings")
        for number in (2, 4):
            row = page.locator(f'#standings-view .standings-table tr[data-team="{number}"]')
            await expect(row.locator("td").nth(2)).to_have_text("0")  # played
        await expect(page.locator("#summary .status-badge[data-status='playing']")).to_be_visible()
        await shots(page, "playing", ("standings", "rounds", "boards"))
        await assert_accessible(page, "the event in play")

        # The people play their match (robots at their links).
        view = await director.get_event(created.event_id)
        for round_entry in view.schedule:
            for match in round_entry.matches:
                assert match.match_id is not None
                links = await director.links(match.match_id)
                for entry in links.links:
                    if entry.role != "player" or entry.robot or entry.link is None:
                        continue
                    robot = Robot(
                        Link(server.ws_url, Link.parse(entry.link).token),
                        name=str(entry.name),
                        delay=0.0,
                    )
                    robots.append(robot)
                    tasks.append(asyncio.create_task(robot.run()))
        assert len(robots) == 8

        finished = page.locator("#summary .status-badge[data-status='finished']")
        await expect(finished).to_be_visible(timeout=ROBOTS_PLAY_MS)
        await choose(page, "boards")
        traveller = page.locator('#boards-view .traveller[data-board="1"]')
        await expect(traveller).to_be_visible()
        await expect(traveller.locator(".traveller-line")).to_have_count(4)
        await expect(traveller.locator(".diagram .hand-rows")).to_have_count(4)
        await expect(traveller.locator(".diagram [data-card]")).to_have_count(52)
        await expect(traveller.locator(".datum")).to_contain_text("Datum")
        await expect(page.locator("#boards-view .pending-boards")).to_have_count(0)
        for name in ("Ann", "Ed", "Robot 1"):
            await expect(traveller.locator(".traveller-lines")).to_contain_text(name)
        await choose(page, "rounds")
        await expect(people_match).to_have_attribute("data-status", "finished")
        await expect(people_match.locator("td.vps")).to_have_text(VPS)
        await choose(page, "standings")
        await expect(page.locator("#standings-view .standings-table tbody tr")).to_have_count(4)
        for number in range(1, 5):
            row = page.locator(f'#standings-view .standings-table tr[data-team="{number}"]')
            await expect(row.locator("td").nth(2)).to_have_text("1")
            await expect(row.locator("td.vps")).to_have_text(re.compile(r"^\d+\.\d\d$"))
        await choose(page, "cross")
        # Four teams: a grid of four rows, each with its diagonal blank.
        await expect(page.locator("#cross-view tbody tr")).to_have_count(4)
        await expect(page.locator("#cross-view td.ct-self")).to_have_count(4)
        await expect(page.locator("#cross-view .ct-meeting")).to_have_count(4)
        await expect(
            page.locator('#cross-view tr[data-team="1"] td[data-opponent="3"]')
        ).to_contain_text(re.compile(r"\d+\.\d\d"))
        await choose(page, "butler")
        await expect(page.locator("#butler-view tbody tr")).to_have_count(8)  # two pairs a team

        # The director's adjustment reaches the page by itself, in the standings.
        sharks = page.locator('#standings-view .standings-table tr[data-team="2"] td.vps')
        before = float(await sharks.inner_text())
        await director.adjust_event(created.event_id, 2, -1.5, "Slow play", round=1)
        await choose(page, "standings")
        adjustment = page.locator('#standings-view .adjustments-table tr[data-team="2"]')
        await expect(adjustment).to_contain_text("Slow play")
        await expect(adjustment).to_contain_text("−1.50")
        await expect(adjustment).to_contain_text("Round 1")
        await expect(sharks).to_have_text(f"{before - 1.5:.2f}")

        await shots(page, "finished")
        await assert_no_sideways_scroll(page)
        await assert_accessible(page, "the finished event")

        # In Russian every text is said (a text without its translation is a script error).
        await page.select_option("#language", "ru")
        await expect(page.locator("html")).to_have_attribute("lang", "ru")
        await expect(page.locator("#tab-standings")).to_have_text("Турнирная таблица")
        await shots(page, "finished-ru", ("standings", "boards"))
        await page.select_option("#language", "en")
        assert_no_script_errors(page)
        await page.close()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for robot in robots:
            await robot.close()
        await director.close()
    for robot in robots:
        assert robot.errors == [], robot.errors


async def test_a_link_the_server_does_not_know_is_said_so(browser: Browser, server: Server) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = await open_page(browser, f"{server.public_url}/event#ev_{'x' * 32}", *SCREENS["phone"])
    failure = page.locator("#failure")
    await expect(failure).to_be_visible()
    await expect(failure).to_contain_text("This results link is not known here")
    await expect(page.locator("#status")).to_have_attribute("data-state", "failed")
    await expect(page.locator("#results")).to_be_hidden()
    await page.screenshot(path=SHOTS / "unknown-link-phone.png", full_page=True)
    assert_no_script_errors(page)
    await page.close()

    # Another kind of link's token is never sent from this page: not known here either.
    page = await open_page(browser, f"{server.public_url}/event#{'z' * 32}", *SCREENS["phone"])
    await expect(page.locator("#failure")).to_contain_text("This results link is not known here")
    assert_no_script_errors(page)
    await page.close()

    # Without a token at all: the page says what it needs.
    page = await open_page(browser, f"{server.public_url}/event", *SCREENS["phone"])
    await expect(page.locator("#failure")).to_contain_text("needs an event's results link")
    assert_no_script_errors(page)
    await page.close()


# -- a Swiss of five teams, as the server would send it ----------------------------------------

EVENT_ID = "5e1f0c2a9b7d4e61"
DEALS = {
    1: "N:AKQ2.K32.AQ4.Q32 J43.AQ4.KJ3.AJ54 T98.JT9.T98.T987 765.8765.7652.K6",
    2: "N:7654.8732.T76.A7 AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943",
    3: "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432",
    4: "N:7654.8732.T76.A7 AK2.KQ5.K43.Q652 T98.JT9.A98.KJT8 QJ3.A64.QJ52.943",
}
SWISS_TEAMS = [
    ("Ash", ["Ann", "Bo", "Cy", "Di"]),
    ("Birch", ["Ed", "Flo", "Gus", "Hal"]),
    ("Cedar", ["Ida", "Jo", "Kim", "Lu"]),
    ("Dogwood", ["Robot 1", "Robot 2", "Robot 3", "Robot 4"]),
    ("Elm", ["Max", "Ned", "Oz", "Pia"]),
]
MATCHES = {
    # match id: round, home, away, IMPs and VPs (None: not ended)
    "a1": (1, 1, 3, (25, 10, 15.12, 4.88)),
    "b1": (1, 2, 4, (12, 12, 10.0, 10.0)),
    "c2": (2, 1, 2, (8, 20, 6.53, 13.47)),
    "d2": (2, 5, 3, (30, 0, 18.16, 1.84)),
    "e3": (3, 2, 1, (15, 15, 10.0, 10.0)),  # a rematch: a Swiss may pair them again
    "f3": (3, 4, 5, None),
}
BYES = {1: 5, 2: 4, 3: 3}


def players_of(team: int) -> list[str]:
    return SWISS_TEAMS[team - 1][1]


def swiss_event(*, last_ended: bool = False) -> dict[str, object]:
    """The event after two rounds and a half (``last_ended``: the last match ended too)."""
    matches = dict(MATCHES)
    if last_ended:
        matches["f3"] = (3, 4, 5, (3, 9, 8.09, 11.91))
    schedule = []
    for number in (1, 2, 3):
        entries = []
        for match_id, (round_number, home, away, score) in matches.items():
            if round_number != number:
                continue
            entry: dict[str, object] = {"home": home, "away": away, "match_id": match_id}
            entry["status"] = "playing" if score is None else "finished"
            if score is not None:
                keys = ("home_imps", "away_imps", "home_vps", "away_vps")
                entry.update(zip(keys, score, strict=True))
            entries.append(entry)
        ended = all(e["status"] == "finished" for e in entries)
        schedule.append(
            {
                "round": number,
                "status": "finished" if ended else "playing",
                "boards": [2 * number - 1, 2 * number],
                "matches": entries,
                "bye": BYES[number],
                "bye_vps": 12.0,
            }
        )
    cross = []
    for round_number, home, away, score in matches.values():
        if score is None:
            continue
        home_imps, away_imps, home_vps, away_vps = score
        cross.append(
            {
                "team": home,
                "opponent": away,
                "round": round_number,
                "imps_for": home_imps,
                "imps_against": away_imps,
                "vps": home_vps,
            }
        )
        cross.append(
            {
                "team": away,
                "opponent": home,
                "round": round_number,
                "imps_for": away_imps,
                "imps_against": home_imps,
                "vps": away_vps,
            }
        )
    standings = [
        {"rank": 1, "team": 2, "vps": 33.47, "played": 3, "imps_for": 47, "imps_against": 35},
        {"rank": 2, "team": 1, "vps": 31.65, "played": 3, "imps_for": 48, "imps_against": 45},
        {"rank": 3, "team": 5, "vps": 29.16, "played": 1, "imps_for": 30, "imps_against": 0},
        {"rank": 4, "team": 4, "vps": 22.0, "played": 1, "imps_for": 12, "imps_against": 12},
        {"rank": 5, "team": 3, "vps": 6.72, "played": 2, "imps_for": 10, "imps_against": 55},
    ]

    def line(
        match_id: str, table: int, contract: str | None, tricks: int, score: int, datum: int
    ) -> dict[str, object]:
        _, home, away = matches[match_id][:3]
        ns, ew = (home, away) if table == 1 else (away, home)
        seats = slice(0, 2) if table == 1 else slice(2, 4)
        return {
            "match_id": match_id,
            "table": table,
            "north_south": players_of(ns)[seats],
            "east_west": players_of(ew)[seats],
            "contract": contract,
            "declarer": None if contract is None else "N",
            "tricks": None if contract is None else tricks,
            "score": score,
            "ns_imps": imps(score - datum),
        }

    results = [("4S", 10, 420), ("4S", 9, -50), ("3NT", 9, 400), (None, 0, 0)]
    travellers = []
    for board in (1, 2, 3, 4):
        round_number = (board + 1) // 2
        tables = [(m, t) for m, (r, *_rest) in matches.items() if r == round_number for t in (1, 2)]
        played = [results[(index + board) % 4] for index in range(len(tables))]
        datum = int(round(sum(score for *_rest, score in played) / len(played), -1))
        lines = [
            line(match_id, table, *result, datum)
            for (match_id, table), result in zip(tables, played, strict=True)
        ]
        travellers.append(
            {
                "board": board,
                "dealer": "NESW"[(board - 1) % 4],
                "vulnerability": ["None", "NS", "EW", "All"][(board - 1) % 4],
                "deal": DEALS[board],
                "datum": datum,
                "lines": lines,
            }
        )
    return {
        "type": "event",
        "event_id": EVENT_ID,
        "name": "Thursday Swiss",
        "kind": "swiss",
        "status": "finished" if last_ended else "playing",
        "rounds": 3,
        "boards_per_round": 2,
        "round": 3,
        "teams": [
            {"team": n, "name": name, "players": players, "robots": name == "Dogwood"}
            for n, (name, players) in enumerate(SWISS_TEAMS, 1)
        ],
        "schedule": schedule,
        "standings": standings,
        "cross_table": cross,
        "adjustments": [{"team": 5, "vps": -1.0, "reason": "Late arrival", "round": None}],
        "butler": [
            {
                "rank": 1,
                "team": 2,
                "players": ["Ed", "Flo"],
                "boards": 6,
                "imps": 14,
                "per_board": 2.33,
            },
            {
                "rank": 2,
                "team": 1,
                "players": ["Ann", "Bo"],
                "boards": 6,
                "imps": 9,
                "per_board": 1.5,
            },
            {
                "rank": 3,
                "team": 4,
                "players": ["Robot 1", "Robot 2"],
                "boards": 4,
                "imps": 2,
                "per_board": 0.5,
            },
            {
                "rank": 3,
                "team": 5,
                "players": ["Max", "Ned"],
                "boards": 4,
                "imps": 2,
                "per_board": 0.5,
            },
            {
                "rank": 5,
                "team": 3,
                "players": ["Ida", "Jo"],
                "boards": 4,
                "imps": -11,
                "per_board": -2.75,
            },
        ],
        "travellers": travellers,
        "ref": None,
    }


async def test_a_swiss_of_five_teams_with_byes_a_rematch_and_four_boards(
    browser: Browser, server: Server
) -> None:
    """The page as a server would feed it (the frames are the protocol's own messages,
    checked by its models): byes, a rematch in the cross-table, a passed-out board, a board
    of voids, the director's adjustment, and an update that ends the event. The server
    serves the page; its WebSocket is this test's."""
    said: list[dict[str, object]] = []
    sockets: list[WebSocketRoute] = []
    # What the server would send a page that says hello now. The fake sends no heartbeats, so
    # the page gives a socket up after HEARTBEAT_SILENCE_MS of quiet and says hello again: a
    # hello after the last match has ended must get the ended event, as from a real server.
    current = [swiss_event()]

    async def network(socket: WebSocketRoute) -> None:
        sockets.append(socket)

        def from_page(frame: str | bytes) -> None:
            assert isinstance(frame, bytes), "the page sends binary frames only"
            message = msgpack.unpackb(frame)
            said.append(message)
            if message["type"] == "hello":
                welcome = Welcome(
                    version=7, versions=[6, 7], role="event", event_id=EVENT_ID, now=0
                )
                socket.send(encode(welcome))
                socket.send(encode(EventView.model_validate(current[-1])))
            elif message["type"] == "ping":
                socket.send(encode(Pong(ref=message["ref"])))

        socket.on_message(from_page)

    page = await open_page(
        browser, f"{server.public_url}/event#ev_{'y' * 32}", *SCREENS["desktop"], network
    )
    await expect(page.locator("#title")).to_have_text("Thursday Swiss")
    assert said[0] == {
        "type": "hello",
        "version": 7,
        "versions": [7],
        "token": "ev_" + "y" * 32,
        "client": "event-page",
        "heartbeat": True,
    }
    await expect(page.locator("#summary")).to_contain_text("Round 3 of 3")

    await expect(page.locator("#standings-view .standings-table tbody tr").first).to_have_attribute(
        "data-team", "2"
    )
    adjustment = page.locator('#standings-view .adjustments-table tr[data-team="5"]')
    await expect(adjustment).to_contain_text("the whole event")
    await expect(adjustment).to_contain_text("−1.00")

    await choose(page, "rounds")
    rounds = page.locator("#rounds-view .event-round-part")
    await expect(rounds).to_have_count(3)
    await expect(rounds.first).to_have_attribute("data-round", "3")  # the newest first
    await expect(rounds.first.locator(".bye")).to_have_text(
        "Cedar sits out: 12.00 VPs once the round has ended"
    )
    await expect(page.locator('#rounds-view [data-round="1"] .bye')).to_have_text(
        "Elm sat out: 12.00 VPs"
    )
    await expect(page.locator('#rounds-view tr[data-match-id="f3"] td.vps')).to_have_count(0)
    await expect(page.locator('#rounds-view tr[data-match-id="d2"] td.vps')).to_have_text(
        "18.16–1.84"
    )

    await choose(page, "cross")
    rematch = page.locator('#cross-view tr[data-team="1"] td[data-opponent="2"] .ct-meeting')
    await expect(rematch).to_have_count(2)
    await expect(rematch.nth(0)).to_contain_text("6.53")
    await expect(rematch.nth(0)).to_contain_text("R2")
    await expect(rematch.nth(1)).to_contain_text("10.00")
    await expect(rematch.nth(1)).to_contain_text("R3")
    await expect(page.locator('#cross-view tr[data-team="4"] td[data-opponent="5"]')).to_be_empty()

    await choose(page, "butler")
    ranks = page.locator("#butler-view tbody td.rank")
    await expect(ranks).to_have_text(["1", "2", "3=", "3=", "5"])
    await expect(page.locator('#butler-view tr[data-team="4"]')).to_contain_text(
        "Robot 1 & Robot 2"
    )

    await choose(page, "boards")
    await expect(page.locator("#boards-view .board-choice")).to_have_count(4)
    await expect(page.locator("#boards-view .pending-boards")).to_contain_text("5, 6")
    await expect(page.locator('#boards-view .traveller[data-board="1"]')).to_be_visible()
    await expect(page.locator("#boards-view .traveller-line")).to_have_count(4)
    await expect(page.locator("#boards-view .traveller-lines")).to_contain_text("Passed out")
    await page.click('#boards-view .board-choice[data-board="3"]')
    board_3 = page.locator('#boards-view .traveller[data-board="3"]')
    await expect(board_3).to_be_visible()
    await expect(page.locator('#boards-view .board-choice[data-board="3"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    await expect(board_3.locator(".diagram .void")).to_have_count(12)  # each hand one suit
    await expect(board_3.locator(".diagram [data-card]")).to_have_count(52)
    await expect(board_3.locator(".board-info")).to_contain_text("Dealer S")
    await expect(board_3.locator(".diagram-name.vulnerable")).to_have_count(2)  # E-W

    await shots(page, "swiss")
    await assert_no_sideways_scroll(page)
    await assert_accessible(page, "a Swiss in play")

    # The last match ends: the server sends the event again, and the page follows it.
    current.append(swiss_event(last_ended=True))
    sockets[-1].send(encode(EventView.model_validate(current[-1])))
    await expect(page.locator("#summary .status-badge[data-status='finished']")).to_be_visible()
    await choose(page, "rounds")
    await expect(page.locator('#rounds-view tr[data-match-id="f3"] td.vps')).to_have_text(
        "8.09–11.91"
    )
    await expect(page.locator('#rounds-view [data-round="3"] .bye')).to_have_text(
        "Cedar sat out: 12.00 VPs"
    )
    await choose(page, "boards")
    # The board chosen stays chosen.
    await expect(page.locator('#boards-view .traveller[data-board="3"]')).to_be_visible()
    assert_no_script_errors(page)
    await page.close()

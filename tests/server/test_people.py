"""People, not seats: names, presence, robots labelled, a seat given to a new player."""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
from collections.abc import Callable

import pytest
from redis.asyncio import Redis

from bridge import Deal, board_dealer, board_vulnerability
from bridge.formats import Movement, individual, teams_match
from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import BoardView, MatchCreated, PlayerInfo, PlayerView, WatchView
from server.app import Server
from server.config import BoardSpec, MatchConfig
from server.keys import RESERVED_PREFIXES
from tests.conftest import ORGANISER_KEY, forget_earlier_robots
from tests.server.harness import (
    STRONG_NORTH,
    audit_match,
    bid,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)

DEALS = one_board()
NAMES = {"1N": "Ann", "1E": "Bo", "1S": "Cy", "1W": "Di", "2N": "Ed", "2E": "Flo", "2S": "Gus"}


def seat_info(view: PlayerView | WatchView, table: int, seat: str) -> PlayerInfo:
    return next(p for p in view.players if (p.table, p.seat) == (table, seat))


@pytest.mark.asyncio
async def test_names_from_the_organiser_reach_every_view_and_the_record(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, names=NAMES)
    assert {f"{s.table}{s.seat}": s.name for s in created.seats} == {**NAMES, "2W": None}
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    for (table, seat), client in match.players.items():
        view = client.view
        assert isinstance(view, PlayerView)
        assert [(p.table, p.seat) for p in view.players] == [(table, s) for s in "NESW"]
        assert seat_info(view, table, seat).name == NAMES.get(f"{table}{seat}")
    watched = director.view
    assert isinstance(watched, WatchView)
    assert {f"{p.table}{p.seat}": p.name for p in watched.players} == {**NAMES, "2W": None}

    # A seat the organiser named keeps its name; the unnamed one may set its own.
    with pytest.raises(ClientError) as refused:
        await match.players[(1, "N")].set_name("Annie")
    assert refused.value.code == ErrorCode.FORBIDDEN
    ack = await match.players[(2, "W")].set_name("Hal")
    await settle(match.table(2), ack.seq)
    for client in match.table(2).values():
        assert isinstance(client.view, PlayerView)
        assert seat_info(client.view, 2, "W").name == "Hal"
    renamed = await director.wait_for(lambda v: v if seat_info(v, 2, "W").name else None)
    assert seat_info(renamed, 2, "W").name == "Hal"
    # Table 1 heard nothing of it.
    for client in match.table(1).values():
        assert all(e.type != "name_set" for u in player_updates(client) for e in u.events)

    for table in (1, 2):
        await bid(match.table(table), 1, ["1NT", "P", "P", "P"])
        await play_cards(match.table(table), 1)
    record = await match.players[(1, "E")].record()
    assert record.count('[North "Ann"]') == 1
    assert record.count('[West "Di"]') == 1
    assert record.count('[North "Ed"]') == 1
    assert record.count('[West "Hal"]') == 1
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_presence_shows_who_is_away_and_since_when(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, robots=["2E"])
    match = await seat_everyone(server, created)
    north = match.players[(1, "N")]
    for client in match.players.values():
        await client.wait_for(lambda v: all(p.connected for p in v.players) or None)
    robot = seat_info(await match.players[(2, "N")].wait_for(lambda v: v), 2, "E")
    assert (robot.robot, robot.connected, robot.name) == (True, True, "Robot")
    assert not seat_info(north.view, 1, "N").robot  # type: ignore[arg-type]

    # West drops: the others see West away, with the moment it went.
    before = seat_info(north.view, 1, "W").since  # type: ignore[arg-type]
    await match.players[(1, "W")].close()
    away = await north.wait_for(lambda v: v if not seat_info(v, 1, "W").connected else None)
    west = seat_info(away, 1, "W")
    assert west.since is not None
    assert before is not None
    assert west.since >= before
    assert any(
        e.type == "presence_changed" and e.seat == "W" and not e.connected
        for u in player_updates(north)
        for e in u.events
    )
    # Back again: connected, and a program saying it is one is shown as a robot.
    link = next(s.link for s in created.seats if (s.table, s.seat) == (1, "W"))
    assert link is not None
    back = await Client.connect(link, robot=True)
    returned = await north.wait_for(lambda v: v if seat_info(v, 1, "W").connected else None)
    assert seat_info(returned, 1, "W").robot
    await back.close()
    await match.close()


@pytest.mark.asyncio
async def test_the_director_gives_a_seat_to_a_new_player_or_a_robot(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, names={"1E": "Bo"})
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    east = match.players[(1, "E")]
    with pytest.raises(ClientError) as refused:
        await east.substitute(1, "E")
    assert refused.value.code == ErrorCode.FORBIDDEN

    substituted = await director.substitute(1, "E")
    assert substituted.link is not None
    watched = await director.wait_for(lambda v: v if seat_info(v, 1, "E").name is None else None)
    fresh = seat_info(watched, 1, "E")
    assert (fresh.connected, fresh.since, fresh.robot) == (False, None, False)  # not here yet
    # The old connection is closed and its link no longer works.
    await east.wait_for(lambda _v: not east.is_connected or None)
    old = next(s.link for s in created.seats if (s.table, s.seat) == (1, "E"))
    assert old is not None
    with pytest.raises(ClientError) as revoked:
        await Client.connect(old)
    assert revoked.value.code == ErrorCode.BAD_TOKEN
    assert "director" in revoked.value.message
    # The new player takes the seat, unnamed, and plays on.
    newcomer = await Client.connect(substituted.link)
    view = newcomer.view
    assert isinstance(view, PlayerView)
    assert (view.table, view.seat) == (1, "E")
    assert seat_info(view, 1, "E").name is None
    table = {**match.table(1), "E": newcomer}
    await bid(table, 1, ["1NT", "P", "P"])

    # Now the server's robot takes West's seat, on turn: it makes West's call by itself.
    robot = await director.substitute(1, "W", robot=True)
    assert robot.link is None
    west = match.players[(1, "W")]
    await west.wait_for(lambda _v: not west.is_connected or None)
    north = match.players[(1, "N")]
    final = await north.wait_for(lambda v: v if v.board and v.board.phase == "play" else None)
    assert final.board is not None
    assert final.board.contract == "1NT"
    assert final.board.auction[3].seat == "W"
    assert seat_info(final, 1, "W").robot
    assert seat_info(final, 1, "W").name == "Robot"
    await newcomer.close()
    await match.close()
    await director.close()


def link_of(created: MatchCreated, table: int, seat: str) -> str:
    link = next(s.link for s in created.seats if (s.table, s.seat) == (table, seat))
    assert link is not None
    return link


def board_of(view: PlayerView | WatchView) -> BoardView:
    board = view.board if isinstance(view, PlayerView) else view.tables[0]
    assert board is not None
    return board


@pytest.mark.asyncio
async def test_a_table_starts_when_its_four_are_there(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, wait_for_players=True)  # N deals
    table = {seat: await Client.connect(link_of(created, 1, seat)) for seat in "NES"}
    north = table["N"]
    waiting = await north.wait_for(
        lambda v: v if seat_info(v, 1, "S").connected and v.board else None
    )
    board = board_of(waiting)
    assert (waiting.waiting_for_seats, board.turn, board.legal) == (["W"], None, [])
    with pytest.raises(ClientError) as refused:
        await north.call("1NT")
    assert refused.value.code == ErrorCode.WRONG_PHASE
    assert "West not here yet" in refused.value.message
    director = await Client.connect(created.director)
    assert isinstance(director.view, WatchView)
    waiting = [(w.table, w.seats) for w in director.view.waiting]
    assert waiting == [(1, ["W"]), (2, ["N", "E", "S", "W"])]  # nobody at table 2 yet

    table["W"] = await Client.connect(link_of(created, 1, "W"))
    now = await north.wait_for(lambda v: v if v.board and v.board.legal else None)
    assert (now.waiting_for_seats, board_of(now).turn) == ([], "N")
    await bid(table, 1, ["1NT", "P"])
    # A player who leaves once the board started does not stop it: the table waits for
    # them only where it is their turn.
    await table.pop("E").close()
    await north.wait_for(lambda v: v if not seat_info(v, 1, "E").connected else None)
    await table["S"].call("3NT")
    assert isinstance(north.view, PlayerView)
    assert north.view.waiting_for_seats == []
    for client in [*table.values(), director]:
        await client.close()


@pytest.mark.asyncio
async def test_without_wait_for_players_the_auction_starts_at_once(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)  # the protocol's default
    north = await Client.connect(link_of(created, 1, "N"))
    view = await north.wait_for(lambda v: v if v.board else None)
    assert view.waiting_for_seats == []
    assert board_of(view).legal  # the others are not there: North calls all the same
    await north.call("1NT")
    await north.close()


@pytest.mark.asyncio
async def test_the_director_starts_a_table_with_a_robot_for_the_absent_seat(
    server: Server,
) -> None:
    # East deals; the server's robots sit South and West, and would call at once.
    deals = one_board(dealer="E")
    created = await create(
        server, boards=1, deals_pbn=deals, robots=["1S", "1W"], wait_for_players=True
    )
    east = await Client.connect(link_of(created, 1, "E"))
    there = await east.wait_for(
        lambda v: v if v.board and all(seat_info(v, 1, s).connected for s in "ESW") else None
    )
    assert there.waiting_for_seats == ["N"]
    # The robots are there and see the board: nobody may call before North comes.
    with pytest.raises(ClientError) as refused:
        await east.call("P")
    assert "North not here yet" in refused.value.message
    director = await Client.connect(created.director)
    await director.substitute(1, "N", robot=True)
    started = await east.wait_for(lambda v: v if v.board and v.board.legal else None)
    assert started.waiting_for_seats == []
    await east.call("P")
    # The robot North (and the robots beside it) call in their turn.
    done = await east.wait_for(lambda v: v if v.board and len(v.board.auction) >= 4 else None)
    assert [entry.seat for entry in board_of(done).auction[:4]] == ["E", "S", "W", "N"]
    await east.close()
    await director.close()


@pytest.mark.asyncio
async def test_robots_play_at_a_human_pace(redis: Redis) -> None:
    await forget_earlier_robots(redis)
    paced = Server(redis, ORGANISER_KEY, robot_delay=0.4)
    await paced.start()
    try:
        created = await create(paced, boards=1, deals_pbn=DEALS, robots=["1E", "1S", "1W", "t2"])
        north = await Client.connect(next(s.link for s in created.seats if s.link) or "")
        loop = asyncio.get_running_loop()
        await north.call("1C")
        sent = loop.time()
        # East answers only after its pause; the robots' whole table 2 does not wait.
        await north.wait_for(lambda v: v if v.board and len(v.board.auction) >= 2 else None)
        assert loop.time() - sent >= 0.35
        await north.close()
    finally:
        await paced.close()


def test_robots_wait_unless_the_match_is_robots_only() -> None:
    # A table of robots waits too: spectators watch it beside the people's table. Only a
    # match of robots alone plays at once.
    server = Server(Redis(), ORGANISER_KEY, robot_delay=0.4)
    boards = tuple(
        BoardSpec(n, board_dealer(n), board_vulnerability(n), Deal.random(random.Random(n)))
        for n in range(1, 15)
    )

    def config(format: str, movement: Movement, robots: list[str]) -> MatchConfig:
        seats = tuple((int(k[0]), k[1]) for k in robots)
        return MatchConfig(
            "m",
            "A",
            "B",
            boards,
            format=format,
            robots=seats,
            movement=movement,  # type: ignore[arg-type]
        )

    everyone_but_1n = ["1E", "1S", "1W", "2N", "2E", "2S", "2W"]
    teams = config("teams", teams_match(14), everyone_but_1n)
    assert server.house.delay_for(teams, "2N") == 0.4  # table 2 is robots' only
    assert server.house.delay_for(teams, "1E") == 0.4
    # In an individual everyone meets everyone: each robot sits with the person some round.
    alone_1s = ["1N", "1E", "1W", "2N", "2E", "2S", "2W"]
    eight = config("individual", individual(8, 14), alone_1s)
    assert {server.house.delay_for(eight, seat) for seat in alone_1s} == {0.4}
    robots_only = config("individual", individual(8, 14), [*alone_1s, "1S"])
    assert server.house.delay_for(robots_only, "1S") == 0.0
    all_robots = config("teams", teams_match(14), [*everyone_but_1n, "1N"])
    assert {server.house.delay_for(all_robots, seat) for seat in everyone_but_1n} == {0.0}


def colliding_nonce(derive: Callable[[str, str], str], keys: list[str]) -> tuple[str, str]:
    """The first nonce (counting up) and key for which ``derive(key, nonce)`` begins as a
    session's or a results link's token does."""
    for number in itertools.count():
        nonce = f"{number:032x}"
        for key in keys:
            if derive(key, nonce).startswith(RESERVED_PREFIXES):
                return nonce, key
    raise AssertionError("unreachable")


@pytest.mark.asyncio
async def test_a_link_never_begins_as_a_session_or_results_token(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hello tells an organiser's session (``os_``) and an event's results link
    (``ev_``) by how their tokens begin. A link's token is derived from the organiser key,
    and about one in 131,072 began so: that seat's player could never sit down (``bad_token``:
    "this organiser session is not known here"). Such a derivation is derived again; every
    other link stays as it was."""
    match_id = "00c0ffee00c0ffee"
    keys = [f"{t}{s}" for t in (1, 2) for s in "NESW"]
    nonce, key = colliding_nonce(lambda k, n: server.keys.derived(f"link:{match_id}:{k}:{n}"), keys)
    drawn = secrets.token_hex
    monkeypatch.setattr(
        secrets, "token_hex", lambda size: {8: match_id, 16: nonce}.get(size) or drawn(size)
    )
    created = await create(server, boards=1, deals_pbn=DEALS)
    monkeypatch.undo()
    assert created.match_id == match_id
    links = {f"{s.table}{s.seat}": s.link for s in created.seats if s.link is not None}
    for other in keys:
        token = Link.parse(links[other]).token
        assert not token.startswith(RESERVED_PREFIXES)
        if other != key:  # as before
            assert token == server.keys.derived(f"link:{match_id}:{other}:{nonce}")
    player = await Client.connect(links[key])
    assert isinstance(player.view, PlayerView)
    assert f"{player.view.table}{player.view.seat}" == key
    await player.close()


def test_a_robot_token_never_begins_as_a_session_or_results_token(server: Server) -> None:
    match_id = "00c0ffee00c0ffee"
    nonce, seat = colliding_nonce(
        lambda k, n: server.keys.derived(f"robot:{match_id}:{k}:{n}", size=43), ["1N", "2E"]
    )
    token = server.keys.robot_token(match_id, seat, nonce)
    assert len(token) == 43
    assert not token.startswith(RESERVED_PREFIXES)

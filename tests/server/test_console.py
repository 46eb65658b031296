"""The organiser's console messages against a real server and Redis: sessions, the Origin
check, the live list of matches, the links given again, new links, archiving and records."""

from __future__ import annotations

import asyncio
import logging
import time

import msgpack
import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import connect

from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import MatchEntry, MatchList
from server.app import Server
from server.redis_process import RedisProcess
from tests.conftest import ORGANISER_KEY
from tests.server.harness import bid, create, one_board, play_cards, seat_everyone

pytestmark = pytest.mark.asyncio

ROSTER = (
    '[Table "1"]\n[North "Ann"]\n[East "Bo"]\n[South "Cy"]\n[West "Di"]\n\n'
    '[Table "2"]\n[North "Ed"]\n[East "Flo"]\n[South "Gus"]\n[West "Hal"]\n'
)


@pytest.fixture
def server(own_server: Server) -> Server:
    """The list of matches is the whole store's: a Redis of the test's own."""
    return own_server


async def organiser(server: Server, token: str = ORGANISER_KEY) -> Client:
    return await Client.connect(Link(server.ws_url, token), name="test console")


async def hello_from(server: Server, token: str, origin: str | None) -> dict[str, object]:
    """The answer to a ``hello`` with ``token`` on a connection whose handshake says
    ``origin`` (None: none, as a program's)."""
    async with connect(server.ws_url, origin=origin) as websocket:  # type: ignore[arg-type]
        hello = {"type": "hello", "version": 7, "versions": [7], "token": token}
        await websocket.send(msgpack.packb(hello))
        answer: dict[str, object] = msgpack.unpackb(await websocket.recv())
        return answer


def entry(listed: MatchList, match_id: str) -> MatchEntry | None:
    return next((m for m in listed.matches if m.match_id == match_id), None)


async def test_a_session_speaks_for_the_organiser_until_it_is_closed(server: Server) -> None:
    keyed = await organiser(server)
    session = await keyed.open_session()
    assert session.token.startswith("os_")
    assert session.expires_at > time.time() * 1000 + 11 * 3_600_000
    by_session = await organiser(server, session.token)
    assert by_session.welcome is not None
    assert by_session.welcome.role == "organiser"
    with pytest.raises(ClientError) as refused:
        await by_session.open_session()
    assert refused.value.code == ErrorCode.FORBIDDEN  # only the key opens a session
    other = await organiser(server, session.token)
    await by_session.close_session()
    # The other page of the same session is signed out too, and the token is refused.
    async with asyncio.timeout(10):
        while other.is_connected:
            await asyncio.sleep(0.05)
    with pytest.raises(ClientError) as refused:
        await organiser(server, session.token)
    assert refused.value.code == ErrorCode.BAD_TOKEN
    with pytest.raises(ClientError) as refused:
        await organiser(server, "os_" + "x" * 43)
    assert refused.value.code == ErrorCode.BAD_TOKEN
    with pytest.raises(ClientError) as refused:
        await organiser(server, "not-the-key")
    assert refused.value.code == ErrorCode.BAD_TOKEN
    await keyed.close()


async def test_an_expired_session_is_signed_out(server: Server) -> None:
    token = "os_expires-soon-" + "y" * 30
    await server.store.open_session(token, int(time.time() * 1000) + 1500)
    page = await organiser(server, token)
    await page.list_matches(live=True)
    async with asyncio.timeout(15):
        while page.is_connected:
            await asyncio.sleep(0.05)
    told = [m for m in page.received if getattr(m, "code", None) == ErrorCode.BAD_TOKEN]
    assert told, page.received
    with pytest.raises(ClientError) as refused:
        await organiser(server, token)
    assert refused.value.code == ErrorCode.BAD_TOKEN


async def test_a_list_asked_for_while_the_server_closes_leaves_nothing_running(
    own_redis: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live list asked for just before the server closes, and answered after its
    organisers' feed was stopped, starts no feed that would outlive the server (and use
    the store once it is closed)."""
    redis = Redis.from_url(own_redis.url)
    server = Server(redis, ORGANISER_KEY)
    await server.start()
    console = server.console
    asking, answer = asyncio.Event(), asyncio.Event()
    entries, close = console.entries, console.close

    async def slow_entries(*, archived: bool) -> list[MatchEntry]:
        asking.set()
        await answer.wait()
        return await entries(archived=archived)

    async def close_then_answer() -> None:
        await close()
        answer.set()  # the list is made once the feed was stopped

    monkeypatch.setattr(console, "entries", slow_entries)
    monkeypatch.setattr(console, "close", close_then_answer)
    page = await organiser(server)
    listing = asyncio.create_task(page.list_matches(live=True))
    try:
        async with asyncio.timeout(10):
            await asking.wait()
            await server.close()
    finally:
        await asyncio.gather(listing, return_exceptions=True)
        await page.close()
        await redis.aclose()
    assert answer.is_set()
    feeds = [t for t in asyncio.all_tasks() if t.get_name() == "organisers' lists"]
    assert not [feed for feed in feeds if not feed.done()]


async def test_the_organiser_signs_in_only_from_this_servers_pages(server: Server) -> None:
    own = f"http://127.0.0.1:{server.port}"
    assert (await hello_from(server, ORGANISER_KEY, own))["role"] == "organiser"
    assert (await hello_from(server, ORGANISER_KEY, None))["role"] == "organiser"
    foreign = await hello_from(server, ORGANISER_KEY, "http://evil.example")
    assert foreign["code"] == "forbidden", foreign
    keyed = await organiser(server)
    session = await keyed.open_session()
    foreign = await hello_from(server, session.token, "https://evil.example")
    assert foreign["code"] == "forbidden", foreign
    await keyed.close()


async def test_the_organiser_key_is_never_logged(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    keyed = await organiser(server)
    session = await keyed.open_session()
    page = await organiser(server, session.token)
    await page.list_matches()
    await create(server, deals_pbn=one_board(), boards=1)
    assert ORGANISER_KEY not in caplog.text
    assert session.token not in caplog.text
    await page.close()
    await keyed.close()


async def test_the_live_list_follows_every_table(server: Server) -> None:
    created = await create(
        server, deals_pbn=one_board(), boards=1, roster=ROSTER, robots=["t2"], team_a="Reds"
    )
    match_id = created.match_id
    console = await organiser(server)
    second = await organiser(server)
    first_list = await console.list_matches(live=True)
    await second.list_matches(live=True)
    shown = entry(first_list, match_id)
    assert shown is not None
    assert shown.status == "waiting"
    assert shown.team_a == "Reds"
    assert [p.name for p in shown.tables[0].players] == ["Ann", "Bo", "Cy", "Di"]
    assert not any(p.connected for p in shown.tables[0].players)
    assert all(p.robot for p in shown.tables[1].players)

    match = await seat_everyone(server, created)
    table = match.table(1)

    def all_there(listed: MatchList) -> bool:
        found = entry(listed, match_id)
        return found is not None and all(p.connected for p in found.tables[0].players)

    await console.wait_for_list(all_there)
    await second.wait_for_list(all_there)  # two consoles agree
    await table["E"].call_director("a revoke, I think")

    def called(listed: MatchList) -> bool:
        found = entry(listed, match_id)
        return found is not None and any(
            c.text == "a revoke, I think" and c.seat == "E" for c in found.tables[0].director_calls
        )

    await console.wait_for_list(called)
    await bid(table, 1, ["1NT", "P", "3NT", "P", "P", "P"])
    await play_cards(table, 1, 5)

    def in_play(listed: MatchList) -> tuple[int, str] | None:
        found = entry(listed, match_id)
        at = None if found is None else found.tables[0]
        if at is None or at.trick != 2 or at.contract is None:
            return None
        return at.trick, at.contract

    assert await console.wait_for_list(in_play) == (2, "3NT")

    def robots_done(listed: MatchList) -> MatchEntry | None:
        found = entry(listed, match_id)
        return found if found is not None and found.tables[1].phase == "finished" else None

    # The robots' table has finished the board, table 1 has not: its result stays hidden.
    hidden = await console.wait_for_list(robots_done, timeout=60)
    assert hidden.tables[0].phase == "play"
    assert hidden.compared == 0
    assert all(standing.points == 0 for standing in hidden.standings)
    dumped = hidden.model_dump_json()
    assert "score" not in dumped
    assert "result" not in dumped
    assert (await console.wait_for_list(in_play)) == (await second.wait_for_list(in_play))
    await play_cards(table, 1)

    def finished(listed: MatchList) -> MatchEntry | None:
        found = entry(listed, match_id)
        return found if found is not None and found.status == "finished" else None

    done = await console.wait_for_list(finished, timeout=60)
    assert done.compared == 1
    assert [s.competitor for s in done.standings] != []
    record = await console.record("pbn", match_id=match_id)
    assert '[HomeTeam "Reds"]' in record
    assert '[North "Ann"]' in record
    await match.close()
    await console.close()
    await second.close()


async def test_links_are_given_again_with_their_qr_codes(server: Server) -> None:
    created = await create(server, deals_pbn=one_board(), boards=1, robots=["2N"])
    console = await organiser(server)
    links = await console.links(created.match_id)
    given = {(s.table, s.seat): s.link for s in created.seats}
    for link in links.links:
        if link.role == "player":
            assert link.link == given[(link.table, link.seat)]  # type: ignore[index]
            assert (link.qr is None) == link.robot
        elif link.role == "spectator":
            assert link.link == created.spectator
        else:
            assert link.link == created.director
        if link.link is not None:
            assert link.qr is not None
            assert link.qr.startswith("data:image/svg+xml")
    assert sum(1 for link in links.links if link.robot) == 1
    with pytest.raises(ClientError) as refused:
        await console.links("0123456789abcdef")
    assert refused.value.code == ErrorCode.INVALID_MESSAGE
    assert refused.value.field == "match_id"
    await console.close()


async def test_a_new_link_cuts_the_old_one(server: Server) -> None:
    created = await create(server, deals_pbn=one_board(), boards=1)
    old = next(s for s in created.seats if (s.table, s.seat) == (1, "E"))
    assert old.link is not None
    player = await Client.connect(old.link, name="old East")
    console = await organiser(server)
    fresh = await console.new_link(created.match_id, old.player)
    assert fresh.link is not None
    assert fresh.link != old.link
    assert (fresh.table, fresh.seat) == (1, "E")
    async with asyncio.timeout(10):
        while player.is_connected:
            await asyncio.sleep(0.05)
    with pytest.raises(ClientError) as refused:
        await Client.connect(old.link, name="old East again")
    assert refused.value.code == ErrorCode.BAD_TOKEN
    again = await Client.connect(fresh.link, name="new East")
    links = await console.links(created.match_id)
    assert fresh.link in [link.link for link in links.links]
    assert old.link not in [link.link for link in links.links]
    with pytest.raises(ClientError) as refused:
        await console.new_link(created.match_id, 12)
    assert refused.value.code == ErrorCode.INVALID_MESSAGE
    await again.close()
    await console.close()


async def test_only_a_finished_match_is_archived(server: Server) -> None:
    playing = await create(server, deals_pbn=one_board(), boards=1)
    done = await create(server, deals_pbn=one_board(), boards=1, robots=["t1", "t2"])
    console = await organiser(server)
    with pytest.raises(ClientError) as refused:
        await console.archive(playing.match_id)
    assert refused.value.code == ErrorCode.INVALID_MESSAGE

    def finished(listed: MatchList) -> bool:
        found = entry(listed, done.match_id)
        return found is not None and found.status == "finished"

    await console.list_matches(live=True)
    await console.wait_for_list(finished, timeout=60)
    assert (await console.archive(done.match_id)).archived
    assert entry(await console.list_matches(), done.match_id) is None
    archived = entry(await console.list_matches(archived=True), done.match_id)
    assert archived is not None
    assert archived.archived
    await console.archive(done.match_id, archived=False)
    assert entry(await console.list_matches(), done.match_id) is not None
    await console.close()


async def test_the_console_messages_are_the_organisers_alone(server: Server) -> None:
    created = await create(server, deals_pbn=one_board(), boards=1)
    other = await create(server, deals_pbn=one_board(), boards=1)
    link = created.seats[0].link
    assert link is not None
    player = await Client.connect(link, name="N1")
    with pytest.raises(ClientError) as refused:
        await player.list_matches()
    assert refused.value.code == ErrorCode.FORBIDDEN
    with pytest.raises(ClientError) as refused:
        await player.record("pbn", match_id=other.match_id)
    assert refused.value.code == ErrorCode.FORBIDDEN
    await player.record("pbn", match_id=created.match_id)  # its own match's
    console = await organiser(server)
    with pytest.raises(ClientError) as refused:
        await console.record("pbn")
    assert refused.value.field == "match_id"
    await player.close()
    await console.close()


async def test_a_roster_names_the_players_and_its_refusals_name_their_field(
    server: Server,
) -> None:
    console = await organiser(server)
    created = await console.create_match(
        deals_pbn=one_board(), boards=1, roster=ROSTER, names={"2N": "Ida"}
    )
    names = {(s.table, s.seat): s.name for s in created.seats}
    assert names[(1, "N")] == "Ann"
    assert names[(2, "N")] == "Ida"  # names win over the roster
    assert names[(2, "W")] == "Hal"
    cases = [
        ({"roster": '[Table "3"]\n[North "Zed"]\n'}, "roster"),
        ({"roster": '[Table "7"]\n[North "Zed"]\n'}, "roster"),
        ({"roster": '[Table "1"]\n[North "' + "x" * 41 + '"]\n'}, "roster"),
        ({"format": "robot-table", "boards": 5}, "boards"),
        ({"scoring": "matchpoints"}, "scoring"),
        ({"robots": ["t3"]}, "robots"),
        ({"names": {"3N": "Zed"}}, "names"),
        ({"deals_pbn": "not a pbn"}, "deals_pbn"),
    ]
    for options, field in cases:
        with pytest.raises(ClientError) as refused:
            await console.create_match(**options)  # type: ignore[arg-type]
        assert refused.value.field == field, (options, refused.value)
    await console.close()
    # A field the message's model refuses is named too (a client of its own, unchecked).
    async with connect(server.ws_url) as websocket:
        hello = {"type": "hello", "version": 7, "versions": [7], "token": ORGANISER_KEY}
        await websocket.send(msgpack.packb(hello))
        await websocket.recv()
        await websocket.send(msgpack.packb({"type": "create_match", "review_seconds": 601}))
        refusal = msgpack.unpackb(await websocket.recv())
        assert (refusal["code"], refusal["field"]) == ("invalid_message", "review_seconds")
        await websocket.send(msgpack.packb({"type": "create_match", "colour": "red"}))
        refusal = msgpack.unpackb(await websocket.recv())
        assert refusal["code"] == "invalid_message"
        assert "field" not in refusal

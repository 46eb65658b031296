"""Which protocol version a connection speaks: ``hello``'s ``version`` and ``versions``, the
``welcome``, and ``unsupported_version`` with the versions served as data."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

from clients.client import Client, Link
from protocol.messages import PROTOCOL_VERSION, SUPPORTED_VERSIONS
from server.app import Server
from tests.conftest import ORGANISER_KEY
from tests.server.harness import create, one_board

SERVED = sorted(SUPPORTED_VERSIONS)


async def hello(server: Server, **fields: Any) -> dict[str, Any]:
    """Say hello on a new connection (raw msgpack: any field, any value); the answer."""
    async with connect(server.ws_url, compression=None) as websocket:
        await websocket.send(msgpack.packb({"type": "hello", "token": ORGANISER_KEY, **fields}))
        answer: dict[str, Any] = msgpack.unpackb(await websocket.recv())
        return answer


def test_the_versions_served() -> None:
    assert PROTOCOL_VERSION == 7
    assert SERVED == [6, 7]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("fields", "spoken"),
    [
        ({"version": 7}, 7),
        ({"version": 6}, 6),
        ({"version": 6, "versions": [6, 7]}, 7),
        ({"version": 7, "versions": [7, 6]}, 7),
        ({"version": 5, "versions": [5, 6]}, 6),
        ({"version": 6, "versions": [6, 7, 8]}, 7),
    ],
)
async def test_the_newest_version_both_speak_is_spoken(
    server: Server, fields: dict[str, Any], spoken: int
) -> None:
    answer = await hello(server, **fields)
    assert answer["type"] == "welcome"
    assert answer["version"] == spoken
    if spoken == 6:
        # Exactly the welcome version 6 had: nothing it did not know.
        assert "versions" not in answer
    else:
        assert answer["versions"] == SERVED


@pytest.mark.asyncio
@pytest.mark.parametrize("fields", [{"version": 8}, {"version": 8, "versions": [8, 9]}])
async def test_a_newer_client_is_told_the_versions_as_data(
    server: Server, fields: dict[str, Any]
) -> None:
    answer = await hello(server, **fields)
    assert answer["type"] == "error"
    assert answer["code"] == "unsupported_version"
    assert answer["versions"] == SERVED
    assert answer["ref"] is None
    assert "not supported" in answer["message"]


@pytest.mark.asyncio
async def test_a_client_older_than_6_is_told_in_words_its_decoder_reads(server: Server) -> None:
    answer = await hello(server, version=5)
    assert answer == {
        "type": "error",
        "code": "unsupported_version",
        "message": "protocol version 5 is too old: this server speaks [6, 7]; update the "
        "client (protocol/SPEC.md, 'Versions', says what changed)",
        "ref": None,
    }


@pytest.mark.asyncio
async def test_other_errors_carry_no_versions(server: Server) -> None:
    async with connect(server.ws_url, compression=None) as websocket:
        await websocket.send(msgpack.packb({"type": "call", "call": "1C"}))
        answer = msgpack.unpackb(await websocket.recv())
    assert answer["code"] == "not_authenticated"
    assert "versions" not in answer


@pytest.mark.asyncio
async def test_a_version_6_player_and_a_version_7_player_play_one_match(server: Server) -> None:
    """Each gets its own version's frames of the same updates: the views are one."""
    created = await create(server, boards=1, deals_pbn=one_board())
    links = {f"{s.table}{s.seat}": s.link for s in created.seats}
    old = await raw_player(server, links["1N"], version=6)
    new = await raw_player(server, links["1S"], version=7)
    try:
        old_view = await snapshot(old)
        new_view = await snapshot(new)
        # The same match, but for what version 7 added since (taken out for version 6).
        added = set(new_view["match"]) - set(old_view["match"])
        assert added == {"deals_public_form", "sessions"}
        assert old_view["match"] == {k: v for k, v in new_view["match"].items() if k not in added}
        await old.send(msgpack.packb({"type": "call", "call": "1C", "ref": 1}))
        while (answer := msgpack.unpackb(await old.recv()))["type"] != "ack":
            pass
        seen = msgpack.unpackb(await new.recv())
        while not seen.get("events") or seen["events"][0]["type"] != "call_made":
            seen = msgpack.unpackb(await new.recv())
        assert seen["events"][0]["call"] == "1C"
        assert answer["ref"] == 1
    finally:
        await old.close()
        await new.close()


async def raw_player(server: Server, link: str | None, version: int) -> Any:
    assert link is not None
    websocket = await connect(server.ws_url, compression=None)
    token = Link.parse(link).token
    await websocket.send(msgpack.packb({"type": "hello", "version": version, "token": token}))
    welcome = msgpack.unpackb(await websocket.recv())
    assert welcome["type"] == "welcome"
    assert welcome["version"] == version
    return websocket


async def snapshot(websocket: Any) -> dict[str, Any]:
    frame = msgpack.unpackb(await websocket.recv())
    assert frame["type"] == "update"
    view: dict[str, Any] = frame["view"]
    return view


@pytest.mark.asyncio
async def test_the_client_library_speaks_the_current_version(server: Server) -> None:
    client = await Client.connect(Link(server.ws_url, ORGANISER_KEY), name="versions")
    try:
        assert client.welcome is not None
        assert client.welcome.version == PROTOCOL_VERSION
        assert client.welcome.versions == SERVED
    finally:
        await client.close()

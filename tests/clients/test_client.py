"""The client library: links, requests, resuming."""

from __future__ import annotations

import pytest

from clients.client import Client, ClientError, Link
from protocol.messages import Update
from server.app import Server
from tests.server.harness import bid, create, seat_everyone


class TestLink:
    @pytest.mark.parametrize(
        ("link", "ws_url", "token"),
        [
            ("http://127.0.0.1:8765/play#abc", "ws://127.0.0.1:8765/ws", "abc"),
            ("https://bridge.example/watch#t-_1", "wss://bridge.example/ws", "t-_1"),
            ("https://club.example/bridge/direct#xyz", "wss://club.example/bridge/ws", "xyz"),
            ("ws://[::1]:9000/ws#k", "ws://[::1]:9000/ws", "k"),
        ],
    )
    def test_parse(self, link: str, ws_url: str, token: str) -> None:
        assert Link.parse(link) == Link(ws_url, token)

    @pytest.mark.parametrize("link", ["", "ftp://host/play#t", "http://host/play", "play#t"])
    def test_bad_links(self, link: str) -> None:
        with pytest.raises(ClientError):
            Link.parse(link)


@pytest.mark.asyncio
async def test_a_new_client_resumes_from_a_saved_sequence_number(server: Server) -> None:
    created = await create(server, boards=1)
    match = await seat_everyone(server, created)
    table = match.table(1)
    north = table["N"]
    saved = north.seq
    await bid(table, 1, ["P", "P"])
    resumed = await Client.connect(created.seats[0].link, last_seq=saved)
    await resumed.wait_for(lambda _v: resumed.seq >= north.seq or None)
    updates = [m for m in resumed.received if isinstance(m, Update)]
    assert [u.seq for u in updates] == list(range(saved + 1, north.seq + 1))
    assert resumed.view == north.view
    await resumed.close()
    await match.close()

"""The client library: links, requests, resuming."""

from __future__ import annotations

import pytest

from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import Ack, MakeCall, PlayerView, Update
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
    saved, saved_view = north.seq, north.view
    assert saved_view is not None
    await bid(table, 1, ["P", "P"])
    with pytest.raises(ValueError, match="both"):
        await Client.connect(created.seats[0].link, last_seq=saved)  # its view is needed too
    resumed = await Client.connect(created.seats[0].link, last_seq=saved, view=saved_view)
    await resumed.wait_for(lambda _v: resumed.seq >= north.seq or None)
    updates = [m for m in resumed.received if isinstance(m, Update)]
    assert [u.seq for u in updates] == list(range(saved + 1, north.seq + 1))
    # Each of them carried only the changes to the view saved with the number.
    raw = [m for m in updates if not any(e.type == "snapshot" for e in m.events)]
    assert len(raw) == len(updates)
    assert resumed.view == north.view
    await resumed.close()
    await match.close()


@pytest.mark.asyncio
async def test_changes_that_do_not_fit_the_view_held_start_it_afresh(server: Server) -> None:
    created = await create(server, boards=1)
    match = await seat_everyone(server, created)
    table = match.table(1)
    north = table["N"]
    assert north._data is not None
    del north._data["chat"]  # the view held is not the one the server changes
    await table["E"].chat("hello")  # an opponent's line: North's chat changes
    with pytest.raises(ClientError) as refused:
        await north.wait_for(lambda _v: None, timeout=5)
    assert refused.value.code == "bad_changes"
    assert (north.seq, north.view) == (0, None)
    await north.reconnect()  # afresh: a snapshot
    fresh = await Client.connect(created.seats[0].link)
    assert north.view == fresh.view
    await fresh.close()
    await match.close()


def calls(client: Client) -> list[str]:
    view = client.view
    assert isinstance(view, PlayerView)
    assert view.board is not None
    return [entry.call for entry in view.board.auction]


async def drop_right_after_sending(client: Client) -> None:
    """The next frame ``client`` sends leaves, and the connection drops at once: the answer
    can never come."""
    websocket = client._websocket
    assert websocket is not None
    send = websocket.send

    async def send_and_drop(data: bytes) -> None:
        await send(data)
        websocket.transport.abort()

    websocket.send = send_and_drop  # type: ignore[method-assign]


@pytest.mark.asyncio
async def test_an_action_whose_answer_the_drop_took_is_sent_again_and_applied_once(
    server: Server,
) -> None:
    created = await create(server, boards=1)
    match = await seat_everyone(server, created)
    table = match.table(1)
    north, east = table["N"], table["E"]
    await drop_right_after_sending(north)
    with pytest.raises(ClientError) as dropped:
        await north.call("1NT")
    assert dropped.value.code == "closed"
    [(action_id, sent)] = north.in_doubt.items()
    assert isinstance(sent, MakeCall)
    assert sent.call == "1NT"
    assert sent.action_id == action_id
    # The server had it: East sees it once.
    await east.wait_for(lambda _v: calls(east) == ["1NT"] or None)
    await north.reconnect()
    # North's view, up to date again, shows the call made: the moment it was meant for has
    # passed, so it is not sent again (nor would it be applied again if it were).
    [(message, answer)] = await north.resend()
    assert message is sent
    assert isinstance(answer, ClientError)
    assert answer.code == "moved_on"
    assert not north.in_doubt
    await east.ping()
    assert calls(east) == calls(north) == ["1NT"]
    # Every action carries an id of its own: the next call is a new intent.
    await east.call("P")
    assert calls(east) == ["1NT", "P"]

    # A chat line is meant for as long as the board lasts: it is sent again, and the server,
    # which had it, answers with the first ack and does not log it twice.
    await drop_right_after_sending(north)
    with pytest.raises(ClientError):
        await north.chat("well bid")
    await east.wait_for(lambda v: v.chat or None)
    await north.reconnect()
    [(message, answer)] = await north.resend()
    assert isinstance(answer, Ack)
    assert answer.repeated
    await east.ping()
    assert isinstance(east.view, PlayerView)
    assert [line.text for line in east.view.chat] == ["well bid"]
    await match.close()


@pytest.mark.asyncio
async def test_an_action_in_doubt_whose_moment_passed_is_not_applied(server: Server) -> None:
    created = await create(server, boards=1)
    match = await seat_everyone(server, created)
    table = match.table(1)
    north, east = table["N"], table["E"]
    # North means to open 1NT, and the call is lost with the connection before it reaches
    # the server; meanwhile the table moves on (here: North, on another device, opens 1C).
    lost = MakeCall(call="1NT", action_id="lost-1")
    north.in_doubt["lost-1"] = lost
    north._moments["lost-1"] = north._moment(lost)
    await north.call("1C")
    await east.wait_for(lambda _v: calls(east) == ["1C"] or None)
    await east.call("P")
    await north.wait_for(lambda _v: calls(north) == ["1C", "P"] or None)
    # It is no longer the moment North meant: the 1NT is forgotten, not made now.
    [(message, answer)] = await north.resend()
    assert message is lost
    assert isinstance(answer, ClientError)
    assert answer.code == "moved_on"
    assert not north.in_doubt
    await east.ping()
    assert calls(east) == ["1C", "P"]
    await match.close()


@pytest.mark.asyncio
async def test_an_action_in_doubt_that_never_arrived_is_applied_by_the_resend(
    server: Server,
) -> None:
    created = await create(server, boards=1)
    match = await seat_everyone(server, created)
    table = match.table(1)
    north, east = table["N"], table["E"]
    websocket = north._websocket
    assert websocket is not None
    websocket.transport.abort()  # the call below never leaves: the connection is gone
    await north.wait_for(lambda _v: not north.is_connected or None)
    with pytest.raises(ClientError):
        await north.call("1NT")
    assert not north.in_doubt  # never sent, so not in doubt: the caller knows it failed
    lost = MakeCall(call="1NT", action_id="lost-1")
    north.in_doubt["lost-1"] = lost  # as if sent just before the drop, and lost with it
    await north.reconnect()
    [(message, answer)] = await north.resend()
    assert message is lost
    assert isinstance(answer, Ack)
    assert not answer.repeated
    await east.wait_for(lambda _v: calls(east) == ["1NT"] or None)
    # What the moment no longer allows is refused, not applied: not in doubt any more.
    north.in_doubt["late-1"] = MakeCall(call="2C", action_id="late-1")
    [(_message, refusal)] = await north.resend()
    assert isinstance(refusal, ClientError)
    assert refusal.code == ErrorCode.OUT_OF_TURN
    assert not north.in_doubt
    assert calls(east) == ["1NT"]
    await match.close()

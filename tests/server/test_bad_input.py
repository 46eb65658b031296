"""Bad input of every kind gets a typed error and changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.client import Client, ClientError, Link
from protocol.codec import MAX_CLIENT_FRAME, decode_server, encode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    ErrorMessage,
    Hello,
    MakeCall,
    PlayCard,
    Rule,
    Update,
    Welcome,
)
from server.app import PROTOCOL_LIMIT, Server
from tests.conftest import ORGANISER_KEY
from tests.server.harness import (
    Match,
    analysed,
    bid,
    board_view,
    create,
    one_board,
    play_cards,
    seat_everyone,
    settle,
)

DEALS = one_board()


async def log_lengths(redis: Redis, match_id: str) -> tuple[int, ...]:
    tag = f"{{m:{match_id}}}"
    keys = ("t1:events", "t2:events", "watch", "results", "swings")
    lengths = []
    for key in keys:
        kind = await redis.type(f"{tag}:{key}")
        if kind == b"hash":
            lengths.append(await redis.hlen(f"{tag}:{key}"))
        else:
            lengths.append(await redis.xlen(f"{tag}:{key}"))
    return tuple(lengths)


@pytest_asyncio.fixture
async def match(server: Server) -> AsyncIterator[Match]:
    created = await create(server, boards=1, deals_pbn=DEALS, spectators="live")
    seated = await seat_everyone(server, created)
    await analysed(server, created.match_id)  # the tests compare the logs before and after
    yield seated
    await seated.close()


async def raw(server: Server) -> ClientConnection:
    return await connect(server.ws_url, max_size=None, compression=None)


async def reply(websocket: ClientConnection) -> ErrorMessage | Welcome:
    message = decode_server(await websocket.recv())
    assert isinstance(message, ErrorMessage | Welcome)
    return message


class TestFrames:
    @pytest.mark.parametrize(
        ("frame", "code"),
        [
            (b"\xc1", ErrorCode.MALFORMED),
            (b"\x93\x01\x02", ErrorCode.MALFORMED),  # a list, and truncated
            (msgpack.packb([1, 2]), ErrorCode.MALFORMED),
            (msgpack.packb({"type": "ping"}) + b"\x00", ErrorCode.MALFORMED),
            ("a text frame", ErrorCode.BINARY_ONLY),
            (msgpack.packb({"type": "teleport"}), ErrorCode.UNKNOWN_TYPE),
            (msgpack.packb({"call": "1S"}), ErrorCode.INVALID_MESSAGE),
            (msgpack.packb({"type": "call", "call": "8S"}), ErrorCode.INVALID_MESSAGE),
            (msgpack.packb({"type": "call", "call": "1S", "extra": 1}), ErrorCode.INVALID_MESSAGE),
            (msgpack.packb({"type": "claim", "tricks": "3"}), ErrorCode.INVALID_MESSAGE),
            (b"\x00" * (MAX_CLIENT_FRAME + 1), ErrorCode.TOO_LARGE),
        ],
        ids=[
            "bad-byte", "truncated", "list", "trailing", "text", "unknown-type", "no-type",
            "bad-call", "extra-field", "string-for-int", "oversized",
        ],
    )  # fmt: skip
    @pytest.mark.asyncio
    async def test_bad_frame_gets_typed_error_and_connection_lives(
        self, server: Server, frame: bytes | str, code: ErrorCode
    ) -> None:
        websocket = await raw(server)
        await websocket.send(frame)
        error = await reply(websocket)
        assert isinstance(error, ErrorMessage)
        assert error.code == code
        # The connection still works: a hello is answered.
        await websocket.send(encode(Hello(version=PROTOCOL_VERSION, token=ORGANISER_KEY)))
        assert isinstance(await reply(websocket), Welcome)
        await websocket.close()

    @pytest.mark.asyncio
    async def test_frame_over_the_transport_limit_closes_with_1009(self, server: Server) -> None:
        websocket = await raw(server)
        await websocket.send(b"\x00" * (PROTOCOL_LIMIT + 1))
        with pytest.raises(ConnectionClosed) as closed:
            await websocket.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009

    @pytest.mark.asyncio
    async def test_error_echoes_the_ref(self, server: Server) -> None:
        websocket = await raw(server)
        await websocket.send(encode(MakeCall(call="1S", ref=41)))
        error = await reply(websocket)
        assert isinstance(error, ErrorMessage)
        assert (error.code, error.ref) == (ErrorCode.NOT_AUTHENTICATED, 41)


class TestHello:
    @pytest.mark.asyncio
    async def test_unsupported_version(self, server: Server) -> None:
        websocket = await raw(server)
        await websocket.send(encode(Hello(version=PROTOCOL_VERSION + 1, token=ORGANISER_KEY)))
        error = await reply(websocket)
        assert isinstance(error, ErrorMessage)
        assert error.code == ErrorCode.UNSUPPORTED_VERSION
        assert str(PROTOCOL_VERSION) in error.message

    @pytest.mark.asyncio
    @pytest.mark.parametrize("old", [1, 2, 3, 4, 5])
    async def test_an_older_client_is_told_to_update(
        self, server: Server, match: Match, old: int
    ) -> None:
        # A client written for protocol 1 to 4 says hello exactly as those versions said
        # it (version 2 added `robot`); its strict decoder would choke on fields it never
        # knew (an ack's `repeated`; a view's `player` and `round`; an update's `changes`),
        # and a version-4 client would take an update without its view for an empty one,
        # so it is told to update before anything else is sent.
        websocket = await raw(server)
        token = Link.parse(match.created.seats[0].link).token
        hello = {"type": "hello", "version": old, "token": token, "last_seq": None, "client": "old"}
        if old >= 2:
            hello["robot"] = False
        await websocket.send(msgpack.packb(hello))
        raw_error = msgpack.unpackb(await websocket.recv())
        # Only the fields a version-2 client knows: it can read why it is refused.
        assert set(raw_error) == {"type", "code", "message", "ref"}
        error = ErrorMessage.model_validate(raw_error)
        assert error.code == ErrorCode.UNSUPPORTED_VERSION
        assert "too old" in error.message
        assert "[6, 7]" in error.message
        assert "update" in error.message

    @pytest.mark.asyncio
    async def test_wrong_token(self, server: Server, match: Match) -> None:
        with pytest.raises(ClientError) as refused:
            await Client.connect(Link(server.ws_url, "not-a-token"))
        assert refused.value.code == ErrorCode.BAD_TOKEN
        # A real seat token with one character changed is refused too.
        token = Link.parse(match.created.seats[0].link).token
        forged = token[:-1] + ("A" if token[-1] != "A" else "B")
        with pytest.raises(ClientError) as refused:
            await Client.connect(Link(server.ws_url, forged))
        assert refused.value.code == ErrorCode.BAD_TOKEN

    @pytest.mark.asyncio
    async def test_missing_token(self, server: Server) -> None:
        websocket = await raw(server)
        await websocket.send(msgpack.packb({"type": "hello", "version": PROTOCOL_VERSION}))
        error = await reply(websocket)
        assert isinstance(error, ErrorMessage)
        assert error.code == ErrorCode.INVALID_MESSAGE

    @pytest.mark.asyncio
    async def test_second_hello(self, server: Server, match: Match) -> None:
        websocket = await raw(server)
        hello = encode(
            Hello(version=PROTOCOL_VERSION, token=Link.parse(match.created.director).token)
        )
        await websocket.send(hello)
        assert isinstance(await reply(websocket), Welcome)
        await websocket.send(hello)
        while isinstance(message := decode_server(await websocket.recv()), Update):
            pass  # the director's snapshot
        assert isinstance(message, ErrorMessage)
        assert message.code == ErrorCode.ALREADY_AUTHENTICATED
        await websocket.close()

    @pytest.mark.asyncio
    async def test_spectator_link_of_a_match_without_spectators(self, server: Server) -> None:
        created = await create(server, boards=1, spectators="off")
        assert created.spectator is None


class TestActions:
    """Refused actions: the right code, and neither the logs nor anyone's view change."""

    async def refused(
        self, redis: Redis, match: Match, client: Client, action: object, code: ErrorCode
    ) -> None:
        before_logs = await log_lengths(redis, match.created.match_id)
        before_views = {key: c.view for key, c in match.players.items()}
        with pytest.raises(ClientError) as refused:
            await client.request(lambda ref: action.model_copy(update={"ref": ref}))  # type: ignore[attr-defined]
        assert refused.value.code == code, refused.value
        await client.ping()  # every frame sent before the error's answer has arrived
        assert await log_lengths(redis, match.created.match_id) == before_logs
        assert {key: c.view for key, c in match.players.items()} == before_views

    @pytest.mark.asyncio
    async def test_out_of_turn_and_illegal_calls(self, redis: Redis, match: Match) -> None:
        table = match.table(1)
        await board_view(table["N"], 1)
        await self.refused(redis, match, table["E"], MakeCall(call="1C"), ErrorCode.OUT_OF_TURN)
        await self.refused(redis, match, table["N"], MakeCall(call="X"), ErrorCode.ILLEGAL_CALL)
        await self.refused(redis, match, table["N"], MakeCall(call="XX"), ErrorCode.ILLEGAL_CALL)
        await self.refused(redis, match, table["N"], PlayCard(card="SA"), ErrorCode.WRONG_PHASE)
        await bid(table, 1, ["2NT"])
        await self.refused(redis, match, table["E"], MakeCall(call="2S"), ErrorCode.ILLEGAL_CALL)
        await self.refused(redis, match, table["E"], MakeCall(call="XX"), ErrorCode.ILLEGAL_CALL)

    @pytest.mark.asyncio
    async def test_illegal_cards_and_claims(self, redis: Redis, match: Match) -> None:
        table = match.table(1)
        await bid(table, 1, ["3NT", "P", "P", "P"])  # N declares, E leads, S is dummy
        await self.refused(redis, match, table["N"], PlayCard(card="SA"), ErrorCode.OUT_OF_TURN)
        await self.refused(redis, match, table["E"], PlayCard(card="SA"), ErrorCode.ILLEGAL_CARD)
        await self.refused(redis, match, table["E"], MakeCall(call="P"), ErrorCode.WRONG_PHASE)
        ack = await table["E"].play("ST")
        await settle(table, ack.seq)
        # Dummy's card is declarer's to play, and S holds spades: a heart would be a revoke.
        await self.refused(redis, match, table["S"], PlayCard(card="S6"), ErrorCode.OUT_OF_TURN)
        await self.refused(redis, match, table["N"], PlayCard(card="H7"), ErrorCode.ILLEGAL_CARD)
        await self.refused(redis, match, table["S"], MakeClaim_(3), ErrorCode.ILLEGAL_CLAIM)
        await self.refused(redis, match, table["N"], MakeClaim_(14), ErrorCode.INVALID_MESSAGE)
        await self.refused(redis, match, table["W"], AnswerClaim_(True), ErrorCode.WRONG_PHASE)
        await play_cards(table, 1, count=3)

    @pytest.mark.asyncio
    async def test_roles(self, server: Server, redis: Redis, match: Match) -> None:
        spectator = await Client.connect(match.created.spectator or "")
        director = await Client.connect(match.created.director)
        organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
        try:
            await self.refused(redis, match, spectator, MakeCall(call="1C"), ErrorCode.FORBIDDEN)
            await self.refused(redis, match, director, MakeCall(call="1C"), ErrorCode.FORBIDDEN)
            await self.refused(redis, match, organiser, MakeCall(call="1C"), ErrorCode.FORBIDDEN)
            rule = Rule(table=1, declarer_tricks=9)
            await self.refused(redis, match, match.players[(1, "N")], rule, ErrorCode.FORBIDDEN)
            await self.refused(redis, match, director, rule, ErrorCode.WRONG_PHASE)
        finally:
            for client in (spectator, director, organiser):
                await client.close()


def MakeClaim_(tricks: int) -> object:  # noqa: N802 - builds an unvalidated message
    from protocol.messages import MakeClaim

    return MakeClaim.model_construct(type="claim", tricks=tricks, ref=None)


def AnswerClaim_(accept: bool) -> object:  # noqa: N802
    from protocol.messages import AnswerClaim

    return AnswerClaim(accept=accept)


class TestCostlyFrames:
    """The frames that cost the most to refuse, sent by clients that never said hello, hold up
    nobody: each gets a small error frame, and another match's pings stay quick."""

    @pytest.mark.alone  # measures a p99: see pyproject.toml
    @pytest.mark.asyncio
    async def test_worst_frames_do_not_stall_another_match(
        self, server: Server, match: Match
    ) -> None:
        import asyncio
        import time

        from tests.protocol.test_codec import WORST_FRAMES

        worst = (WORST_FRAMES * 2)[:20]
        player = match.players[(1, "N")]
        await player.ping()

        async def hostile() -> list[int]:
            """Send every frame back to back, then read the answers: their sizes."""
            websocket = await raw(server)
            try:
                for _name, data, _code in worst:
                    await websocket.send(data)
                sizes = []
                for name, _data, code in worst:
                    reply = await websocket.recv()
                    assert isinstance(reply, bytes)
                    error = decode_server(reply)
                    assert isinstance(error, ErrorMessage)
                    # A rate limit, where the server has one, may answer first.
                    assert error.code in (code, "rate_limited"), (name, error)
                    sizes.append(len(reply))
                return sizes
            finally:
                await websocket.close()

        round_trips = []
        async with asyncio.timeout(60):
            started = time.perf_counter()
            storm = asyncio.gather(hostile(), hostile())
            while not storm.done() or len(round_trips) < 20:
                sent = time.perf_counter()
                await player.ping()
                round_trips.append(time.perf_counter() - sent)
            storm_seconds = time.perf_counter() - started
            sizes = [size for sizes in await storm for size in sizes]
        round_trips.sort()
        p99 = round_trips[-(-len(round_trips) * 99 // 100) - 1]
        sent_bytes = 2 * sum(len(data) for _name, data, _code in worst)
        print(
            f"\n2 x {len(worst)} costly frames ({sent_bytes / 2**20:.1f} MiB) refused in "
            f"{storm_seconds:.2f} s; error frames {min(sizes)}-{max(sizes)} bytes; "
            f"{len(round_trips)} pings of another match: median "
            f"{round_trips[len(round_trips) // 2] * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {round_trips[-1] * 1000:.1f} ms"
        )
        assert len(sizes) == 2 * len(worst)
        assert max(sizes) < 512
        assert p99 < 0.050

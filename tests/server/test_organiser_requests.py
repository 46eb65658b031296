"""The organiser's creations (``create_match``, ``import_match``, ``seal_deals``) with a
``request_id`` are carried out once: the same request sent again (its answer lost with a
connection, a command run again) gets the first one's answer, never a second match."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis

from clients.client import Client, ClientError, Link
from duplicate.serving import import_match
from protocol.errors import ErrorCode
from protocol.messages import CreateMatch, DealsSealed, ImportMatch, MatchCreated, SealDeals
from server.app import Server
from server.store import MATCHES_KEY
from tests.conftest import ORGANISER_KEY
from tests.server.harness import one_board
from tests.server.test_import import USBF

pytestmark = pytest.mark.asyncio
DEALS = one_board()


async def organiser(server: Server) -> Client:
    return await Client.connect(Link(server.ws_url, ORGANISER_KEY))


async def matches(redis: Redis) -> set[bytes]:
    return set(await redis.smembers(MATCHES_KEY))


async def test_a_creation_sent_again_gets_the_same_match(server: Server, redis: Redis) -> None:
    before = await matches(redis)
    first, second = await organiser(server), await organiser(server)
    try:
        # Twice at once (a command run twice), then once more later (an answer lost).
        answers = await asyncio.gather(
            *(
                client.create_match(boards=1, deals_pbn=DEALS, request_id="evening-1-create")
                for client in (first, second)
            )
        )
        again = await first.create_match(boards=1, deals_pbn=DEALS, request_id="evening-1-create")
        for answer in (*answers, again):
            assert answer.model_dump(exclude={"ref"}) == answers[0].model_dump(exclude={"ref"})
        assert await matches(redis) - before == {answers[0].match_id.encode()}
        # Its links work: they are the match's, whichever answer carried them.
        north = answers[1].seats[0].link
        assert north is not None
        player = await Client.connect(north)
        view = await player.wait_for(lambda v: v)
        assert view.match.match_id == answers[0].match_id
        await player.close()

        # Another request under the same id is refused, changing nothing; a new id, a new
        # match.
        with pytest.raises(ClientError) as refused:
            await first.create_match(boards=2, deals_pbn=DEALS, request_id="evening-1-create")
        assert refused.value.code == ErrorCode.INVALID_MESSAGE
        assert "another request" in refused.value.message
        assert await matches(redis) - before == {answers[0].match_id.encode()}
        other = await first.create_match(boards=1, deals_pbn=DEALS, request_id="evening-2-create")
        assert other.match_id != answers[0].match_id
        # Without an id, each request makes a match, as before.
        plain = [await first.create_match(boards=1, deals_pbn=DEALS) for _ in range(2)]
        assert plain[0].match_id != plain[1].match_id
    finally:
        await first.close()
        await second.close()


async def test_a_failed_creation_lets_its_id_be_used_again(server: Server) -> None:
    client = await organiser(server)
    try:
        with pytest.raises(ClientError) as refused:
            await client.create_match(boards=1, deals_pbn="not a PBN", request_id="broken-file")
        assert refused.value.code == ErrorCode.BAD_DEALS
        with pytest.raises(ClientError) as again:
            await client.create_match(boards=1, deals_pbn="not a PBN", request_id="broken-file")
        assert again.value.code == ErrorCode.BAD_DEALS  # tried again, not "the same answer"
    finally:
        await client.close()


async def test_a_seal_sent_again_is_the_same_seal(server: Server) -> None:
    client = await organiser(server)
    try:
        first = await client.seal_deals("digits 4", request_id="seal-for-friday")
        again = await client.seal_deals("digits 4", request_id="seal-for-friday")
        assert (again.seal, again.seed_commitment, again.public_form) == (
            first.seal,
            first.seed_commitment,
            "digits 4",
        )
        assert (await client.seal_deals("digits 4")).seal != first.seal
        created = await client.create_match(boards=2, seal=first.seal, public_value="4 2 6 1")
        assert created.match_id
    finally:
        await client.close()


async def test_an_import_whose_answer_was_lost_is_not_made_twice(
    server: Server, redis: Redis
) -> None:
    # `duplicate import-match` against a server that drops the organiser's connection
    # right after the import (the answer lost, as to a command that gave up waiting): the
    # command asks again with the same request id and prints the one match made.
    before = await matches(redis)
    organise = server.organising.organise
    answers: list[MatchCreated | DealsSealed] = []

    async def answer_lost(
        request: CreateMatch | ImportMatch | SealDeals,
    ) -> MatchCreated | DealsSealed:
        answer = await organise(request)
        answers.append(answer)
        if len(answers) == 1:
            for connection in list(server.connections):
                if connection.organiser:
                    connection.link.transport.abort()
        return answer

    server.organising.organise = answer_lost  # type: ignore[method-assign]
    record = server_record(USBF)
    args = import_options(server, record, request_id="import-usbf-seg4")
    printed = await asyncio.to_thread(import_match, args)
    assert len(answers) == 2
    assert isinstance(answers[0], MatchCreated)
    assert isinstance(answers[1], MatchCreated)
    assert answers[0].match_id == answers[1].match_id
    assert f"Match {answers[0].match_id}:" in printed
    assert await matches(redis) - before == {answers[0].match_id.encode()}
    # Run again by hand with the same id: still that match, nothing imported again.
    server.organising.organise = organise  # type: ignore[method-assign]
    printed = await asyncio.to_thread(import_match, args)
    assert f"Match {answers[0].match_id}:" in printed
    assert await matches(redis) - before == {answers[0].match_id.encode()}
    record.unlink()


def import_options(server: Server, record: Path, request_id: str | None) -> argparse.Namespace:
    """``duplicate import-match RECORD`` 's options, against ``server``."""
    return argparse.Namespace(
        record=str(record),
        record_format=None,
        spectators="live",
        server=server.public_url,
        data="unused",
        organiser_key=ORGANISER_KEY,
        organiser_key_file=None,
        request_id=request_id,
    )


def server_record(text: str) -> Path:
    """``text`` in a file of its own (the command reads a file)."""
    descriptor, name = tempfile.mkstemp(suffix=".lin")
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return Path(name)


async def test_the_commands_wait_as_long_as_the_server_works(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An import of many boards on a busy machine took 10.3 s, past the command's old
    # 10 s: it said the server did not answer. Now it waits while the connection lives.
    waited: list[float | None] = []
    request = Client.request

    async def noting(
        self: Client, message_of: Callable[[int], object], timeout: float | None = 10.0
    ) -> object:
        waited.append(timeout)
        return await request(self, message_of, timeout)  # type: ignore[arg-type]

    monkeypatch.setattr(Client, "request", noting)
    record = server_record(USBF)
    args = import_options(server, record, request_id=None)
    await asyncio.to_thread(import_match, args)
    record.unlink()
    assert waited == [None]

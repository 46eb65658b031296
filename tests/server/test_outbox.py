"""A connection's outbox (server.app.Connection): frames leave in the order queued, the
writer waits while there is none, a backlog is dropped past its limits, the end comes
after what was queued before it."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from server.app import Connection
from server.limits import Limits, TokenBucket


class Transport:
    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True

    def get_extra_info(self, name: str) -> None:
        """No socket: nothing to tell of what the kernel holds."""
        assert name == "socket"


class Socket:
    def __init__(self) -> None:
        self.transport = Transport()


def connection(**limits: Any) -> Connection:
    bucket = TokenBucket(1.0, 1.0)
    return Connection(cast(Any, Socket()), "127.0.0.1", Limits(**limits), bucket, bucket, bucket)


async def drain(outbox: Connection) -> list[bytes]:
    sent = []
    while (frame := await outbox.next_frame()) is not None:
        sent.append(frame)
        outbox.sent()
    return sent


@pytest.mark.asyncio
async def test_frames_leave_in_order_across_a_long_backlog_and_the_end_comes_last() -> None:
    outbox = connection()
    frames = [f"frame {n}".encode() for n in range(2000)]
    for frame in frames[:1500]:
        outbox.send(frame)
    taken = []
    for _ in range(700):  # past the point where the sent ones are let go
        frame = await outbox.next_frame()
        assert frame is not None
        taken.append(frame)
        outbox.sent()
    assert len(outbox.outbox) - outbox.head == 800
    for frame in frames[1500:]:
        outbox.send(frame)
    outbox.close()
    outbox.send(b"after the end")  # not queued: the connection is closing
    taken += await drain(outbox)
    assert taken == frames
    assert outbox.queued_bytes == 0


@pytest.mark.asyncio
async def test_the_writer_waits_for_the_next_frame() -> None:
    outbox = connection()
    writer = asyncio.create_task(drain(outbox))
    await asyncio.sleep(0.01)
    assert not writer.done()
    outbox.send(b"one")
    await asyncio.sleep(0.01)
    outbox.send(b"two")
    outbox.end()
    assert await asyncio.wait_for(writer, 1) == [b"one", b"two"]


@pytest.mark.asyncio
async def test_a_client_that_does_not_read_is_dropped_past_the_byte_limit() -> None:
    outbox = connection(max_queued_bytes=1000)
    for _ in range(10):
        outbox.send(b"x" * 100)
    assert not outbox.overflowed
    outbox.send(b"x")
    assert outbox.overflowed
    assert cast(Socket, outbox.websocket).transport.aborted

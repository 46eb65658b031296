"""The server's look at whether a client reads what it is sent
(:meth:`server.connection.Connection.check_reading`): the kernel is asked only about a
connection that was sent something since a look found nothing held for it, and a client that
stops reading is still dropped."""

from __future__ import annotations

from typing import Any, cast

import pytest

import server.connection
from server.connection import Connection
from server.limits import Limits, TokenBucket
from server.sockets import SendQueue


class Sock:
    """The socket a dropped connection is told to reset on closing."""

    def setsockopt(self, *option: object) -> None:
        pass


class Transport:
    def __init__(self) -> None:
        self.held = 0
        self.aborted = False
        self.sock = Sock()

    def get_write_buffer_size(self) -> int:
        return self.held

    def get_extra_info(self, name: str) -> object:
        return self.sock if name == "socket" else None

    def abort(self) -> None:
        self.aborted = True


class Socket:
    def __init__(self) -> None:
        self.transport = Transport()
        self.closed = False

    async def send(self, frame: bytes) -> None:
        pass

    async def close(self, code: int, reason: str) -> None:
        self.closed = True


class Kernel:
    """What the kernel is asked, and what it answers: bytes held for the peer and bytes the
    peer acknowledged."""

    def __init__(self) -> None:
        self.asked = 0
        self.unsent = 0
        self.acknowledged = 0

    def __call__(self, sock: object) -> SendQueue:
        self.asked += 1
        return SendQueue(self.unsent, self.acknowledged)


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> Kernel:
    told = Kernel()
    monkeypatch.setattr(server.connection, "send_queue", told)
    return told


def connection() -> Connection:
    """A connection whose clock starts at 0: the looks here come at made-up times."""
    bucket = TokenBucket(1.0, 1.0)
    link = Connection(cast(Any, Socket()), "127.0.0.1", Limits(), bucket, bucket, bucket)
    link.queued_at = link.pinged_at = link.progress_at = link.heard_at = 0.0
    return link


def test_a_connection_sent_nothing_since_a_clear_look_is_not_asked_about(kernel: Kernel) -> None:
    link = connection()
    link.check_reading(100.0, stall=20.0)
    assert kernel.asked == 1  # nothing held: clear
    link.check_reading(102.0, stall=20.0)
    link.check_reading(104.0, stall=20.0)
    assert kernel.asked == 1
    assert link.progress_at == 104.0  # it had nothing to read: not a stall


@pytest.mark.asyncio
async def test_a_client_that_stops_reading_after_a_clear_look_is_still_dropped(
    kernel: Kernel,
) -> None:
    link = connection()
    link.check_reading(100.0, stall=20.0)  # clear
    cast(Socket, link.websocket).transport.held = 1  # so that the frame waits in the outbox
    link.send(b"x" * 100)
    link.queued_at = 101.0  # (send stamps the real clock)
    kernel.unsent = 100  # and it reads none of it
    link.check_reading(102.0, stall=20.0)
    assert kernel.asked == 2
    assert link.writer is not None
    await link.writer
    link.check_reading(110.0, stall=20.0)
    assert not link.overflowed
    link.check_reading(123.0, stall=20.0)
    assert kernel.asked == 4
    assert link.overflowed
    assert cast(Socket, link.websocket).transport.aborted
    assert link.writer is not None
    await link.writer  # closing it
    assert cast(Socket, link.websocket).closed


@pytest.mark.asyncio
async def test_a_look_with_frames_still_queued_is_not_clear(kernel: Kernel) -> None:
    # The kernel and the transport hold nothing, but frames wait in the outbox for the
    # writer: they will be held once handed over, so the next look asks again.
    link = connection()
    cast(Socket, link.websocket).transport.held = 1
    link.send(b"frame")
    cast(Socket, link.websocket).transport.held = 0
    link.queued_at = 99.0
    link.check_reading(100.0, stall=20.0)
    link.check_reading(102.0, stall=20.0)
    assert kernel.asked == 2
    assert link.writer is not None
    await link.writer

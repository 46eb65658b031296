"""A connection's outbox (server.connection.Connection): frames leave in the order queued, a
backlog is dropped past its limits, the end comes after what was queued before it; a frame
goes straight to the transport while it has room, and one sent while it is full waits its
turn, with no task waiting for it."""

from __future__ import annotations

import asyncio
import os

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedOK

from server.connection import Connection
from server.limits import Limits, TokenBucket
from server.sockets import listening
from server.transport import Link, Listener
from tests.server.fake_link import connection, fake


@pytest.mark.asyncio
async def test_frames_leave_in_order_across_a_long_backlog_and_the_end_comes_last() -> None:
    outbox = connection()
    frames = [f"frame {n}".encode() for n in range(2000)]
    for frame in frames[:1500]:
        outbox.send(frame)
    fake(outbox).let(700)  # past the point where the sent ones are let go
    assert len(outbox.outbox) - outbox.head == 800
    for frame in frames[1500:]:
        outbox.send(frame)
    outbox.close(4000, "its seat was given to another")
    outbox.send(b"after the end")  # not queued: the connection is closing
    assert fake(outbox).closed is None
    fake(outbox).let(10_000)
    assert fake(outbox).taken == frames
    assert fake(outbox).closed == (4000, "its seat was given to another")
    assert outbox.queued_bytes == 0
    assert outbox.outbox == []


def test_frames_go_straight_to_the_transport_while_it_has_room() -> None:
    outbox = connection(room=2)
    outbox.send(b"one")
    outbox.send(b"two")
    assert fake(outbox).taken == [b"one", b"two"]
    assert outbox.outbox == []
    outbox.send(b"three")  # it is full: queued until it asks for more
    assert outbox.outbox[outbox.head :][0][1] == b"three"
    fake(outbox).let(5)
    assert fake(outbox).taken == [b"one", b"two", b"three"]
    assert outbox.outbox == []
    outbox.send(b"four")
    outbox.end()
    assert fake(outbox).taken[-1] == b"four"
    assert fake(outbox).closed == (1000, "")
    outbox.end()  # ended: nothing more is queued
    assert outbox.outbox == []


def test_a_frame_waits_behind_queued_ones_when_the_transport_has_drained() -> None:
    """The transport has room again, but the queued frames are not yet handed over: the next
    frame goes behind them, not before them."""
    outbox = connection()
    outbox.send(b"one")
    fake(outbox).room = 5
    fake(outbox).paused = False  # (its resume_writing not yet called)
    outbox.send(b"two")
    assert fake(outbox).taken == [b"one", b"two"]


def test_a_client_that_does_not_read_is_dropped_past_the_byte_limit() -> None:
    outbox = connection(max_queued_bytes=1000)
    for _ in range(10):
        outbox.send(b"x" * 100)
    assert not outbox.overflowed
    outbox.send(b"x")
    assert outbox.overflowed
    assert fake(outbox).transport.aborted
    assert fake(outbox).taken == []  # nothing that waited is sent


@pytest.mark.asyncio
async def test_frames_written_at_once_and_frames_queued_behind_held_data_arrive_in_order() -> None:
    """A client that reads nothing for a while: the first frames go straight to the
    transport until its buffer fills; from then on frames are queued, behind what the
    transport holds. Read at last, all arrive in the order sent, then the close."""
    served: asyncio.Queue[Connection] = asyncio.Queue()

    def opened(link: Link) -> None:
        bucket = TokenBucket(1.0, 1.0)
        limits = Limits(max_queued_bytes=1 << 26, max_queue_age=60.0)
        link.connection = Connection(link, "127.0.0.1", limits, bucket, bucket, bucket)
        served.put_nowait(link.connection)

    async def nothing(link: Link) -> None:
        pass

    def send(outbox: Connection) -> tuple[list[bytes], int]:
        """Frames of 16 kB until 50 were queued; the frames and how many went at once."""
        frames: list[bytes] = []
        direct = queued = 0
        while queued < 50:
            frame = len(frames).to_bytes(4, "big") + os.urandom(16_000)
            frames.append(frame)
            waiting = len(outbox.outbox) - outbox.head
            held = outbox.link.paused or waiting
            outbox.send(frame)
            assert len(outbox.outbox) - outbox.head == (waiting + 1 if held else 0)
            queued += 1 if held else 0
            direct += 0 if held else 1
        outbox.end()
        return frames, direct

    listener = Listener(lambda link, request: None, opened, nothing, nothing, max_size=1 << 20)
    (sock,) = listening("127.0.0.1", 0)
    await listener.listen(sock)
    port = sock.getsockname()[1]
    try:
        async with connect(f"ws://127.0.0.1:{port}", compression=None, max_queue=None) as client:
            outbox = await asyncio.wait_for(served.get(), 10)
            frames, direct = send(outbox)
            received = [await asyncio.wait_for(client.recv(), 10) for _ in frames]
            with pytest.raises(ConnectionClosedOK):
                await asyncio.wait_for(client.recv(), 10)
    finally:
        listener.close()
        await asyncio.wait_for(listener.wait_closed(), 10)
    assert direct >= 2
    assert received == frames
    assert outbox.outbox == []

"""A connection's outbox (server.connection.Connection): frames leave in the order queued, the
writer waits while there is none, a backlog is dropped past its limits, the end comes
after what was queued before it; a frame with nothing before it goes straight to the
socket, and one sent while the transport holds data waits its turn."""

from __future__ import annotations

import asyncio
import os
from typing import Any, cast

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from server.connection import Connection
from server.limits import Limits, TokenBucket


class Transport:
    """A transport that holds data it has not yet handed to the kernel, so that every frame
    goes through the outbox."""

    def __init__(self) -> None:
        self.aborted = False
        self.held = 1

    def get_write_buffer_size(self) -> int:
        return self.held

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


def test_a_frame_waits_behind_queued_ones_when_the_transport_has_drained() -> None:
    """The writer has not yet taken the queued frames when the transport empties: the next
    frame goes behind them, not before them to the socket."""
    outbox = connection()
    outbox.send(b"one")
    cast(Socket, outbox.websocket).transport.held = 0
    outbox.send(b"two")
    assert [frame for _, frame in outbox.outbox[outbox.head :]] == [b"one", b"two"]


@pytest.mark.asyncio
async def test_a_client_that_does_not_read_is_dropped_past_the_byte_limit() -> None:
    outbox = connection(max_queued_bytes=1000)
    for _ in range(10):
        outbox.send(b"x" * 100)
    assert not outbox.overflowed
    outbox.send(b"x")
    assert outbox.overflowed
    assert cast(Socket, outbox.websocket).transport.aborted


@pytest.mark.asyncio
async def test_frames_written_at_once_and_frames_queued_behind_held_data_arrive_in_order() -> None:
    """A client that reads nothing for a while: the first frames go straight to the socket
    until the kernel's buffers fill and the transport holds data; from then on frames are
    queued for the writer, behind what the transport holds. Read at last, all arrive in
    the order sent."""
    served: asyncio.Queue[tuple[Connection, asyncio.Task[None]]] = asyncio.Queue()
    done = asyncio.Event()

    async def handler(websocket: ServerConnection) -> None:
        outbox = connection(max_queued_bytes=1 << 26, max_queue_age=60.0)
        outbox.websocket = websocket

        async def write() -> None:
            while (frame := await outbox.next_frame()) is not None:
                await websocket.send(frame)
                outbox.sent()

        await served.put((outbox, asyncio.create_task(write())))
        await done.wait()  # held open until the test is over

    def send(outbox: Connection) -> tuple[list[bytes], int]:
        """Frames of 16 kB until 50 were queued; the frames and how many went at once."""
        transport = outbox.websocket.transport
        frames: list[bytes] = []
        direct = queued = 0
        while queued < 50:
            frame = len(frames).to_bytes(4, "big") + os.urandom(16_000)
            frames.append(frame)
            waiting = len(outbox.outbox) - outbox.head
            held = transport.get_write_buffer_size() or waiting
            outbox.send(frame)
            assert len(outbox.outbox) - outbox.head == (waiting + 1 if held else 0)
            queued += 1 if held else 0
            direct += 0 if held else 1
        outbox.end()
        return frames, direct

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None, max_queue=None) as client:
            try:
                outbox, writer = await asyncio.wait_for(served.get(), 10)
                frames, direct = send(outbox)
                received = [await asyncio.wait_for(client.recv(), 10) for _ in frames]
                await asyncio.wait_for(writer, 10)
            finally:
                done.set()
    assert direct >= 2
    assert received == frames

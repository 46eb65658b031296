"""A connection's outbox (server.connection.Connection): frames leave in the order queued, a
writer runs only while frames wait, a backlog is dropped past its limits, the end comes
after what was queued before it; a frame with nothing before it goes straight to the
socket, and one sent while the transport holds data waits its turn."""

from __future__ import annotations

import asyncio
import os
from typing import Any, cast

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from server.connection import Connection
from server.limits import Limits, TokenBucket


class Transport:
    """A transport that holds data it has not yet handed to the kernel, so that every frame
    goes through the outbox."""

    def __init__(self) -> None:
        self.aborted = False
        self.held = 1
        self.changed = asyncio.Event()
        """Set when a frame is let through, or the connection aborted."""

    def get_write_buffer_size(self) -> int:
        return self.held

    def abort(self) -> None:
        self.aborted = True
        self.changed.set()

    def get_extra_info(self, name: str) -> None:
        """No socket: nothing to tell of what the kernel holds."""
        assert name == "socket"


class Socket:
    """A WebSocket connection that takes a frame only when let (:meth:`let`)."""

    def __init__(self) -> None:
        self.transport = Transport()
        self.taken: list[bytes] = []
        self.closed: tuple[int, str] | None = None
        self._let = 0

    def let(self, frames: int) -> None:
        self._let += frames
        self.transport.changed.set()

    async def send(self, frame: bytes) -> None:
        """Take ``frame`` once let; fail as websockets does once the connection is aborted."""
        while not self._let:
            if self.transport.aborted:
                raise ConnectionClosed(None, None)
            self.transport.changed.clear()
            await self.transport.changed.wait()
        self._let -= 1
        self.taken.append(frame)

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def connection(**limits: Any) -> Connection:
    bucket = TokenBucket(1.0, 1.0)
    return Connection(cast(Any, Socket()), "127.0.0.1", Limits(**limits), bucket, bucket, bucket)


def socket(outbox: Connection) -> Socket:
    return cast(Socket, outbox.websocket)


async def taken(outbox: Connection, frames: int) -> None:
    """Let the writer hand ``frames`` more to the socket, and wait until it has."""
    wanted = len(socket(outbox).taken) + frames
    socket(outbox).let(frames)
    async with asyncio.timeout(10):
        while len(socket(outbox).taken) < wanted:
            await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_frames_leave_in_order_across_a_long_backlog_and_the_end_comes_last() -> None:
    outbox = connection()
    frames = [f"frame {n}".encode() for n in range(2000)]
    for frame in frames[:1500]:
        outbox.send(frame)
    await taken(outbox, 700)  # past the point where the sent ones are let go
    assert len(outbox.outbox) - outbox.head == 800
    for frame in frames[1500:]:
        outbox.send(frame)
    outbox.close(4000, "its seat was given to another")
    outbox.send(b"after the end")  # not queued: the connection is closing
    writer = outbox.writer
    assert writer is not None
    socket(outbox).let(10_000)
    await asyncio.wait_for(writer, 10)
    assert socket(outbox).taken == frames
    assert socket(outbox).closed == (4000, "its seat was given to another")
    assert outbox.queued_bytes == 0
    assert outbox.writer is None


@pytest.mark.asyncio
async def test_a_writer_runs_only_while_frames_wait() -> None:
    outbox = connection()
    assert outbox.writer is None
    outbox.send(b"one")
    first = outbox.writer
    assert first is not None
    await taken(outbox, 1)
    await asyncio.wait_for(first, 1)  # nothing more waits: it ends
    assert outbox.writer is None
    assert outbox.outbox == []
    outbox.send(b"two")  # the next one starts another
    outbox.end()
    second = outbox.writer
    assert second is not None
    assert second is not first
    socket(outbox).let(1)
    await asyncio.wait_for(second, 1)
    assert socket(outbox).taken == [b"one", b"two"]
    assert socket(outbox).closed == (1000, "")
    outbox.end()  # ended: nothing more is queued, no writer starts
    assert outbox.writer is None
    assert outbox.outbox == []


@pytest.mark.asyncio
async def test_a_frame_waits_behind_queued_ones_when_the_transport_has_drained() -> None:
    """The writer has not yet taken the queued frames when the transport empties: the next
    frame goes behind them, not before them to the socket."""
    outbox = connection()
    outbox.send(b"one")
    socket(outbox).transport.held = 0
    outbox.send(b"two")
    assert [frame for _, frame in outbox.outbox[outbox.head :]] == [b"one", b"two"]
    await taken(outbox, 2)
    assert socket(outbox).taken == [b"one", b"two"]


@pytest.mark.asyncio
async def test_a_client_that_does_not_read_is_dropped_past_the_byte_limit() -> None:
    outbox = connection(max_queued_bytes=1000)
    for _ in range(10):
        outbox.send(b"x" * 100)
    assert not outbox.overflowed
    outbox.send(b"x")
    assert outbox.overflowed
    assert socket(outbox).transport.aborted
    assert outbox.writer is not None
    await asyncio.wait_for(outbox.writer, 1)  # it closes without sending what waited
    assert socket(outbox).closed == (1000, "")
    assert socket(outbox).taken == []


@pytest.mark.asyncio
async def test_frames_written_at_once_and_frames_queued_behind_held_data_arrive_in_order() -> None:
    """A client that reads nothing for a while: the first frames go straight to the socket
    until the kernel's buffers fill and the transport holds data; from then on frames are
    queued for the writer, behind what the transport holds. Read at last, all arrive in
    the order sent."""
    served: asyncio.Queue[Connection] = asyncio.Queue()
    done = asyncio.Event()

    async def handler(websocket: ServerConnection) -> None:
        outbox = connection(max_queued_bytes=1 << 26, max_queue_age=60.0)
        outbox.websocket = websocket
        await served.put(outbox)
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
                outbox = await asyncio.wait_for(served.get(), 10)
                frames, direct = send(outbox)
                writer = outbox.writer
                assert writer is not None
                received = [await asyncio.wait_for(client.recv(), 10) for _ in frames]
                await asyncio.wait_for(writer, 10)
            finally:
                done.set()
    assert direct >= 2
    assert received == frames

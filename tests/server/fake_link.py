"""A stand-in for a connection's :class:`server.transport.Link`, for the tests of
:class:`server.connection.Connection` alone: a transport that takes frames only when let."""

from __future__ import annotations

from typing import Any, cast

from server.connection import Connection
from server.limits import Limits, TokenBucket


class Sock:
    """The socket a dropped connection is told to reset on closing."""

    def setsockopt(self, *option: object) -> None:
        pass


class Transport:
    def __init__(self) -> None:
        self.held = 0
        """Bytes it holds, as the slow-reader look sees them."""
        self.aborted = False
        self.sock = Sock()

    def get_write_buffer_size(self) -> int:
        return self.held

    def get_extra_info(self, name: str) -> object:
        return self.sock if name == "socket" else None

    def abort(self) -> None:
        self.aborted = True


class FakeLink:
    """Takes frames while it has room (:meth:`let`), then asks its writers to wait
    (:attr:`paused`), as a transport whose buffer is full does."""

    def __init__(self, room: int) -> None:
        self.transport = Transport()
        self.room = room
        self.paused = room == 0
        self.taken: list[bytes] = []
        self.closed: tuple[int, str] | None = None
        self.connection: Connection | None = None
        self.ping_data: bytes | None = None

    def send(self, frame: bytes) -> None:
        assert not self.paused, "a frame written while the transport asked to wait"
        self.taken.append(frame)
        self.room -= 1
        self.paused = self.room <= 0

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def let(self, frames: int) -> None:
        """Room for ``frames`` more: the transport asks for them (``resume_writing``)."""
        self.room += frames
        if self.paused and self.room > 0:
            self.paused = False
            assert self.connection is not None
            self.connection.flush()


def connection(room: int = 0, **limits: Any) -> Connection:
    """A connection over a :class:`FakeLink` with room for ``room`` frames."""
    bucket = TokenBucket(1.0, 1.0)
    link = FakeLink(room)
    made = Connection(cast(Any, link), "127.0.0.1", Limits(**limits), bucket, bucket, bucket)
    link.connection = made
    return made


def fake(connection: Connection) -> FakeLink:
    return cast(FakeLink, connection.link)

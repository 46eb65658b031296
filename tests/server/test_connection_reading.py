"""The server's look at whether a client reads what it is sent
(:meth:`server.connection.Connection.check_reading`): the kernel is asked only about a
connection that was sent something since a look found nothing held for it, and a client that
stops reading is still dropped."""

from __future__ import annotations

import pytest

import server.connection
from server.connection import Connection
from server.sockets import SendQueue
from tests.server import fake_link
from tests.server.fake_link import fake


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
    link = fake_link.connection(room=100)
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


def test_a_client_that_stops_reading_after_a_clear_look_is_still_dropped(kernel: Kernel) -> None:
    link = connection()
    link.check_reading(100.0, stall=20.0)  # clear
    link.send(b"x" * 100)
    link.queued_at = 101.0  # (send stamps the real clock)
    kernel.unsent = 100  # and it reads none of it
    link.check_reading(102.0, stall=20.0)
    assert kernel.asked == 2
    link.check_reading(110.0, stall=20.0)
    assert not link.overflowed
    link.check_reading(123.0, stall=20.0)
    assert kernel.asked == 4
    assert link.overflowed
    assert fake(link).transport.aborted


def test_a_look_with_frames_still_queued_is_not_clear(kernel: Kernel) -> None:
    # The kernel and the transport hold nothing, but a frame waits in the outbox for the
    # transport to take it: it will be held once handed over, so the next look asks again.
    link = fake_link.connection(room=0)
    link.send(b"frame")
    link.queued_at = 99.0
    link.check_reading(100.0, stall=20.0)
    link.check_reading(102.0, stall=20.0)
    assert kernel.asked == 2
    fake(link).let(1)
    assert fake(link).taken == [b"frame"]

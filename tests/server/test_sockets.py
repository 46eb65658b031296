"""What the kernel holds for a TCP peer (:func:`server.sockets.send_queue`), on real sockets."""

from __future__ import annotations

import fcntl
import socket
import struct
import sys
import termios
import time

import pytest

from server.sockets import send_queue

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def _outq(sock: socket.socket) -> int:
    held: int = struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
    return held


def test_the_bytes_held_for_a_peer_and_those_it_acknowledged() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        sender = socket.create_connection(listener.getsockname())
        peer, _address = listener.accept()
        with sender, peer:
            queue = send_queue(sender)
            assert queue is not None
            assert queue.unsent == 0  # nothing sent yet
            start = queue.acknowledged  # (the handshake counts)
            # The peer reads nothing: what its buffer cannot take stays with the sender.
            sender.setblocking(False)
            sent = 0
            chunk = b"x" * 65536
            while True:
                try:
                    sent += sender.send(chunk)
                except BlockingIOError:
                    break
            queue = send_queue(sender)
            assert queue is not None
            assert queue.unsent > 0
            assert queue.unsent == _outq(sender)  # the kernel's own count of bytes held
            assert queue.acknowledged - start + queue.unsent <= sent
            # The peer reads it all: nothing is held, every byte acknowledged.
            received = 0
            peer.settimeout(5)
            while received < sent:
                received += len(peer.recv(1 << 20))
            for _ in range(100):  # the last acknowledgement is on its way
                queue = send_queue(sender)
                assert queue is not None
                if queue.unsent == 0:
                    break
                time.sleep(0.01)
            assert (queue.unsent, queue.acknowledged - start) == (0, sent)

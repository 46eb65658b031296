"""What the kernel holds for a TCP connection, closing one without leaving its data behind,
and a listening socket that answers 503 at the descriptor limit.

A client that stops reading is noticed by the server's own queue only once the kernel's
send buffer is full: several megabytes (autotuned) that the server would keep, unsent, for
as long as the client holds its socket open. :func:`send_queue` tells how much the kernel
still holds for the peer and how much the peer has acknowledged so far, so that a stalled
reader is noticed whatever the buffers' sizes (Linux; elsewhere it tells nothing).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import struct
import sys
import termios
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["SendQueue", "SheddingSocket", "discard_on_close", "listening", "send_queue"]

_TCP_INFO_SIZE = 232
_UNACKED_AT = 24
"""Where ``tcpi_unacked`` (a u32: segments sent and not acknowledged) sits in Linux's
``struct tcp_info``."""
_BYTES_ACKED_AT = 120
"""Where ``tcpi_bytes_acked`` (a u64) sits in Linux's ``struct tcp_info`` (since 4.1)."""
_NOTSENT_AT = 144
"""Where ``tcpi_notsent_bytes`` (a u32) sits in Linux's ``struct tcp_info`` (since 4.6)."""


class HasFileno(Protocol):
    def fileno(self) -> int: ...

    def setsockopt(self, level: int, option: int, value: bytes, /) -> None: ...

    def getsockopt(self, level: int, option: int, size: int, /) -> bytes: ...


class SendQueue:
    """What the kernel holds for the peer: ``unsent`` bytes (sent but not acknowledged, or
    not sent yet), and ``acknowledged``, every byte the peer has acknowledged so far."""

    __slots__ = ("acknowledged", "unsent")

    def __init__(self, unsent: int, acknowledged: int) -> None:
        self.unsent = unsent
        self.acknowledged = acknowledged


def send_queue(sock: HasFileno) -> SendQueue | None:
    """What the kernel holds for ``sock``'s peer, or None where that cannot be told (not
    Linux, not TCP, closed)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fd = sock.fileno()
        if fd < 0:
            return None
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_SIZE)
        if len(info) < _BYTES_ACKED_AT + 8:
            return None
        # Most looks find nothing held (nothing in flight, nothing unsent): one system call
        # then, not two. The bytes held are asked for only when some are.
        if (
            len(info) >= _NOTSENT_AT + 4
            and struct.unpack_from("I", info, _UNACKED_AT)[0] == 0
            and struct.unpack_from("I", info, _NOTSENT_AT)[0] == 0
        ):
            unsent = 0
        else:
            unsent = struct.unpack("i", fcntl.ioctl(fd, termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except OSError:
        return None
    (acknowledged,) = struct.unpack_from("Q", info, _BYTES_ACKED_AT)
    return SendQueue(unsent, acknowledged)


def discard_on_close(sock: HasFileno) -> None:
    """Make closing ``sock`` reset the connection and drop what the kernel still holds for
    it, rather than keep trying to deliver it to a peer that does not read (a connection
    left in FIN-WAIT-1 with megabytes queued)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


# -- the listening socket: past the descriptor limit, a quick 503 -----------------------------

SHED_RESPONSE = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Content-Type: text/plain\r\n"
    b"Retry-After: 5\r\n"
    b"Connection: close\r\n"
    b"Content-Length: 52\r\n"
    b"\r\n"
    b"The server has as many connections as it can take.\n"
)
"""What a connection accepted past the descriptor limit is told before it is closed."""

REFUSED_PER_ACCEPT = 64
"""Connections reset, at the most, in one call of accept (then the loop serves the rest)."""

_reserve: int | None = None
"""A descriptor held in reserve: let go for a moment to accept and answer a connection when
the process has none left (``EMFILE``), then taken again."""


def _hold_reserve() -> None:
    global _reserve
    if _reserve is None:
        with contextlib.suppress(OSError):
            _reserve = os.open(os.devnull, os.O_RDONLY)


class SheddingSocket(socket.socket):
    """A listening socket that meets the descriptor limit quietly. Where asyncio's accept
    would fail with ``EMFILE`` (it logs a traceback, and stops accepting for a second),
    this one lets its reserve descriptor go, accepts the connection, answers it ``503`` and
    closes it, takes the reserve again, and tells asyncio there is nothing to accept now:
    each connection that comes at the limit is answered at once, and those open go on."""

    __slots__ = ("refusing",)

    on_shed: Callable[[], None] | None = None
    """Called for each connection answered 503 (counted by whoever serves)."""
    on_refused: Callable[[], None] | None = None
    """Called for each connection reset as it is accepted (counted by whoever serves)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refusing: Callable[[str], bool] | None = None
        """Whether a new connection from an address is reset as soon as it is accepted,
        unread (set by whoever serves: an address told a moment ago to wait before it
        connects again, for as long as it was told)."""

    def accept(self) -> tuple[socket.socket, Any]:
        for _ in range(REFUSED_PER_ACCEPT):
            try:
                connection, address = super().accept()
            except OSError as error:
                if error.errno not in (errno.EMFILE, errno.ENFILE):
                    raise
                self._shed()
                raise BlockingIOError(errno.EAGAIN, "no descriptor left: answered 503") from None
            if self.refusing is None or not self.refusing(str(address[0])):
                return connection, address
            # Reset at once: no HTTP read, parsed or answered, nothing kept by the kernel.
            discard_on_close(connection)
            connection.close()
            if SheddingSocket.on_refused is not None:
                SheddingSocket.on_refused()
        raise BlockingIOError(errno.EAGAIN, "reset connections from addresses told to wait")

    def _shed(self) -> None:
        global _reserve
        if _reserve is not None:
            os.close(_reserve)
            _reserve = None
        try:
            connection, _address = super().accept()
        except OSError:
            _hold_reserve()
            return
        with connection, contextlib.suppress(OSError):
            connection.setblocking(False)
            connection.send(SHED_RESPONSE)  # a few bytes: the socket's buffer takes them
        _hold_reserve()
        if SheddingSocket.on_shed is not None:
            SheddingSocket.on_shed()


def listening(host: str, port: int, backlog: int = 1024) -> list[socket.socket]:
    """Sockets listening on every address of ``host`` at ``port`` (0: a free one, the same
    for all of them), as asyncio's ``create_server`` makes them, but each a
    :class:`SheddingSocket`; the reserve descriptor is taken."""
    _hold_reserve()
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    made: list[socket.socket] = []
    seen: set[tuple[int, Any]] = set()
    try:
        for family, kind, proto, _name, address in infos:
            if (family, address[:2]) in seen:
                continue
            seen.add((family, address[:2]))
            sock = SheddingSocket(family, kind, proto)
            made.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if made[1:] and address[1] == 0:  # the port the first one was given
                address = (address[0], made[0].getsockname()[1], *address[2:])
            sock.bind(address)
            sock.listen(backlog)
            sock.setblocking(False)
    except BaseException:
        for opened in made:
            opened.close()
        raise
    return made

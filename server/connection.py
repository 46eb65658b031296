"""One client's connection: who it speaks for, its outbox, its budgets, and the server-wide
looks after it (heartbeats, keepalive pings, a client that does not read).

A frame goes straight to the transport unless its buffer is full (:attr:`Link.paused`); then
it waits in the connection's outbox, in order, until the transport asks for more
(:meth:`Connection.flush`). No task waits for a connection.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.codec import encode
from protocol.messages import Heartbeat
from protocol.versions import Older
from server.limits import Limits, TokenBucket
from server.sockets import discard_on_close, send_queue
from server.transport import Link

if TYPE_CHECKING:
    from server.matches import MatchRuntime, Subscriber

__all__ = ["Connection"]

log = logging.getLogger(__name__)


@dataclass(eq=False, slots=True, weakref_slot=True)
class Connection:
    """One client connection: who it speaks for (after hello), its outbox, and what it may
    still send (its token buckets)."""

    link: Link
    address: str
    """The client's IP address (behind a trusted proxy: the one the proxy names)."""
    limits: Limits
    volume: TokenBucket
    """Bytes it may send (its address's budget is shared with its other connections)."""
    frames: TokenBucket
    actions: TokenBucket
    organiser: bool = False
    subscriber: Subscriber | None = None
    runtime: MatchRuntime | None = None
    trusted: bool = False
    """The server's own robot: its actions are not rate-limited."""
    joining: bool = False
    """Its ``hello`` is being served (the match loading, a long log folding)."""
    overflowed: bool = False
    closing: tuple[int, str] = (1000, "")
    """The close code and reason the connection closes with once its queue is sent."""
    older: Older | None = None
    """The older protocol version the client speaks (its frames are turned into it), or
    None: the current one."""
    view: str = "player_view"
    """The type of the client's view (``watch_view`` for spectators and the director), for
    turning changes into an older version."""
    strikes: int = 0
    """Refusals for going too fast since the last frame served."""
    queued_bytes: int = 0
    outbox: list[tuple[float, bytes | None]] = field(default_factory=list)
    """(when queued, frame) of each frame not yet handed to the transport, from ``head`` on;
    None: close once the frames before it are sent. A list rather than an
    ``asyncio.Queue`` and a deque: 4 KiB less for every connection."""
    head: int = 0
    ended: bool = False
    """It was closed once its frames before the end were sent: nothing more is queued."""
    acknowledged: int = 0
    """Bytes its client's TCP had acknowledged when last looked (:meth:`check_reading`)."""
    progress_at: float = field(default_factory=time.monotonic)
    """When its client was last seen reading: nothing left unacknowledged, or more
    acknowledged than before."""
    clear_at: float = float("-inf")
    """When a look last found nothing held for its client (:meth:`check_reading`)."""
    heartbeat: bool = False
    """Its client asked for heartbeats (``hello.heartbeat``): :meth:`beat` looks after it."""
    counted: bool = True
    """A client's connection (not one of the server's own robots): counted against its
    address's limits."""
    own_origin: bool = True
    """Its handshake came from a page of this server, or from a program (no ``Origin``): an
    organiser may sign in on it."""
    session: str | None = None
    """The organiser's session token it signed in with (None: the key, or not the
    organiser)."""
    session_expires: int | None = None
    """When that session expires (ms since 1970)."""
    live_list: bool | None = None
    """The organiser follows the list of matches live (``True``: archived ones too)."""
    last_list: bytes | None = None
    """The list last sent to it live, so that an unchanged list is not sent again."""
    event_id: str | None = None
    """The event whose results it follows (signed in with the event's results link)."""
    last_event: bytes | None = None
    """The event last sent to it, so that an unchanged one is not sent again."""
    queued_at: float = field(default_factory=time.monotonic)
    """When a frame was last queued for it."""
    beat_at: float | None = None
    """When the server sent it a ``heartbeat`` that nothing from it has followed yet (None:
    it has sent something since the last one)."""
    beats: int = 0
    heard_at: float = field(default_factory=time.monotonic)
    """When a frame last came from it."""
    pinged_at: float = 0.0
    """When it was last sent a WebSocket ping (:meth:`keep_alive`)."""
    deadline: asyncio.TimerHandle | None = None
    """When it is closed if it has not said ``hello`` (let go once it has)."""

    @property
    def authenticated(self) -> bool:
        return self.organiser or self.subscriber is not None

    def send(self, frame: bytes) -> None:
        """Send a frame: straight to the transport when nothing waits before it and its
        buffer has room, else queued (:meth:`flush`). A client that does not read is dropped
        at once when its unsent data passes the byte or age limit, whether or not its socket
        drains; it can resume from its last sequence number."""
        if self.overflowed:
            return
        if self.older is not None:
            turned = self.older.encoded(frame, self.view)
            if turned is None:
                return  # a frame the client's version does not have
            frame = turned
        now = time.monotonic()
        waiting = self.head < len(self.outbox)
        oldest = self.outbox[self.head][0] if waiting else now
        too_much = self.queued_bytes + len(frame) > self.limits.max_queued_bytes
        if too_much or now - oldest > self.limits.max_queue_age:
            self.drop("it does not read what the server sends")
            return
        self.queued_at = now
        if not waiting and not self.link.paused:
            self.link.send(frame)
            return
        self.queued_bytes += len(frame)
        self._queue(now, frame)

    def _queue(self, now: float, frame: bytes | None) -> None:
        if self.ended:
            return
        self.outbox.append((now, frame))
        if not self.link.paused:
            self.flush()

    def flush(self) -> None:
        """Hand the queued frames to the transport, in order, while it takes them (called
        again when it asks for more). At the end (None), close the connection with
        :attr:`closing`."""
        link = self.link
        outbox = self.outbox
        while self.head < len(outbox) and not link.paused:
            frame = outbox[self.head][1]
            if frame is None:
                self.ended = True
                outbox.clear()
                self.head = 0
                self.queued_bytes = 0
                link.close(*self.closing)
                return
            link.send(frame)
            self.sent()
        if self.head == len(outbox):
            outbox.clear()
            self.head = 0

    def sent(self) -> None:
        """The oldest queued frame was handed to the transport."""
        frame = self.outbox[self.head][1]
        self.queued_bytes -= 0 if frame is None else len(frame)
        self.head += 1
        if self.head > 256 and self.head * 2 > len(self.outbox):
            del self.outbox[: self.head]  # a long backlog: forget what was sent, now and then
            self.head = 0

    def end(self) -> None:
        """Close once what is queued now is sent."""
        self._queue(time.monotonic(), None)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close with ``code`` and ``reason`` (the seat went to
        someone else; 1008 after too many refusals for going too fast)."""
        if not self.overflowed:
            self.overflowed = True
            self.closing = (code, reason)
            self.end()

    def drop(self, why: str) -> None:
        """Close the connection now, without waiting for its queue to drain, and without
        leaving the kernel to deliver what it holds for it (a reset)."""
        if not self.overflowed:
            self.overflowed = True
            log.info("dropping a connection from %s: %s", self.address, why)
            transport = self.link.transport
            sock = transport.get_extra_info("socket")
            if sock is not None:
                discard_on_close(sock)
            transport.abort()
            self.end()

    def beat(self, now: float) -> None:
        """On a connection with heartbeats: drop it when it has sent nothing for the silence
        limit after a ``heartbeat`` (its traffic silently dropped, or a page frozen), else
        send a ``heartbeat`` when nothing was sent to it for the heartbeat interval."""
        if self.overflowed:
            return
        if self.beat_at is not None and now - self.beat_at > self.limits.heartbeat_silence:
            self.drop(f"it answered no heartbeat for {now - self.beat_at:.0f} s")
        elif now - self.queued_at >= self.limits.heartbeat_every:
            self.beats += 1
            self.send(encode(Heartbeat(ref=self.beats)))
            if self.beat_at is None:
                self.beat_at = now

    def keep_alive(self, now: float) -> None:
        """WebSocket keepalive, looked after by the server for all its connections at once (a
        task per connection costs memory): a connection silent for ``keepalive_every``
        seconds (since its last frame or ping) is sent a ping, and dropped when its pong has
        not come ``keepalive_timeout`` later (a peer gone without closing: a phone that lost
        its network)."""
        if self.overflowed:
            return
        if self.link.ping_data is not None:  # no pong yet
            if now - self.pinged_at > self.limits.keepalive_timeout:
                self.drop(f"it answered no ping for {now - self.pinged_at:.0f} s")
            return
        if now - max(self.heard_at, self.pinged_at) >= self.limits.keepalive_every:
            self.pinged_at = now
            self.link.ping()

    def check_reading(self, now: float, stall: float) -> None:
        """Drop the connection if its client has read nothing for ``stall`` seconds while
        data waited for it, or if the data waiting for it, counting what the kernel and the
        transport hold (a client that stops reading fills those first, unseen by
        :meth:`send`), passes the byte limit."""
        if self.overflowed:
            return
        if self.clear_at > self.queued_at and self.clear_at > self.pinged_at:
            # Nothing was held for it at the last look, and nothing sent since: nothing can
            # be held now (no system call to ask).
            self.progress_at = now
            return
        transport = self.link.transport
        sock = transport.get_extra_info("socket")
        queue = None if sock is None else send_queue(sock)
        if queue is None:
            return
        buffered = transport.get_write_buffer_size()
        held_nowhere = queue.unsent == 0 and buffered == 0
        if held_nowhere and self.head == len(self.outbox):
            self.clear_at = now  # nothing held anywhere, nothing queued to hand over
        if held_nowhere or queue.acknowledged != self.acknowledged:
            self.acknowledged = queue.acknowledged
            self.progress_at = now
            return
        held = self.queued_bytes + buffered + queue.unsent
        if held > self.limits.max_queued_bytes:
            self.drop(f"it does not read what the server sends ({held} bytes unread)")
        elif now - self.progress_at > stall:
            self.drop(f"it has read nothing for {now - self.progress_at:.0f} s")

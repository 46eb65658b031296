"""What one client may cost the server: the limits, and the small tools that hold them.

Every limit bounds what a client (or an address) can make the server hold or do, so that
no client can stall a match or grow what the server keeps without end. SPEC.md sections 2
and 18 state them for client authors.
"""

from __future__ import annotations

import ipaddress
import logging
import resource
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from protocol.messages import HEARTBEAT_EVERY_S, HEARTBEAT_SILENCE_S

__all__ = [
    "AddressBuckets",
    "AddressThrottle",
    "Limits",
    "RepeatedLogFilter",
    "TokenBucket",
    "client_key",
]


def _descriptor_budget() -> int:
    """Connections the process can hold: its descriptor limit, less a margin for Redis,
    files and the listening sockets."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 65536
    return max(64, min(soft - 128, 20_000))


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's limits (``duplicate serve`` options set some)."""

    hello_timeout: float = 10.0
    """Seconds a connection has to say ``hello`` successfully; then it is closed."""
    max_connections: int = field(default_factory=_descriptor_budget)
    """WebSocket connections at once, in all; more are refused with HTTP 503."""
    max_connections_per_address: int = 64
    """Connections at once from one IP address (a club behind one router fits)."""
    connections_per_second: float = 5.0
    connections_burst: float = 64.0
    """New connections from one address: as many as it may hold at once may reconnect at once
    (a whole club after its Wi-Fi came back); a loop that reconnects as fast as it can may
    not. ``duplicate serve --max-connections-per-address`` sets both."""
    trusted_proxies: frozenset[str] = frozenset()
    """Addresses of reverse proxies (a TLS proxy in front of the server): a connection from
    one counts as coming from the address its ``X-Forwarded-For`` header names last, so that
    the per-address limits apply to each client and not to the proxy."""
    frames_per_second: float = 100.0
    frames_burst: float = 200.0
    """Frames of any kind a connection may send: a steady rate and a burst."""
    bytes_per_second: float = 256 * 1024
    bytes_burst: float = 2 * 1024 * 1024
    """Bytes a connection may send (an organiser's deal file fits the burst); past it a frame
    is refused before it is even decoded."""
    address_bytes_per_second: float = 1024 * 1024
    address_bytes_burst: float = 4 * 1024 * 1024
    """Bytes one address may send, all its connections together."""
    strikes: int = 10
    """Refusals for going too fast, one after another, after which a connection is closed:
    a client that ignores ``retry_after_ms`` costs the server nothing more."""
    actions_per_second: float = 30.0
    actions_burst: float = 90.0
    """Actions (calls, cards, chat...) a connection may send; the server's robots are exempt."""
    bad_hellos_per_minute: int = 20
    """``hello``s with an unknown token from one address, after which that address's hellos
    are refused for the rest of the minute (a token cannot be guessed by trying)."""
    max_queued_bytes: int = 4 * 1024 * 1024
    """Bytes queued for a connection and not yet sent: past this it is closed."""
    max_queue_age: float = 30.0
    """Seconds the oldest unsent frame may wait for a connection that does not read."""
    heartbeat_every: float = HEARTBEAT_EVERY_S
    """On a connection that asked for heartbeats, a ``ping`` once nothing was sent to it for
    this long (SPEC.md promises the protocol's figure: tests shorten it)."""
    heartbeat_silence: float = HEARTBEAT_SILENCE_S
    """Seconds such a connection may send nothing after a ``ping`` before it is dropped."""
    keepalive_every: float = 20.0
    keepalive_timeout: float = 20.0
    """A connection silent this long is sent a WebSocket ping, and dropped when its pong has
    not come the timeout later (websockets' own defaults, kept for every connection by one
    look of the server's instead of a task each)."""


class TokenBucket:
    """``rate`` tokens a second, up to ``burst``: :meth:`take` one, or learn how long to wait.

    >>> bucket = TokenBucket(rate=1.0, burst=2.0, now=0.0)
    >>> bucket.take(0.0), bucket.take(0.0), bucket.take(0.0)
    (0.0, 0.0, 1.0)
    >>> bucket.take(1.0)
    0.0
    """

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None, amount: float = 1.0) -> float:
        """Take ``amount`` tokens: 0.0 if there were enough, else the seconds until there
        are (none taken). An amount over the burst is taken once the bucket is full."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        needed = min(amount, self.burst)
        if self.tokens >= needed:
            self.tokens -= needed
            return 0.0
        return (needed - self.tokens) / self.rate


class AddressBuckets:
    """A :class:`TokenBucket` for each address; past ``size`` addresses the one least
    recently heard from is forgotten (an attacker with many addresses costs bounded memory,
    and forgets no busy address's bucket).

    >>> buckets = AddressBuckets(rate=1.0, burst=1.0, size=2)
    >>> buckets.take("a", now=0.0), buckets.take("a", now=0.0), buckets.take("b", now=0.0)
    (0.0, 1.0, 0.0)
    >>> buckets.take("c", now=0.0), buckets.take("a", now=0.0)  # "a" was forgotten
    (0.0, 0.0)
    """

    def __init__(self, rate: float, burst: float, size: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.size = size
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, address: str, amount: float = 1.0, now: float | None = None) -> float:
        """Take ``amount`` from ``address``'s bucket: 0.0, or the seconds to wait."""
        bucket = self._buckets.pop(address, None)
        if bucket is None:
            if len(self._buckets) >= self.size:
                del self._buckets[next(iter(self._buckets))]
            bucket = TokenBucket(self.rate, self.burst, now)
        self._buckets[address] = bucket  # the most recently used, last
        return bucket.take(now, amount)


def client_key(address: str) -> str:
    """The key an address's limits are kept under: an IPv4 address as it is, an IPv6 one by
    its /64 network (one subscriber's share, which an attacker can fill with addresses).

    >>> client_key("203.0.113.7"), client_key("2001:db8:1:2:3:4:5:6")
    ('203.0.113.7', '2001:db8:1:2::/64')
    >>> client_key("::ffff:203.0.113.7"), client_key("nonsense")
    ('203.0.113.7', 'nonsense')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


class AddressThrottle:
    """At most ``limit`` events per ``window`` seconds per address (bad hellos, say). An
    attempt that may become an event (a token being looked up) holds a place meanwhile
    (:meth:`begin`, :meth:`end`): many at once from one address cannot all pass the check
    before the first is counted (whoever finds no place while others hold one waits for
    them to end, and tries again: most attempts are good, and count for nothing)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._seen: dict[str, deque[float]] = {}
        self._pending: Counter[str] = Counter()

    def _recent(self, address: str, now: float) -> deque[float]:
        seen = self._seen.get(address)
        if seen is None:
            return deque()
        while seen and now - seen[0] > self.window:
            seen.popleft()
        if not seen:
            del self._seen[address]
        return seen

    def wait(self, address: str, now: float | None = None, *, pending: bool = True) -> float:
        """0.0 if ``address`` is under its limit (its attempts under way counted as events,
        unless ``pending`` is false), else the seconds until it is again."""
        now = time.monotonic() if now is None else now
        seen = self._recent(address, now)
        if len(seen) + (self._pending[address] if pending else 0) < self.limit:
            return 0.0
        if not seen:  # the limit is all attempts under way: try again in a moment
            return 1.0
        return self.window - (now - seen[0])

    def begin(self, address: str, now: float | None = None) -> float:
        """Hold a place for an attempt from ``address`` that may count (call :meth:`end`
        after it, and :meth:`note` before that if it counted); 0.0, or if the address is at
        its limit, no place and the seconds to wait (as :meth:`wait`)."""
        wait = self.wait(address, now)
        if not wait:
            self._pending[address] += 1
        return wait

    def end(self, address: str) -> None:
        """The attempt :meth:`begin` held a place for is over."""
        self._pending[address] -= 1
        if self._pending[address] <= 0:
            del self._pending[address]

    def note(self, address: str, now: float | None = None) -> None:
        """Count one event from ``address``."""
        now = time.monotonic() if now is None else now
        self._recent(address, now)
        self._seen.setdefault(address, deque()).append(now)
        if len(self._seen) > 100_000:  # a bound on what an attacker with many addresses costs
            self._seen.pop(next(iter(self._seen)))


class RepeatedLogFilter(logging.Filter):
    """Let at most ``per_second`` records of one kind (logger, level, message template)
    through each second; say once how many were left out.

    One instance may sit on several handlers: it decides once per record and every
    handler gets that decision (a record counted once, its message rewritten once)."""

    def __init__(self, per_second: int = 5, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.per_second = per_second
        self._clock = clock
        self._counts: dict[tuple[str, int, str], tuple[int, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        decided: bool | None = getattr(record, "_repeated_log_decision", None)
        if decided is not None:
            return decided
        second = int(self._clock())
        key = (record.name, record.levelno, str(record.msg))
        started, count = self._counts.get(key, (second, 0))
        if started != second:
            if count > self.per_second:
                record.msg = f"{record.msg} ({count - self.per_second} similar lines left out)"
            started, count = second, 0
        count += 1
        self._counts[key] = (started, count)
        if len(self._counts) > 10_000:
            self._counts.clear()
        decided = count <= self.per_second
        record._repeated_log_decision = decided
        return decided

"""What one client may cost the server: the limits, and the small tools that hold them.

Every limit bounds what a client (or an address) can make the server hold or do, so that
no client can stall a match or grow what the server keeps without end. SPEC.md sections 2
and 18 state them for client authors.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import random
import resource
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from protocol.messages import HEARTBEAT_EVERY_S, HEARTBEAT_SILENCE_S

__all__ = [
    "AddressBuckets",
    "AddressThrottle",
    "LagWatch",
    "Limits",
    "RepeatedLogFilter",
    "TokenBucket",
    "client_key",
]


OVERLOAD_LAG = 0.025
"""Seconds the event loop may run late, sustained, before ``duplicate serve`` refuses
actions as ``unavailable`` (its default: :attr:`Limits.overload_lag`). Chosen with
``bench/load.py`` (250 matches offered twice what the process serves): at 50 ms the
admitted actions' p99 was about 190 ms, at 25 ms 80 ms, and a human pace refused none."""
TREND_WEIGHT = 0.1
"""How much each look's lateness weighs in :class:`LagWatch`'s trend (about the last ten
looks count)."""
REFUSED_PER_SERVED = 0.25
"""Overloaded, the refusals per action served that the wait told to refused clients aims
at (:meth:`LagWatch._measure`): enough of them come back to keep the process busy, few
enough that refusing them costs little. Chosen with ``bench/load.py`` (250 matches, flat out
then offered twice that), run after run on one machine: at 0.5, 1,301 and 1,137 actions/s
with 26,401 and 22,782 refusals in 40 s; at 0.25, 1,383 and 1,187 with 13,999 and 12,101
(the admitted actions' p99 60 ms, against 67)."""


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
    overload_lag: float | None = None
    """Past what the process can serve, an action is refused at once, before any work, with
    ``unavailable`` and ``retry_after_ms`` (no strike): while its event loop runs late by
    more than this, sustained, or the actions under way would hold it that long
    (:class:`LagWatch`). None: never (an in-process server shares its loop with whatever
    runs beside it, tests included); ``duplicate serve`` sets :data:`OVERLOAD_LAG`."""


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


class LagWatch:
    """How late the event loop runs, looked at every ``every`` seconds: whether the process
    is past what it can serve, and so whether an action may start (:meth:`admit`), and how
    long a refused client should wait (:meth:`retry_after_ms`).

    A look that comes late measures the work the loop had queued before it: actions waiting
    in sockets, updates to build and send. What counts is the trend, the looks' lateness
    averaged over the last ten or so (each weighs :data:`TREND_WEIGHT`): a blip (a garbage
    collection, a burst of boards ending at once) moves it little, and nothing is refused.
    Once the trend is past ``limit`` the process is overloaded, and stays so while it is
    past half the limit or actions are being refused, and ``hold`` seconds more (refusing
    keeps the loop on time: the overload is over when no more comes than is let in).
    Meanwhile an action is refused when the loop runs more than ``limit`` late (its last
    look did, or the look due has been waiting that long: the loop is in a long turn), and
    when the actions under way would take the loop more than ``limit`` to finish at what
    an action has cost lately (most of an action's work, its updates, comes after its
    store's answer, in a later turn: counting only the turn under way would let in a
    turn's worth of actions whose updates then hold up the next).

    >>> watch = LagWatch(limit=0.025, every=0.02, now=0.0)
    >>> watch.look(0.2), watch.admit(0.21)  # one look 180 ms late: a blip
    (None, True)
    >>> watch.done()
    >>> for n in range(1, 4):  # a turn of 100 ms at each look: an overload
    ...     watch.look(0.2 + n * 0.12)
    >>> watch.admit(0.561)
    False
    >>> watch.look(0.58), watch.admit(0.59), watch.admit(0.65)  # a turn 70 ms long
    (None, True, False)
    >>> watch.done(), watch.under_way
    (None, 0)
    >>> watch.cost = 0.005  # 5 ms an action: five under way fill the limit
    >>> [watch.admit(0.59) for _ in range(6)]
    [True, True, True, True, True, False]
    >>> for n in range(1, 61):  # 1.2 s of looks on time: over
    ...     watch.look(0.58 + n * 0.02)
    >>> watch.admit(1.78)
    True
    """

    __slots__ = (
        "_cpu",
        "_late",
        "_looked_at",
        "_measured_at",
        "_refused",
        "_served",
        "_trend",
        "_until",
        "cost",
        "every",
        "hold",
        "limit",
        "under_way",
        "wait",
    )

    def __init__(
        self, limit: float, every: float = 0.02, hold: float = 1.0, now: float | None = None
    ) -> None:
        self.limit = limit
        self.every = every
        self.hold = hold
        self._looked_at = time.monotonic() if now is None else now
        self._late = 0.0
        self._trend = 0.0
        self._until = float("-inf")
        self.under_way = 0
        """Actions admitted and not yet answered."""
        self.cost = 0.002
        """The process's CPU seconds per action served, lately (measured every second)."""
        self.wait = 4 * limit
        """The mean of the waits refused clients are told, lately (:meth:`_measure`)."""
        self._served = 0
        self._refused = 0
        self._cpu = time.process_time()
        self._measured_at = self._looked_at

    def look(self, now: float) -> None:
        """Note a look at ``now``, due ``every`` after the one before (and once a second,
        :meth:`_measure`)."""
        late = max(0.0, now - self._looked_at - self.every)
        self._trend += TREND_WEIGHT * (late - self._trend)
        if self._trend > self.limit or (now < self._until and self._trend > self.limit / 2):
            self._until = now + self.hold
        self._late = late
        self._looked_at = now
        self._measure(now)

    def lag(self, now: float | None = None) -> float:
        """How late the loop runs: its last look's lateness, or the time the look due now
        has been waiting (the loop is in a long turn), whichever is more."""
        now = time.monotonic() if now is None else now
        return max(self._late, now - self._looked_at - self.every)

    def admit(self, now: float | None = None) -> bool:
        """Whether an action arriving now may start (then :meth:`done` once it is
        answered), or is to be refused."""
        now = time.monotonic() if now is None else now
        if now < self._until and (
            self.lag(now) > self.limit or (self.under_way + 1) * self.cost > self.limit
        ):
            self._until = now + self.hold  # more comes than is let in: it lasts
            return False
        self.under_way += 1
        return True

    def done(self) -> None:
        """An admitted action was answered."""
        self.under_way -= 1
        self._served += 1

    def _measure(self, now: float) -> None:
        """Once a second: what an action has cost lately (the process's CPU over the actions
        served, when enough were to tell: a quiet process keeps what it knew), and how long
        refused clients are told to wait. That wait is what spreads their coming back over
        what the process serves: while they are refused more often than
        :data:`REFUSED_PER_SERVED` a served action, each refusal costing work for nothing,
        it grows; once they are not, it shrinks back (from twice the limit to 5 s, by at
        most half or twice a second)."""
        if now - self._measured_at < 1.0:
            return
        cpu = time.process_time()
        if self._served >= 20:
            self.cost = max(1e-4, (cpu - self._cpu) / self._served)
        ratio = self._refused / max(1, self._served) / REFUSED_PER_SERVED
        shortest = 2 * self.limit
        self.wait = min(5.0, max(shortest, self.wait * min(2.0, max(0.5, math.sqrt(ratio)))))
        self._served = 0
        self._refused = 0
        self._cpu = cpu
        self._measured_at = now

    def retry_after_ms(self) -> int:
        """How long a refused client should wait (:meth:`_measure`), in milliseconds: half
        to one and a half times :attr:`wait` (many refused at once do not all come back at
        once), from the limit to 5 s."""
        self._refused += 1
        wait = self.wait * random.uniform(0.5, 1.5)
        return max(1, round(1000 * min(5.0, max(self.limit, wait))))

    async def run(self) -> None:
        """Look every ``every`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(self.every)
            self.look(time.monotonic())


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

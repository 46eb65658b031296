"""Who comes in, and how fast: the connection caps (per process, per address, new ones per
second), the addresses told to wait (reset as accepted), the throttle on unknown tokens,
and which requests are the server's own robots' or its own pages'.

Everything here is decided before any work a client could make the server do: a refusal
costs a few dictionary lookups.
"""

from __future__ import annotations

import asyncio
import hmac
import time
from collections import Counter, OrderedDict
from typing import Any, Protocol

from websockets.http11 import Request

from protocol.errors import ErrorCode, ProtocolError
from server.limits import AddressBuckets, AddressThrottle, Limits, client_key

__all__ = ["ROBOT_HEADER", "Admission", "Peer", "rate_limited"]

ROBOT_HEADER = "X-Duplicate-Robot"
"""The request header by which the server's own robots pass the connection caps."""
WELCOMED_KEPT = 100_000
"""Tokens welcomed lately that the unknown-token throttle lets through (a bound)."""
REFUSED_KEPT = 100_000
"""Addresses told to wait that are remembered (a bound on what many addresses cost)."""


class Peer(Protocol):
    """A client's connection, as admission sees it: where it comes from, and (while its
    handshake is served) its request."""

    @property
    def remote_address(self) -> Any: ...

    @property
    def request(self) -> Request | None: ...


def rate_limited(what: str, wait: float) -> ProtocolError:
    """A refusal for going too fast: try again in ``wait`` seconds."""
    retry = max(1, round(wait * 1000))
    return ProtocolError(
        ErrorCode.RATE_LIMITED, f"{what}: try again in {retry} ms", retry_after_ms=retry
    )


class Admission:
    """The doors of one server process."""

    def __init__(self, limits: Limits, robot_pass: str) -> None:
        self.limits = limits
        self.robot_pass = robot_pass
        """Sent by the server's own robots in a request header: their connections pass the
        connection caps (they all come from this host, and the server chose to run them)."""
        self.volumes = AddressBuckets(limits.address_bytes_per_second, limits.address_bytes_burst)
        """Bytes each address may send (shared by its connections)."""
        self._arrivals = AddressBuckets(limits.connections_per_second, limits.connections_burst)
        self._per_address: Counter[str] = Counter()
        """Open connections from each client address."""
        self._refused_until: dict[str, float] = {}
        """Addresses told to wait before connecting again, and until when (by the clock of
        ``time.monotonic``): their new connections are reset as they are accepted."""
        self._robot_addresses: set[str] = set()
        """Where the server's own robots connect from (never reset as accepted)."""
        self._bad_hellos = AddressThrottle(limits.bad_hellos_per_minute, 60.0)
        self._lookups_ended: dict[str, asyncio.Event] = {}
        """Set when a lookup of a token from the address ends (:meth:`hold_lookup`)."""
        self._welcomed: OrderedDict[bytes, None] = OrderedDict()
        """Digests of tokens welcomed lately: an address throttled for unknown tokens still
        gets in with one of these (a player behind the same router as an attacker)."""

    # -- who asks ----------------------------------------------------------------------

    def own_robot(self, request: Request | None) -> bool:
        """Whether a connection is one of the server's own robots (by its request header)."""
        if request is None:
            return False
        given = request.headers.get_all(ROBOT_HEADER)
        return len(given) == 1 and hmac.compare_digest(given[0], self.robot_pass)

    def robot_from(self, peer: Peer) -> None:
        """The server's own robot connects from ``peer``'s address: never reset there."""
        remote = peer.remote_address
        if remote:
            self._robot_addresses.add(client_key(str(remote[0])))

    @staticmethod
    def own_origin(request: Request | None, public_url: str | None) -> bool:
        """Whether a handshake may sign an organiser in: it names no ``Origin`` (a program,
        not a page), or its page came from this server (the host it asked for, or the
        public URL's): another site's page, which a browser would let reach the server
        with the organiser's session, may not."""
        if request is None:
            return True
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        scheme, _, rest = origin.partition("://")
        host = request.headers.get("Host")
        if host is not None and rest == host and scheme in ("http", "https"):
            return True
        public_scheme, _, public_rest = (public_url or "").partition("://")
        return (scheme, rest) == (public_scheme, public_rest.split("/", 1)[0])

    def client_address(self, peer: Peer) -> str:
        """The IP address a connection comes from: behind a trusted proxy, the last one its
        ``X-Forwarded-For`` names (the address the proxy itself saw)."""
        remote = peer.remote_address
        address = str(remote[0]) if remote else "?"
        request = peer.request
        if address in self.limits.trusted_proxies and request is not None:
            # A proxy may add its own header line after the client's: the last one counts.
            forwarded = ",".join(request.headers.get_all("X-Forwarded-For"))
            last = forwarded.rsplit(",", 1)[-1].strip()
            if 0 < len(last) <= 45:  # an IPv6 address at its longest
                return client_key(last)
        return client_key(address)

    # -- connections ---------------------------------------------------------------------

    def over_capacity(self, peer: Peer, opened: int) -> tuple[str, float] | None:
        """Why a new WebSocket connection is refused, if it is, and in how many seconds to
        try again: the server is full (``opened`` connections are open), or its address
        holds too many already, or opened too many lately. Refused before the handshake,
        cheaply."""
        if opened >= self.limits.max_connections:
            return "The server has as many connections as it can take: try again later.\n", 5.0
        address = self.client_address(peer)
        if self._per_address[address] >= self.limits.max_connections_per_address:
            return f"Too many connections from {address}: close some and try again.\n", 5.0
        wait = self._arrivals.take(address)
        if wait:
            self._refuse_for(address, wait)
            return f"Too many new connections from {address}: try again in {wait:.1f} s.\n", wait
        return None

    def opened(self, address: str) -> None:
        """A connection from ``address`` (not the server's robot's) is open."""
        self._per_address[address] += 1

    def closed(self, address: str) -> None:
        """A connection :meth:`opened` from ``address`` has closed."""
        self._per_address[address] -= 1
        if not self._per_address[address]:
            del self._per_address[address]

    def refusing(self, address: str) -> bool:
        """Whether a connection from ``address`` (as accepted) is reset at once."""
        key = client_key(address)
        until = self._refused_until.get(key)
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self._refused_until[key]
        return False

    def _refuse_for(self, address: str, seconds: float) -> None:
        """Reset ``address``'s new connections as they are accepted for ``seconds``: it was
        just told (503, with the reason and ``Retry-After``) to wait that long before
        connecting again, and one that does not wait then costs an accept and a reset, no
        HTTP read, parsed or answered."""
        if address in self._robot_addresses or address in self.limits.trusted_proxies:
            return
        self._refused_until.pop(address, None)
        self._refused_until[address] = time.monotonic() + seconds
        if len(self._refused_until) > REFUSED_KEPT:
            self._refused_until.pop(next(iter(self._refused_until)))

    # -- tokens --------------------------------------------------------------------------

    def welcomed(self, digest: bytes) -> bool:
        """Whether the token of ``digest`` was welcomed lately."""
        return digest in self._welcomed

    def welcome(self, digest: bytes) -> None:
        """The token of ``digest`` was welcomed (it passes the throttle for a while)."""
        self._welcomed[digest] = None
        self._welcomed.move_to_end(digest)
        if len(self._welcomed) > WELCOMED_KEPT:
            self._welcomed.popitem(last=False)

    def unknown(self, address: str) -> None:
        """A token from ``address`` was not known: it counts against the address."""
        self._bad_hellos.note(address)

    async def hold_lookup(self, address: str) -> None:
        """A place among the lookups of tokens not seen lately from ``address``: many at
        once cannot all pass before the first bad one is counted. With no place while
        others are looked up, wait for one of them to end (most tokens are good, and count
        for nothing); with none, the address has had its unknown tokens: refused without
        even looking this one up (a token welcomed lately still gets in: a player behind
        the attacker's router). Given back with :meth:`end_lookup`."""
        while True:
            wait = self._bad_hellos.wait(address, pending=False)
            if wait:
                raise rate_limited("too many unknown tokens from your address", wait)
            if not self._bad_hellos.begin(address):
                return
            await self._lookups_ended.setdefault(address, asyncio.Event()).wait()

    def end_lookup(self, address: str) -> None:
        """A lookup held with :meth:`hold_lookup` has ended: another may go."""
        self._bad_hellos.end(address)
        ended = self._lookups_ended.pop(address, None)
        if ended is not None:
            ended.set()

"""The server's plain HTTP: the browser table's files, ``/health`` (does the store answer?),
and ``/metrics`` on an address of its own.
"""

from __future__ import annotations

import asyncio
import http
import logging
import time
from collections.abc import Callable
from pathlib import Path

from redis.exceptions import RedisError
from websockets.asyncio.server import Server as WebSocketServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.metrics import Metrics
from server.store import StoreClient
from server.transport import let_go

__all__ = ["MetricsAddressError", "StoreHealth", "response", "serve_metrics", "web_file"]

log = logging.getLogger(__name__)

STORE_CHECKED_FOR = 1.0
"""Seconds ``/health`` answers from its last PING of the store: a flood of health checks is
not a flood of PINGs."""
STORE_PING_TIMEOUT = 0.5
"""Seconds ``/health`` waits for the store's answer to PING before calling it unreachable."""
SUPERVISOR_NOTICES = 0.3
"""Seconds a failed PING waits for the store's supervisor, if there is one, to say why: it
watches the embedded Redis's process (every 0.1 s), and its words ("was killed by SIGKILL;
restarting it") tell more than a failed PING."""


WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
"""The browser table: plain HTML, CSS and JavaScript modules, served as they are."""
_PAGES = {
    "/play": "index.html",
    "/watch": "index.html",
    "/direct": "index.html",
    "/": "index.html",
    "/organise": "organise.html",
    "/event": "event.html",
}
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
}


def web_file(path: str) -> tuple[str, bytes] | None:
    """(content type, bytes) of the browser table's file at URL ``path``, or None. The
    link's token travels after ``#``, so it never reaches the server in a page request."""
    name = _PAGES.get(
        path.rstrip("/") or "/", path.removeprefix("/web/") if path.startswith("/web/") else None
    )
    if name is None:
        return None
    if len(name) > 100 or "\x00" in name:
        return None  # no file of ours has such a name (and the OS would refuse it)
    try:
        file = (WEB_ROOT / name).resolve()
        if not file.is_relative_to(WEB_ROOT) or not file.is_file() or file.suffix not in _TYPES:
            return None
        return _TYPES[file.suffix], file.read_bytes()
    except (OSError, ValueError):
        return None


class ClosingConnection(ServerConnection):
    """A connection to ``/metrics`` that, once lost, is in no reference cycle: reference
    counting frees it, and no collection has to find it (server.heap freezes what outlives
    a young collection)."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        let_go(self.protocol, self.transport)


class MetricsAddressError(Exception):
    """The metrics address could not be listened on (``error`` says why)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def response(status: http.HTTPStatus, content_type: str, body: bytes) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return Response(status.value, status.phrase, headers, body)


async def serve_metrics(host: str, port: int, metrics: Metrics) -> WebSocketServer:
    """Listen for Prometheus at (``host``, ``port``; port 0: a free one): ``/metrics``, and
    nothing else. OSError when the address cannot be listened on."""

    def answer(_connection: ServerConnection, request: Request) -> Response:
        if request.path.split("?", 1)[0] != "/metrics":
            body = b"Not found: this address serves /metrics only.\n"
            return response(http.HTTPStatus.NOT_FOUND, "text/plain", body)
        return response(http.HTTPStatus.OK, METRICS_CONTENT_TYPE, metrics.exposition())

    async def refuse(_connection: ServerConnection) -> None:
        """Never reached: every request is answered in HTTP."""

    return await serve(
        refuse, host, port, process_request=answer, create_connection=ClosingConnection
    )


class StoreHealth:
    """Whether the store answers, for ``/health``: from a PING at most
    :data:`STORE_CHECKED_FOR` seconds old, or from the words of the store's supervisor."""

    def __init__(self, redis: StoreClient, status: Callable[[], str | None] | None) -> None:
        self.redis = redis
        self.status = status
        """Why the store is down right now (None: it is up), said by whoever runs the store
        (``duplicate serve`` supervising its embedded Redis); None: nobody says."""
        self._problem: str | None = None
        """Why the store did not answer the last PING (None: it did)."""
        self._checked_at = -STORE_CHECKED_FOR
        self._check: asyncio.Task[str | None] | None = None
        """The PING in flight, which every ``/health`` request meanwhile waits for."""

    async def problem(self) -> str | None:
        """Why the store is down (None: it is up): its supervisor's words when it has
        some, else what the PING found."""
        said = self._supervisor_says()
        if said is not None:
            return said
        pinged = await self._pinged()
        return self._supervisor_says() or pinged  # its words, if it noticed meanwhile

    async def close(self) -> None:
        """Wait for a PING in flight (over within :data:`STORE_PING_TIMEOUT`)."""
        if self._check is not None:
            await self._check

    def _supervisor_says(self) -> str | None:
        return None if self.status is None else self.status()

    async def _pinged(self) -> str | None:
        """Why the store is unreachable (None: it answered PING), as found at most
        :data:`STORE_CHECKED_FOR` seconds ago; requests that come while a PING is in flight
        all wait for that one."""
        if time.monotonic() - self._checked_at < STORE_CHECKED_FOR:
            return self._problem
        if self._check is None or self._check.done():
            self._check = asyncio.create_task(self._ping(), name="store health")
        # Shielded: a request given up (its client gone) does not cancel the others' PING.
        return await asyncio.shield(self._check)

    async def _ping(self) -> str | None:
        """PING the store, note the answer (or why there was none) and when, and log a
        change. The reason names the error's kind only: ``/health`` is public, and a
        client library's message may name the store's host."""
        try:
            await asyncio.wait_for(self.redis.ping(), STORE_PING_TIMEOUT)
            problem = None
        except TimeoutError:
            problem = f"no answer to PING within {STORE_PING_TIMEOUT:g} s"
        except (RedisError, OSError) as error:
            problem = f"PING failed: {type(error).__name__}"
        if problem is not None and self.status is not None:
            deadline = time.monotonic() + SUPERVISOR_NOTICES
            while self.status() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        if problem != self._problem:
            if problem is None:
                log.info("health: the store answers again")
            else:
                log.warning("health: the store is unreachable: %s", problem)
        self._problem = problem
        self._checked_at = time.monotonic()
        return problem

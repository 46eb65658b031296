"""What one server process counts, for Prometheus: served at ``/metrics`` in the text format.

One :class:`Metrics` per :class:`server.app.Server`, on a registry of its own (not the
library's global one: tests run several servers in one process). Every label takes its
values from a fixed set (message types, error codes, store operations), never one per
match, player or address, so the exposition stays the same size however busy the process
is; and nothing in it names a token, a match or a result.

- ``duplicate_connections{kind}``: open WebSocket connections, ``client`` or ``own_robot``
  (the server's own robots, which pass the connection caps).
- ``duplicate_matches``: matches this process holds (loaded and followed).
- ``duplicate_actions_total{type}``: actions received, by message type (``call``, ``card``...),
  refused ones included.
- ``duplicate_refusals_total{code}``: ``error`` frames sent, by :class:`ErrorCode`.
- ``duplicate_action_delivery_seconds``: from decoding a table action to having queued its
  update for every viewer connected here and its ``ack``: the server's share of what a
  player waits (the match's lock and the store included, the network not).
- ``duplicate_redis_seconds{operation}``: the store's calls that actions and joins wait on:
  ``append`` (the append script), ``load`` (a whole match), ``read`` (entries since the
  last one folded), ``grant`` (a link's token).

The hot path pays a counter increment or an observation on a child bound in advance: no
label lookup, nothing allocated.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from protocol.errors import ErrorCode
from protocol.messages import Substitute, TableAction

__all__ = [
    "ACTION_BUCKETS",
    "ACTION_TYPES",
    "CONTENT_TYPE",
    "REDIS_BUCKETS",
    "REDIS_OPERATIONS",
    "Metrics",
]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The Prometheus text exposition format's content type (what ``generate_latest`` writes)."""
ACTION_TYPES: tuple[str, ...] = tuple(
    str(message.model_fields["type"].default)
    for message in (*typing.get_args(TableAction), Substitute)
)
"""The ``type`` of every action a client may send: the values of the actions' label."""
REDIS_OPERATIONS = ("append", "load", "read", "grant")
"""The store's calls timed (:class:`server.store.Store`): the values of their label."""
ACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
"""Seconds, 1 ms to 2 s: an action served from memory and one local Redis round trip takes
a few ms; one that waited for a busy match's lock or a slow store, hundreds."""
REDIS_BUCKETS = (0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
"""Seconds, 0.25 ms to 2 s: a Redis on the same host answers in a fraction of a ms."""
RENDERED_FOR = 0.5
"""Seconds one rendering of the exposition is served again: rendering costs about a ms, so
that a flood of ``/metrics`` requests costs no more than one of requests for a missing page
(a scraper, every 15 s or so, never sees the difference)."""

Observe = Callable[[float], None]
"""Records one duration in seconds."""


class Metrics:
    """A server process's metrics, on their own registry.

    >>> metrics = Metrics()
    >>> metrics.actions["call"].inc()
    >>> b'duplicate_actions_total{type="call"} 1.0' in metrics.exposition()
    True
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        connections = Gauge(
            "duplicate_connections",
            "Open WebSocket connections: clients', and the server's own robots'.",
            ["kind"],
            registry=registry,
        )
        self.client_connections = connections.labels(kind="client")
        self.robot_connections = connections.labels(kind="own_robot")
        self.matches = Gauge(
            "duplicate_matches",
            "Matches this process holds (loaded and followed).",
            registry=registry,
        )
        actions = Counter(
            "duplicate_actions",
            "Actions received, by message type (refused ones included).",
            ["type"],
            registry=registry,
        )
        self.actions = {kind: actions.labels(type=kind) for kind in ACTION_TYPES}
        """Each action type's counter, bound in advance (every type shows, at 0 until used)."""
        refusals = Counter(
            "duplicate_refusals", "Error frames sent, by error code.", ["code"], registry=registry
        )
        self.refusals = {code: refusals.labels(code=code.value) for code in ErrorCode}
        self.action_delivery = Histogram(
            "duplicate_action_delivery_seconds",
            "From decoding a table action to its update queued for every viewer here and "
            "its ack queued.",
            buckets=ACTION_BUCKETS,
            registry=registry,
        )
        redis = Histogram(
            "duplicate_redis_seconds",
            "The store's calls to Redis, by operation: the append script, a match's load, "
            "the entries since the last read, a token's grant.",
            ["operation"],
            buckets=REDIS_BUCKETS,
            registry=registry,
        )
        self._redis = {
            operation: redis.labels(operation=operation) for operation in REDIS_OPERATIONS
        }
        self._rendered = b""
        self._rendered_at = -RENDERED_FOR

    def redis_timer(self, operation: str) -> Observe:
        """What records the duration of one of the store's ``operation`` calls
        (:data:`REDIS_OPERATIONS`), for :class:`server.store.Store`."""
        return self._redis[operation].observe

    def exposition(self, now: float | None = None) -> bytes:
        """The metrics in the text format (:data:`CONTENT_TYPE`), rendered at most once every
        :data:`RENDERED_FOR` seconds."""
        now = time.monotonic() if now is None else now
        if now - self._rendered_at >= RENDERED_FOR:
            self._rendered = generate_latest(self.registry)
            self._rendered_at = now
        return self._rendered

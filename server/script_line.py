"""One Lua script's calls pipelined on a Redis connection of their own.

Every accepted action is one call of the append script (:data:`server.store.APPEND_SCRIPT`).
Through redis-py's client each call takes a connection from the pool, sends, waits for its
reply on that connection and gives it back: about 60 us of this process's CPU a call when
hundreds of matches append at once, and most of that is the pool's and the client's
bookkeeping, not the protocol. A :class:`ScriptLine` sends each call at once on one
connection and reads the replies in the order the calls went (Redis answers a connection's
commands in order), so that calls from many matches share the connection, its reads and its
writes: about 10 us a call in the same measure (``bench/load.py`` prints what it comes to).

What it keeps from redis-py: the connection itself (made by the client's pool from the same
settings: address, password, TLS, protocol), the packing of a command, the parsing of a
reply, and the errors. A call fails as a call through the pool would:

- a reply that is an error raises it (:class:`redis.exceptions.ResponseError`); the script
  not known to Redis (it restarted) is sent whole once (``EVAL``, which keeps it there);
- a connection that breaks fails every call waiting on it with
  :class:`redis.exceptions.ConnectionError` (whether each was done is unknown: the caller
  reads the store again, as it does for any failed append), and the next call opens another;
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

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError, NoScriptError, ResponseError

__all__ = ["ScriptLine"]


class _Line:
    """One connection and the replies still to come on it, in the order of the calls."""

    def __init__(self, connection: AbstractConnection) -> None:
        self.connection = connection
        self.waiting: deque[asyncio.Future[Any]] = deque()
        self.broken = False
        self.reader = asyncio.create_task(self._read())

    async def call(self, *command: Any) -> Any:
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append(reply)
        try:
            await self.connection.send_packed_command(
                self.connection.pack_command(*command), check_health=False
            )
        except BaseException:
            # Sent in part or not at all: no later reply can be matched to its call.
            self.fail("the connection to Redis failed while sending")
            raise
        return await reply

    async def _read(self) -> None:
        try:
            while True:
                try:
                    value: Any = await self.connection.read_response()
                except ResponseError as error:  # an error reply: the call's, not the line's
                    value = error
                if not self.waiting:
                    raise ConnectionError("a reply from Redis that no call waits for")
                reply = self.waiting.popleft()
                if reply.done():  # its caller was cancelled
                    continue
                if isinstance(value, ResponseError):
                    reply.set_exception(value)
                else:
                    reply.set_result(value)
        except asyncio.CancelledError:
            self.fail("the connection to Redis was closed")
            raise
        except Exception as error:  # every call waiting learns of it
            self.fail(f"the connection to Redis failed: {error}")

    def fail(self, why: str) -> None:
        """Fail every call still waiting and stop reading: the line is broken (its
        connection is closed when the next call opens another, or by :meth:`close`)."""
        self.broken = True
        while self.waiting:
            reply = self.waiting.popleft()
            if not reply.done():
                reply.set_exception(ConnectionError(why))
        if not self.reader.done() and self.reader is not asyncio.current_task():
            self.reader.cancel()

    async def close(self) -> None:
        self.fail("the connection to Redis was closed")
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader
        await self.connection.disconnect(nowait=True)


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
        connection: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        await connection.connect()  # type: ignore[no-untyped-call]
        line = self._line = _Line(connection)
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

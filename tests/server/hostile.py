"""Hostile clients, in a process of their own, against a running server (loopback only).

    python -m tests.server.hostile --server ws://127.0.0.1:PORT/ws --seconds 8 LINK...

For ``--seconds`` it does at once, each as fast as the server lets it: sockets that never
speak, WebSocket connections that never say hello, hellos with made-up tokens, the costliest
frames to refuse, a chat flood and a flapping connection from the first LINK's seat, and a
second device of the second LINK's seat that never reads. It prints ``attacking`` once the
attacks have begun, and at the end one JSON line of what it did. Every attack is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import socket
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from clients.client import Client, ClientError, Link
from protocol.codec import encode
from protocol.messages import PROTOCOL_VERSION, Hello

IDLE_SOCKETS = 150
SILENT_WEBSOCKETS = 60
SOURCE = ("127.0.0.2", 0)
"""The attacks come from another loopback address than the server's normal clients
(127.0.0.1), as an attacker's would: the per-address limits are theirs to meet."""


def _connect(url: str, **options: Any) -> Any:
    return connect(url, local_addr=SOURCE, **options)


def _client_from(address: tuple[str, int]) -> None:
    """Make the client library connect from ``address`` too (this process only)."""
    import clients.client

    clients.client.connect = functools.partial(connect, local_addr=address)  # type: ignore[assignment]


def worst_frames() -> list[bytes]:
    """The frames costliest to refuse that fit the frame limit."""
    unknown_keys = msgpack.packb({"type": "ping", **{f"k{i}": 0 for i in range(90_000)}})
    nils = msgpack.packb({"type": [None] * 900_000})
    # {"type": [[[...[nil]...]]]}, 200,000 deep: written byte by byte (no Python recursion).
    nested = b"\x81\xa4type" + b"\x91" * 200_000 + b"\xc0"
    return [unknown_keys, nils, nested]


async def idle_sockets(host: str, port: int, until: float, counts: Counter[str]) -> None:
    """TCP connections that send nothing at all."""
    held = []
    for _ in range(IDLE_SOCKETS):
        with contextlib.suppress(OSError):
            held.append(socket.create_connection((host, port), timeout=2, source_address=SOURCE))
            counts["idle sockets opened"] += 1
    while time.monotonic() < until:
        await asyncio.sleep(0.2)
    for sock in held:
        sock.close()


async def silent_websockets(url: str, until: float, counts: Counter[str]) -> None:
    """WebSocket connections that never say hello (reopened when the server closes them)."""

    async def one() -> None:
        while time.monotonic() < until:
            try:
                async with _connect(url, compression=None, open_timeout=5, close_timeout=1) as ws:
                    counts["silent websockets"] += 1
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.recv(), max(0.1, until - time.monotonic()))
            except (OSError, WebSocketException, TimeoutError):
                counts["silent websockets refused"] += 1
                await asyncio.sleep(0.2)

    await asyncio.gather(*(one() for _ in range(SILENT_WEBSOCKETS)))


async def bad_hellos(url: str, until: float, counts: Counter[str]) -> None:
    attempt = 0
    while time.monotonic() < until:
        try:
            async with _connect(url, compression=None, close_timeout=1) as ws:
                while time.monotonic() < until:
                    attempt += 1
                    await ws.send(encode(Hello(version=PROTOCOL_VERSION, token=f"guess{attempt}")))
                    await ws.recv()
                    counts["bad hellos"] += 1
        except (OSError, WebSocketException):
            await asyncio.sleep(0.1)


async def costly_frames(url: str, until: float, counts: Counter[str]) -> None:
    frames = worst_frames()
    while time.monotonic() < until:
        try:
            async with _connect(url, compression=None, max_size=None, close_timeout=1) as ws:
                while time.monotonic() < until:
                    for frame in frames:
                        await ws.send(frame)
                        await ws.recv()
                        counts["costly frames"] += 1
        except (OSError, WebSocketException):
            await asyncio.sleep(0.1)


async def chat_flood(link: str, until: float, counts: Counter[str]) -> None:
    client = await Client.connect(link, name="hostile chat")
    line = 0
    try:
        while time.monotonic() < until:
            line += 1
            try:
                await client.chat(f"flood {line}")
                counts["chat lines accepted"] += 1
            except ClientError as error:
                counts[f"chat refused: {error.code}"] += 1
                if error.code == "closed":
                    return
    finally:
        await client.close()


async def flapping(link: str, until: float, counts: Counter[str]) -> None:
    client = await Client.connect(link, name="hostile flapping")
    try:
        while time.monotonic() < until:
            try:
                await client.reconnect()
                counts["reconnects"] += 1
            except (ClientError, OSError, WebSocketException) as error:
                counts[f"reconnect refused: {type(error).__name__}"] += 1
                await asyncio.sleep(0.1)
    finally:
        await client.close()


async def never_reads(link: str, until: float, counts: Counter[str]) -> None:
    parsed = Link.parse(link)
    try:
        ws = await _connect(
            parsed.ws_url, compression=None, max_queue=1, max_size=None, close_timeout=0.5
        )
        await ws.send(encode(Hello(version=PROTOCOL_VERSION, token=parsed.token)))
        counts["non-readers"] += 1
        while time.monotonic() < until:
            await asyncio.sleep(0.2)
        ws.transport.abort()
    except (OSError, WebSocketException):
        counts["non-reader refused"] += 1


async def main(arguments: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="ws://HOST:PORT/ws")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument(
        "--only", nargs="*", help="some attacks only: idle silent hellos frames chat reader flap"
    )
    parser.add_argument("links", nargs="*")
    args = parser.parse_args(arguments)
    parts = urlsplit(args.server)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    _client_from(SOURCE)
    until = time.monotonic() + args.seconds
    counts: Counter[str] = Counter()
    chosen = set(args.only or ("idle", "silent", "hellos", "frames", "chat", "reader", "flap"))
    attacks = []
    if "idle" in chosen:
        attacks.append(idle_sockets(host, port, until, counts))
    if "silent" in chosen:
        attacks.append(silent_websockets(args.server, until, counts))
    if "hellos" in chosen:
        attacks.append(bad_hellos(args.server, until, counts))
    if "frames" in chosen:
        attacks += [costly_frames(args.server, until, counts) for _ in range(2)]
    if args.links and "chat" in chosen:
        attacks.append(chat_flood(args.links[0], until, counts))
    if len(args.links) > 1 and "reader" in chosen:
        attacks.append(never_reads(args.links[1], until, counts))
    if len(args.links) > 2 and "flap" in chosen:
        attacks.append(flapping(args.links[2], until, counts))
    running = asyncio.gather(*attacks)
    await asyncio.sleep(0)  # every attack has begun
    print("attacking", flush=True)
    await asyncio.wait_for(running, args.seconds + 30)
    print(json.dumps(dict(counts), sort_keys=True), flush=True)


if __name__ == "__main__":
    asyncio.run(main())

"""The golden transcripts (tests/protocol/golden.py) replayed against today's server.

A version the server still serves but no longer speaks natively gets exactly the frames it
was recorded with; the current version gets them or more, by addition only."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from protocol.messages import PROTOCOL_VERSION
from server.app import Server
from tests.conftest import forget_earlier_robots
from tests.protocol import golden

TRANSCRIPTS = sorted(golden.HERE.glob("v*/*.jsonl"))


def _id(path: Path) -> str:
    return f"{path.parent.name}-{path.stem}"


@pytest_asyncio.fixture
async def quiet_server(redis: Redis) -> AsyncIterator[Server]:
    """:func:`golden.quiet_server`, started on the run's Redis."""
    await forget_earlier_robots(redis)
    server = golden.quiet_server(redis)
    await server.start()
    yield server
    await server.close()


def differences(old: Any, new: Any, additive: bool, path: str = "") -> list[str]:
    """Where ``new`` differs from ``old``: anywhere, or (``additive``) where ``new`` does not
    hold ``old`` (a map may have more keys, a list more items after and between the ones
    kept, in order)."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key, value in old.items():
            if key not in new:
                found.append(f"{path}/{key}: gone")
            else:
                found += differences(value, new[key], additive, f"{path}/{key}")
        if not additive:
            found += [f"{path}/{key}: new" for key in new if key not in old]
        return found
    if isinstance(old, list) and isinstance(new, list):
        if not additive:
            if len(old) != len(new):
                return [f"{path}: {len(old)} items, now {len(new)}"]
            return [
                d
                for i, (o, n) in enumerate(zip(old, new, strict=True))
                for d in differences(o, n, False, f"{path}/{i}")
            ]
        at = 0
        for index, item in enumerate(old):
            while at < len(new) and differences(item, new[at], True):
                at += 1
            if at == len(new):
                return [f"{path}/{index}: not kept ({item!r:.200})"]
            at += 1
        return []
    if type(old) is not type(new) or old != new:
        return [f"{path}: {old!r:.200} became {new!r:.200}"]
    return []


def step_differences(
    recorded: dict[str, Any], replayed: dict[str, Any], additive: bool
) -> list[str]:
    old = recorded.get("frames", {})
    new = replayed.get("frames", {})
    found = []
    for conn in sorted(set(old) | set(new)):
        found += differences(old.get(conn, []), new.get(conn, []), additive, conn)
    return found


@pytest.mark.asyncio
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=_id)
async def test_transcript_replays(quiet_server: Server, path: Path) -> None:
    header, steps = golden.read(path)
    version = header["version"]
    additive = version == PROTOCOL_VERSION

    session = golden.Session(quiet_server.ws_url, version, golden.analyses_logged(quiet_server))
    with golden.drawn_alike():
        try:
            await session.play(steps)
        finally:
            for socket in session.sockets.values():
                await socket.close()
    assert len(session.steps) == len(steps)
    for number, (recorded, replayed) in enumerate(zip(steps, session.steps, strict=True), start=2):
        found = step_differences(recorded, replayed, additive)
        assert not found, (
            f"{path.name} line {number} ({recorded['do']} {recorded['conn']}"
            f" {recorded.get('message', {}).get('type', '')}): " + "; ".join(found[:10])
        )


def test_every_served_version_has_its_transcripts() -> None:
    """Each version the server speaks has a recording of every scenario."""
    from protocol.messages import SUPPORTED_VERSIONS

    for version in SUPPORTED_VERSIONS:
        names = {p.stem for p in golden.HERE.glob(f"v{version}/*.jsonl")}
        assert names == set(golden.SCENARIOS), (version, names)


def test_additive_comparison() -> None:
    """What counts as addition: new keys, new list items; not a changed or lost value."""
    old = {"a": 1, "b": [{"x": 1}, {"y": 2}]}
    assert not differences(old, {"a": 1, "c": 3, "b": [{"x": 1, "z": 0}, {"w": 5}, {"y": 2}]}, True)
    assert differences(old, {"a": 2, "b": [{"x": 1}, {"y": 2}]}, True)
    assert differences(old, {"a": 1, "b": [{"y": 2}, {"x": 1}]}, True)
    assert differences(old, {"a": 1, "b": [{"x": 1}]}, True)
    assert differences(old, {"a": 1, "b": [{"x": 1}, {"y": 2}], "c": 3}, False)
    assert differences({"a": 1}, {"a": 1.0}, True)

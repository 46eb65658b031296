"""Fuzzing the decoder: whatever a frame holds, it is decoded or refused with a named code.

Every generated frame goes to :func:`decode_client` and to :func:`decode_server`. Each either
gives a message that survives a round trip, or raises :class:`ProtocolError` with an
:class:`ErrorCode` and a short, plain message; no other exception may escape. Frames come from
three sources: arbitrary msgpack values, real messages with fields mutated (replaced, removed,
added, nested deep, repeated past the limits), and random or corrupted bytes.

A default run tries a few thousand frames; the suite's long mode (``DUPLICATE_LONG=1``) tries
over 100,000.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from protocol.codec import (
    CLIENT_LIMITS,
    MAX_ERROR_MESSAGE,
    SERVER_LIMITS,
    decode_client,
    decode_server,
    encode,
)
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import ErrorMessage
from tests.protocol.test_codec import CLIENT_EXAMPLES, FIELD_NAMES, KNOWN_TAGS, SERVER_EXAMPLES

LONG = os.environ.get("DUPLICATE_LONG") == "1"
EXAMPLES = 34_000 if LONG else 1_000
"""Frames each test tries: three tests, so over 100,000 in the long mode."""
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
MOST_ERROR_FRAME = 512

Decode = Callable[[bytes], BaseModel]


def check(decode: Decode, data: bytes) -> str:
    """``data`` is decoded into a message that survives a round trip, or refused with a named
    code and a short message; anything else escapes and fails the test. The outcome: the
    message's type, or the error's code."""
    try:
        message = decode(data)
    except ProtocolError as refused:
        error = refused
    else:
        assert decode(encode(message)) == message
        return "decoded"
    assert isinstance(error.code, ErrorCode)
    assert 0 < len(error.message) <= MAX_ERROR_MESSAGE, error.message
    assert error.message.isascii(), error.message
    assert error.message.isprintable(), error.message
    assert error.ref is None or 0 <= error.ref < 2**31
    reply = encode(ErrorMessage(code=error.code, message=error.message, ref=error.ref))
    assert len(reply) < MOST_ERROR_FRAME
    return str(error.code)


def fuzz(name: str, frames: st.SearchStrategy[bytes]) -> None:
    """Check every frame ``frames`` makes, as a client's and as a server's; print the count
    and what became of them as a client's."""
    outcomes: Counter[str] = Counter()

    @FUZZ
    @given(frames)
    def run(data: bytes) -> None:
        outcomes[check(decode_client, data)] += 1
        check(decode_server, data)

    run()
    tried = outcomes.total()
    print(f"\n{name}: {tried:,} frames tried, each as a client's and as a server's; as a client's:")
    print(", ".join(f"{outcome} {count:,}" for outcome, count in outcomes.most_common()))
    assert tried >= EXAMPLES


def pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


# -- arbitrary msgpack values ----------------------------------------------------------------

WORDS = [*KNOWN_TAGS, *FIELD_NAMES, "type", "ref", "SA", "1NT", "XX", "N", "1N", "t2", "live"]
"""Strings the models know, so that generated maps sometimes come close to messages."""

integers = st.integers(min_value=-(2**63), max_value=2**64 - 1)
"""Every integer msgpack holds."""
scalars = (
    st.none()
    | st.booleans()
    | integers
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=20)
    | st.sampled_from(WORDS)
)
keys = st.sampled_from(WORDS) | st.text(max_size=10) | st.binary(max_size=5) | integers
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(keys, children, max_size=6),
    max_leaves=16,
)
maps = st.dictionaries(keys, values, max_size=6) | st.builds(
    lambda tag, fields: {"type": tag, **fields},
    st.sampled_from(KNOWN_TAGS) | values,
    st.dictionaries(keys, values, max_size=4),
)
"""Maps of anything, and maps with a ``type`` (mostly a known one) and fields of anything."""


def test_arbitrary_msgpack_values() -> None:
    fuzz("arbitrary msgpack values", (maps | values).map(pack))


# -- real messages, mutated ------------------------------------------------------------------

FRAMES = [encode(message) for message in [*CLIENT_EXAMPLES, *SERVER_EXAMPLES]]
LIMIT = CLIENT_LIMITS
DEPTHS = st.integers(0, LIMIT.depth + 4) | st.integers(SERVER_LIMITS.depth - 8, SERVER_LIMITS.depth)
"""Around the client's depth limit, and up to the server's (added to a message's own depth)."""
LENGTHS = st.integers(0, LIMIT.entries + 8)


def containers(value: Any) -> list[Any]:
    """Every map and list in ``value``, itself first."""
    found, pending = [], [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict | list):
            found.append(node)
            pending.extend(node.values() if isinstance(node, dict) else node)
    return found


def replace(draw: st.DrawFn, node: Any, new: Any) -> None:
    """Put ``new`` in place of one of the entries of ``node`` (a map or a list)."""
    if isinstance(node, dict):
        if node:
            node[draw(st.sampled_from(sorted(node, key=repr)))] = new
        else:
            node[draw(keys)] = new
    elif node:
        node[draw(st.integers(0, len(node) - 1))] = new
    else:
        node.append(new)


def nest(draw: st.DrawFn, value: Any) -> Any:
    """``value`` inside lists and maps, around the depth limit."""
    for _ in range(draw(DEPTHS)):
        value = [value] if draw(st.booleans()) else {draw(keys): value}
    return value


def bulk(draw: st.DrawFn) -> list[Any]:
    """Lists of lists of nils within the entries limit: from a few values to past the values
    limit (three of the largest make 3,172)."""
    largest = [None] * LIMIT.entries
    return [[largest] * draw(st.integers(0, LIMIT.entries))] * draw(st.integers(0, 3))


@st.composite
def mutated_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A real message with one to four of its fields or entries changed."""
    message: dict[str, Any] = msgpack.unpackb(draw(st.sampled_from(FRAMES)))  # a fresh copy
    for _ in range(draw(st.integers(1, 4))):
        node = draw(st.sampled_from(containers(message)))
        change = draw(st.sampled_from(["replace", "remove", "add", "type", "deep", "wide", "bulk"]))
        if change == "replace":
            replace(draw, node, draw(values))
        elif change == "remove" and node:
            if isinstance(node, dict):
                del node[draw(st.sampled_from(sorted(node, key=repr)))]
            else:
                del node[draw(st.integers(0, len(node) - 1))]
        elif change == "add":
            if isinstance(node, dict):
                node[draw(keys)] = draw(values)
            else:
                node.append(draw(values))
        elif change == "type":
            message["type"] = draw(st.sampled_from(KNOWN_TAGS) | values)
        elif change == "deep":
            replace(draw, node, nest(draw, draw(scalars)))
        elif change == "wide":
            entry = draw(scalars)
            many: Any = [entry] * draw(LENGTHS)
            if draw(st.booleans()):
                many = {f"k{index}": entry for index in range(len(many))}
            replace(draw, node, many)
        elif change == "bulk":
            replace(draw, node, bulk(draw))
    return message


def test_real_messages_with_mutated_fields() -> None:
    fuzz("real messages, mutated", mutated_messages().map(pack))


# -- random and corrupted bytes ----------------------------------------------------------------


@st.composite
def corrupted_frames(draw: st.DrawFn) -> bytes:
    """A real frame with bytes changed, inserted, removed or cut off."""
    data = bytearray(draw(st.sampled_from(FRAMES)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        change = draw(st.sampled_from(["flip", "insert", "remove", "cut"]))
        if change == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif change == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif change == "remove":
            del data[at : at + draw(st.integers(1, 8))]
        elif change == "cut":
            del data[at:]
    return bytes(data)


def test_random_and_corrupted_bytes() -> None:
    fuzz("random and corrupted bytes", st.binary(max_size=512) | corrupted_frames())

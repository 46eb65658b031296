"""The one place msgpack appears: typed messages to binary frames and back.

Decoding is strict: one msgpack map per frame, nothing after it, within the size limit,
validated against the message models. Anything else raises :class:`ProtocolError` with a
named code, so a bad frame can be answered and never changes anything.

>>> from protocol.messages import Ping
>>> decode_client(encode(Ping(ref=7)))
Ping(type='ping', ref=7)
"""

from __future__ import annotations

from typing import Any

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import ClientMessage, ServerMessage

__all__ = ["MAX_CLIENT_FRAME", "MAX_SERVER_FRAME", "decode_client", "decode_server", "encode"]

MAX_CLIENT_FRAME = 1024 * 1024
"""Largest client frame accepted (an organiser's PBN deal file fits); larger is ``too_large``."""
MAX_SERVER_FRAME = 4 * 1024 * 1024
"""Largest server frame a client should expect."""

_CLIENT: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def encode(message: BaseModel) -> bytes:
    """A message as one msgpack map, ready for a binary WebSocket frame."""
    packed: bytes = msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)
    return packed


def _unpack(frame: bytes | str, limit: int) -> dict[str, Any]:
    if isinstance(frame, str):
        raise ProtocolError(ErrorCode.BINARY_ONLY, "send msgpack in binary frames, not text")
    if len(frame) > limit:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"frame of {len(frame)} bytes; the limit is {limit}"
        )
    try:
        value = msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True)
    except msgpack.ExtraData:
        raise ProtocolError(ErrorCode.MALFORMED, "bytes after the message") from None
    except (ValueError, msgpack.UnpackException, TypeError) as error:
        raise ProtocolError(
            ErrorCode.MALFORMED, f"not valid msgpack ({type(error).__name__})"
        ) from None
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.MALFORMED, f"a message is a map, not {type(value).__name__}")
    return value


def _validate(adapter: TypeAdapter[Any], value: dict[str, Any]) -> Any:
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        ref = value.get("ref")
        if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < 2**31:
            ref = None
        first = error.errors()[0]
        if first["type"] == "union_tag_invalid" and len(first["loc"]) == 0:
            message = f"unknown message type {value.get('type')!r}"
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, message, ref) from None
        if first["type"] == "union_tag_not_found":
            message = "a message needs a 'type' field"
            raise ProtocolError(ErrorCode.INVALID_MESSAGE, message, ref) from None
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        message = f"{value.get('type')}: {where}: {first['msg']}"
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, message, ref) from None


def decode_client(frame: bytes | str) -> ClientMessage:
    """A client's frame as a typed message, or :class:`ProtocolError`."""
    result: ClientMessage = _validate(_CLIENT, _unpack(frame, MAX_CLIENT_FRAME))
    return result


def decode_server(frame: bytes | str) -> ServerMessage:
    """A server's frame as a typed message, or :class:`ProtocolError`."""
    result: ServerMessage = _validate(_SERVER, _unpack(frame, MAX_SERVER_FRAME))
    return result


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every message, for client authors in other languages.

    ``client_message`` and ``server_message`` are the two unions. Each is a complete schema
    on its own, with the definitions it uses in its own ``$defs``; the document's top-level
    ``$defs`` holds them all as well, so a ``$ref`` such as ``#/$defs/Hello`` resolves
    whether the whole document or one part is taken as the root. Every ``type`` tag is
    required, as the codec requires it.
    """
    definitions: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    for name, adapter in (("client_message", _CLIENT), ("server_message", _SERVER)):
        part = adapter.json_schema(ref_template="#/$defs/{model}")
        definitions.update(part.pop("$defs", {}))
        parts[name] = part
    for definition in definitions.values():
        tag = definition.get("properties", {}).get("type", {})
        if "const" in tag:
            required = definition.setdefault("required", [])
            if "type" not in required:
                required.insert(0, "type")
    for part in parts.values():
        used = _referenced(part, definitions)
        part["$defs"] = {name: definitions[name] for name in sorted(used)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "duplicate bridge protocol",
        "$defs": dict(sorted(definitions.items())),
        **parts,
    }


def _referenced(schema: Any, definitions: dict[str, Any]) -> set[str]:
    """The names of the definitions ``schema`` refers to, directly or through others."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in found:
                    found.add(name)
                    pending.append(definitions[name])
            pending.extend(value for key, value in node.items() if key != "$defs")
        elif isinstance(node, list):
            pending.extend(node)
    return found

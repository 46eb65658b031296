"""The one place msgpack appears: typed messages to binary frames and back.

Decoding is strict: one msgpack map per frame, nothing after it, within the size limit,
validated against the message models. Anything else raises :class:`ProtocolError` with a
named code, so a bad frame can be answered and never changes anything.

Refusing a frame costs little whatever it holds. Before msgpack builds anything, the
frame's headers are read to bound its shape (:class:`FrameLimits`: entries in any map or
list, nesting depth, values in all); msgpack's own length limits say the same; a known
``type`` is checked before the models see the rest; and an error's message echoes at most
a short, escaped prefix of the input (:data:`MAX_ERROR_MESSAGE` characters, ASCII).

>>> from protocol.messages import Ping
>>> decode_client(encode(Ping(ref=7)))
Ping(type='ping', ref=7)
>>> decode_client(b"\\x81\\xa4type" + b"\\x91" * 20 + b"\\xc0")
Traceback (most recent call last):
...
protocol.errors.ProtocolError: malformed: nested deeper than 8 levels
"""

from __future__ import annotations

import reprlib
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import ClientMessage, Event, ServerMessage

__all__ = [
    "CLIENT_LIMITS",
    "MAX_CLIENT_FRAME",
    "MAX_ERROR_MESSAGE",
    "MAX_SERVER_FRAME",
    "SERVER_LIMITS",
    "FrameLimits",
    "decode_client",
    "decode_server",
    "encode",
]

MAX_CLIENT_FRAME = 1024 * 1024
"""Largest client frame accepted (an organiser's PBN deal file fits); larger is ``too_large``."""
MAX_SERVER_FRAME = 4 * 1024 * 1024
"""Largest server frame a client should expect."""
MAX_ERROR_MESSAGE = 200
"""Longest ``message`` of a refusal from the codec, in characters (all ASCII)."""


@dataclass(frozen=True)
class FrameLimits:
    """The shape a frame may have, checked on its bytes before anything is built from it.

    Every limit bounds the work of refusing a frame, whatever its content: ``size`` bytes in
    all, ``entries`` in any one map or list (the message map's fields included), ``depth``
    levels of nested maps and lists (the message map is level 1), ``values`` in all (every
    key, value and element, the message map included).
    """

    size: int
    entries: int
    depth: int
    values: int


CLIENT_LIMITS = FrameLimits(size=MAX_CLIENT_FRAME, entries=32, depth=8, values=2_000)
"""What a client frame may hold. No client message has more than 15 fields or a list or map
of more than 8 entries, nests deeper than 2 (``create_match``'s ``names``) or holds more than
about 60 values (a PBN deal file is one string). Reading 2,000 values to refuse a frame costs
about 0.3 ms, so that even a connection's whole queue of such frames, handled back to back,
holds up the server for a few milliseconds only."""
SERVER_LIMITS = FrameLimits(
    size=MAX_SERVER_FRAME, entries=MAX_SERVER_FRAME, depth=32, values=MAX_SERVER_FRAME
)
"""What a server frame may hold: only its size and depth are bounded (a view nests 8 deep),
so that a client decodes whatever a trusted server sends and never recurses without end."""

_CLIENT: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def _tags(union: Any) -> frozenset[str]:
    """The ``type`` tags of a discriminated union of messages (``Annotated[A | B, ...]``)."""
    members = typing.get_args(typing.get_args(union)[0])
    return frozenset(member.model_fields["type"].default for member in members)


_CLIENT_TAGS = _tags(ClientMessage)
_SERVER_TAGS = _tags(ServerMessage)
_EVENT_TAGS = _tags(Event)
_ERROR_CODES = frozenset(code.value for code in ErrorCode)


def encode(message: BaseModel, *, exclude: set[str] | None = None) -> bytes:
    """A message as one msgpack map, ready for a binary WebSocket frame (without the
    fields in ``exclude``: an older client's decoder may not know them)."""
    packed: bytes = msgpack.packb(
        message.model_dump(mode="json", exclude=exclude), use_bin_type=True
    )
    return packed


def decode_client(frame: bytes | str) -> ClientMessage:
    """A client's frame as a typed message, or :class:`ProtocolError`."""
    result: ClientMessage = _decode(frame, CLIENT_LIMITS, _CLIENT_TAGS, _CLIENT)
    return result


def decode_server(frame: bytes | str) -> ServerMessage:
    """A server's frame as a typed message, or :class:`ProtocolError` (``unknown_type``
    for a message this code does not know, which a client skips).

    As a client must (SPEC.md, "Versions"), it takes what a newer server of the same
    version may add, and leaves out what it does not know: fields (the models ignore
    them), an update's events of unknown types, and an error code it does not know,
    which it reads as ``internal`` with the code named in the message."""
    result: ServerMessage = _decode(frame, SERVER_LIMITS, _SERVER_TAGS, _SERVER, _known)
    return result


def _known(value: dict[str, Any]) -> dict[str, Any]:
    """A server message with what this code does not know taken out (:func:`decode_server`)."""
    if value["type"] == "update" and isinstance(value.get("events"), list):
        events = value["events"]
        # An event with a type this code does not know is left out; one without a type
        # that can be known (none, a list...) stays, for the model to refuse.
        known = [
            e
            for e in events
            if not isinstance(e, dict)
            or not isinstance(e.get("type"), str)
            or e["type"] in _EVENT_TAGS
        ]
        if len(known) != len(events):
            value = {**value, "events": known}
    elif value["type"] == "error":
        code = value.get("code")
        if isinstance(code, str) and code not in _ERROR_CODES:
            text = value.get("message")
            text = f"{code}: {text}" if isinstance(text, str) else text
            value = {**value, "code": ErrorCode.INTERNAL.value, "message": text}
    return value


def _decode(
    frame: bytes | str,
    limits: FrameLimits,
    tags: frozenset[str],
    adapter: TypeAdapter[Any],
    known: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Any:
    value = _unpack(frame, limits)
    ref = _ref(value)
    if "type" not in value:
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "a message needs a 'type' field", ref)
    tag = value["type"]
    if not isinstance(tag, str) or tag not in tags:
        # Refused before the models see the rest: whatever else the map holds costs nothing.
        message = _clip(f"unknown message type {_echo(tag)}")
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, message, ref)
    for key in value:
        if not isinstance(key, str):
            message = f"{tag}: field names are strings, not {_echo(key)}"
            raise ProtocolError(ErrorCode.INVALID_MESSAGE, _clip(message), ref)
    if known is not None:
        value = known(value)
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        first = error.errors(include_url=False, include_context=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        message = f"{tag}: {where}: {first['msg']}"
        # The field it concerns, for a form to show the message beside (not a field the
        # message has no room for: that is the sender's mistake, not the form's).
        field = first["loc"][1] if len(first["loc"]) > 1 else None
        if not isinstance(field, str) or first["type"] == "extra_forbidden":
            field = None
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, _clip(message), ref, field=field) from None


def _unpack(frame: bytes | str, limits: FrameLimits) -> dict[str, Any]:
    if isinstance(frame, str):
        raise ProtocolError(ErrorCode.BINARY_ONLY, "send msgpack in binary frames, not text")
    if len(frame) > limits.size:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"frame of {len(frame)} bytes; the limit is {limits.size}"
        )
    _check_shape(frame, limits)
    try:
        # The same bounds again, as msgpack's own: no list or map it builds is longer.
        value = msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=limits.size,
            max_bin_len=limits.size,
            max_ext_len=limits.size,
            max_array_len=limits.entries,
            max_map_len=limits.entries,
        )
    except msgpack.ExtraData:
        raise ProtocolError(ErrorCode.MALFORMED, "bytes after the message") from None
    except (ValueError, msgpack.UnpackException, TypeError) as error:
        raise ProtocolError(
            ErrorCode.MALFORMED, f"not valid msgpack ({type(error).__name__})"
        ) from None
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.MALFORMED, f"a message is a map, not {type(value).__name__}")
    return value


def _ref(value: dict[Any, Any]) -> int | None:
    """The map's ``ref`` when it is one a message could carry, so an error can echo it."""
    ref = value.get("ref")
    if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < 2**31:
        return None
    return ref


# -- the shape of a frame, from its headers ---------------------------------------------------

_SCALAR, _ARRAY, _MAP, _NEVER = range(4)


def _formats() -> tuple[tuple[int, int, int], ...]:
    """How a msgpack value starting with each byte is read: ``(kind, inline, width)``.

    A scalar takes ``inline`` bytes, plus the length held in the next ``width`` bytes; an
    array or map holds ``inline`` entries, plus the count held in the next ``width`` bytes.
    """
    table = [(_NEVER, 0, 0)] * 256  # 0xc1 is never used
    for byte in range(0x00, 0x80):
        table[byte] = (_SCALAR, 0, 0)  # positive fixint
    for byte in range(0x80, 0x90):
        table[byte] = (_MAP, byte & 0x0F, 0)
    for byte in range(0x90, 0xA0):
        table[byte] = (_ARRAY, byte & 0x0F, 0)
    for byte in range(0xA0, 0xC0):
        table[byte] = (_SCALAR, byte & 0x1F, 0)  # fixstr
    for byte in range(0xE0, 0x100):
        table[byte] = (_SCALAR, 0, 0)  # negative fixint
    # nil, false, true; float 32, 64; uint 8-64; int 8-64; fixext 1-16 (with its type byte)
    fixed = [0xC0, 0xC2, 0xC3, 0xCA, 0xCB, *range(0xCC, 0xD4), *range(0xD4, 0xD9)]
    sizes = [0, 0, 0, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 3, 5, 9, 17]
    for byte, size in zip(fixed, sizes, strict=True):
        table[byte] = (_SCALAR, size, 0)
    for first, kind, inline in ((0xC4, _SCALAR, 0), (0xD9, _SCALAR, 0), (0xC7, _SCALAR, 1)):
        for step, width in enumerate((1, 2, 4)):  # bin, str, ext (with its type byte) 8-32
            table[first + step] = (kind, inline, width)
    for byte, kind, width in ((0xDC, _ARRAY, 2), (0xDD, _ARRAY, 4), (0xDE, _MAP, 2)):
        table[byte] = (kind, 0, width)
    table[0xDF] = (_MAP, 0, 4)
    return tuple(table)


_FORMATS = _formats()


def _check_shape(frame: bytes, limits: FrameLimits) -> None:
    """Refuse a frame over ``limits``, reading only headers: no value is built, strings are
    skipped by their length, and it stops at the first limit crossed. Broken msgpack stops
    the reading too: msgpack itself then says what is wrong, having built little."""
    formats, most_entries, most_values = _FORMATS, limits.entries, limits.values
    end = len(frame)
    position = 0
    values = 0
    pending: list[int] = []  # the values still to read in each open map or list
    while position < end:
        kind, length, width = formats[frame[position]]
        position += 1
        if width:
            length += int.from_bytes(frame[position : position + width], "big")
            position += width
        values += 1
        if values > most_values:
            _refuse_shape(frame, f"more than {most_values} values in one message")
        if kind == _SCALAR:
            position += length
        elif kind == _NEVER:
            return
        else:
            if length > most_entries:
                if not pending:
                    _refuse_shape(frame, f"{length} fields; a message has at most {most_entries}")
                noun = "map" if kind == _MAP else "list"
                _refuse_shape(frame, f"a {noun} of {length}; at most {most_entries} in a message")
            if len(pending) >= limits.depth:
                message = f"nested deeper than {limits.depth} levels"
                raise ProtocolError(ErrorCode.MALFORMED, message)
            if length:
                pending.append(2 * length if kind == _MAP else length)
                continue
        # A value is complete, and with it every map or list it was the last of.
        while pending:
            pending[-1] -= 1
            if pending[-1]:
                break
            pending.pop()
        else:
            return  # the whole message: msgpack judges any bytes after it


def _refuse_shape(frame: bytes, why: str) -> typing.NoReturn:
    """A frame whose shape is over the limits: ``invalid_message`` for a map, the only thing
    that can be a message, and ``malformed`` for anything else."""
    if _FORMATS[frame[0]][0] != _MAP:
        raise ProtocolError(ErrorCode.MALFORMED, "a message is a map, not list")
    raise ProtocolError(ErrorCode.INVALID_MESSAGE, why)


# -- what an error says of the input ----------------------------------------------------------


class _Brief(reprlib.Repr):
    """``repr`` cut short at every level: two levels, four entries, strings and bytes to their
    first 40 characters (then ``...``)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 2
        self.maxlist = self.maxdict = 4
        self.maxstring = self.maxother = self.maxlong = 40

    def repr_str(self, value: str, level: int) -> str:
        return self._prefix(value)

    def repr_bytes(self, value: bytes, level: int) -> str:
        return self._prefix(value)

    def _prefix(self, value: str | bytes) -> str:
        text = repr(value[: self.maxstring])
        return text if len(value) <= self.maxstring else text + "..."

    def repr_instance(self, value: object, level: int) -> str:
        if isinstance(value, msgpack.ExtType):  # its data may be a whole frame long
            return f"ExtType({value.code}, {self.repr_bytes(value.data, level)})"
        return super().repr_instance(value, level)


_BRIEF = _Brief()
_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}


def _echo(value: object) -> str:
    """A short prefix of an input value's ``repr``, for an error's message (then clipped)."""
    return _BRIEF.repr(value)


def _clip(text: str) -> str:
    """``text`` in at most :data:`MAX_ERROR_MESSAGE` printable ASCII characters: whatever of
    the input it holds can neither bloat an error frame nor play tricks on a screen."""
    head = text[: MAX_ERROR_MESSAGE + 1].translate(_CONTROLS)
    safe = head.encode("ascii", "backslashreplace").decode("ascii")
    if len(safe) <= MAX_ERROR_MESSAGE and len(text) <= MAX_ERROR_MESSAGE:
        return safe
    return safe[: MAX_ERROR_MESSAGE - 3] + "..."


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

"""The published contract: protocol/schema.json, `duplicate protocol-schema`, and SPEC.md.

The committed schema must be exactly what the models produce, the command must print it,
and every example message in SPEC.md must decode with the protocol's own codec.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import jsonschema
import msgpack
import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from protocol.codec import _referenced, decode_client, decode_server, json_schema
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    ClientMessage,
    Event,
    PlayerView,
    ServerMessage,
    Update,
    View,
    WatchView,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "protocol" / "schema.json"
SPEC_FILE = ROOT / "protocol" / "SPEC.md"
REGENERATE = "python -m duplicate protocol-schema > protocol/schema.json"


def union_members(union: Any) -> list[type[BaseModel]]:
    """The models of a discriminated union such as ``ClientMessage``."""
    inner = typing.get_args(union)[0]
    assert typing.get_origin(inner) in (typing.Union, types.UnionType), union
    return list(typing.get_args(inner))


def tags(union: Any) -> set[str]:
    """The ``type`` tags of a union's models."""
    return {m.model_fields["type"].default for m in union_members(union)}


CLIENT_TAGS = tags(ClientMessage)
SERVER_TAGS = tags(ServerMessage)


def run_schema_command() -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "duplicate", "protocol-schema"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


# -- the committed schema and the command ---------------------------------------------------


class TestSchemaFile:
    def test_committed_schema_is_the_models_schema(self) -> None:
        committed = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
        current = json.loads(json.dumps(json_schema()))
        assert committed == current, (
            f"protocol/schema.json is out of date with protocol/messages.py; regenerate it: "
            f"{REGENERATE}"
        )

    def test_command_prints_the_schema(self) -> None:
        result = run_schema_command()
        assert (result.returncode, result.stderr) == (0, "")
        assert json.loads(result.stdout) == json.loads(json.dumps(json_schema()))

    def test_committed_file_is_the_command_output_byte_for_byte(self) -> None:
        result = run_schema_command()
        assert SCHEMA_FILE.read_text(encoding="utf-8") == result.stdout, (
            f"protocol/schema.json differs from the command's output; regenerate it: {REGENERATE}"
        )

    def test_shape(self) -> None:
        schema = json_schema()
        assert set(schema) == {"$schema", "title", "$defs", "client_message", "server_message"}
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


class TestSchemaParts:
    @pytest.mark.parametrize(
        ("part", "expected"),
        [("client_message", CLIENT_TAGS), ("server_message", SERVER_TAGS)],
    )
    def test_discriminator_maps_exactly_the_union_tags(self, part: str, expected: set[str]) -> None:
        schema = json_schema()[part]
        assert schema["discriminator"]["propertyName"] == "type"
        assert set(schema["discriminator"]["mapping"]) == expected

    @pytest.mark.parametrize(
        ("part", "expected"),
        [("client_message", CLIENT_TAGS), ("server_message", SERVER_TAGS)],
    )
    def test_one_of_lists_exactly_the_union_members(self, part: str, expected: set[str]) -> None:
        schema = json_schema()[part]
        definitions = json_schema()["$defs"]
        listed = [definitions[ref["$ref"].removeprefix("#/$defs/")] for ref in schema["oneOf"]]
        assert [d["properties"]["type"]["const"] for d in listed] == [
            m.model_fields["type"].default
            for m in union_members(ClientMessage if part == "client_message" else ServerMessage)
        ]
        assert {d["properties"]["type"]["const"] for d in listed} == expected
        for tag, target in schema["discriminator"]["mapping"].items():
            definition = definitions[target.removeprefix("#/$defs/")]
            assert definition["properties"]["type"]["const"] == tag

    def test_client_messages_are_closed_and_server_messages_open(self) -> None:
        """Version 7's rule: the server refuses a field it does not know (a typo is an error,
        not an action half done); a client ignores one (a newer server of the same version
        may add optional fields), so the schema leaves every server object open."""
        schema = json_schema()
        definitions = schema["$defs"]
        client = _referenced(schema["client_message"], definitions)
        server = _referenced(schema["server_message"], definitions)
        assert not client & server
        for name in client:
            if definitions[name].get("type") == "object":
                assert definitions[name].get("additionalProperties") is False, name
        for name in server:
            assert "additionalProperties" not in definitions[name] or isinstance(
                definitions[name]["additionalProperties"], dict
            ), name
        assert {"Update", "BoardView", "Welcome", "ErrorMessage"} <= server

    def test_error_codes_are_listed(self) -> None:
        codes = json_schema()["$defs"]["ErrorCode"]["enum"]
        assert codes == [code.value for code in ErrorCode]

    def test_type_is_required_by_every_message(self) -> None:
        for part in ("client_message", "server_message"):
            schema = json_schema()[part]
            for target in schema["discriminator"]["mapping"].values():
                definition = json_schema()["$defs"][target.removeprefix("#/$defs/")]
                assert "type" in definition.get("required", []), target

    @pytest.mark.parametrize("part", ["client_message", "server_message"])
    def test_each_part_is_a_root_schema_of_its_own(self, part: str) -> None:
        # A code generator or validator may take one part as the root: its refs resolve there.
        schema = json.loads(json.dumps(json_schema()[part]))
        jsonschema.Draft202012Validator.check_schema(schema)
        for pointer in re.findall(r'"\$ref": "#/([^"]*)"', json.dumps(schema)):
            node: Any = schema
            for step in pointer.split("/"):
                assert step in node, (part, pointer)
                node = node[step]

    def test_refs_resolve_from_the_document_root(self) -> None:
        document = json.loads(json.dumps(json_schema()))
        refs = re.findall(r'"\$ref": "#/([^"]*)"', json.dumps(document))
        assert refs
        for pointer in refs:
            node: Any = document
            for part in pointer.split("/"):
                assert isinstance(node, dict), pointer
                assert part in node, pointer
                node = node[part]


# -- the examples in SPEC.md ------------------------------------------------------------------

FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


def spec_blocks(info: str) -> list[tuple[int, str]]:
    """(line number, text) of every fenced block in SPEC.md with this info string."""
    text = SPEC_FILE.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start()) + 1, match.group("body"))
        for match in FENCE.finditer(text)
        if match.group("info").strip() == info
    ]


MESSAGES = spec_blocks("json message")
EXCERPTS = spec_blocks("json excerpt")
UPDATES_WITH_CHANGES = [
    (line, body)
    for line, body in MESSAGES + EXCERPTS
    if json.loads(body).get("type") == "update" and json.loads(body).get("changes")
]
"""The update examples that carry changes (some of them excerpts: a change may be cut)."""


def decode_example(value: Any) -> BaseModel:
    """An example as the codec decodes it: a client message, else a server message."""
    frame = msgpack.packb(value, use_bin_type=True)
    try:
        return decode_client(frame)
    except ProtocolError as client_error:
        try:
            return decode_server(frame)
        except ProtocolError as server_error:
            raise AssertionError(
                f"neither a client message ({client_error}) nor a server message ({server_error})"
            ) from None


def known_models() -> dict[str, type[BaseModel]]:
    return {
        m.model_fields["type"].default: m
        for m in union_members(ClientMessage) + union_members(ServerMessage)
    }


def _events_in(value: dict[str, Any]) -> list[Event]:
    """The events of an update example (or excerpt), validated on their own."""
    if value.get("type") != "update":
        return []
    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    return [adapter.validate_python(event) for event in value["events"]]


def check_fields(model: type[BaseModel], value: dict[str, Any]) -> None:
    """Every key of an excerpt (but the "..." marking left-out fields) is a field of the model,
    and every complete nested map or list validates."""
    fields = model.model_fields
    for key, item in value.items():
        if key == "...":
            continue
        assert key in fields, f"{model.__name__} has no field {key!r}"
        if isinstance(item, dict) and "..." in item:
            check_fields(_nested_model(model, key, item), item)
        elif isinstance(item, list) and any(isinstance(x, dict) and "..." in x for x in item):
            for element in item:
                check_fields(_nested_model(model, key, element), element)
        else:
            _validate_field(model, key, item)


def _nested_model(model: type[BaseModel], key: str, item: dict[str, Any]) -> type[BaseModel]:
    candidates = [
        m
        for m in _models_in(model.model_fields[key].annotation)
        if "type" not in m.model_fields or m.model_fields["type"].default == item.get("type")
    ]
    assert len(candidates) == 1, (model.__name__, key, candidates)
    return candidates[0]


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _validate_field(model: type[BaseModel], key: str, item: Any) -> None:
    """A complete field value of an excerpt validates as that field of the model, as it
    would on the wire (strictly, from JSON: an error code is a string there)."""
    field = model.model_fields[key]
    annotation: Any = field.annotation
    if field.metadata:
        annotation = typing.Annotated[(annotation, *field.metadata)]
    TypeAdapter(annotation).validate_json(json.dumps(item), strict=True)


PLAYER_ONLY = set(PlayerView.model_fields) - set(WatchView.model_fields)
WATCH_ONLY = set(WatchView.model_fields) - set(PlayerView.model_fields)


def _view_of_change(path: str) -> str:
    """Whose view a change's path is into: ``player_view``, ``watch_view`` or ``either``."""
    field = path.split("/")[1]
    if field in PLAYER_ONLY:
        return "player_view"
    if field in WATCH_ONLY:
        return "watch_view"
    return "either"


def _unescape(token: str) -> str:
    """One JSON Pointer reference token, unescaped (RFC 6901)."""
    return token.replace("~1", "/").replace("~0", "~")


def _pointed(annotation: Any, tokens: list[str]) -> Any:
    """The type at the end of a JSON Pointer's ``tokens`` from ``annotation`` (a model, a
    list, a map, an optional of one of them). Raises LookupError where there is no such
    place."""
    if not tokens:
        return annotation
    token, rest = tokens[0], tokens[1:]
    if typing.get_origin(annotation) is typing.Annotated:
        return _pointed(typing.get_args(annotation)[0], tokens)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(token)
        if field is None:
            raise LookupError(f"{annotation.__name__} has no field {token!r}")
        # The annotation as the model's module reads it: pydantic 2.14 may still hold a
        # forward reference ("FaceDownLead | None") in ``field.annotation`` when the model
        # was built before the names it refers to were (which test ran first decides).
        inner: Any = typing.get_type_hints(annotation, include_extras=True).get(
            token, field.annotation
        )
        if field.metadata:
            inner = typing.Annotated[(inner, *field.metadata)]
        return _pointed(inner, rest)
    origin = typing.get_origin(annotation)
    if origin is list:
        if not token.isdigit():
            raise LookupError(f"{token!r} is not a list index")
        return _pointed(typing.get_args(annotation)[0], rest)
    if origin is dict:
        return _pointed(typing.get_args(annotation)[1], rest)
    if origin in (typing.Union, types.UnionType):
        wrong = []
        for member in typing.get_args(annotation):
            if member is not type(None):
                try:
                    return _pointed(member, tokens)
                except LookupError as error:
                    wrong.append(str(error))
        raise LookupError("; ".join(wrong))
    raise LookupError(f"{token!r} leads into {annotation!r}, which has no parts")


class TestSpecExamples:
    def test_there_are_examples(self) -> None:
        assert len(MESSAGES) >= 20
        assert EXCERPTS

    @pytest.mark.parametrize(("line", "body"), MESSAGES, ids=[f"line {n}" for n, _ in MESSAGES])
    def test_example_message_is_valid(self, line: int, body: str) -> None:
        value = json.loads(body)
        assert isinstance(value, dict)
        assert value.get("type") in CLIENT_TAGS | SERVER_TAGS, value.get("type")
        message = decode_example(value)
        assert message.type == value["type"]  # type: ignore[attr-defined]
        # Examples are shown as the server and the client library send them: every field
        # (but the versions and heartbeat of a hello from an older client, which it does not
        # send, the versions of an error but unsupported_version, an error's field when it
        # names none and a welcome's event_id but to an event's results link, which the
        # server leaves out).
        dumped = message.model_dump(mode="json")
        if value["type"] in ("hello", "error") and "versions" not in value:
            assert dumped.pop("versions") is None
        if value["type"] == "error" and "field" not in value:
            assert dumped.pop("field") is None  # left out unless the error names a field
        if value["type"] == "hello" and "heartbeat" not in value:
            assert dumped.pop("heartbeat") is False
        if value["type"] == "welcome" and "event_id" not in value:
            assert dumped.pop("event_id") is None  # an event's results link's only
        assert dumped == value

    @pytest.mark.parametrize(("line", "body"), MESSAGES, ids=[f"line {n}" for n, _ in MESSAGES])
    def test_example_message_passes_a_json_schema_validator(self, line: int, body: str) -> None:
        value = json.loads(body)
        part = "client_message" if value["type"] in CLIENT_TAGS else "server_message"
        # The part as the root, and the whole file as the root (pointing at the part).
        whole = {**json_schema(), "$ref": f"#/{part}"}
        for root in (json_schema()[part], whole):
            jsonschema.Draft202012Validator(json.loads(json.dumps(root))).validate(value)

    def test_every_message_type_has_an_example(self) -> None:
        shown = {json.loads(body)["type"] for _, body in MESSAGES}
        assert shown >= CLIENT_TAGS | SERVER_TAGS, (CLIENT_TAGS | SERVER_TAGS) - shown

    def test_every_event_appears_in_an_example(self) -> None:
        events = {
            event.type for _, body in MESSAGES + EXCERPTS for event in _events_in(json.loads(body))
        }
        assert events == {m.model_fields["type"].default for m in union_members(Event)}

    @pytest.mark.parametrize(("line", "body"), EXCERPTS, ids=[f"line {n}" for n, _ in EXCERPTS])
    def test_excerpt_names_only_real_fields(self, line: int, body: str) -> None:
        value = json.loads(body)
        model = known_models()[value["type"]]
        check_fields(model, value)

    def test_every_error_code_is_documented(self) -> None:
        text = SPEC_FILE.read_text(encoding="utf-8")
        for code in ErrorCode:
            assert f"| `{code.value}` |" in text, code

    def test_every_message_type_has_a_section(self) -> None:
        text = SPEC_FILE.read_text(encoding="utf-8")
        for tag in CLIENT_TAGS | SERVER_TAGS:
            assert f"### `{tag}`" in text, tag

    def test_update_examples_show_both_views(self) -> None:
        # Whole views (snapshots) of both kinds, and updates carrying the changes of both.
        whole: set[str] = set()
        changed: set[str] = set()
        for _, body in MESSAGES:
            message = decode_example(json.loads(body))
            if isinstance(message, Update):
                if message.view is not None:
                    whole.add(message.view.type)
                changed |= {_view_of_change(change.path) for change in message.changes}
        assert whole == {"player_view", "watch_view"}
        assert changed >= {"player_view", "watch_view"}

    @pytest.mark.parametrize(
        ("line", "body"), UPDATES_WITH_CHANGES, ids=[f"line {n}" for n, _ in UPDATES_WITH_CHANGES]
    )
    def test_changes_fit_the_view(self, line: int, body: str) -> None:
        # Each change's path leads through the fields of a view, and its value validates
        # as what is there (the view before it is not in the document: it cannot be applied).
        changes = [c for c in json.loads(body)["changes"] if "..." not in c]
        kinds = {_view_of_change(c["path"]) for c in changes} - {"either"}
        assert len(kinds) <= 1, kinds  # one viewer's changes: a player's or a watcher's
        views = [
            m for m in union_members(View) if not kinds or m.model_fields["type"].default in kinds
        ]
        for change in changes:
            assert change["op"] in ("add", "replace"), change
            tokens = [_unescape(t) for t in change["path"].split("/")[1:]]
            errors = []
            for view in views:
                try:
                    TypeAdapter(_pointed(view, tokens)).validate_json(
                        json.dumps(change["value"]), strict=True
                    )
                except (LookupError, ValidationError) as wrong:
                    errors.append(f"{view.__name__}: {wrong}")
            assert len(errors) < len(views), (change, errors)


# -- where the examples come from -------------------------------------------------------------

RECORDING = ROOT / "tests" / "protocol" / "golden" / "spec.jsonl"
"""The frames of ``python -m tests.protocol.record_session tests/protocol/golden/spec.jsonl``:
SPEC.md's stories, recorded from a real server with real clients."""
_KINDS = [
    (re.compile(r"\bos_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"), "<session>"),
    (re.compile(r"\bev_[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])"), "<results>"),
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])"), "<sha256>"),
    (re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])"), "<token>"),
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])"), "<match>"),
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{8}-\d+"), "<action>"),
    (re.compile(r"127\.0\.0\.1:\d+"), "<host>"),
    (re.compile(r"\b20\d\d[.-][01]\d[.-][0-3]\d\b"), "<date>"),
]


def _kinds(value: Any) -> Any:
    """``value`` with what differs from run to run (tokens, match and action ids, digests,
    moments, the server's port, dates) named by its kind only; ``versions``, ``field`` and
    ``event_id`` left out where they are null (a hello, error or welcome that does not carry
    them: the server leaves them out)."""
    if isinstance(value, dict):
        return {
            k: _kinds(v)
            for k, v in value.items()
            if not (k in ("versions", "field", "event_id") and v is None)
        }
    if isinstance(value, list):
        return [_kinds(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and 1.5e12 <= value < 4e12:
        return "<ms>"
    if isinstance(value, str):
        for pattern, kind in _KINDS:
            value = pattern.sub(kind, value)
    return value


def _recorded() -> set[str]:
    frames = set()
    for line in RECORDING.read_text(encoding="utf-8").splitlines():
        frames.add(json.dumps(_kinds(json.loads(line)["frame"]), sort_keys=True))
    return frames


@pytest.mark.parametrize(("line", "body"), MESSAGES, ids=[f"line {n}" for n, _ in MESSAGES])
def test_example_message_comes_from_the_recording(line: int, body: str) -> None:
    """Every complete message SPEC.md shows was sent or received in the recorded stories
    (up to what differs from run to run): none is written by hand."""
    assert json.dumps(_kinds(json.loads(body)), sort_keys=True) in RECORDED, (
        f"SPEC.md line {line}: not in {RECORDING.name}; take it from a new recording"
    )


RECORDED = _recorded() if RECORDING.exists() else set()

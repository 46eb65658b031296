"""Older protocol versions, served at the connection's edge.

The server thinks and builds its frames in the current version only. A connection that
speaks an older version the server still serves gets each frame turned into that
version's shape here, and its messages checked against that version here, so that the
views, the rules and the store never know which version a client speaks.

Each older version is known by its JSON Schema, frozen when the version was replaced
(``protocol/schema-v6.json`` is version 6's ``schema.json`` as it was last published).
Within a version the protocol only grows (a new optional field, event, message or change
path: SPEC.md, "Versions"), and what the current version says in the older version's
words means the same, so turning a frame into an older version is taking away what that
version did not have:

- keys of a map that the older schema does not name (a model's fields), at any depth, and
  values of a list or a map that are not among the older schema's named values (an
  action it did not offer, a claim's status it did not have);
- events whose type it does not know (an update keeps the others), and frames whose type
  it does not know (not sent at all);
- changes (JSON Patch operations) whose path goes through a key it does not name, and
  what it does not name inside the value of the others (the path is followed through the
  schema of the connection's view, a player's or a watcher's).

A later version that renames or changes something (which only a new version may do)
adds here what turns its frames back into the older shape. Version 7 needs nothing of the
kind: it added to version 6 and made rules of what version 6 left unsaid.

>>> frame = {"type": "welcome", "version": 6, "versions": [6, 7], "role": "organiser",
...          "match_id": None, "player": None, "table": None, "seat": None, "seq": 0}
>>> sorted(Older(6).frame(frame, "player_view"))
['match_id', 'player', 'role', 'seat', 'seq', 'table', 'type', 'version']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import msgpack
from pydantic import BaseModel

__all__ = ["OLDER", "Older", "older"]

HERE = Path(__file__).resolve().parent
OLDER = (6,)
"""The older versions the server serves, each by its frozen schema."""

_DROP = object()
"""What :meth:`Older._prune` returns for a value the older version has no room for."""


class Older:
    """One older version: its frozen schema, and frames turned into it."""

    def __init__(self, version: int) -> None:
        self.version = version
        schema = json.loads((HERE / f"schema-v{version}.json").read_text())
        self.defs: dict[str, Any] = schema["$defs"]
        self.server: dict[str, Any] = schema["server_message"]
        self.client: dict[str, Any] = schema["client_message"]
        self._memo: dict[tuple[bytes, str], bytes | None] = {}

    # -- frames out -------------------------------------------------------------------

    def encoded(self, frame: bytes, view: str) -> bytes | None:
        """A frame of the current version (msgpack) as this version's frame for a viewer
        whose view is of type ``view`` (``"player_view"`` or ``"watch_view"``); None: this
        version has no such frame. A frame shared by many viewers is turned once (the last
        few are remembered)."""
        key = (frame, view)
        if key in self._memo:
            return self._memo[key]
        turned = self.frame(msgpack.unpackb(frame), view)
        result = None if turned is None else msgpack.packb(turned, use_bin_type=True)
        if len(self._memo) >= 64:
            self._memo.pop(next(iter(self._memo)))
        self._memo[key] = result
        return result

    def frame(self, frame: dict[str, Any], view: str) -> dict[str, Any] | None:
        """:meth:`encoded` on plain data."""
        pruned = self._prune(frame, self.server)
        if pruned is _DROP:
            return None
        assert isinstance(pruned, dict)
        if frame.get("type") == "update" and frame.get("changes"):
            root = {"$ref": f"#/$defs/{_DEFS[view]}"}
            kept = []
            for change in frame["changes"]:
                target = self._at(root, change["path"])
                if target is None:
                    continue
                value = self._prune(change["value"], target)
                if value is not _DROP:
                    kept.append({**change, "value": value})
            pruned["changes"] = kept
        return pruned

    def _resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in schema:
            schema = self.defs[schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def _prune(self, value: Any, schema: Mapping[str, Any]) -> Any:
        schema = self._resolve(schema)
        if "discriminator" in schema and isinstance(value, dict):
            mapping = schema["discriminator"]["mapping"]
            tag = value.get(schema["discriminator"]["propertyName"])
            if tag not in mapping:
                return _DROP
            return self._prune(value, {"$ref": mapping[tag]})
        branches = schema.get("anyOf") or schema.get("oneOf")
        if branches is not None:
            if value is None:
                return None
            return self._prune(value, self._branch(value, branches))
        if "enum" in schema and value not in schema["enum"]:
            return _DROP
        if isinstance(value, dict):
            properties = schema.get("properties")
            if properties is not None:
                return {
                    key: pruned
                    for key, item in value.items()
                    if key in properties
                    and (pruned := self._prune(item, properties[key])) is not _DROP
                }
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                return {
                    key: pruned
                    for key, item in value.items()
                    if (pruned := self._prune(item, extra)) is not _DROP
                }
            return value  # free data (JsonValue)
        if isinstance(value, list):
            items = schema.get("items")
            if items is None:
                return value
            return [pruned for item in value if (pruned := self._prune(item, items)) is not _DROP]
        return value

    def _branch(self, value: Any, branches: list[Mapping[str, Any]]) -> Mapping[str, Any]:
        """The branch of a union that ``value`` belongs to: by its discriminator, else by
        its kind (map, list, or anything else)."""
        wanted = (
            "object" if isinstance(value, dict) else "array" if isinstance(value, list) else None
        )
        for branch in branches:
            resolved = self._resolve(branch)
            if "discriminator" in resolved or (resolved.get("type") == wanted and wanted):
                return branch
        return {}

    def _at(self, root: Mapping[str, Any], path: str) -> Mapping[str, Any] | None:
        """The schema of what a JSON Pointer points at, or None when this version has no
        such place."""
        schema: Mapping[str, Any] = root
        for token in path.split("/")[1:]:
            key = token.replace("~1", "/").replace("~0", "~")
            schema = self._resolve(schema)
            branches = schema.get("anyOf") or schema.get("oneOf")
            if branches is not None:
                schema = self._resolve(
                    next((b for b in branches if self._resolve(b).get("type") != "null"), {})
                )
            if "properties" in schema:
                if key not in schema["properties"]:
                    return None
                schema = schema["properties"][key]
            elif isinstance(schema.get("additionalProperties"), dict):
                schema = schema["additionalProperties"]
            elif "items" in schema:
                schema = schema["items"]
            else:
                return {}  # inside free data
        return schema

    # -- messages in ------------------------------------------------------------------

    def refusal(self, message: BaseModel) -> str | None:
        """Why this version would not have taken a client's message (decoded already as a
        message of the current version): a type, or a field sent, that it did not have;
        None if it would have taken it."""
        mapping = self.client["discriminator"]["mapping"]
        tag = getattr(message, "type", None)
        if tag not in mapping:
            return f"{tag}: no such message in protocol version {self.version}"
        properties = self._resolve({"$ref": mapping[tag]})["properties"]
        unknown = sorted(key for key in message.model_fields_set if key not in properties)
        if unknown:
            return f"{tag}: no field {unknown[0]!r} in protocol version {self.version}"
        return None


_DEFS = {"player_view": "PlayerView", "watch_view": "WatchView"}


@cache
def older(version: int) -> Older:
    """The older version ``version`` (one of :data:`OLDER`), its schema read once."""
    if version not in OLDER:
        raise ValueError(f"protocol version {version} is not an older version served here")
    return Older(version)

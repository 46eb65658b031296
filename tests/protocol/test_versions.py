"""protocol.versions: frames of the current version turned into version 6's, and version 6's
messages held to what version 6 had.

Version 7 added nothing to a view yet, so these frames are made up: each carries something
a later addition within version 7 could bring (a field of a board, an event, a message, a
change at a new path), which a version-6 client must never see."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest

from protocol.codec import decode_server
from protocol.messages import Hello, MakeCall, Ping
from protocol.versions import HERE, older

V6 = older(6)


def board(**extra: Any) -> dict[str, Any]:
    return {
        "table": 1,
        "round": 1,
        "board": 1,
        "dealer": "N",
        "vulnerability": "None",
        "phase": "auction",
        "hands": {"N": ["SA"]},
        "hand_sizes": {"N": 1, "E": 13, "S": 13, "W": 13},
        "auction": [{"seat": "N", "call": "1C", "alert": None, "convention": "Precision"}],
        "tricks": [],
        **extra,
    }


def test_new_fields_are_taken_out_at_any_depth() -> None:
    frame = {
        "type": "update",
        "seq": 3,
        "events": [{"type": "call_made", "table": 1, "seat": "N", "call": "1C", "clock": 5}],
        "view": {"type": "player_view", "board": board(clock={"left": 30})},
        "changes": [],
        "trace": "x",
    }
    turned = V6.frame(frame, "player_view")
    assert turned is not None
    assert "trace" not in turned
    assert "clock" not in turned["events"][0]
    assert "clock" not in turned["view"]["board"]
    assert turned["view"]["board"]["auction"] == [{"seat": "N", "call": "1C", "alert": None}]
    assert turned["view"]["board"]["hands"] == {"N": ["SA"]}  # a map's keys are data, kept


def test_values_version_6_never_named_are_left_out() -> None:
    # An action it never offered (the face-down lead's, law 41A) and a claim's status it
    # never had (a dispute, law 68D): a strict version-6 decoder would refuse the frame.
    claim = {
        "claimer": "N",
        "tricks": 9,
        "remaining": 12,
        "deciders": ["E", "W"],
        "accepted": [],
        "status": "disputed",
    }
    frame = {
        "type": "update",
        "seq": 5,
        "events": [],
        "view": {
            "type": "player_view",
            "board": board(phase="claim", actions=["face_lead", "claim"], claim=claim),
        },
        "changes": [],
    }
    turned = V6.frame(frame, "player_view")
    assert turned is not None
    assert turned["view"]["board"]["actions"] == ["claim"]
    assert "status" not in turned["view"]["board"]["claim"]
    assert turned["view"]["board"]["phase"] == "claim"  # a value version 6 knows stays


def test_unknown_events_and_messages_are_left_out() -> None:
    frame = {
        "type": "update",
        "seq": 4,
        "events": [
            {"type": "clock_started", "table": 1},
            {"type": "chat_sent", "table": 1, "seat": "N", "text": "hi", "to": ["E", "W"]},
        ],
        "view": None,
        "changes": [],
    }
    turned = V6.frame(frame, "player_view")
    assert turned is not None
    assert [e["type"] for e in turned["events"]] == ["chat_sent"]
    assert V6.frame({"type": "event_created", "ref": 1}, "player_view") is None


def test_changes_at_new_paths_are_left_out_and_values_pruned() -> None:
    frame = {
        "type": "update",
        "seq": 5,
        "events": [],
        "view": None,
        "changes": [
            {"op": "replace", "path": "/board/clock", "value": 30},
            {"op": "replace", "path": "/board/phase", "value": "play"},
            {"op": "add", "path": "/board/auction/1", "value": {"seat": "E", "call": "P", "x": 1}},
            {"op": "replace", "path": "/board", "value": board(clock=1)},
            {"op": "replace", "path": "/match/comparisons/0/double_dummy", "value": {"N": {}}},
            {"op": "replace", "path": "/tables/0/turn", "value": "N"},
        ],
    }
    turned = V6.frame(frame, "player_view")
    assert turned is not None
    changes = turned["changes"]
    assert [c["path"] for c in changes] == [
        "/board/phase",
        "/board/auction/1",
        "/board",
        "/match/comparisons/0/double_dummy",
    ]  # a player's view has no /tables
    assert changes[1]["value"] == {"seat": "E", "call": "P"}
    assert "clock" not in changes[2]["value"]
    watcher = V6.frame(frame, "watch_view")
    assert watcher is not None
    assert "/tables/0/turn" in [c["path"] for c in watcher["changes"]]


def test_frames_of_version_6_pass_unchanged() -> None:
    """Every frame version 6 recorded is its own translation (it has nothing to take out)."""
    checked = 0
    for path in sorted((HERE.parent / "tests" / "protocol" / "golden" / "v6").glob("*.jsonl")):
        for line in path.read_text().splitlines()[1:]:
            step = json.loads(line)
            for conn, frames in step.get("frames", {}).items():
                view = "watch_view" if conn in ("spectator", "director") else "player_view"
                for frame in frames:
                    assert V6.frame(frame, view) == frame
                    checked += 1
    assert checked > 3000


def test_encoded_frames_are_turned_once_and_stay_msgpack() -> None:
    frame = {"type": "welcome", "version": 6, "versions": [6, 7], "role": "organiser"}
    packed = msgpack.packb(frame)
    turned = V6.encoded(packed, "player_view")
    assert turned is not None
    assert msgpack.unpackb(turned) == {"type": "welcome", "version": 6, "role": "organiser"}
    assert V6.encoded(packed, "player_view") is turned  # remembered, not turned again
    assert decode_server(turned).type == "welcome"


@pytest.mark.parametrize(
    ("message", "refused"),
    [
        (Ping(ref=1), None),
        (MakeCall(call="1C", alert="short club"), None),
        (Hello(version=6, token="x"), None),
        (Hello(version=6, token="x", versions=[6, 7]), "no field 'versions'"),
    ],
)
def test_messages_are_held_to_version_6(message: Any, refused: str | None) -> None:
    """A version-6 connection may send only what version 6 had (fields left at their
    defaults are not sent, so they do not count)."""
    said = V6.refusal(message)
    assert (said is None) if refused is None else (said is not None and refused in said)


def test_decoding_ignores_what_a_newer_server_adds() -> None:
    """The client's side of the rule: unknown fields, events and error codes are ignored or
    read as generic; an unknown message is refused as unknown_type (the client skips it)."""
    update = {
        "type": "update",
        "seq": 1,
        "events": [
            {"type": "clock_started"},
            {"type": "chat_sent", "table": 1, "seat": "N", "text": "hi", "to": ["E"], "new": 2},
        ],
        "view": None,
        "changes": [],
        "new": 1,
    }
    decoded = decode_server(msgpack.packb(update))
    assert [e.type for e in decoded.events] == ["chat_sent"]  # type: ignore[union-attr]
    error = decode_server(msgpack.packb({"type": "error", "code": "too_cold", "message": "brr"}))
    assert error.code == "internal"  # type: ignore[union-attr]
    assert "too_cold" in error.message  # type: ignore[union-attr]


def test_every_older_schema_is_shipped_with_the_package() -> None:
    """An installed server (the Docker image installs a wheel) reads an older version's
    frozen schema from the package: pyproject.toml's package data must hold it."""
    import fnmatch
    import tomllib

    from protocol.versions import OLDER

    pyproject = tomllib.loads((HERE.parent / "pyproject.toml").read_text())
    shipped = pyproject["tool"]["setuptools"]["package-data"]["protocol"]
    for version in OLDER:
        name = f"schema-v{version}.json"
        assert (HERE / name).is_file()
        assert any(fnmatch.fnmatch(name, pattern) for pattern in shipped), (name, shipped)

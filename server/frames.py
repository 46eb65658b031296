"""Update frames: each viewer's view sent once whole, then as what changed.

:mod:`server.views` decides what a viewer sees; this module only says it in fewer bytes. A
snapshot carries the viewer's whole view, and so does an update when this process does not
know the view the client holds (no connection of that viewer was open here since); every
other update carries the view's ``changes`` since the update before (:mod:`protocol.changes`),
regenerated ones after a resume too. A
comparison is sent whole once, in its ``board_compared`` event (and again only when the
director's ruling publishes it again); what changes in it later (its double-dummy analysis
comes, its running total moves) comes as changes. A change only ever holds values of the
new view, so a frame tells a viewer nothing its view does not.

The view each viewer was last sent is kept in a :class:`Sent`: its fields packed one by
one, the match summary (without its comparisons) and the comparisons packed once per event
and shared by every viewer of it. A field whose bytes did not change costs one comparison
of bytes; only a changed one is unpacked and compared item by item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from protocol.changes import diff_into
from server.state import Effect, MatchState, StoredEvent
from server.views import Shared, Viewer, project, summary_data, view_data

__all__ = ["Publication", "Sent"]


def _pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def _unpack(packed: bytes) -> Any:
    return msgpack.unpackb(packed, raw=False)


@dataclass(frozen=True, slots=True)
class Sent:
    """The view a viewer was last sent: each field packed (``match`` without its
    comparisons), in the order of ``keys`` (one tuple shared by every view of a kind: a
    tuple, not a dict, costs a kilobyte less a viewer), and each comparison packed, by board
    (shared by every viewer of the same publication)."""

    keys: tuple[str, ...]
    packed: tuple[bytes, ...]
    comparisons: dict[int, bytes]

    @classmethod
    def of(cls, fields: dict[str, bytes], comparisons: dict[int, bytes]) -> Sent:
        keys = tuple(fields)
        return cls(_KEYS.setdefault(keys, keys), tuple(fields.values()), comparisons)

    @property
    def fields(self) -> dict[str, bytes]:
        return dict(zip(self.keys, self.packed, strict=True))


_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}
"""The fields of each kind of view, as :class:`Sent` shares them."""


class Publication:
    """The updates of one logged event (``event`` None: a snapshot of the match now), for
    any viewer: the match summary is made and packed once for all of them."""

    def __init__(
        self,
        state: MatchState,
        table: int = 0,
        event: StoredEvent | None = None,
        effect: Effect | None = None,
    ) -> None:
        self.state = state
        self.table = table
        self.event = event
        self.effect = effect
        self._whole = summary_data(state)
        self._summary = {k: v for k, v in self._whole.items() if k != "comparisons"}
        self._summary_packed = _pack(self._summary)
        self._comparisons: dict[int, dict[str, Any]] = {
            c["board"]: c for c in self._whole["comparisons"]
        }
        self._comparisons_packed = {board: _pack(c) for board, c in self._comparisons.items()}
        self._shared: Shared = {}

    def sent(self, viewer: Viewer) -> Sent:
        """What :meth:`frame` would record as sent to ``viewer``, without the frame."""
        return self._sent(view_data(self.state, viewer, self._whole, self._shared))

    def _sent(self, view: dict[str, Any]) -> Sent:
        packed = {
            key: self._summary_packed if key == "match" else _pack(value)
            for key, value in view.items()
        }
        return Sent.of(packed, self._comparisons_packed)

    def frame(self, viewer: Viewer, seq: int, before: Sent | None) -> tuple[bytes, Sent]:
        """``viewer``'s update number ``seq``: its whole view when this is a snapshot or
        ``before`` (the view it was last sent) is unknown, else the changes since
        ``before``; and what it was sent now."""
        view = view_data(self.state, viewer, self._whole, self._shared)
        sent = self._sent(view)
        if self.event is None:
            shown: list[dict[str, Any]] = [{"type": "snapshot"}]
        else:
            events = project(self.state, viewer, self.table, self.event, self.effect, self._whole)
            shown = [event.model_dump(mode="json") for event in events]
        update: dict[str, Any] = {"type": "update", "seq": seq, "events": shown}
        if self.event is None or before is None:
            update |= {"view": view, "changes": []}
            return _pack(update), sent
        changes: list[dict[str, Any]] = []
        earlier = before.fields if before.keys is not sent.keys else None
        for index, (key, packed) in enumerate(zip(sent.keys, sent.packed, strict=True)):
            old = before.packed[index] if earlier is None else earlier.get(key)
            if old == packed:
                continue
            if old is None:
                changes.append({"op": "add", "path": f"/{key}", "value": view[key]})
            elif key == "match":
                # Field by field, never whole: the comparisons are not in what is compared.
                before_summary = _unpack(old)
                for field, value in self._summary.items():
                    if before_summary.get(field) != value:
                        diff_into(before_summary.get(field), value, f"/match/{field}", changes)
            else:
                diff_into(_unpack(old), view[key], f"/{key}", changes)
        self._compare(before, shown, changes)
        update |= {"view": None, "changes": changes}
        return _pack(update), sent

    def _compare(
        self, before: Sent, shown: list[dict[str, Any]], changes: list[dict[str, Any]]
    ) -> None:
        """The comparisons' part of an update: a comparison the viewer was never sent comes
        in a ``board_compared`` event (the event of a ``compared`` entry is one), and one
        that changed since (its double-dummy analysis came, or its running total moved with
        a director's fix of an earlier board) in ``changes`` into ``match.comparisons``, as
        the client holds it once the events' comparisons are in place."""
        told = {
            item["comparison"]["board"]: item["comparison"]
            for item in shown
            if item["type"] == "board_compared"
        }
        for board, comparison in self._comparisons.items():
            if board not in before.comparisons and board not in told:
                shown.append({"type": "board_compared", "comparison": comparison})
                told[board] = comparison
        for index, (board, comparison) in enumerate(self._comparisons.items()):
            path = f"/match/comparisons/{index}"
            if board in told:
                if told[board] != comparison:
                    diff_into(told[board], comparison, path, changes)
            elif before.comparisons[board] != self._comparisons_packed[board]:
                diff_into(_unpack(before.comparisons[board]), comparison, path, changes)

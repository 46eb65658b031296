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

Most updates are for a plain call, card or ready (:meth:`MatchState.plain`): for a viewer
whose last view was sent at the epochs the state has now (nothing else changed for that
viewer since: :attr:`MatchState.epoch`), such an update is built from the few fields of the
table's board that it can change (:func:`server.views.board_moving`) and, for a ready, the
player's review, compared with those the viewer was sent, without making the rest of the
view. With
``DUPLICATE_CHECK_FRAMES=1`` in the environment (the tests set it) each such update is also
made the whole way and the two must be equal, byte for byte; a difference is logged and
kept in :data:`MISMATCHES`, and the whole way's update is sent.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from typing import Any

import msgpack

from protocol.changes import diff_into
from server.state import (
    PLAIN_BOARD_KEYS,
    PLAIN_KINDS,
    PLAIN_VIEW_KEYS,
    Effect,
    MatchState,
    StoredEvent,
)
from server.views import (
    BOARD_FIELDS,
    Player,
    Shared,
    Viewer,
    board_moving,
    project_data,
    review_data,
    summary_data,
    view_data,
)

__all__ = ["CHECK", "MISMATCHES", "Publication", "Sent"]

log = logging.getLogger(__name__)

CHECK = os.environ.get("DUPLICATE_CHECK_FRAMES") == "1"
"""Make every update built from an event the whole way too, and compare."""
MISMATCHES: list[str] = []
"""The updates (in check mode) whose two ways differed: for the tests to find."""


def _pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def _unpack(packed: bytes) -> Any:
    return msgpack.unpackb(packed, raw=False)


_UPDATE_HEAD = b"\x85" + _pack("type") + _pack("update") + _pack("seq")
"""An update's first bytes: a map of five entries (type, seq, events, view, changes, in
that order), its type, and the key of its ``seq``."""
_EVENTS_KEY = _pack("events")
_CHANGES_KEYS = _pack("view") + _pack(None) + _pack("changes")


def _update(seq: int, events: bytes, changes: bytes) -> bytes:
    """An update of changes packed, as msgpack packs ``{"type": "update", "seq": seq,
    "events": ..., "view": None, "changes": ...}``, from its events and changes packed."""
    return b"".join((_UPDATE_HEAD, _pack(seq), _EVENTS_KEY, events, _CHANGES_KEYS, changes))


VIEWER_FIELDS = frozenset({"hands", "legal", "actions", "claim"})
"""The fields of :data:`PLAIN_BOARD_KEYS` that are made for each viewer (never the same
object for two): their changes are not looked for in a publication's memo."""


@dataclass(frozen=True, slots=True, eq=False)
class Sent:
    """The view a viewer was last sent: each field packed (``match`` without its
    comparisons), in the order of ``keys`` (one tuple shared by every view of a kind: a
    tuple, not a dict, costs a kilobyte less a viewer), and each comparison packed, by board
    (shared by every viewer of the same publication); and, by table, the fields
    :data:`PLAIN_BOARD_KEYS` of the table's board as the viewer holds them (``moving``:
    newer than ``packed`` once plain calls and cards changed them, ``packed`` being packed
    again only when a view is made the whole way)."""

    keys: tuple[str, ...]
    packed: tuple[bytes, ...]
    comparisons: dict[int, bytes]
    epoch: tuple[int, int]
    """The state's :attr:`MatchState.epoch` when this view was made, and its table's epoch
    (a player's) or :attr:`MatchState.tables_epoch` (a watcher's)."""
    moving: dict[int, tuple[str, tuple[Any, ...]]] | None = None
    """By table: the path of its board in the view, and those fields' values in the order of
    :data:`PLAIN_BOARD_KEYS` as the viewer holds them (a tuple: some 300 bytes less than a
    dict, for every viewer once its table has played): those of ``packed`` when the view was
    made the whole way, newer once plain updates changed them (``stale``)."""
    stale: bool = False
    """Plain updates changed the boards' fields since ``packed`` was packed: ``moving``
    holds them as the viewer does now (:meth:`boards_now`)."""

    @classmethod
    def of(
        cls,
        fields: dict[str, bytes],
        comparisons: dict[int, bytes],
        epoch: tuple[int, int],
        moving: dict[int, tuple[str, tuple[Any, ...]]] | None = None,
    ) -> Sent:
        keys = tuple(fields)
        return cls(_KEYS.setdefault(keys, keys), tuple(fields.values()), comparisons, epoch, moving)

    @property
    def fields(self) -> dict[str, bytes]:
        return dict(zip(self.keys, self.packed, strict=True))

    def __eq__(self, other: object) -> bool:
        """The same view (at whichever epoch, with its board's moving fields packed or not)."""
        if not isinstance(other, Sent):
            return NotImplemented
        mine, theirs = self.settled(), other.settled()
        return (mine.keys, mine.packed, mine.comparisons) == (
            theirs.keys,
            theirs.packed,
            theirs.comparisons,
        )

    __hash__ = None  # type: ignore[assignment]

    def board(self, table: int) -> tuple[str, tuple[Any, ...]] | None:
        """``table``'s board as this viewer was sent it: its path in the view and the values
        of its fields that plain calls and cards change (:data:`PLAIN_BOARD_KEYS`, in that
        order); None when the viewer was sent no board of that table."""
        if self.moving is not None and table in self.moving:
            return self.moving[table]
        for key in ("board", "tables"):
            index = _index(self.keys, key)
            if index is not None:
                return _moving_in(key, _unpack(self.packed[index])).get(table)
        return None

    def boards_now(self) -> dict[str, Any]:
        """The field of boards (``board`` or ``tables``), by its key, unpacked and brought up
        to date with ``moving`` when plain updates changed it since it was packed (none when
        they did not: ``packed`` holds it as the viewer does)."""
        if not self.stale or not self.moving:
            return {}
        index = _index(self.keys, "board")
        if index is not None:
            ((_path, moving),) = self.moving.values()
            board = _unpack(self.packed[index])
            board.update(zip(PLAIN_BOARD_KEYS, moving, strict=True))
            return {"board": board}
        index = _index(self.keys, "tables")
        assert index is not None
        boards = _unpack(self.packed[index])
        for path, moving in self.moving.values():
            boards[int(path.rsplit("/", 1)[1])].update(zip(PLAIN_BOARD_KEYS, moving, strict=True))
        return {"tables": boards}

    def settled(self) -> Sent:
        """This view with ``moving`` packed into its fields."""
        moved = self.boards_now()
        if not moved:
            return self
        packed = tuple(
            _pack(moved[key]) if key in moved else field
            for key, field in zip(self.keys, self.packed, strict=True)
        )
        return Sent(self.keys, packed, self.comparisons, self.epoch)


def _moving_in(key: str, value: Any) -> dict[int, tuple[str, tuple[Any, ...]]]:
    """By table, the path of its board in a view's field of boards (``key``: a player's
    ``board``, a watcher's ``tables``, whose first board of a table counts) and the values of
    its fields that plain events change (:data:`PLAIN_BOARD_KEYS`, in that order)."""
    boards = (
        [("/board", value)]
        if key == "board"
        else [(f"/tables/{place}", board) for place, board in enumerate(value)]
    )
    moving: dict[int, tuple[str, tuple[Any, ...]]] = {}
    for path, board in boards:
        if board is not None and board["table"] not in moving:
            moving[board["table"]] = (path, tuple(board[name] for name in PLAIN_BOARD_KEYS))
    return moving


def _moving_of(view: dict[str, Any]) -> dict[int, tuple[str, tuple[Any, ...]]] | None:
    """:attr:`Sent.moving` of a view made the whole way (the next plain update compares its
    boards' fields without unpacking them)."""
    key = "board" if view["type"] == "player_view" else "tables"
    return _moving_in(key, view[key]) or None


_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}
"""The fields of each kind of view, as :class:`Sent` shares them."""


@functools.cache
def _index(keys: tuple[str, ...], key: str) -> int | None:
    """Where ``key`` is in a kind of view's ``keys`` (None: not there)."""
    return keys.index(key) if key in keys else None


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
        self._shared: Shared = {}
        self._diffs: dict[tuple[int, int, str, str], tuple[Any, Any, list[dict[str, Any]]]] = {}
        self._packs: dict[int, tuple[Any, bytes]] = {}

    @functools.cached_property
    def _whole(self) -> dict[str, Any]:
        """The match summary (made only when a view is made the whole way)."""
        return summary_data(self.state)

    @functools.cached_property
    def _summary(self) -> dict[str, Any]:
        return {k: v for k, v in self._whole.items() if k != "comparisons"}

    @functools.cached_property
    def _summary_packed(self) -> bytes:
        return _pack(self._summary)

    @functools.cached_property
    def _comparisons(self) -> dict[int, dict[str, Any]]:
        return {c["board"]: c for c in self._whole["comparisons"]}

    @functools.cached_property
    def _comparisons_packed(self) -> dict[int, bytes]:
        return {board: _pack(c) for board, c in self._comparisons.items()}

    def sent(self, viewer: Viewer) -> Sent:
        """What :meth:`frame` would record as sent to ``viewer``, without the frame."""
        return self._sent(view_data(self.state, viewer, self._whole, self._shared))

    def _packed(self, value: Any) -> bytes:
        """``value`` packed, once per publication for every viewer sent that same object
        (most fields are made once for all: :data:`server.views.Shared`). The memo keeps the
        object, so that its id stays its own while the memo lives."""
        known = self._packs.get(id(value))
        if known is not None:
            return known[1]
        packed = _pack(value)
        self._packs[id(value)] = (value, packed)
        return packed

    def _sent(self, view: dict[str, Any], moving: bool = False) -> Sent:
        """What is recorded as sent for ``view`` (``moving``: with its boards' fields that
        plain events change, for a viewer that plain updates reach: one at rest keeps only
        bytes)."""
        packed = {
            key: self._summary_packed if key == "match" else self._packed(value)
            for key, value in view.items()
        }
        table = view["table"] if view["type"] == "player_view" else None
        kept = _moving_of(view) if moving else None
        return Sent.of(packed, self._comparisons_packed, self._epoch(table), kept)

    def _epoch(self, table: int | None) -> tuple[int, int]:
        """The epoch of the view of a player at ``table`` (None: a watcher's)."""
        state = self.state
        return state.epoch, state.tables_epoch if table is None else state.table_epochs[table]

    def frame(self, viewer: Viewer, seq: int, before: Sent | None) -> tuple[bytes, Sent]:
        """``viewer``'s update number ``seq``: its whole view when this is a snapshot or
        ``before`` (the view it was last sent) is unknown, else the changes since
        ``before``; and what it was sent now."""
        event = self.event
        if (
            before is not None
            and event is not None
            and event["type"] in PLAIN_KINDS
            # A player receives the events of the table where they sit.
            and before.epoch == self._epoch(self.table if isinstance(viewer, Player) else None)
        ):
            built = self._plain(viewer, seq, before)
            if built is not None:
                if CHECK:
                    return self._checked(viewer, seq, before, built)
                return built
        return self._made(viewer, seq, before)

    def _checked(
        self, viewer: Viewer, seq: int, before: Sent, built: tuple[bytes, Sent]
    ) -> tuple[bytes, Sent]:
        made = self._made(viewer, seq, before)
        if made != built:
            assert self.event is not None
            problem = (
                f"{viewer} at {self.event['type']} (table {self.table}): built "
                f"{_unpack(built[0])} but made {_unpack(made[0])}"
            )
            if made[0] == built[0]:
                problem = f"{viewer} at {self.event['type']}: the same frame, another view kept"
            log.error("an update built from its event differs: %s", problem)
            MISMATCHES.append(problem)
        return made

    def _plain(self, viewer: Viewer, seq: int, before: Sent) -> tuple[bytes, Sent] | None:
        """The update for a plain call, card or ready (the viewer's epoch is that of
        ``before``: only the fields :data:`PLAIN_BOARD_KEYS` of the boards, and a player's
        :data:`PLAIN_VIEW_KEYS`, can differ from it), built
        from those fields; None when it must be made the whole way (the viewer was sent no
        board of the table, or more than half the board's fields changed: it is replaced
        whole)."""
        assert self.event is not None
        found = before.board(self.table)
        moving = board_moving(self.state, viewer, self.table, self._shared)
        if found is None or moving is None:
            return None
        path, held = found
        changes: list[dict[str, Any]] = []
        changed = 0
        values = tuple(moving.values())
        for name, old, value in zip(PLAIN_BOARD_KEYS, held, values, strict=True):
            if old is value:
                continue
            if name in VIEWER_FIELDS:
                if old != value:
                    diff_into(old, value, f"{path}/{name}", changes)
                    changed += 1
                continue
            ops = self._diff(old, value, path, name)
            if ops:
                changes += ops
                changed += 1
        if changed > 1 and 2 * changed > BOARD_FIELDS:
            return None
        packed = before.packed
        if isinstance(viewer, Player):
            packed = self._view_keys(before, changes)
        events = project_data(self.state, viewer, self.table, self.event, self.effect, self._shared)
        frame = _update(seq, self._packed(events), _pack(changes))
        kept = {**(before.moving or {}), self.table: (path, values)}
        return frame, Sent(before.keys, packed, before.comparisons, before.epoch, kept, True)

    def _diff(self, old: Any, new: Any, path: str, name: str) -> list[dict[str, Any]]:
        """The changes from ``old`` to ``new`` at ``path/name`` (none: equal), found once per
        publication for every viewer that was sent the same object there and is sent the same
        one now (most fields are made once for all: :data:`server.views.Shared`). The memo
        keeps both objects, so that their ids stay theirs while it lives. Shared: never
        changed."""
        key = (id(old), id(new), path, name)
        known = self._diffs.get(key)
        if known is not None:
            return known[2]
        ops: list[dict[str, Any]] = []
        if old != new:
            diff_into(old, new, f"{path}/{name}", ops)
        self._diffs[key] = (old, new, ops)
        return ops

    def _view_keys(self, before: Sent, changes: list[dict[str, Any]]) -> tuple[bytes, ...]:
        """A player's fields besides the board's that a plain event may change
        (:data:`PLAIN_VIEW_KEYS`): their changes since ``before`` added to ``changes``, and
        ``before``'s packed fields with them in place."""
        packed = before.packed
        if self.event is None or self.event["type"] != "ready":
            return packed  # a call or a card changes none
        (key,) = PLAIN_VIEW_KEYS  # the review: what a ready changes
        index = _index(before.keys, key)
        if index is None:
            return packed
        value = review_data(self.state, self.table, self._shared)
        now = _pack(value)
        if now != packed[index]:
            diff_into(_unpack(packed[index]), value, f"/{key}", changes)
            packed = (*packed[:index], now, *packed[index + 1 :])
        return packed

    def _made(self, viewer: Viewer, seq: int, before: Sent | None) -> tuple[bytes, Sent]:
        """:meth:`frame`, the whole way: the viewer's view made and compared field by field."""
        view = view_data(self.state, viewer, self._whole, self._shared)
        sent = self._sent(view, moving=before is not None and before.moving is not None)
        if self.event is None:
            shown: list[dict[str, Any]] = [{"type": "snapshot"}]
        else:
            summary = self._whole if self.table == 0 else None
            # A list of this viewer's own (_compare adds to it) of the events made once.
            shown = list(
                project_data(
                    self.state, viewer, self.table, self.event, self.effect, self._shared, summary
                )
            )
        update: dict[str, Any] = {"type": "update", "seq": seq, "events": shown}
        if self.event is None or before is None:
            update |= {"view": view, "changes": []}
            return _pack(update), sent
        changes: list[dict[str, Any]] = []
        moved = before.boards_now()  # compared as data: never packed again
        earlier = before.fields if before.keys is not sent.keys else None
        for index, (key, packed) in enumerate(zip(sent.keys, sent.packed, strict=True)):
            if key in moved:
                if moved[key] != view[key]:
                    diff_into(moved[key], view[key], f"/{key}", changes)
                continue
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

"""Updates carry what changed: a view's changes as a JSON Patch, and applying them.

An ``update`` carries either the viewer's whole view (a snapshot) or ``changes``: JSON Patch
operations (RFC 6902, ``add`` and ``replace`` only, paths as JSON Pointers, RFC 6901) that
turn the viewer's previous view into the new one. A comparison comes whole in its
``board_compared`` event, never in changes: each event's comparison is first put into
``match.comparisons`` (in place of the one of its board, else in the order of
``match.boards``), and then the changes apply (they may change a comparison's fields later:
its double-dummy analysis, its running total).

Both halves live here, on plain data (what msgpack gives): :func:`diff` is the server's,
:func:`apply` any client's. ``apply(old, diff(old, new)) == new`` for any two maps, the second
with every key of the first (as any two views of one viewer).

>>> old = {"board": {"dealer": "W", "phase": "auction", "turn": "N", "auction": ["P"]}}
>>> new = {"board": {"dealer": "W", "phase": "auction", "turn": "E", "auction": ["P", "1S"]}}
>>> diff(old, new)
[{'op': 'replace', 'path': '/board/turn', 'value': 'E'}, {'op': 'add', 'path': '/board/auction/1', 'value': '1S'}]
>>> apply(old, diff(old, new)) == new
True
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "ChangeError",
    "apply",
    "diff",
    "diff_into",
    "escape",
    "patch",
    "put_comparison",
]

COMPARISONS = "comparisons"
"""The key of ``match`` where ``board_compared`` events put their comparisons."""


class ChangeError(ValueError):
    """Changes that do not fit the view they are applied to (the client's view is not the
    one the server changed: it should resume afresh)."""


def escape(key: str | int) -> str:
    """One JSON Pointer reference token (RFC 6901): ``~`` and ``/`` escaped."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def diff(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """The operations that turn ``old`` into ``new`` (plain data) at ``path``.

    A map with the same keys is patched key by key, new keys are added; a list is patched
    item by item and what it gained is added at its end. A map that lost a key, a list that
    got shorter or was empty, and a map or list more than half of whose entries changed (two
    at least) are replaced whole (one operation says it in fewer bytes); so is anything else
    that differs.
    """
    if old == new:
        return []
    changes: list[dict[str, Any]] = []
    diff_into(old, new, path, changes)
    return changes


def diff_into(old: Any, new: Any, path: str, changes: list[dict[str, Any]]) -> None:
    """:func:`diff`, appending to ``changes``."""
    inner: list[dict[str, Any]] = []
    changed = 0  # entries of this map or list that changed
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() <= new.keys():
        for key, value in new.items():
            if key not in old:
                inner.append({"op": "add", "path": f"{path}/{escape(key)}", "value": value})
                changed += 1
            elif old[key] != value:
                diff_into(old[key], value, f"{path}/{escape(key)}", inner)
                changed += 1
    elif isinstance(old, list) and isinstance(new, list) and 0 < len(old) <= len(new):
        for index, value in enumerate(new):
            if index >= len(old):
                inner.append({"op": "add", "path": f"{path}/{index}", "value": value})
                changed += 1
            elif old[index] != value:
                diff_into(old[index], value, f"{path}/{index}", inner)
                changed += 1
    else:
        changes.append({"op": "replace", "path": path, "value": new})
        return
    if path and changed > 1 and 2 * changed > len(new):
        changes.append({"op": "replace", "path": path, "value": new})
    else:
        changes += inner


def apply(
    view: Mapping[str, Any],
    changes: Iterable[Mapping[str, Any]],
    compared: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A new view: ``view`` (left as it is) with ``compared`` (the comparisons of the
    update's ``board_compared`` events, in order) put in place and ``changes`` applied.
    Raises :class:`ChangeError` where a change does not fit."""
    result = copy.deepcopy(dict(view))
    patch(result, changes, compared)
    return result


def patch(
    view: dict[str, Any],
    changes: Iterable[Mapping[str, Any]],
    compared: Iterable[Mapping[str, Any]] = (),
) -> None:
    """:func:`apply` in place: ``view`` becomes the new view. The values put in are copies.
    On :class:`ChangeError` the view is left half changed: drop it and start afresh."""
    for comparison in compared:
        put_comparison(view, copy.deepcopy(dict(comparison)))
    for change in changes:
        _apply_one(view, change)


def put_comparison(view: dict[str, Any], comparison: dict[str, Any]) -> None:
    """Put a ``board_compared`` event's comparison into ``view['match']['comparisons']``:
    in place of the one of the same board, else where ``match.boards`` orders it."""
    match = view.get("match")
    if not isinstance(match, dict) or not isinstance(match.get(COMPARISONS), list):
        raise ChangeError("the view has no match.comparisons")
    comparisons: list[dict[str, Any]] = match[COMPARISONS]
    board = comparison.get("board")
    order = {number: place for place, number in enumerate(match.get("boards", []))}
    if board not in order:
        raise ChangeError(f"board {board!r} is not one of the match's boards")
    for index, existing in enumerate(comparisons):
        if existing.get("board") == board:
            comparisons[index] = comparison
            return
        if order.get(existing.get("board"), -1) > order[board]:
            comparisons.insert(index, comparison)
            return
    comparisons.append(comparison)


def _apply_one(document: dict[str, Any], change: Mapping[str, Any]) -> None:
    op, path, value = change.get("op"), change.get("path"), change.get("value")
    if op not in ("add", "replace") or not isinstance(path, str) or not path.startswith("/"):
        raise ChangeError(f"not a change this protocol sends: {dict(change)!r:.100}")
    *parents, last = [_unescape(token) for token in path[1:].split("/")]
    target: Any = document
    for token in parents:
        target = _step(target, token, path)
    value = copy.deepcopy(value)
    if isinstance(target, dict):
        if op == "replace" and last not in target:
            raise ChangeError(f"{path}: nothing there to replace")
        target[last] = value
    elif isinstance(target, list):
        index = _index(target, last, path, op == "add")
        if index == len(target):
            target.append(value)
        elif op == "add":
            target.insert(index, value)
        else:
            target[index] = value
    else:
        raise ChangeError(f"{path}: its parent is neither a map nor a list")


def _step(target: Any, token: str, path: str) -> Any:
    if isinstance(target, dict):
        if token not in target:
            raise ChangeError(f"{path}: no {token!r} in the view")
        return target[token]
    if isinstance(target, list):
        return target[_index(target, token, path, False)]
    raise ChangeError(f"{path}: {token!r} is inside a value that is neither a map nor a list")


def _index(target: list[Any], token: str, path: str, adding: bool) -> int:
    if token == "-" and adding:
        return len(target)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise ChangeError(f"{path}: {token!r} is not an index")
    index = int(token)
    if index > len(target) or (index == len(target) and not adding):
        raise ChangeError(f"{path}: index {index} is past the list's end ({len(target)})")
    return index

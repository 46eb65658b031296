"""protocol/changes.py: the changes between two views, and applying them as any client does."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.changes import ChangeError, apply, diff, escape, patch, put_comparison

KEYS = st.sampled_from(["a", "b", "N", "~", "/", "a/b", "~1", "", "0", "hands"])
LEAVES = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | KEYS
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@st.composite
def related(draw: st.DrawFn, value: Any = VALUES) -> tuple[Any, Any]:
    """A value and a changed copy of it: some leaves changed, lists grown or cut, keys added
    or dropped (what one update does to a view)."""
    old = draw(value)

    def change(item: Any) -> Any:
        roll = draw(st.integers(0, 9))
        if roll == 0:
            return draw(VALUES)
        if isinstance(item, dict):
            changed = {key: change(child) for key, child in item.items()}
            if roll == 1 and changed:
                changed.pop(draw(st.sampled_from(sorted(changed))))
            if roll == 2:
                changed[draw(KEYS)] = draw(VALUES)
            return changed
        if isinstance(item, list):
            changed_list = [change(child) for child in item]
            if roll == 3 and changed_list:
                changed_list.pop()
            if roll in (4, 5):
                changed_list += draw(st.lists(VALUES, max_size=3))
            return changed_list
        return draw(LEAVES) if roll == 6 else item

    # The top stays a map with every key it had (as any two views of one viewer).
    new = {key: change(child) for key, child in old.items()}
    new.update(draw(st.dictionaries(KEYS, VALUES, max_size=2)))
    return old, new


@given(st.dictionaries(KEYS, VALUES, max_size=5).flatmap(lambda d: related(st.just(d))))
@settings(max_examples=400, deadline=None)
def test_applying_the_difference_gives_the_new_value(pair: tuple[Any, Any]) -> None:
    old, new = pair
    before = copy.deepcopy(old)
    changes = diff(old, new)
    assert apply(old, changes) == new
    assert old == before  # apply leaves its input as it was
    assert all(change["op"] in ("add", "replace") for change in changes)
    assert all(change["path"].startswith("/") for change in changes)
    if old == new:
        assert changes == []


@given(
    st.dictionaries(KEYS, VALUES, max_size=5),
    st.lists(
        st.fixed_dictionaries(
            {
                "op": st.sampled_from(["add", "replace", "remove", "move", 3]),
                "path": st.text(alphabet="/ab0123-~", max_size=8) | st.none(),
                "value": VALUES,
            }
        ),
        max_size=4,
    ),
)
@settings(max_examples=400, deadline=None)
def test_any_changes_either_apply_or_are_a_change_error(
    view: dict[str, Any], changes: list[dict[str, Any]]
) -> None:
    with contextlib.suppress(ChangeError):
        apply(view, changes)


def test_a_change_goes_where_its_pointer_says() -> None:
    view = {"board": {"auction": ["1S"], "hands": {"N": ["SA"]}}, "a/b": {"~": 1}}
    changes = [
        {"op": "add", "path": "/board/auction/1", "value": "P"},
        {"op": "add", "path": "/board/auction/-", "value": "2S"},
        {"op": "replace", "path": "/board/hands/N", "value": []},
        {"op": "add", "path": "/board/hands/E", "value": ["HA"]},
        {"op": "replace", "path": f"/{escape('a/b')}/{escape('~')}", "value": 2},
    ]
    assert apply(view, changes) == {
        "board": {"auction": ["1S", "P", "2S"], "hands": {"N": [], "E": ["HA"]}},
        "a/b": {"~": 2},
    }


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"op": "replace", "path": "/board/turn", "value": 1}, "nothing there"),
        ({"op": "add", "path": "/board/auction/3", "value": 1}, "past the list's end"),
        ({"op": "replace", "path": "/board/auction/1", "value": 1}, "past the list's end"),
        ({"op": "add", "path": "/board/auction/01", "value": 1}, "not an index"),
        ({"op": "add", "path": "/nowhere/x", "value": 1}, "no 'nowhere'"),
        ({"op": "add", "path": "/board/auction/0/x", "value": 1}, "neither a map nor a list"),
        ({"op": "remove", "path": "/board"}, "not a change"),
        ({"op": "add", "path": "", "value": 1}, "not a change"),
    ],
)
def test_a_change_that_does_not_fit_is_refused(change: dict[str, Any], why: str) -> None:
    view = {"board": {"auction": ["1S"]}}
    with pytest.raises(ChangeError, match=why):
        apply(view, [change])


def test_a_comparison_goes_in_the_order_of_the_boards() -> None:
    view: dict[str, Any] = {"match": {"boards": [3, 1, 2], "comparisons": []}}
    for board in (2, 3, 1):
        put_comparison(view, {"board": board, "swing": board})
    assert [c["board"] for c in view["match"]["comparisons"]] == [3, 1, 2]
    put_comparison(view, {"board": 1, "swing": 9})  # published again: the later one stands
    assert view["match"]["comparisons"] == [
        {"board": 3, "swing": 3},
        {"board": 1, "swing": 9},
        {"board": 2, "swing": 2},
    ]
    with pytest.raises(ChangeError, match="not one of the match's boards"):
        put_comparison(view, {"board": 4})


def test_comparisons_are_in_place_before_the_changes_apply() -> None:
    view: dict[str, Any] = {"match": {"boards": [1, 2], "comparisons": [{"board": 2, "dd": None}]}}
    patch(
        view,
        [{"op": "replace", "path": "/match/comparisons/1/dd", "value": 7}],
        [{"board": 1, "dd": None}],
    )
    assert view["match"]["comparisons"] == [{"board": 1, "dd": None}, {"board": 2, "dd": 7}]

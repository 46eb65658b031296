"""The browser applies an update's changes exactly as protocol/changes.py does (the rule of
protocol/SPEC.md, 'update'): clients/web/changes.js, run in Chromium, against the Python
reference on generated views and changes, and on the refusals."""

from __future__ import annotations

import random
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from protocol.changes import ChangeError, apply, diff
from server.app import Server
from tests.clients.test_browser import chromium

browser = pytest_asyncio.fixture(chromium, name="browser")
pytestmark = pytest.mark.asyncio

KEYS = ["a", "b", "N", "~", "/", "a/b", "~1", "0", "hands"]


def value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.randrange(8 if depth < 3 else 4)
    if roll == 0:
        return None
    if roll == 1:
        return rng.choice([True, False])
    if roll == 2:
        return rng.randrange(-3, 4)
    if roll == 3:
        return rng.choice(KEYS)
    if roll < 6:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): value(rng, depth + 1) for _ in range(rng.randrange(4))}


def changed(rng: random.Random, item: Any) -> Any:
    roll = rng.randrange(10)
    if roll == 0:
        return value(rng, 2)
    if isinstance(item, dict):
        result = {key: changed(rng, child) for key, child in item.items()}
        if roll == 1 and result:
            result.pop(rng.choice(sorted(result)))
        if roll == 2:
            result[rng.choice(KEYS)] = value(rng, 2)
        return result
    if isinstance(item, list):
        items = [changed(rng, child) for child in item]
        if roll == 3 and items:
            items.pop()
        if roll in (4, 5):
            items += [value(rng, 2) for _ in range(rng.randrange(1, 3))]
        return items
    return item


def cases(count: int) -> list[dict[str, Any]]:
    """Views (with a match's comparisons) and updates: board_compared events and changes."""
    rng = random.Random(5)
    made = []
    for _ in range(count):
        comparisons = [{"board": n, "swing": n} for n in (1, 3) if rng.random() < 0.7]
        old = {"match": {"boards": [1, 2, 3], "comparisons": comparisons}}
        old |= {key: value(rng) for key in rng.sample(KEYS, 3)}
        new = {key: changed(rng, child) for key, child in old.items() if key != "match"}
        events = [
            {"type": "board_compared", "comparison": {"board": n, "swing": -n}}
            for n in rng.sample([1, 2, 3], rng.randrange(3))
        ]
        made.append({"view": old, "events": events, "changes": diff(old, {**old, **new})})
    return made


BROKEN = [
    {"op": "replace", "path": "/nowhere", "value": 1},
    {"op": "add", "path": "/list/5", "value": 1},
    {"op": "add", "path": "/list/01", "value": 1},
    {"op": "remove", "path": "/list/0"},
    {"op": "add", "path": "", "value": 1},
    {"op": "add", "path": "/list/0/x", "value": 1},
]


async def test_the_browser_applies_changes_as_the_reference_does(
    server: Server, browser: Browser
) -> None:
    page = await browser.new_page()
    await page.goto(f"http://127.0.0.1:{server.port}/")
    generated = cases(300)
    applied = await page.evaluate(
        """async (cases) => {
            const { applyUpdate } = await import("/web/changes.js");
            return cases.map((update) => applyUpdate(update.view, update));
        }""",
        generated,
    )
    for case, result in zip(generated, applied, strict=True):
        comparisons = [e["comparison"] for e in case["events"]]
        assert result == apply(case["view"], case["changes"], comparisons)
    refused = await page.evaluate(
        """async (changes) => {
            const { applyUpdate, ChangeError } = await import("/web/changes.js");
            const view = { list: [1], match: { boards: [1], comparisons: [] } };
            return changes.map((change) => {
                try {
                    applyUpdate(view, { events: [], changes: [change] });
                    return "applied";
                } catch (error) {
                    return error instanceof ChangeError ? "refused" : String(error);
                }
            });
        }""",
        BROKEN,
    )
    assert refused == ["refused"] * len(BROKEN)
    for change in BROKEN:
        with pytest.raises(ChangeError):
            apply({"list": [1], "match": {"boards": [1], "comparisons": []}}, [change])
    await page.close()

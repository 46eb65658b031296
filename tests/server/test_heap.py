"""The serving process's collector: what survives a full collection is frozen, and the deep
collection frees the cycles among frozen objects that became garbage since."""

from __future__ import annotations

import gc
import weakref
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from server.heap import Heap, freeze_survivors


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, weakref.ref(second)


@pytest.fixture(autouse=True)
def no_suite_policy() -> Iterator[None]:
    """These tests see the collector as ``duplicate serve`` starts with it: without the test
    process's own freezing (tests/conftest.py), which is put back after."""
    gc.callbacks.remove(freeze_survivors)
    gc.unfreeze()
    try:
        yield
    finally:
        gc.callbacks.append(freeze_survivors)


@pytest_asyncio.fixture
async def heap() -> AsyncIterator[Heap]:
    keeper = Heap(deep_interval=3600)
    keeper.start()
    try:
        yield keeper
    finally:
        await keeper.stop()
    assert gc.get_freeze_count() == 0  # the test process's collector as it was


@pytest.mark.asyncio
async def test_what_survives_a_full_collection_is_frozen(heap: Heap) -> None:
    before = gc.get_freeze_count()
    kept = [Node() for _ in range(1000)]
    gc.collect()
    assert gc.get_freeze_count() >= before + len(kept)
    assert gc.get_count()[2] == 0
    del kept


@pytest.mark.asyncio
async def test_young_garbage_cycles_are_still_collected(heap: Heap) -> None:
    first, second = cycle()
    del first
    gc.collect(0)  # not frozen yet: the young collection finds the cycle
    assert second() is None


@pytest.mark.asyncio
async def test_the_deep_collection_frees_cycles_that_died_frozen(heap: Heap) -> None:
    first, second = cycle()
    gc.collect()  # survived a full collection: frozen
    del first
    gc.collect()
    assert second() is not None  # out of the collector's sight while frozen
    assert heap.deep() >= 2
    assert second() is None
    assert gc.get_freeze_count() > 0  # what is left is frozen again


@pytest.mark.asyncio
async def test_stop_thaws_everything_and_stops_freezing() -> None:
    keeper = Heap(deep_interval=3600)
    keeper.start()
    assert gc.get_freeze_count() > 0
    await keeper.stop()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gc.get_freeze_count() == 0

"""The serving process's collector: what survives any collection is frozen, and the deep
collection frees the cycles among frozen objects that became garbage since; it comes when
the frozen objects have grown by a share, or after an interval."""

from __future__ import annotations

import asyncio
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
async def test_what_survives_a_young_collection_is_frozen_too(heap: Heap) -> None:
    """No collection walks the same living object twice: the young ones never grow long."""
    gc.collect(0)
    before = gc.get_freeze_count()
    kept = [Node() for _ in range(500)]
    gc.collect(0)
    assert gc.get_freeze_count() >= before + len(kept)
    assert gc.get_count() == (0, 0, 0)
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
async def test_a_deep_collection_comes_once_the_frozen_objects_grew_by_the_share() -> None:
    keeper = Heap(deep_interval=3600, deep_growth=0.25, deep_slack=1000, look=0.01)
    keeper.start()
    try:
        walked = keeper.walked
        assert not keeper.due()
        dead = [cycle() for _ in range(walked // 8)]  # pairs: a quarter of what was frozen
        gc.collect(0)  # frozen: no collection sees them from now on
        probes = [second for _first, second in dead]
        del dead
        gc.collect()
        assert all(probe() is not None for probe in probes)
        assert keeper.due()
        for _ in range(500):
            await asyncio.sleep(0.01)
            if probes[0]() is None:
                break
        assert all(probe() is None for probe in probes)
        assert keeper.walked < walked * 1.25
        assert not keeper.due()
    finally:
        await keeper.stop()


@pytest.mark.asyncio
async def test_no_deep_collection_for_growth_under_the_slack() -> None:
    """A process that grows from little to its day's size is not paused for it."""
    keeper = Heap(deep_interval=3600, deep_growth=0.0, deep_slack=20_000, look=3600)
    keeper.start()
    try:
        kept = [Node() for _ in range(5_000)]
        gc.collect(0)
        assert not keeper.due()
        kept += [Node() for _ in range(30_000)]
        gc.collect(0)
        assert keeper.due()
        del kept
    finally:
        await keeper.stop()


@pytest.mark.asyncio
async def test_stop_thaws_everything_and_stops_freezing() -> None:
    keeper = Heap(deep_interval=3600)
    keeper.start()
    assert gc.get_freeze_count() > 0
    await keeper.stop()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gc.get_freeze_count() == 0

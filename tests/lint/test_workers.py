"""The lint process pool: results in order, each item read once, no worker left behind."""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from typing import overload

import pytest

from generator.run.pool import iter_parallel, run_parallel


def _square(value: int) -> int:
    return value * value


class _Counted(Sequence[int]):
    """A sequence that counts the items read from it (one by one or in slices)."""

    def __init__(self, size: int) -> None:
        self._items = list(range(size))
        self.reads = 0

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            part = self._items[index]
            self.reads += len(part)
            return part
        value = self._items[index]
        self.reads += 1
        return value


@pytest.mark.parametrize(
    ("size", "workers", "chunk"),
    [(1, 2, 4), (7, 2, 3), (30, 2, 3), (64, 3, 64), (100, 2, 7), (5, 4, 1)],
)
def test_results_come_in_order_and_every_item_is_read_once(
    size: int, workers: int, chunk: int
) -> None:
    """The parent slices each chunk out of the items: reading all of them again for every
    chunk made the parent's work grow with the square of the documents."""
    items = _Counted(size)
    ticks: list[int] = []
    results = run_parallel(_square, items, workers, chunk, ticks.append)
    assert results == [n * n for n in range(size)]
    assert items.reads == size
    assert sum(ticks) == size and max(ticks) <= chunk


def test_closing_the_iterator_early_stops_every_worker() -> None:
    results = iter_parallel(_square, list(range(200)), 2, 5, lambda done: None)
    assert next(results) == 0
    assert next(results) == 1
    results.close()
    assert multiprocessing.active_children() == []

"""The two parity rows of ``bench_runtime.py`` (issue 26): the async machine against awaiting
the same guard directly, and the TypeScript ``Machine`` against a bare ``Set.has`` walk.

* async: the walk of ``bench_runtime.py`` under asyncio, one ``AsyncMachine`` per path with
  the same coroutine guard bound to every declared pair; the baseline awaits that guard
  directly at every step after the bare membership check. Median CPU time of ``repeat``
  paired runs, each inside one event loop. The target row's guard suspends once
  (``await asyncio.sleep(0)``), the least a guard that looks something up or publishes does;
  a second row uses a guard that never suspends, where the machine's own coroutine is most of
  the step, next to its floor: the baseline plus awaiting one more empty coroutine.
* TypeScript: ``bench_runtime_ts.mjs`` on the same spec's generated module, compiled by the
  pinned tsc (tests/ts_js): ``repeat`` rounds after JIT warm-up rounds, each timing
  ``Machine.transition`` (and the other ways) right next to a run of the bare walk; the ratio
  is the median of the per-pair ratios, the ns/step columns each way's median (node's timer).

Nothing asserts on time: the rows say whether the targets hold here, now.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent

TARGET_ASYNC = 1.5
TARGET_TS_MACHINE = 1.0

Walk = list[tuple[Any, list[Any]]]


Guard = Callable[[Mapping[str, Any]], Coroutine[Any, Any, bool]]


async def _guard(_context: Mapping[str, Any]) -> bool:
    """A coroutine guard that never suspends (no I/O): the machine's overhead at its largest."""
    return True


async def _suspending_guard(_context: Mapping[str, Any]) -> bool:
    """A guard that yields to the event loop once, as any lookup or publish does."""
    await asyncio.sleep(0)
    return True


async def _nothing(value: bool) -> bool:
    return value


def _bare_async(
    module: Any, walk: Walk, guard: Guard = _guard
) -> Callable[[], Coroutine[Any, Any, None]]:
    allowed = frozenset(module.TRANSITIONS)
    view: Mapping[str, Any] = {}

    async def run() -> None:
        begin = time.thread_time_ns()
        for start, path in walk:
            state = start
            for to in path:
                if (state, to) not in allowed or not await guard(view):
                    raise ValueError(to)
                state = to
        _elapsed.append(time.thread_time_ns() - begin)

    return run


def _floor_async(module: Any, walk: Walk) -> Callable[[], Coroutine[Any, Any, None]]:
    """The bare walk plus awaiting one more (empty) coroutine per step: the least a step that
    is itself awaited costs, since a coroutine method is one more frame than the guard's."""
    allowed = frozenset(module.TRANSITIONS)
    guard = _guard
    view: Mapping[str, Any] = {}

    async def run() -> None:
        begin = time.thread_time_ns()
        for start, path in walk:
            state = start
            for to in path:
                if not await _nothing((state, to) in allowed and await guard(view)):
                    raise ValueError(to)
                state = to
        _elapsed.append(time.thread_time_ns() - begin)

    return run


def _wrapper_async(module: Any, walk: Walk) -> Callable[[], Coroutine[Any, Any, None]]:
    """What a service writes without ``AsyncMachine``: await the guard, then the sync step."""
    guard = _guard
    view: Mapping[str, Any] = {}

    async def step(machine: Any, to: Any) -> Any:
        if not await guard(view):
            raise ValueError(to)
        return machine.transition(to)

    async def run() -> None:
        bound = [(module.Machine(start), path) for start, path in walk]
        begin = time.thread_time_ns()
        for machine, path in bound:
            for to in path:
                await step(machine, to)
        _elapsed.append(time.thread_time_ns() - begin)

    return run


def _machines_async(
    module: Any, walk: Walk, guard: Guard = _guard
) -> Callable[[], Coroutine[Any, Any, None]]:
    guards = dict.fromkeys(module.TRANSITIONS, guard)

    async def run() -> None:
        bound = [(module.AsyncMachine(s, guards=guards).transition, path) for s, path in walk]
        begin = time.thread_time_ns()
        for step, path in bound:
            for to in path:
                await step(to)
        _elapsed.append(time.thread_time_ns() - begin)

    return run


_elapsed: list[int] = []


def _timed(run: Callable[[], Coroutine[Any, Any, None]]) -> int:
    """CPU time of one run in a fresh loop, as the run measures it inside the loop (neither
    the loop's start nor building the machines is a step)."""
    gc.disable()
    try:
        _elapsed.clear()
        asyncio.run(run())
        return _elapsed[0]
    finally:
        gc.enable()


class AsyncTimes(NamedTuple):
    """ns/step of each async way (see ``measure_async``)."""

    suspending_bare: float
    suspending_machine: float
    bare: float
    floor: float
    wrapper: float
    machine: float


def measure_async(module: Any, walk: Walk, repeat: int) -> AsyncTimes:
    """ns/step of the walk, every way in turn in each of ``repeat`` rounds: with the guard
    that suspends, awaited directly and through ``AsyncMachine.transition``; with the guard
    that never suspends, awaited directly, the two-coroutine floor, a hand-written wrapper
    (await the guard, then the sync ``Machine.transition``) and ``AsyncMachine.transition``."""
    steps = sum(len(path) for _, path in walk)
    ways = [
        _bare_async(module, walk, _suspending_guard),
        _machines_async(module, walk, _suspending_guard),
        _bare_async(module, walk),
        _floor_async(module, walk),
        _wrapper_async(module, walk),
        _machines_async(module, walk),
    ]
    samples: list[list[int]] = [[] for _ in ways]
    for _ in range(repeat):
        for index, way in enumerate(ways):
            samples[index].append(_timed(way))
    return AsyncTimes(*(statistics.median(s) / steps for s in samples))


def spec_of(spec_id: str) -> str | None:
    """The repository path of the spec with ``spec_id`` (None if none has it)."""
    for path in sorted((ROOT / "specs").rglob("*.md")):
        if f"\nid: {spec_id}\n" in path.read_text(encoding="utf-8"):
            return path.relative_to(ROOT).as_posix()
    return None


def measure_ts(spec_path: str, repeat: int, steps: int, seed: int) -> dict[str, Any] | None:
    """``bench_runtime_ts.mjs``'s result for the spec (``repeat`` paired rounds after its
    warm-up rounds), or None without node/npm."""
    from bench_runtime_ts import run_node

    return run_node(spec_path, repeat, steps, seed)


def report(times: AsyncTimes, ts: dict[str, Any] | None) -> None:
    print("| parity row | ns/step | baseline ns/step | ratio | target | met |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    ratio = times.suspending_machine / times.suspending_bare
    verdict = "met" if ratio <= TARGET_ASYNC else "NOT met"
    print(
        f"| `await AsyncMachine.transition()` vs awaiting the same guard directly (the guard "
        f"suspends once) | {times.suspending_machine:,.1f} | {times.suspending_bare:,.1f} "
        f"| {ratio:,.2f} | <= {TARGET_ASYNC}x | {verdict} |"
    )
    print(
        f"| the same with a guard that never suspends | {times.machine:,.1f} | {times.bare:,.1f} "
        f"| {times.machine / times.bare:,.2f} | | |"
    )
    print(
        f"| its floor: the direct await plus one more empty coroutine awaited "
        f"| {times.floor:,.1f} | {times.bare:,.1f} | {times.floor / times.bare:,.2f} | | |"
    )
    print(
        f"| the machine (never suspending guard) vs a hand-written wrapper (await the guard, "
        f"sync `Machine.transition`) | {times.machine:,.1f} | {times.wrapper:,.1f} "
        f"| {times.machine / times.wrapper:,.2f} | | |"
    )
    if ts is None:
        print("| TypeScript `Machine.transition()` | - | - | - | node and npm are needed | |")
        return
    ratio, low, high = ts["ratio"]["machine"], ts["ratioLow"]["machine"], ts["ratioHigh"]["machine"]
    verdict = "met" if ratio <= TARGET_TS_MACHINE else "NOT met"
    print(
        f"| TypeScript `Machine.transition()` vs bare `Set.has` walk (node {ts['node']}; median "
        f"of {ts['rounds']} paired rounds, quartiles {low:,.2f}-{high:,.2f}) "
        f"| {ts['machine']:,.1f} | {ts['bare']:,.1f} | {ratio:,.2f} "
        f"| <= {TARGET_TS_MACHINE}x | {verdict} |"
    )

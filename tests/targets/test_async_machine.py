"""``AsyncMachine`` of the generated Python module, proven by properties under asyncio (issue
26 section 3): one task does what the sync ``Machine`` does, step for step; concurrent tasks
with guards and listeners that await see atomic transitions (a guard sees its pair's source
state, a listener the target, the listeners' log is one chain, every success is in it); a
rejection, a raising guard and a task cancelled in its guard or while waiting leave the state
unchanged and the lock free; re-entry is refused. Run on the delivery seed (no events) and
the TCP seed (events: ``fire`` too)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .sql.cases import python_module
from .ts_support import subjects

SUBJECTS = subjects()
NAMES = ("workspace_export_delivery", "connection")


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    folder = tmp_path_factory.mktemp("async")
    return {name: python_module(SUBJECTS[name].document, folder) for name in NAMES}


#: One step: (transition or fire, index of the target or event, the guard's answer, how
#: many times the guard awaits, whether it raises).
Step = tuple[bool, int, bool, int, bool]
steps = st.lists(
    st.tuples(st.booleans(), st.integers(0, 40), st.booleans(), st.integers(0, 3), st.booleans()),
    max_size=25,
)


class GuardFailedError(Exception):
    pass


def sync_guard(context: Mapping[str, Any]) -> bool:
    if context["raises"]:
        raise GuardFailedError
    return bool(context["answer"])


async def async_guard(context: Mapping[str, Any]) -> bool:
    for _ in range(context["waits"]):
        await asyncio.sleep(0)
    return sync_guard(context)


def every_pair(module: ModuleType, guard: Callable[..., object]) -> dict[Any, Any]:
    return {pair: guard for pair in module.TRANSITIONS}


def start_of(module: ModuleType) -> Any:
    return next(s for s in module.State if s in module.INITIAL)


def call(machine: Any, module: ModuleType, step: Step) -> tuple[Any, Any]:
    """The method and argument a step names on ``machine``."""
    fire, index, *_ = step
    if fire and hasattr(module, "Event"):
        events = list(module.Event)
        return machine.fire, events[index % len(events)]
    states = list(module.State)
    return machine.transition, states[index % len(states)]


def context(step: Step) -> dict[str, object]:
    return {"answer": step[2], "waits": step[3], "raises": step[4]}


def outcome(thunk: Callable[[], object]) -> object:
    try:
        return thunk()
    except Exception as exc:  # the kind of error is the outcome
        return type(exc).__name__


async def async_outcome(thunk: Callable[[], Awaitable[object]]) -> object:
    try:
        return await thunk()
    except Exception as exc:
        return type(exc).__name__


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(script=steps, hooked=st.booleans())
def test_one_task_does_what_the_sync_machine_does(
    modules: dict[str, ModuleType], name: str, script: list[Step], hooked: bool
) -> None:
    module = modules[name]
    start = start_of(module)
    told: list[Any] = []
    sync = module.Machine(
        start,
        guards=every_pair(module, sync_guard) if hooked else None,
        listeners=[lambda t, c: told.append(t)] if hooked else (),
    )

    async def tell(transition: Any, _context: Mapping[str, Any]) -> None:
        await asyncio.sleep(0)
        told_async.append(transition)

    told_async: list[Any] = []
    machine = module.AsyncMachine(
        start,
        guards=every_pair(module, async_guard) if hooked else None,
        listeners=[tell] if hooked else (),
    )

    async def run() -> None:
        for step in script:
            method, argument = call(sync, module, step)
            want = outcome(partial(method, argument, **context(step)))
            method, argument = call(machine, module, step)
            got = await async_outcome(partial(method, argument, **context(step)))
            assert got == want, step
            assert machine.state is sync.state
            assert machine.is_terminal == sync.is_terminal
            if hasattr(module, "Event"):
                assert machine.events == sync.events

    asyncio.run(run())
    assert told_async == told


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(scripts=st.lists(steps, min_size=2, max_size=6), cancel=st.lists(st.integers(0, 8)))
def test_concurrent_tasks_see_atomic_transitions(
    modules: dict[str, ModuleType], name: str, scripts: list[list[Step]], cancel: list[int]
) -> None:
    module = modules[name]
    start = start_of(module)
    log: list[Any] = []
    problems: list[str] = []
    machine: Any = None

    async def guard(context: Mapping[str, Any]) -> bool:
        before = machine.state
        answer = await async_guard(context)
        if machine.state is not before:
            problems.append(f"the state moved from {before} while a guard ran")
        return answer

    async def listener(transition: Any, _context: Mapping[str, Any]) -> None:
        if machine.state is not transition.to_state:
            problems.append(f"a listener of {transition} saw {machine.state}")
        log.append(transition)  # before awaiting: a cancelled listener's move is logged too
        await asyncio.sleep(0)

    machine = module.AsyncMachine(start, guards=every_pair(module, guard), listeners=[listener])
    done: list[Any] = []

    async def worker(script: list[Step]) -> None:
        for step in script:
            method, argument = call(machine, module, step)
            # A refusal is suppressed: the chain of the log below proves nothing moved.
            with contextlib.suppress(module.TransitionError, GuardFailedError):
                done.append(await method(argument, **context(step)))

    async def run() -> None:
        tasks = [asyncio.create_task(worker(s)) for s in scripts]
        for count in cancel:  # cancel some tasks at some points: guard, lock wait, listener
            for _ in range(count):
                await asyncio.sleep(0)
            tasks[count % len(tasks)].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # The lock is free: a guarded move that needs a few loop turns completes in them.
        targets = sorted(module.targets(machine.state))
        if targets:
            before = len(log)
            probe = asyncio.create_task(
                machine.transition(targets[0], answer=True, waits=1, raises=False)
            )
            for _ in range(10):
                await asyncio.sleep(0)
            assert probe.done() and len(log) == before + 1

    asyncio.run(run())
    assert problems == []
    state = start
    for transition in log:  # one chain: each move starts where the previous one ended
        assert transition.from_state is state
        state = transition.to_state
    assert state is machine.state
    assert all(t in log for t in done) and len(done) <= len(log)


@pytest.mark.parametrize("name", NAMES)
def test_a_guard_cancelled_or_raising_leaves_the_state(
    modules: dict[str, ModuleType], name: str
) -> None:
    module = modules[name]
    start = start_of(module)
    target = sorted(module.targets(start))[0]
    gate = asyncio.Event

    async def run() -> None:
        opened = gate()

        async def slow(_context: Mapping[str, Any]) -> bool:
            await opened.wait()
            return True

        machine = module.AsyncMachine(start, guards={(start, target): slow})
        first = asyncio.create_task(machine.transition(target))
        second = asyncio.create_task(machine.transition(target))  # waits for the lock
        await asyncio.sleep(0)
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        assert machine.state is start and first.cancelled()
        second.cancel()
        await asyncio.gather(second, return_exceptions=True)
        assert machine.state is start
        opened.set()
        assert (await machine.transition(target)).to_state is target

        async def fails(_context: Mapping[str, Any]) -> bool:
            raise GuardFailedError

        raising = module.AsyncMachine(start, guards={(start, target): fails})
        with pytest.raises(GuardFailedError):
            await raising.transition(target)
        assert raising.state is start

    asyncio.run(run())


@pytest.mark.parametrize("name", NAMES)
def test_re_entry_is_refused(modules: dict[str, ModuleType], name: str) -> None:
    module = modules[name]
    start = start_of(module)
    target = sorted(module.targets(start))[0]

    async def run() -> None:
        machine: Any = None

        async def reenter(_context: Mapping[str, Any]) -> bool:
            await machine.transition(target)
            return True

        machine = module.AsyncMachine(start, guards={(start, target): reenter})
        with pytest.raises(RuntimeError, match="called transition"):
            await machine.transition(target)
        assert machine.state is start

        async def listener(_t: Any, _c: Mapping[str, Any]) -> None:
            await machine.transition(start)

        machine = module.AsyncMachine(start, listeners=[listener])
        with pytest.raises(RuntimeError, match="called transition") as raised:
            await machine.transition(target)
        assert machine.state is target  # the listener ran after the move
        assert any("was performed" in note for note in raised.value.__notes__)

    asyncio.run(run())


def test_async_machine_is_built_outside_a_loop_and_copies(modules: dict[str, ModuleType]) -> None:
    import copy
    import pickle

    module = modules["workspace_export_delivery"]
    start = start_of(module)
    machine = module.AsyncMachine(start, guards={next(iter(module.TRANSITIONS)): bool})
    twin = copy.deepcopy(machine)
    assert twin.state is machine.state and twin._waiters is not machine._waiters
    assert pickle.loads(pickle.dumps(machine)).state is start
    with pytest.raises(ValueError, match="cannot bind a guard"):
        module.AsyncMachine(start, guards={(start, start): bool})
    assert repr(machine).startswith("<AsyncMachine ")

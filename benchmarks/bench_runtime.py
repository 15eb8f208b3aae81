"""How fast is a generated module? ns per step of one random walk, done five ways.

    python benchmarks/bench_runtime.py [--steps 2000] [--repeat 7] [--seed 1]
        [--module generated.platform.queries.workspace_export_delivery]

The walk: random paths from the (first) initial state until a terminal state (at most 50
steps per path), concatenated until ``--steps`` steps; every step is a declared transition.
Each way does exactly that walk, tracking the current state:

* the baseline, a bare ``(state, to) in frozenset_of_pairs`` check inlined in the loop: the
  least any validation can cost in Python;
* the generated ``check(state, to)``;
* the generated ``Machine.transition(to)`` (one Machine per path, built before the clock
  starts: construction is not a step);
* the ``transitions`` and ``python-statemachine`` libraries (``pip install -e .[bench]``),
  one trigger/event per declared pair, objects likewise built before the clock starts.

Ratios are against the baseline measured in the same run; each number is the median CPU
time (``thread_time``) of ``--repeat`` runs with the garbage collector off, the ways run in
turn (paired) so that a busy machine slows them alike. The lock floor is the baseline walk
plus one uncontended ``RLock`` acquire/release per step: the least a thread-safe step costs.
Nothing here asserts on time: the table says whether the targets are met on this machine, now.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Walk = list[tuple[str, list[str]]]  # (start state, the targets stepped to in order)

#: Targets of issue 17: check() no slower than the bare walk (str arguments: than the same walk
#: over the str names, which pays the same character comparisons), and
#: Machine.transition() within 1.3x of the lock floor (the walk plus one RLock round trip).
TARGET_CHECK = 1.0
TARGET_MACHINE = 4.0
TARGET_MACHINE_FLOOR = 1.3
TARGET_VS_TRANSITIONS = 50.0


def build_walk(module: Any, steps: int, seed: int) -> Walk:
    rnd = random.Random(seed)
    start = next(s for s in module.State if s in module.INITIAL)
    walk: Walk = []
    total = 0
    while total < steps:
        state, path = start, list[str]()
        while len(path) < 50 and module.targets(state) and total + len(path) < steps:
            state = rnd.choice(sorted(module.targets(state)))
            path.append(state)
        if not path:
            raise SystemExit(f"{module.__name__}: the initial state {start!r} has no transition")
        walk.append((start, path))
        total += len(path)
    return walk


def timed(run: Callable[[], None], prepare: Callable[[], None] | None) -> int:
    """CPU time of one run (this thread's: other processes on a shared machine do not count)."""
    if prepare is not None:
        prepare()
    gc.disable()
    try:
        begin = time.thread_time_ns()
        run()
        return time.thread_time_ns() - begin
    finally:
        gc.enable()


def interleaved(
    ways: list[tuple[Callable[[], None], Callable[[], None] | None]], repeat: int
) -> list[float]:
    """The median CPU time of each way, the ways run in turn ``repeat`` times (paired runs)."""
    samples: list[list[int]] = [[] for _ in ways]
    for _ in range(repeat):
        for index, (run, prepare) in enumerate(ways):
            samples[index].append(timed(run, prepare))
    return [statistics.median(times) for times in samples]


def bench_baseline(module: Any, walk: Walk) -> Callable[[], None]:
    allowed = frozenset(module.TRANSITIONS)

    def run() -> None:
        for start, path in walk:
            state = start
            for to in path:
                if (state, to) not in allowed:
                    raise ValueError(to)
                state = to

    return run


def bench_lock_floor(module: Any, walk: Walk) -> Callable[[], None]:
    """The baseline walk plus one uncontended ``RLock`` round trip per step: the least any
    thread-safe step can cost."""
    allowed = frozenset(module.TRANSITIONS)
    lock = threading.RLock()
    acquire, release = lock.acquire, lock.release

    def run() -> None:
        for start, path in walk:
            state = start
            for to in path:
                acquire()
                try:
                    if (state, to) not in allowed:
                        raise ValueError(to)
                    state = to
                finally:
                    release()

    return run


def as_names(walk: Walk) -> Walk:
    """The same walk with plain ``str`` names (not ``State`` members), as read from storage."""
    return [("".join(start), ["".join(to) for to in path]) for start, path in walk]


def bench_check(module: Any, walk: Walk) -> Callable[[], None]:
    check = module.check

    def run() -> None:
        for start, path in walk:
            state = start
            for to in path:
                check(state, to)
                state = to

    return run


def bench_machine(module: Any, walk: Walk) -> tuple[Callable[[], None], Callable[[], None]]:
    bound: list[tuple[Callable[[str], Any], list[str]]] = []

    def prepare() -> None:
        bound[:] = [(module.Machine(start).transition, path) for start, path in walk]

    def run() -> None:
        for step, path in bound:
            for to in path:
                step(to)

    return run, prepare


def _event_names(module: Any) -> dict[tuple[str, str], str]:
    return {pair: f"e{index}" for index, pair in enumerate(module.TRANSITIONS)}


def bench_transitions(
    module: Any, walk: Walk, *, locked: bool = False
) -> tuple[Callable[[], None], Callable[[], None]]:
    from transitions import Machine
    from transitions.extensions import LockedMachine

    # LockedMachine is the thread-safe variant: what the generated Machine is.
    library: type[Machine] = LockedMachine if locked else Machine

    events = _event_names(module)
    spec = [{"trigger": name, "source": str(a), "dest": str(b)} for (a, b), name in events.items()]
    bound: list[list[Callable[[], Any]]] = []

    def prepare() -> None:
        models = [type("Model", (), {})() for _ in walk]
        library(
            model=models,
            states=[str(s) for s in module.State],
            transitions=spec,
            initial=str(walk[0][0]),
            auto_transitions=False,
        )
        bound[:] = []
        for model, (start, path) in zip(models, walk, strict=True):
            state, calls = start, []
            for to in path:
                calls.append(getattr(model, events[(state, to)]))
                state = to
            bound.append(calls)

    def run() -> None:
        for calls in bound:
            for call in calls:
                call()

    return run, prepare


def bench_statemachine(module: Any, walk: Walk) -> tuple[Callable[[], None], Callable[[], None]]:
    from statemachine import State as LibState
    from statemachine import StateMachine

    events = _event_names(module)
    initial = walk[0][0]
    states = {
        s: LibState(str(s), initial=s == initial, final=s in module.TERMINAL) for s in module.State
    }
    attrs: dict[str, Any] = {f"s{i}": state for i, state in enumerate(states.values())}
    for (a, b), name in events.items():
        attrs[name] = states[a].to(states[b])
    machine_class = type("GeneratedWalk", (StateMachine,), attrs)
    bound: list[list[Callable[[], Any]]] = []

    def prepare() -> None:
        bound[:] = []
        for start, path in walk:
            machine, state, calls = machine_class(), start, []
            for to in path:
                calls.append(getattr(machine, events[(state, to)]))
                state = to
            bound.append(calls)

    def run() -> None:
        for calls in bound:
            for call in calls:
                call()

    return run, prepare


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


Row = tuple[str, float | None, str]  # label, ns/step (None: not installed), target key


def measure(module: Any, walk: Walk, repeat: int) -> tuple[list[Row], dict[str, float]]:
    steps = sum(len(path) for _, path in walk)

    def per_step(run: Callable[[], None], prepare: Callable[[], None] | None = None) -> float:
        return interleaved([(run, prepare)], repeat)[0] / steps

    core = interleaved(
        [
            (bench_baseline(module, walk), None),
            (bench_check(module, walk), None),
            (bench_check(module, as_names(walk)), None),
            (bench_lock_floor(module, walk), None),
            bench_machine(module, walk),
            (bench_baseline(module, as_names(walk)), None),
        ],
        repeat,
    )
    base, check, check_str, floor, machine, str_floor = (value / steps for value in core)
    rows: list[Row] = [
        ("frozenset membership walk (baseline)", base, ""),
        ("generated check()", check, "check"),
        ("the same walk with plain str names (str floor)", str_floor, ""),
        ("generated check(str, str)", check_str, "check_str"),
        ("walk + one uncontended RLock round trip (lock floor)", floor, ""),
        ("generated Machine.transition()", machine, "machine"),
    ]
    libraries: tuple[tuple[str, str, Callable[[Any, Walk], Any]], ...] = (
        ("transitions.Machine", "transitions", bench_transitions),
        (
            "transitions LockedMachine",
            "transitions",
            lambda m, w: bench_transitions(m, w, locked=True),
        ),
        ("python-statemachine", "python-statemachine", bench_statemachine),
    )
    lib_times: dict[str, float] = {}
    for label, dist, bench in libraries:
        try:
            lib_run, lib_prepare = bench(module, walk)
        except ImportError:
            rows.append((f"{label} (not installed: pip install -e .[bench])", None, ""))
            continue
        lib_times[label] = per_step(lib_run, lib_prepare)
        rows.append((f"{label} {_version(dist)}", lib_times[label], ""))
    return rows, lib_times


def report(rows: list[Row], lib_times: dict[str, float]) -> None:
    baseline, check, str_floor, _, floor, machine = (row[1] for row in rows[:6])
    assert baseline is not None and check is not None and machine is not None
    assert floor is not None and str_floor is not None
    targets = {"check": TARGET_CHECK, "machine": TARGET_MACHINE}
    print("| implementation | ns/step | x baseline | target | met | x floor | target | met |")
    print("| --- | ---: | ---: | --- | --- | ---: | --- | --- |")
    for label, value, key in rows:
        if value is None:
            print(f"| {label} | - | - | | | | | |")
            continue
        ratio = value / baseline
        target, met = "", ""
        if key in targets:
            target = f"<= {targets[key]}x"
            met = "met" if ratio <= targets[key] else "NOT met"
        vs_floor, floor_target, floor_met = "", "", ""
        if key == "machine":
            vs_floor = f"{value / floor:,.2f} (lock)"
            floor_target = f"<= {TARGET_MACHINE_FLOOR}x"
            floor_met = "met" if value / floor <= TARGET_MACHINE_FLOOR else "NOT met"
        elif key == "check_str":
            # A str name can only be matched by comparing its characters with the state's
            # name (a State member is matched by identity): the least any check of str input
            # costs is the same membership walk over the str pairs.
            vs_floor = f"{value / str_floor:,.2f} (str)"
            floor_target = f"<= {TARGET_CHECK}x"
            floor_met = "met" if value / str_floor <= TARGET_CHECK else "NOT met"
        print(
            f"| {label} | {value:,.1f} | {ratio:,.2f} | {target} | {met} "
            f"| {vs_floor} | {floor_target} | {floor_met} |"
        )
    if not lib_times:
        return
    print()
    print(f"Speed-up over the transitions library (target >= {TARGET_VS_TRANSITIONS:.0f}x):")
    print()
    print("| generated | vs | speed-up | met |")
    print("| --- | --- | ---: | --- |")
    for label in ("transitions.Machine", "transitions LockedMachine"):
        for name, value in (("check()", check), ("Machine.transition()", machine)):
            if label in lib_times:
                speedup = lib_times[label] / value
                verdict = "met" if speedup >= TARGET_VS_TRANSITIONS else "NOT met"
                print(f"| {name} | {label} | {speedup:,.0f}x | {verdict} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--module", default="generated.platform.queries.workspace_export_delivery")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-typescript", action="store_true", help="skip the node row")
    args = parser.parse_args(argv)
    module: ModuleType = importlib.import_module(args.module)
    walk = build_walk(module, args.steps, args.seed)
    rows, lib_times = measure(module, walk, args.repeat)
    steps = sum(len(path) for _, path in walk)
    print(f"module: {args.module} ({module.SPEC_ID} revision {module.SPEC_REVISION})")
    print(
        f"walk: {steps} steps in {len(walk)} paths, seed {args.seed}; median CPU time of "
        f"{args.repeat} interleaved runs; Python {sys.version.split()[0]}"
    )
    print()
    report(rows, lib_times)
    import bench_runtime_parity as parity  # issue 26: the async machine and TypeScript rows

    print()
    spec = parity.spec_of(module.SPEC_ID)
    parity.report(
        parity.measure_async(module, walk, args.repeat),
        None
        if spec is None or args.no_typescript
        else parity.measure_ts(spec, max(args.repeat, 30), max(args.steps, 20000), args.seed),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

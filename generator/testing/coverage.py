"""Transition coverage of your own tests: which declared transitions, states and listed invalid
pairs of each spec they exercised.

A :class:`Collector` knows the specs to measure (each linted from its document; its identity is
the spec id *and* the SHA-256 of the document's bytes, so a module generated from another
revision or from a test's made-up spec never counts) and records what happened:

- :func:`instrument` wraps ``Machine.__init__`` and ``Machine.transition`` of a generated module,
  and :func:`hook_class_creation` does it to every generated ``Machine`` as its class is
  created (the pytest plugin uses both; the in-memory oracle of
  :mod:`generator.testing.conformance` is never instrumented);
- :meth:`Collector.listener` is a ``Machine`` listener for machines you build yourself;
- :class:`CoveringAdapter` wraps a conformance :class:`~generator.testing.conformance.Adapter`
  and records what your tests did through it, rejections included.

What counts: a state an object was created in or reached; a declared transition performed (an
accepted attempt); an invalid pair attempted (whatever the verdict: the test tried it). The
percentage is covered items over states + declared transitions + invalid pairs.

What never counts: statedoc's proof of its own generated module (:func:`not_counted`, around
``check_module``, ``run_machine`` and the tests ``statedoc_tests`` makes, which is what a
generated ``test_<...>.py`` runs): it exercises the module, not your code. The conformance kit
counts the verdicts of *your* system through its adapter, by default.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import threading
import types
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.testing.proofs.expected import Expected, load_spec

Pair = tuple[str, str]
Key = tuple[str, str]  # (spec id, document SHA-256)

_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("statedoc_not_counted", default=False)


@contextlib.contextmanager
def not_counted() -> Iterator[None]:
    """Nothing recorded inside (in this thread or task): statedoc's self-proofs run in it."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def counting() -> bool:
    """Whether a collector records now (False inside :func:`not_counted`)."""
    return not _QUIET.get()


@dataclass
class SpecCoverage:
    """What the tests exercised of one spec."""

    path: str
    expected: Expected
    states: Counter[str] = field(default_factory=Counter)
    transitions: Counter[Pair] = field(default_factory=Counter)
    invalid: Counter[Pair] = field(default_factory=Counter)

    def items(self) -> dict[str, tuple[list[Any], list[Any]]]:
        """Part name -> (covered, missed) items (a state name, or a pair), in spec order."""
        e = self.expected

        def split(items: Iterable[Any], seen: Mapping[Any, int]) -> tuple[list[Any], list[Any]]:
            listed = list(items)
            return [i for i in listed if seen[i]], [i for i in listed if not seen[i]]

        return {
            "states": split(e.states, self.states),
            "transitions": split(e.transitions, self.transitions),
            "invalid pairs": split(e.invalid, self.invalid),
        }

    def parts(self) -> dict[str, tuple[list[str], list[str]]]:
        """Part name -> (covered, missed) item labels for the table (``'a' -> 'b'``)."""
        return {
            part: ([_label(i) for i in hit], [_label(i) for i in missed])
            for part, (hit, missed) in self.items().items()
        }

    def totals(self) -> tuple[int, int]:
        """(covered, total) items."""
        parts = self.parts().values()
        return sum(len(c) for c, _ in parts), sum(len(c) + len(m) for c, m in parts)

    def percent(self) -> float:
        covered, total = self.totals()
        return 100.0 if total == 0 else 100.0 * covered / total


def _label(item: str | Pair) -> str:
    return repr(item) if isinstance(item, str) else f"{item[0]!r} -> {item[1]!r}"


def _json_item(item: str | Pair) -> object:
    """A state as its name, a pair as ``{"from": ..., "to": ...}``: values, not reprs."""
    return item if isinstance(item, str) else {"from": item[0], "to": item[1]}


class Collector:
    """Coverage of the specs given to :meth:`add_spec`; thread-safe."""

    def __init__(self) -> None:
        self.specs: dict[Key, SpecCoverage] = {}
        self._lock = threading.Lock()

    def add_spec(self, path: str | os.PathLike[str], display: str | None = None) -> SpecCoverage:
        """Measure the spec document at ``path`` (``SpecError`` if it does not lint clean)."""
        spec, sha256 = load_spec(path)
        found = SpecCoverage(display or Path(path).as_posix(), Expected.from_spec(spec))
        self.specs[(spec.id, sha256)] = found
        return found

    def add_specs(self, paths: Iterable[Path], root: Path | None = None) -> list[str]:
        """Every ``*.md`` under each folder (or each file); returns what could not be loaded."""
        from generator.testing.proofs.expected import SpecError

        skipped: list[str] = []
        for start in paths:
            files = sorted(start.rglob("*.md")) if start.is_dir() else [start]
            for path in files:
                display = _display(path, root)
                try:
                    self.add_spec(path, display)
                except SpecError as exc:
                    skipped.append(f"{display}: {exc}")
        return skipped

    def _find(self, key: Key) -> SpecCoverage | None:
        return self.specs.get(key)

    def state(self, key: Key, state: str) -> None:
        found = self._find(key)
        if found is not None and state in found.expected.state_set and counting():
            with self._lock:
                found.states[state] += 1

    def attempt(self, key: Key, from_state: str, to_state: str, accepted: bool) -> None:
        """One attempt; an accepted declared pair covers the transition and both states."""
        found = self._find(key)
        if found is None or not counting():
            return
        pair = (from_state, to_state)
        with self._lock:
            if pair in found.expected.invalid:
                found.invalid[pair] += 1
            if accepted and pair in found.expected.transitions:
                found.transitions[pair] += 1
                found.states[from_state] += 1
                found.states[to_state] += 1

    def listener(self, spec_id: str, sha256: str) -> Any:
        """A ``Machine`` listener recording every performed transition of that spec."""

        def listen(transition: Any, context: Mapping[str, Any]) -> None:
            self.attempt(
                (spec_id, sha256),
                str(transition.from_state.value),
                str(transition.to_state.value),
                True,
            )

        return listen

    # -- reports ----------------------------------------------------------------------

    def totals(self) -> tuple[int, int]:
        pairs = [c.totals() for c in self.specs.values()]
        return sum(c for c, _ in pairs), sum(t for _, t in pairs)

    def percent(self) -> float:
        covered, total = self.totals()
        return 100.0 if total == 0 else 100.0 * covered / total

    def table(self) -> str:
        """A table per spec: each part's covered/total and percentage, and what was missed."""
        lines: list[str] = []
        for (spec_id, _), found in sorted(self.specs.items(), key=lambda kv: kv[1].path):
            covered, total = found.totals()
            lines.append(f"{spec_id} {found.path}: {covered}/{total} ({found.percent():.0f}%)")
            lines.append(f"  {'part':<14} {'covered':>9}  missed")
            for part, (hit, missed) in found.parts().items():
                count = f"{len(hit)}/{len(hit) + len(missed)}"
                lines.append(f"  {part:<14} {count:>9}  {', '.join(missed) or '-'}")
        covered, total = self.totals()
        lines.append(f"TOTAL {covered}/{total} ({self.percent():.0f}%)")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        specs = []
        for (spec_id, sha256), found in sorted(self.specs.items(), key=lambda kv: kv[1].path):
            covered, total = found.totals()
            specs.append(
                {
                    "id": spec_id,
                    "path": found.path,
                    "sha256": sha256,
                    "covered": covered,
                    "total": total,
                    "percent": round(found.percent(), 2),
                    "parts": {
                        part: {
                            "covered": [_json_item(i) for i in hit],
                            "missed": [_json_item(i) for i in missed],
                        }
                        for part, (hit, missed) in found.items().items()
                    },
                }
            )
        covered, total = self.totals()
        return {
            "covered": covered,
            "total": total,
            "percent": round(self.percent(), 2),
            "specs": specs,
        }

    def write_json(self, path: str | os.PathLike[str]) -> None:
        from generator.core.files import atomic_write

        text = json.dumps(self.as_json(), indent=2, ensure_ascii=False) + "\n"
        atomic_write(Path(path), text.encode("utf-8"))


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


# -- instrumentation ------------------------------------------------------------------------


def is_generated(module: object) -> bool:
    """A module statedoc generated (and not a conformance oracle)."""
    if not isinstance(module, types.ModuleType):
        return False
    names = module.__dict__
    return (
        isinstance(names.get("SPEC_ID"), str)
        and isinstance(names.get("SPEC_SHA256"), str)
        and isinstance(names.get("Machine"), type)
        and not names.get("__statedoc_oracle__")
    )


def _generated_globals(names: Mapping[str, Any]) -> Key | None:
    """The spec key of a generated module's namespace (None for anything else, or an oracle)."""
    spec_id, sha256 = names.get("SPEC_ID"), names.get("SPEC_SHA256")
    if names.get("__statedoc_oracle__") or not isinstance(spec_id, str):
        return None
    return (spec_id, sha256) if isinstance(sha256, str) else None


def instrument(module: types.ModuleType, collector: Collector) -> bool:
    """Record ``module``'s machines into ``collector``; False if it is no generated module or
    was instrumented already. The behaviour of the module is unchanged."""
    if not is_generated(module):
        return False
    m: Any = module
    return instrument_class(m.Machine, (m.SPEC_ID, m.SPEC_SHA256), collector)


def instrument_class(machine: Any, key: Key, collector: Collector) -> bool:
    """Wrap ``Machine.__init__`` and ``Machine.transition`` of one generated module: created
    states, accepted steps and rejected attempts go to ``collector`` under ``key``."""
    if getattr(machine.transition, "statedoc_coverage", False):
        return False  # instrumented already (through another module holding the class)
    original_init = machine.__init__
    original_transition = machine.transition

    @functools.wraps(original_init)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        collector.state(key, str(self.state.value))

    @functools.wraps(original_transition)
    def transition(self: Any, to: Any, /, **context: Any) -> Any:
        try:
            found = original_transition(self, to, **context)
        except Exception as exc:
            source, target = getattr(exc, "from_state", None), getattr(exc, "to_state", None)
            if source is not None and target is not None:  # a TransitionError of the module
                collector.attempt(key, str(source.value), str(target.value), False)
            raise
        collector.attempt(key, str(found.from_state.value), str(found.to_state.value), True)
        return found

    transition.statedoc_coverage = True  # type: ignore[attr-defined]
    machine.__init__ = init
    machine.transition = transition
    return True


def hook_class_creation(collector: Collector) -> Callable[[], None]:
    """Instrument every generated ``Machine`` the moment its class is created, however its
    module is loaded (``import``, ``spec_from_file_location``, ``exec``); returns the undo.

    It wraps ``builtins.__build_class__``: one extra call per class statement, and a look at
    the namespace only for classes named ``Machine``.
    """
    import builtins

    original = builtins.__build_class__

    def build_class(func: Any, name: str, /, *bases: Any, **kwargs: Any) -> Any:
        cls = original(func, name, *bases, **kwargs)
        if name == "Machine":
            key = _generated_globals(getattr(func, "__globals__", {}))
            if key is not None:
                instrument_class(cls, key, collector)
        return cls

    namespace: Any = builtins
    namespace.__build_class__ = build_class

    def undo() -> None:
        if namespace.__build_class__ is build_class:
            namespace.__build_class__ = original

    return undo


def instrument_loaded(collector: Collector, seen: set[int]) -> int:
    """Instrument every generated module in ``sys.modules`` not in ``seen`` (ids); how many."""
    import sys

    count = 0
    for module in list(sys.modules.values()):
        if id(module) in seen:
            continue
        seen.add(id(module))
        if instrument(module, collector):
            count += 1
    return count


class CoveringAdapter:
    """A conformance adapter that records into a collector what goes through it; with
    ``collector=None`` (say ``active()`` when coverage was not asked for) it only passes through.
    """

    def __init__(
        self, adapter: Any, collector: Collector | None, spec: str | os.PathLike[str]
    ) -> None:
        self.adapter = adapter
        self.collector = collector
        parsed, sha256 = load_spec(spec)
        self.key: Key = (parsed.id, sha256)
        self.seeds_any_state = bool(getattr(adapter, "seeds_any_state", False))

    def create(self, state: str) -> Any:
        obj = self.adapter.create(state)
        if self.collector is not None:
            self.collector.state(self.key, state)
        return obj

    def read(self, obj: Any) -> object:
        return self.adapter.read(obj)

    def attempt(self, obj: Any, to_state: str) -> bool:
        if self.collector is None:
            return bool(self.adapter.attempt(obj, to_state))
        before = self.adapter.read(obj)
        accepted = bool(self.adapter.attempt(obj, to_state))
        if isinstance(before, str):
            self.collector.attempt(self.key, before, to_state, accepted)
        return accepted

    def close(self) -> None:
        closer = getattr(self.adapter, "close", None)
        if callable(closer):
            closer()


#: The collector of the running pytest session when ``--statedoc-coverage`` is on.
ACTIVE: Collector | None = None


def active() -> Collector | None:
    """The session's collector (``None`` unless the plugin was asked for coverage)."""
    return ACTIVE

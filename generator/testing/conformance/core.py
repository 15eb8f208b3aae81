"""The core of conformance testing: the adapter protocol, the oracle built from the spec, the
step tracker and the plan runner (shared by :mod:`.suite` and :mod:`.walk`)."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import os
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from generator.testing.conformance.plan import Check
from generator.testing.proofs.expected import Expected

if TYPE_CHECKING:
    from generator.model.document import Document
    from generator.testing.coverage import Collector

_MAX_LISTED = 20
_NAMES = itertools.count()


@runtime_checkable
class Adapter(Protocol):
    """How statedoc drives a system under test. Objects (``obj``) are whatever you use as a
    handle: a row id, an entity, a client. State names are the spec's, as plain ``str``.

    - ``create(state)``: a new object stored in ``state``. statedoc asks only for initial
      states (your system's own creation path) unless the adapter class sets
      ``seeds_any_state = True`` (it can store an object in any state directly, e.g. a
      fixture INSERT); then unreachable states are seeded and the walk also resumes objects in
      any state.
    - ``read(obj)``: the state your system has stored for ``obj`` (read it back from storage,
      not from a cache: a rejection that was not rolled back must show).
    - ``attempt(obj, to_state)``: ask your system to move ``obj`` to ``to_state``; return
      ``True`` if it performed the move and ``False`` if it refused (translate your domain
      error or the database's constraint error). ``to_state`` may be a name that is no state
      of the spec. Any exception is reported as a failure of the system.

    Optional: ``close()`` is called when a test (or a Hypothesis example) is done with the
    adapter. ``cannot_carry`` (a class attribute, a string of characters): names holding any
    of them are never sent (say ``"\\x00"``: PostgreSQL text cannot hold NUL, and psycopg
    and node-postgres refuse it before the server sees it); the plan lists them as
    ``uncarried``. Once specs declare events (issue 14), ``fire(obj, event) -> bool`` will
    be used the same way: the walk fires declared, undeclared and unknown events and compares
    with ``Machine.fire``; adapters without ``fire`` keep working unchanged.
    """

    def create(self, state: str) -> Any: ...

    def read(self, obj: Any) -> object: ...

    def attempt(self, obj: Any, to_state: str) -> bool: ...


class AsyncAdapter(Protocol):
    """:class:`Adapter` with coroutine methods; wrap it with :func:`sync_adapter`."""

    async def create(self, state: str) -> Any: ...

    async def read(self, obj: Any) -> object: ...

    async def attempt(self, obj: Any, to_state: str) -> bool: ...


class _SyncAdapter:
    """Runs an :class:`AsyncAdapter` on an event loop of its own (closed by ``close``)."""

    def __init__(self, inner: AsyncAdapter) -> None:
        self.inner = inner
        self.seeds_any_state = bool(getattr(inner, "seeds_any_state", False))
        self._runner = asyncio.Runner()

    def create(self, state: str) -> Any:
        return self._runner.run(self.inner.create(state))

    def read(self, obj: Any) -> object:
        return self._runner.run(self.inner.read(obj))

    def attempt(self, obj: Any, to_state: str) -> bool:
        return self._runner.run(self.inner.attempt(obj, to_state))

    def close(self) -> None:
        try:
            closer = getattr(self.inner, "close", None)
            if closer is not None:
                result = closer()
                if inspect.isawaitable(result):
                    self._runner.run(_wait(result))
        finally:
            self._runner.close()


async def _wait(result: Any) -> None:
    await result


def sync_adapter(adapter: AsyncAdapter) -> Adapter:
    """A synchronous :class:`Adapter` driving an async one on a private event loop."""
    return _SyncAdapter(adapter)


# -- the oracle -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Oracle:
    """What the spec says: its model and its ``Machine`` generated in memory from it;
    ``sha256`` of the document's bytes (with the id, its coverage key)."""

    path: str
    expected: Expected
    module: types.ModuleType
    sha256: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """The spec's key in a coverage :class:`~generator.testing.coverage.Collector`."""
        return (self.spec_id, self.sha256)

    @property
    def spec_id(self) -> str:
        return self.expected.spec_id or self.path

    def machine(self, state: str) -> Any:
        """A generated ``Machine`` resumed in ``state``."""
        m: Any = self.module
        return m.Machine(state)


def load_oracle(spec: str | os.PathLike[str]) -> Oracle:
    """Lint the spec document (``SpecError`` if it has errors) and generate its module in memory.

    The module is the ``python`` target's file for the document, reached through the target
    registry as the pipeline reaches it (the kit imports no target). It is registered in
    ``sys.modules`` under a private name and marked ``__statedoc_oracle__`` so that coverage
    collection (:mod:`generator.testing.coverage`) never counts the oracle's own steps as your
    tests' coverage.
    """
    import hashlib

    from generator.testing.proofs.expected import lint_clean

    path = Path(os.fspath(spec))
    document, data = lint_clean(path)
    name = f"_statedoc_oracle_{os.getpid()}_{next(_NAMES)}"
    source = python_module_source(document)
    module = types.ModuleType(name)
    module.__file__ = f"<statedoc oracle for {path.as_posix()}>"
    module.__dict__["__statedoc_oracle__"] = True
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    expected = Expected.from_spec(document.spec)
    return Oracle(path.as_posix(), expected, module, hashlib.sha256(data).hexdigest())


def python_module_source(document: Document) -> str:
    """The text of the Python module ``statedoc generate`` writes for ``document`` (its header
    names the spec by its path relative to the working directory)."""
    from generator.load.config import Config
    from generator.targets.registry import get_target

    here = Path.cwd()
    files = get_target("python").files(document, Config(root=here, specs=(), out=here))
    modules = [content for path, content in files.items() if path.endswith(".py")]
    if len(modules) != 1:
        raise RuntimeError(f"the python target wrote {sorted(files)}, not one module")
    return modules[0].decode("utf-8")


# -- paths and failures ---------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One attempt on an object: from the stored state to ``to_state``, and the verdict."""

    from_state: str
    to_state: str
    accepted: bool


def format_path(start: str, steps: Sequence[Step]) -> str:
    """``create 'a'; 'a' -> 'b' accepted; 'b' -> 'x' rejected``: how an object got here."""
    parts = [f"create {start!r}"]
    parts += [
        f"{s.from_state!r} -> {s.to_state!r} {'accepted' if s.accepted else 'rejected'}"
        for s in steps
    ]
    return "; ".join(parts)


class ConformanceError(AssertionError):
    """The system did not do what the spec says; ``problems`` each name their path."""

    def __init__(self, spec_id: str, problems: Sequence[str]) -> None:
        shown = list(problems[:_MAX_LISTED])
        more = len(problems) - len(shown)
        lines = [
            f"{spec_id}: the system does not honour its spec "
            f"({len(problems)} problem{'s' if len(problems) != 1 else ''}):",
            *(f"  - {p}" for p in shown),
        ]
        if more:
            lines.append(f"  ... and {more} more")
        super().__init__("\n".join(lines))
        self.spec_id = spec_id
        self.problems = tuple(problems)


class _FailedError(Exception):
    """One check failed; the message names the path."""


class Tracker:
    """One object under test: its start and the attempts made on it, checked as they happen;
    each verdict of the system goes to ``collector`` (coverage) when one is given."""

    def __init__(
        self, adapter: Adapter, oracle: Oracle, start: str, collector: Collector | None = None
    ) -> None:
        self.adapter = adapter
        self.oracle = oracle
        self.start = start
        self.collector = collector
        self.steps: list[Step] = []
        self.obj = self._call(lambda: adapter.create(start), f"create({start!r})", start)
        if collector is not None:
            collector.state(oracle.key, start)
        self.expect_stored(start, "after creation")

    @property
    def path(self) -> str:
        return format_path(self.start, self.steps)

    def _call(self, action: Callable[[], Any], what: str, name: str | None = None) -> Any:
        try:
            return action()
        except Exception as exc:
            hint = "" if name is None else carry_hint(name)
            raise _FailedError(
                f"the adapter's {what} raised {type(exc).__name__}: {exc}{hint}; path: {self.path}"
            ) from exc

    def stored(self) -> object:
        return self._call(lambda: self.adapter.read(self.obj), "read")

    def expect_stored(self, want: str, when: str) -> None:
        got = self.stored()
        if got != want:
            problem = f"stored state is {got!r} {when}, expected {want!r}"
            raise _FailedError(f"{problem}; path: {self.path}")

    def attempt(self, to_state: str, accept: bool, why: str) -> None:
        """Attempt a move and check the verdict and the stored state against ``accept``."""
        before = self.stored()
        if not isinstance(before, str):
            raise _FailedError(f"stored state {before!r} is no state name; path: {self.path}")
        accepted = self._call(
            lambda: self.adapter.attempt(self.obj, to_state), f"attempt({to_state!r})", to_state
        )
        if not isinstance(accepted, bool):
            raise _FailedError(f"attempt() returned {accepted!r}, not a bool; path: {self.path}")
        self.steps.append(Step(before, to_state, accepted))
        if self.collector is not None:
            self.collector.attempt(self.oracle.key, before, to_state, accepted)
        if accepted != accept:
            verdict = "accepted" if accepted else "rejected"
            problem = f"{before!r} -> {to_state!r} was {verdict}, but {why}"
            raise _FailedError(f"{problem}; path: {self.path}")
        if accept:
            self.expect_stored(to_state, "after an accepted move")
        else:
            self.expect_stored(before, "after a rejected move (not rolled back)")


def carry_hint(name: str) -> str:
    """What to do when the adapter raised on a name with a character drivers refuse."""
    odd = sorted({c for c in name if not c.isprintable() and c not in " "})
    if not odd:
        return ""
    listed = ", ".join(f"U+{ord(c):04X}" for c in odd)
    spelled = "".join(repr(c)[1:-1] for c in odd)
    return (
        f" (the name holds {listed}, which a driver may refuse to send: psycopg and "
        "node-postgres refuse NUL. The system must refuse the name, not fail: turn the "
        "driver's error into False, or declare the characters your driver cannot carry on "
        f'the adapter class, cannot_carry = "{spelled}", to leave such names out)'
    )


def run_check(
    adapter: Adapter, oracle: Oracle, check: Check, collector: Collector | None = None
) -> None:
    """Run one planned check; raises ``_FailedError`` naming its path."""
    tracker = Tracker(adapter, oracle, check.path[0], collector)
    for here, nxt in itertools.pairwise(check.path):
        tracker.attempt(nxt, True, f"the spec declares {here!r} -> {nxt!r} (on the way)")
    if check.target is not None:
        tracker.attempt(check.target, check.accept, check.reason)


def run_checks(
    adapter: Adapter,
    oracle: Oracle,
    checks: Sequence[Check],
    collector: Collector | None = None,
) -> None:
    """Run every check, collect every failure, raise one :class:`ConformanceError`;
    ``collector``: where the system's verdicts count as coverage (None: nowhere)."""
    problems: list[str] = []
    for check in checks:
        try:
            run_check(adapter, oracle, check, collector)
        except _FailedError as exc:
            problems.append(f"{check.title}: {exc}")
    if problems:
        raise ConformanceError(oracle.spec_id, problems)


# -- the one-liner --------------------------------------------------------------------------


def collector_for(system: object, wanted: bool = True) -> Collector | None:
    """The session's coverage collector for the kit's own recording: None when coverage is
    off, not wanted, or the adapter records already (a ``CoveringAdapter`` with a collector)."""
    from generator.testing.coverage import CoveringAdapter, active

    collector = active()
    if not wanted or collector is None:
        return None
    if isinstance(system, CoveringAdapter) and system.collector is not None:
        return None
    return collector


def _close(system: object) -> None:
    closer = getattr(system, "close", None)
    if callable(closer):
        closer()

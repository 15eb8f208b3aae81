"""A Hypothesis random walk over a system under test, in step with the generated ``Machine``.

Each example makes a fresh adapter and an object in an initial state, then attempts, in any
order: a declared transition from the current state, a pair the spec lists as invalid, any
state (never the current one unless ``s -> s`` is declared), a name that is no state, and a
fresh object (in any state when the adapter ``seeds_any_state``). The verdict of every attempt
must be the generated ``Machine``'s (performed or raised), and after every step the stored
state must equal the ``Machine``'s. A failure is a :class:`ConformanceError` whose message
names the path of the object, shrunk by Hypothesis to a shortest one it could find.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from generator.testing.conformance.core import (
    Adapter,
    ConformanceError,
    Oracle,
    Tracker,
    _close,
    _FailedError,
    collector_for,
)

if TYPE_CHECKING:
    import hypothesis


def walk_machine(
    oracle: Oracle, factory: Callable[[], Adapter], coverage: bool = True
) -> type[RuleBasedStateMachine]:
    """The ``RuleBasedStateMachine`` class of the walk (run it with :func:`run_walk`); with
    ``coverage`` the system's verdicts count in the session's coverage report."""
    expected = oracle.expected
    states = expected.states
    initial = [s for s in states if s in expected.initial] or list(states)
    names = [*expected.unknown_names(), "no such state"]
    m: Any = oracle.module

    class ConformanceWalk(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.adapter = factory()
            self.anywhere = bool(getattr(self.adapter, "seeds_any_state", False))
            self.collector = collector_for(self.adapter, coverage)
            self.tracker: Tracker | None = None
            self.machine: Any = None

        def teardown(self) -> None:
            _close(self.adapter)

        def _fail(self, error: _FailedError) -> None:
            raise ConformanceError(oracle.spec_id, [f"random walk: {error}"]) from error

        def _new(self, start: str) -> None:
            try:
                self.tracker = Tracker(self.adapter, oracle, start, self.collector)
            except _FailedError as exc:
                self._fail(exc)
            self.machine = oracle.machine(start)

        @initialize(start=st.sampled_from(initial))
        def create(self, start: str) -> None:
            self._new(start)

        @rule(data=st.data())
        def fresh_object(self, data: st.DataObject) -> None:
            self._new(data.draw(st.sampled_from(list(states) if self.anywhere else initial)))

        def _attempt(self, to_state: str) -> None:
            assert self.tracker is not None
            here = self.machine.state.value
            try:
                self.machine.transition(to_state)
                accept, why = True, "the spec declares it"
            except m.ForbiddenTransition as exc:
                accept, why = False, f"the spec forbids it: {exc.why}"
            except m.TransitionError:
                accept, why = False, "the spec does not declare it"
            except ValueError:
                accept, why = False, f"{to_state!r} is no state"
            note(f"{here!r} -> {to_state!r}: the spec says {'accept' if accept else 'reject'}")
            try:
                self.tracker.attempt(to_state, accept, why)
            except _FailedError as exc:
                self._fail(exc)

        def _here(self) -> str:
            return str(self.machine.state.value)

        @precondition(lambda self: bool(expected.targets(self._here())))
        @rule(data=st.data())
        def declared(self, data: st.DataObject) -> None:
            targets = [s for s in states if s in expected.targets(self._here())]
            self._attempt(data.draw(st.sampled_from(targets)))

        @precondition(lambda self: bool(expected.invalid_targets(self._here())))
        @rule(data=st.data())
        def invalid(self, data: st.DataObject) -> None:
            self._attempt(data.draw(st.sampled_from(expected.invalid_targets(self._here()))))

        @rule(name=st.sampled_from(states))
        def any_state(self, name: str) -> None:
            here = self._here()
            if name != here or name in expected.targets(here):
                self._attempt(name)

        @rule(data=st.data())
        def unknown_name(self, data: st.DataObject) -> None:
            carry = str(getattr(self.adapter, "cannot_carry", ""))
            sent = [n for n in names if not any(c in n for c in carry)] or ["no such state"]
            self._attempt(data.draw(st.sampled_from(sent)))

        @invariant()
        def stored_state_is_the_machines(self) -> None:
            if self.tracker is not None:
                try:
                    self.tracker.expect_stored(self._here(), "between steps")
                except _FailedError as exc:
                    self._fail(exc)

    ConformanceWalk.__name__ = ConformanceWalk.__qualname__ = "ConformanceWalk"
    return ConformanceWalk


def run_walk(
    oracle: Oracle,
    factory: Callable[[], Adapter],
    settings: hypothesis.settings | None = None,
    coverage: bool = True,
) -> None:
    """Run the walk as one test (``settings``: default the active Hypothesis profile)."""
    runner: Callable[..., None] = run_state_machine_as_test
    runner(walk_machine(oracle, factory, coverage), settings=settings)

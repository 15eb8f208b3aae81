"""A Hypothesis ``RuleBasedStateMachine`` that drives a generated ``Machine`` at random.

:func:`state_machine_for` builds one for a generated module. Each run starts a ``Machine`` in
an initial state with random guards bound to random declared pairs (each guard says yes, no,
whatever the context says, or raises; the model records which), and a listener that records
every performed step. Rules then attempt, in any order: a declared transition, a listed invalid
pair (from the current state and from anywhere), an undeclared pair, a name that is no state,
any state at all, and resuming a machine in any declared state. Each attempt is checked
against the model (:class:`~generator.testing.proofs.expected.Expected`) built from the *spec*:

- a listed invalid pair raises ``ForbiddenTransition`` with the spec's ``why`` and the pair;
- an undeclared pair raises ``UndeclaredTransition``, a non-state name ``ValueError``;
- a guard that says no raises ``GuardRejected``; a guard that raises passes its error on;
- any rejection leaves the state unchanged and calls no listener;
- a performed step returns the spec's transition record and moves to its target.

Invariants after every step: the state is a declared ``State``; ``is_terminal`` agrees with
the spec; a terminal state accepts no move to another state; every step the listener saw is a
declared transition, and the steps chain up to the current state.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import hypothesis
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

from generator.testing.proofs.checks import (
    GuardBoomError,
    check_error,
)
from generator.testing.proofs.events import NOT_EVENTS, fire_step
from generator.testing.proofs.expected import FORBIDDEN, OK, UNDECLARED, Expected, SpecLike
from generator.testing.proofs.failures import (
    Failures,
    check_transition_record,
    describe,
)

#: What a random guard does: always yes, always no, the context's ``ok``, or raise.
GUARD_KINDS = ("yes", "no", "context", "raise")
#: At most this many pairs get a guard (a spec may have thousands of transitions).
MAX_GUARDED = 24


@dataclass(frozen=True)
class Step:
    """One transition a listener saw: the record, the context, and the state it observed."""

    transition: Any
    context: dict[str, object]
    state_seen: Any


def _contexts() -> st.SearchStrategy[dict[str, object]]:
    return st.fixed_dictionaries(
        {"ok": st.booleans()},
        optional={
            "actor": st.text(max_size=8),
            "attempt": st.integers(0, 3),
            "reason": st.none() | st.text(max_size=8),
        },
    )


def state_machine_for(
    module: types.ModuleType, spec: SpecLike | None = None
) -> type[RuleBasedStateMachine]:
    """A ``RuleBasedStateMachine`` class testing ``module`` against ``spec``.

    ``spec`` is the spec document's path (or its parsed :class:`~generator.model.spec.Spec`); a
    relative path is also tried from the project root above the module's file. Give it
    whenever you can: the expected behaviour then comes from the spec, so a module whose
    tables and behaviour are wrong together still fails. Without it (``spec=None``) the
    model falls back to the module's own tables (``State``, ``TRANSITIONS``, ``INVALID``,
    ``INITIAL``), which only proves the module consistent with itself.

    Run it with :func:`run_machine` (or Hypothesis' ``run_state_machine_as_test``), or as
    ``cls.TestCase`` (unittest/pytest).
    """
    return _machine_class(module, Expected.for_module(module, spec))


def _machine_class(module: types.ModuleType, expected: Expected) -> type[RuleBasedStateMachine]:
    m: Any = module
    states = expected.states
    initial = sorted(expected.initial, key=states.index) or list(states)
    declared = expected.declared_pairs
    invalid = expected.invalid_pairs
    unknown = st.text(max_size=6).filter(lambda s: s not in expected.state_set) | st.sampled_from(
        expected.unknown_names() or ("\x00",)
    )
    unknown_events = st.text(max_size=6).filter(
        lambda s: s not in expected.event_names
    ) | st.sampled_from(expected.unknown_events() or NOT_EVENTS)
    guard_plans = (
        st.dictionaries(
            st.sampled_from(declared), st.sampled_from(GUARD_KINDS), max_size=MAX_GUARDED
        )
        if declared
        else st.just({})
    )

    class StatedocMachine(RuleBasedStateMachine):
        """Random attempts against one generated module; see :mod:`.state_machine`."""

        def __init__(self) -> None:
            super().__init__()
            self.plan: dict[tuple[str, str], str] = {}
            self.guards: dict[tuple[Any, Any], Any] = {}
            self.steps: list[Step] = []  # what the listener saw
            self.performed: list[Any] = []  # what transition() returned
            self.listen = True
            self.start: str = states[0]
            self.machine: Any = None

        # -- setup ---------------------------------------------------------------------

        def _member(self, name: str) -> Any:
            return m.State(name)

        def _guard(self, kind: str, pair: tuple[str, str]) -> Any:
            def guard(context: Mapping[str, object]) -> bool:
                if kind == "raise":
                    raise GuardBoomError(f"{pair[0]!r} -> {pair[1]!r}")
                if kind == "context":
                    return bool(context.get("ok"))
                return kind == "yes"

            return guard

        def _listen(self, transition: Any, context: Mapping[str, object]) -> None:
            self.steps.append(Step(transition, dict(context), self.machine.state))

        def _new_machine(self, start: str, as_name: bool) -> None:
            self.start = start
            self.steps = []
            self.performed = []
            try:
                self.machine = m.Machine(
                    start if as_name else self._member(start),
                    guards=self.guards,
                    listeners=[self._listen] if self.listen else (),
                )
            except Exception as exc:  # the spec declares every guarded pair and the start
                raise AssertionError(
                    f"Machine({start!r}, guards on {sorted(self.plan)!r}) raised {describe(exc)}"
                ) from exc
            if self.machine.state != self._member(start):
                raise AssertionError(f"Machine({start!r}) starts in {self.machine.state!r}")

        @initialize(
            start=st.sampled_from(initial),
            plan=guard_plans,
            as_name=st.booleans(),
            keys_as_names=st.booleans(),
            listen=st.booleans(),
        )
        def start_machine(
            self,
            start: str,
            plan: dict[tuple[str, str], str],
            as_name: bool,
            keys_as_names: bool,
            listen: bool,
        ) -> None:
            """Guards and listeners are optional: a bare ``Machine`` may take a faster path."""
            self.plan = plan
            self.listen = listen
            note(f"model: {expected.origin}; guards: {plan!r}; listener: {listen}")
            values = {getattr(s, "value", s) for s in m.State}
            if values != expected.state_set:
                raise AssertionError(f"State has {sorted(values)!r}, expected {sorted(states)!r}")
            for label, table, want in (
                ("INITIAL", m.INITIAL, expected.initial),
                ("TERMINAL", m.TERMINAL, expected.terminal),
            ):
                if {s.value for s in table} != want:
                    raise AssertionError(f"{label} is {sorted(table)!r}, expected {sorted(want)!r}")
            self.guards = {
                (pair if keys_as_names else (self._member(pair[0]), self._member(pair[1]))): (
                    self._guard(kind, pair)
                )
                for pair, kind in plan.items()
            }
            self._new_machine(start, as_name)

        # -- attempts ------------------------------------------------------------------

        @property
        def here(self) -> str:
            state = self.machine.state
            return str(getattr(state, "value", state))

        def _expect(self, target: str, context: Mapping[str, object]) -> str:
            """``ok``, ``forbidden``, ``undeclared``, ``guard`` (rejected) or ``raise``."""
            outcome = expected.outcome(self.here, target)
            if outcome != OK:
                return outcome
            kind = self.plan.get((self.here, target))
            if kind == "no" or (kind == "context" and not context.get("ok")):
                return "guard"
            return "raise" if kind == "raise" else OK

        def _check_lookups(
            self, target: str, as_name: bool, outcome: str, failures: Failures
        ) -> None:
            """``Machine.can`` and the pure ``check`` agree with the spec (no guard called)."""
            source = self.here
            can = self.machine.can(target if as_name else self._member(target))
            if can is not (outcome == OK):
                failures.add(f"Machine in {source!r}: can({target!r}) is {can!r}")
            where = f"check({source!r}, {target!r})"
            try:
                record = m.check(source, target)
            except Exception as exc:
                if outcome == OK:
                    failures.add(f"{where} raised {describe(exc)}")
                else:
                    check_error(exc, outcome, (source, target), expected, m, failures, where)
            else:
                if outcome == OK:
                    want = expected.transitions[(source, target)]
                    check_transition_record(record, want, m, failures, where)
                else:
                    failures.add(f"{where} allowed a {outcome} pair")

        def _attempt(self, target: str, context: dict[str, object], as_name: bool) -> None:
            source = self.here
            want = self._expect(target, context)
            failures = Failures(module.__name__, expected.origin)
            self._check_lookups(target, as_name, expected.outcome(source, target), failures)
            before = len(self.steps)
            where = f"Machine in {source!r}: transition({target!r}, **{context!r})"
            try:
                result = self.machine.transition(
                    target if as_name else self._member(target), **context
                )
            except Exception as exc:
                error: Exception | None = exc
                result = None
            else:
                error = None
            note(f"{source!r} -> {target!r} {context!r}: {describe(error)} (expected {want})")
            if want == OK:
                if error is not None:
                    failures.add(f"{where}: raised {describe(error)}")
                else:
                    want_record = expected.transitions[(source, target)]
                    check_transition_record(result, want_record, m, failures, where)
                if self.here != target:
                    failures.add(f"{where}: the state is {self.here!r} afterwards")
                self.performed.append(result)
                if len(self.steps) != before + self.listen:
                    failures.add(f"{where}: listeners saw {len(self.steps) - before} steps")
                elif self.listen and (
                    self.steps[-1].context != context or self.steps[-1].transition != result
                ):
                    failures.add(f"{where}: the listener saw {self.steps[-1]!r}")
            else:
                self._check_rejection(error, want, source, target, where, failures)
                if self.here != source:
                    failures.add(f"{where}: rejected ({want}) but the state is now {self.here!r}")
                if len(self.steps) != before:
                    failures.add(f"{where}: rejected ({want}) but a listener was called")
            failures.raise_if_any()

        def _check_rejection(
            self,
            error: Exception | None,
            want: str,
            source: str,
            target: str,
            where: str,
            failures: Failures,
        ) -> None:
            if want in (FORBIDDEN, UNDECLARED):
                check_error(error, want, (source, target), expected, m, failures, where)
            elif want == "guard":
                if not (
                    isinstance(error, m.GuardRejected)
                    and getattr(error, "from_state", None) == self._member(source)
                    and getattr(error, "to_state", None) == self._member(target)
                ):
                    failures.add(f"{where}: a guard said no, got {describe(error)}")
            elif not isinstance(error, GuardBoomError):
                failures.add(f"{where}: the guard raised, the caller got {describe(error)}")

        @precondition(lambda self: bool(expected.targets(self.here)))
        @rule(data=st.data(), context=_contexts(), as_name=st.booleans())
        def attempt_declared(
            self, data: st.DataObject, context: dict[str, object], as_name: bool
        ) -> None:
            target = data.draw(
                st.sampled_from(sorted(expected.targets(self.here), key=states.index))
            )
            self._attempt(target, context, as_name)

        @precondition(lambda self: bool(expected.invalid_targets(self.here)))
        @rule(data=st.data(), context=_contexts(), as_name=st.booleans())
        def attempt_invalid_here(
            self, data: st.DataObject, context: dict[str, object], as_name: bool
        ) -> None:
            target = data.draw(st.sampled_from(expected.invalid_targets(self.here)))
            self._attempt(target, context, as_name)

        @precondition(lambda self: bool(expected.undeclared_targets(self.here)))
        @rule(data=st.data(), context=_contexts(), as_name=st.booleans())
        def attempt_undeclared(
            self, data: st.DataObject, context: dict[str, object], as_name: bool
        ) -> None:
            target = data.draw(st.sampled_from(expected.undeclared_targets(self.here)))
            self._attempt(target, context, as_name)

        @rule(to=st.sampled_from(states), context=_contexts(), as_name=st.booleans())
        def attempt_any(self, to: str, context: dict[str, object], as_name: bool) -> None:
            self._attempt(to, context, as_name)

        @precondition(lambda self: bool(invalid))
        @rule(data=st.data(), as_name=st.booleans())
        def attempt_invalid_anywhere(self, data: st.DataObject, as_name: bool) -> None:
            """A listed invalid pair can never be performed, from any state, guards or not."""
            pair = data.draw(st.sampled_from(invalid))
            a, b = pair if as_name else (self._member(pair[0]), self._member(pair[1]))
            failures = Failures(module.__name__, expected.origin)
            try:
                m.check(a, b)
            except Exception as exc:
                check_error(exc, FORBIDDEN, pair, expected, m, failures, f"check{pair!r}")
            else:
                failures.add(f"check{pair!r} returned a transition for a listed invalid pair")
            if m.can_transition(a, b) is not False:
                failures.add(f"can_transition{pair!r} is not False for a listed invalid pair")
            other = m.Machine(a, guards=self.guards)
            try:
                other.transition(b)
            except Exception as exc:
                where = f"Machine({pair[0]!r}).transition({pair[1]!r})"
                check_error(exc, FORBIDDEN, pair, expected, m, failures, where)
            else:
                failures.add(f"Machine({pair[0]!r}).transition({pair[1]!r}) was performed")
            if other.state != self._member(pair[0]):
                failures.add(f"a rejected {pair!r} moved a fresh machine to {other.state!r}")
            failures.raise_if_any()

        @rule(name=unknown, context=_contexts())
        def attempt_unknown_name(self, name: str, context: dict[str, object]) -> None:
            source = self.here
            before = len(self.steps)
            for label, call, args in (
                ("transition", self.machine.transition, (name,)),
                ("can", self.machine.can, (name,)),
                ("check", m.check, (source, name)),
                ("Machine", m.Machine, (name,)),
            ):
                try:
                    call(*args, **(context if label == "transition" else {}))
                except ValueError:
                    pass
                except Exception as exc:
                    raise AssertionError(
                        f"{label}({name!r}): {describe(exc)}, not ValueError"
                    ) from exc
                else:
                    raise AssertionError(f"{label}({name!r}) accepted a name that is not a state")
            if self.here != source or len(self.steps) != before:
                raise AssertionError(f"transition({name!r}) was rejected but moved the machine")

        @rule(start=st.sampled_from(states), as_name=st.booleans())
        def resume(self, start: str, as_name: bool) -> None:
            """``Machine(state)`` resumes an object loaded from storage in any declared state."""
            self._new_machine(start, as_name)

        # -- invariants ----------------------------------------------------------------

        # -- named events ----------------------------------------------------------------

        @precondition(lambda self: bool(expected.event_names))
        @rule(
            data=st.data(),
            context=_contexts(),
            kind=st.sampled_from(("here", "elsewhere", "unknown")),
        )
        def fire_event(self, data: st.DataObject, context: dict[str, object], kind: str) -> None:
            """An event declared from the current state, one declared only elsewhere, or a
            name that is no event at all."""
            here = self.here
            pools = {
                "here": [e for e in expected.event_names if (here, e) in expected.events],
                "elsewhere": [e for e in expected.event_names if (here, e) not in expected.events],
            }
            if kind == "unknown":
                event = data.draw(unknown_events, label="event")
            elif pools[kind]:
                event = data.draw(st.sampled_from(pools[kind]), label="event")
            else:
                return
            fire_step(self, m, expected, event, context)

        @invariant()
        def state_is_declared(self) -> None:
            state = self.machine.state
            if not isinstance(state, m.State) or state.value not in expected.state_set:
                raise AssertionError(f"the state {state!r} is not a declared State")

        @invariant()
        def terminal_states_accept_nothing(self) -> None:
            here = self.here
            terminal = here in expected.terminal
            if self.machine.is_terminal is not terminal:
                raise AssertionError(f"is_terminal is {self.machine.is_terminal!r} in {here!r}")
            if terminal:
                leaving = [t for t in states if t != here and self.machine.can(t)]
                if leaving:
                    raise AssertionError(f"terminal {here!r} accepts moves to {leaving!r}")

        @invariant()
        def every_step_is_declared(self) -> None:
            """The steps performed since the machine started chain from its start state to the
            current state, each a declared transition; a listener saw each one, in order,
            with the state already changed."""
            failures = Failures(module.__name__, expected.origin)
            previous = self.start
            for t in self.performed:
                pair = (str(t.from_state.value), str(t.to_state.value))
                if pair not in expected.transitions:
                    failures.add(f"a step {pair!r} was performed that the spec does not declare")
                    break
                if pair[0] != previous:
                    failures.add(f"a step {pair!r} started from {pair[0]!r}, not {previous!r}")
                event = getattr(t, "event", None)
                table = (
                    m.TRANSITIONS.get((t.from_state, t.to_state))
                    if event is None
                    else m.TRANSITIONS_BY_EVENT.get((t.from_state, event))
                )
                if table != t:
                    failures.add(f"the step {pair!r} is not the module's table entry")
                previous = pair[1]
            if previous != self.here:
                failures.add(f"the steps end in {previous!r} but the state is {self.here!r}")
            if self.listen:
                seen = [step.transition for step in self.steps]
                if seen != self.performed:
                    failures.add(f"the listener saw {seen!r}, the caller got {self.performed!r}")
                for step in self.steps:
                    if step.state_seen != step.transition.to_state:
                        failures.add(f"a listener of {step.transition!r} saw {step.state_seen!r}")
            elif self.steps:
                failures.add(f"no listener is bound, yet {len(self.steps)} calls were recorded")
            failures.raise_if_any()

    StatedocMachine.__name__ = StatedocMachine.__qualname__ = f"StatedocMachine_{_tail(module)}"
    return StatedocMachine


def run_machine(
    machine: type[RuleBasedStateMachine], settings: hypothesis.settings | None = None
) -> None:
    """Run a state machine class as one test (``settings``: default the active profile);
    statedoc's proof of its own module, so nothing it does counts as coverage."""
    from generator.testing.coverage import not_counted

    # Typed through a Callable: older Hypothesis releases leave this function unannotated.
    runner: Callable[..., None] = run_state_machine_as_test
    with not_counted():
        runner(machine, settings=settings)


def _tail(module: types.ModuleType) -> str:
    name = module.__name__.rsplit(".", 1)[-1]
    return name if name.isidentifier() else "module"

"""The exhaustive check of a module's named events: every (state, event), and some non-events.

For each state and each event of the model, ``Machine.fire`` must take exactly the transition
the spec declares for that event from that state (the record, the new state, the listener's
view, the pair's guard) or raise ``EventNotAllowed`` and leave the state alone; a name that is
not an event raises ``ValueError``. No event may ever reach a pair the spec lists as invalid.
A module generated from a spec without events must not grow an events API at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from generator.model.events import method_clash
from generator.model.verdicts import ALLOWED, FireVector, Vectors
from generator.testing.proofs.expected import Expected
from generator.testing.proofs.failures import Failures, _call, check_transition_record, describe

#: Names that are never an event (an event is lower snake case).
NOT_EVENTS = ("", "Close", "close ", "__class__", "\x00", "no such event")


def check_events(
    m: Any,
    expected: Expected,
    members: dict[str, Any],
    failures: Failures,
    vectors: Vectors | None = None,
) -> None:
    """Every (state, event) of the vectors (default: the model's) through every events entry
    point, and every name of their ``not_events``."""
    if vectors is None:
        vectors = expected.vectors
    if not expected.event_names:
        for name in ("Event", "TRANSITIONS_BY_EVENT", "transitions_for"):
            if hasattr(m, name):
                failures.add(f"{name} exists, but the spec declares no events")
        if hasattr(m.Machine, "fire"):
            failures.add("Machine.fire exists, but the spec declares no events")
        return
    event_cls = getattr(m, "Event", None)
    if not (isinstance(event_cls, type) and issubclass(event_cls, StrEnum)):
        failures.add("Event is missing or not an enum.StrEnum")
        return
    values = [e.value for e in event_cls]
    if sorted(values) != sorted(expected.event_names):
        failures.add(f"Event values {values!r} differ from the events {expected.event_names!r}")
        return
    methods = all(method_clash(name) is None for name in expected.event_names)
    not_events = tuple(n.name for n in vectors.not_events) or NOT_EVENTS
    for vector in vectors.fires:
        if vector.from_state in members and vector.event in values:
            _check_fire(m, expected, members, failures, vector, methods)
    for state in expected.states:
        _check_not_events(m, members[state], failures, state, not_events)
    if expected.spec_based:
        for (a, b), every in expected.by_pair.items():
            got, exc = _call(m.transitions_for, a, b)
            events = [t.event for t in every]
            if exc is not None or [getattr(t, "event", None) for t in got] != events:
                failures.add(f"transitions_for({a!r}, {b!r}) is {got!r} ({describe(exc)})")


def _check_fire(
    m: Any,
    expected: Expected,
    members: dict[str, Any],
    failures: Failures,
    vector: FireVector,
    methods: bool,
) -> None:
    state, event = vector.from_state, vector.event
    where = f"Machine({state!r}).fire({event!r})"
    want = expected.events.get((state, event)) if vector.verdict == ALLOWED else None
    if vector.verdict == ALLOWED and (want is None or want.to_state != vector.to_state):
        failures.add(f"{where}: the vectors say it moves to {vector.to_state!r}, the model not")
        return
    table = m.TRANSITIONS_BY_EVENT.get((members[state], m.Event(event)))
    heard: list[Any] = []
    callers: list[tuple[str, Any]] = [
        ("plain", m.Machine(members[state])),
        ("listened", m.Machine(members[state], listeners=[lambda t, c: heard.append(t)])),
    ]
    for label, machine in callers:
        can, exc = _call(machine.can_fire, event)
        if exc is not None or can is not (want is not None):
            failures.add(f"{where}: can_fire is {can!r} ({describe(exc)})")
        if methods and label == "listened":  # the typed method fires the same event
            result, exc = _call(getattr(machine, event))
        else:
            result, exc = _call(machine.fire, event)
        if want is None:
            if not isinstance(exc, m.EventNotAllowed) or not isinstance(exc, m.TransitionError):
                failures.add(f"{where} ({label}): expected EventNotAllowed, got {describe(exc)}")
            elif exc.from_state is not members[state] or exc.event != event:
                failures.add(
                    f"{where} ({label}): the error names {exc.from_state!r}, {exc.event!r}"
                )
            if machine.state is not members[state]:
                failures.add(f"{where} ({label}) was refused but moved to {machine.state!r}")
            if heard:
                failures.add(f"{where} ({label}) was refused but the listener heard {heard!r}")
            continue
        if exc is not None:
            failures.add(f"{where} ({label}): raised {describe(exc)}")
            continue
        check_transition_record(result, want, m, failures, f"{where} ({label})")
        if machine.state is not members[want.to_state]:
            failures.add(f"{where} ({label}): the state is {machine.state!r} afterwards")
        if (want.from_state, want.to_state) in expected.invalid:
            failures.add(f"{where} ({label}) reached a pair the spec lists as invalid")
        if label == "listened" and heard != [result]:
            failures.add(f"{where}: the listener heard {heard!r}")
    if want is None:
        if table is not None:
            failures.add(f"TRANSITIONS_BY_EVENT has ({state!r}, {event!r}), the spec does not")
    else:
        check_transition_record(table, want, m, failures, f"TRANSITIONS_BY_EVENT {where}")
        _check_fire_guard(m, members, failures, want, where)


def _check_fire_guard(
    m: Any, members: dict[str, Any], failures: Failures, want: Any, where: str
) -> None:
    """The guard bound to the transition's pair decides ``fire`` too, with the context."""
    seen: list[Mapping[str, object]] = []

    def deny(context: Mapping[str, object]) -> bool:
        seen.append(dict(context))
        return False

    machine, exc = _call(m.Machine, want.from_state, guards={want.pair: deny})
    if exc is not None:
        failures.add(f"{where}: binding a guard to {want.pair!r} raised {describe(exc)}")
        return
    _, exc = _call(machine.fire, want.event, probe=1)
    if not isinstance(exc, m.GuardRejected) or seen != [{"probe": 1}]:
        failures.add(f"{where} with a denying guard: {describe(exc)}, the guard saw {seen!r}")
    if machine.state is not members[want.from_state]:
        failures.add(f"{where} with a denying guard moved to {machine.state!r}")


def _check_not_events(
    m: Any, member: Any, failures: Failures, state: str, names: tuple[str, ...]
) -> None:
    for name in names:
        if name in {e.value for e in m.Event}:
            continue
        machine = m.Machine(member)
        _, exc = _call(machine.fire, name)
        if not isinstance(exc, ValueError) or machine.state is not member:
            failures.add(f"Machine({state!r}).fire({name!r}): expected ValueError, {describe(exc)}")


def fire_step(
    machine: Any, m: Any, expected: Expected, event: str, context: dict[str, object]
) -> None:
    """One ``fire`` of the stateful test (``machine`` is the Hypothesis machine): the outcome
    the spec and the bound guards call for, the state afterwards and what the listener saw."""
    from hypothesis import note  # only the stateful test calls this

    source = machine.here
    want = expected.events.get((source, event))
    failures = Failures(m.__name__, expected.origin)
    before = len(machine.steps)
    where = f"Machine in {source!r}: fire({event!r}, **{context!r})"
    outcome = "no-event" if want is None else machine._expect(want.to_state, context)
    if want is None and event not in expected.event_names:
        outcome = "unknown"
    try:
        result, error = machine.machine.fire(event, **context), None
    except Exception as exc:
        result, error = None, exc
    note(f"fire {event!r} in {source!r} {context!r}: {describe(error)} (expected {outcome})")
    if want is not None and outcome == "ok":
        if error is not None:
            failures.add(f"{where}: raised {describe(error)}")
        else:
            check_transition_record(result, want, m, failures, where)
            machine.performed.append(result)
        if machine.here != want.to_state:
            failures.add(f"{where}: the state is {machine.here!r}, expected {want.to_state!r}")
        if (want.from_state, want.to_state) in expected.invalid:
            failures.add(f"{where}: reached a pair the spec lists as invalid")
        if len(machine.steps) != before + machine.listen:
            failures.add(f"{where}: listeners saw {len(machine.steps) - before} steps")
    else:
        if outcome == "unknown":
            if not isinstance(error, ValueError) or isinstance(error, m.TransitionError):
                failures.add(f"{where}: not an event, expected ValueError, got {describe(error)}")
        elif outcome == "no-event":
            if not isinstance(error, m.EventNotAllowed) or not isinstance(error, m.TransitionError):
                failures.add(f"{where}: expected EventNotAllowed, got {describe(error)}")
        elif want is not None:
            machine._check_rejection(error, outcome, source, want.to_state, where, failures)
        if machine.here != source:
            failures.add(f"{where}: refused ({outcome}) but the state is now {machine.here!r}")
        if len(machine.steps) != before:
            failures.add(f"{where}: refused ({outcome}) but a listener was called")
    failures.raise_if_any()

"""The all-pairs check: does a generated module do what its :class:`~.expected.Expected` says?

:func:`check_module` compares a module with the model over every ordered pair of states
(N states -> N^2 pairs, each through ``check``, ``can_transition``, ``Machine.can`` and
``Machine.transition``, guarded and not), plus the tables, the constants and the read-only
guarantees. It collects every discrepancy and raises one :class:`AssertionError` listing them.

No Hypothesis here: this module is cheap to import.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from typing import Any

from generator.model.names import member_name
from generator.model.verdicts import ALLOWED, PairVector, Vectors, differences
from generator.testing.proofs.expected import (
    FORBIDDEN,
    OK,
    OUTCOMES,
    UNDECLARED,
    Expected,
    SpecLike,
    resolve_spec_path,
)
from generator.testing.proofs.failures import (
    Failures,
    _call,
    check_transition_record,
    describe,
)


def check_error(
    exc: BaseException | None,
    outcome: str,
    pair: tuple[str, str],
    expected: Expected,
    m: Any,
    failures: Failures,
    where: str,
    why: str | None = None,
) -> None:
    """``exc`` must be the error the spec calls for, carrying the pair (and ``why``: the
    vector's, else the model's)."""
    wanted = m.ForbiddenTransition if outcome == FORBIDDEN else m.UndeclaredTransition
    if not isinstance(exc, wanted) or (
        outcome == UNDECLARED and isinstance(exc, m.ForbiddenTransition)
    ):
        failures.add(f"{where}: expected {wanted.__name__}, got {describe(exc)}")
        return
    if not isinstance(exc, m.TransitionError):
        failures.add(f"{where}: {type(exc).__name__} is no TransitionError")
    for name, state in zip(("from_state", "to_state"), pair, strict=True):
        value = getattr(exc, name, None)
        if not isinstance(value, m.State) or value.value != state:
            failures.add(f"{where}: the error's {name} is {value!r}, expected State({state!r})")
    if outcome == FORBIDDEN:
        want = expected.invalid.get(pair) if why is None else why
        got = getattr(exc, "why", None)
        if got != want:
            failures.add(f"{where}: why is {got!r}, the spec says {want!r}")


def _read_only(mapping: Any) -> bool:
    probe = next(iter(mapping), ("statedoc", "probe"))
    for method, args in (("__setitem__", (probe, None)), ("__delitem__", (probe,)), ("clear", ())):
        try:
            getattr(mapping, method)(*args)
        except (TypeError, AttributeError):
            continue
        return False
    return True


def _check_tables(m: Any, expected: Expected, failures: Failures) -> dict[str, Any]:
    """Constants, ``State``, ``INITIAL``/``TERMINAL``, ``TRANSITIONS``/``INVALID``.

    Returns the ``State`` member of each spec name (only those that exist)."""
    state_cls = m.State
    if not (isinstance(state_cls, type) and issubclass(state_cls, StrEnum)):
        failures.add("State is not an enum.StrEnum")
    values = [s.value for s in state_cls]
    if sorted(values) != sorted(expected.states):
        failures.add(f"State values {values!r} differ from the states {list(expected.states)!r}")
    members: dict[str, Any] = {}
    for name in expected.states:
        try:
            member = state_cls(name)
        except ValueError:
            continue
        members[name] = member
        if not member.name.isidentifier():
            failures.add(f"State member {member.name!r} is not an identifier")
        if expected.spec_based and member.name != member_name(name):
            failures.add(
                f"State.{member.name} for {name!r}: lint's SD110 assumes {member_name(name)}"
            )
    for label, table, want in (
        ("INITIAL", m.INITIAL, expected.initial),
        ("TERMINAL", m.TERMINAL, expected.terminal),
    ):
        if (
            not isinstance(table, frozenset)
            or not all(isinstance(s, state_cls) for s in table)
            or {s.value for s in table} != want
        ):
            failures.add(f"{label} is {sorted(table)!r}, the spec says {sorted(want)!r}")
    transitions, invalid = m.TRANSITIONS, m.INVALID
    for label, table in (("TRANSITIONS", transitions), ("INVALID", invalid)):
        if not isinstance(table, Mapping):
            failures.add(f"{label} is not a Mapping")
        if not _read_only(table):
            failures.add(f"{label} can be changed (not read-only)")
        for key in table:
            if not (isinstance(key, tuple) and all(isinstance(s, state_cls) for s in key)):
                failures.add(f"{label} key {key!r} is not a (State, State) pair")
    tabled = {(a.value, b.value): t for (a, b), t in transitions.items()}
    for a, b in sorted(set(expected.transitions) - set(tabled)):
        failures.add(f"TRANSITIONS lacks the declared transition {a!r} -> {b!r}")
    for a, b in sorted(set(tabled) - set(expected.transitions)):
        failures.add(f"TRANSITIONS has {a!r} -> {b!r}, which the spec does not declare")
    for pair, record in expected.transitions.items():
        if pair in tabled:
            check_transition_record(tabled[pair], record, m, failures, f"TRANSITIONS[{pair!r}]")
    listed = {(a.value, b.value): why for (a, b), why in invalid.items()}
    if listed != dict(expected.invalid):
        failures.add(f"INVALID is {listed!r}, the spec lists {dict(expected.invalid)!r}")
    if expected.spec_id is not None:
        for label, value, want_value in (
            ("SPEC_ID", m.SPEC_ID, expected.spec_id),
            ("SPEC_REVISION", m.SPEC_REVISION, expected.revision),
            ("SPEC_TITLE", m.SPEC_TITLE, expected.title),
        ):
            if value != want_value:
                failures.add(f"{label} is {value!r}, the spec says {want_value!r}")
    if expected.sha256 is not None and expected.sha256 != m.SPEC_SHA256:
        failures.add(f"SPEC_SHA256 is {m.SPEC_SHA256!r}; the document hashes to {expected.sha256}")
    for name in ("ForbiddenTransition", "UndeclaredTransition", "GuardRejected"):
        cls = getattr(m, name, None)
        if not (isinstance(cls, type) and issubclass(cls, m.TransitionError)):
            failures.add(f"{name} is not a subclass of TransitionError")
    if not issubclass(m.TransitionError, Exception):
        failures.add("TransitionError is not an Exception")
    for record in list(tabled.values())[:1]:
        try:
            record.trigger = "changed"
        except (AttributeError, TypeError):
            pass
        else:
            failures.add("Transition is not frozen: its trigger could be assigned")
    return members


def _check_pair(
    m: Any, expected: Expected, vector: PairVector, members: dict[str, Any], failures: Failures
) -> None:
    a, b = pair = (vector.from_state, vector.to_state)
    outcome = OUTCOMES[vector.verdict]
    declared = outcome == OK
    where = f"{a!r} -> {b!r}"
    for label, x, y in (("names", a, b), ("members", members[a], members[b])):
        result, exc = _call(m.check, x, y)
        if declared and exc is not None:
            failures.add(f"check({where}) by {label}: raised {describe(exc)}")
        elif declared:
            check_transition_record(
                result, expected.transitions[pair], m, failures, f"check({where})"
            )
        else:
            where_by = f"check({where}) by {label}"
            check_error(exc, outcome, pair, expected, m, failures, where_by, vector.why)
        can, exc = _call(m.can_transition, x, y)
        if exc is not None or can is not declared:
            failures.add(
                f"can_transition({where}) by {label} is {can!r} ({describe(exc)}), "
                f"expected {declared}"
            )
    # A bare machine (by name and by member) and one with a listener: an implementation may
    # take a different path when something is bound.
    for label, x, y, listen in (
        ("names", a, b, False),
        ("members", members[a], members[b], False),
        ("a listener", a, b, True),
    ):
        _check_machine_pair(m, expected, vector, members, failures, label, (x, y), listen)


def _check_machine_pair(
    m: Any,
    expected: Expected,
    vector: PairVector,
    members: dict[str, Any],
    failures: Failures,
    label: str,
    args: tuple[Any, Any],
    listen: bool,
) -> None:
    a, b = pair = (vector.from_state, vector.to_state)
    declared = vector.verdict == ALLOWED
    heard: list[tuple[Any, Any]] = []

    def listener(transition: Any, context: Mapping[str, object]) -> None:
        heard.append((transition, machine.state))

    machine, exc = _call(m.Machine, args[0], listeners=[listener] if listen else ())
    if exc is not None:
        failures.add(f"Machine({a!r}) by {label} raised {describe(exc)}")
        return
    can, exc = _call(machine.can, args[1])
    if exc is not None or can is not declared:
        failures.add(f"Machine({a!r}).can({b!r}) is {can!r} ({describe(exc)}), expected {declared}")
    result, exc = _call(machine.transition, args[1])
    state = machine.state
    where = f"Machine({a!r}).transition({b!r}) with {label}"
    if declared:
        if exc is not None:
            failures.add(f"{where}: raised {describe(exc)}")
        else:
            check_transition_record(result, expected.transitions[pair], m, failures, where)
        if state != members[b] or not isinstance(state, m.State):
            failures.add(f"{where}: the state is {state!r} afterwards")
        if listen and heard != [(result, members[b])]:
            failures.add(f"{where}: the listener heard {heard!r}")
    else:
        outcome = OUTCOMES[vector.verdict]
        check_error(exc, outcome, pair, expected, m, failures, where, vector.why)
        if state != members[a]:
            failures.add(f"{where} was rejected but moved the state to {state!r}")
        if heard:
            failures.add(f"{where} was rejected but the listener heard {heard!r}")


class GuardBoomError(Exception):
    """Raised by a test guard; must reach the caller of ``transition`` untouched."""


def _check_guards(m: Any, expected: Expected, members: dict[str, Any], failures: Failures) -> None:
    """Guards that say no are honoured, guards get the context, guards never widen the spec."""
    for a, b in expected.transitions:
        where = f"{a!r} -> {b!r}"
        seen: list[dict[str, object]] = []

        def deny(context: Mapping[str, object], seen: list[dict[str, object]] = seen) -> bool:
            seen.append(dict(context))
            return False

        def boom(context: Mapping[str, object], where: str = where) -> bool:
            raise GuardBoomError(where)

        def allow(context: Mapping[str, object]) -> bool:
            return True

        for guard, says in ((deny, "no"), (boom, "raise"), (allow, "yes")):
            key = (members[a], members[b])
            machine, exc = _call(m.Machine, members[a], guards={key: guard})
            if exc is not None:
                failures.add(f"Machine({a!r}, guards={{{where}: ...}}) raised {describe(exc)}")
                continue
            _, exc = _call(machine.transition, b, actor="x")
            state = machine.state
            if says == "no":
                if not (
                    isinstance(exc, m.GuardRejected)
                    and getattr(exc, "from_state", None) == members[a]
                    and getattr(exc, "to_state", None) == members[b]
                ):
                    failures.add(
                        f"a guard saying no to {where}: expected GuardRejected with the pair, "
                        f"got {describe(exc)}"
                    )
                if seen != [{"actor": "x"}]:
                    failures.add(f"the guard of {where} was called with {seen!r}")
            elif says == "raise" and not isinstance(exc, GuardBoomError):
                failures.add(f"a guard of {where} raising: got {describe(exc)} instead")
            elif says == "yes" and exc is not None:
                failures.add(f"a guard saying yes to {where}: {describe(exc)}")
            want = members[b] if says == "yes" else members[a]
            if state != want:
                failures.add(f"a guard of {where} said {says}, and the state is {state!r}")
    # A guard never widens what the spec allows: on an invalid pair it is refused when bound,
    # or the transition still raises ForbiddenTransition.
    for a, b in expected.invalid:
        key = (members[a], members[b])
        machine, exc = _call(m.Machine, members[a], guards={key: lambda context: True})
        if exc is not None:
            if not isinstance(exc, ValueError | TypeError):
                failures.add(f"binding a guard to the invalid {a!r} -> {b!r}: {describe(exc)}")
            continue
        _, exc = _call(machine.transition, b)
        where = f"a guard saying yes to the invalid {a!r} -> {b!r}"
        check_error(exc, FORBIDDEN, (a, b), expected, m, failures, where)
        if machine.state != members[a]:
            failures.add(f"{where}: performed, the state is {machine.state!r}")


def _check_queries(m: Any, expected: Expected, members: dict[str, Any], failures: Failures) -> None:
    for name in expected.states:
        for label, arg in (("name", name), ("member", members[name])):
            for func, want in (("targets", expected.targets), ("sources", expected.sources)):
                got, exc = _call(getattr(m, func), arg)
                if (
                    exc is not None
                    or not isinstance(got, frozenset)
                    or not all(isinstance(s, m.State) for s in got)
                    or {s.value for s in got} != want(name)
                ):
                    failures.add(
                        f"{func}({name!r}) by {label} is {got!r} ({describe(exc)}), "
                        f"expected {sorted(want(name))!r}"
                    )
        machine, exc = _call(m.Machine, name)
        if exc is None:
            if machine.is_terminal is not (name in expected.terminal):
                failures.add(f"Machine({name!r}).is_terminal is {machine.is_terminal!r}")
            if machine.state != members[name] or not isinstance(machine.state, m.State):
                failures.add(f"Machine({name!r}).state is {machine.state!r}")
    # Machine() with no state: the single initial state, or a refusal when there are several.
    machine, exc = _call(m.Machine)
    if len(expected.initial) == 1:
        (start,) = expected.initial
        if exc is not None or machine.state != members[start]:
            state = getattr(machine, "state", None)
            failures.add(f"Machine() starts in {state!r} ({describe(exc)}), not in {start!r}")
    elif exc is None and machine.state.value not in expected.initial:
        failures.add(f"Machine() starts in {machine.state!r}, which is not initial")
    elif exc is not None and not isinstance(exc, ValueError):
        failures.add(f"Machine() raised {describe(exc)}")


def _check_unknown(m: Any, vectors: Vectors, failures: Failures) -> None:
    """Names that are no state (every ``not_states`` vector) raise ``ValueError`` through
    every entry point."""
    some = vectors.states[0]
    for unknown in (n.name for n in vectors.not_states):
        calls: tuple[tuple[str, Callable[..., Any], tuple[Any, ...]], ...] = (
            ("check(unknown, state)", m.check, (unknown, some)),
            ("check(state, unknown)", m.check, (some, unknown)),
            ("can_transition(unknown, state)", m.can_transition, (unknown, some)),
            ("can_transition(state, unknown)", m.can_transition, (some, unknown)),
            ("targets(unknown)", m.targets, (unknown,)),
            ("sources(unknown)", m.sources, (unknown,)),
            ("Machine(unknown)", m.Machine, (unknown,)),
            ("Machine(state).can(unknown)", m.Machine(some).can, (unknown,)),
            ("Machine(state).transition(unknown)", m.Machine(some).transition, (unknown,)),
        )
        for label, func, args in calls:
            _, exc = _call(func, *args)
            if not isinstance(exc, ValueError):
                failures.add(f"{label} with {unknown!r}: expected ValueError, got {describe(exc)}")


def check_module(
    module: types.ModuleType,
    spec: SpecLike | None = None,
    *,
    vectors: str | os.PathLike[str] | Vectors | None = None,
) -> None:
    """Check ``module`` against its spec over all N^2 pairs; raise ``AssertionError`` if any
    entry point disagrees.

    ``spec`` is a :class:`~generator.model.spec.Spec` or the path of the spec document (relative
    paths are also tried from the project root above the module). Without it the module's
    own tables are the model: that only proves the module consistent with itself.
    ``vectors``: the spec's vectors file (:mod:`generator.model.verdicts`; a path, relative
    ones tried like the spec's) or loaded vectors: every verdict is then the file's, and a
    file that disagrees with the model fails.
    """
    expected = Expected.for_module(module, spec)
    check_against(module, expected, read_vectors(vectors, module))


def read_vectors(
    vectors: str | os.PathLike[str] | Vectors | None, module: types.ModuleType | None = None
) -> Vectors | None:
    """Loaded vectors: as given, or read from a path (relative: also from the project root
    above ``module``); a file that cannot be read or is no vectors file fails the test."""
    from generator.model.verdicts import Vectors, VectorsError, load_vectors

    if vectors is None or isinstance(vectors, Vectors):
        return vectors
    path = resolve_spec_path(vectors, module)
    try:
        return load_vectors(path)
    except VectorsError as exc:
        raise AssertionError(f"{exc} (regenerate it: statedoc generate)") from None


def check_against(
    module: types.ModuleType, expected: Expected, vectors: Vectors | None = None
) -> None:
    """:func:`check_module` with a ready model (and vectors: default the model's own)."""
    from generator.testing.coverage import not_counted

    m: Any = module
    failures = Failures(module.__name__, expected.origin)
    if vectors is None:
        vectors = expected.vectors
    else:
        for line in differences(vectors, expected.vectors):
            failures.add(f"the vectors file disagrees with the {expected.origin}: {line}")
    with not_counted():  # statedoc's proof of its own module is no coverage of your code
        members = _check_tables(m, expected, failures)
        missing = [s for s in expected.states if s not in members]
        if missing:  # no pairs can be checked over a state the module lacks
            failures.add(f"State lacks the spec's states {missing!r}")
            failures.raise_if_any()
        unknown = [
            v for v in vectors.pairs if v.from_state not in members or v.to_state not in members
        ]
        if unknown:
            failures.add(f"the vectors name states the module lacks: {unknown[0]!r}")
            failures.raise_if_any()
        for vector in vectors.pairs:
            _check_pair(m, expected, vector, members, failures)
        _check_guards(m, expected, members, failures)
        _check_queries(m, expected, members, failures)
        _check_unknown(m, vectors, failures)
        from generator.testing.proofs.events import check_events  # imports this module

        check_events(m, expected, members, failures, vectors)
    failures.raise_if_any()


def pairs(expected: Expected) -> Iterator[tuple[str, str]]:
    """Every ordered pair of the model's states."""
    for a in expected.states:
        for b in expected.states:
            yield a, b

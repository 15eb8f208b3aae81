"""What a generated module must do, and an all-pairs check that it does.

:class:`Expected` is the model of expected behaviour. Built from the spec document
(:meth:`Expected.from_spec`, parsed by statedoc's own lint), it is independent of the module
under test, so a module whose tables and behaviour are wrong *together* is still caught. Built
from the module (:meth:`Expected.from_module`) it can only check that the module agrees with
itself; that is the fallback when no spec is at hand.

:func:`check_module` compares a module with the model over every ordered pair of states
(N states -> N^2 pairs, each through ``check``, ``can_transition``, ``Machine.can`` and
``Machine.transition``, guarded and not), plus the tables, the constants and the read-only
guarantees. It collects every discrepancy and raises one :class:`AssertionError` listing them.

No Hypothesis here: this module is cheap to import.
"""

from __future__ import annotations

import hashlib
import os
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from generator.model import Spec
from generator.names import member_name

#: The outcome of attempting a pair: declared, listed invalid, or neither.
OK, FORBIDDEN, UNDECLARED = "ok", "forbidden", "undeclared"

SpecLike = Spec | str | os.PathLike[str]

_MAX_REPORTED = 40


class SpecError(ValueError):
    """A spec document that cannot serve as the model (lint errors, or no such file)."""


@dataclass(frozen=True)
class ExpectedTransition:
    """A declared transition as the spec writes it (state names as plain text)."""

    from_state: str
    to_state: str
    trigger: str
    guard: str | None
    side_effects: tuple[str, ...]
    who: str | None
    provenance: str | None
    source: str | None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.from_state, self.to_state)


@dataclass(frozen=True)
class Expected:
    """The behaviour a generated module owes: states, declared and invalid pairs, start and end.

    ``origin`` says where the model came from (``"spec <path or id>"`` or ``"module tables"``);
    ``spec_id``, ``revision``, ``title`` and ``sha256`` are ``None`` when unknown.
    """

    origin: str
    states: tuple[str, ...]
    transitions: Mapping[tuple[str, str], ExpectedTransition]
    invalid: Mapping[tuple[str, str], str]
    initial: frozenset[str]
    terminal: frozenset[str]
    spec_id: str | None = None
    revision: int | None = None
    title: str | None = None
    sha256: str | None = None
    spec_based: bool = True
    _undeclared: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_spec(cls, spec: SpecLike) -> Expected:
        """The model of a spec: a :class:`~generator.model.Spec` or the path of its document.

        A path is linted with statedoc's own lint; a document with an error-severity finding
        raises :class:`SpecError` (a module generated from it would be meaningless).
        """
        sha256: str | None = None
        origin = "spec"
        if not isinstance(spec, Spec):
            path = Path(os.fspath(spec))
            spec, sha256 = load_spec(path)
            origin = f"spec {path.as_posix()}"
        else:
            origin = f"spec {spec.id}"
        transitions = {
            t.pair: ExpectedTransition(
                t.from_state,
                t.to_state,
                t.trigger,
                t.guard,
                tuple(t.side_effects),
                t.who,
                t.provenance,
                t.source,
            )
            for t in spec.transitions
        }
        return cls(
            origin=origin,
            states=spec.state_names,
            transitions=types.MappingProxyType(transitions),
            invalid=types.MappingProxyType({i.pair: i.why for i in spec.invalid}),
            initial=frozenset(spec.initial_states),
            terminal=frozenset(spec.terminal_states),
            spec_id=spec.id,
            revision=spec.revision,
            title=spec.title,
            sha256=sha256,
        )

    @classmethod
    def from_module(cls, module: types.ModuleType) -> Expected:
        """A model read from the module's own tables (``State``, ``TRANSITIONS``, ``INVALID``,
        ``INITIAL``). Weaker than :meth:`from_spec`: a wrong table goes unnoticed when the
        behaviour is wrong the same way. ``TERMINAL`` is recomputed from ``TRANSITIONS``."""
        m: Any = module
        states = tuple(str(s.value) for s in m.State)
        transitions = {
            (str(a.value), str(b.value)): ExpectedTransition(
                str(t.from_state.value),
                str(t.to_state.value),
                t.trigger,
                t.guard,
                tuple(t.side_effects),
                t.who,
                t.provenance,
                t.source,
            )
            for (a, b), t in m.TRANSITIONS.items()
        }
        leaving = {a for a, b in transitions if a != b}
        return cls(
            origin=f"module tables of {module.__name__}",
            states=states,
            transitions=types.MappingProxyType(transitions),
            invalid=types.MappingProxyType(
                {(str(a.value), str(b.value)): why for (a, b), why in m.INVALID.items()}
            ),
            initial=frozenset(str(s.value) for s in m.INITIAL),
            terminal=frozenset(s for s in states if s not in leaving),
            spec_based=False,
        )

    @classmethod
    def for_module(cls, module: types.ModuleType, spec: SpecLike | None = None) -> Expected:
        """:meth:`from_spec` when a spec is given, else :meth:`from_module`."""
        if spec is None:
            return cls.from_module(module)
        if not isinstance(spec, Spec):
            spec = resolve_spec_path(spec, module)
        return cls.from_spec(spec)

    # -- queries ------------------------------------------------------------------------

    @cached_property
    def state_set(self) -> frozenset[str]:
        return frozenset(self.states)

    def outcome(self, from_state: str, to_state: str) -> str:
        pair = (from_state, to_state)
        if pair in self.transitions:
            return OK
        if pair in self.invalid:
            return FORBIDDEN
        return UNDECLARED

    @cached_property
    def _targets(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {s: set() for s in self.states}
        for a, b in self.transitions:
            out[a].add(b)
        return {s: frozenset(v) for s, v in out.items()}

    @cached_property
    def _sources(self) -> dict[str, frozenset[str]]:
        into: dict[str, set[str]] = {s: set() for s in self.states}
        for a, b in self.transitions:
            into[b].add(a)
        return {s: frozenset(v) for s, v in into.items()}

    @cached_property
    def _invalid_from(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {s: [] for s in self.states}
        for a, b in self.invalid:
            out[a].append(b)
        return {s: tuple(v) for s, v in out.items()}

    @cached_property
    def declared_pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.transitions)

    @cached_property
    def invalid_pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.invalid)

    def targets(self, state: str) -> frozenset[str]:
        return self._targets[state]

    def sources(self, state: str) -> frozenset[str]:
        return self._sources[state]

    def invalid_targets(self, state: str) -> tuple[str, ...]:
        return self._invalid_from[state]

    def undeclared_targets(self, state: str) -> tuple[str, ...]:
        """Targets from ``state`` that are neither declared nor listed invalid (cached)."""
        found = self._undeclared.get(state)
        if found is None:
            found = tuple(t for t in self.states if self.outcome(state, t) == UNDECLARED)
            self._undeclared[state] = found
        return found

    def unknown_names(self) -> tuple[str, ...]:
        """A few names that are not states but look like one (cases, padding, members)."""
        candidates = ["", " ", "\x00", "not a state", "__class__"]
        for name in self.states[:8]:
            candidates += [
                name + " ",
                " " + name,
                name.upper(),
                name.swapcase(),
                member_name(name),
                name + "\x00",
            ]
        return tuple(dict.fromkeys(c for c in candidates if c not in self.state_set))


# -- spec documents ---------------------------------------------------------------------


def load_spec(path: str | os.PathLike[str]) -> tuple[Spec, str]:
    """Lint one document and return its model and the SHA-256 of its bytes.

    Raises :class:`SpecError` when the file cannot be read or has an error-severity finding.
    """
    from generator.findings import Severity
    from generator.lint import lint_bytes

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError(f"cannot read spec {path}: {exc}") from None
    result = lint_bytes(data, path.as_posix())
    errors = [f for f in result.findings if f.severity == Severity.ERROR]
    if errors or result.document is None:
        listed = "; ".join(f"{f.line}:{f.column} {f.code} {f.message}" for f in errors[:5])
        raise SpecError(f"spec {path} does not lint clean: {listed or 'no document'}")
    return result.document.spec, hashlib.sha256(data).hexdigest()


def resolve_spec_path(spec: str | os.PathLike[str], module: types.ModuleType | None) -> Path:
    """A spec path as given, else relative to the project root above the module's file.

    Generated modules name their spec relative to the project root (the folder of the
    ``pyproject.toml`` with ``[tool.statedoc]``), so a test run from any folder finds it.
    """
    path = Path(os.fspath(spec))
    if path.is_absolute() or path.exists() or module is None:
        return path
    where = getattr(module, "__file__", None)
    if where:
        from generator.config import find_pyproject

        pyproject = find_pyproject(Path(where).resolve().parent)
        if pyproject is not None and (pyproject.parent / path).exists():
            return pyproject.parent / path
    return path


# -- the all-pairs check ----------------------------------------------------------------


class Failures:
    def __init__(self, module: str, origin: str) -> None:
        self.module = module
        self.origin = origin
        self.items: list[str] = []

    def add(self, message: str) -> None:
        self.items.append(message)

    def raise_if_any(self) -> None:
        if not self.items:
            return
        shown = self.items[:_MAX_REPORTED]
        more = len(self.items) - len(shown)
        lines = [
            f"{self.module} does not behave as its {self.origin} says "
            f"({len(self.items)} problem{'s' if len(self.items) != 1 else ''}):",
            *(f"  - {item}" for item in shown),
        ]
        if more:
            lines.append(f"  ... and {more} more")
        raise AssertionError("\n".join(lines))


def _call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Exception | None]:
    try:
        return func(*args, **kwargs), None
    except Exception as exc:
        return None, exc


def describe(exc: BaseException | None) -> str:
    return "no exception" if exc is None else f"{type(exc).__name__}({exc})"


def check_transition_record(
    got: Any, want: ExpectedTransition, m: Any, failures: Failures, where: str
) -> None:
    """A returned or tabled ``Transition`` must carry exactly the spec's text."""
    if not isinstance(got, m.Transition):
        failures.add(f"{where}: expected a Transition, got {got!r}")
        return
    for name in ("trigger", "guard", "who", "provenance", "source"):
        value, wanted = getattr(got, name), getattr(want, name)
        if value != wanted or type(value) is not type(wanted):
            failures.add(f"{where}: {name} is {value!r}, the spec says {wanted!r}")
    if not isinstance(got.side_effects, tuple) or got.side_effects != want.side_effects:
        failures.add(f"{where}: side_effects {got.side_effects!r} != {want.side_effects!r}")
    for name, state in (("from_state", want.from_state), ("to_state", want.to_state)):
        value = getattr(got, name)
        if not isinstance(value, m.State) or value.value != state:
            failures.add(f"{where}: {name} is {value!r}, expected State({state!r})")


def check_error(
    exc: BaseException | None,
    outcome: str,
    pair: tuple[str, str],
    expected: Expected,
    m: Any,
    failures: Failures,
    where: str,
) -> None:
    """``exc`` must be the error the spec calls for, carrying the pair (and ``why``)."""
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
        why = getattr(exc, "why", None)
        if why != expected.invalid[pair]:
            failures.add(f"{where}: why is {why!r}, the spec says {expected.invalid[pair]!r}")


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
    m: Any, expected: Expected, pair: tuple[str, str], members: dict[str, Any], failures: Failures
) -> None:
    a, b = pair
    outcome = expected.outcome(a, b)
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
            check_error(exc, outcome, pair, expected, m, failures, f"check({where}) by {label}")
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
        _check_machine_pair(m, expected, pair, members, failures, label, (x, y), listen)


def _check_machine_pair(
    m: Any,
    expected: Expected,
    pair: tuple[str, str],
    members: dict[str, Any],
    failures: Failures,
    label: str,
    args: tuple[Any, Any],
    listen: bool,
) -> None:
    a, b = pair
    declared = expected.outcome(a, b) == OK
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
        check_error(exc, expected.outcome(a, b), pair, expected, m, failures, where)
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


def _check_unknown(m: Any, expected: Expected, failures: Failures) -> None:
    """Names that are not states raise ``ValueError`` through every entry point."""
    some = expected.states[0]
    for unknown in expected.unknown_names():
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


def check_module(module: types.ModuleType, spec: SpecLike | None = None) -> None:
    """Check ``module`` against its spec over all N^2 pairs; raise ``AssertionError`` if any
    entry point disagrees.

    ``spec`` is a :class:`~generator.model.Spec` or the path of the spec document (relative
    paths are also tried from the project root above the module). Without it the module's
    own tables are the model: that only proves the module consistent with itself.
    """
    expected = Expected.for_module(module, spec)
    check_against(module, expected)


def check_against(module: types.ModuleType, expected: Expected) -> None:
    """:func:`check_module` with a ready model."""
    m: Any = module
    failures = Failures(module.__name__, expected.origin)
    members = _check_tables(m, expected, failures)
    missing = [s for s in expected.states if s not in members]
    if missing:  # no pairs can be checked over a state the module lacks
        failures.add(f"State lacks the spec's states {missing!r}")
        failures.raise_if_any()
    for pair in pairs(expected):
        _check_pair(m, expected, pair, members, failures)
    _check_guards(m, expected, members, failures)
    _check_queries(m, expected, members, failures)
    _check_unknown(m, expected, failures)
    failures.raise_if_any()


def pairs(expected: Expected) -> Iterator[tuple[str, str]]:
    """Every ordered pair of the model's states."""
    for a in expected.states:
        for b in expected.states:
            yield a, b

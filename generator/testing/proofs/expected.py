"""What a generated module must do: the model of expected behaviour (checked by :mod:`.checks`).

:class:`Expected` is the model of expected behaviour. Built from the spec document
(:meth:`Expected.from_spec`, parsed by statedoc's own lint), it is independent of the module
under test, so a module whose tables and behaviour are wrong *together* is still caught. Built
from the module (:meth:`Expected.from_module`) it can only check that the module agrees with
itself; that is the fallback when no spec is at hand.

No Hypothesis here: this module is cheap to import.
"""

from __future__ import annotations

import hashlib
import os
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.model.spec import Spec

if TYPE_CHECKING:
    from generator.model.document import Document
    from generator.model.verdicts import Vectors

#: The outcome of attempting a pair: declared, listed invalid, or neither.
OK, FORBIDDEN, UNDECLARED = "ok", "forbidden", "undeclared"
#: The vectors' verdicts (``allowed``, ...) as these outcomes.
OUTCOMES = {"allowed": OK, "forbidden": FORBIDDEN, "undeclared": UNDECLARED}

SpecLike = Spec | str | os.PathLike[str]


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
    event: str | None = None

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
    #: ``(from_state, event) -> transition`` and the event names in order (empty: no events).
    events: Mapping[tuple[str, str], ExpectedTransition] = field(
        default_factory=lambda: types.MappingProxyType({})
    )
    event_names: tuple[str, ...] = ()
    #: Every transition of each pair, in declaration order (one per pair without events).
    by_pair: Mapping[tuple[str, str], tuple[ExpectedTransition, ...]] = field(
        default_factory=lambda: types.MappingProxyType({})
    )
    _undeclared: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_spec(cls, spec: SpecLike) -> Expected:
        """The model of a spec: a :class:`~generator.model.spec.Spec` or the path of its document.

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
        records = [_expected(t, t.from_state, t.to_state, t.event) for t in spec.transitions]
        return cls(
            origin=origin,
            states=spec.state_names,
            invalid=types.MappingProxyType({i.pair: i.why for i in spec.invalid}),
            initial=frozenset(spec.initial_states),
            terminal=frozenset(spec.terminal_states),
            spec_id=spec.id,
            revision=spec.revision,
            title=spec.title,
            sha256=sha256,
            event_names=spec.events,
            **_indexes(records),
        )

    @classmethod
    def from_module(cls, module: types.ModuleType) -> Expected:
        """A model read from the module's own tables (``State``, ``TRANSITIONS``, ``INVALID``,
        ``INITIAL``). Weaker than :meth:`from_spec`: a wrong table goes unnoticed when the
        behaviour is wrong the same way. ``TERMINAL`` is recomputed from ``TRANSITIONS``."""
        m: Any = module
        states = tuple(str(s.value) for s in m.State)
        has_events = hasattr(m, "Event")
        listed = (
            m.TRANSITIONS_BY_EVENT.values() if has_events else ()
        )  # every evented transition, then the pairs' first ones for those without an event
        records = [_record(t) for t in listed] + [
            _record(t) for t in m.TRANSITIONS.values() if getattr(t, "event", None) is None
        ]
        indexes = _indexes(records)
        indexes["transitions"] = types.MappingProxyType(
            {(str(a.value), str(b.value)): _record(t) for (a, b), t in m.TRANSITIONS.items()}
        )
        leaving = {a for a, b in indexes["transitions"] if a != b}
        return cls(
            origin=f"module tables of {module.__name__}",
            states=states,
            event_names=tuple(str(e.value) for e in m.Event) if has_events else (),
            **indexes,
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

    @cached_property
    def vectors(self) -> Vectors:
        """The verdict vectors of this model (:mod:`generator.model.verdicts`): the one
        place a pair's verdict is decided, for every proof and for the vectors file."""
        from generator.model.verdicts import SpecInfo, build_vectors

        info = None
        if self.spec_id is not None and self.revision is not None:
            where = self.origin.removeprefix("spec ")
            title, sha256 = self.title or "", self.sha256 or ""
            info = SpecInfo(self.spec_id, self.revision, title, where, sha256)
        return build_vectors(
            states=self.states,
            allowed=tuple(self.transitions),
            forbidden=self.invalid,
            initial=self.initial,
            terminal=self.terminal,
            events=self.event_names,
            fires={key: t.to_state for key, t in self.events.items()},
            spec=info,
        )

    def outcome(self, from_state: str, to_state: str) -> str:
        """``OK``, ``FORBIDDEN`` or ``UNDECLARED``: the pair's verdict in :attr:`vectors`."""
        return OUTCOMES.get(self.vectors.verdict(from_state, to_state), UNDECLARED)

    @cached_property
    def _targets(self) -> dict[str, frozenset[str]]:
        return _neighbours(self.states, self.transitions)

    @cached_property
    def _sources(self) -> dict[str, frozenset[str]]:
        return _neighbours(self.states, [(b, a) for a, b in self.transitions])

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
        """Every name of the vectors' ``not_states``: case, width, padding, normalisation and
        separator variants of every state, then generic non-names."""
        return tuple(n.name for n in self.vectors.not_states)

    def unknown_events(self) -> tuple[str, ...]:
        """Every name of the vectors' ``not_events`` (empty without events)."""
        return tuple(n.name for n in self.vectors.not_events)


def _record(t: Any) -> ExpectedTransition:
    """A generated module's ``Transition`` record (enum members) as plain text."""
    event = getattr(t, "event", None)
    event_name = None if event is None else str(event.value)
    return _expected(t, str(t.from_state.value), str(t.to_state.value), event_name)


def _expected(t: Any, from_state: str, to_state: str, event: str | None) -> ExpectedTransition:
    """An expected transition with the text fields of ``t`` (the model's transition or a
    generated record: both name them alike)."""
    return ExpectedTransition(
        from_state,
        to_state,
        t.trigger,
        t.guard,
        tuple(t.side_effects),
        t.who,
        t.provenance,
        t.source,
        event,
    )


def _indexes(records: list[ExpectedTransition]) -> dict[str, Any]:
    """``transitions`` (each pair's first declared), ``by_pair`` (all, in order), ``events``."""
    by_pair: dict[tuple[str, str], tuple[ExpectedTransition, ...]] = {}
    events: dict[tuple[str, str], ExpectedTransition] = {}
    for record in records:
        by_pair[record.pair] = (*by_pair.get(record.pair, ()), record)
        if record.event is not None:
            events.setdefault((record.from_state, record.event), record)
    return {
        "transitions": types.MappingProxyType({p: found[0] for p, found in by_pair.items()}),
        "by_pair": types.MappingProxyType(by_pair),
        "events": types.MappingProxyType(events),
    }


def _neighbours(
    states: Sequence[str], edges: Iterable[tuple[str, str]]
) -> dict[str, frozenset[str]]:
    """State -> the states its edges lead to (every state, edgeless ones included)."""
    found: dict[str, set[str]] = {s: set() for s in states}
    for a, b in edges:
        found[a].add(b)
    return {s: frozenset(v) for s, v in found.items()}


# -- spec documents ---------------------------------------------------------------------


def load_spec(path: str | os.PathLike[str]) -> tuple[Spec, str]:
    """Lint one document and return its model and the SHA-256 of its bytes.

    Raises :class:`SpecError` when the file cannot be read or has an error-severity finding.
    """
    document, data = lint_clean(Path(path))
    return document.spec, hashlib.sha256(data).hexdigest()


def lint_clean(path: Path) -> tuple[Document, bytes]:
    """Read and lint one document: its model and its bytes, or :class:`SpecError` when the
    file cannot be read or has an error-severity finding."""
    from generator.core.findings import Severity
    from generator.lint.document import lint_bytes

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError(f"cannot read spec {path}: {exc}") from None
    result = lint_bytes(data, path.as_posix())
    errors = [f for f in result.findings if f.severity == Severity.ERROR]
    if errors or result.document is None:
        listed = "; ".join(f"{f.line}:{f.column} {f.code} {f.message}" for f in errors[:5])
        raise SpecError(f"spec {path} does not lint clean: {listed or 'no document'}")
    return result.document, data


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
        from generator.load.config import find_pyproject

        pyproject = find_pyproject(Path(where).resolve().parent)
        if pyproject is not None and (pyproject.parent / path).exists():
            return pyproject.parent / path
    return path

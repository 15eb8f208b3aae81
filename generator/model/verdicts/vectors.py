"""The verdict vectors of one spec: what every implementation must answer, computed from the
model alone (never from generated code).

:func:`build_vectors` is the one place a pair's verdict is decided: the ``vectors`` target
writes its result, and :class:`generator.testing.proofs.expected.Expected` (the oracle of the
Python proofs and the conformance kit) answers ``outcome`` from it. Here, before the targets,
so that the testing kit reads verdicts without importing a target.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from generator.model.verdicts.lookalikes import Lookalike, event_lookalikes, state_lookalikes

if TYPE_CHECKING:
    from generator.model.spec import Spec

#: The version of the file's shape (``format``); see :mod:`generator.model.verdicts`.
FORMAT = 1
#: Verdicts of a pair (and of a (state, event) for the first and third).
ALLOWED, FORBIDDEN, UNDECLARED = "allowed", "forbidden", "undeclared"
#: What naming a state that is none gets, wherever it is named.
NOT_A_STATE = "not_a_state"
VERDICTS = (ALLOWED, FORBIDDEN, UNDECLARED)

Pair = tuple[str, str]


class PairVector(NamedTuple):
    """Attempting ``from_state -> to_state``: ``why`` only for ``forbidden``."""

    from_state: str
    to_state: str
    verdict: str
    why: str | None = None


class FireVector(NamedTuple):
    """Firing ``event`` in ``from_state``: ``to_state`` only for ``allowed``."""

    from_state: str
    event: str
    verdict: str
    to_state: str | None = None


class SpecInfo(NamedTuple):
    """Which document the vectors are of (``source``: its path relative to the project)."""

    id: str
    revision: int
    title: str
    source: str
    sha256: str


class VectorsError(ValueError):
    """A model the vectors cannot be made of, or a file that is not a vectors file."""


@dataclass(frozen=True)
class Vectors:
    """Every verdict of one spec; lists in the spec's order (pairs: from-state major)."""

    states: tuple[str, ...]
    initial: tuple[str, ...]
    terminal: tuple[str, ...]
    events: tuple[str, ...]
    pairs: tuple[PairVector, ...]
    fires: tuple[FireVector, ...]
    not_states: tuple[Lookalike, ...]
    not_events: tuple[Lookalike, ...]
    spec: SpecInfo | None = None
    format: int = FORMAT

    @cached_property
    def by_pair(self) -> Mapping[Pair, PairVector]:
        return {(v.from_state, v.to_state): v for v in self.pairs}

    @cached_property
    def by_fire(self) -> Mapping[Pair, FireVector]:
        return {(v.from_state, v.event): v for v in self.fires}

    def verdict(self, from_state: str, to_state: str) -> str:
        """The verdict of a pair of names; :data:`NOT_A_STATE` when either is no state."""
        found = self.by_pair.get((from_state, to_state))
        return NOT_A_STATE if found is None else found.verdict

    def of(self, verdict: str) -> tuple[PairVector, ...]:
        return tuple(v for v in self.pairs if v.verdict == verdict)

    def table(self) -> tuple[object, ...]:
        """Everything a verdict depends on, without where the file came from."""
        return (
            self.format,
            self.states,
            self.initial,
            self.terminal,
            self.events,
            self.pairs,
            self.fires,
            self.not_states,
            self.not_events,
        )


def build_vectors(
    *,
    states: Sequence[str],
    allowed: Collection[Pair],
    forbidden: Mapping[Pair, str],
    initial: Collection[str],
    terminal: Collection[str],
    events: Sequence[str] = (),
    fires: Mapping[Pair, str] | None = None,
    spec: SpecInfo | None = None,
) -> Vectors:
    """The vectors of a model given as plain data.

    ``allowed``: the declared pairs; ``forbidden``: listed invalid pair -> why; ``fires``:
    ``(state, event) -> target`` of every declared evented transition (the first one, as
    ``fire`` takes it). A pair both declared and listed invalid is refused (lint's SD error,
    and no implementation could honour both)."""
    both = sorted(set(allowed) & set(forbidden))
    if both:
        a, b = both[0]
        raise VectorsError(f"{a!r} -> {b!r} is both declared and listed invalid")
    known = set(states)
    for a, b in (*allowed, *forbidden):
        if a not in known or b not in known:
            raise VectorsError(f"{a!r} -> {b!r} names a state that is not declared")
    declared = set(allowed)
    pairs: list[PairVector] = []
    for a in states:
        for b in states:
            if (a, b) in declared:
                pairs.append(PairVector(a, b, ALLOWED))
            elif (a, b) in forbidden:
                pairs.append(PairVector(a, b, FORBIDDEN, forbidden[a, b]))
            else:
                pairs.append(PairVector(a, b, UNDECLARED))
    targets = dict(fires or {})
    fired = [
        FireVector(s, e, ALLOWED, targets[s, e])
        if (s, e) in targets
        else FireVector(s, e, UNDECLARED)
        for s in states
        for e in events
    ]
    return Vectors(
        states=tuple(states),
        initial=_ordered(states, initial),
        terminal=_ordered(states, terminal),
        events=tuple(events),
        pairs=tuple(pairs),
        fires=tuple(fired),
        not_states=state_lookalikes(states),
        not_events=event_lookalikes(events),
        spec=spec,
    )


def _ordered(states: Sequence[str], chosen: Iterable[str]) -> tuple[str, ...]:
    wanted = set(chosen)
    return tuple(s for s in states if s in wanted)


def vectors_of_spec(spec: Spec, *, source: str = "", sha256: str = "") -> Vectors:
    """The vectors of a parsed spec (``source`` and ``sha256`` name the document)."""
    fires: dict[Pair, str] = {}
    for t in spec.transitions:
        if t.event is not None:
            fires.setdefault((t.from_state, t.event), t.to_state)
    return build_vectors(
        states=spec.state_names,
        allowed=spec.transition_pairs,
        forbidden={i.pair: i.why for i in spec.invalid},
        initial=spec.initial_states,
        terminal=spec.terminal_states,
        events=spec.events,
        fires=fires,
        spec=SpecInfo(spec.id, spec.revision, spec.title, source, sha256),
    )


def differences(found: Vectors, wanted: Vectors, *, limit: int = 20) -> list[str]:
    """What ``found`` (say a file) says differently from ``wanted`` (say the spec), one line
    per disagreement, at most ``limit``."""
    out: list[str] = []
    if found.format != wanted.format:
        out.append(f"format is {found.format}, expected {wanted.format}")
    for name in ("states", "initial", "terminal", "events", "not_states", "not_events"):
        got, want = getattr(found, name), getattr(wanted, name)
        if got != want:
            out.append(f"{name}: {_first_difference(got, want)}")
    for label, got_map, want_map in (
        ("pair", found.by_pair, wanted.by_pair),
        ("fire", found.by_fire, wanted.by_fire),
    ):
        for key in sorted(set(got_map) | set(want_map)):
            got_v, want_v = got_map.get(key), want_map.get(key)
            if got_v != want_v:
                out.append(f"{label} {key[0]!r} -> {key[1]!r}: {_v(got_v)}, the spec: {_v(want_v)}")
    if found.spec is not None and wanted.spec is not None:
        for name in ("id", "revision", "sha256"):
            got_s, want_s = getattr(found.spec, name), getattr(wanted.spec, name)
            if want_s and got_s != want_s:
                out.append(f"spec {name} is {got_s!r}, the document's is {want_s!r}")
    return out[:limit]


def _v(vector: PairVector | FireVector | None) -> str:
    if vector is None:
        return "absent"
    extra = vector[3]
    return vector.verdict if extra is None else f"{vector.verdict} ({extra!r})"


def _first_difference(got: tuple[object, ...], want: tuple[object, ...]) -> str:
    """Where two lists part: the first differing entry, or which one is longer."""
    for index, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return f"entry {index} is {_item(a)}, the spec's is {_item(b)}"
    if len(got) > len(want):
        return f"{len(got) - len(want)} more than the spec's, from {_item(got[len(want)])}"
    return f"{len(want) - len(got)} fewer than the spec's, missing {_item(want[len(got)])}"


def _item(item: object) -> str:
    return repr(item.name) if isinstance(item, Lookalike) else repr(item)

"""Test plans computed from a spec's model alone (no system, no Hypothesis).

A :class:`Check` is a path of declared transitions from an initial state (a shortest one,
found breadth-first in declaration order, so plans are reproducible) and, at its end, one
attempt with the verdict the spec demands. :func:`build_plan` makes:

- ``reach``: the shortest path to every state;
- ``declared``: every declared transition, its source reached along a shortest path;
- ``invalid``: every pair the spec lists as invalid, attempted from its source: rejected;
- ``undeclared``: every pair neither declared nor listed (never ``s -> s``: a write of the
  unchanged state is no transition, and systems legitimately treat it as a no-op) up to
  :data:`MAX_UNDECLARED` of them; beyond that bound a fixed sample of that size that still
  tries every source state (at least one undeclared target from each). Then every name of the
  vectors' ``not_states`` (case, width, padding and normalisation variants of every state,
  and generic non-names), each attempted from an initial state: rejected.

The verdicts come from the spec's vectors (:mod:`generator.model.verdicts`). A state no
path reaches is *seeded* (created directly in it) when the adapter can do that; otherwise
its checks are left out and listed in :attr:`Plan.unreached`. Names holding a character the
adapter declares it ``cannot_carry`` (psycopg cannot send NUL) are left out and listed in
:attr:`Plan.uncarried`.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from generator.model.verdicts import FORBIDDEN, UNDECLARED
from generator.testing.proofs.expected import Expected

KINDS = ("reach", "declared", "invalid", "undeclared")
#: Every undeclared pair is tried up to this many; beyond, a sample this size covering every
#: source state (the default of ``max_undeclared``).
MAX_UNDECLARED = 500


@dataclass(frozen=True)
class Check:
    """Walk ``path`` (each step a declared transition), then attempt ``target``."""

    kind: str
    path: tuple[str, ...]
    target: str | None
    accept: bool
    reason: str

    @property
    def title(self) -> str:
        if self.target is None:
            return f"reach {self.path[-1]!r}"
        return f"{self.kind} {self.path[-1]!r} -> {self.target!r}"


@dataclass(frozen=True)
class Plan:
    checks: tuple[Check, ...]
    unreached: tuple[str, ...]
    #: Names that are no state but hold a character the adapter cannot carry: not tried.
    uncarried: tuple[str, ...] = ()

    def of(self, kind: str) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.kind == kind)


def shortest_paths(expected: Expected) -> dict[str, tuple[str, ...]]:
    """State -> a shortest path of declared transitions from an initial state to it."""
    starts = [s for s in expected.states if s in expected.initial]
    paths: dict[str, tuple[str, ...]] = {s: (s,) for s in starts}
    queue = deque(starts)
    order = {s: i for i, s in enumerate(expected.states)}
    while queue:
        here = queue.popleft()
        for there in sorted(expected.targets(here), key=order.__getitem__):
            if there not in paths:
                paths[there] = (*paths[here], there)
                queue.append(there)
    return paths


def build_plan(
    expected: Expected,
    seeds_any_state: bool = False,
    max_undeclared: int = MAX_UNDECLARED,
    cannot_carry: str = "",
) -> Plan:
    """Every check for ``expected``; ``seeds_any_state``: unreachable states may be seeded;
    ``max_undeclared``: the bound on undeclared pairs (see the module); ``cannot_carry``:
    characters the adapter's driver cannot send, whose names are left out."""
    vectors = expected.vectors
    paths = shortest_paths(expected)
    unreached = tuple(s for s in expected.states if s not in paths)
    if seeds_any_state:
        paths.update({s: (s,) for s in unreached})
        unreached = ()
    checks: list[Check] = []
    for state in expected.states:
        if state in paths:
            checks.append(Check("reach", paths[state], None, True, "reach"))
    for (a, b), transition in expected.transitions.items():
        if a in paths:
            why = f"the spec declares it ({transition.trigger})"
            checks.append(Check("declared", paths[a], b, True, why))
    for v in vectors.of(FORBIDDEN):
        if v.from_state in paths:
            reason = f"the spec forbids it: {v.why}"
            checks.append(Check("invalid", paths[v.from_state], v.to_state, False, reason))
    undeclared = [
        (v.from_state, v.to_state)
        for v in vectors.of(UNDECLARED)
        if v.from_state in paths and v.from_state != v.to_state
    ]
    for a, b in sample_undeclared(undeclared, max_undeclared):
        checks.append(Check("undeclared", paths[a], b, False, "the spec does not declare it"))
    starts = [s for s in expected.states if s in expected.initial and s in paths]
    names = [n.name for n in vectors.not_states]
    carried = [n for n in names if not any(c in n for c in cannot_carry)]
    if starts:
        for index, name in enumerate(carried):
            start = starts[index % len(starts)]  # every name once, the starts in turn
            checks.append(Check("undeclared", (start,), name, False, f"{name!r} is no state"))
    uncarried = tuple(n for n in names if n not in carried)
    return Plan(tuple(checks), unreached, uncarried)


def sample_undeclared(pairs: list[tuple[str, str]], bound: int) -> list[tuple[str, str]]:
    """All of ``pairs`` when there are at most ``bound``; else ``bound`` of them in a fixed
    pseudo-random order that takes one target of every source state first (when the bound
    allows), so no source state goes untried."""
    if len(pairs) <= bound:
        return list(pairs)
    shuffled = list(pairs)
    random.Random(0).shuffle(shuffled)  # a fixed order: the same sample on every run
    first: dict[str, tuple[str, str]] = {}
    for pair in shuffled:
        first.setdefault(pair[0], pair)
    chosen = list(first.values())[:bound]
    taken = set(chosen)
    chosen += [p for p in shuffled if p not in taken][: bound - len(chosen)]
    return chosen

"""Test plans computed from a spec's model alone (no system, no Hypothesis).

A :class:`Check` is a path of declared transitions from an initial state (a shortest one,
found breadth-first in declaration order, so plans are reproducible) and, at its end, one
attempt with the verdict the spec demands. :func:`build_plan` makes:

- ``reach``: the shortest path to every state;
- ``declared``: every declared transition, its source reached along a shortest path;
- ``invalid``: every pair the spec lists as invalid, attempted from its source: rejected;
- ``undeclared``: a bounded sample of pairs neither declared nor listed (never ``s -> s``: a
  write of the unchanged state is no transition, and systems legitimately treat it as a
  no-op), and a few names that are no state, attempted from an initial state: rejected.

A state no path reaches is *seeded* (created directly in it) when the adapter can do that;
otherwise its checks are left out and listed in :attr:`Plan.unreached`.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from generator.testing.proofs.expected import UNDECLARED, Expected

KINDS = ("reach", "declared", "invalid", "undeclared")
#: Names that are no state, attempted from each initial state.
UNKNOWN_PER_START = 3


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


def build_plan(expected: Expected, seeds_any_state: bool = False, max_undeclared: int = 20) -> Plan:
    """Every check for ``expected``; ``seeds_any_state``: unreachable states may be seeded."""
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
    for (a, b), why in expected.invalid.items():
        if a in paths:
            checks.append(Check("invalid", paths[a], b, False, f"the spec forbids it: {why}"))
    undeclared = [
        (a, b)
        for a in expected.states
        if a in paths
        for b in expected.states
        if a != b and expected.outcome(a, b) == UNDECLARED
    ]
    random.Random(0).shuffle(undeclared)  # a fixed order: the same sample on every run
    for a, b in undeclared[:max_undeclared]:
        checks.append(Check("undeclared", paths[a], b, False, "the spec does not declare it"))
    for start in expected.states:
        if start in expected.initial and start in paths:
            for name in (*expected.unknown_names()[:UNKNOWN_PER_START], "no such state"):
                if name not in expected.state_set:
                    checks.append(
                        Check("undeclared", (start,), name, False, f"{name!r} is no state")
                    )
    return Plan(tuple(checks), unreached)

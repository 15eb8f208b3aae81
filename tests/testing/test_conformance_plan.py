"""The plans, on random valid spec documents: shortest paths, every declared transition and
listed invalid pair once, a bounded sample of undeclared pairs; and the runner against an
in-memory system that follows the spec (passes) or breaks it by one pair (caught, named)."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import scaled

from generator.lint.document import lint_bytes
from generator.testing.conformance import ConformanceError, Oracle, load_oracle, run_checks
from generator.testing.conformance.plan import build_plan, shortest_paths
from generator.testing.proofs.expected import UNDECLARED, Expected
from generator.testing.strategies import spec_documents

from .repos import ROOT, SEEDS


def expected_of(text: str) -> Expected:
    result = lint_bytes(text.encode("utf-8"), "specs/random.md")
    assert result.document is not None
    return Expected.from_spec(result.document.spec)


def distances(e: Expected) -> dict[str, int]:
    """Fewest declared steps from an initial state, by relaxing every edge until stable."""
    far = len(e.states) + 1
    dist = {s: 0 if s in e.initial else far for s in e.states}
    changed = True
    while changed:
        changed = False
        for a, b in e.transitions:
            if dist[a] + 1 < dist[b]:
                dist[b] = dist[a] + 1
                changed = True
    return {s: d for s, d in dist.items() if d < far}


@settings(max_examples=scaled(200, 20))
@given(text=spec_documents(max_states=7), seeds=st.booleans(), bound=st.integers(0, 30))
def test_plans_follow_the_spec(text: str, seeds: bool, bound: int) -> None:
    e = expected_of(text)
    plan = build_plan(e, seeds, bound)
    reach = distances(e)
    paths = shortest_paths(e)
    assert {s: len(p) - 1 for s, p in paths.items()} == reach
    for state, path in paths.items():
        assert path[0] in e.initial and path[-1] == state
        assert all(pair in e.transitions for pair in itertools.pairwise(path))
    started = set(reach) | (set(e.states) if seeds else set())
    assert set(plan.unreached) == (set() if seeds else set(e.states) - set(reach))
    by_kind = {kind: plan.of(kind) for kind in ("reach", "declared", "invalid", "undeclared")}
    assert {c.path[-1] for c in by_kind["reach"]} == started
    declared = [(c.path[-1], c.target) for c in by_kind["declared"]]
    assert sorted(declared) == sorted(p for p in e.transitions if p[0] in started)
    assert all(c.accept for c in by_kind["declared"] + by_kind["reach"])
    invalid = [(c.path[-1], c.target) for c in by_kind["invalid"]]
    assert sorted(invalid) == sorted(p for p in e.invalid if p[0] in started)
    undeclared = [c for c in by_kind["undeclared"] if c.target in e.state_set]
    pool = [(a, b) for a in started for b in e.states if a != b and e.outcome(a, b) == UNDECLARED]
    assert len(undeclared) == min(bound, len(pool))
    assert all(c.target != c.path[-1] and (c.path[-1], c.target) in pool for c in undeclared)
    unknown = [c for c in by_kind["undeclared"] if c.target not in e.state_set]
    assert unknown and all(c.path[0] in e.initial and len(c.path) == 1 for c in unknown)
    assert not any(c.accept for c in by_kind["invalid"] + by_kind["undeclared"])
    for check in plan.checks:
        if check.path[0] not in e.initial:
            assert seeds and check.path == (check.path[0],)
        else:
            assert len(check.path) - 1 == reach[check.path[-1]]
    assert build_plan(e, seeds, bound) == plan  # reproducible


class DictSystem:
    """An in-memory system that allows exactly ``allowed``; ``seeds_any_state``."""

    seeds_any_state = True

    def __init__(self, allowed: set[tuple[str, str]]) -> None:
        self.allowed = allowed
        self.rows: dict[int, str] = {}

    def create(self, state: str) -> int:
        self.rows[len(self.rows)] = state
        return len(self.rows) - 1

    def read(self, obj: int) -> object:
        return self.rows[obj]

    def attempt(self, obj: int, to_state: str) -> bool:
        if (self.rows[obj], to_state) in self.allowed:
            self.rows[obj] = to_state
            return True
        return False


def oracle_of(text: str) -> Oracle:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "spec.md"
        path.write_text(text, encoding="utf-8")
        return load_oracle(path)


@settings(max_examples=scaled(100, 10))
@given(text=spec_documents(max_states=6), data=st.data())
def test_a_faithful_system_passes_and_one_wrong_pair_is_caught(text: str, data: Any) -> None:
    oracle = oracle_of(text)
    e = oracle.expected
    plan = build_plan(e, True, 50)
    run_checks(DictSystem(set(e.transitions)), oracle, plan.checks)
    wrong: list[tuple[str, str, str]] = [(a, b, "rejected") for a, b in e.transitions if a != b]
    wrong += [(a, b, "accepted") for a, b in e.invalid]
    if not wrong:
        return
    a, b, verdict = data.draw(st.sampled_from(wrong))
    allowed = set(e.transitions) ^ {(a, b)}
    try:
        run_checks(DictSystem(allowed), oracle, plan.checks)
    except ConformanceError as exc:
        assert f"{a!r} -> {b!r} was {verdict}" in str(exc)
    else:
        raise AssertionError(f"{a!r} -> {b!r} {verdict} went unnoticed")


def test_the_oracle_is_the_spec_and_not_the_generated_tree() -> None:
    """The oracle's module is generated in memory from the document, never imported."""
    oracle = load_oracle(ROOT / SEEDS["attempt"])
    m: Any = oracle.module
    assert m.__statedoc_oracle__ and m.SPEC_ID == "STATE-PFM-TNL-002"
    assert {s.value for s in m.State} == set(oracle.expected.states)
    assert oracle.machine("failed").state.value == "failed"

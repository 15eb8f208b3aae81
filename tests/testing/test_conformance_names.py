"""What the conformance kit promises to catch, each on a deliberately wrong in-memory service:
names accepted case-insensitively, trimmed or Unicode-normalised (variants of real state names
are tried on every run), and one undeclared pair allowed among 75 (all are tried up to the
documented bound; beyond it, a sample covers every source state). The right service passes."""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from targets.test_generate_support import spec_text

from generator.lint.document import lint_bytes
from generator.testing.conformance import ConformanceError, build_plan, conformance_tests
from generator.testing.conformance.plan import MAX_UNDECLARED
from generator.testing.proofs.expected import UNDECLARED, Expected

from .repos import MOVES, ROOT, SEEDS


class Service:
    """A service keeping states in a dict, allowing ``moves``; ``understand`` maps what a
    caller sends to the state name the service then looks up (the wrong ones are lenient)."""

    understand: Callable[[str], str] = staticmethod(lambda name: name)

    def __init__(self, moves: dict[str, frozenset[str]]) -> None:
        self.moves = moves
        self.rows: dict[int, str] = {}

    def create(self, state: str) -> int:
        self.rows[len(self.rows)] = state
        return len(self.rows) - 1

    def read(self, obj: int) -> object:
        return self.rows[obj]

    def attempt(self, obj: int, to_state: str) -> bool:
        known = {self.understand(s): s for s in self.moves}
        target = known.get(self.understand(to_state))
        if target is None or target not in self.moves[self.rows[obj]]:
            return False
        self.rows[obj] = target
        return True


class CaseInsensitive(Service):
    understand = staticmethod(str.casefold)


class Trimming(Service):
    understand = staticmethod(str.strip)


class Normalising(Service):
    understand = staticmethod(lambda name: unicodedata.normalize("NFKC", name))


def undeclared_failure(
    service: type[Service], spec: str | Path, moves: dict[str, frozenset[str]]
) -> str:
    """The message of ``test_undeclared_rejected`` on ``service`` ('' when it passes)."""
    cls = conformance_tests(spec=spec, adapter=lambda: service(moves))
    try:
        cls().test_undeclared_rejected(None)
    except ConformanceError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(
    ("service", "sent"),
    [
        (CaseInsensitive, "DELIVERING"),
        (Trimming, "delivering "),
        (Normalising, "ｄｅｌｉｖｅｒｉｎｇ"),
    ],
)
def test_a_lenient_service_is_caught_on_every_run(service: type[Service], sent: str) -> None:
    message = undeclared_failure(service, SEEDS["delivery"], MOVES["delivery"])
    assert f"'pending' -> {sent!r} was accepted, but {sent!r} is no state" in message, message


def test_the_right_service_passes_every_test() -> None:
    assert undeclared_failure(Service, SEEDS["delivery"], MOVES["delivery"]) == ""
    cls = conformance_tests(spec=SEEDS["delivery"], adapter=lambda: Service(MOVES["delivery"]))
    for name in (
        "test_reaches_every_state",
        "test_declared_transitions",
        "test_invalid_pairs_rejected",
    ):
        getattr(cls(), name)(None)


STATES = [f"s{i}" for i in range(10)]
CHAIN = list(itertools.pairwise(STATES))
#: 90 ordered pairs of distinct states - 9 declared - 6 listed invalid = 75 undeclared.
INVALID = [(STATES[i + 1], STATES[i]) for i in range(6)]


@pytest.fixture(scope="module")
def chain_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = spec_text(
        STATES,
        [{"from": a, "to": b, "trigger": f"step {a}"} for a, b in CHAIN],
        [{"from": a, "to": b, "why": f"no way back to {b}"} for a, b in INVALID],
        initial="s0",
    )
    path = tmp_path_factory.mktemp("chain") / "chain.md"
    path.write_text(text, encoding="utf-8")
    return path


def chain_expected(path: Path) -> Expected:
    document = lint_bytes(path.read_bytes(), "chain.md").document
    assert document is not None
    return Expected.from_spec(document.spec)


def test_every_undeclared_pair_is_tried_up_to_the_bound(chain_spec: Path) -> None:
    expected = chain_expected(chain_spec)
    pool = [
        (a, b) for a in STATES for b in STATES if a != b and expected.outcome(a, b) == UNDECLARED
    ]
    assert len(pool) == 75 and MAX_UNDECLARED >= 75
    tried = [
        (c.path[-1], c.target)
        for c in build_plan(expected).of("undeclared")
        if c.target in expected.state_set
    ]
    assert sorted(tried) == sorted(pool)


def test_beyond_the_bound_the_sample_tries_every_source_state(chain_spec: Path) -> None:
    expected = chain_expected(chain_spec)
    plan = build_plan(expected, max_undeclared=len(STATES))
    tried = [
        (c.path[-1], c.target) for c in plan.of("undeclared") if c.target in expected.state_set
    ]
    assert len(tried) == len(STATES) and {a for a, _ in tried} == set(STATES)
    assert build_plan(expected, max_undeclared=len(STATES)) == plan  # the same on every run


def test_one_wrong_pair_among_75_undeclared_is_always_caught(chain_spec: Path) -> None:
    expected = chain_expected(chain_spec)
    right = {s: frozenset(b for a, b in CHAIN if a == s) for s in STATES}
    assert undeclared_failure(Service, chain_spec, right) == ""
    for a, b in (
        p for p in itertools.permutations(STATES, 2) if expected.outcome(*p) == UNDECLARED
    ):
        wrong = {**right, a: right[a] | {b}}
        message = undeclared_failure(Service, chain_spec, wrong)
        assert f"{a!r} -> {b!r} was accepted, but the spec does not declare it" in message


def test_the_seed_plans_try_all_their_undeclared_pairs() -> None:
    """Regression: only 20 undeclared pairs were sampled, whatever the spec."""
    document = lint_bytes((ROOT / SEEDS["delivery"]).read_bytes(), SEEDS["delivery"]).document
    assert document is not None
    expected = Expected.from_spec(document.spec)
    pool = {
        (a, b)
        for a in expected.states
        for b in expected.states
        if a != b and expected.outcome(a, b) == UNDECLARED
    }
    assert len(pool) > 20
    checks = build_plan(expected).of("undeclared")
    assert {(c.path[-1], c.target) for c in checks if c.target in expected.state_set} == pool

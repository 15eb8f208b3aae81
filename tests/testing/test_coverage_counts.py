"""What ``--statedoc-coverage`` counts, proven by real pytest runs (pytester, a fresh
interpreter each): statedoc's self-proof of a generated module (what ``generate --tests``
writes) counts nothing; the conformance kit counts the verdicts of the system under test by
default (``coverage=False`` opts out); the JSON names pairs as values, not ``repr`` strings."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
from profiles import downstream_conftest

from generator.targets.tests import render_test_module
from generator.testing.conformance import conformance_tests
from generator.testing.coverage import Collector, CoveringAdapter

from . import repos
from .repos import MOVES, ROOT, SEEDS

pytest_plugins = ["pytester"]

MODULE = "generated.platform.tenant_lifecycle.provisioning_attempt"
SERVICE = '''
from generator.testing import conformance_tests

MOVES = {moves!r}


class Service:
    """An in-memory service that allows exactly the spec's moves, written by hand."""

    def __init__(self) -> None:
        self.rows = {{}}

    def create(self, state):
        self.rows[len(self.rows)] = state
        return len(self.rows) - 1

    def read(self, obj):
        return self.rows[obj]

    def attempt(self, obj, to_state):
        if to_state in MOVES.get(self.rows[obj], ()):
            self.rows[obj] = to_state
            return True
        return False


TestAttempt = conformance_tests(spec={spec!r}, adapter=Service{extra})
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project measuring the attempt seed; the repository's ``generated`` is importable."""
    for name in ("CI", "HYPOTHESIS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyprojecttoml('[tool.statedoc]\nspecs = "specs"\n')
    spec = pytester.path / SEEDS["attempt"]
    spec.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / SEEDS["attempt"], spec)
    pytester.makeconftest(downstream_conftest())
    return pytester


def run(project: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    out = project.path / "coverage.json"
    result = project.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        "--statedoc-coverage",
        f"--statedoc-coverage-json={out}",
        *args,
    )
    return result, json.loads(out.read_text(encoding="utf-8"))


def test_the_generated_self_proof_counts_nothing(project: pytest.Pytester) -> None:
    """Regression: alone it reported 100% and passed --statedoc-fail-under=90."""
    text = render_test_module(MODULE, SEEDS["attempt"])
    (project.path / "test_provisioning_attempt.py").write_text(text, encoding="utf-8")
    result, report = run(project, "--statedoc-fail-under=90")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["TOTAL 0/11 (0%)", "FAIL statedoc coverage 0.00% is below --statedoc-fail-under=90"]
    )
    assert report["covered"] == 0 and report["total"] == 11


def test_the_conformance_kit_counts_the_system_under_test(project: pytest.Pytester) -> None:
    text = SERVICE.format(moves=dict(MOVES["attempt"]), spec=SEEDS["attempt"], extra="")
    (project.path / "test_service.py").write_text(text, encoding="utf-8")
    result, report = run(project, "--statedoc-fail-under=100")
    result.assert_outcomes(passed=5)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["TOTAL 11/11 (100%)"])
    (spec,) = report["specs"]
    parts = spec["parts"]
    assert parts["states"] == {
        "covered": ["pending", "running", "succeeded", "failed"],
        "missed": [],
    }
    assert parts["transitions"]["covered"] == [
        {"from": "pending", "to": "running"},
        {"from": "pending", "to": "failed"},
        {"from": "running", "to": "succeeded"},
        {"from": "running", "to": "failed"},
    ]
    assert parts["invalid pairs"]["covered"] == [
        {"from": "succeeded", "to": "running"},
        {"from": "failed", "to": "running"},
        {"from": "failed", "to": "succeeded"},
    ]


def test_the_kit_counts_nothing_when_told_not_to(project: pytest.Pytester) -> None:
    text = SERVICE.format(
        moves=dict(MOVES["attempt"]), spec=SEEDS["attempt"], extra=", coverage=False"
    )
    (project.path / "test_service.py").write_text(text, encoding="utf-8")
    result, report = run(project)
    result.assert_outcomes(passed=5)
    assert report["covered"] == 0


def test_a_hand_wrapped_adapter_is_not_counted_twice() -> None:
    """The kit leaves the counting to a ``CoveringAdapter`` that records already."""
    from generator.testing import coverage

    counts = []
    for wrap in (False, True):
        collector = Collector()
        found = collector.add_spec(ROOT / SEEDS["attempt"])

        def make(collector: Collector = collector, wrap: bool = wrap) -> Any:
            system = repos.StoreAdapter(repos.CheckedStore.sqlite("attempt"))
            return CoveringAdapter(system, collector, ROOT / SEEDS["attempt"]) if wrap else system

        cls = conformance_tests(spec=SEEDS["attempt"], adapter=make)
        coverage.ACTIVE = collector
        try:
            cls().test_declared_transitions(None)
        finally:
            coverage.ACTIVE = None
        counts.append(dict(found.transitions))
    assert counts[0] == counts[1] and sum(counts[0].values()) > 0

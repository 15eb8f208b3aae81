"""Random specs (generator.testing.strategies: awkward names, arbitrary Unicode texts) through
the TypeScript target: every module type-checks under the strict flags, and its generated
fast-check test passes in node. Batched: one tsc run and one node process for all examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from profiles import scaled
from ts_harness import compile_project, run_tests

from generator.core.findings import Severity
from generator.lint.document import lint_bytes
from generator.testing.strategies import Draft, spec_drafts

from .ts_support import Subject

pytestmark = pytest.mark.slow


def _collect(count: int) -> list[Subject]:
    found: list[Subject] = []

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(spec_drafts(max_states=7))
    def collect(draft: Draft) -> None:
        result = lint_bytes(draft.text.encode("utf-8"), "specs/area/spec.md")
        errors = [f for f in result.findings if f.severity is Severity.ERROR]
        assert result.document is not None and not errors, errors
        found.append(Subject(f"r{len(found):03d}", result.document, "specs/area/spec.md"))

    collect()
    return found


def test_random_specs_typecheck_and_pass_their_property_tests(tmp_path: Path) -> None:
    chosen = _collect(scaled(100, minimum=15))
    assert len(chosen) >= 15
    files: dict[str, str] = {}
    for subject in chosen:
        files[f"{subject.name}/spec.ts"] = subject.module()
        files[f"{subject.name}/spec.test.ts"] = subject.test("./spec.js")
    compiled = compile_project(tmp_path, files)
    assert compiled.returncode == 0, compiled.errors[:6000]
    tests = [path for path in files if path.endswith(".test.ts")]
    results = run_tests(compiled, tests, runs=scaled(50, minimum=10))
    failed = {path: error for path, (ok, error) in results.items() if not ok}
    by_folder = {subject.name: subject for subject in chosen}
    report = [
        f"{path}:\n{error}\n-- spec:\n{by_folder[Path(path).parent.name].document.source.text}"
        for path, error in failed.items()
    ]
    assert not failed, "\n\n".join(report)
    assert len(results) == len(tests)

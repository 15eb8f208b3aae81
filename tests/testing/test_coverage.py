"""Transition coverage: the collector, the Machine instrumentation, the covering adapter, and
the pytest plugin run in a fresh interpreter on a small project (table, JSON, fail-under)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.testing import import_generated
from generator.testing.conformance import load_oracle
from generator.testing.coverage import (
    Collector,
    CoveringAdapter,
    hook_class_creation,
    instrument,
)

from .repos import ROOT, SEEDS, CheckedStore, StoreAdapter

ATTEMPT_MODULE = ROOT / "generated/platform/tenant_lifecycle/provisioning_attempt.py"


def test_the_covering_adapter_records_what_went_through_it() -> None:
    collector = Collector()
    found = collector.add_spec(ROOT / SEEDS["attempt"], SEEDS["attempt"])
    system = CoveringAdapter(StoreAdapter(CheckedStore.sqlite("attempt")), collector, found.path)
    row = system.create("pending")
    assert system.attempt(row, "running") and system.attempt(row, "succeeded")
    assert not system.attempt(row, "running")  # listed invalid: attempted, rejected
    assert not system.attempt(row, "pending")  # undeclared: not a coverage item
    system.close()
    parts = found.parts()
    assert parts["states"] == (["'pending'", "'running'", "'succeeded'"], ["'failed'"])
    assert parts["transitions"][1] == ["'pending' -> 'failed'", "'running' -> 'failed'"]
    assert parts["invalid pairs"] == (
        ["'succeeded' -> 'running'"],
        ["'failed' -> 'running'", "'failed' -> 'succeeded'"],
    )
    assert found.totals() == (6, 11) and collector.totals() == (6, 11)
    table = collector.table()
    assert f"STATE-PFM-TNL-002 {SEEDS['attempt']}: 6/11 (55%)" in table
    assert "  invalid pairs        1/3  'failed' -> 'running', 'failed' -> 'succeeded'" in table
    report = collector.as_json()
    assert report["covered"] == 6 and report["total"] == 11 and report["percent"] == 54.55


def test_without_a_collector_the_covering_adapter_only_passes_through() -> None:
    store = StoreAdapter(CheckedStore.sqlite("attempt"))
    system = CoveringAdapter(store, None, ROOT / SEEDS["attempt"])
    row = system.create("pending")
    assert system.attempt(row, "running") and not system.attempt(row, "pending")
    assert system.read(row) == "running"


def test_instrumented_machines_record_and_behave_the_same() -> None:
    module: Any = import_generated(ATTEMPT_MODULE)
    collector = Collector()
    found = collector.add_spec(ROOT / SEEDS["attempt"])
    assert instrument(module, collector) and not instrument(module, collector)
    machine = module.Machine()
    assert machine.transition("running").to_state is module.State.RUNNING
    with pytest.raises(module.UndeclaredTransition):
        machine.transition("pending")
    module.Machine("failed")
    with pytest.raises(module.ForbiddenTransition) as caught:
        module.Machine("failed").transition("succeeded")
    assert caught.value.why.startswith("A failed terminal attempt")
    assert found.states == {"pending": 2, "running": 1, "failed": 2}
    assert dict(found.transitions) == {("pending", "running"): 1}
    assert dict(found.invalid) == {("failed", "succeeded"): 1}
    assert module.Machine.transition.__doc__.startswith("Move to ``to``")


def test_only_the_measured_spec_revision_counts_and_never_the_oracle() -> None:
    collector = Collector()
    found = collector.add_spec(ROOT / SEEDS["attempt"])
    oracle: Any = load_oracle(ROOT / SEEDS["attempt"]).module
    assert not instrument(oracle, collector)
    module: Any = import_generated(ATTEMPT_MODULE)
    module.SPEC_SHA256 = "0" * 64  # as if generated from another revision of the document
    assert instrument(module, collector)
    module.Machine().transition("running")
    assert found.totals()[0] == 0


def test_machines_are_instrumented_as_their_class_is_created() -> None:
    collector = Collector()
    found = collector.add_spec(ROOT / SEEDS["attempt"])
    undo = hook_class_creation(collector)
    try:
        module: Any = import_generated(ATTEMPT_MODULE)
        oracle: Any = load_oracle(ROOT / SEEDS["attempt"]).module
    finally:
        undo()
    later: Any = import_generated(ATTEMPT_MODULE)
    module.Machine().transition("failed")
    oracle.Machine().transition("running")
    later.Machine().transition("running")
    assert dict(found.transitions) == {("pending", "failed"): 1}
    assert not instrument(module, collector)  # already done


class Named:
    def __init_subclass__(cls, name: str = "", func: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.label = name + func  # type: ignore[attr-defined]


def test_the_class_hook_passes_every_class_keyword_through() -> None:
    """Regression: psycopg declares classes with ``name=`` keywords; the hook took them."""
    undo = hook_class_creation(Collector())
    try:

        class Labelled(Named, name="a", func="b"):
            pass

    finally:
        undo()
    assert Labelled.label == "ab"  # type: ignore[attr-defined]


def test_a_listener_records_machines_built_by_hand() -> None:
    module: Any = import_generated(ATTEMPT_MODULE)
    collector = Collector()
    found = collector.add_spec(ROOT / SEEDS["attempt"])
    listen = collector.listener(module.SPEC_ID, module.SPEC_SHA256)
    machine = module.Machine(listeners=[listen])
    machine.transition("failed")
    assert dict(found.transitions) == {("pending", "failed"): 1}


def test_the_plugin_is_registered_through_pytest11() -> None:
    points = importlib.metadata.entry_points(group="pytest11")
    assert [p.value for p in points if p.name == "statedoc"] == ["generator.testing.pytest_plugin"]


USER_TEST = """
from generator.testing import import_generated


def test_start() -> None:
    attempt = import_generated({module!r})  # loaded inside the test body: still counted
    machine = attempt.Machine()
    machine.transition("running")
"""


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    return subprocess.run(
        # -W: an editable install's own module is imported before pytest could rewrite it
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::pytest.PytestAssertRewriteWarning",
            *args,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    spec = tmp_path / SEEDS["attempt"]
    spec.parent.mkdir(parents=True)
    spec.write_bytes((ROOT / SEEDS["attempt"]).read_bytes())
    (tmp_path / "test_user.py").write_text(USER_TEST.format(module=str(ATTEMPT_MODULE)))
    return tmp_path


def test_the_plugin_prints_a_table_writes_json_and_fails_under(project: Path) -> None:
    out = project / "coverage.json"
    done = run_pytest(
        project,
        "--statedoc-coverage",
        "--statedoc-fail-under=50",
        f"--statedoc-coverage-json={out}",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "statedoc transition coverage" in done.stdout
    assert f"STATE-PFM-TNL-002 {SEEDS['attempt']}: 3/11 (27%)" in done.stdout
    assert "FAIL statedoc coverage 27.27% is below --statedoc-fail-under=50" in done.stdout
    report = json.loads(out.read_text())
    parts = report["specs"][0]["parts"]
    assert parts["transitions"]["covered"] == [{"from": "pending", "to": "running"}]
    assert parts["states"]["covered"] == ["pending", "running"]
    passing = run_pytest(project, "--statedoc-fail-under=27")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "reaches --statedoc-fail-under=27" in passing.stdout


def test_the_plugin_is_off_unless_asked(project: Path) -> None:
    done = run_pytest(project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "statedoc" not in done.stdout
    helped = run_pytest(project, "--help")
    for option in (
        "--statedoc-coverage",
        "--statedoc-fail-under=N",
        "--statedoc-coverage-json=PATH",
        "--statedoc-coverage-spec=PATH",
    ):
        assert option in helped.stdout


def test_a_spec_that_does_not_lint_is_reported_not_measured(project: Path) -> None:
    (project / "specs/broken.md").write_text("no front matter\n")
    done = run_pytest(project, "--statedoc-coverage")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not measured: specs/broken.md: spec" in done.stdout
    assert "TOTAL 3/11 (27%)" in done.stdout

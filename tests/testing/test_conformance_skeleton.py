"""The conformance skeleton for ``statedoc generate --tests``: a module that imports the
generated module, parses, is formatted, and fails (never skips) until the adapter is written."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.targets.conformance.skeleton import render_conformance_skeleton

from .repos import ROOT, SEEDS

ATTEMPT_MODULE = ROOT / "generated/platform/tenant_lifecycle/provisioning_attempt.py"


def test_the_skeleton_runs_and_fails_until_the_adapter_is_filled_in(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    spec = tmp_path / SEEDS["attempt"]
    spec.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / SEEDS["attempt"], spec)
    (tmp_path / "app").mkdir()
    (tmp_path / "app/__init__.py").write_text("")
    shutil.copyfile(ATTEMPT_MODULE, tmp_path / "app/provisioning_attempt.py")
    text = render_conformance_skeleton("app.provisioning_attempt", SEEDS["attempt"])
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_conformance.py").write_text(text)
    ruff = Path(sys.executable).parent / "ruff"
    formatted = subprocess.run(
        [str(ruff), "format", "--diff", "tests/test_conformance.py"], cwd=tmp_path, check=False
    )
    assert formatted.returncode == 0
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env["PYTHONPATH"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "5 failed" in done.stdout and "skipped" not in done.stdout
    assert "NotImplementedError: create an object; return its handle" in done.stdout
    assert "TestProvisioningAttemptConformance" in done.stdout


def test_any_spec_path_round_trips_and_bad_module_paths_are_refused() -> None:
    hostile = 'specs/it\'s "odd"\n\\ 😀.md'
    tree = ast.parse(render_conformance_skeleton("pkg.mod", hostile))
    call = tree.body[-1]
    assert isinstance(call, ast.Assign) and isinstance(call.value, ast.Call)
    spec = next(k.value for k in call.value.keywords if k.arg == "spec")
    assert ast.literal_eval(spec) == hostile
    for bad in ("", "pkg..mod", "pkg.class", "pkg.mod; import os", "1pkg"):
        with pytest.raises(ValueError, match="not a dotted import path"):
            render_conformance_skeleton(bad, "specs/x.md")

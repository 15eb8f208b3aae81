"""The two kinds of test run: the scaled default, and the thorough run where CI is set.

Each case runs pytest in a fresh interpreter on a small folder holding copies of this
suite's ``conftest.py`` with the modules it imports, so the hooks are the real ones.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]  # tests/

PROBE = """\
import pytest
from hypothesis import settings
from profiles import scaled


def test_sizes():
    print(f"examples={settings().max_examples} scaled={scaled(300)}")


def test_skips():
    pytest.skip("needs something missing")
"""


def run_probe(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    for name in ("conftest.py", "profiles.py", "postgres_fixtures.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "test_probe.py").write_text(PROBE)
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CI", "HYPOTHESIS_PROFILE") and not k.startswith("PYTEST_")
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-s", "-rs", *args],
        cwd=tmp_path,
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_default_run_scales_slow_tests_and_allows_skips(tmp_path: Path) -> None:
    proc = run_probe(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "examples=50 scaled=60" in proc.stdout
    assert "1 passed, 1 skipped" in proc.stdout


@pytest.mark.parametrize(
    "env", [{"CI": "true"}, {"HYPOTHESIS_PROFILE": "ci"}], ids=["CI", "profile"]
)
def test_a_thorough_run_is_full_size_and_a_skip_fails_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    proc = run_probe(tmp_path, **env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "examples=250 scaled=300" in proc.stdout
    assert "1 failed, 1 passed" in proc.stdout
    assert "skipped in a thorough run" in proc.stdout
    assert "needs something missing" in proc.stdout


@pytest.mark.parametrize("selection", [["-m", "not slow"], ["-k", "sizes"]])
def test_a_thorough_run_refuses_to_deselect(tmp_path: Path, selection: list[str]) -> None:
    proc = run_probe(tmp_path, *selection, CI="true")
    assert proc.returncode == 4, proc.stdout + proc.stderr  # pytest's usage error
    assert "runs every test" in proc.stderr
    allowed = run_probe(tmp_path, "-k", "sizes")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "1 passed, 1 deselected" in allowed.stdout


def test_the_slow_marker_is_declared_and_used() -> None:
    import tomllib

    config = tomllib.loads((HERE.parent / "pyproject.toml").read_text())
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("slow:") for m in markers)
    for name in (
        "diagram/test_mermaid_oracle.py",
        "testing/test_mutants.py",
        "testing/test_properties_random.py",
    ):
        assert "pytest.mark.slow" in (HERE / name).read_text(), name

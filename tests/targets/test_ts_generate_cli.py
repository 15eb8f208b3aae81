"""``generate --tests DIR`` with the typescript target writes each module's fast-check test next
to the pytest modules, through the same plan (check mode, ownership), and the written tests
compile against the written modules and pass in node."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ts_harness import compile_project, run_tests

from generator.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "specs", project / "specs")
    (project / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\nout = "gen"\ntargets = ["python", "typescript"]\n'
    )
    return project


def test_generate_tests_writes_typescript_tests_that_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    assert main(["generate", "-q", "--tests", "tests"]) == 0
    modules = sorted(p.relative_to(project).as_posix() for p in project.glob("gen/**/*.ts"))
    tests = sorted(p.relative_to(project).as_posix() for p in project.glob("tests/**/*.test.ts"))
    specs = list((project / "specs").rglob("*.md"))
    assert len(modules) == len(tests) == len(specs) >= 2
    assert main(["generate", "-q", "--tests", "tests", "--check"]) == 0
    # a hand edit of a generated test is stale for --check, and a regeneration restores it
    edited = project / tests[0]
    original = edited.read_bytes()
    edited.write_bytes(original + b"// edited\n")
    assert main(["generate", "-q", "--tests", "tests", "--check"]) == 1
    assert main(["generate", "-q", "--tests", "tests"]) == 0
    assert edited.read_bytes() == original
    files = {p: (project / p).read_text(encoding="utf-8") for p in modules + tests}
    compiled = compile_project(tmp_path / "ts", files)
    assert compiled.returncode == 0, compiled.errors
    results = run_tests(compiled, tests, runs=20, seed=1)
    assert results and all(ok for ok, _ in results.values()), results


def test_a_hand_written_typescript_test_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    mine = project / "tests/platform/queries/workspace_export_delivery.test.ts"
    mine.parent.mkdir(parents=True)
    mine.write_text("// my own test\n")
    assert main(["generate", "--tests", "tests"]) == 1
    assert mine.read_text() == "// my own test\n"
    assert "SD404" in capsys.readouterr().out

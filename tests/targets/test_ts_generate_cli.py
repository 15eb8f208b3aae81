"""``generate --tests DIR`` with the typescript target writes each module's fast-check test next
to the pytest modules, through the same plan (check mode, ownership), and the written tests
compile against the written modules and pass under ``node --test``, with its summary."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from ts_harness import NODE_MODULES, TSC, compile_project, ensure_node_modules, run_tests

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


#: The compile settings README documents for the generated tests (and the kit): the tests'
#: folder and the modules' both under ``rootDir``, ES modules resolved as Node does.
DOCUMENTED_TSCONFIG = {
    "compilerOptions": {
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "rootDir": ".",
        "outDir": "build",
        "strict": True,
        "skipLibCheck": True,
    },
    "include": ["gen/**/*.ts", "tests/**/*.ts"],
}


def _node_test(project: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    built = subprocess.run(
        [node, str(TSC), "-p", "tsconfig.json", "--pretty", "false"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return subprocess.run(
        [node, "--test", "build/tests/"], cwd=project, capture_output=True, text=True, check=False
    )


def test_generated_tests_run_under_node_test_with_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a team would: the documented tsconfig, tsc, then ``node --test``: every test file
    reports its two tests and their summary lines; a broken module makes it exit 1."""
    ensure_node_modules()
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    assert main(["generate", "-q", "--tests", "tests"]) == 0
    (project / "tsconfig.json").write_text(json.dumps(DOCUMENTED_TSCONFIG), encoding="utf-8")
    (project / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    (project / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    tests = list(project.glob("tests/**/*.test.ts"))
    passed = _node_test(project)
    assert passed.returncode == 0, passed.stdout[-4000:] + passed.stderr[-4000:]
    assert f"# pass {2 * len(tests)}\n" in passed.stdout and "# fail 0\n" in passed.stdout
    assert passed.stdout.count("agree with the spec") == len(tests), passed.stdout[-4000:]
    assert passed.stdout.count("agree with the model") == len(tests), passed.stdout[-4000:]
    module = next(project.glob("gen/**/workspace_export_delivery.ts"))
    text = module.read_text(encoding="utf-8")
    assert text.count('export const SPEC_TITLE = "') == 1
    module.write_text(text.replace('export const SPEC_TITLE = "', 'export const SPEC_TITLE = "x'))
    failed = _node_test(project)
    assert failed.returncode == 1 and "# fail 1\n" in failed.stdout, failed.stdout[-4000:]
    assert "[statedoc] STATE-PFM-QRY-011: constants differ" in failed.stdout

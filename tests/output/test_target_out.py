"""Per-target output folders (``[tool.statedoc.<target>] out``) and configured tests folders
(``tests``): written by ``build``, covered by ``check`` (stale, missing, left over), cleaned
only of each folder's own targets' files, and refused with a located finding when unsafe.

Real projects (the seed specs) through the real CLI; nothing is stubbed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from targets.test_generate_support import SEED_MODULES, make_project, run_cli, tree

from generator.targets.typescript.tests import import_specifier

QUERIES = SEED_MODULES["queries"]
TENANT = SEED_MODULES["tenant"]

SPLIT = """[tool.statedoc]
specs = "specs"
out = "generated"
targets = ["python", "typescript", "sql"]
tests = "spec_tests"

[tool.statedoc.typescript]
out = "web/src/lifecycle"
tests = "web/test"

[tool.statedoc.sql]
out = "migrations"
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_project(tmp_path)
    (tmp_path / "pyproject.toml").write_text(SPLIT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]]]:
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    return code, [f for f in json.loads(out) if f["code"] != "SD122"]


def test_each_target_writes_into_its_own_folder(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "build")[0] == 0
    assert sorted(tree(repo / "web/src/lifecycle")) == [f"{QUERIES}.ts", f"{TENANT}.ts"]
    assert sorted(tree(repo / "migrations")) == [
        f"{QUERIES}.postgresql.sql",
        f"{TENANT}.postgresql.sql",
    ]
    python = tree(repo / "generated")
    assert f"{QUERIES}.py" in python and not any(p.endswith((".ts", ".sql")) for p in python)
    tests = sorted(tree(repo / "spec_tests"))
    assert tests == [f"test_{m.replace('/', '_')}.py" for m in sorted(SEED_MODULES.values())]
    ts_tests = tree(repo / "web/test")
    assert {f"{QUERIES}.test.ts", f"{TENANT}.test.ts"} <= set(ts_tests)
    assert not any(p.endswith(".py") for p in ts_tests)  # the TS folder gets no pytest module
    assert run_cli(capsys, "check")[0] == 0


def test_the_typescript_test_imports_the_module_where_it_was_written(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "build")[0] == 0
    test_file = repo / "web/test" / f"{QUERIES}.test.ts"
    written = test_file.read_text()
    specifier = import_specifier(f"web/test/{QUERIES}.test.ts", f"web/src/lifecycle/{QUERIES}.ts")
    assert f'import * as generated from "{specifier}";' in written
    # The specifier resolves, from the test file, to the module that was written.
    resolved = (test_file.parent / specifier).resolve().with_suffix(".ts")
    assert resolved == (repo / "web/src/lifecycle" / f"{QUERIES}.ts").resolve()


def test_check_covers_every_configured_folder(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "build")[0] == 0
    module = repo / "web/src/lifecycle" / f"{QUERIES}.ts"
    module.write_text(module.read_text() + "// edited\n")
    test_module = repo / "spec_tests" / f"test_{TENANT.replace('/', '_')}.py"
    test_module.unlink()
    migration = repo / "migrations" / f"{TENANT}.postgresql.sql"
    left_over = migration.with_name("retired.postgresql.sql")
    left_over.write_bytes(migration.read_bytes())
    code, found = _json(capsys, "check")
    assert code == 1
    by_code = {(f["code"], str(f["message"]).split(" ", 1)[0]) for f in found}
    assert ("SD401", f"web/src/lifecycle/{QUERIES}.ts") in by_code
    assert ("SD402", f"spec_tests/test_{TENANT.replace('/', '_')}.py") in by_code
    assert ("SD403", f"migrations/{left_over.relative_to(repo / 'migrations').as_posix()}") in (
        by_code
    )
    _, out, _ = run_cli(capsys, "check")
    assert f"+++ b/web/src/lifecycle/{QUERIES}.ts" in out  # the diff names the folder
    assert run_cli(capsys, "build")[0] == 0
    assert not left_over.exists() and test_module.exists()
    assert "// edited" not in module.read_text()
    assert run_cli(capsys, "check")[0] == 0


def test_cleanup_in_a_folder_touches_only_its_own_targets_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Python module with statedoc's header in the TypeScript folder is not the typescript
    target's: never deleted there; a hand-written file is never touched."""
    assert run_cli(capsys, "build")[0] == 0
    python = (repo / "generated" / f"{QUERIES}.py").read_bytes()
    stray = repo / "web/src/lifecycle" / f"{QUERIES}.py"
    stray.write_bytes(python)
    mine = repo / "migrations/0001_users.sql"
    mine.write_text("create table users (id int);\n")
    assert run_cli(capsys, "build")[0] == 0
    assert stray.read_bytes() == python and mine.exists()


def test_tests_for_the_chosen_targets_only(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reported clash: ``--target typescript --tests DIR`` also wrote a pytest module."""
    code, _, _ = run_cli(capsys, "generate", "--target", "typescript", "--tests", "only_ts")
    assert code == 0
    written = tree(repo / "only_ts")
    assert f"{QUERIES}.test.ts" in written
    assert not any(p.endswith(".py") for p in written)
    code, _, _ = run_cli(capsys, "generate", "--target", "python", "--tests", "only_py")
    assert code == 0
    assert not any(p.endswith(".ts") for p in tree(repo / "only_py"))


def test_the_generated_pytest_module_imports_a_python_module_moved_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[tool.statedoc.python] out`` moves the modules; the configured test modules import
    them from there, and pass when pytest runs them."""
    make_project(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\ntests = "spec_tests"\n\n'
        '[tool.statedoc.python]\nout = "src/app_lifecycle"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli(capsys, "build")[0] == 0
    assert f"{QUERIES}.py" in tree(tmp_path / "src/app_lifecycle")
    assert all(p.endswith(".mmd") for p in tree(tmp_path / "generated"))  # mermaid stays
    module = f"test_{QUERIES.replace('/', '_')}.py"
    assert "src.app_lifecycle.platform.queries" in (tmp_path / "spec_tests" / module).read_text()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"spec_tests/{module}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_out_on_the_command_line_sends_every_target_there(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run_cli(capsys, "generate", "--out", "preview")
    assert code == 0
    written = tree(repo / "preview")
    assert {f"{QUERIES}.py", f"{QUERIES}.ts", f"{QUERIES}.postgresql.sql"} <= set(written)
    assert not (repo / "web/src/lifecycle").exists()
    code, _, err = run_cli(capsys, "generate", "--out", "web/src")
    assert code == 2
    assert "--out web/src overlaps the output folder web/src/lifecycle" in err


def test_generated_tests_name_the_vectors_file_where_the_vectors_target_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python and TypeScript modules have folders of their own and the vectors stay in
    the global ``out``: each generated test names the vectors file that was written."""
    make_project(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\ntests = "spec_tests"\n'
        'targets = ["python", "typescript", "vectors"]\n\n'
        '[tool.statedoc.python]\nout = "src/app_lifecycle"\n\n'
        '[tool.statedoc.typescript]\nout = "web/src"\ntests = "web/test"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli(capsys, "build")[0] == 0
    vectors = f"generated/{QUERIES}.vectors.json"
    assert (tmp_path / vectors).is_file()
    module = f"test_{QUERIES.replace('/', '_')}.py"
    assert f"vectors={json.dumps(vectors)}" in (tmp_path / "spec_tests" / module).read_text()
    ts_test = f"web/test/{QUERIES}.test.ts"
    expected = os.path.relpath(tmp_path / vectors, (tmp_path / ts_test).parent)
    assert json.dumps(Path(expected).as_posix()) in (tmp_path / ts_test).read_text()


def test_moving_the_vectors_folder_rerenders_the_tests_that_name_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The render cache keys a test module by where every target writes, not only the chosen
    ones: the vectors target is not chosen here, yet the pytest module names its folder."""
    make_project(tmp_path)
    config = '[tool.statedoc]\nspecs = "specs"\ntests = "spec_tests"\n\n[tool.statedoc.vectors]\n'
    (tmp_path / "pyproject.toml").write_text(config + 'out = "verdicts/one"\n')
    monkeypatch.chdir(tmp_path)
    assert run_cli(capsys, "build")[0] == 0
    module = tmp_path / "spec_tests" / f"test_{QUERIES.replace('/', '_')}.py"
    assert f"verdicts/one/{QUERIES}.vectors.json" in module.read_text()
    (tmp_path / "pyproject.toml").write_text(config + 'out = "verdicts/two"\n')
    assert run_cli(capsys, "build")[0] == 0
    assert f"verdicts/two/{QUERIES}.vectors.json" in module.read_text()

"""The config (and the cache) of the project the checked files are in, wherever statedoc runs
from; never a cache folder where there is no project."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sample_documents import DOOR, document

from generator.cache.store import FOLDER

BROKEN = DOOR.replace("to: closed,", "to: shut,")  # SD102


def _project(root: Path, table: str) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(f"[tool.statedoc]\n{table}")
    (root / "specs").mkdir()
    (root / "specs/bad.md").write_text(document(BROKEN))
    return root


def _statedoc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_files_project_config_applies_from_anywhere(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj", 'ignore = ["SD1", "SD3"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for path in (project / "specs/bad.md", project / "specs"):
        result = _statedoc(elsewhere, "lint", str(path))
        assert result.returncode == 0, result.stdout + result.stderr
    relative = _statedoc(elsewhere, "lint", "../proj/specs/bad.md")
    assert relative.returncode == 0, relative.stdout
    assert _statedoc(project, "lint", "--select", "SD1").returncode == 1
    assert list(elsewhere.iterdir()) == []  # no cache where statedoc ran
    assert (project / FOLDER).is_dir()  # the project's own cache


def test_no_cache_folder_outside_a_project(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "bad.md").write_text(document(BROKEN))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    assert _statedoc(cwd, "lint", str(loose / "bad.md")).returncode == 1
    assert _statedoc(loose, "lint", "bad.md").returncode == 1
    assert not list(tmp_path.rglob(FOLDER))


def test_generate_outside_a_project_creates_no_cache(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/door.md").write_text(document())
    result = _statedoc(tmp_path, "generate", "-q")
    assert result.returncode == 0, result.stderr
    assert list((tmp_path / "generated").rglob("*.py"))
    assert not (tmp_path / FOLDER).exists()


def test_paths_in_two_projects_are_a_usage_error(tmp_path: Path) -> None:
    one = _project(tmp_path / "one", "")
    two = _project(tmp_path / "two", 'ignore = ["SD1", "SD3"]\n')
    result = _statedoc(tmp_path, "lint", str(one / "specs"), str(two / "specs/bad.md"))
    assert result.returncode == 2
    assert "different projects" in result.stderr
    assert str(one / "pyproject.toml") in result.stderr
    assert str(two / "pyproject.toml") in result.stderr

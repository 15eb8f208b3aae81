"""Fixtures of the diff tests: hermetic git, a repository with one spec, the CLI in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.cli import main

from .support import Repo, Run, base, git


@pytest.fixture(autouse=True)
def hermetic_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user or system git config; a fixed identity; no STATEDOC_FORMAT from the caller."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "test@example.com")
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A git repo with one committed spec, specs/door.md; the working directory is its top."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    r = Repo(root)
    r.write("specs/door.md", base())
    r.commit("first")
    monkeypatch.chdir(root)
    return r


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def call(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return call

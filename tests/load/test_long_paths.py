"""Spec paths at and past the file system's limits, named on the command line or found by
walking the specs folder: each one that cannot be looked at is an SD008 finding at its path
(exit 1), never an ``OSError`` that ends the run with exit 2, and the other documents are
still linted. The real CLI on real files; the limits come from ``os.pathconf``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.cli import main


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A project with one lint-clean spec, ``specs/platform/queries/ok.md``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    Path("pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n', encoding="utf-8")
    assert main(["new", "specs/platform/queries/ok.md"]) == 0
    capsys.readouterr()
    return tmp_path


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """Exit code, the ``path: CODE`` of each finding, and stderr."""
    capsys.readouterr()
    code = main(["lint", *args])
    out, err = capsys.readouterr()
    found = [f"{line.split(':', 1)[0]}: {line.split()[1]}" for line in out.splitlines()]
    return code, found, err


def made() -> Path:
    """A second lint-clean spec, ``specs/platform/queries/a.md``, to be moved."""
    path = Path("specs/platform/queries/a.md")
    assert main(["new", path.as_posix()]) == 0
    return path


def chain(base: str, size: int) -> str:
    """``base`` joined with folder names (at most 202 bytes each) adding exactly ``size``
    bytes, separators included."""
    parts = []
    while size > 203:
        parts.append("d" * 200)
        size -= 201
    return os.path.join(base, *parts, "d" * (size - 1))


def test_a_name_past_name_max_named_on_the_command_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "x" * (os.pathconf(repo, "PC_NAME_MAX") + 1) + ".md"
    for path in (f"specs/{name}", f"specs/{name}/a.md"):
        code, found, err = lint(capsys, path, "specs/platform/queries/ok.md")
        assert code == 1 and "statedoc: error" not in err, err
        assert found == [f"{path}: SD008"]


def test_a_spec_whose_path_is_path_max_minus_one(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The longest path a file can have: linted clean whether walked or named, although its
    folder's ``pyproject.toml`` (looked for when it is named) would be too long a path."""
    path_max = os.pathconf(repo, "PC_PATH_MAX")
    folder = chain(
        str(repo / "specs/platform"),
        path_max - 1 - len("/a.md") - len(str(repo / "specs/platform")),
    )
    os.makedirs(folder)
    spec = os.path.join(folder, "a.md")
    assert len(os.fsencode(spec)) == path_max - 1
    os.rename(made(), spec)
    assert lint(capsys)[:2] == (0, [])
    relative = os.path.relpath(spec, repo)
    code, found, err = lint(capsys, relative)
    assert (code, found) == (0, []), err


def test_a_spec_past_path_max_found_by_the_walk(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder reached only by relative steps (its absolute path is past ``PATH_MAX``): its
    spec is an SD008 finding, the spec beside the deep folder is still linted."""
    path_max = os.pathconf(repo, "PC_PATH_MAX")
    base = repo / "specs/deep"
    base.mkdir()
    fd = os.open(base, os.O_RDONLY)
    depth = 0
    try:
        while len(os.fsencode(base)) + 201 * depth < path_max:
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd, depth = inner, depth + 1
        os.rename(made(), "a.md", dst_dir_fd=fd)
    finally:
        os.close(fd)
    code, found, err = lint(capsys)
    assert code == 1 and "statedoc: error" not in err, err
    assert len(found) == 1 and found[0].startswith("specs/deep/") and found[0].endswith(": SD008")
    assert "specs/platform/queries/ok.md" not in " ".join(found)
    assert "2 files checked" in err

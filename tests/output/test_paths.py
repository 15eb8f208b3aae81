"""``unsafe``: the refusals hold for every file of a plan, also when the verdict on a folder is
remembered from an earlier file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.output.paths import unsafe


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out/plain").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "out/linked")
    (tmp_path / "out/file").write_text("x")
    os.symlink(tmp_path / "elsewhere/target.py", tmp_path / "out/plain/link.py")
    return tmp_path / "out"


CASES = [
    ("plain/a.py", None),
    ("missing/deeper/a.py", None),
    ("linked/a.py", "out/linked is a symlink; statedoc does not write through symlinks"),
    ("linked/sub/b.py", "out/linked is a symlink; statedoc does not write through symlinks"),
    ("file/a.py", "out/file is a file, not a folder"),
    ("plain/link.py", "out/plain/link.py is a symlink; statedoc does not write through symlinks"),
    ("../a.py", "not a plain relative path"),
    ("plain//a.py", "not a plain relative path"),
]


@pytest.mark.parametrize(("relative", "reason"), CASES)
def test_each_path_alone(out: Path, relative: str, reason: str | None) -> None:
    assert unsafe(out, relative) == reason


def test_remembered_folders_give_the_same_verdicts_in_any_order(out: Path) -> None:
    for order in (CASES, CASES[::-1], CASES + CASES):
        folders: dict[str, str | None] = {}
        assert [unsafe(out, relative, folders) for relative, _ in order] == [
            reason for _, reason in order
        ]

"""The write policy of ``generate`` (:class:`generator.output.files.Batch`): every file staged
as a temp file, one flush, then the renames; a failure leaves every target as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.output import files
from generator.output.files import TEMP_NAME, Batch


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if TEMP_NAME.fullmatch(p.name)]


def test_nothing_is_replaced_before_commit(tmp_path: Path) -> None:
    old, new = tmp_path / "old.py", tmp_path / "sub/new.py"
    old.write_bytes(b"before\n")
    os.chmod(old, 0o640)
    batch = Batch()
    assert batch.write(old, b"after\n") and batch.write(new, b"created\n")
    assert old.read_bytes() == b"before\n" and not new.exists()
    assert len(_temps(tmp_path)) >= 2
    assert batch.commit() == []
    assert old.read_bytes() == b"after\n" and new.read_bytes() == b"created\n"
    assert old.stat().st_mode & 0o777 == 0o640 and new.stat().st_mode & 0o777 == 0o644
    assert _temps(tmp_path) == []


def test_unchanged_files_are_not_staged(tmp_path: Path) -> None:
    same = tmp_path / "same.py"
    same.write_bytes(b"x\n")
    batch = Batch()
    assert batch.write(same, b"x\n") is False
    assert _temps(tmp_path) == [] and batch.commit() == []


def test_a_failed_flush_renames_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "kept.py"
    target.write_bytes(b"old\n")

    def failing(names: list[str]) -> None:
        assert names and all(Path(n).exists() for n in names)  # flushed before any rename
        assert target.read_bytes() == b"old\n"
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files, "_flush", failing)
    batch = Batch()
    batch.write(target, b"new\n")
    batch.write(tmp_path / "fresh.py", b"new\n")
    failed = batch.commit()
    assert sorted(p.name for p, _ in failed) == ["fresh.py", "kept.py"]
    assert target.read_bytes() == b"old\n" and not (tmp_path / "fresh.py").exists()
    assert _temps(tmp_path) == []


def test_abort_removes_the_staged_files(tmp_path: Path) -> None:
    batch = Batch()
    batch.write(tmp_path / "a.py", b"a\n")
    batch.abort()
    assert list(tmp_path.iterdir()) == []


def test_the_flush_really_syncs(tmp_path: Path) -> None:
    """The real flush of this platform runs on real temp files (syncfs or fsync)."""
    batch = Batch()
    for index in range(3):
        batch.write(tmp_path / f"m{index}.py", b"data\n")
    assert batch.commit() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m0.py", "m1.py", "m2.py"]

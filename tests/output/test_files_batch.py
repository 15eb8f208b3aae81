"""The write policy of ``generate`` (:class:`generator.core.files.Batch`): every file staged
as a temp file, one flush, then the renames; a failure leaves every target as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.core import files
from generator.core.files import TEMP_NAME, Batch


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if TEMP_NAME.fullmatch(p.name)]


def test_nothing_is_replaced_before_commit(tmp_path: Path) -> None:
    old, new = tmp_path / "old.py", tmp_path / "sub/new.py"
    old.write_bytes(b"before\n")
    os.chmod(old, 0o640)
    batch = Batch()
    current = files.read_current(old)
    assert current == (b"before\n", 0o640) and files.read_current(new) is None
    batch.stage(old, b"after\n", current[1])
    batch.stage(new, b"created\n", None)
    assert old.read_bytes() == b"before\n" and not new.exists()
    assert len(_temps(tmp_path)) >= 2
    assert batch.commit() == []
    assert old.read_bytes() == b"after\n" and new.read_bytes() == b"created\n"
    assert old.stat().st_mode & 0o777 == 0o640 and new.stat().st_mode & 0o777 == 0o644
    assert _temps(tmp_path) == []


def test_a_failed_flush_renames_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "kept.py"
    target.write_bytes(b"old\n")

    def failing(names: list[str]) -> None:
        assert names and all(Path(n).exists() for n in names)  # flushed before any rename
        assert target.read_bytes() == b"old\n"
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files, "_flush", failing)
    batch = Batch()
    batch.stage(target, b"new\n", 0o644)
    batch.stage(tmp_path / "fresh.py", b"new\n", None)
    failed = batch.commit()
    assert sorted(p.name for p, _ in failed) == ["fresh.py", "kept.py"]
    assert target.read_bytes() == b"old\n" and not (tmp_path / "fresh.py").exists()
    assert _temps(tmp_path) == []


def test_abort_removes_the_staged_files(tmp_path: Path) -> None:
    batch = Batch()
    batch.stage(tmp_path / "a.py", b"a\n", None)
    batch.abort()
    assert list(tmp_path.iterdir()) == []


def test_the_flush_really_syncs(tmp_path: Path) -> None:
    """The real flush of this platform runs on real temp files (syncfs or fsync)."""
    batch = Batch()
    for index in range(3):
        batch.stage(tmp_path / f"m{index}.py", b"data\n", None)
    assert batch.commit() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m0.py", "m1.py", "m2.py"]


def test_applying_a_plan_keeps_modes_and_reads_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan stages what it has just read: an update keeps the file's mode, a new file
    (in a new folder) is 0644, and no target is read or stat'ed twice."""
    from generator.output.apply import apply_plan
    from generator.output.plan import Change, Plan
    from generator.render.environment import header_line

    old = tmp_path / "a/old.py"
    old.parent.mkdir()
    before = f"{header_line('#')}\nbefore\n".encode()
    old.write_bytes(before)
    os.chmod(old, 0o640)
    plan = Plan(out=tmp_path, label="")
    plan.changes = [
        Change("update", "a/old.py", before, b"after\n"),
        Change("create", "b/c/new.py", None, b"created\n"),
    ]
    reads: list[str] = []
    real_open = os.open
    monkeypatch.setattr(
        os, "open", lambda p, *a, **k: reads.append(os.fspath(p)) or real_open(p, *a, **k)
    )
    assert apply_plan(plan) == (2, 0) and plan.problems == []
    assert old.read_bytes() == b"after\n" and old.stat().st_mode & 0o777 == 0o640
    new = tmp_path / "b/c/new.py"
    assert new.read_bytes() == b"created\n" and new.stat().st_mode & 0o777 == 0o644
    assert reads.count(str(old)) == 1 and reads.count(str(new)) == 1


def test_a_folder_where_the_plan_expects_a_file_is_refused(tmp_path: Path) -> None:
    from generator.output.apply import apply_plan
    from generator.output.plan import Change, Plan

    (tmp_path / "x.py").mkdir()
    plan = Plan(out=tmp_path, label="")
    plan.changes = [Change("create", "x.py", None, b"new\n")]
    assert apply_plan(plan) == (0, 0)
    (problem,) = plan.problems
    assert problem.code == "SD408" and problem.message.endswith("cannot write: Is a directory")
    assert (tmp_path / "x.py").is_dir()

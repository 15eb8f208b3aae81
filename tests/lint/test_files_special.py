"""What counts as a file: special files, huge files, unreadable folders and symlink loops are
findings with a path, never a hang, an out-of-memory or a silent skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from guarded_child import HANG_GUARD, limit_memory, statedoc_json
from sample_documents import document

from generator.load.source import NotAFileError, read_bounded


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/door.md").write_text(document())
    return tmp_path


def _lint_json(root: Path, *paths: str) -> tuple[int, list[dict[str, object]]]:
    return statedoc_json(root, "lint", "--no-cache", *paths)


def _only(findings: list[dict[str, object]], path: str) -> dict[str, object]:
    (finding,) = [f for f in findings if f["path"] == path]
    return finding


def test_a_huge_sparse_file_is_sized_not_read(tmp_path: Path) -> None:
    root = _project(tmp_path)
    huge = root / "specs/huge.md"
    with open(huge, "wb") as handle:
        handle.truncate(1 << 30)
    data, size = read_bounded(huge, 1000)
    assert (len(data), size) == (1001, 1 << 30)
    code, findings = _lint_json(root)
    assert code == 1
    finding = _only(findings, "specs/huge.md")
    assert finding["code"] == "SD007"
    assert finding["message"] == f"the file has {1 << 30} bytes; the limit is {4 * 1024 * 1024}"


def test_a_symlink_to_dev_zero_is_not_a_file(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "specs/zero.md").symlink_to("/dev/zero")
    with pytest.raises(NotAFileError):
        read_bounded(root / "specs/zero.md", 10)
    code, findings = _lint_json(root)
    assert code == 1
    finding = _only(findings, "specs/zero.md")
    assert finding["code"] == "SD008"
    assert "a character device, not a regular file" in str(finding["message"])


def test_a_fifo_named_md_does_not_block(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.mkfifo(root / "specs/pipe.md")
    for paths in ((), ("specs/pipe.md",)):
        code, findings = _lint_json(root, *paths)
        assert code == 1
        finding = _only(findings, "specs/pipe.md")
        assert finding["code"] == "SD008"
        assert "a FIFO (named pipe), not a regular file" in str(finding["message"])


def test_a_symlink_loop_says_loop(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "specs/a.md").symlink_to("b.md")
    (root / "specs/b.md").symlink_to("a.md")
    for paths in ((), ("specs/a.md",)):
        code, findings = _lint_json(root, *paths)
        assert code == 1
        message = str(_only(findings, "specs/a.md")["message"])
        assert "symbolic link loop" in message
        assert "No such file" not in message


def test_an_unlistable_folder_is_sd008_with_its_path(tmp_path: Path) -> None:
    """A folder whose path is longer than PATH_MAX cannot be listed, even by root (who reads
    a chmod 000 folder anyway): it must be reported, not skipped."""
    root = _project(tmp_path)
    name = "d" * 250
    fd = os.open(root / "specs", os.O_RDONLY)
    try:
        for _ in range(18):  # 18 x 251 characters: past PATH_MAX (4096)
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    code, findings = _lint_json(root)
    assert code == 1
    (finding,) = [f for f in findings if f["code"] == "SD008"]
    path = str(finding["path"])
    assert path.startswith(f"specs/{name}/") and len(path) > 4096
    assert str(finding["message"]).startswith("cannot read the folder: ")


def test_an_unreadable_folder_is_sd008(tmp_path: Path) -> None:
    """chmod 000: reported when the folder really cannot be listed (as any user but root)."""
    root = _project(tmp_path)
    locked = root / "specs/locked"
    locked.mkdir()
    (locked / "x.md").write_text(document())
    locked.chmod(0)
    try:
        listable = os.access(locked, os.R_OK)
        code, findings = _lint_json(root)
    finally:
        locked.chmod(0o755)
    sd008 = [f for f in findings if f["code"] == "SD008"]
    if listable:  # root: the folder's spec is linted as any other
        assert sd008 == []
    else:
        assert [f["path"] for f in sd008] == ["specs/locked"]
        assert "Permission denied" in str(sd008[0]["message"])
        assert code == 1


@pytest.mark.parametrize("command", [["lint", "--against", "HEAD"], ["diff", "--against", "HEAD"]])
def test_git_comparisons_do_not_read_special_files(tmp_path: Path, command: list[str]) -> None:
    root = _project(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "specs"]):
        subprocess.run([*git, *step], cwd=root, check=True, capture_output=True)
    os.mkfifo(root / "specs/pipe.md")
    (root / "specs/zero.md").symlink_to("/dev/zero")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "generator", *command],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            timeout=HANG_GUARD,
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"statedoc {' '.join(command)} hung on a FIFO")
    assert "Traceback" not in proc.stderr
    assert "pipe.md" in proc.stdout + proc.stderr
    assert "zero.md" in proc.stdout + proc.stderr

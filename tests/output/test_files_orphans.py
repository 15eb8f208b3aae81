"""A run killed while writing leaves every file complete (old or new) and its temp files are
removed by the next run; a concurrent live run's temp file is never touched."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sample_documents import DOOR, HEADER, document

from generator.core.files import TEMP_NAME, atomic_write, sweep_orphans

ROOT = Path(__file__).resolve().parents[2]
NO_DIAGRAM = "\n# Door {index}\n\n## The Lifecycle\n"
SPECS = 300
#: A hang detector, not a performance assertion.
HANG_GUARD = 300


def _orphan(folder: Path, name: str) -> Path:
    """A real orphan: a child writes ``folder/name`` and is SIGKILLed between creating the
    temp file and renaming it (where a crash or a kill from outside leaves one)."""
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from generator.core import files as write\n"
        "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
        "write.replace_file(Path(sys.argv[1]), b'new')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(folder / name)], check=False, timeout=HANG_GUARD
    )
    assert proc.returncode == -signal.SIGKILL
    (temp,) = [p for p in folder.iterdir() if p.name.startswith(f".{name}.")]
    return temp


def _temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_the_next_write_removes_a_dead_runs_temp_file(tmp_path: Path) -> None:
    orphan = _orphan(tmp_path, "door.py")
    assert TEMP_NAME.fullmatch(orphan.name)
    assert not (tmp_path / "door.py").exists()
    assert atomic_write(tmp_path / "other.py", b"x")
    assert not orphan.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.py"]


def test_a_live_runs_temp_file_and_foreign_files_are_kept(tmp_path: Path) -> None:
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        mine = tmp_path / f".door.py.{live.pid}.abcd1234.tmp"
        mine.write_bytes(b"half")
        foreign = [".door.py.abcd1234.tmp", ".notes.tmp", "door.py.123.abcd1234.tmp"]
        for name in foreign:
            (tmp_path / name).write_bytes(b"user")
        dead = _orphan(tmp_path, "dead.py")
        assert sweep_orphans(tmp_path) == [dead.name]
        assert mine.exists()
        assert all((tmp_path / name).exists() for name in foreign)
    finally:
        live.kill()
        live.wait()


def _project(root: Path, body: str) -> Path:
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    for index in range(SPECS):
        header = HEADER.replace("DOR-001\ntitle: Door", f"DOR-{index:03d}\ntitle: Door {index}")
        spec = root / f"specs/f{index % 5}/d{index}.md"
        spec.parent.mkdir(parents=True, exist_ok=True)
        spec.write_text(document(DOOR, body.format(index=index), header=header))
    return root


def _statedoc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *args, "-q", "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_GUARD,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _kill_while_writing(root: Path, args: list[str], written: Path, delay: float) -> None:
    """Start ``statedoc args``, wait until it has written something under ``written`` (so the
    kill lands in the write phase, not at start-up), wait ``delay`` more, SIGKILL it."""
    before = {p: p.stat().st_mtime_ns for p in written.rglob("*") if p.is_file()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", *args, "-q", "--no-cache"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    deadline = time.monotonic() + HANG_GUARD
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if written.exists() and any(
                p.is_file() and before.get(p) != p.stat().st_mtime_ns
                for p in written.rglob("*")
                if not p.name.endswith(".tmp")
            ):
                time.sleep(delay)
                break
            time.sleep(0.01)  # each look walks the tree: polling faster starves the child
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("seed", range(4))
def test_generate_killed_while_writing_then_run_again(tmp_path: Path, seed: int) -> None:
    root = _project(tmp_path, "\n# Door {index}\n")
    delay = random.Random(seed).uniform(0, 0.2)
    _kill_while_writing(root, ["generate"], root / "generated", delay)
    again = _statedoc(root, "generate")
    assert again.returncode == 0, again.stderr
    assert _temps(root) == []
    check = _statedoc(root, "generate", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    for module in (root / "generated").rglob("*.py"):
        compile(module.read_bytes(), str(module), "exec")  # complete, not half-written


@pytest.mark.parametrize("seed", range(4))
def test_diagram_write_killed_while_writing_then_run_again(tmp_path: Path, seed: int) -> None:
    root = _project(tmp_path, NO_DIAGRAM)
    originals = {p: p.read_bytes() for p in (root / "specs").rglob("*.md")}
    delay = random.Random(seed).uniform(0, 0.2)
    _kill_while_writing(root, ["diagram", "--write"], root / "specs", delay)
    for spec, data in originals.items():  # every spec is whole: the old one or the new one
        now = spec.read_bytes()
        assert now == data or (now.startswith(data) and b"```mermaid" in now)
    again = _statedoc(root, "diagram", "--write")
    assert again.returncode == 0, again.stderr
    assert _temps(root) == []
    check = _statedoc(root, "diagram", "--check")
    assert check.returncode == 0, check.stdout + check.stderr

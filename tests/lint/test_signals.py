"""SIGINT/SIGTERM to ``statedoc lint -j2``: the run stops with 130/143, every worker goes with
it (nothing keeps the caller's pipes open), and no temp file is left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sample_documents import DOOR, document

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

#: Enough documents that two workers are still busy when the signal comes, even on a loaded
#: machine where lint is fast (3,000 once let a run finish before SIGINT arrived).
FILES = 12000
#: Only a hang detector: far beyond any healthy run on a loaded machine.
HANG = 120.0


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # state, ppid, pgrp, ...


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[1] == str(pid) and fields[0] != "Z":
                found.append(int(entry))
    return found


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and fields[2] == str(pgid) and fields[0] != "Z":
                found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    specs = root / "specs"
    specs.mkdir()
    for n in range(FILES):
        text = document(DOOR).replace("DOR-001", f"DOR-{n:04d}")
        (specs / f"door{n:04d}.md").write_text(text)
    return root


def _start(project: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "generator", "lint", "-j2", "-q"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a CI runner gives a job
    )


def _interrupt(project: Path, sig: signal.Signals, *, group: bool) -> None:
    cache = project / ".statedoc_cache"
    shutil.rmtree(cache, ignore_errors=True)  # a cold run: workers write cache entries
    # A suite started in the background by a non-interactive shell runs with SIGINT ignored,
    # and a child starts with an ignored signal still ignored (Unix convention, which Python
    # follows): give statedoc what a terminal or CI runner gives. A handled signal is reset to
    # the default in the child at exec.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = _start(project)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        # Wait (without a time limit of its own) until both workers run and write the cache.
        while proc.poll() is None and (
            len(_children(proc.pid)) < 2 or not cache.is_dir() or not any(cache.iterdir())
        ):
            time.sleep(0.01)
        assert proc.poll() is None, proc.communicate()
        if group:
            os.killpg(proc.pid, sig)  # a terminal's Ctrl-C reaches every process of the group
        else:
            proc.send_signal(sig)  # a CI runner or pre-commit signals the process it started
        # communicate() returns only at EOF on both pipes: an orphaned worker would hold them.
        _, err = proc.communicate(timeout=HANG)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    expected = -sig if sig == signal.SIGKILL else 128 + sig
    assert proc.returncode == expected, err.decode()
    assert b"Traceback" not in err, err.decode()
    # A worker may still be between closing its files and exiting: wait (hang detector only).
    deadline = time.monotonic() + HANG
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group(proc.pid) == []
    leftovers = [p.name for p in project.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == [], err.decode()


@pytest.mark.parametrize("group", [False, True], ids=["pid", "group"])
def test_sigterm_stops_workers_and_exits_143(project: Path, group: bool) -> None:
    _interrupt(project, signal.SIGTERM, group=group)


@pytest.mark.parametrize("group", [False, True], ids=["pid", "group"])
def test_sigint_stops_workers_and_exits_130(project: Path, group: bool) -> None:
    _interrupt(project, signal.SIGINT, group=group)


def test_workers_die_with_a_killed_parent(project: Path) -> None:
    """SIGKILL cannot be handled: the workers notice their parent's death themselves."""
    _interrupt(project, signal.SIGKILL, group=False)

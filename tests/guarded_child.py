"""``statedoc ... --format json`` in a child process with a hang guard and bounded memory, for
the tests of special files: a FIFO, a device or a huge file must give a finding, never a hang
or an out-of-memory."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

#: A hang detector, not a performance assertion: a healthy run takes about a second.
HANG_GUARD = 120
#: A run that reads a 1 GiB file or /dev/zero whole fails under this address-space limit.
MEMORY_LIMIT = 768 * 1024 * 1024


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def statedoc_json(root: Path, *args: str) -> tuple[int, list[dict[str, object]]]:
    """Exit code and findings of ``statedoc *args --format json`` run in ``root``."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "generator", *args, "--format", "json"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            timeout=HANG_GUARD,
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"statedoc {' '.join(args)} hung (no result in {HANG_GUARD} s)")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.startswith("["), proc.stderr
    return proc.returncode, json.loads(proc.stdout)

"""The throwaway PostgreSQL of the tests stops and cleans up when its process is told to."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CHILD = """
import sys, time
from generator.testing.pgserver import LocalPostgres
server = LocalPostgres().start()
print(server.root, server.process.pid, flush=True)
time.sleep(120)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


def test_sigterm_stops_the_server_and_removes_its_folder(pg_dsn: str) -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    root, pid = child.stdout.readline().split()
    assert alive(int(pid)) and Path(root).is_dir()
    child.send_signal(signal.SIGTERM)
    assert child.wait(60) != 0
    for _ in range(200):
        if not alive(int(pid)):
            break
        time.sleep(0.05)
    assert not alive(int(pid))
    assert not Path(root).exists()

"""Pinned npm packages for the node-backed tests (the Mermaid oracle, the TypeScript target).

Each folder holds a ``package.json`` and a ``package-lock.json``; :meth:`NodePackages.ensure`
runs ``npm ci`` there on first use (and again when the lockfile is newer than the install),
serialised by a file lock so concurrent test processes install once. Without node/npm the tests
skip with a reason on a developer machine and fail under CI (``CI`` set): a green CI means they
ran.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class NodePackages:
    folder: Path
    needed_by: str  # "Mermaid oracle tests", for the skip/fail reason

    @property
    def node_modules(self) -> Path:
        return self.folder / "node_modules"

    def available(self) -> bool:
        """True when node and npm are on PATH; otherwise skip, or fail under CI."""
        missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
        if not missing:
            return True
        reason = (
            f"{self.needed_by} need {' and '.join(missing)} on PATH (Node 20+; the packages "
            f"come from {self.folder.name}/package-lock.json)"
        )
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run them", pytrace=False)
        pytest.skip(reason)
        return False  # pragma: no cover - pytest.skip raises

    def _installed_is_current(self) -> bool:
        # npm rewrites this file on every install, so its age tells when we installed.
        marker = self.node_modules / ".package-lock.json"
        lockfile = self.folder / "package-lock.json"
        return marker.is_file() and marker.stat().st_mtime >= lockfile.stat().st_mtime

    def ensure(self) -> None:
        """``npm ci`` unless an install newer than the lockfile is there."""
        self.available()
        if self._installed_is_current():
            return
        npm = shutil.which("npm")
        assert npm is not None
        with open(self.folder / ".install.lock", "w", encoding="utf-8") as lock:
            import fcntl  # POSIX, as the rest of these tests

            fcntl.flock(lock, fcntl.LOCK_EX)
            if self._installed_is_current():  # another process installed meanwhile
                return
            result = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=self.folder,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if result.returncode != 0:
                raise RuntimeError(
                    f"npm ci failed in {self.folder} (exit {result.returncode}):\n"
                    f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
                )
        if not self._installed_is_current():
            (self.node_modules / ".package-lock.json").touch()

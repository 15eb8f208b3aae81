"""The pinned npm installs are shared by every pytest-xdist worker: started together, the
workers install a folder once (``npm ci`` under a file lock), and all of them then use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from node_packages import NodePackages

TESTS = Path(__file__).resolve().parent

#: A package whose only dependency is a local folder (no registry needed) and whose
#: ``postinstall`` script counts the installs: one line per ``npm ci`` that ran.
PACKAGE = {
    "name": "statedoc-install-probe",
    "version": "0.0.0",
    "private": True,
    "dependencies": {"dep": "file:./dep"},
    "scripts": {"postinstall": "node -e \"require('fs').appendFileSync('installs.log', 'x\\n')\""},
}
LOCKFILE = {
    "name": "statedoc-install-probe",
    "version": "0.0.0",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {
        "": {
            "name": "statedoc-install-probe",
            "version": "0.0.0",
            "hasInstallScript": True,
            "dependencies": {"dep": "file:./dep"},
        },
        "dep": {"version": "1.0.0"},
        "node_modules/dep": {"resolved": "dep", "link": True},
    },
}
ENSURE = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from pathlib import Path\n"
    "from node_packages import NodePackages\n"
    "packages = NodePackages(Path(sys.argv[2]), 'install probe')\n"
    "packages.ensure()\n"
    "print((packages.node_modules / 'dep' / 'package.json').is_file())\n"
)


def test_workers_started_together_install_once_and_all_see_the_install(tmp_path: Path) -> None:
    NodePackages(tmp_path, "install probe").available()  # skip locally without node, CI fails
    (tmp_path / "dep").mkdir()
    (tmp_path / "dep" / "package.json").write_text('{"name": "dep", "version": "1.0.0"}\n')
    (tmp_path / "package.json").write_text(json.dumps(PACKAGE, indent=2), encoding="utf-8")
    (tmp_path / "package-lock.json").write_text(json.dumps(LOCKFILE, indent=2), encoding="utf-8")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", ENSURE, str(TESTS), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    answers = [worker.communicate() for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0, 0], answers
    assert [out.strip() for out, _ in answers] == ["True"] * 3, answers
    assert (tmp_path / "installs.log").read_text() == "x\n"  # one npm ci for the three

    # A newer lockfile (a dependency bumped) is installed again, once.
    lockfile = tmp_path / "package-lock.json"
    marker = tmp_path / "node_modules" / ".package-lock.json"
    newer = marker.stat().st_mtime + 10
    os.utime(lockfile, (newer, newer))
    NodePackages(tmp_path, "install probe").ensure()
    assert (tmp_path / "installs.log").read_text() == "x\nx\n"

"""``pip install -e .`` exposes the ``generator`` package and nothing else of this repository:
its own ``generated`` package (the seed specs' modules) must not become importable from every
folder of the environment.

The editable wheel is built by hatchling's own PEP 660 hook, as pip builds it; its top-level
files (what pip puts into site-packages) are then the only site directory of a fresh
interpreter, started in another folder, with the libraries of this environment on its path
(as plain entries: their ``.pth`` files, an older editable install of this project among
them, are not run)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib.util, site, sys
sys.path.append({libraries!r})
site.addsitedir({site!r})
import generator
print(generator.__file__)
print(importlib.util.find_spec("generated"))
"""


def editable_wheel(folder: Path) -> Path:
    """The editable wheel of this project, built with ``hatchling.build.build_editable`` in
    the project root (hatchling reads the project from the working directory)."""
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from hatchling.build import build_editable; "
            "print(build_editable(sys.argv[1]))",
            str(folder),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, (
        built.stderr + "\n(hatchling maps the package with `editables`: an environment installed "
        "before `dev-mode-exact` lacks it; run `pip install -e '.[test]'` again)"
    )
    return folder / built.stdout.strip().splitlines()[-1]


def test_the_editable_install_exposes_generator_alone(tmp_path: Path) -> None:
    wheel = editable_wheel(tmp_path / "dist")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        top = [n for n in archive.namelist() if "/" not in n]
        archive.extractall(site, members=top)
    for pth in site.glob("*.pth"):  # no folder of the project put on sys.path wholesale
        entries = [line for line in pth.read_text().splitlines() if line.strip()]
        assert all(line.startswith("import ") for line in entries), (pth.name, entries)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = PROBE.format(libraries=sysconfig.get_paths()["purelib"], site=str(site))
    ran = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    module, generated = ran.stdout.splitlines()
    assert Path(module) == ROOT / "generator" / "__init__.py"
    assert generated == "None"

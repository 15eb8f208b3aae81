"""Mermaid's own parser as a test oracle (``tests/mermaid_js/parse.mjs``).

Why: "Mermaid accepts it" is not enough (it silently builds the wrong graph
for many inputs), and our reading of the grammar can be wrong, so the tests
ask the real client what it parses and what its labels display.

Node and the pinned npm packages are test-only dependencies. Without them the
tests skip with a reason on a developer machine, but fail under CI (``CI`` set):
a green CI must mean the oracle really ran.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ORACLE_DIR = Path(__file__).resolve().parent / "mermaid_js"
SCRIPT = ORACLE_DIR / "parse.mjs"
LOCKFILE = ORACLE_DIR / "package-lock.json"
NODE_MODULES = ORACLE_DIR / "node_modules"
# npm rewrites this file on every install, so its age tells when we installed.
INSTALL_MARKER = NODE_MODULES / ".package-lock.json"

__all__ = ["ensure_node_modules", "node_available", "parse_diagrams"]


def _missing_tools() -> list[str]:
    return [tool for tool in ("node", "npm") if shutil.which(tool) is None]


def node_available() -> bool:
    """Return True when node and npm are on PATH; otherwise skip, or fail under CI."""
    missing = _missing_tools()
    if not missing:
        return True
    reason = (
        f"Mermaid oracle tests need {' and '.join(missing)} on PATH "
        "(Node 20+; the packages come from tests/mermaid_js/package-lock.json)"
    )
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run them", pytrace=False)
    pytest.skip(reason)
    return False  # pragma: no cover - pytest.skip raises


def _installed_is_current() -> bool:
    if not INSTALL_MARKER.is_file():
        return False
    return INSTALL_MARKER.stat().st_mtime >= LOCKFILE.stat().st_mtime


def ensure_node_modules() -> None:
    """Run ``npm ci`` unless an install newer than the lockfile is there."""
    if _installed_is_current():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH")
    lock_path = ORACLE_DIR / ".install.lock"
    with open(lock_path, "w", encoding="utf-8") as lock:
        try:  # serialise concurrent test workers; POSIX only, best effort elsewhere
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover
            pass
        if _installed_is_current():  # another worker installed meanwhile
            return
        result = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=ORACLE_DIR,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"npm ci failed in {ORACLE_DIR} (exit {result.returncode}):\n"
                f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
            )
    if not _installed_is_current():
        INSTALL_MARKER.touch()


def parse_diagrams(
    texts: list[str], *, render: bool | Sequence[bool] = False
) -> list[dict[str, Any]]:
    """Parse every diagram in one node process; one result dict per text, in order.

    Each result is ``{"error": str}`` or ``{"nodes": [...], "edges": [...]}``
    (see ``parse.mjs``). Diagrams selected by ``render`` (True for all, or one
    flag per text) are also drawn, adding ``"rendered"``: what each label
    displays in the SVG. Drawing costs ~50 ms a diagram, parsing ~2 ms.
    """
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH")
    flags = [render] * len(texts) if isinstance(render, bool) else list(render)
    if len(flags) != len(texts):
        raise ValueError("one render flag per text is needed")
    items: list[Any] = [
        {"text": text, "render": True} if flag else text
        for text, flag in zip(texts, flags, strict=True)
    ]
    result = subprocess.run(
        [node, str(SCRIPT)],
        cwd=ORACLE_DIR,
        input=json.dumps(items),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"parse.mjs failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    answers: list[dict[str, Any]] = json.loads(result.stdout)
    if len(answers) != len(texts):
        raise RuntimeError(f"parse.mjs answered {len(answers)} results for {len(texts)} diagrams")
    return answers

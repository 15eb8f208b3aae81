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
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from node_packages import NodePackages

ORACLE_DIR = Path(__file__).resolve().parent / "mermaid_js"
SCRIPT = ORACLE_DIR / "parse.mjs"
LOCKFILE = ORACLE_DIR / "package-lock.json"
NODE_MODULES = ORACLE_DIR / "node_modules"

__all__ = ["ensure_node_modules", "node_available", "parse_diagrams"]


PACKAGES = NodePackages(ORACLE_DIR, "Mermaid oracle tests")


def node_available() -> bool:
    """True when node and npm are on PATH; otherwise skip, or fail under CI."""
    return PACKAGES.available()


def ensure_node_modules() -> None:
    """``npm ci`` in tests/mermaid_js unless a current install is there."""
    PACKAGES.ensure()


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

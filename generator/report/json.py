"""A JSON array of finding objects (DESIGN.md), stable key order for diffing."""

from __future__ import annotations

import json

from generator.report import Run


def render(run: Run) -> str:
    return json.dumps([f.to_dict() for f in run.findings], indent=2, ensure_ascii=False) + "\n"

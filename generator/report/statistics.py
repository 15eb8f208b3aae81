"""``lint --statistics``: how many findings of each code, most frequent first (as ruff)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from generator.core.findings import Finding


def counts(findings: Sequence[Finding]) -> list[tuple[str, str, int]]:
    """``(code, name, count)``, by count descending, then code."""
    tally = Counter((f.code, f.name) for f in findings)
    return sorted(((c, n, k) for (c, n), k in tally.items()), key=lambda t: (-t[2], t[0]))


def render(findings: Sequence[Finding], fmt: str) -> str:
    rows = counts(findings)
    if fmt == "json":
        data = [{"code": c, "name": n, "count": k} for c, n, k in rows]
        return json.dumps(data, indent=2) + "\n"
    width = max((len(str(k)) for _, _, k in rows), default=1)
    return "".join(f"{k:>{width + 2}}  {c}  {n}\n" for c, n, k in rows)

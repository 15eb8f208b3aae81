"""Pathological text: lint cost relative to plain text of the same size (issue 18 item 4).

    python benchmarks/bench_pathological.py [--size BYTES] [--repeat N]

For each input that once made the Markdown scanner or the Mermaid reader super-linear, lint a
document whose body is that input (default 1 MB) and a document of plain prose of the same
size, and print the ratio. Linear code keeps every ratio a small constant; a quadratic path
shows up as a ratio that grows with ``--size`` (try 256 KB and 1 MB). Mermaid inputs past
Mermaid's ``maxTextSize`` are reported without being parsed, so a second table lints them at
48 KB (below the limit), where the whole lexer and grammar run, against 48 KB of prose.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pathological import BODIES, plain  # noqa: E402
from sample_documents import DOOR, document  # noqa: E402

from generator.lint.document import lint_bytes  # noqa: E402


def cost(body: str, repeat: int) -> tuple[float, list[str]]:
    """Best wall-clock time of ``repeat`` lints, and the codes found."""
    data = document(DOOR, body).encode("utf-8")
    best = float("inf")
    found: list[str] = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = lint_bytes(data, "bench.md")
        best = min(best, time.perf_counter() - start)
        found = sorted({finding.code for finding in result.findings})
    return best, found


def table(size: int, repeat: int, names: list[str]) -> float:
    base, _ = cost(plain(size), repeat)
    print(f"\n{size:,} characters; plain text: {base * 1000:.1f} ms")
    print(f"{'input':32} {'ms':>9} {'ratio':>7}  findings")
    worst = 0.0
    for name in names:
        seconds, found = cost(BODIES[name](size), repeat)
        ratio = seconds / base
        worst = max(worst, ratio)
        print(f"{name:32} {seconds * 1000:9.1f} {ratio:7.2f}  {' '.join(found)}")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    worst = table(args.size, args.repeat, list(BODIES))
    mermaid = [name for name in BODIES if "```mermaid" in BODIES[name](100)]
    worst_small = table(48_000, args.repeat, mermaid)
    print(f"\nworst ratio: {worst:.2f} at {args.size:,}; {worst_small:.2f} at 48,000")


if __name__ == "__main__":
    main()

"""Generate benchmark: a no-op run (nothing changed) against a cold one, in the same run.

    python benchmarks/bench_generate.py [--count N]

cold: an empty output folder and an empty cache (lint, render every module and diagram, write).
no-op: the same command again: lint, then every rendering comes from the render cache and is
compared with the tree; nothing is written. Target (performance issue): no-op <= 0.3x cold.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus import write_corpus  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(ROOT)


def run(cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "-q", "-j1"],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"generate failed: {proc.stderr[-800:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="statedoc-gen-"))
    (root / "pyproject.toml").write_text("[tool.statedoc]\n")
    write_corpus(root / "specs", args.count)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "generator")], check=True)
    colds, noops = [], []
    for _ in range(args.repeat):
        shutil.rmtree(root / "generated", ignore_errors=True)
        shutil.rmtree(root / ".statedoc_cache", ignore_errors=True)
        colds.append(run(root))
        noops.append(run(root))
    cold, noop = min(colds), min(noops)
    ratio = noop / cold
    print(f"# statedoc generate, {args.count} documents (python {sys.version.split()[0]})\n")
    print("| run | time | ratio | target | |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| cold (empty out, empty cache) | {cold:.2f} s | 1.00x | | |")
    verdict = "met" if ratio <= 0.3 else "NOT MET"
    print(f"| no-op (nothing changed) | {noop:.2f} s | {ratio:.2f}x | <= 0.3x | {verdict} |")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()

"""Write a corpus of realistic, valid state documents for the benchmarks.

Seed-sized documents are the two real specs of ``specs/`` with unique ids (so SD204 stays
quiet) and a varied revision; ``--large`` adds machines with 100+ states, their diagrams drawn
by statedoc's own renderer.

    python benchmarks/corpus.py OUT_DIR N [--large K]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from a checkout
SEEDS = sorted((ROOT / "specs").rglob("*.md"))


def _renumber(text: str, index: int) -> str:
    """A unique id and title: SD204 stays quiet and every module gets its own path."""
    text = re.sub(
        r"^id: STATE-([A-Z0-9-]+?)-(\d+)$", rf"id: STATE-\1-{index:05d}", text, count=1, flags=re.M
    )
    text = re.sub(r"^(title: .*)$", rf"\1 {index}", text, count=1, flags=re.M)
    text = re.sub(r"^(# .*)$", rf"\1 {index}", text, count=1, flags=re.M)
    return re.sub(r"^revision: \d+$", f"revision: {index % 7 + 1}", text, count=1, flags=re.M)


def large_document(index: int, states: int = 120) -> str:
    """A machine with ``states`` states: a chain, back edges and invalid pairs."""
    from generator.diagram.writer import render_state_diagram

    names = [f"step-{n:03d}" for n in range(states)]
    pairs = [(names[n], names[n + 1]) for n in range(states - 1)]
    pairs += [(names[n], names[n - 3]) for n in range(5, states, 7)]
    invalid = [(names[n + 2], names[n]) for n in range(0, states - 2, 5)]
    invalid = [p for p in invalid if p not in set(pairs)]
    lines = [
        "---",
        f"id: STATE-BIG-FLW-{index:05d}",
        f"title: Large flow {index}",
        "object: DOM-BIG-FLW-001",
        "product_area: bench",
        "module: large-flows",
        "revision: 1",
        "status: draft",
        f"initial: {names[0]}",
        "states:",
    ]
    for name in names:
        lines += [f"  - name: {name}", f"    meaning: The flow is at {name}, waiting for input."]
    lines.append("transitions:")
    for a, b in pairs:
        lines += [
            f"  - from: {a}",
            f"    to: {b}",
            f"    trigger: The worker finished {a}.",
            f"    guard: The row is {a}.",
            "    side_effects:",
            "      - status changes",
            "    who: system",
            "    provenance: observed",
        ]
    lines.append("invalid:")
    for a, b in invalid:
        lines += [f"  - from: {a}", f"    to: {b}", f"    why: {a} never goes back to {b}."]
    lines += ["---", "", f"# Large flow {index}", "", "## The Lifecycle", "", "```mermaid"]
    terminal = [n for n in names if not any(a == n for a, _ in pairs)]
    diagram = render_state_diagram(names, pairs, [names[0]], terminal)
    return "\n".join(lines) + "\n" + diagram + "```\n"


def write_corpus(out: Path, count: int, large: int = 0) -> list[Path]:
    if out.exists():
        shutil.rmtree(out)
    written = []
    texts = [seed.read_text(encoding="utf-8") for seed in SEEDS]
    for index in range(count):
        folder = out / f"area{index % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"spec-{index:05d}.md"
        path.write_text(_renumber(texts[index % len(texts)], index), encoding="utf-8")
        written.append(path)
    for index in range(large):
        folder = out / "large"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"large-{index:03d}.md"
        path.write_text(large_document(index), encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("count", type=int)
    parser.add_argument("--large", type=int, default=0)
    args = parser.parse_args()
    files = write_corpus(args.out, args.count, args.large)
    print(f"wrote {len(files)} documents to {args.out}")


if __name__ == "__main__":
    main()

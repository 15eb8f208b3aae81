"""Run the fuzz campaign of ``tests/testing/test_fuzz_campaign.py`` without stopping, and time it.

    python benchmarks/bench_fuzz.py [--examples 2000] [--minimize] [--save tests/fixtures/fuzz]

Every input of the suite's strategy goes through the same checks (``campaign_failures``); the
failures are grouped by class and counted, the smallest input of each class is kept and, with
``--minimize``, shrunk line by line and then character by character while it still shows its
class (``--save`` writes each as a reproducer file named by its class). Each input is also
linted alone (``lint_bytes``, no CLI around it) and timed; the slowest few are timed again
(best of five) against plain text of the same size (ASCII prose lines), and the table gives
that ratio: a lint that is linear in its input stays near a small constant. Nothing here
asserts on time.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "testing"))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from test_fuzz_campaign import campaign_failures, failure_class, inputs  # noqa: E402

from generator.lint.document import lint_bytes  # noqa: E402

SEED = (ROOT / "specs/platform/queries/workspace-export-delivery.md").read_bytes()


def plain_text(size: int) -> bytes:
    """A lint-clean spec of ``size`` bytes: a seed whose body ends in plain prose lines (the
    seed alone when ``size`` is smaller), so lint does its whole job on ordinary text."""
    line = ("plain words of ordinary prose " * 3)[:79] + "\n"
    padding = max(size - len(SEED) - 1, 0)
    return SEED + b"\n" + (line * (padding // len(line) + 1)).encode("ascii")[:padding]


def best_time(data: bytes, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        lint_bytes(data, "specs/fuzz.md")
        best = min(best, time.perf_counter() - start)
    return best


def classes_of(project: Path, data: bytes) -> set[str]:
    return {failure_class(f) for f in campaign_failures(project, data)}


def minimize(data: bytes, keeps: Callable[[bytes], bool], budget: int = 600) -> bytes:
    """Drop chunks of lines, then of bytes, while ``keeps`` still holds (ddmin-like), trying
    at most ``budget`` candidates."""
    calls = 0

    def holds(candidate: bytes) -> bool:
        nonlocal calls
        calls += 1
        return calls <= budget and keeps(candidate)

    for split in (lambda b: b.splitlines(keepends=True), lambda b: [bytes([c]) for c in b]):
        parts = split(data)
        chunk = max(len(parts) // 2, 1)
        while chunk >= 1:
            at, changed = 0, False
            while at < len(parts):
                candidate = parts[:at] + parts[at + chunk :]
                if candidate and holds(b"".join(candidate)):
                    parts, changed = candidate, True
                else:
                    at += chunk
            if not changed:
                chunk //= 2
        data = b"".join(parts)
    return data


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80]


def compare_slowest(timings: list[tuple[float, bytes]], count: int, keep: Path | None) -> None:
    """Time the ``count`` slowest inputs again against plain text of the same size."""
    timings.sort(key=lambda item: item[0], reverse=True)
    print("\n| input bytes | lint s (best of 5) | plain text s | ratio |")
    print("| ---: | ---: | ---: | ---: |")
    ratios = []
    for _, data in timings[:count]:
        slow, plain = best_time(data), best_time(plain_text(len(data)))
        ratios.append(slow / plain)
        print(f"| {len(data)} | {slow:.5f} | {plain:.5f} | {slow / plain:.2f} |")
    worst = max(range(len(ratios)), key=ratios.__getitem__)
    print(f"\nslowest input relative to plain text of the same size: {ratios[worst]:.2f}x")
    if keep:
        keep.write_bytes(timings[worst][1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--minimize", action="store_true")
    parser.add_argument("--save", type=Path, help="write each class's reproducer here")
    parser.add_argument("--slowest", type=int, default=10, help="inputs to time against plain")
    parser.add_argument("--keep-slowest", type=Path, help="write the slowest input to this file")
    args = parser.parse_args()

    project = Path(tempfile.mkdtemp(prefix="statedoc-fuzz-"))
    (project / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (project / "specs").mkdir()
    save = args.save.resolve() if args.save else None
    keep = args.keep_slowest.resolve() if args.keep_slowest else None
    os.chdir(project)
    os.environ.pop("STATEDOC_FORMAT", None)

    counts: Counter[str] = Counter()
    smallest: dict[str, bytes] = {}
    timings: list[tuple[float, bytes]] = []
    tried = 0

    @settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(data=inputs())
    def campaign(data: bytes) -> None:
        nonlocal tried
        tried += 1
        start = time.perf_counter()
        lint_bytes(data, "specs/fuzz.md")
        timings.append((time.perf_counter() - start, data))
        for name in classes_of(project, data):
            counts[name] += 1
            if name not in smallest or len(data) < len(smallest[name]):
                smallest[name] = data
        if tried % 1000 == 0:
            seconds = time.perf_counter() - started
            failing = sum(counts.values())
            print(f"... {tried} inputs, {failing} failing, {seconds:.0f} s", flush=True)

    started = time.perf_counter()
    try:
        campaign()
    except KeyboardInterrupt:  # a long run stopped early still reports what it tried
        print("interrupted: the numbers below are for the inputs tried so far")
    elapsed = time.perf_counter() - started
    print(f"inputs tried: {tried} in {elapsed:.0f} s; failure classes: {len(counts)}")
    print("\n| class | inputs | smallest (bytes) |\n| --- | ---: | ---: |")
    for name, count in counts.most_common():
        print(f"| {name} | {count} | {len(smallest[name])} |")

    compare_slowest(timings, args.slowest, keep)

    if args.minimize or save:
        for name, data in sorted(smallest.items()):
            small = minimize(data, lambda d, n=name: n in classes_of(project, d))
            print(f"\n{name}: {len(data)} -> {len(small)} bytes\n{small!r}")
            if save:
                save.mkdir(parents=True, exist_ok=True)
                (save / f"{slug(name)}.md").write_bytes(small)


if __name__ == "__main__":
    main()

"""How fast is a generated TypeScript module in node? ns per step of one random walk.

    python benchmarks/bench_runtime_ts.py [--steps 20000] [--repeat 30] [--seed 1]
        [--spec specs/platform/queries/workspace-export-delivery.md]

Generates the spec's TypeScript module, compiles it with the pinned ``tsc`` (tests/ts_js,
``npm ci`` on first use) and runs ``bench_runtime_ts.mjs`` in one node process. The walk is
the one ``bench_runtime.py`` does (random paths from the initial state, at most 50 steps each,
every step a declared transition), done five ways, each tracking the current state:

* the baseline, a bare ``next.get(state).has(to)`` (a ``Set`` of targets per state) inlined in
  the loop: the least any validation can cost; also ``Set.has`` of a ``from\\0to`` string key;
* the generated ``check(state, to)``;
* the generated ``Machine.transition(to)`` (one Machine per path, built before the clock);
* XState v5, ``createActor(machine).send({type})`` with one event per declared pair (actors
  created and started before the clock).

The ways run interleaved: ``--repeat`` rounds (after 5 warm-up rounds for the JIT, not kept),
each timing every way right next to a run of the baseline (which goes first alternates), so a
slow moment of a shared machine lands on both runs of a pair alike. A ratio is the median of
the per-pair ratios against the baseline (their quartiles show the spread); ns/step is each
way's median. Nothing asserts on time: the table says whether the targets hold here, now.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TS_DIR = ROOT / "tests" / "ts_js"
SCRIPT = Path(__file__).resolve().parent / "bench_runtime_ts.mjs"

TARGET_CHECK = 2.0
TARGET_MACHINE = 1.0
WARM_UP = 5
TARGET_VS_XSTATE = 50.0

Walk = list[tuple[str, list[str]]]


def build_walk(out: dict[str, list[str]], start: str, steps: int, seed: int) -> Walk:
    rnd = random.Random(seed)
    walk: Walk = []
    total = 0
    while total < steps:
        state, path = start, list[str]()
        while len(path) < 50 and out[state] and total + len(path) < steps:
            state = rnd.choice(sorted(out[state]))
            path.append(state)
        if not path:
            raise SystemExit(f"the initial state {start!r} has no transition")
        walk.append((start, path))
        total += len(path)
    return walk


def run_node(spec_path: str, rounds: int, steps: int, seed: int) -> dict[str, Any] | None:
    """``bench_runtime_ts.mjs``'s result for the spec (its id as ``spec``), or None without
    node and npm."""
    from generator.lint.document import lint_bytes
    from generator.targets import document_sha256
    from generator.targets.typescript.render import render_module

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None
    if not (TS_DIR / "node_modules" / "xstate").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TS_DIR, check=True)
    document = lint_bytes((ROOT / spec_path).read_bytes(), spec_path).document
    if document is None:
        raise SystemExit(f"{spec_path} does not load")
    spec = document.spec
    text = render_module(spec, relative=spec_path, sha256=document_sha256(document.source))
    out: dict[str, list[str]] = {name: [] for name in spec.state_names}
    for t in spec.transitions:
        out[t.from_state].append(t.to_state)
    walk = build_walk(out, spec.initial_states[0], steps, seed)
    with tempfile.TemporaryDirectory(dir=TS_DIR, prefix=".bench-") as folder:
        work = Path(folder)
        (work / "module.ts").write_text(text, encoding="utf-8")
        (work / "package.json").write_text('{"type": "module"}\n')
        (work / "walk.json").write_text(json.dumps(walk))
        # Copied next to tests/ts_js/node_modules, where node resolves ``xstate`` from.
        shutil.copy(SCRIPT, work / SCRIPT.name)
        tsc = TS_DIR / "node_modules" / "typescript" / "bin" / "tsc"
        subprocess.run(
            [node, str(tsc), "--strict", "--target", "es2022", "--module", "es2022",
             "--outDir", str(work), str(work / "module.ts")],
            check=True,
        )  # fmt: skip
        run = subprocess.run(
            [node, SCRIPT.name, "./module.js", "walk.json", str(rounds), str(WARM_UP)],
            capture_output=True, text=True, cwd=work, check=False,
        )  # fmt: skip
        if run.returncode != 0:
            raise SystemExit(f"node failed:\n{run.stderr}")
        result: dict[str, Any] = json.loads(run.stdout)
    result["spec"] = spec.id
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=30, help="paired rounds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spec", default="specs/platform/queries/workspace-export-delivery.md")
    args = parser.parse_args()
    result = run_node(args.spec, args.repeat, args.steps, args.seed)
    if result is None:
        raise SystemExit("node and npm are needed")
    ratio, low, high = result["ratio"], result["ratioLow"], result["ratioHigh"]
    print(
        f"{result['spec']}: {result['steps']} steps, node {result['node']}, median of "
        f"{result['rounds']} paired rounds after {result['warm']} warm-up rounds\n"
    )
    print("| way | ns/step | vs bare Set.has (median of pairs) | quartiles | target |")
    print("| --- | ---: | ---: | --- | --- |")
    rows = [
        ("bare", "bare `next.get(state).has(to)` (baseline)", ""),
        ("bareKeyed", "bare `Set.has(from + '\\0' + to)`", ""),
        ("check", "`check(state, to)`", f"<= {TARGET_CHECK:g}x"),
        ("machine", "`Machine.transition(to)`", f"<= {TARGET_MACHINE:g}x"),
        ("xstate", "XState v5 `actor.send({type})`", ""),
    ]
    for key, name, target in rows:
        print(
            f"| {name} | {result[key]:.1f} | {ratio[key]:.2f}x "
            f"| {low[key]:.2f}-{high[key]:.2f}x | {target} |"
        )
    print()
    for key in ("check", "machine"):
        speedup = ratio["xstate"] / ratio[key]
        verdict = "met" if speedup >= TARGET_VS_XSTATE else "NOT met"
        print(f"XState / {key}: {speedup:.0f}x faster (target >= {TARGET_VS_XSTATE:g}x: {verdict})")
    for key, goal in (("check", TARGET_CHECK), ("machine", TARGET_MACHINE)):
        verdict = "met" if ratio[key] <= goal else "NOT met"
        print(f"{key} / bare: {ratio[key]:.2f}x (target <= {goal:g}x: {verdict})")


if __name__ == "__main__":
    main()

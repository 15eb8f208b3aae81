"""Lint benchmarks: every number is a ratio against a baseline measured in the same run.

    python benchmarks/bench_lint.py [--quick] [--huge] [--no-jobs]

Sections (targets from the performance issues):
  cold       lint 600 documents, no cache, one process, streamed as `statedoc lint` does
             vs  bare read + CSafeLoader parse of the same files                      <= 1.3x
  warm       the same, cache warm, nothing changed      vs  the same baseline        <= 0.3x
  startup    `statedoc lint one.md` in a new process   vs  `yamllint` on its front matter  <= 0.75x
                                                       vs  `check-jsonschema` on it        <= 0.3x
             (--startup: this section alone)
  scaling    `statedoc lint --no-cache -j1` processes on 600 / 6,000 / 60,000 documents
             (--quick: 600 / 6,000; --huge: also 100,000): CPU, CPU vs the bare parse (<= 1.3x),
             peak RSS, and RSS per document beyond the first row (flat memory: near 0 B)
             --huge also: `lint --no-cache -j2` on 100,000: the parent's CPU apart from its workers'
  jobs       -j1 vs -j2 on 2,000 documents (cold)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import yaml  # noqa: E402
from corpus import write_corpus  # noqa: E402

from generator.cache.store import Cache  # noqa: E402
from generator.lint.files import Settings, settings_for, stream_files  # noqa: E402
from generator.load.config import Config  # noqa: E402
from generator.load.discover import SpecFile, discover  # noqa: E402
from generator.load.frontmatter import split  # noqa: E402
from generator.load.source import decode  # noqa: E402
from generator.report import Run, render  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> float:
    """Median CPU time of ``repeat`` runs (CPU time: other work on a shared machine is not
    counted; the median: one disturbed run does not decide)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def paired(ways: list[Callable[[], float]], repeat: int) -> list[float]:
    """Median of each way's own measurement, the ways run in turn ``repeat`` times."""
    samples: list[list[float]] = [[] for _ in ways]
    for _ in range(repeat):
        for index, way in enumerate(ways):
            samples[index].append(way())
    return [statistics.median(values) for values in samples]


#: Starts ``argv[1:]`` and prints its CPU seconds and peak RSS. A process started from this
#: benchmark directly would report at least the benchmark's own peak RSS: Linux keeps the
#: high-water mark of the memory a child had before ``exec`` (with ``vfork``, the parent's).
LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def child_cpu(args: list[str], cwd: Path) -> tuple[float, int]:
    """CPU seconds (user + system) and peak RSS in KiB of one child process (started by a
    small launcher process, so that the RSS is the child's own)."""
    out = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCHER, *args],
        cwd=cwd,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    status, cpu, rss = int(out[0]), float(out[1]), int(out[2])
    if status != 0:
        raise SystemExit(f"{' '.join(args)} failed with status {status}")
    return cpu, rss


def baseline(paths: list[Path]) -> None:
    """What the floor costs: read, decode, split and parse each front matter with libyaml."""
    for path in paths:
        text = decode(path.read_bytes()).text
        yaml.load(split(text).yaml_text, Loader=yaml.CSafeLoader)


def _streamed(files: list[SpecFile], settings: Settings, cache: Cache | None = None) -> None:
    """What ``statedoc lint`` does in-process: each file's findings rendered as it is done."""
    for findings in stream_files(files, settings, jobs=1, cache=cache):
        if findings:
            render("text", Run(findings, (), "bench"))


def row(name: str, value: float, base: float, target: float | None) -> str:
    ratio = value / base
    verdict = "" if target is None else ("met" if ratio <= target else "NOT MET")
    goal = "" if target is None else f"<= {target:g}x"
    times = f"{value * 1000:.1f} ms | {base * 1000:.1f} ms"
    return f"| {name} | {times} | {ratio:.2f}x | {goal} | {verdict} |"


# Installed packages start from compiled bytecode (pip compiles at install time); a checkout run
# with PYTHONDONTWRITEBYTECODE would recompile statedoc on every start and measure the compiler.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(ROOT)


def cli(*args: str, cwd: Path) -> None:
    """Run statedoc in a new process; a failing run would make every ratio meaningless."""
    proc = subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        env=ENV,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if proc.returncode != 0:
        raise SystemExit(f"statedoc {' '.join(args)} failed: {proc.stderr.decode()[-500:]}")


def tool(name: str) -> str:
    """A comparison tool of the ``bench`` extra: beside this interpreter, else on ``PATH``."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: pip install '.[bench]' (or put it on PATH)")
    return found


def imported(args: list[str], cwd: Path) -> list[str]:
    """The statedoc modules a process imports (``-X importtime`` lists each once)."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stderr
    found = [line.rsplit("|", 1)[1].strip() for line in err.splitlines() if "|" in line]
    ours = (name for name in found if name.split(".")[0] == "generator")
    return list(dict.fromkeys(name for name in ours if not name.endswith("__main__")))


#: yamllint's default rules, with the line length of prose that the front matter holds.
YAMLLINT_CONFIG = "{extends: default, rules: {line-length: disable}}"


def startup(env_root: Path, one: Path, repeat: int) -> None:
    """``statedoc lint -q --no-cache one.md`` in a new process against what a user would
    otherwise run on the same front matter: ``yamllint`` (syntax and style) and
    ``check-jsonschema`` with statedoc's own schema (structure), each a clean run, all measured
    in the same paired run. One more row says how much of statedoc's figure is importing its
    modules (nothing run). ``python -m generator`` runs this checkout; the ``statedoc``
    console script costs the same."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "generator")], check=True)
    front = env_root / "one-front-matter.yaml"
    front.write_text("---\n" + split(decode(one.read_bytes()).text).yaml_text, encoding="utf-8")
    schema = ROOT / "generator/load/schema/front-matter.schema.json"
    lint_args = [sys.executable, "-m", "generator", "lint", "-q", "--no-cache", str(one)]
    ours = imported(lint_args[1:], env_root)
    ways = [
        [tool("yamllint"), "-d", YAMLLINT_CONFIG, str(front)],
        [tool("check-jsonschema"), "--schemafile", str(schema), str(front)],
        lint_args,
        [sys.executable, "-c", f"import {', '.join(ours)}"],
    ]
    yamllint, jsonschema, lint, mods = paired(
        [lambda w=w: child_cpu(w, env_root)[0] for w in ways], repeat
    )
    print(row("one document, cold process (CPU) vs yamllint", lint, yamllint, 0.75))
    print(row("one document, cold process (CPU) vs check-jsonschema", lint, jsonschema, 0.3))
    print(row(f"- of which importing its {len(ours)} modules, vs yamllint", mods, yamllint, None))


#: Runs ``statedoc ARGS...`` in this process; prints its own CPU seconds, then its workers'.
PARENT = """
import resource, sys
from generator.cli.main import main
try:
    code = main(sys.argv[1:])
finally:
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, file=sys.stderr)
raise SystemExit(code)
"""


def jobs_parent(env_root: Path, size: int) -> None:
    """``lint -q --no-cache -j2`` on ``size`` documents: the parent's own CPU (discovery,
    sending chunks, ordering results), apart from its workers', stays a small share."""
    folder = env_root / f"scale{size}"
    if not folder.exists():
        write_corpus(folder, size)
    err = subprocess.run(
        [sys.executable, "-c", PARENT, "lint", "-q", "--no-cache", "-j2", str(folder)],
        cwd=env_root,
        env=ENV,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ).stderr
    own, workers = (float(n) for n in err.split()[-2:])
    print(f"\n| {size:,} docs, cold | parent CPU | workers' CPU | parent's share |")
    print("| --- | --- | --- | --- |")
    print(f"| -j2 | {own:.2f} s | {workers:.2f} s | {own / (own + workers):.1%} |")


def scaling(env_root: Path, sizes: tuple[int, ...]) -> None:
    """CPU and peak RSS of a cold ``lint -j1`` process per corpus size; flat memory means the
    RSS per document beyond the smallest corpus stays near zero."""
    first = f"{sizes[0]:,}"
    print(
        "\n| documents | CPU | per document | vs bare parse (<= 1.3x) | peak RSS "
        f"| RSS per doc over {first} |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    first_rss = None
    for size in sizes:
        folder = env_root / f"scale{size}"
        write_corpus(folder, size)
        scale_paths = sorted(folder.rglob("*.md"))
        floor = best(lambda: baseline(scale_paths), 1)  # noqa: B023
        total, rss = child_cpu(
            [sys.executable, "-m", "generator", "lint", "-q", "--no-cache", "-j1", str(folder)],
            env_root,
        )
        first_rss = rss if first_rss is None else first_rss
        slope = "" if size == sizes[0] else f"{(rss - first_rss) * 1024 / (size - sizes[0]):.0f} B"
        print(
            f"| {size:,} | {total:.2f} s | {total / size * 1000:.2f} ms | {total / floor:.2f}x "
            f"| {rss / 1024:.0f} MiB | {slope} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller corpora, fewer repeats")
    parser.add_argument("--huge", action="store_true", help="add a 100,000-document row (slow)")
    parser.add_argument("--no-jobs", action="store_true", help="skip the -j1/-j2 section")
    parser.add_argument("--startup", action="store_true", help="only the one-document rows")
    args = parser.parse_args()
    repeat = 2 if args.quick else 3
    env_root = Path(tempfile.mkdtemp(prefix="statedoc-bench-"))
    (env_root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    specs = env_root / "specs"
    write_corpus(specs, 600)
    config = Config(root=env_root, specs=(specs,), out=env_root / "generated")
    files = discover([], config, cwd=env_root)
    paths = [f.path for f in files]
    settings = settings_for(config)

    print(f"# statedoc lint benchmarks (python {sys.version.split()[0]}, {os.cpu_count()} cores)\n")
    print("| measure | statedoc | baseline | ratio | target | |")
    print("| --- | --- | --- | --- | --- | --- |")

    if args.startup:
        startup(env_root, paths[0], 10 * repeat)
        return

    def timed(fn: Callable[[], object]) -> Callable[[], float]:
        return lambda: best(fn, 1)

    base, cold = paired(
        [timed(lambda: baseline(paths)), timed(lambda: _streamed(files, settings))],
        2 * repeat + 1,
    )
    print(row("cold lint, 600 docs, no cache, 1 process", cold, base, 1.3))
    cache = Cache(env_root, max_file_size=config.max_file_size)
    _streamed(files, settings, cache)
    warm = best(lambda: _streamed(files, settings, cache), repeat)
    print(row("warm lint, 600 docs, cache hit", warm, base, 0.3))

    startup(env_root, paths[0], 10 * repeat)

    sizes = (600, 6000) if args.quick else (600, 6000, 60000)
    scaling(env_root, (*sizes, 100_000) if args.huge else sizes)
    if args.huge:
        jobs_parent(env_root, 100_000)

    if args.no_jobs:
        return
    folder = env_root / "jobs"
    write_corpus(folder, 2000)
    one_job = best(
        lambda: cli("lint", "-q", "--no-cache", "-j1", str(folder), cwd=env_root), repeat
    )
    two_jobs = best(
        lambda: cli("lint", "-q", "--no-cache", "-j2", str(folder), cwd=env_root), repeat
    )
    print("\n| 2,000 docs, cold | time | speed-up |")
    print("| --- | --- | --- |")
    print(f"| -j1 | {one_job:.2f} s | 1.00x |")
    print(f"| -j2 | {two_jobs:.2f} s | {one_job / two_jobs:.2f}x |")


if __name__ == "__main__":
    main()

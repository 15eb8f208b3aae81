"""Generate benchmark: every figure a ratio against a cold lint of the same documents, measured
in the same run (paired: the ways run in turn, medians of CPU time, also split into user and
system time: the system share is the file work).

    python benchmarks/bench_generate.py [--count N] [--repeat R]

cold lint: ``statedoc lint -q --no-cache -j1`` (the baseline).
cold generate: an empty output folder and an empty cache (lint, render every module and
diagram, write). Its target is against the floor: a cold lint plus writing the same bytes to
the same number of new files with plain Python (``os.makedirs`` and ``open``/``write``, in a
process of its own), measured in the same run: <= 1.5x the floor.
Where the rest goes (the lines under the table): ``cold generate --no-cache`` (the same run
without filling the caches: what the caches' writes cost), and the floor's files written as
statedoc writes them (a temp file beside each, then a rename: what atomic writes cost over
plain ones); what is left over the floor is rendering, planning and checking.
The system time of a cold generate is mostly ext4 allocating ~2,100 inodes; on a shared
machine it varies 5x with what other processes delete on the same file system (perf: the
allocator skipping recently deleted inodes, ``recently_deleted``), so compare the user column
too.
no-op generate / build / check: the same command again with nothing changed. Target: <= 0.2x
the cold lint (what a warm lint costs), and no-op generate <= 0.3x the cold generate.
warm lint: ``statedoc lint -q -j1`` with the cache the cold generate filled (the reference for
the no-op runs: they lint the same way, then serve the outputs from the render cache).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus import write_corpus  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "CI")}
ENV["PYTHONPATH"] = str(ROOT)


def cpu(cwd: Path, *args: str) -> tuple[float, float]:
    """CPU seconds (user, system) of one ``statedoc`` process."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if status != 0:
        raise SystemExit(f"statedoc {' '.join(args)} failed: {err[-800:]}")
    return usage.ru_utime, usage.ru_stime


#: The floor's writer: the outputs of the first cold generate, as one blob and an index of
#: (path, length), written to new files under a fresh folder.
WRITE = """
import json, os, sys
blob, index, dest = open(sys.argv[1], "rb").read(), json.load(open(sys.argv[2])), sys.argv[3]
at = 0
for path, size in index:
    target = os.path.join(dest, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as handle:
        handle.write(blob[at : at + size])
    at += size
"""

#: The same files written atomically, as statedoc's ``Batch`` does (a private temp file beside
#: each, given 0644, renamed over the target once all are written); no flush, as in ``WRITE``.
WRITE_ATOMIC = """
import json, os, sys
blob, index, dest = open(sys.argv[1], "rb").read(), json.load(open(sys.argv[2])), sys.argv[3]
at, pending = 0, []
flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
for path, size in index:
    target = os.path.join(dest, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    temp = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{os.getpid()}.tmp")
    fd = os.open(temp, flags, 0o600)
    os.write(fd, blob[at : at + size])
    os.fchmod(fd, 0o644)
    os.close(fd)
    pending.append((temp, target))
    at += size
for temp, target in pending:
    os.replace(temp, target)
"""


def snapshot_outputs(out: Path, blob: Path, index: Path) -> int:
    """Store what ``out`` holds for the floor's writer; the number of files."""
    import json

    files = sorted(p for p in out.rglob("*") if p.is_file())
    entries = []
    with blob.open("wb") as handle:
        for path in files:
            data = path.read_bytes()
            handle.write(data)
            entries.append((path.relative_to(out).as_posix(), len(data)))
    index.write_text(json.dumps(entries))
    return len(files)


def write_floor(blob: Path, index: Path, dest: Path, script: str = WRITE) -> tuple[float, float]:
    """CPU seconds (user, system) of writing the same bytes to new files with plain Python."""
    shutil.rmtree(dest, ignore_errors=True)
    proc = subprocess.Popen([sys.executable, "-c", script, str(blob), str(index), str(dest)])
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit("the floor's writer failed")
    return usage.ru_utime, usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="statedoc-gen-"))
    (root / "pyproject.toml").write_text("[tool.statedoc]\n")
    write_corpus(root / "specs", args.count)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "generator")], check=True)
    ways = (
        "cold lint",
        "cold generate",
        "warm lint",
        "no-op generate",
        "no-op build",
        "no-op check",
    )
    parts = ("floor write", "atomic write", "cold generate --no-cache")
    samples: dict[str, list[tuple[float, float]]] = {way: [] for way in (*ways, *parts)}
    blob, index, files = root / "floor.bin", root / "floor.json", 0
    for _ in range(args.repeat):
        samples["cold lint"].append(cpu(root, "lint", "-q", "--no-cache", "-j1"))
        shutil.rmtree(root / "generated", ignore_errors=True)
        shutil.rmtree(root / ".statedoc_cache", ignore_errors=True)
        samples["cold generate"].append(cpu(root, "generate", "-q", "-j1"))
        if not files:
            files = snapshot_outputs(root / "generated", blob, index)
        samples["floor write"].append(write_floor(blob, index, root / "floor"))
        samples["atomic write"].append(write_floor(blob, index, root / "floor", WRITE_ATOMIC))
        samples["warm lint"].append(cpu(root, "lint", "-q", "-j1"))
        samples["no-op generate"].append(cpu(root, "generate", "-q", "-j1"))
        samples["no-op build"].append(cpu(root, "build", "-q", "-j1"))
        samples["no-op check"].append(cpu(root, "check", "-q", "-j1"))
        shutil.rmtree(root / "generated")  # last: the no-op runs above saw the cold run's tree
        samples["cold generate --no-cache"].append(cpu(root, "generate", "-q", "-j1", "--no-cache"))
    median = {way: statistics.median(u + s for u, s in values) for way, values in samples.items()}
    user = {way: statistics.median(u for u, _ in values) for way, values in samples.items()}
    system = {way: statistics.median(s for _, s in values) for way, values in samples.items()}
    lint, cold = median["cold lint"], median["cold generate"]
    floor = lint + median["floor write"]
    targets = {"no-op generate": 0.2, "no-op build": 0.2, "no-op check": 0.2}
    print(
        f"# statedoc generate, {args.count} documents (python {sys.version.split()[0]}; "
        f"median CPU of {args.repeat} paired runs)\n"
    )
    print(
        "| run | CPU | user | system | x cold lint | target | | user x cold lint "
        "| x cold generate |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for way in ways:
        ratio = median[way] / lint
        target = targets.get(way)
        goal = "" if target is None else f"<= {target}x"
        verdict = "" if target is None else ("met" if ratio <= target else "NOT MET")
        print(
            f"| {way} | {median[way]:.2f} s | {user[way]:.2f} s | {system[way]:.2f} s "
            f"| {ratio:.2f}x | {goal} | {verdict} | {user[way] / user['cold lint']:.2f}x "
            f"| {median[way] / cold:.2f}x |"
        )
    verdict = "met" if cold / floor <= 1.5 else "NOT MET"
    print(
        f"\nfloor: cold lint + writing the same {files:,} files with plain Python "
        f"({median['floor write']:.2f} s) = {floor:.2f} s; cold generate {cold / floor:.2f}x "
        f"the floor (target <= 1.5x: {verdict})"
    )
    over = cold - floor
    caches = cold - median["cold generate --no-cache"]
    atomic = median["atomic write"] - median["floor write"]
    print(
        f"over the floor: {over:.2f} s = the caches' writes {caches:.2f} s (cold generate "
        f"--no-cache {median['cold generate --no-cache']:.2f} s) + atomic writes {atomic:.2f} s "
        f"(the same files through a temp file and a rename: {median['atomic write']:.2f} s) + "
        f"rendering, planning and checking {over - caches - atomic:.2f} s"
    )
    shutil.rmtree(root)


if __name__ == "__main__":
    main()

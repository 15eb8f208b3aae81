"""TypeScript toolchain for the tests of the ``typescript`` target (``tests/ts_js/``).

``tsc`` (TypeScript), ``fast-check`` and ``xstate`` come from ``tests/ts_js/package-lock.json``
(``npm ci`` on first use, like the Mermaid oracle). Without node/npm the tests skip with a
reason on a developer machine and fail under CI (``CI`` set): a green CI means they ran.

tsc starts slowly, so callers batch: :func:`compile_project` type-checks and compiles many
modules in ONE invocation with the strictest options the issue asks for, and
:func:`run_tests` imports many compiled test modules in ONE node process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from node_packages import NodePackages

TS_DIR = Path(__file__).resolve().parent / "ts_js"
LOCKFILE = TS_DIR / "package-lock.json"
NODE_MODULES = TS_DIR / "node_modules"
TSC = NODE_MODULES / "typescript" / "bin" / "tsc"

#: The compiler options every generated file must pass (the issue's bar, and then some).
COMPILER_OPTIONS: dict[str, Any] = {
    "strict": True,
    "noUncheckedIndexedAccess": True,
    "exactOptionalPropertyTypes": True,
    "noImplicitOverride": True,
    "noImplicitReturns": True,
    "noFallthroughCasesInSwitch": True,
    "noPropertyAccessFromIndexSignature": True,
    "isolatedModules": True,
    "verbatimModuleSyntax": True,
    "erasableSyntaxOnly": True,  # runs as is under node's type stripping (Node 22.6+)
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "lib": ["es2022"],  # no DOM, no @types/node: the modules use no platform API
    "types": [],
    "skipLibCheck": True,
    "rootDir": ".",
    "outDir": "js",
}

_RUNNER = """\
const results = [];
for (const item of JSON.parse(process.argv[2])) {
  globalThis.STATEDOC_NUM_RUNS = item.runs;
  globalThis.STATEDOC_SEED = item.seed;
  try {
    await import(new URL(item.path, import.meta.url).href);
    results.push({ path: item.path, ok: true, message: "" });
  } catch (error) {
    let message = String((error && error.stack) || error);
    for (let cause = error && error.cause; cause; cause = cause.cause) {
      message += "\\nCaused by: " + String(cause.stack || cause);  // fast-check 4 wraps failures
    }
    results.push({ path: item.path, ok: false, message });
  }
}
process.stdout.write(JSON.stringify(results));
"""


PACKAGES = NodePackages(TS_DIR, "TypeScript target tests")


def node_available() -> bool:
    """True when node and npm are on PATH; otherwise skip, or fail under CI."""
    return PACKAGES.available()


def ensure_node_modules() -> None:
    """``npm ci`` in tests/ts_js unless a current install is there."""
    PACKAGES.ensure()


@dataclass
class Compiled:
    """A compiled project: ``errors`` is tsc's output (empty when clean)."""

    root: Path
    returncode: int
    errors: str

    def js(self, relative: str) -> str:
        """The compiled ``.js`` path (relative to ``root``) of a ``.ts`` source."""
        return "js/" + relative[: -len(".ts")] + ".js"


def compile_project(root: Path, files: dict[str, str], **options: Any) -> Compiled:
    """Write ``files`` (relative path -> TypeScript) under ``root`` and run tsc once over all."""
    ensure_node_modules()
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if not (root / "node_modules").exists():
        (root / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    (root / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    config = {
        "compilerOptions": {**COMPILER_OPTIONS, **options},
        "files": sorted(files),
    }
    (root / "tsconfig.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    result = subprocess.run(
        [node, str(TSC), "-p", str(root / "tsconfig.json"), "--pretty", "false"],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
        check=False,
    )
    (root / "js").mkdir(exist_ok=True)
    (root / "js" / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    return Compiled(root, result.returncode, (result.stdout + result.stderr).strip())


def run_tests(
    compiled: Compiled, paths: list[str], *, runs: int, seed: int | None = None
) -> dict[str, tuple[bool, str]]:
    """Import each compiled test module (``.ts`` paths) in one node process: path -> (passed,
    the error it threw)."""
    runner = compiled.root / "run.mjs"
    runner.write_text(_RUNNER, encoding="utf-8")
    items = [{"path": compiled.js(p), "runs": runs, "seed": seed} for p in paths]
    node = shutil.which("node")
    assert node is not None
    result = subprocess.run(
        [node, str(runner), json.dumps(items)],
        cwd=compiled.root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=1800,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"run.mjs failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    answers = json.loads(result.stdout)
    by_js = {compiled.js(p): p for p in paths}
    return {by_js[a["path"]]: (a["ok"], a["message"]) for a in answers}


def run_script(compiled: Compiled, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a compiled ``.js`` (relative to the project root) with node."""
    node = shutil.which("node")
    assert node is not None
    return subprocess.run(
        [node, script, *args],
        cwd=compiled.root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
        check=False,
    )

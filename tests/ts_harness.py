"""TypeScript toolchain for the tests of the ``typescript`` target (``tests/ts_js/``).

``tsc`` (TypeScript), ``fast-check`` and ``xstate`` come from ``tests/ts_js/package-lock.json``
(``npm ci`` on first use, like the Mermaid oracle). Without node/npm the tests skip with a
reason on a developer machine and fail under CI (``CI`` set): a green CI means they ran.

tsc starts slowly, so callers batch: :func:`compile_project` type-checks and compiles many
modules in ONE invocation with the strictest options the issue asks for, and
:func:`run_tests` runs the node:test tests of many compiled test modules in ONE node process
(node's own runner and a reporter that hands back each test's result).
"""

from __future__ import annotations

import json
import os
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

#: Imports every compiled test file in ONE node process: each registers its node:test tests,
#: which node runs in order; the reporter below hands back one line per finished test.
_RUNNER = """\
for (const path of JSON.parse(process.argv[2])) {
  try {
    await import(new URL(path, import.meta.url).href);
  } catch (error) {
    const message = String((error && error.stack) || error);
    const line = { file: path, name: "(import)", ok: false, message };
    process.stdout.write(JSON.stringify(line) + "\\n");
  }
}
"""

#: A node:test reporter (``--test-reporter``): one JSON line per finished test, with the file
#: that declared it and the error with its causes (fast-check 4 wraps failures).
_REPORTER = """\
import { pathToFileURL } from "node:url";
function describe(error) {
  let message = String((error && error.stack) || error);
  for (let cause = error && error.cause; cause; cause = cause.cause) {
    message += "\\nCaused by: " + String(cause.stack || cause);
  }
  return message;
}
export default async function* report(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const data = event.data;
    if (data.details && data.details.type === "suite") continue;
    const file = data.file ? pathToFileURL(data.file).href : "";
    const ok = event.type === "test:pass";
    const message = ok ? "" : describe(data.details && data.details.error);
    yield JSON.stringify({ file, name: data.name, ok, message }) + "\\n";
  }
}
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
    """Run the node:test tests of each compiled test module (``.ts`` paths) in one node
    process: path -> (every test in it passed, the failures' errors). ``runs`` and ``seed``
    reach the generated tests as ``STATEDOC_NUM_RUNS`` and ``STATEDOC_SEED``."""
    return {
        path: (ok, message)
        for path, (ok, message, _) in run_node_tests(
            compiled,
            paths,
            env={
                "STATEDOC_NUM_RUNS": str(runs),
                "STATEDOC_SEED": "" if seed is None else str(seed),
            },
        ).items()
    }


_REPORTING = ("--test-reporter=./report.mjs", "--test-reporter-destination=stdout")


def run_node_tests(
    compiled: Compiled, paths: list[str], *, env: dict[str, str] | None = None
) -> dict[str, tuple[bool, str, dict[str, tuple[bool, str]]]]:
    """Import each compiled test file in one node process under node:test's runner: path ->
    (all passed, the failures' errors joined, test name -> (passed, error)). A file that ran
    no test fails. A test is filed under the file that called ``test()``: a helper's file URL
    when a helper registered it."""

    (compiled.root / "run.mjs").write_text(_RUNNER, encoding="utf-8")
    (compiled.root / "report.mjs").write_text(_REPORTER, encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    js = [compiled.js(p) for p in paths]
    result = subprocess.run(
        [node, *_REPORTING, "run.mjs", json.dumps(js)],
        cwd=compiled.root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=1800,
        check=False,
        env={**os.environ, **(env or {})},
    )
    by_url = {(compiled.root / j).resolve().as_uri(): p for j, p in zip(js, paths, strict=True)}
    by_url.update({j: p for j, p in zip(js, paths, strict=True)})  # import failures
    tests: dict[str, dict[str, tuple[bool, str]]] = {p: {} for p in paths}
    for line in result.stdout.split("\n"):  # not splitlines: U+2028 is inside messages
        if not line.startswith("{"):
            continue
        answer = json.loads(line)
        # A test registered by a helper (the conformance kit) names the helper's file.
        path = by_url.get(answer["file"], answer["file"])
        tests.setdefault(path, {})
        name, count = answer["name"], 1
        while name in tests[path]:  # the same name twice in a file: keep both
            count += 1
            name = f"{answer['name']} #{count}"
        tests[path][name] = (answer["ok"], answer["message"])
    if result.returncode not in (0, 1) or not any(tests.values()):
        raise RuntimeError(f"node failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    out: dict[str, tuple[bool, str, dict[str, tuple[bool, str]]]] = {}
    for path, found in tests.items():
        errors = "\n\n".join(f"{name}: {error}" for name, (ok, error) in found.items() if not ok)
        if not found:
            errors = "no test ran"
        out[path] = (bool(found) and all(ok for ok, _ in found.values()), errors, found)
    return out


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

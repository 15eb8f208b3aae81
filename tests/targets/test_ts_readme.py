"""README's TypeScript example is true: it type-checks against a module the target generates
(at the path it imports) under the strict flags, and does what its comments say in node."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ts_harness import compile_project, run_script

from generator.run.config import load_config
from generator.targets.registry import get_target

from .ts_support import ROOT, load

DRIVER = """\
import { loadDelivery, markDelivered, deliverableFrom } from "./service.js";

declare const console: { log(text: string): void };
const out: unknown[] = [markDelivered({ id: "1", status: "delivering" })];
const refused = markDelivered({ id: "2", status: "pending" });
out.push("refused" in refused);
try {
  loadDelivery({ id: "3", status: "bogus" });
} catch (error) {
  out.push((error as Error).message);
}
out.push([...deliverableFrom]);
console.log(JSON.stringify(out));
"""


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The TypeScript module", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```ts\n(.*?)```", section, re.S)
    assert code is not None
    return code.group(1)


def test_the_readme_typescript_example_typechecks_and_runs(tmp_path: Path) -> None:
    spec = ROOT / "specs/platform/queries/workspace-export-delivery.md"
    document = load(spec.read_bytes(), spec.relative_to(ROOT).as_posix())
    ((relative, data),) = get_target("typescript").files(document, load_config(ROOT)).items()
    files = {
        f"generated/{relative}": data.decode("utf-8"),
        "service.ts": readme_example(),
        "driver.ts": DRIVER,
    }
    compiled = compile_project(tmp_path, files)
    assert compiled.returncode == 0, compiled.errors
    result = run_script(compiled, "js/driver.js")
    assert result.returncode == 0, result.stderr
    sources = [t.from_state for t in document.spec.transitions if t.to_state == "delivered"]
    assert json.loads(result.stdout) == [
        {"status": "delivered"},
        True,
        'delivery 3: unknown status "bogus"',
        sources,
    ]

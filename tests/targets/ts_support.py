"""Subjects for the TypeScript target's tests: the seed specs and hostile specs, rendered."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.lint.document import lint_bytes
from generator.model.document import Document
from generator.targets import document_sha256
from generator.targets.typescript.render import render_module
from generator.targets.typescript.tests import render_test

ROOT = Path(__file__).resolve().parent.parent.parent
SEEDS = sorted((ROOT / "specs").rglob("*.md"))

#: Names and texts that break naive TypeScript generators: object-prototype names, template
#: literal syntax, comment terminators, HTML script ends, line separators, quotes, keywords.
HOSTILE = """\
---
id: STATE-TSX-001
title: "Hostile */ `${title}` </script>"
object: DOM-TSX-001
product_area: typescript
module: hostile
revision: 9007199254740993
status: draft
initial: [__proto__, "2fa"]
states:
  - name: __proto__
    meaning: "ends a comment */ and opens one /* and </script><!-- and \\u2028 here"
  - name: constructor
  - name: toString
  - name: "2fa"
  - name: "${x}"
    meaning: "`backticks` and ${template}"
  - name: "on"
  - name: "done \\u2028 ✓"
  - name: "class"
  - name: "\\"quoted\\" \\\\ back"
transitions:
  - {from: __proto__, to: constructor, trigger: "a\\u2029b", guard: "x */ y"}
  - {from: constructor, to: toString, trigger: "`${ok}`", side_effects: ["</script>", "\\u0000"]}
  - {from: toString, to: "${x}", trigger: t, who: "\\u202Eevil"}
  - {from: "${x}", to: "done \\u2028 ✓", trigger: t, provenance: observed}
  - {from: "2fa", to: constructor, trigger: t}
  - {from: constructor, to: "on", trigger: t}
  - {from: "on", to: "class", trigger: t}
  - {from: "class", to: "\\"quoted\\" \\\\ back", trigger: t}
  - {from: "\\"quoted\\" \\\\ back", to: "done \\u2028 ✓", trigger: t}
  - {from: "on", to: "on", trigger: stay}
invalid:
  - {from: "done \\u2028 ✓", to: __proto__, why: "done */ is final"}
  - {from: toString, to: constructor, why: "can't \\"reopen\\"\\nask </script> again"}
  - {from: "class", to: "class", why: "${why}"}
---

# Hostile
"""


@dataclass(frozen=True)
class Subject:
    name: str
    document: Document
    relative: str

    def module(self) -> str:
        return render_module(
            self.document.spec, relative=self.relative, sha256=document_sha256(self.document.source)
        )

    def test(self, module_import: str) -> str:
        return render_test(
            self.document.spec,
            relative=self.relative,
            sha256=document_sha256(self.document.source),
            module_import=module_import,
        )


def load(text: str | bytes, relative: str) -> Document:
    data = text.encode("utf-8") if isinstance(text, str) else text
    result = lint_bytes(data, relative)
    assert result.document is not None, [f.message for f in result.findings]
    return result.document


def subjects() -> dict[str, Subject]:
    """Name -> subject: both seeds and the hostile spec."""
    found = {
        path.stem.replace("-", "_"): Subject(
            path.stem.replace("-", "_"),
            load(path.read_bytes(), path.relative_to(ROOT).as_posix()),
            path.relative_to(ROOT).as_posix(),
        )
        for path in SEEDS
    }
    hostile = "specs/ts/hostile.md"
    found["hostile"] = Subject("hostile", load(HOSTILE, hostile), hostile)
    return found


def project_files(chosen: dict[str, Subject]) -> dict[str, str]:
    """``<name>/<name>.ts`` and ``<name>/<name>.test.ts`` for each subject."""
    files: dict[str, str] = {}
    for name, subject in chosen.items():
        files[f"{name}/{name}.ts"] = subject.module()
        files[f"{name}/{name}.test.ts"] = subject.test(f"./{name}.js")
    return files

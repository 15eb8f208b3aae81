"""Small documents for tests, with the line numbers a reader can count."""

from __future__ import annotations

from generator.lint import FileResult, lint_bytes

HEADER = """\
id: STATE-EX-DOR-001
title: Door
object: DOM-EX-DOR-001
product_area: example
module: doors
revision: 1
status: draft
"""
# HEADER fills lines 2-8 of a document; the first line after it is line 9.

DOOR = """\
initial: closed
states:
  - name: open
  - name: closed
transitions:
  - {from: open, to: closed, trigger: close}
  - {from: closed, to: open, trigger: open}
"""

DIAGRAM = """
## The Lifecycle

```mermaid
stateDiagram-v2
  [*] --> closed
  open --> closed
  closed --> open
```
"""


def document(front: str = DOOR, body: str = "\n# Door\n" + DIAGRAM, header: str = HEADER) -> str:
    return f"---\n{header}{front}---\n{body}"


def lint_text(text: str, path: str = "doc.md") -> FileResult:
    return lint_bytes(text.encode("utf-8"), path)


def codes(result: FileResult) -> list[str]:
    return [f.code for f in result.findings]


def at(result: FileResult, code: str) -> list[tuple[int, int]]:
    return sorted((f.line, f.column) for f in result.findings if f.code == code)

"""Small documents for tests, with the line numbers a reader can count."""

from __future__ import annotations

from generator.lint.document import FileResult, lint_bytes

# The explain examples' document: HEADER fills lines 2-8, so the first line after it is line 9.
from generator.rules.examples import DOOR, HEADER

__all__ = ["DIAGRAM", "DOOR", "HEADER", "at", "codes", "document", "lint_text"]

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

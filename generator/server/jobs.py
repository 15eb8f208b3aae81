"""The diagnostics job of the analysis process, and its warm-up."""

from __future__ import annotations

from lsprotocol import types

from generator.server.diagnostics import to_lsp
from generator.server.session import Session

#: A small valid document linted once at start-up, so the first keystroke finds every rule
#: module imported and every cache filled.
_WARM = """---
id: STATE-EX-WRM-001
title: Warm
object: DOM-EX-WRM-001
product_area: example
module: warm
revision: 1
status: draft
states:
- name: a
- name: b
transitions:
- {from: a, to: b, trigger: go}
---

# Warm

## The Lifecycle

```mermaid
stateDiagram-v2
  a --> b
```
"""


def diagnose(
    session: Session, uri: str
) -> tuple[int | None, list[types.Diagnostic], str | None, bool]:
    """(version, diagnostics, the document's id, whether that id differs from the last run's:
    then the other open documents' SD204 may have changed too)."""
    buffer = session.buffer(uri)
    before = session.last_ids.get(uri)
    outcome = session.outcome(uri, buffer)
    spec_id = outcome.facts.id if outcome.facts is not None else None
    session.last_ids[uri] = spec_id
    return (
        buffer.version,
        to_lsp(outcome, session.lines(buffer.text), uri),
        spec_id,
        before != spec_id,
    )


def warm(session: Session) -> None:
    from generator.lint.document import lint_bytes
    from generator.server.analysis import Analysis, load_document

    lint_bytes(_WARM.encode(), "warm.md")
    document = load_document(_WARM, "warm.md", len(_WARM) + 1)
    if document is not None:
        _ = Analysis(document).occurrences

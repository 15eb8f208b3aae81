"""Example documents for ``statedoc explain``: snippets become whole documents here.

A snippet that starts with ``---`` is a whole document already; any other snippet is front
matter that follows the usual header keys. Tests lint every rule's examples, so an explanation
can never show a "fixed" example that still fails.
"""

from __future__ import annotations

HEADER = """\
id: STATE-EX-DOR-001
title: Door
object: DOM-EX-DOR-001
product_area: example
module: doors
revision: 1
status: draft
"""

BODY = "\n# Door\n"

DOOR = """\
initial: closed
states:
  - name: open
  - name: closed
transitions:
  - {from: open, to: closed, trigger: close}
  - {from: closed, to: open, trigger: open}
"""


def document(snippet: str) -> str:
    """The whole document an example snippet stands for."""
    if snippet.startswith("---") or snippet.startswith("RAW:"):
        return snippet.removeprefix("RAW:")
    return f"---\n{HEADER}{snippet}---\n{BODY}"

"""Regenerate the Mermaid block inside a document, touching nothing else.

Pure: text in, text out. A block that draws the front matter's graph (whatever its ids,
order, labels or layout) is left alone byte for byte; a drifted block is redrawn keeping the
labels of edges that still exist; a missing block is inserted under ``## The Lifecycle``
(created after the first heading when missing). A block statedoc cannot read exactly
(SD302: composite states, syntax errors) is never overwritten: a person must decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.body import Fence
from generator.document import Document
from generator.source import BOM

DRIFT = ("SD303", "SD304", "SD305")
_HEADING = "The Lifecycle"


@dataclass(frozen=True)
class Edit:
    """The outcome for one document: new bytes (None when in sync) or why it was refused."""

    new: bytes | None = None
    refused: str | None = None


def _newline(text: str, at: int) -> str:
    end = text.find("\n", at)
    if end > 0 and text[end - 1] == "\r":
        return "\r\n"
    if end < 0 and "\r" in text:
        return "\r"
    return "\n" if end >= 0 or "\n" in text else ("\r" if "\r" in text else "\n")


def _render(doc: Document, labels: dict[tuple[str, str], str] | None, newline: str) -> str:
    from generator.mermaid.render import render_state_diagram

    spec = doc.spec
    text = render_state_diagram(
        spec.state_names,
        [t.pair for t in spec.transitions],
        spec.initial_states,
        spec.terminal_states,
        labels=labels,
    )
    return text.replace("\n", newline)


def _hits(doc: Document, codes: tuple[str, ...]) -> list[str]:
    from generator.rules import REGISTRY, all_rules

    all_rules()
    found: list[str] = []
    for code in codes:
        check = REGISTRY[code].check
        assert check is not None
        found.extend(hit.message for hit in check(doc))
    return found


def _encode(doc: Document, text: str) -> bytes:
    return ((BOM if doc.source.had_bom else "") + text).encode("utf-8")


def plan(doc: Document) -> Edit:
    """What ``diagram --write`` would do to this document."""
    text = doc.source.text
    fence = doc.body.mermaid
    if fence is None:
        return Edit(new=_encode(doc, _insert(doc)))
    if not fence.closed:
        # Everything after an unclosed fence is inside it: redrawing would swallow that text.
        return Edit(refused=f"the {fence.marker}mermaid block is never closed; close it first")
    problems = _hits(doc, ("SD302",))
    if problems:
        return Edit(
            refused=f"the diagram cannot be read exactly ({problems[0]}); fix or delete the block"
        )
    if not _hits(doc, DRIFT):
        return Edit()
    from generator.rules.diagram import parsed

    diagram = parsed(doc)
    labels = dict(diagram.labels) if diagram is not None else None
    block = _render(doc, labels, _newline(text, fence.start))
    return Edit(new=_encode(doc, _replace(text, fence, block)))


def _replace(text: str, fence: Fence, block: str) -> str:
    return text[: fence.content_start] + block + text[fence.content_end :]


def _insert(doc: Document) -> str:
    text = doc.source.text
    body = doc.body
    newline = _newline(text, doc.body_offset if doc.body_offset < len(text) else 0)
    block = f"```mermaid{newline}{_render(doc, None, newline)}```{newline}"
    section = next(
        (h for h in body.headings if h.level == 2 and h.text.casefold() == _HEADING.casefold()),
        None,
    )
    if section is not None:
        at, prefix = section.end, newline
        lead = "" if text[:at].endswith(("\n", "\r")) else newline
        rest = text[at:]
        tail = "" if rest.startswith(("\n", "\r")) or not rest else newline
        return text[:at] + lead + prefix + block + tail + rest
    if body.headings:
        at = body.headings[0].end
        lead = "" if text[:at].endswith(("\n", "\r")) else newline
        heading = f"{newline}## {_HEADING}{newline}{newline}"
        rest = text[at:]
        tail = "" if rest.startswith(("\n", "\r")) or not rest else newline
        return text[:at] + lead + heading + block + tail + rest
    at = doc.body_offset
    heading = f"## {_HEADING}{newline}{newline}"
    rest = text[at:]
    tail = newline if rest else ""
    return text[:at] + heading + block + tail + rest

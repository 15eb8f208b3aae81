"""Regenerate the Mermaid block inside a document, touching nothing else.

Pure: text in, text out. A block that draws the front matter's graph (whatever its ids,
order, labels or layout) is left alone byte for byte. A drifted block is edited line by line
in the author's style (:mod:`generator.diagram.edit`): lines of edges and states that went
away are removed and the missing ones appended, so a one-line spec change is a one-line
diagram change; where that is not possible the block is redrawn (bare ids where a name is a
valid Mermaid id, keeping the labels of edges that still exist). A missing block is inserted
under ``## The Lifecycle``. A block statedoc cannot read exactly (SD302: composite states,
syntax errors) is never overwritten: a person must decide.

Every result is linted before it is offered: a rewrite that lint would reject, or that adds
a finding of any code (SD206 after inserting a heading, SD302 for a diagram past Mermaid's
size limit ...), is refused with the reason in :attr:`Edit.refused`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from generator.load.markdown import LIFECYCLE, Fence
from generator.load.mermaid.model import START_END
from generator.load.source import BOM, decode
from generator.model.document import Document
from generator.model.spec import Spec

DRIFT = ("SD303", "SD304", "SD305")
#: What a rewritten document must not have at all: the findings a rewrite exists to repair.
REPAIRED = ("SD301", "SD302", *DRIFT)
_HEADING = LIFECYCLE


@dataclass(frozen=True)
class Edit:
    """The outcome for one document.

    ``new``: the new bytes (None when in sync or refused). ``refused``: why statedoc will not
    write the diagram, one sentence for the user (None when it can); callers report it as a
    finding of the document and must not write anything for it.
    """

    new: bytes | None = None
    refused: str | None = None


def _newline(text: str, at: int) -> str:
    end = text.find("\n", at)
    if end > 0 and text[end - 1] == "\r":
        return "\r\n"
    if end < 0 and "\r" in text:
        return "\r"
    return "\n" if end >= 0 or "\n" in text else ("\r" if "\r" in text else "\n")


def edges_of(doc: Document) -> list[tuple[str, str]]:
    """Every edge statedoc draws for the spec, in drawing order (``[*]`` for start/end)."""
    spec = doc.spec
    initial, terminal = set(spec.initial_states), set(spec.terminal_states)
    return (
        [(START_END, name) for name in spec.state_names if name in initial]
        + [t.pair for t in spec.transitions]
        + [(name, START_END) for name in spec.state_names if name in terminal]
    )


def event_labels(spec: Spec) -> list[str | None] | None:
    """One label per transition, its event, for a spec that names events (else None: the
    diagram is drawn exactly as before events existed)."""
    return [t.event for t in spec.transitions] if spec.events else None


def _render(doc: Document, labels: dict[tuple[str, str], str] | None, newline: str) -> str:
    from generator.diagram.writer import render_state_diagram

    spec = doc.spec
    known = set(edges_of(doc))  # labels of edges that went away stay behind with them
    kept = {key: label for key, label in (labels or {}).items() if key in known}
    text = render_state_diagram(
        spec.state_names,
        [t.pair for t in spec.transitions],
        spec.initial_states,
        spec.terminal_states,
        labels=kept,
        plain_ids=True,
        edge_labels=event_labels(spec),
    )
    return text.replace("\n", newline)


def _hits(doc: Document, codes: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """(code, message) of every document rule's hits (or only of ``codes``)."""
    from generator.rules import REGISTRY, document_checks

    rules = document_checks() if codes is None else (REGISTRY[code] for code in codes)
    found: list[tuple[str, str]] = []
    for rule in rules:
        assert rule.check is not None
        found.extend((rule.code, hit.message) for hit in rule.check(doc))
    return found


def _encode(doc: Document, text: str) -> bytes:
    return ((BOM if doc.source.had_bom else "") + text).encode("utf-8")


def plan(doc: Document) -> Edit:
    """What ``diagram --write`` would do to this document; never raises."""
    try:
        return _plan(doc)
    except Exception as exc:  # a bug in statedoc: refuse, never a traceback or a bad write
        return Edit(refused=f"statedoc could not redraw the diagram ({type(exc).__name__}: {exc})")


def _plan(doc: Document) -> Edit:
    text = doc.source.text
    fence = doc.body.mermaid
    if fence is None:
        return _checked(doc, [_insert(doc)])
    if not fence.closed:
        # Everything after an unclosed fence is inside it: redrawing would swallow that text.
        return Edit(refused=f"the {fence.marker}mermaid block is never closed; close it first")
    problems = _hits(doc, ("SD302",))
    if problems:
        why = problems[0][1]
        return Edit(refused=f"the diagram cannot be read exactly ({why}); fix or delete the block")
    if not _hits(doc, DRIFT):
        return Edit()
    from generator.diagram.edit import edit_lines
    from generator.rules.diagram import parsed

    diagram = parsed(doc)
    assert diagram is not None  # the fence exists
    newline = _newline(text, fence.start)
    candidates = []
    content = fence.content(text)
    # The line editor keeps one edge per pair; a spec with events draws one per event.
    edited = (
        None
        if doc.spec.events
        else edit_lines(content, diagram, doc.spec.state_names, edges_of(doc), newline)
    )
    if edited is not None:
        candidates.append(_replace(text, fence, edited))
    candidates.append(_replace(text, fence, _render(doc, dict(diagram.labels), newline)))
    return _checked(doc, candidates)


def _checked(doc: Document, candidates: list[str]) -> Edit:
    """The first candidate text that lints no worse than the document, else a refusal."""
    before = Counter(code for code, _ in _hits(doc))
    reason = "nothing to write"
    for text in candidates:
        data = _encode(doc, text)
        after = _hits(doc._replace(source=decode(data)))
        broken = next(((c, m) for c, m in after if c in REPAIRED), None)
        if broken is not None:
            reason = f"the diagram statedoc would write is rejected by {broken[0]}: {broken[1]}"
            continue
        counts = Counter(code for code, _ in after)
        added = next(((c, m) for c, m in after if counts[c] > before[c]), None)
        if added is not None:
            reason = f"writing the diagram would add {added[0]}: {added[1]}"
            continue
        return Edit(new=data)
    return Edit(refused=reason)


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
    # No heading at all: a new "## The Lifecycle" would become the first heading, which SD206
    # compares with the title. The block alone goes at the end of the body instead.
    rest = text[doc.body_offset :]
    if not rest.strip():  # nothing but the front matter: the block goes on a line of its own
        return text + ("" if text.endswith(("\n", "\r")) else newline) + block
    lead = "" if text.endswith(("\n", "\r")) else newline
    return text + lead + newline + block

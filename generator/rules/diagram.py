"""SD3xx: the Mermaid diagram in the body must show what the front matter says.

Drift compares meaning (states, edges, start/end markers), never text, so a hand-drawn diagram
with its own ids, order and labels is in sync as long as it draws the same graph. ``[*]``
markers are optional: a diagram that draws none is not checked for them (the first seed draws
none); one that draws any must draw all initial (or all terminal) states.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cached_property

from generator.core.findings import Severity
from generator.load.mermaid.display import display_name
from generator.load.mermaid.model import START_END, Diagram
from generator.load.mermaid.parse import parse_state_diagram
from generator.load.source import Span
from generator.model.document import Document
from generator.rules import Hit, rule
from generator.rules.examples import BODY, DOOR, HEADER

_FENCE = "```"
_DIAGRAM = (
    f"{_FENCE}mermaid\nstateDiagram-v2\n  [*] --> closed\n  open --> closed\n  closed --> open\n"
    f"{_FENCE}\n"
)


def _doc(diagram: str) -> str:
    return f"---\n{HEADER}{DOOR}---\n{BODY}\n## The Lifecycle\n\n{diagram}"


def _in_spec_names(diagram: Diagram, spec_names: tuple[str, ...]) -> Diagram:
    """The diagram with each displayed name replaced by the spec name that displays so.

    statedoc's renderer shows some names with stand-ins (a control character as its Control
    Picture, an empty name as the empty-set sign), so a diagram is compared with the spec by
    what Mermaid displays, never by raw text.
    """
    if all(name.isascii() and name.isprintable() and name for name in spec_names):
        return diagram  # printable ASCII is shown as written (no stand-in applies)
    shown = {display_name(name): name for name in spec_names}
    if all(shown_name == name for shown_name, name in shown.items()):
        return diagram

    def back(name: str) -> str:
        return name if name == START_END else shown.get(name, name)

    return diagram._replace(
        states=tuple(s._replace(name=back(s.name)) for s in diagram.states),
        edges=tuple(e._replace(src=back(e.src), dst=back(e.dst)) for e in diagram.edges),
    )


class _Located:
    """The parsed diagram of a document and the offset of its block (cached per document)."""

    def __init__(self, doc: Document) -> None:
        fence = doc.body.mermaid
        self.fence = fence
        self.diagram: Diagram | None = None
        if fence is not None:
            parsed = parse_state_diagram(fence.content(doc.source.text))
            self.diagram = _in_spec_names(parsed, doc.spec.state_names)
        self.source = doc.source  # not the document: it holds this in its memo (a cycle)

    def at(self, line: int, column: int) -> Span:
        """The rest of the statement from a 1-based position inside the block (the reader
        counts LF, CRLF and lone CR as line breaks, as SourceText does)."""
        assert self.fence is not None
        source = self.source
        first_line, first_column = source.position(self.fence.content_start)
        absolute = first_line + line - 1
        column = column + first_column - 1 if line == 1 else column
        start = source.offset(absolute, column)
        rest = source.line_text(absolute)[column - 1 :].rstrip()
        return Span(start, start + max(1, len(rest)))

    @cached_property
    def opening(self) -> Span:
        assert self.fence is not None
        line, _ = self.source.position(self.fence.start)
        return Span(self.fence.start, self.fence.start + len(self.source.line_text(line)))


def parsed(doc: Document) -> Diagram | None:
    """The document's parsed diagram (None when it has none), shared with ``diagram --write``."""
    return _located(doc).diagram


def _located(doc: Document) -> _Located:
    found = doc.memo.get("diagram")
    if not isinstance(found, _Located):
        found = doc.memo["diagram"] = _Located(doc)
    return found


def _readable(doc: Document) -> tuple[_Located, Diagram] | None:
    """The diagram for drift rules: none when missing or when SD302 says it cannot be read."""
    located = _located(doc)
    if located.diagram is None or not located.diagram.ok:
        return None
    return located, located.diagram


@rule(
    "SD301",
    "diagram-missing",
    "the body has no Mermaid state diagram",
    why="The diagram is how people read a lifecycle; `statedoc diagram --write` inserts one.",
    bad=_doc(""),
    good=_doc(_DIAGRAM),
    severity=Severity.WARNING,
)
def diagram_missing(doc: Document) -> Iterator[Hit]:
    if doc.body.mermaid is None:
        end = doc.source.text.find("\n", doc.body_offset)
        yield Hit(
            "the body has no ```mermaid stateDiagram-v2 block: run `statedoc diagram --write`",
            span=Span(doc.body_offset, end if end >= 0 else doc.body_offset),
        )


@rule(
    "SD302",
    "diagram-syntax",
    "the Mermaid block cannot be parsed",
    why="Mermaid silently draws a wrong graph for much broken input, so statedoc reports what "
    "it cannot read exactly instead of guessing.",
    bad=_doc(_DIAGRAM.replace("open --> closed", "open -> closed")),
    good=_doc(_DIAGRAM),
)
def diagram_syntax(doc: Document) -> Iterator[Hit]:
    located = _located(doc)
    if located.diagram is None:
        return
    for problem in located.diagram.problems:
        yield Hit(problem.message, span=located.at(problem.line, problem.column))


@rule(
    "SD303",
    "diagram-edge-drift",
    "an edge of the diagram is not a declared transition, or a transition is missing from it",
    why="A diagram that disagrees with the front matter misleads every reader; "
    "`statedoc diagram --write` redraws it, keeping the labels of edges that still exist. In a "
    "spec that names events every transition is one edge (the multiset of edges is compared).",
    bad=_doc(_DIAGRAM.replace("  closed --> open\n", "")),
    good=_doc(_DIAGRAM),
)
def diagram_edge_drift(doc: Document) -> Iterator[Hit]:
    readable = _readable(doc)
    if readable is None:
        return
    located, diagram = readable
    if doc.spec.events:
        yield from _edge_multiset_drift(doc, located, diagram)
        return
    names = set(doc.spec.state_names)
    declared = doc.spec.transition_pairs
    drawn: set[tuple[str, str]] = set()
    for edge in diagram.edges:
        if "[*]" in (edge.src, edge.dst):
            continue
        drawn.add((edge.src, edge.dst))
        if (edge.src, edge.dst) not in declared and edge.src in names and edge.dst in names:
            yield Hit(
                f"the diagram draws {edge.src!r} --> {edge.dst!r}, "
                "which is not a declared transition",
                span=located.at(edge.line, edge.column),
            )
    for item in doc.spec.transitions:
        if item.pair not in drawn:
            yield Hit(
                f"transition {item.from_state!r} -> {item.to_state!r} is missing from the diagram",
                span=located.opening,
                related=((doc.span(item.path), "declared here"),),
            )


def _edge_multiset_drift(doc: Document, located: _Located, diagram: Diagram) -> Iterator[Hit]:
    """SD303 for a spec that names events: each transition is one edge, so a pair is drawn
    exactly as many times as it is declared (one labelled edge per event). Only the counts
    decide; labels only say which transition a missing edge is (an edge labelled with an
    event stands for that event's transition)."""
    names = set(doc.spec.state_names)
    wanted = Counter(t.pair for t in doc.spec.transitions)
    left = Counter(wanted)
    labels: dict[tuple[str, str], Counter[str | None]] = {}
    for edge in diagram.edges:
        pair = (edge.src, edge.dst)
        if START_END in pair or edge.src not in names or edge.dst not in names:
            continue
        if left[pair] > 0:
            left[pair] -= 1
            drawn = labels.get(pair)
            if drawn is None:  # not setdefault: a Counter() per edge costs more than the rule
                drawn = labels[pair] = Counter()
            drawn[edge.label] += 1
            continue
        extra = (
            "is not a declared transition"
            if pair not in wanted
            else f"is declared {wanted[pair]} time(s): one edge per transition"
        )
        yield Hit(
            f"the diagram draws {edge.src!r} --> {edge.dst!r}, which {extra}",
            span=located.at(edge.line, edge.column),
        )
    unmatched = []
    for item in doc.spec.transitions:
        drawn = labels.get(item.pair)
        if drawn is not None and item.event is not None and drawn[item.event] > 0:
            drawn[item.event] -= 1
        else:
            unmatched.append(item)
    for item in reversed(unmatched):  # the edges left over stand for the first unmatched ones
        if left[item.pair] > 0:
            left[item.pair] -= 1
            what = "" if item.event is None else f" (event {item.event!r})"
            yield Hit(
                f"transition {item.from_state!r} -> {item.to_state!r}{what} is missing from "
                "the diagram",
                span=located.opening,
                related=((doc.span(item.path), "declared here"),),
            )


@rule(
    "SD304",
    "diagram-unknown-state",
    "the diagram names a state that is not declared",
    why="Usually a renamed state whose diagram was not updated.",
    bad=_doc(_DIAGRAM.replace("  closed --> open\n", "  closed --> open\n  open --> ajar\n")),
    good=_doc(_DIAGRAM),
)
def diagram_unknown_state(doc: Document) -> Iterator[Hit]:
    readable = _readable(doc)
    if readable is None:
        return
    located, diagram = readable
    names = set(doc.spec.state_names)
    for state in diagram.states:
        if state.name not in names:
            yield Hit(
                f"the diagram draws state {state.name!r}, which is not declared",
                span=located.at(state.line, state.column),
            )


@rule(
    "SD305",
    "diagram-start-end-drift",
    "`[*]` edges disagree with the initial or terminal states",
    why="`[*] --> x` says x is where the lifecycle starts and `x --> [*]` that it ends there; "
    "they must match `initial` (or the states nothing enters) and the states nothing leaves.",
    bad=_doc(_DIAGRAM.replace("[*] --> closed", "[*] --> open")),
    good=_doc(_DIAGRAM),
)
def diagram_start_end_drift(doc: Document) -> Iterator[Hit]:
    readable = _readable(doc)
    if readable is None:
        return
    located, diagram = readable
    names = set(doc.spec.state_names)
    checks = (
        ("start", diagram.starts, set(doc.spec.initial_states), "[*] --> {}", "initial"),
        ("end", diagram.ends, set(doc.spec.terminal_states), "{} --> [*]", "terminal"),
    )
    for _kind, drawn, wanted, shape, word in checks:
        if not drawn:
            continue  # this diagram does not draw these markers at all
        for edge in diagram.edges:
            name = edge.dst if edge.src == "[*]" else edge.src if edge.dst == "[*]" else None
            if name is None or (edge.src == "[*]") != (word == "initial"):
                continue
            if name in names and name not in wanted:
                yield Hit(
                    f"the diagram draws {shape.format(repr(name))}, but {name!r} is not {word}",
                    span=located.at(edge.line, edge.column),
                )
        missing = (wanted & names) - set(drawn)  # an undeclared initial state is SD112's
        for name in (n for n in doc.spec.state_names if n in missing):
            yield Hit(
                f"{word} state {name!r} has no {shape.format('')} edge in the diagram".replace(
                    "  ", " "
                ),
                span=located.opening,
            )


@rule(
    "SD306",
    "unclosed-fence",
    "a code fence in the body is never closed",
    why="An unclosed fence turns the rest of the document into code (CommonMark), so headings "
    "and text after it vanish from the page, and `diagram --write` cannot tell where the block "
    "ends. Close it with the same fence characters.",
    bad=_doc(_DIAGRAM[: -len(_FENCE) - 1]),
    good=_doc(_DIAGRAM),
)
def unclosed_fence(doc: Document) -> Iterator[Hit]:
    for fence in doc.body.fences:
        if not fence.closed:
            line, _ = doc.source.position(fence.start)
            width = len(doc.source.line_text(line))
            yield Hit(
                f"this {fence.marker} fence is never closed: everything after it is inside it; "
                f"add a closing {fence.marker} line",
                span=Span(fence.start, fence.start + max(1, width)),
            )


@rule(
    "SD307",
    "extra-state-diagram",
    "the body holds more than one Mermaid state diagram",
    why="statedoc checks one diagram against the front matter: the first in `## The Lifecycle` "
    "(or the first in the document). Another one is not checked and can silently disagree; "
    "delete it or draw it as another diagram type.",
    bad=_doc(_DIAGRAM + "\n" + _DIAGRAM.replace("open --> closed", "open --> open")),
    good=_doc(_DIAGRAM),
    severity=Severity.WARNING,
)
def extra_state_diagram(doc: Document) -> Iterator[Hit]:
    checked = doc.body.mermaid
    if checked is None:
        return
    line, _ = doc.source.position(checked.start)
    for fence in doc.body.state_diagrams:
        if fence is not checked:
            first, _ = doc.source.position(fence.start)
            width = len(doc.source.line_text(first))
            yield Hit(
                f"another state diagram: statedoc checks only the one on line {line} "
                "against the front matter",
                span=Span(fence.start, fence.start + max(1, width)),
            )

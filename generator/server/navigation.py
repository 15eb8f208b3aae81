"""Go to definition, find references and hover, for states and events.

A state's declaration is its ``states[].name``; an event has none, so its first use stands for
it. Hover shows a state's meaning and its transitions in and out (trigger, guard, who), or an
event's transitions.
"""

from __future__ import annotations

from lsprotocol import types

from generator.model.spec import Spec, Transition
from generator.server.analysis import DECLARATION, EVENT, STATE, Analysis, Occurrence
from generator.server.session import Session


def _under_cursor(
    session: Session, uri: str, version: int | None, position: types.Position
) -> tuple[Analysis, Occurrence] | None:
    analysis = session.analysis(uri, session.buffer(uri, version))
    if analysis is None:
        return None
    lines = session.lines(analysis.text)
    occurrence = analysis.at(lines.offset(position))
    return None if occurrence is None else (analysis, occurrence)


def _location(session: Session, uri: str, analysis: Analysis, o: Occurrence) -> types.Location:
    return types.Location(uri, session.lines(analysis.text).range(o.span))


def definition(
    session: Session, uri: str, version: int | None, params: types.DefinitionParams
) -> list[types.Location] | None:
    found = _under_cursor(session, uri, version, params.position)
    if found is None:
        return None
    analysis, occurrence = found
    named = analysis.named(occurrence.kind, occurrence.name)
    targets = [o for o in named if o.role == DECLARATION] or named[:1]
    return [_location(session, uri, analysis, o) for o in targets] or None


def references(
    session: Session, uri: str, version: int | None, params: types.ReferenceParams
) -> list[types.Location] | None:
    found = _under_cursor(session, uri, version, params.position)
    if found is None:
        return None
    analysis, occurrence = found
    keep = params.context.include_declaration
    return [
        _location(session, uri, analysis, o)
        for o in analysis.named(occurrence.kind, occurrence.name)
        if keep or o.role != DECLARATION
    ]


def _code(text: str) -> str:
    """Inline code that no backtick inside ``text`` can close early."""
    text = text.replace("\n", " ")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _plain(text: str) -> str:
    """Prose from the spec shown as text, not Markdown (no link, image or HTML it could hold)."""
    out = []
    for char in text.replace("\r", " ").replace("\n", " "):
        out.append("\\" + char if char in "\\`*_{}[]()<>#+-.!|~&" else char)
    return "".join(out)


def _transition(t: Transition) -> str:
    parts = [f"{_code(t.from_state)} → {_code(t.to_state)}"]
    if t.event:
        parts.append(f"on {_code(t.event)}")
    line = " ".join(parts) + f": {_plain(t.trigger)}"
    extra = [
        f"guard: {_plain(t.guard)}" if t.guard else "",
        f"who: {_plain(t.who)}" if t.who else "",
    ]
    extra = [e for e in extra if e]
    return f"- {line}" + (f" ({'; '.join(extra)})" if extra else "")


def _state_hover(spec: Spec, name: str) -> str:
    meaning = next((s.meaning for s in spec.states if s.name == name), None)
    lines = [f"**state** {_code(name)}"]
    if meaning:
        lines += ["", _plain(meaning)]
    marks = []
    if name in spec.initial_states:
        marks.append("initial")
    if name in spec.terminal_states:
        marks.append("terminal")
    if marks:
        lines += ["", f"*{', '.join(marks)}*"]
    into = [t for t in spec.transitions if t.to_state == name]
    out = [t for t in spec.transitions if t.from_state == name]
    for title, group in (("In", into), ("Out", out)):
        if group:
            lines += ["", f"**{title}:**", *(_transition(t) for t in group)]
    return "\n".join(lines)


def _event_hover(spec: Spec, name: str) -> str:
    group = [t for t in spec.transitions if t.event == name]
    return "\n".join([f"**event** {_code(name)}", "", *(_transition(t) for t in group)])


def hover(
    session: Session, uri: str, version: int | None, params: types.HoverParams
) -> types.Hover | None:
    found = _under_cursor(session, uri, version, params.position)
    if found is None:
        return None
    analysis, occurrence = found
    spec = analysis.document.spec
    if occurrence.kind == STATE:
        text = _state_hover(spec, occurrence.name)
    elif occurrence.kind == EVENT:
        text = _event_hover(spec, occurrence.name)
    else:  # pragma: no cover - every occurrence is one of the two
        return None
    lines = session.lines(analysis.text)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=lines.range(occurrence.span),
    )

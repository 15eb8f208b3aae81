"""Document symbols: the states, transitions and invalid pairs of the front matter, for an
editor's outline and breadcrumbs."""

from __future__ import annotations

from lsprotocol import types

from generator.load.source import Span
from generator.load.strict_yaml import Path
from generator.server.session import Session


def _group(
    name: str, span: Span, children: list[types.DocumentSymbol], session: Session, text: str
) -> types.DocumentSymbol:
    lines = session.lines(text)
    whole = lines.range(span)
    return types.DocumentSymbol(
        name=name,
        kind=types.SymbolKind.Namespace,
        range=whole,
        selection_range=whole,
        children=children,
    )


def document_symbols(
    session: Session, uri: str, version: int | None, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | None:
    analysis = session.analysis(uri, session.buffer(uri, version))
    if analysis is None:
        return None
    document = analysis.document
    spec, loaded, text = document.spec, document.loaded, analysis.text
    lines = session.lines(text)

    def symbol(
        name: str, kind: types.SymbolKind, item: Path, select: Path, detail: str | None = None
    ) -> types.DocumentSymbol:
        whole = loaded.span(item)
        chosen = loaded.span(select)
        if not (whole.start <= chosen.start and chosen.end <= whole.end):
            chosen = whole
        return types.DocumentSymbol(
            name=name or "(empty)",
            kind=kind,
            range=lines.range(whole),
            selection_range=lines.range(chosen),
            detail=detail,
        )

    groups = []
    states = [
        symbol(s.name, types.SymbolKind.EnumMember, s.path, (*s.path, "name"), s.meaning)
        for s in spec.states
    ]
    transitions = [
        symbol(
            f"{t.from_state} → {t.to_state}" + (f" ({t.event})" if t.event else ""),
            types.SymbolKind.Event,
            t.path,
            t.from_path,
            t.trigger,
        )
        for t in spec.transitions
    ]
    invalid = [
        symbol(f"{i.from_state} ↛ {i.to_state}", types.SymbolKind.Null, i.path, i.path, i.why)
        for i in spec.invalid
    ]
    for key, children in (("states", states), ("transitions", transitions), ("invalid", invalid)):
        if children:
            span = loaded.span((key,))
            start = loaded.key_span((key,)) or span
            groups.append(_group(key, Span(start.start, span.end), children, session, text))
    return groups

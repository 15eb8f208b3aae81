"""Rename a state everywhere in its document, as one edit.

Front matter values keep their quoting style where the new name allows it (plain, single or
double quoted). In the diagram, an alias (``state "name" as s1``) gets the new name inside its
quotes; a bare id becomes the new name where that is a bare id too, else a fresh alias
declared after the header, as ``diagram --write`` would add one. The result is checked before
it is offered: it must load as the same spec with the one name changed and draw the same
diagram, and it must not add a duplicate (SD101), an identifier collision (SD110) or a
confusable pair (SD113).
"""

from __future__ import annotations

import json
import re
from collections import Counter

from lsprotocol import types

from generator.diagram.writer import escape_name, fresh_alias, plain_id
from generator.lint.document import lint_bytes
from generator.load.source import Span
from generator.load.strict_yaml import resolve_plain
from generator.model.spec import Spec
from generator.server.analysis import (
    DIAGRAM_ID,
    DIAGRAM_NAME,
    STATE,
    Analysis,
    encode,
    load_document,
)
from generator.server.navigation import _under_cursor
from generator.server.session import RefusedError, Session

COLLISIONS = ("SD101", "SD110", "SD113")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*(?: [A-Za-z0-9_.\-]+)*")
_ESCAPES = {"\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P", "\ufeff": "\\ufeff"}
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)")


def _inner(text: str, span: Span) -> Span:
    if span.end - span.start >= 2 and text[span.start] in "'\"":
        return Span(span.start + 1, span.end - 1)
    return span


def prepare_rename(
    session: Session, uri: str, version: int | None, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | None:
    found = _under_cursor(session, uri, version, params.position)
    if found is None or found[1].kind != STATE:
        return None
    analysis, occurrence = found
    span = _inner(analysis.text, occurrence.span)
    return types.PrepareRenamePlaceholder(
        range=session.lines(analysis.text).range(span), placeholder=occurrence.name
    )


def scalar(original: str, name: str) -> str:
    """``name`` as a YAML scalar in the style of ``original`` where it allows."""
    if original[:1] in ("|", ">"):
        raise RefusedError("the state name is a block scalar; rename it by hand")
    if original[:1] == "'" and name.isprintable():
        return "'" + name.replace("'", "''") + "'"
    if original[:1] not in ("'", '"') and _PLAIN.fullmatch(name) and resolve_plain(name) == name:
        return name
    quoted = json.dumps(name, ensure_ascii=False)  # a JSON string is a YAML double-quoted one
    return "".join(_ESCAPES.get(char, char) for char in quoted)


def _front_edits(analysis: Analysis, old: str, new: str) -> list[tuple[Span, str]]:
    text = analysis.text
    return [
        (o.span, scalar(text[o.span.start : o.span.end], new))
        for o in analysis.named(STATE, old)
        if o.role not in (DIAGRAM_ID, DIAGRAM_NAME)
    ]


def _diagram_edits(analysis: Analysis, old: str, new: str) -> list[tuple[Span, str]]:
    found = [o for o in analysis.named(STATE, old) if o.role in (DIAGRAM_ID, DIAGRAM_NAME)]
    fence = analysis.fence
    if not found or fence is None:
        return []
    text = analysis.text
    edits = [(o.span, escape_name(new)) for o in found if o.role == DIAGRAM_NAME]
    bare = [
        o
        for o in found
        if o.role == DIAGRAM_ID and text[o.span.start : o.span.end] not in analysis.aliased
    ]
    if not bare:
        return edits
    taken = set(analysis.ids)
    if plain_id(new) and new not in taken:
        return edits + [(o.span, new) for o in bare]
    alias = fresh_alias(taken)
    content = text[fence.content_start : fence.content_end]
    lines = _LINE.findall(content)
    header = next((n for n, line in enumerate(lines) if line.strip()), None)
    if header is None:
        raise RefusedError("the diagram has no header line to declare the new name after")
    at = fence.content_start + sum(len(line) for line in lines[: header + 1])
    newline = lines[header][len(lines[header].rstrip("\r\n")) :] or "\n"
    edges = [line for line in lines[header + 1 :] if line.strip()]
    sample = edges[0] if edges else "  "
    indent = sample[: len(sample) - len(sample.lstrip(" \t"))] or "  "
    declaration = f'{indent}state "{escape_name(new)}" as {alias}{newline}'
    return [*edits, (Span(at, at), declaration), *((o.span, alias) for o in bare)]


def _apply(text: str, edits: list[tuple[Span, str]]) -> str:
    out, last = [], 0
    for span, replacement in sorted(edits, key=lambda e: (e[0].start, e[0].end)):
        if span.start < last:
            raise RefusedError("the rename would edit one place twice; rename it by hand")
        out.append(text[last : span.start])
        out.append(replacement)
        last = span.end
    out.append(text[last:])
    return "".join(out)


def _mapped(spec: Spec, old: str, new: str) -> tuple[object, ...]:
    def m(name: str) -> str:
        return new if name == old else name

    return (
        [m(s.name) for s in spec.states],
        [(m(t.from_state), m(t.to_state), t.event) for t in spec.transitions],
        [(m(i.from_state), m(i.to_state)) for i in spec.invalid],
        None if spec.initial is None else [m(n) for n in spec.initial],
    )


def _shape(spec: Spec) -> tuple[object, ...]:
    return _mapped(spec, "\x00", "\x00")


def _drawn(analysis: Analysis, old: str, new: str) -> tuple[object, ...] | None:
    diagram = analysis.diagram
    if diagram is None:
        return None

    def m(name: str) -> str:
        return new if name == old else name

    return (  # states as a set: a declaration added after the header draws them in another order
        sorted({m(s.name) for s in diagram.states}),
        [(m(e.src), m(e.dst), e.label) for e in diagram.edges],
        diagram.ok,
    )


def _check(analysis: Analysis, candidate: str, old: str, new: str, max_size: int) -> None:
    document = load_document(candidate, analysis.document.path, max_size)
    if document is None:
        raise RefusedError("the renamed document would not load; rename it by hand")
    after = Analysis(document)
    same = _shape(document.spec) == _mapped(analysis.document.spec, old, new) and _drawn(
        after, new, new
    ) == _drawn(analysis, old, new)
    if not same:
        raise RefusedError(
            f"statedoc could not rename {old!r} safely in this document; do it by hand"
        )
    before = Counter(f.code for f in lint_bytes(encode(analysis.text), "x").findings)
    for finding in lint_bytes(encode(candidate), "x").findings:
        if finding.code in COLLISIONS and before[finding.code] > 0:
            before[finding.code] -= 1
        elif finding.code in COLLISIONS:
            raise RefusedError(f"{new!r} collides: {finding.code} {finding.message}")


def rename(
    session: Session, uri: str, version: int | None, params: types.RenameParams
) -> types.WorkspaceEdit | None:
    found = _under_cursor(session, uri, version, params.position)
    if found is None or found[1].kind != STATE:
        raise RefusedError("put the cursor on a state name to rename it")
    analysis, occurrence = found
    old, new = occurrence.name, params.new_name
    if new == old:
        return None
    if not new or any(char in new for char in "\r\n"):
        raise RefusedError("a state name must be one non-empty line")
    if new in analysis.document.spec.state_names:
        raise RefusedError(f"a state named {new!r} already exists (SD101 duplicate-state)")
    edits = _front_edits(analysis, old, new) + _diagram_edits(analysis, old, new)
    _check(analysis, _apply(analysis.text, edits), old, new, session.max_file_size(uri))
    lines = session.lines(analysis.text)
    text_edits = [types.TextEdit(lines.range(span), text) for span, text in edits]
    return workspace_edit(session, uri, version, text_edits)


def workspace_edit(
    session: Session, uri: str, version: int | None, edits: list[types.TextEdit]
) -> types.WorkspaceEdit:
    """Edits of one document, versioned where the client takes that (a stale edit is then
    refused by the client instead of landing in the wrong place)."""
    if session.document_changes:
        document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(document, edits)])
    return types.WorkspaceEdit(changes={uri: edits})

"""Bring a hand-written diagram in line with the spec by editing its lines, not redrawing it.

Why: a redraw replaces the author's ids, order, layout and labels, so a one-line spec change
became a whole-block diff. Here lines that draw an edge or a state that went away are removed
and what is missing is appended after the last edge, in the block's own style: the ids it
already uses, a bare id where the name is one (:func:`plain_id`), an alias only where needed,
its indentation and line breaks. Anything this cannot do safely (several statements on a
line, a header that holds statements) returns None and the caller redraws; the caller also
re-lints the result, so a wrong guess here is never written.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from generator.load.mermaid.model import START_END, Diagram

from .writer import escape_name, fresh_alias, plain_id

__all__ = ["edit_lines"]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # the reader's LF, CRLF and CR
_ALIAS = re.compile(r'\s*state\s+"[^"]*"\s+as\s+([^\s:;{}"]+)\s*(?::[^;]*)?\Z')
_BARE = re.compile(r'\s*([^\s:;{}"]+)\s*(?::[^;]*)?\Z')  # `id`, or `id : description`


def edit_lines(
    content: str,
    diagram: Diagram,
    names: Sequence[str],
    wanted: Sequence[tuple[str, str]],
    newline: str,
) -> str | None:
    """``content`` (a block's text) edited to draw ``wanted`` over ``names``, or None.

    ``diagram`` is ``content`` as read, with display names mapped to the spec's names;
    ``wanted`` lists every edge in drawing order, ``[*]`` for start/end (start and end edges
    are only added to a diagram that already draws some).
    """
    lines = _LINE.findall(content)
    header = next((n for n, line in enumerate(lines, 1) if line.strip()), 0)
    if not header or lines[header - 1].strip() not in ("stateDiagram-v2", "stateDiagram"):
        return None
    found = _dropped(lines, diagram, set(names), set(wanted))
    if found is None:
        return None
    drop, kept = found
    missing = [
        (src, dst)
        for src, dst in wanted
        if (src, dst) not in kept
        and (src != START_END or any(edge.src == START_END for edge in diagram.edges))
        and (dst != START_END or any(edge.dst == START_END for edge in diagram.edges))
    ]
    statements = _statements(diagram, missing)
    kept_lines = [edge.line for edge in diagram.edges if edge.line not in drop]
    dropped_lines = [edge.line for edge in diagram.edges if edge.line in drop]
    # After the last edge that stays, else where the first edge that went was, else the header.
    after = max(kept_lines) if kept_lines else min(dropped_lines, default=header + 1) - 1
    sample = lines[min(kept_lines + dropped_lines) - 1] if diagram.edges else "  "
    indent = sample[: len(sample) - len(sample.lstrip(" \t"))] or "  "
    out: list[str] = []
    for number, line in enumerate(lines, start=1):
        if number not in drop:
            out.append(line)
        if number == after:
            if not line.endswith(("\n", "\r")):
                return None
            out.extend(f"{indent}{statement}{newline}" for statement in statements)
    return "".join(out)


def _dropped(
    lines: list[str], diagram: Diagram, known: set[str], wanted: set[tuple[str, str]]
) -> tuple[set[int], set[tuple[str, str]]] | None:
    """Line numbers to remove and the edges that stay; None when a line holds more."""
    per_line = Counter(edge.line for edge in diagram.edges)
    drop: set[int] = set()
    kept: set[tuple[str, str]] = set()
    for edge in diagram.edges:
        key = (edge.src, edge.dst)
        if key in wanted or key == (START_END, START_END):
            kept.add(key)
            continue
        if per_line[edge.line] != 1 or ";" in lines[edge.line - 1]:
            return None
        drop.add(edge.line)
    name_of = {state.id: state.name for state in diagram.states}
    for number, line in enumerate(lines, start=1):
        if number in drop or per_line[number]:
            continue
        body = line.rstrip("\r\n")
        match = _ALIAS.match(body) or _BARE.match(body)
        state = None if match is None else match.group(1)
        if state in name_of and name_of[state] not in known:  # a state not in the spec
            drop.add(number)
    return drop, kept


def _statements(diagram: Diagram, missing: list[tuple[str, str]]) -> list[str]:
    """The lines to add: an alias for each new name that needs one, then the missing edges.

    A state that is in the spec but drawn nowhere is not added: the drift rules compare
    edges, and a diff should only show what the spec change asks for.
    """
    ids = {state.name: state.id for state in reversed(diagram.states)}
    ids[START_END] = START_END
    taken = {state.id for state in diagram.states}
    declarations: list[str] = []
    for name in dict.fromkeys(name for key in missing for name in key):
        if name in ids:
            continue
        if plain_id(name) and name not in taken:
            ids[name] = name
        else:
            ids[name] = fresh_alias(taken)
            declarations.append(f'state "{escape_name(name)}" as {ids[name]}')
        taken.add(ids[name])
    return declarations + [f"{ids[src]} --> {ids[dst]}" for src, dst in missing]

"""Completion: state names where a state is expected, event names, front matter keys and enum
values from the JSON Schema, state ids in the Mermaid block.

Completion happens while the text is half written, so the place is read from the line around
the cursor and the indentation above it, never from a parse of the whole document; the names
come from the document's last version that loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from lsprotocol import types

from generator.load import frontmatter
from generator.load.markdown import Body
from generator.server.analysis import Analysis
from generator.server.positions import Lines
from generator.server.session import Buffer, Session

#: Keys whose value names a state (``state``/``to`` of ``retired`` too) or an event.
STATE_KEYS = frozenset(("from", "to", "initial", "state"))
EVENT_KEYS = frozenset(("event",))
_ITEM_LISTS = {"states": "state", "transitions": "transition", "invalid": "invalid"}
_VALUE = re.compile(r"(?:^|[\s{,])([A-Za-z_]+)\s*:\s*(?:\[(?:[^\],\[]*,)*)?\s*([^\s,\[\]{}:'\"]*)$")
_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_]*)$")
_FLOW_KEY = re.compile(r"[{,]\s*([A-Za-z_]*)$")
_KEY_LINE = re.compile(r"^(\s*)(?:-\s+)?([A-Za-z_]+)\s*:")
_WORD = re.compile(r"[^\s:\-{}]*$")


@cache
def _schema() -> dict[str, Any]:
    from generator.load.schema import schema

    return schema()


def _resolve(node: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found = _schema().get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
        return _resolve(found) if isinstance(found, Mapping) else {}
    return node


def _properties(parent: str | None) -> Mapping[str, Any]:
    """The properties of the mapping under top-level key ``parent`` (None: the top level)."""
    root = _schema()
    if parent is None:
        found = root.get("properties", {})
        return found if isinstance(found, Mapping) else {}
    node = _resolve(root.get("properties", {}).get(parent, {}))
    if node.get("type") == "array" or "items" in node:
        node = _resolve(node.get("items", {}))
    found = node.get("properties", {})
    return found if isinstance(found, Mapping) else {}


def _values(node: Mapping[str, Any]) -> list[str]:
    node = _resolve(node)
    if isinstance(node.get("enum"), list):
        return [str(v) for v in node["enum"]]
    if node.get("type") == "boolean":
        return ["true", "false"]
    return []


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _parent(lines: Lines, index: int, nested: bool) -> str | None:
    """The top-level key whose block holds line ``index`` (None when the line is a top-level
    key itself): the nearest line above at indentation 0 that is not a list item."""
    if not nested:
        return None
    for above in range(index - 1, -1, -1):
        line = lines.line(above)
        if not line.strip() or _indent(line) > 0 or line.startswith(("-", "#")):
            continue
        match = _KEY_LINE.match(line)
        return match.group(2) if match is not None else None
    return None


def _list_key(lines: Lines, index: int, indent: int) -> str | None:
    """The key of the block list an item line (``  - x``) at ``indent`` belongs to."""
    for above in range(index - 1, -1, -1):
        line = lines.line(above)
        if not line.strip() or (_indent(line) == indent and line.lstrip().startswith("-")):
            continue
        match = _KEY_LINE.match(line)
        if _indent(line) <= indent and match is not None and line.rstrip().endswith(":"):
            return match.group(2)
        return None
    return None


def _names(
    session: Session, uri: str, buffer: Buffer
) -> tuple[Analysis | None, list[tuple[str, str | None]]]:
    analysis = session.analysis(uri, buffer) or session.last_good.get(uri)
    if analysis is None:
        return None, []
    return analysis, [(s.name, s.meaning) for s in analysis.document.spec.states]


def _edit(lines: Lines, offset: int, typed: str, new_text: str) -> types.TextEdit:
    return types.TextEdit(
        types.Range(lines.position(offset - len(typed)), lines.position(offset)), new_text
    )


def _state_items(
    names: list[tuple[str, str | None]], lines: Lines, offset: int, typed: str
) -> Iterator[types.CompletionItem]:
    from generator.server.rename import scalar

    for name, meaning in dict((n, m) for n, m in names).items():
        yield types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.EnumMember,
            detail=meaning,
            text_edit=_edit(lines, offset, typed, scalar("", name)),
        )


def _items(
    labels: list[tuple[str, str | None]],
    kind: types.CompletionItemKind,
    lines: Lines,
    offset: int,
    typed: str,
    suffix: str = "",
) -> list[types.CompletionItem]:
    return [
        types.CompletionItem(
            label=label,
            kind=kind,
            detail=detail,
            text_edit=_edit(lines, offset, typed, label + suffix),
        )
        for label, detail in labels
    ]


def _front(
    session: Session, uri: str, buffer: Buffer, lines: Lines, offset: int, index: int, prefix: str
) -> list[types.CompletionItem]:
    analysis, names = _names(session, uri, buffer)
    nested = _indent(prefix) > 0 or prefix.startswith("-")
    value = _VALUE.search(prefix)
    item = re.match(r"^(\s*)-\s+([^\s,\[\]{}:'\"#]*)$", prefix)
    if value is None and item is not None:
        key = _list_key(lines, index, len(item.group(1)))
        if key in STATE_KEYS:
            return list(_state_items(names, lines, offset, item.group(2)))
    if value is not None:
        key, typed = value.group(1), value.group(2)
        if key in STATE_KEYS:
            return list(_state_items(names, lines, offset, typed))
        if key in EVENT_KEYS:
            events = analysis.document.spec.events if analysis is not None else ()
            return _items(
                [(e, None) for e in events], types.CompletionItemKind.Event, lines, offset, typed
            )
        node = _properties(_parent(lines, index, nested)).get(key)
        values = _values(node) if isinstance(node, Mapping) else []
        return _items(
            [(v, None) for v in values], types.CompletionItemKind.Value, lines, offset, typed
        )
    flow = _FLOW_KEY.search(prefix)
    block = _KEY.match(prefix)
    if flow is not None:
        typed, parent = flow.group(1), _parent(lines, index, True)
    elif block is not None:
        typed, parent = block.group(3), _parent(lines, index, nested)
    else:
        return []
    if parent is not None and parent not in _ITEM_LISTS and parent not in ("storage", "retired"):
        return []
    keys = [
        (name, str(node.get("description", "")) or None if isinstance(node, Mapping) else None)
        for name, node in _properties(parent).items()
    ]
    return _items(keys, types.CompletionItemKind.Property, lines, offset, typed, ": ")


def _diagram(
    session: Session, uri: str, buffer: Buffer, lines: Lines, offset: int, prefix: str
) -> list[types.CompletionItem]:
    from generator.diagram.writer import plain_id

    analysis, names = _names(session, uri, buffer)
    typed = _WORD.search(prefix)
    word = typed.group() if typed is not None else ""
    items: dict[str, types.CompletionItem] = {}
    ids = analysis.ids if analysis is not None else {}
    for diagram_id, name in ids.items():
        items[diagram_id] = types.CompletionItem(
            label=diagram_id,
            kind=types.CompletionItemKind.EnumMember,
            detail=name if name != diagram_id else None,
            text_edit=_edit(lines, offset, word, diagram_id),
        )
    for name, meaning in names:
        if name not in items and name not in ids.values() and plain_id(name):
            items[name] = types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.EnumMember,
                detail=meaning,
                text_edit=_edit(lines, offset, word, name),
            )
    return list(items.values())


def complete(
    session: Session, uri: str, version: int | None, params: types.CompletionParams
) -> types.CompletionList | None:
    buffer = session.buffer(uri, version)
    text = buffer.text
    lines = session.lines(text)
    offset = lines.offset(params.position)
    index = min(params.position.line, len(lines.starts) - 1)
    prefix = text[lines.starts[index] : offset]
    try:
        split = frontmatter.split(text)
        front_end, body = split.yaml_offset + len(split.yaml_text), split.body_offset
    except frontmatter.SplitError:
        if not text.lstrip("\ufeff").startswith("---"):
            return None
        front_end, body = len(text), len(text)  # unclosed: all of it is front matter
    if index > 0 and offset <= front_end:
        items = _front(session, uri, buffer, lines, offset, index, prefix)
    else:
        fence = next(
            (
                f
                for f in Body(text, body).fences
                if f.info == "mermaid" and f.content_start <= offset <= f.content_end
            ),
            None,
        )
        items = _diagram(session, uri, buffer, lines, offset, prefix) if fence is not None else []
    return types.CompletionList(is_incomplete=False, items=items)

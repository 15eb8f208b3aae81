"""Plain YAML scalars, and the quick path of :mod:`.strict_yaml`: values without spans.

Most front matter uses none of what the strict loader checks for (tags, anchors, repeated or
non-string keys, several documents). For those, building every value's path and span was half
the cost of loading, and a clean document never reads them: :func:`quick_load` builds the
values and records only the start and end of each node, which :func:`spans_from_marks` turns
into spans when a finding needs one. At the first event the strict loader would have to judge,
the quick path gives up and that loader decides, so every problem comes from it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import yaml

from generator.load.source import Span

_Path = tuple[str | int, ...]  # strict_yaml.Path (that module imports this one)
#: A quick load: the values, the spans and key spans of the top level, the marks of every node.
Quick = tuple[object, dict[_Path, Span], dict[_Path, Span], Sequence[int]]

_NULL = re.compile(r"~|null|Null|NULL|")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_INT10 = re.compile(r"[-+]?[0-9]+")
_INT8 = re.compile(r"0o[0-7]+")
_INT16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_MAX_INT_DIGITS = 4000
_SCALAR_EVENT = yaml.ScalarEvent
_OPENING = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSING = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class _TooLargeError(Exception):
    pass


_WORDS: dict[str, object] = {
    "~": None,
    "null": None,
    "Null": None,
    "NULL": None,
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_NUMERIC_START = frozenset("0123456789+-.")


def resolve_plain(text: str) -> object:
    """The YAML 1.2 core schema for a plain scalar: null, bool, int, float, else str."""
    if not text:
        return None
    if text[0] not in _NUMERIC_START:  # most scalars are words and sentences: no regex
        return _WORDS.get(text, text)
    if _NULL.fullmatch(text):
        return None
    if _TRUE.fullmatch(text):
        return True
    if _FALSE.fullmatch(text):
        return False
    if _INT10.fullmatch(text):
        if len(text) > _MAX_INT_DIGITS:
            raise _TooLargeError(text)
        return int(text, 10)
    if _INT8.fullmatch(text):
        return int(text[2:], 8)
    if _INT16.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


def open_loader(text: str) -> yaml.CSafeLoader | yaml.SafeLoader:
    return yaml.CSafeLoader(text) if yaml.__with_libyaml__ else yaml.SafeLoader(text)


def quick_load(text: str, offset: int, max_depth: int) -> Quick | None:
    """The values of a front matter that needs none of the builder's checks, the spans of its
    top level, and the marks of every node (see :func:`spans_from_marks`); None at the first
    event the builder would have to judge (a tag, anchor or alias, a key that is not a new
    string, a collection as a key, a second document, the depth cap, a syntax error)."""
    loader = open_loader(text)
    marks: list[int] = []
    try:
        root, spans, key_spans = _quick_walk(loader.get_event, offset, max_depth, marks)
    except (yaml.YAMLError, RecursionError, _TooLargeError, _NeedsBuilderError):
        return None
    finally:
        loader.dispose()
    return None if root is None else (root, spans, key_spans, marks)


def spans_from_marks(
    value: object, marks: Sequence[int], offset: int
) -> tuple[dict[_Path, Span], dict[_Path, Span]] | None:
    """Every value's and key's span, in the builder's order (a collection after its contents,
    a key with its value), from the start and end of each node that :func:`_quick_walk`
    recorded in that order; None when the values do not use up the marks exactly."""
    spans: dict[_Path, Span] = {}
    key_spans: dict[_Path, Span] = {}
    try:
        _place(value, (), iter(marks).__next__, offset, spans, key_spans)
    except StopIteration:
        return None
    if 2 * (len(spans) + len(key_spans)) != len(marks):
        return None
    return spans, key_spans


def _place(
    node: object,
    path: _Path,
    take: Callable[[], int],
    offset: int,
    spans: dict[_Path, Span],
    key_spans: dict[_Path, Span],
) -> None:
    """:func:`spans_from_marks` for one node (a function of its own: a recursive closure
    would be a reference cycle that keeps every span alive until the collector runs)."""
    if isinstance(node, dict):
        for key, child in node.items():
            key_span = Span(offset + take(), offset + take())
            _place(child, (*path, key), take, offset, spans, key_spans)
            key_spans[(*path, key)] = key_span
    elif isinstance(node, list):
        for index, child in enumerate(node):
            _place(child, (*path, index), take, offset, spans, key_spans)
    spans[path] = Span(offset + take(), offset + take())


class _NeedsBuilderError(Exception):
    pass


def _quick_walk(
    get_event: Callable[[], Any], offset: int, max_depth: int, marks: list[int]
) -> tuple[object, dict[_Path, Span], dict[_Path, Span]]:
    """:func:`quick_load`'s loop: the builder's value steps without its checks and paths. Each
    node's start and end go to ``marks``, a scalar's at once, a collection's at its end (the
    order in which the builder adds spans)."""
    stack: list[Any] = []  # open collections
    keys: list[str | None] = []  # for each, the key waiting for its value
    starts: list[int] = []
    spans: dict[_Path, Span] = {}
    key_spans: dict[_Path, Span] = {}
    root, span_of = None, tuple.__new__
    while (event := get_event()) is not None:
        kind = type(event)
        if kind is _SCALAR_EVENT:
            if event.anchor is not None or event.tag is not None or not stack:
                raise _NeedsBuilderError
            value = event.value
            if event.implicit[0]:  # as resolve_plain, without its call for words
                numeric = not value or value[0] in _NUMERIC_START
                value = resolve_plain(value) if numeric else _WORDS.get(value, value)
            marks += (event.start_mark.index, event.end_mark.index)
        elif kind in _OPENING:
            if (
                event.anchor is not None
                or event.tag is not None
                or len(stack) >= max_depth
                or (stack and keys[-1] is None and type(stack[-1]) is dict)  # a key
            ):
                raise _NeedsBuilderError
            stack.append({} if kind is yaml.MappingStartEvent else [])
            keys.append(None)
            starts.append(event.start_mark.index)
            continue
        elif kind in _CLOSING:
            value, _ = stack.pop(), keys.pop()
            marks += (starts.pop(), event.end_mark.index)
            if not stack:
                root = value
                spans[()] = span_of(Span, (offset + marks[-2], offset + marks[-1]))
                continue
        else:  # every document has a node, so a document start after one is a second document
            if kind is yaml.AliasEvent or (kind is yaml.DocumentStartEvent and root is not None):
                raise _NeedsBuilderError
            continue
        container, key = stack[-1], keys[-1]
        at: str | int  # where the value goes (its path, if it is at the top level)
        if type(container) is list:
            place, at = spans, len(container)
            container.append(value)
        elif key is None:
            if type(value) is not str or value in container:
                raise _NeedsBuilderError  # not a string, or a duplicate key
            keys[-1] = value
            place, at = key_spans, value
        else:
            container[key], keys[-1] = value, None
            place, at = spans, key
        if len(stack) == 1:  # the top level keeps its spans (the value's marks are the last two)
            place[(at,)] = span_of(Span, (offset + marks[-2], offset + marks[-1]))
    return root, spans, key_spans

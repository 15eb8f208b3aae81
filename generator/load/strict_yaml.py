"""Strict YAML: libyaml events -> plain Python values plus the span of every node.

Built from the event stream rather than ``yaml.load`` so that one pass can enforce what a spec
format needs and PyYAML does not: YAML 1.2 core scalars (``on``/``no`` stay strings, dates stay
strings, ``0755`` is 755), duplicate keys with both positions, no anchors or aliases (a
billion-laughs file is rejected before anything expands), no foreign tags, string keys only, and
a nesting cap that stops a 20,000-deep document early. Offsets are ``mark.index`` (code points),
never ``mark.line``, which drifts at U+2028.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import yaml

from generator.load.plain_yaml import (
    _TooLargeError,
    open_loader,
    quick_load,
    spans_from_marks,
)
from generator.load.plain_yaml import resolve_plain as resolve_plain  # noqa: PLC0414 - re-export
from generator.load.source import Span

Path = tuple[str | int, ...]

MAX_DEPTH = 64
_STR_TAGS = {None, "!", "tag:yaml.org,2002:str"}
_SEQ_TAGS = {None, "!", "tag:yaml.org,2002:seq"}
_MAP_TAGS = {None, "!", "tag:yaml.org,2002:map"}

_COMPLEX = "\x00complex"  # the key of a value that is not kept (complex or repeated key)


class Problem(NamedTuple):
    """A loading error with its code (SD003, SD004 or SD005) and file-offset span."""

    code: str
    span: Span
    message: str
    related: tuple[tuple[Span, str], ...] = ()


class Loaded:
    """The front matter as plain values, and where each value and key stands in the file.

    A plain front matter is loaded without spans below the top level (a clean document never
    asks for them, and they were half the cost of loading, see :mod:`.plain_yaml`); ``spans``
    and ``key_spans`` are made the first time they are read, by loading ``pending`` (the text,
    offset and depth cap) again: from a fresh load, not from ``value``, which a caller may
    have changed since, so they always describe the text."""

    __slots__ = ("_key_spans", "_pending", "_spans", "value")
    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __init__(
        self,
        value: object,
        spans: dict[Path, Span] | None = None,
        key_spans: dict[Path, Span] | None = None,
        pending: tuple[str, int, int] | None = None,
    ) -> None:
        self.value = value
        self._spans = {} if spans is None else spans  # top level only while pending
        self._key_spans = {} if key_spans is None else key_spans
        self._pending = pending

    @property
    def spans(self) -> dict[Path, Span]:
        self._complete()
        return self._spans

    @property
    def key_spans(self) -> dict[Path, Span]:
        self._complete()
        return self._key_spans

    def _complete(self) -> None:
        """Fill the spans from the marks of a fresh quick load of the same text (the builder's
        walk if that ever declined)."""
        if self._pending is None:
            return
        text, offset, max_depth = self._pending
        quick = quick_load(text, offset, max_depth)
        found = None if quick is None else spans_from_marks(quick[0], quick[3], offset)
        if found is None:
            builder = _Builder(offset, max_depth)
            loader = open_loader(text)
            try:
                builder.walk(loader.get_event)
            finally:
                loader.dispose()
            found = builder.result.spans, builder.result.key_spans
        self._spans, self._key_spans = found
        self._pending = None

    def key_span(self, path: Path) -> Span | None:
        """The span of the key of the value at ``path``, if a mapping holds it (a top-level
        key's without completing the spans: most findings on keys are there)."""
        spans = self._key_spans if len(path) <= 1 else self.key_spans
        return spans.get(path)

    def span(self, path: Path) -> Span:
        """The span of the value at ``path``, or of its nearest ancestor that exists."""
        spans = self._spans if len(path) <= 1 else self.spans  # the top level is always there
        while path not in spans and path:
            path = path[:-1]
        return spans.get(path, Span(0, 0))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Loaded):
            return NotImplemented
        return (self.value, self.spans, self.key_spans) == (
            other.value,
            other.spans,
            other.key_spans,
        )

    def __repr__(self) -> str:
        return f"Loaded(value={self.value!r}, spans={self.spans!r}, key_spans={self.key_spans!r})"


class Scalars:
    """The file span of every scalar (keys too), in document order, and whether the whole text
    was parsed. Outside these spans a ``#`` after a blank starts a comment: that is how inline
    ignores are told from text, since libyaml reports no comments."""

    __slots__ = ("complete", "spans")

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.complete = False


class _Frame:
    __slots__ = ("container", "dead", "key", "key_span", "path", "seen", "start")

    def __init__(
        self,
        container: dict[str, object] | list[object],
        path: Path,
        start: int,
        *,
        dead: bool = False,  # a complex key: its contents are not kept
    ) -> None:
        self.container = container
        self.path = path
        self.start = start
        self.key: str | None = None
        self.key_span: Span | None = None
        self.seen: dict[str, Span] = {}
        self.dead = dead


def _error_index(exc: yaml.YAMLError, text: str, c_reader: bool) -> tuple[int, str]:
    """Where the parser stopped, as a code-point offset into ``text``, and why."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(p for p in (exc.context, exc.problem) if p) or str(exc)
        index = mark.index if mark is not None else 0
        return index, message + _hint(text, index, message)
    if isinstance(exc, yaml.reader.ReaderError):
        index = exc.position
        if c_reader:  # libyaml's reader reports a byte offset into the UTF-8 encoding
            index = len(text.encode("utf-8")[:index].decode("utf-8", "ignore"))
        return index, f"unacceptable character #x{exc.character:04x}: {exc.reason}"
    return 0, str(exc).strip()


def _hint(text: str, index: int, message: str) -> str:
    """A plain-words hint for the mistakes YAML's own messages do not name."""
    index = max(0, min(index, len(text)))
    start = max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1
    line = text[start:index]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if text[index : index + 1] == "\t" or "\t" in indent:
        return " (a tab character: YAML forbids tabs for indentation, indent with spaces)"
    if "mapping values are not allowed" in message:
        return " (a value that contains ': ' must be quoted, e.g. trigger: 'pay: now')"
    before = max(text.rfind("\n", 0, max(0, start - 1)), text.rfind("\r", 0, max(0, start - 1)))
    if " #" in text[before + 1 : index] and "flow" in message:
        return " (' #' starts a comment that cut the line: quote a value that contains ' #')"
    return ""


def load(
    text: str,
    offset: int = 0,
    max_depth: int = MAX_DEPTH,
    scalars: Scalars | None = None,
) -> tuple[Loaded | None, list[Problem]]:
    """Load front matter text that starts at ``offset`` in the file.

    Returns the values (``None`` when they are unusable) and every problem found. Loading stops
    at the first syntax error or at the nesting cap; duplicate keys, aliases and tags are all
    collected so a user sees them together. ``scalars``, if given, records where the scalars
    are (see :class:`Scalars`).
    """
    if scalars is None:
        quick = quick_load(text, offset, max_depth)
        if quick is not None:
            root, spans, key_spans, _ = quick
            return Loaded(root, spans, key_spans, (text, offset, max_depth)), []
    builder = _Builder(offset, max_depth)
    builder.scalars = None if scalars is None else scalars.spans
    loader = open_loader(text)
    try:
        event = builder.walk(loader.get_event)
        if scalars is not None:
            scalars.complete = event is None
    except yaml.YAMLError as exc:
        index, message = _error_index(exc, text, yaml.__with_libyaml__)
        builder.problem("SD003", index, index + 1, f"YAML syntax error: {message}")
        return None, builder.problems
    except RecursionError:  # the pure-Python parser, when libyaml is missing
        builder.problem("SD003", 0, 1, "YAML nesting is too deep to parse")
        return None, builder.problems
    finally:
        loader.dispose()
    if builder.problems:
        return None, builder.problems
    return builder.result, builder.problems


class _Builder:
    """Turns events into values; one instance per document."""

    def __init__(self, offset: int, max_depth: int) -> None:
        self.offset = offset
        self.max_depth = max_depth
        self.stack: list[_Frame] = []
        self.result = Loaded(None)
        self.problems: list[Problem] = []
        self.documents = 0
        self.scalars: list[Span] | None = None

    def problem(
        self,
        code: str,
        start: int,
        end: int,
        message: str,
        related: tuple[tuple[Span, str], ...] = (),
    ) -> None:
        span = Span(self.offset + start, self.offset + max(end, start + 1))
        self.problems.append(Problem(code, span, message, related))

    def walk(self, get_event: Callable[[], Any]) -> Any:
        """Consume libyaml's events until the stream ends (None) or one is fatal (that event).
        Plain front matter never gets here (:func:`quick_load` takes it): this is the path of
        documents with something to report, or inline ignores to place, so it favours being
        one :meth:`feed` per event over speed."""
        while (event := get_event()) is not None:
            if not self.feed(event):
                return event
        return None

    def feed(self, event: yaml.Event) -> bool:
        """Consume one event; False stops the walk (fatal for this document)."""
        start = event.start_mark.index if event.start_mark is not None else 0
        end = event.end_mark.index if event.end_mark is not None else start
        if type(event) is yaml.ScalarEvent and event.anchor is None:  # the common case first
            return self._scalar(event, start, end)
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self.problem(
                    "SD003", start, end, "the front matter holds more than one YAML document"
                )
                return False
            return True
        if isinstance(event, yaml.AliasEvent):
            self.problem(
                "SD005", start, end, f"alias *{event.anchor} is not allowed: write the value out"
            )
            self._add(None, start, end)
            return True
        if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
            self.problem("SD005", start, end, f"anchor &{event.anchor} is not allowed")
        if isinstance(event, yaml.ScalarEvent):
            return self._scalar(event, start, end)
        if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            return self._open(event, start, end)
        if isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            self._close(end)
        return True

    def _scalar(self, event: yaml.ScalarEvent, start: int, end: int) -> bool:
        if self.scalars is not None:
            self.scalars.append(Span(self.offset + start, self.offset + end))
        if event.tag not in _STR_TAGS:
            self.problem("SD003", start, end, f"explicit tag {event.tag} is not allowed")
        value: object = event.value
        if event.implicit[0] and event.tag is None:
            try:
                value = resolve_plain(event.value)
            except _TooLargeError:
                self.problem("SD003", start, end, "integer with more than 4000 digits")
                return False
        self._add(value, start, end)
        return True

    def _open(self, event: yaml.CollectionStartEvent, start: int, end: int) -> bool:
        is_map = type(event) is yaml.MappingStartEvent
        if event.tag is not None and event.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
            self.problem("SD003", start, end, f"explicit tag {event.tag} is not allowed")
        stack = self.stack
        if len(stack) >= self.max_depth:
            self.problem("SD003", start, end, f"nesting is deeper than {self.max_depth} levels")
            return False
        container: dict[str, object] | list[object] = {} if is_map else []
        path: Path = ()
        dead = False
        if stack:
            parent = stack[-1]
            if parent.dead:
                dead = True
            elif type(parent.container) is list:
                path = (*parent.path, len(parent.container))
            elif parent.key is None:  # a collection as a mapping key
                self.problem(
                    "SD003", start, end, "mapping keys must be plain strings, not collections"
                )
                dead = True
            else:
                path = (*parent.path, parent.key)
        stack.append(_Frame(container, path, start, dead=dead))
        return True

    def _close(self, end: int) -> None:
        frame = self.stack.pop()
        self._add(frame.container, frame.start, end, opened=frame)

    def _add(self, value: object, start: int, end: int, opened: _Frame | None = None) -> None:
        span = Span(self.offset + start, self.offset + end)
        if not self.stack:
            self.result.value = value
            self.result.spans[()] = span
            return
        frame = self.stack[-1]
        if frame.dead or (opened is not None and opened.dead):
            if isinstance(frame.container, dict) and not frame.dead and frame.key is None:
                frame.key = _COMPLEX
                frame.key_span = span
            elif isinstance(frame.container, dict) and not frame.dead:
                frame.key = None
            return
        if isinstance(frame.container, list):
            self.result.spans[(*frame.path, len(frame.container))] = span
            frame.container.append(value)
            return
        if frame.key is None:
            self._key(frame, value, span)
            return
        if frame.key != _COMPLEX and frame.key not in frame.container:
            path = (*frame.path, frame.key)
            frame.container[frame.key] = value
            self.result.spans[path] = span
            assert frame.key_span is not None
            self.result.key_spans[path] = frame.key_span
        frame.key = None
        frame.key_span = None

    def _key(self, frame: _Frame, value: object, span: Span) -> None:
        if not isinstance(value, str):
            self.problem(
                "SD003",
                span.start - self.offset,
                span.end - self.offset,
                f"mapping key {value!r} is not a string: quote it",
            )
            frame.key, frame.key_span = _COMPLEX, span
            return
        first = frame.seen.get(value)
        if first is not None:
            self.problems.append(
                Problem(
                    "SD004",
                    span,
                    f"duplicate key {value!r}",
                    ((first, "first defined here"),),
                )
            )
            frame.key, frame.key_span = _COMPLEX, span
            return
        frame.seen[value] = span
        frame.key, frame.key_span = value, span

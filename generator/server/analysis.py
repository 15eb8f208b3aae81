"""One document read for the editor: its model and every place that names a state or an event.

The document is loaded by the lint stages themselves (decode, split, strict YAML, schema,
model) without running the rules, so navigation costs a load, not a lint. A state is named in
the front matter (``states[].name``, a transition's ``from``/``to``, a ``from`` list,
``invalid``, ``initial``, ``retired``) and in the Mermaid block (an id, or the quoted name of
``state "name" as id``); events in ``transitions[].event``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property
from typing import NamedTuple

from generator.load import frontmatter
from generator.load import strict_yaml as yamlload
from generator.load.markdown import Fence
from generator.load.mermaid.model import START_END, Diagram
from generator.load.source import DecodeError, Span, decode
from generator.load.strict_yaml import Path
from generator.model.document import Document

STATE, EVENT = "state", "event"
#: Roles: the declaration (``states[].name``), another front matter value, a diagram id, the
#: quoted name of a diagram alias.
DECLARATION, VALUE, DIAGRAM_ID, DIAGRAM_NAME = "declaration", "value", "diagram-id", "alias"


class Occurrence(NamedTuple):
    kind: str  # STATE or EVENT
    name: str
    span: Span
    role: str
    path: Path | None = None  # the front matter path of a value


def encode(text: str) -> bytes:
    """The bytes of an editor buffer (a lone surrogate stays one, for lint to report)."""
    return text.encode("utf-8", "surrogatepass")


def load_document(text: str, path: str, max_file_size: int) -> Document | None:
    """The document as lint builds it, or None where lint stops before the model."""
    data = encode(text)
    if len(data) > max_file_size:
        return None
    try:
        source = decode(data)
    except DecodeError:
        return None
    try:
        split = frontmatter.split(source.text)
    except frontmatter.SplitError:
        return None
    loaded, _ = yamlload.load(split.yaml_text, split.yaml_offset)
    if loaded is None or not isinstance(loaded.value, dict):
        return None
    from generator.load import schema
    from generator.model.spec import build, usable

    value = loaded.value
    if not (schema.fast_valid(value) or usable(value) or not list(schema.violations(value))):
        return None
    return Document(path, source, loaded, build(value), split.body_offset)


_STATE_FIELDS = (("transitions", ("from", "to")), ("invalid", ("from", "to")))
_NOTE = re.compile(r"\s*note\s+(?:left|right)\s+of\s+(\S+)\s*(:)?")
_ALIAS = re.compile(r'(\s*state\s+)"([^"\n]*)"(\s*as\s+)([^:\s\-{]+)')
_TOKEN = re.compile(r"[^:\s\-{}]+")
_KEYWORDS = frozenset(("state", "class", "style", "direction", "click"))
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class Analysis:
    """A document's occurrences (see the module docstring), looked up by offset or name."""

    def __init__(self, document: Document) -> None:
        self.document = document
        #: Diagram ids declared with ``state "name" as id`` (filled with the occurrences).
        self.aliased: set[str] = set()

    @property
    def text(self) -> str:
        return self.document.source.text

    @cached_property
    def diagram(self) -> Diagram | None:
        from generator.rules.diagram import parsed

        return parsed(self.document)

    @cached_property
    def occurrences(self) -> list[Occurrence]:
        found = list(self._front_matter())
        found.extend(self._diagram())
        found.sort(key=lambda o: o.span.start)
        return found

    def _value(self, path: Path, kind: str, role: str = VALUE) -> Iterator[Occurrence]:
        loaded = self.document.loaded
        spans = loaded.spans
        value: object = loaded.value
        for part in path:
            if isinstance(part, int):
                value = value[part] if isinstance(value, list) and part < len(value) else None
            else:
                value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, str) and path in spans:
            yield Occurrence(kind, value, spans[path], role, path)
        elif isinstance(value, list) and role == VALUE:
            for index, item in enumerate(value):
                if isinstance(item, str) and (*path, index) in spans:
                    yield Occurrence(kind, item, spans[(*path, index)], role, (*path, index))

    def _front_matter(self) -> Iterator[Occurrence]:
        value = self.document.loaded.value
        assert isinstance(value, dict)
        for index in range(_length(value.get("states"))):
            yield from self._value(("states", index, "name"), STATE, DECLARATION)
        for key, fields in _STATE_FIELDS:
            for index in range(_length(value.get(key))):
                for field in fields:
                    yield from self._value((key, index, field), STATE)
        for index in range(_length(value.get("transitions"))):
            yield from self._value(("transitions", index, "event"), EVENT)
        yield from self._value(("initial",), STATE)
        for index in range(_length(value.get("retired"))):
            for field in ("state", "to"):
                yield from self._value(("retired", index, field), STATE)

    @cached_property
    def fence(self) -> Fence | None:
        return self.document.body.mermaid

    @cached_property
    def ids(self) -> dict[str, str]:
        """Diagram id -> the spec's state name it draws (from the reader's own states)."""
        if self.diagram is None:
            return {}
        return {state.id: state.name for state in self.diagram.states if state.id != START_END}

    def _diagram(self) -> Iterator[Occurrence]:
        """Ids and alias names in the Mermaid block, line by line: comments, notes' text,
        ``classDef`` and the text after a ``:`` (labels, descriptions) name nothing."""
        fence, ids = self.fence, self.ids
        if fence is None or not ids:
            return
        in_note = False
        content = self.text[fence.content_start : fence.content_end]
        for match in _LINE.finditer(content):
            line = match.group().rstrip("\r\n")
            start = fence.content_start + match.start()
            stripped = line.strip()
            if in_note:
                in_note = stripped != "end note"
                continue
            if not stripped or stripped.startswith(("%%", "classDef", "stateDiagram")):
                continue
            note = _NOTE.match(line)
            if note is not None:
                in_note = note.group(2) is None
                yield from self._id(note.group(1), start + note.start(1))
                continue
            alias = _ALIAS.match(line)
            rest_at = 0
            if alias is not None:
                name = ids.get(alias.group(4))
                self.aliased.add(alias.group(4))
                if name is not None:
                    at = start + alias.start(2)
                    yield Occurrence(STATE, name, Span(at, at + len(alias.group(2))), DIAGRAM_NAME)
                    yield from self._id(alias.group(4), start + alias.start(4))
                rest_at = alias.end()
            statement = line[rest_at:]
            cut = re.search(r'[:"]', statement)
            if cut is not None:
                statement = statement[: cut.start()]
            for token in _TOKEN.finditer(statement):
                word = token.group()
                if word in _KEYWORDS and not statement[: token.start()].strip():
                    continue  # the statement's keyword, not a state
                for part in _class_ids(word):
                    yield from self._id(part[0], start + rest_at + token.start() + part[1])

    def _id(self, word: str, at: int) -> Iterator[Occurrence]:
        name = self.ids.get(word)
        if name is not None:
            yield Occurrence(STATE, name, Span(at, at + len(word)), DIAGRAM_ID)

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence under the cursor (its end counts: the cursor after a word)."""
        for occurrence in self.occurrences:
            if occurrence.span.start <= offset <= occurrence.span.end:
                return occurrence
            if occurrence.span.start > offset:
                break
        return None

    def named(self, kind: str, name: str) -> list[Occurrence]:
        return [o for o in self.occurrences if o.kind == kind and o.name == name]


def _class_ids(word: str) -> Iterator[tuple[str, int]]:
    """``a,b`` of ``class a,b highlight`` and ``a:::cls`` (cut before) as single ids."""
    offset = 0
    for part in word.split(","):
        if part:
            yield part, offset
        offset += len(part) + 1


def _length(value: object) -> int:
    return len(value) if isinstance(value, list) else 0

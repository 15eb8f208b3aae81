"""A loaded, schema-valid document: everything a rule may look at, and nothing to do I/O."""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

from generator.load.markdown import Body
from generator.load.source import SourceText, Span
from generator.load.strict_yaml import Loaded, Path
from generator.model.spec import Spec


class _DocumentFields(NamedTuple):
    path: str
    source: SourceText
    loaded: Loaded
    spec: Spec
    body_offset: int


class Document(_DocumentFields):
    """Immutable fields (a NamedTuple's); the subclass's ``__dict__`` holds the cached
    properties."""

    @cached_property
    def body(self) -> Body:
        return Body(self.source.text, self.body_offset)

    @cached_property
    def memo(self) -> dict[str, object]:
        """Per-document scratch space for checks that share parsed data (the diagram)."""
        return {}

    def span(self, path: Path, *, key: bool = False) -> Span:
        """Where a front matter value (or, with ``key``, its key) stands in the file."""
        found = self.loaded.key_span(path) if key else None
        return found or self.loaded.span(path)

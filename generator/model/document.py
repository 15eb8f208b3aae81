"""A loaded, schema-valid document: everything a rule may look at, and nothing to do I/O."""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

from generator.load.markdown import Body
from generator.load.source import BOM, SourceText, Span
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


#: Where :func:`source_sha256` keeps a source's digest: the SourceText's own ``__dict__``,
#: outside its fields (so equality and hashing are unchanged).
_SHA256 = "_statedoc_sha256"


def source_sha256(source: SourceText) -> str:
    """SHA-256 of the document's bytes, rebuilt exactly from the strictly decoded text:
    computed once per source, as every target's header carries it."""
    memo = vars(source)
    digest = memo.get(_SHA256)
    if digest is None:
        import hashlib

        data = ((BOM if source.had_bom else "") + source.text).encode("utf-8")
        digest = memo[_SHA256] = hashlib.sha256(data).hexdigest()
    assert isinstance(digest, str)
    return digest


def remember_sha256(source: SourceText, digest: str) -> None:
    """Record the digest of the bytes ``source`` was strictly decoded from (lint hashed them
    already): strict UTF-8 round-trips, so it is the digest :func:`source_sha256` computes."""
    vars(source)[_SHA256] = digest

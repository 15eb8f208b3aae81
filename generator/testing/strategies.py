"""Alias kept for imports written before the split: valid documents live in
:mod:`generator.testing.documents`, their YAML writers in :mod:`generator.testing.yaml_writer`,
broken documents in :mod:`generator.testing.breakers`."""

from generator.testing.breakers import BROKEN_CODES, broken_documents, undecodable_documents
from generator.testing.documents import (
    AWKWARD_NAMES,
    TRICKY_TEXT,
    Draft,
    diagram_for,
    render_document,
    spec_documents,
    spec_drafts,
    state_names,
    texts,
)
from generator.testing.yaml_writer import STYLES, dump_yaml

__all__ = [
    "AWKWARD_NAMES",
    "BROKEN_CODES",
    "STYLES",
    "TRICKY_TEXT",
    "Draft",
    "broken_documents",
    "diagram_for",
    "dump_yaml",
    "render_document",
    "spec_documents",
    "spec_drafts",
    "state_names",
    "texts",
    "undecodable_documents",
]

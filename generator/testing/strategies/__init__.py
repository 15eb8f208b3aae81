"""Hypothesis strategies for state documents, the inputs of statedoc's own property tests.

Valid documents are built in :mod:`.documents` (named events and list or URL sources in
:mod:`.event_documents`), written by the YAML emitters of :mod:`.yaml_writer`; :mod:`.breakers`
breaks a valid draft in one known way and names the code lint must report. Importing this
package imports Hypothesis.
"""

from generator.testing.strategies.breakers import (
    BROKEN_CODES,
    broken_documents,
    undecodable_documents,
)
from generator.testing.strategies.documents import (
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
from generator.testing.strategies.yaml_writer import STYLES, dump_yaml

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

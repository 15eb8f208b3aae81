"""The ``vectors`` target: ``<area>/<module>/<name>.vectors.json`` per spec, the verdicts every
implementation of the spec must give, in a language-neutral file.

Opt-in: add ``"vectors"`` to ``[tool.statedoc] targets`` (or pass ``--target vectors``).
The verdicts are computed from the spec's model alone (:func:`.model.build_vectors`), never
from generated code; the Python proofs, the SQL property tests and the conformance kits
check their implementation against them, and a team writing its own implementation (Go,
Kotlin) tests against the same file. ``statedoc schema --target vectors`` prints its JSON
Schema
(:data:`.files.SCHEMA_FILE`).

Reading the file (any language): it is one JSON object, ASCII only, with

- ``format``: ``1``. The shape changes only with a new number; a reader refuses any other.
- ``spec``: ``{"id", "revision", "title", "source", "sha256"}`` of the document;
- ``states``, ``initial``, ``terminal``, ``events``: names in the spec's order;
- ``pairs``: every ordered pair, ``states x states`` from-state major, self pairs included:
  ``{"from", "to", "verdict"}`` with ``verdict`` one of ``"allowed"``, ``"undeclared"`` and
  ``"forbidden"`` (then also ``"why"``, the text the error must carry). A write that leaves
  the state unchanged is no transition: a store may accept it as a no-op whatever the pair
  says (the SQL triggers do); ``Machine.transition`` follows the pair;
- ``fires``: every ``(state, event)``, states major (empty without events): ``{"from",
  "event", "verdict": "allowed", "to"}`` or ``{"from", "event", "verdict": "undeclared"}``;
- ``not_states``: ``{"name", "variant", "of"}``, names that are no state: variants of every
  real state (``case``, ``padding``, ``width``, ``normalisation``, ``separator``, ``control``;
  ``of`` names the state) and generic ones (``empty``, ``attribute``, ``other``; ``of`` is
  null). Naming one anywhere a state is named must be refused as not a state;
- ``not_events``: the same for events (empty without events).

In Python: :func:`load_vectors` (a path or bytes; checked against the schema, a
``VectorsError`` says what is wrong), :func:`vectors_of_spec` (from a parsed spec),
:func:`render_vectors` (the file's exact bytes) and :func:`differences` (a file against a
spec, one line per disagreement).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.render.environment import has_header
from generator.targets import Target, base_path, document_sha256, source_path
from generator.targets.vectors.files import SCHEMA_FILE, load_vectors, render_vectors, schema_text
from generator.targets.vectors.model import (
    ALLOWED,
    FORBIDDEN,
    FORMAT,
    NOT_A_STATE,
    UNDECLARED,
    FireVector,
    PairVector,
    SpecInfo,
    Vectors,
    VectorsError,
    build_vectors,
    differences,
    vectors_of_spec,
)
from generator.targets.vectors.names import Lookalike

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document

#: What the file of ``<area>/<module>/<name>`` is called after the name.
SUFFIX = ".vectors.json"

__all__ = [
    "ALLOWED",
    "FORBIDDEN",
    "FORMAT",
    "NOT_A_STATE",
    "SCHEMA_FILE",
    "SUFFIX",
    "UNDECLARED",
    "FireVector",
    "Lookalike",
    "PairVector",
    "SpecInfo",
    "Vectors",
    "VectorsError",
    "VectorsTarget",
    "build_vectors",
    "differences",
    "load_vectors",
    "render_vectors",
    "schema_text",
    "vectors_of_spec",
]


class VectorsTarget(Target):
    """One verdict-vectors file per spec, next to its generated modules."""

    name = "vectors"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        vectors = vectors_of_spec(
            document.spec,
            source=source_path(document, settings),
            sha256=document_sha256(document.source),
        )
        return {f"{base_path(document)}{SUFFIX}": render_vectors(vectors).encode("ascii")}

    def owns(self, path: str, first_line: str) -> bool:
        return path.count("/") == 2 and path.endswith(SUFFIX) and has_header(first_line)

    def schema(self) -> str:
        return schema_text()

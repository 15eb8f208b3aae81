"""The ``vectors`` target: ``<area>/<module>/<name>.vectors.json`` per spec, the verdicts every
implementation of the spec must give, in a language-neutral file.

Opt-in: add ``"vectors"`` to ``[tool.statedoc] targets`` (or pass ``--target vectors``).
The verdicts are computed from the spec's model alone (:mod:`generator.model.verdicts`, which
also describes the file and reads it back), never from generated code; this target writes
them (:func:`.files.render_vectors`, the file's exact bytes). The Python proofs, the SQL
property tests and the conformance kits check their implementation against them, and a team
writing its own implementation (Go, Kotlin) tests against the same file. ``statedoc schema
--target vectors`` prints its JSON Schema (:data:`generator.model.verdicts.SCHEMA_FILE`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.model.verdicts import schema_text, vectors_of_spec
from generator.render.environment import has_header
from generator.targets import Target, base_path, document_sha256, source_path
from generator.targets.refusals import refuse_ambiguous_events, refuse_unfaithful
from generator.targets.vectors.files import render_vectors

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document

#: What the file of ``<area>/<module>/<name>`` is called after the name.
SUFFIX = ".vectors.json"

__all__ = ["SUFFIX", "VectorsTarget", "render_vectors"]


class VectorsTarget(Target):
    """One verdict-vectors file per spec, next to its generated modules."""

    name = "vectors"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        refuse_unfaithful(document.spec)  # verdicts of such a spec would be arbitrary
        refuse_ambiguous_events(document.spec)
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

"""The ``typescript`` target: per spec ``<area>/<module>/<name>.ts``, a dependency-free ES
module next to the Python one (or under its own output folder)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from generator.targets import Target
from generator.targets.typescript.paths import base_path, spec_source
from generator.targets.typescript.render import has_header, render_module

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document
    from generator.targets.typescript.tests import TypeScriptTestsTarget


def module_text(document: Document, source: str) -> str:
    from generator.targets import document_sha256

    return render_module(document.spec, relative=source, sha256=document_sha256(document.source))


class TypeScriptTarget(Target):
    """Generates one TypeScript module per spec (see :mod:`generator.targets.typescript`)."""

    name = "typescript"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        """Raises :class:`TypeScriptError` when the spec cannot be written as TypeScript."""
        text = module_text(document, spec_source(document, settings.root))
        return {f"{base_path(document)}.ts": text.encode("utf-8")}

    def owns(self, path: str, first_line: str) -> bool:
        return path.endswith(".ts") and not path.endswith(".test.ts") and has_header(first_line)

    def tests_target(self, folder: Path) -> TypeScriptTestsTarget:
        """With ``generate --tests DIR``: the fast-check property test of each module."""
        from generator.targets.typescript.tests import TypeScriptTestsTarget

        return TypeScriptTestsTarget(folder)

"""The fast-check property test of a generated TypeScript module (``generate --tests``).

One ``<area>/<module>/<name>.test.ts`` per spec: the spec's tables copied in as literals (the
spec is the model, not the module), every ordered pair through every entry point, and
``fc.commands`` + ``fc.modelRun`` sequences on a ``Machine`` with random guards. The file runs
when imported: compile it with ``tsc`` and run it with ``node`` (``fast-check`` is its only
dependency), or import it from any test runner.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING

from generator.targets import Target
from generator.targets.typescript.paths import base_path, spec_source
from generator.targets.typescript.render import context, render

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document
    from generator.model.spec import Spec


def render_test(spec: Spec, *, relative: str, sha256: str, module_import: str) -> str:
    """The test module for ``spec``; ``module_import`` is the ES import specifier of the
    generated module from the test file (``../../generated/area/module/name.js``)."""
    values = context(spec, relative=relative, sha256=sha256)
    values["module_import"] = module_import
    return render("test.ts.j2", values)


def import_specifier(test_file: str, module_file: str) -> str:
    """The relative ES specifier (``./x.js``, ``../a/x.js``) of ``module_file`` (a ``.ts``
    path) from ``test_file``; both POSIX paths relative to the same root."""
    target = posixpath.relpath(module_file, posixpath.dirname(test_file) or ".")
    if not target.startswith("../"):
        target = f"./{target}"
    return target[: -len(".ts")] + ".js"


class TypeScriptTestsTarget(Target):
    """Writes the property test of each spec's TypeScript module into ``folder``."""

    name = "typescript-tests"
    root = "tests"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def context(self) -> str:
        return str(self.folder)  # the tests import the modules by a path relative to it

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        from generator.targets import document_sha256

        base = base_path(document)
        test_file = Path(os.path.relpath(self.folder / f"{base}.test.ts", settings.root))
        module_file = Path(os.path.relpath(settings.out / f"{base}.ts", settings.root))
        text = render_test(
            document.spec,
            relative=spec_source(document, settings.root),
            sha256=document_sha256(document.source),
            module_import=import_specifier(test_file.as_posix(), module_file.as_posix()),
        )
        return {f"{base}.test.ts": text.encode("utf-8")}

    def owns(self, path: str, first_line: str) -> bool:
        from generator.targets.typescript.render import has_header

        return path.endswith(".test.ts") and has_header(first_line)

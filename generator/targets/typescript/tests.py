"""The fast-check property test of a generated TypeScript module (``generate --tests``).

One ``<area>/<module>/<name>.test.ts`` per spec: the spec's tables copied in as literals (the
spec is the model, not the module), every ordered pair through every entry point, and
``fc.commands`` + ``fc.modelRun`` sequences on a ``Machine`` with random guards, as two
``node:test`` tests: compile it with ``tsc`` (``module``/``moduleResolution`` ``nodenext``, a
``rootDir`` above both the tests and the generated modules) and run it with ``node --test``,
which prints a summary. It needs ``fast-check`` and ``@types/node``.

The test names the spec's vectors file (``<name>.vectors.json``, where the ``vectors`` target
writes it): when the file is there at run time, every verdict the test checks is the file's and
the file is held to the tables the test carries from the spec (so a stale or hand-edited file,
or a module that disagrees with it, fails); without it the verdicts come from those tables.

With them, at the top of the folder, the TypeScript conformance kit
(:mod:`generator.targets.typescript.kit`): ``statedoc-conformance.ts`` and its plans.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from generator.targets import Target
from generator.targets.typescript.kit import KIT_FILES, kit_files
from generator.targets.typescript.paths import base_path, spec_source
from generator.targets.typescript.render import context, render

if TYPE_CHECKING:
    from collections.abc import Collection

    from generator.load.config import Config
    from generator.model.document import Document
    from generator.model.spec import Spec


def render_test(
    spec: Spec,
    *,
    relative: str,
    sha256: str,
    module_import: str,
    vectors: VectorsPath | None = None,
) -> str:
    """The test module for ``spec``; ``module_import`` is the ES import specifier of the
    generated module from the test file (``../../generated/area/module/name.js``);
    ``vectors`` where the spec's vectors file may be (None: the verdicts come from the spec's
    tables alone)."""
    from generator.model.verdicts import event_lookalikes, state_lookalikes

    values = context(spec, relative=relative, sha256=sha256)
    values["module_import"] = module_import
    values["vectors"] = vectors
    values["not_states"] = state_lookalikes(spec.state_names)
    values["not_events"] = event_lookalikes([event.name for event in values["events"]])
    return render("test.ts.j2", values)


class VectorsPath(NamedTuple):
    """Where a generated test looks for the vectors file: ``relative`` to the test file (or
    absolute), then ``from_root`` (relative to the project root) from every folder above the
    running file (a compiled test may run from an ``outDir`` anywhere below the root)."""

    relative: str
    from_root: str


def vectors_path(document: Document, settings: Config, test_file: str) -> VectorsPath:
    """Where the ``vectors`` target writes the document's file (its folder in this run), as
    seen from ``test_file`` (a POSIX path relative to the project root)."""
    from generator.targets import out_of
    from generator.targets.vectors import SUFFIX

    out = Path(os.path.normpath(out_of(settings, "vectors").absolute()))
    file = out / f"{base_path(document)}{SUFFIX}"
    try:
        from_root = file.relative_to(os.path.normpath(settings.root.absolute())).as_posix()
    except ValueError:
        return VectorsPath(file.as_posix(), file.as_posix())
    relative = posixpath.relpath(from_root, posixpath.dirname(test_file) or ".")
    return VectorsPath(relative if relative.startswith("../") else f"./{relative}", from_root)


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
    tests_of = "typescript"

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
            vectors=vectors_path(document, settings, test_file.as_posix()),
        )
        return {f"{base}.test.ts": text.encode("utf-8")}

    def package_files(self, paths: Collection[str], out_name: str) -> dict[str, bytes]:
        """The conformance kit at the top of the folder, once any test is there."""
        if not any(path.endswith(".test.ts") for path in paths):
            return {}
        return {name: text.encode("utf-8") for name, text in kit_files().items()}

    def owns(self, path: str, first_line: str) -> bool:
        from generator.targets.typescript.render import has_header

        mine = path.endswith(".test.ts") or path in KIT_FILES
        return mine and has_header(first_line)

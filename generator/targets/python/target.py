"""The ``python`` target: ``<area>/<module>/<name>.py`` per spec, plus the package files.

Every folder that holds a module gets an ``__init__.py`` (the output folder's own included)
and the output folder a PEP 561 ``py.typed``; all carry statedoc's header line.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from generator.render.environment import has_header
from generator.targets import Target, base_path, document_sha256, source_path

if TYPE_CHECKING:
    from pathlib import Path

    from generator.load.config import Config
    from generator.model.document import Document

_INIT = "__init__.py"
_MARKER = "py.typed"


class PythonTarget(Target):
    """Typed, stdlib-only state machine modules (:mod:`.render`)."""

    name = "python"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        from generator.targets.python.render import render_module

        base = base_path(document)
        source = render_module(
            document.spec,
            relative=source_path(document, settings),
            sha256=document_sha256(document.source),
            module=base.rsplit("/", 1)[-1],
        )
        return {f"{base}.py": source.encode("utf-8")}

    def package_files(self, paths: Collection[str], out_name: str) -> dict[str, bytes]:
        from generator.targets.python.package import render_package_init, render_py_typed

        packages: set[str] = set()
        for path in paths:
            if path.endswith(".py") and path.count("/") == 2:
                area, module, _ = path.split("/")
                packages.update((area, f"{area}/{module}"))
        files = {
            _INIT: render_package_init(out_name).encode("utf-8"),
            _MARKER: render_py_typed().encode("utf-8"),
        }
        for package in packages:
            folder = package.rsplit("/", 1)[-1]
            files[f"{package}/{_INIT}"] = render_package_init(folder).encode("utf-8")
        return files

    def tests_target(self, folder: Path) -> Target:
        """With a tests folder: the pytest module proving each generated module (the
        ``tests`` target)."""
        from generator.targets.tests import TestsTarget

        return TestsTarget()

    def owns(self, path: str, first_line: str) -> bool:
        """Modules at ``<area>/<module>/<name>.py``, ``__init__.py`` down to that depth and
        ``py.typed`` at the top, each with our header."""
        parts = path.split("/")
        if parts[-1] == _MARKER:
            fits = len(parts) == 1
        elif parts[-1] == _INIT:
            fits = len(parts) <= 3
        else:
            fits = len(parts) == 3 and parts[-1].endswith(".py")
        return fits and first_line.startswith("# ") and has_header(first_line)

"""The ``conformance`` target (``generate --tests DIR --target conformance``): a skeleton test
module per spec, ``DIR/test_<area>_<module>_<name>_conformance.py``, that proves *your* service
against the spec once its adapter is filled in (:mod:`generator.testing.conformance`);
:mod:`.skeleton` renders it.

The skeleton is the user's file from the moment it exists: the target is ``create_only`` (the
plan writes it when it is missing and never compares, replaces or deletes it afterwards).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.targets import Target, import_path, module_parts, source_path

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document


class ConformanceTarget(Target):
    """Conformance test skeletons, written once into the ``--tests`` folder."""

    name = "conformance"
    root = "tests"
    create_only = True
    tests_of = "python"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        from generator.targets.conformance.skeleton import render_conformance_skeleton

        area, module, name = module_parts(document)
        text = render_conformance_skeleton(
            import_path(document, settings), source_path(document, settings)
        )
        return {f"test_{area}_{module}_{name}_conformance.py": text.encode("utf-8")}

    def owns(self, path: str, first_line: str) -> bool:
        return False  # once written, a skeleton is the user's: never stale, never deleted

"""The ``tests`` target (``generate --tests DIR``): one pytest module per spec,
``DIR/test_<area>_<module>_<name>.py``, that proves the generated module against its spec
with :mod:`generator.testing` (all pairs, and a Hypothesis state machine).

The module imports the generated module by its dotted path below the project root (or by the
output folder's name when the folder lies outside the project), and names the spec's vectors
file next to it (``<name>.vectors.json``): read, and held to the spec, when the ``vectors``
target has written it (the verdicts are otherwise computed from the spec in memory, by the
same function).
"""

from __future__ import annotations

import ast
import keyword
from pathlib import Path
from typing import TYPE_CHECKING

from generator.model.names import pytest_class_name
from generator.render.environment import has_header
from generator.targets import Target, import_path, module_parts, source_path

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document


def render_test_module(
    module_import_path: str, spec_path: str, vectors_path: str | None = None
) -> str:
    """The text of a pytest module testing one generated module against its spec.

    ``module_import_path`` is the dotted import path of the generated module (each part an
    identifier); ``spec_path`` is the spec document's path, best relative to the project root
    (the test then finds it from any working directory); ``vectors_path`` the spec's vectors
    file, relative alike (None: the vectors come from the spec alone). The result needs
    ``hypothesis``.
    """
    from generator.render.environment import header_line
    from generator.targets.python.filters import environment

    parts = module_import_path.split(".")
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        raise ValueError(f"not a dotted import path: {module_import_path!r}")
    text = (
        environment("generator.targets.tests", strict=False)
        .get_template("test_module.py.j2")
        .render(
            header=header_line("#", spec_path),
            module=module_import_path,
            spec_path=spec_path,
            vectors_path=vectors_path,
            class_name=pytest_class_name(module_import_path),
        )
    )
    ast.parse(text)  # a template bug must never write a file that does not parse
    return text


def vectors_file(document: Document, settings: Config) -> str:
    """Where the ``vectors`` target writes the document's file (below its folder in this run),
    relative to the project root (absolute when the folder lies outside it)."""
    from generator.targets import base_path, out_of
    from generator.targets.vectors import SUFFIX

    out = out_of(settings, "vectors").absolute()
    try:
        folder = out.relative_to(settings.root.absolute()).as_posix()
    except ValueError:
        folder = out.as_posix()
    return f"{folder}/{base_path(document)}{SUFFIX}".removeprefix("./")


class TestsTarget(Target):
    """Property-test modules for the generated Python modules (written to ``--tests``)."""

    __test__ = False  # not a pytest test class, whatever its name
    name = "tests"
    root = "tests"
    tests_of = "python"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        area, module, name = module_parts(document)
        text = render_test_module(
            import_path(document, settings),
            source_path(document, settings),
            vectors_file(document, settings),
        )
        return {f"test_{area}_{module}_{name}.py": text.encode("utf-8")}

    def owns(self, path: str, first_line: str) -> bool:
        return (
            "/" not in path
            and Path(path).name.startswith("test_")
            and path.endswith(".py")
            and first_line.startswith("# ")
            and has_header(first_line)
        )

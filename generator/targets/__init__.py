"""Generation targets: each turns one loaded document into the files it owns.

A target is looked up by name in :data:`REGISTRY` (``"module:attribute"`` of a zero-argument
factory, imported only when the target is used, so the lint path never pays for a target).
The pipeline asks :meth:`Target.files` for every document it generates and
:meth:`Target.owns` for every existing file it might replace or clean up as stale. Adding a
target is its own package plus one line in :data:`REGISTRY`.

Optional members a target may have: ``root`` (``"out"``, the default, or ``"tests"``: the
folder its paths are relative to) and ``package_files(paths, out_name)`` (files that follow
from the set of all generated paths, such as Python's ``__init__.py`` files).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from generator.config import Config
    from generator.load.source import SourceText
    from generator.model.document import Document


class Target(Protocol):
    """One kind of generated output."""

    name: str

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        """The files this document yields: POSIX path relative to the target's root ->
        content.

        Raises ``ValueError`` (a target's own subclass, with a message that says why) when
        the document cannot be generated; the pipeline reports it as a refusal (SD409)."""
        ...

    def owns(self, path: str, first_line: str) -> bool:
        """Whether an existing file (its relative path and first line) was written by this
        target, so it may be replaced or deleted as stale."""
        ...


@runtime_checkable
class PackageFiles(Protocol):
    """A target whose outputs need files around them (``__init__.py``, ``py.typed``)."""

    def package_files(self, paths: Collection[str], out_name: str) -> dict[str, bytes]:
        """The extra files for the generated ``paths`` in an output folder named
        ``out_name``."""
        ...


#: Target name -> ``"module:factory"``. Adding a target adds one line here.
REGISTRY: dict[str, str] = {
    "python": "generator.targets.python.target:PythonTarget",
    "mermaid": "generator.targets.mermaid:MermaidTarget",
    "tests": "generator.targets.tests:TestsTarget",
    "sql": "generator.targets.sql:SqlTarget",
    "typescript": "generator.targets.typescript:TypeScriptTarget",
    "conformance": "generator.targets.conformance:ConformanceTarget",
}
#: What ``generate`` writes when neither ``[tool.statedoc] targets`` nor ``--target`` says.
DEFAULT_TARGETS: tuple[str, ...] = ("python", "mermaid")


def unknown_targets(names: Iterable[str]) -> list[str]:
    """The names in ``names`` that no target is registered as."""
    return [name for name in names if name not in REGISTRY]


def get_target(name: str) -> Target:
    """The target registered as ``name`` (``KeyError`` for an unknown name)."""
    module, _, attribute = REGISTRY[name].partition(":")
    factory = getattr(import_module(module), attribute)
    target: Target = factory()
    return target


def target_root(target: Target) -> str:
    """``"out"`` or ``"tests"``: the folder the target's paths are relative to."""
    return str(getattr(target, "root", "out"))


def module_parts(document: Document) -> tuple[str, str, str]:
    """``(area, module, name)``: identifiers, so never ``..``, ``/`` or empty."""
    from generator.model.names import snake_name

    spec = document.spec
    return snake_name(spec.product_area), snake_name(spec.module), snake_name(spec.title)


def base_path(document: Document) -> str:
    """``<area>/<module>/<name>``: every target's files for a document live under it."""
    return "/".join(module_parts(document))


def document_sha256(source: SourceText) -> str:
    """SHA-256 of the document's bytes, rebuilt exactly from the strictly decoded text (every
    target's header and the SQL comments carry it)."""
    import hashlib

    from generator.load.source import BOM

    data = ((BOM if source.had_bom else "") + source.text).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def import_path(document: Document, settings: Config) -> str:
    """The dotted import path of the document's generated Python module: the output folder's
    path below the project root (its name when it lies outside), then area, module, name."""
    try:
        package = settings.out.resolve().relative_to(settings.root.resolve()).parts
    except ValueError:
        package = (settings.out.name,)
    return ".".join((*package, *module_parts(document)))


def source_path(document: Document, settings: Config) -> str:
    """The document's path relative to the project root, as discovery computes it (headers
    name the spec by it); its absolute path when it lies outside the root."""
    path = Path(document.path).absolute()
    try:
        return path.relative_to(settings.root).as_posix()
    except ValueError:
        return path.as_posix()

"""Generation targets: each turns one loaded document into the files it owns.

A target is looked up by name in :data:`REGISTRY` (``"module:attribute"`` of a zero-argument
factory, imported only when the target is used, so the lint path never pays for a target).
The pipeline asks :meth:`Target.files` for every document it generates and
:meth:`Target.owns` for every existing file it might clean up as stale.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from generator.config import Config
    from generator.document import Document


class Target(Protocol):
    """One kind of generated output."""

    name: str

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        """The files this document yields: POSIX path relative to ``out`` -> content.

        Raises ``ValueError`` (a target's own subclass, with a message that says why) when
        the document cannot be generated; the pipeline reports it as a refusal."""
        ...

    def owns(self, path: str, first_line: str) -> bool:
        """Whether an existing file (its relative path and first line) was written by this
        target, so it may be replaced or deleted as stale."""
        ...


#: Target name -> ``"module:factory"``. Adding a target adds one line here.
REGISTRY: dict[str, str] = {
    "sql": "generator.targets.sql:SqlTarget",
    "typescript": "generator.targets.typescript:TypeScriptTarget",
}


def get_target(name: str) -> Target:
    """The target registered as ``name`` (``KeyError`` for an unknown name)."""
    module, _, attribute = REGISTRY[name].partition(":")
    factory = getattr(import_module(module), attribute)
    target: Target = factory()
    return target

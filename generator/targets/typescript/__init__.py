"""The ``typescript`` target: one self-contained, dependency-free ES module per spec.

:class:`TypeScriptTarget` implements :class:`generator.targets.Target`;
:mod:`.render` holds the view of a spec and the Jinja2 environment (templates in
``templates/``), :mod:`.literals` is the only path from spec text to TypeScript text, and
:mod:`.tests` renders the fast-check property test of a module (``generate --tests``).
"""

from __future__ import annotations

from generator.targets.typescript.render import TypeScriptError
from generator.targets.typescript.target import TypeScriptTarget

__all__ = ["TypeScriptError", "TypeScriptTarget"]

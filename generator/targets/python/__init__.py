"""The ``python`` target: typed, stdlib-only state machine modules (Jinja2 templates).

:mod:`.render` renders one module (pure functions of a spec and its path), :mod:`.literals`
is the one escaping path spec text takes into Python source, :mod:`.target` is the
:class:`~generator.targets.Target` the pipeline uses. Jinja2 is imported lazily by the kit.
"""

from __future__ import annotations

from generator.render.environment import RenderError, has_header
from generator.targets import document_sha256
from generator.targets.python.package import render_package_init, render_py_typed
from generator.targets.python.render import PY_HEADER, alias_name, render_module

__all__ = [
    "PY_HEADER",
    "RenderError",
    "alias_name",
    "document_sha256",
    "has_header",
    "render_module",
    "render_package_init",
    "render_py_typed",
]

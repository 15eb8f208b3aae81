"""Renderers of generated files: Python modules (Jinja2 templates) and Mermaid diagrams.

Pure functions of a spec and its path; :mod:`generator.output.tree` decides where files go and
writes them. Jinja2 is imported lazily by :mod:`generator.targets.python.render`.
"""

from __future__ import annotations

from generator.model.spec import Spec
from generator.targets.python.render import (
    MMD_HEADER,
    PY_HEADER,
    RenderError,
    alias_name,
    document_sha256,
    has_header,
    mmd_header,
    render_module,
    render_package_init,
    render_py_typed,
)

__all__ = [
    "MMD_HEADER",
    "PY_HEADER",
    "RenderError",
    "alias_name",
    "document_sha256",
    "has_header",
    "render_diagram",
    "render_module",
    "render_package_init",
    "render_py_typed",
]


def render_diagram(spec: Spec, *, relative: str) -> str:
    """The ``.mmd`` file next to a module: our header as a Mermaid comment, then the diagram."""
    from generator.diagram.sync import event_labels
    from generator.diagram.writer import render_state_diagram  # lazy, like Jinja2

    diagram = render_state_diagram(
        spec.state_names,
        [t.pair for t in spec.transitions],
        spec.initial_states,
        spec.terminal_states,
        edge_labels=event_labels(spec),
    )
    if not diagram.endswith("\n"):
        diagram += "\n"
    return f"{mmd_header(relative)}\n{diagram}"

"""Mermaid ``stateDiagram-v2``: write statedoc's own block and keep it in sync in place.

The writer (:func:`render_state_diagram`) escapes every name and label so Mermaid draws
exactly the spec; the reader it is checked against is :mod:`generator.load.mermaid`.
Importing this package never imports Jinja2: only rendering needs it.
"""

from .writer import (
    escape_label,
    escape_name,
    render_state_diagram,
)

__all__ = [
    "escape_label",
    "escape_name",
    "render_state_diagram",
]

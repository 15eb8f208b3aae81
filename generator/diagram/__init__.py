"""Mermaid ``stateDiagram-v2``: read hand-written blocks, write statedoc's own.

The reader (:func:`parse_state_diagram`) mirrors Mermaid's parser so the lint
path sees the graph Mermaid draws; the writer (:func:`render_state_diagram`)
escapes every name and label so Mermaid draws exactly the spec. Importing this
package never imports Jinja2: only rendering needs it.
"""

from .model import START_END, SYNTAX_CODE, Diagram, DiagramState, Edge, Problem
from .parse import MERMAID_MAX_TEXT_SIZE, decode_display_text, parse_state_diagram
from .writer import (
    EMPTY_NAME,
    display_label,
    display_name,
    escape_label,
    escape_name,
    render_state_diagram,
)

__all__ = [
    "EMPTY_NAME",
    "MERMAID_MAX_TEXT_SIZE",
    "START_END",
    "SYNTAX_CODE",
    "Diagram",
    "DiagramState",
    "Edge",
    "Problem",
    "decode_display_text",
    "display_label",
    "display_name",
    "escape_label",
    "escape_name",
    "parse_state_diagram",
    "render_state_diagram",
]

"""Read a Mermaid ``stateDiagram-v2`` block: the reader mirrors Mermaid's own parser, so the
lint path sees the graph Mermaid draws (checked against Mermaid itself and its upstream corpus).
"""

from .model import START_END, SYNTAX_CODE, Diagram, DiagramState, Edge, Problem
from .parse import MERMAID_MAX_TEXT_SIZE, decode_display_text, parse_state_diagram

__all__ = [
    "MERMAID_MAX_TEXT_SIZE",
    "START_END",
    "SYNTAX_CODE",
    "Diagram",
    "DiagramState",
    "Edge",
    "Problem",
    "decode_display_text",
    "parse_state_diagram",
]

"""The ``mermaid`` target: ``<area>/<module>/<name>.mmd`` next to each module, the same
diagram as the document's ``## The Lifecycle`` block, under a ``%%`` header line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.render.environment import comment_text, has_header, header_line
from generator.targets import Target, base_path, source_path

if TYPE_CHECKING:
    from generator.load.config import Config
    from generator.model.document import Document
    from generator.model.spec import Spec


def mmd_header(relative: str) -> str:
    """The header line naming the spec ``relative``; ``%`` is spelled ``%25`` so a path can
    never form a ``%%{...}%%`` Mermaid directive."""
    return header_line("%%", relative, escape=lambda text: comment_text(text).replace("%", "%25"))


def render_diagram(spec: Spec, *, relative: str) -> str:
    """The ``.mmd`` file: our header as a Mermaid comment, then the diagram."""
    from generator.diagram.sync import event_labels
    from generator.diagram.writer import render_state_diagram  # lazy: Jinja2

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


class MermaidTarget(Target):
    """Standalone ``.mmd`` diagrams, for tools that render Mermaid files."""

    name = "mermaid"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        text = render_diagram(document.spec, relative=source_path(document, settings))
        return {f"{base_path(document)}.mmd": text.encode("utf-8")}

    def owns(self, path: str, first_line: str) -> bool:
        return (
            path.count("/") == 2
            and path.endswith(".mmd")
            and first_line.startswith("%% ")
            and has_header(first_line)
        )

"""What Mermaid shows for a state name or a transition label: the stand-ins it draws for
characters no label can show, and lines it cannot draw empty. The lint compares the diagram
with the spec as shown; the writer escapes names so that Mermaid shows exactly this."""

from __future__ import annotations

__all__ = ["EMPTY_NAME", "display_label", "display_name"]

#: What an empty name is shown as.
EMPTY_NAME = "\u2205"


def _stand_in(char: str) -> str:
    code = ord(char)
    if code < 0x20 and char not in "\t\n":
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if (
        0x80 <= code <= 0x9F
        or 0xD800 <= code <= 0xDFFF
        or 0xFDD0 <= code <= 0xFDEF
        or (code & 0xFFFE) == 0xFFFE
    ):
        return "\ufffd"
    return char


def _shown_chars(text: str) -> str:
    if text.isascii() and text.isprintable():  # the usual name or label: no stand-in applies
        return text
    shown = "".join(_stand_in(char) for char in text)
    return shown.replace("\ufb02\u00b0", "fl\u00b0").replace("\u00b6\u00df", "\u00b6ss")


def _fill_empty_lines(shown: str) -> str:
    if "\n" not in shown:
        return shown
    return "\n".join(line or " " for line in shown.split("\n"))


def display_name(name: str) -> str:
    """What Mermaid shows for a state name written by :func:`render_state_diagram`.

    Equal to ``name`` unless it is empty, holds characters no label can show,
    or is multi-line with empty lines (see the module docstring).
    """
    return _fill_empty_lines(_shown_chars(name)) if name else EMPTY_NAME


def display_label(label: str) -> str | None:
    """What Mermaid shows for a transition label (None: the edge has no label)."""
    return _fill_empty_lines(_shown_chars(label)) if label else None

"""Spec text -> Python source: the one escaping path every spec string takes into a module.

:func:`pyliteral` turns a value (``str``, ``None``, ``int``, ``bool`` or a tuple of them) into a
Python expression that evaluates to exactly that value, for ANY Unicode string: it is built on
``repr``, which escapes quotes, backslashes, control characters, lone surrogates, NUL, NEL,
U+2028/2029, bidi controls and every other non-printable code point, so the literal never
spans a physical line and the source stays valid UTF-8. Long strings are split into a
parenthesised run of literals that fit the line width (implicit concatenation gives back the
same string). Under test (``SELF_CHECK``) every literal is also checked with
``ast.literal_eval``, and the property tests prove over arbitrary text that a spec can never
inject code; normal runs skip the re-parse (it was a large share of a cold ``generate``).

No Jinja2 here: this module is cheap to import and easy to test on its own.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: Target width of generated lines. Below the project's ruff ``line-length`` (100) and equal
#: to ruff's default (88), so a module also passes a stricter configuration.
WIDTH = 88

_LINE_ENDS = ("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_PIECES = re.compile(r"[^\s/]+/?\s*|/\s*|\s+")


class LiteralError(ValueError):
    """A value cannot be written as a literal (a bug, or an unsupported type)."""


def display_width(text: str) -> int:
    """Columns ``text`` takes in an editor (and in ruff's E501): wide characters count two.

    Errs on the wide side (a combining mark counts one), so a line judged to fit does fit.
    """
    if text.isascii():  # no ASCII character is wide (W or F): one column each
        return len(text)
    width = 0
    for char in text:
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _is_bare(text: str) -> bool:
    """Whether ``repr`` of every piece of ``text`` is the piece between two quotes: printable
    ASCII with no backslash and not both kinds of quote (so no character is ever escaped)."""
    return (
        text.isascii()
        and text.isprintable()
        and "\\" not in text
        and not ("'" in text and '"' in text)
    )


def _bare_chunks(text: str, room: int) -> list[str]:
    """:func:`_chunks` for a :func:`_is_bare` text, where ``repr(piece)`` is two columns wider
    than ``piece``: the same pieces, measured without building a ``repr`` per piece."""
    chunks: list[str] = []
    current = ""
    for piece in _PIECES.findall(text):
        if len(current) + len(piece) + 2 <= room:
            current += piece
            continue
        if current:
            chunks.append(current)
            current = ""
        if len(piece) + 2 <= room:
            current = piece
            continue
        for char in piece:
            if current and len(current) + 3 > room:
                chunks.append(current)
                current = ""
            current += char
    if current or not chunks:
        chunks.append(current)
    return chunks


def _chunks(text: str, room: int) -> list[str]:
    """Split ``text`` so that ``repr`` of each piece is at most ``room`` columns wide.

    Prefers breaking after a newline, then after whitespace; a word longer than the room is
    split between characters (implicit concatenation joins the pieces back).
    """
    return _bare_chunks(text, room) if _is_bare(text) else _escaped_chunks(text, room)


def _escaped_chunks(text: str, room: int) -> list[str]:
    """:func:`_chunks` of any text, each piece measured by its ``repr``."""
    chunks: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True) or [text]:
        for piece in _PIECES.findall(line):
            if display_width(repr(current + piece)) <= room:
                current += piece
                continue
            if current:
                chunks.append(current)
                current = ""
            if display_width(repr(piece)) <= room:
                current = piece
                continue
            for char in piece:
                if current and display_width(repr(current + char)) > room:
                    chunks.append(current)
                    current = ""
                current += char
        if line.endswith(_LINE_ENDS):
            if current:
                chunks.append(current)
            current = ""
    if current or not chunks:
        chunks.append(current)
    return chunks


def _string(value: str, indent: int, lead: int) -> str:
    single = repr(value)
    if indent + lead + display_width(single) + 1 <= WIDTH:  # + 1: a trailing comma or bracket
        return single
    inner = " " * (indent + 4)
    room = max(WIDTH - indent - 4, 16)
    body = "".join(f"{inner}{chunk!r}\n" for chunk in _chunks(value, room))
    return f"(\n{body}{' ' * indent})"


def _tuple(value: tuple[object, ...], indent: int, lead: int) -> str:
    if not value:
        return "()"
    parts = [_render(item, indent + 4, 0) for item in value]
    flat = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if "\n" not in flat and indent + lead + display_width(flat) + 1 <= WIDTH:
        return flat
    inner = " " * (indent + 4)
    return "(\n" + "".join(f"{inner}{part},\n" for part in parts) + " " * indent + ")"


def _render(value: object, indent: int, lead: int) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, str):
        return _string(str(value), indent, lead)
    if isinstance(value, tuple | list):
        return _tuple(tuple(value), indent, lead)
    raise LiteralError(f"cannot write a {type(value).__name__} as a literal")


#: Re-check every literal with ``ast.literal_eval`` and every rendered module with
#: ``ast.parse``: the proof that the escaping is right, which the test suite turns on
#: (``STATEDOC_SELF_CHECK=1``, or this flag) and proves over generated text. Off in normal
#: runs: it was nearly half the time of a cold ``generate``.
SELF_CHECK = os.environ.get("STATEDOC_SELF_CHECK", "") == "1"


#: The strings already written in the rendering under way (:func:`memo`): a spec repeats its
#: state names and texts, and each literal costs a width walk over its text.
_MEMO: ContextVar[dict[tuple[object, int, int], str] | None] = ContextVar("literals", default=None)


@contextmanager
def memo() -> Iterator[None]:
    """Within the block (one module's rendering), each distinct string literal at each
    position is built once."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def pyliteral(value: object, indent: int = 0, lead: int = 0) -> str:
    """A Python expression for ``value``, for a line indented ``indent`` columns on which
    ``lead`` columns of code precede the expression. Lists become tuples."""
    if value is None:  # the commonest value of an optional text: nothing to build
        return "None"
    table = _MEMO.get()
    if type(value) is str:  # the commonest literal: no type walk, no self-check when off
        if table is None:
            return _checked(value, indent, lead) if SELF_CHECK else _string(value, indent, lead)
        found = table.get((value, indent, lead))
        if found is None:
            found = _checked(value, indent, lead) if SELF_CHECK else _string(value, indent, lead)
            table[value, indent, lead] = found
        return found
    if table is None or not _memoizable(value):
        return _checked(value, indent, lead)
    key = (value, indent, lead)
    found = table.get(key)
    if found is None:
        found = table[key] = _checked(value, indent, lead)
    return found


def _memoizable(value: object) -> bool:
    """A str or a tuple of str: equal ones have the same literal (``1 == True`` do not)."""
    if isinstance(value, tuple):
        return type(value) is tuple and all(type(item) is str for item in value)
    return type(value) is str


def _checked(value: object, indent: int, lead: int) -> str:
    source = _render(value, indent, lead)
    if not SELF_CHECK:
        return source
    import ast

    expected = tuple(value) if isinstance(value, list) else value
    try:
        parsed = ast.literal_eval(source)
    except (ValueError, SyntaxError) as exc:  # pragma: no cover - a bug in this module
        raise LiteralError(f"not a valid literal for {value!r}: {exc}") from None
    if type(parsed) is not type(expected) or parsed != expected:  # pragma: no cover
        raise LiteralError(f"literal for {value!r} does not round-trip")
    return source


def _doc_char(char: str) -> str:
    """One character inside a ``\"\"\"`` literal: quotes and backslashes escaped, and every
    non-printable character (line ends, tabs, NUL, bidi controls, lone surrogates) spelled as
    its ``repr`` escape, so the literal can neither end early nor hide text."""
    if char in ('"', "\\"):
        return "\\" + char
    if char.isprintable() or char == " ":
        return char
    return repr(char)[1:-1]


def _is_plain(text: str) -> bool:
    """Whether every character of ``text`` stands for itself in a docstring."""
    return text.isprintable() and '"' not in text and "\\" not in text


def _doc_lines(text: str, room: int) -> list[tuple[str, str]]:
    """``(raw, escaped)`` lines of ``text`` wrapped at spaces so each escaped line fits ``room``
    columns (a longer word gets a line of its own); only ``\\n`` breaks a line."""
    lines: list[tuple[str, str]] = []
    for paragraph in text.split("\n"):
        # The usual paragraph: every word is its own escape, one column per character.
        if paragraph.isascii() and _is_plain(paragraph):
            lines.extend((line, line) for line in _plain_lines(paragraph, room))
        else:
            lines.extend(_escaped_lines(paragraph, room))
    return lines


def _escaped_lines(paragraph: str, room: int) -> list[tuple[str, str]]:
    """:func:`_doc_lines` of one paragraph of any text, word by word."""
    lines: list[tuple[str, str]] = []
    raw, escaped, width = "", "", 0  # width: display_width(escaped), kept as words join
    for index, word in enumerate(paragraph.split(" ")):
        # A plain word is what _doc_char gives each of its characters.
        word_escaped = word if _is_plain(word) else "".join(_doc_char(c) for c in word)
        word_width = display_width(word_escaped)
        if index and raw and width + 1 + word_width > room:
            lines.append((raw, escaped))
            raw, escaped, width = word, word_escaped, word_width
        elif index:
            raw, escaped = f"{raw} {word}", f"{escaped} {word_escaped}"
            width += 1 + word_width
        else:
            raw, escaped, width = word, word_escaped, word_width
    lines.append((raw, escaped))
    return lines


def _plain_lines(paragraph: str, room: int) -> list[str]:
    """:func:`_doc_lines` of one paragraph whose every character stands for itself and takes
    one column: the same breaks, found from word lengths alone."""
    words = paragraph.split(" ")
    lines: list[str] = []
    start, width = 0, len(words[0])
    for index in range(1, len(words)):
        size = len(words[index])
        if width and width + 1 + size > room:  # ``width``: the line so far is not empty
            lines.append(" ".join(words[start:index]))
            start, width = index, size
        else:
            width += 1 + size
    lines.append(" ".join(words[start:]))
    return lines


def docstring(text: str, indent: int = 0) -> str:
    """A ``\"\"\"`` literal showing ``text`` as a docstring on a line indented ``indent``
    columns: wrapped at spaces to the line width, continuation lines indented (what
    ``inspect.cleandoc`` removes), no trailing whitespace (a trailing space is spelled
    ``\\x20``). Checked like :func:`pyliteral`: the source evaluates to exactly the wrapped
    text, so spec text can never end the literal or reach the code around it."""
    room = max(WIDTH - indent - 3, 16)  # 3: the opening quotes
    lines = _doc_lines(text, room)
    pad = " " * indent
    for index, (raw, escaped) in enumerate(lines):
        if escaped.endswith(" "):
            lines[index] = (raw, escaped[:-1] + "\\x20")
    if len(lines) == 1 and display_width(lines[0][1]) + indent + 7 <= WIDTH:
        source, value = f'"""{lines[0][1]}"""', lines[0][0]
    else:
        rest = [(f"{pad}{raw}", f"{pad}{esc}") if raw else ("", "") for raw, esc in lines[1:]]
        value = "\n".join([lines[0][0], *(raw for raw, _ in rest), pad])
        source = '"""' + "\n".join([lines[0][1], *(esc for _, esc in rest), pad]) + '"""'
    if not SELF_CHECK:
        return source
    import ast

    try:
        parsed = ast.literal_eval(source)
    except (ValueError, SyntaxError) as exc:  # pragma: no cover - a bug in this module
        raise LiteralError(f"not a valid docstring for {text!r}: {exc}") from None
    if parsed != value:  # pragma: no cover
        raise LiteralError(f"docstring for {text!r} does not round-trip")
    return source

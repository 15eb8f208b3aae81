"""Mermaid's text preparation before its lexer, and how label text is displayed.

Steps 1, 2 and 4 of :mod:`generator.load.mermaid.parse`: ``preprocessDiagram`` (line ends, tag
attribute quotes, diagram front matter, directives, ``%%`` comment lines), ``encodeEntities``
and the decoding of labels as Mermaid shows them. Every transformation keeps a map back to the
offsets of the input so positions point into the text the author wrote.

Each pass is linear in the length of the text: the patterns Mermaid writes as regexes that
backtrack (a run of blanks before ``%%`` tried from every line) are run as scans here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

# JavaScript's \s (WhiteSpace + LineTerminator), written for a character class.
_JS_WS = "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_S = f"[{_JS_WS}]"
_NOT_S = f"[^{_JS_WS}]"
_DOT = "[^\n\r\u2028\u2029]"  # JavaScript's "." without the s flag
_W = "[A-Za-z0-9_]"  # JavaScript's \w (ASCII only)
_FLAGS = re.IGNORECASE | re.ASCII  # the grammar is %options case-insensitive

_ENTITY_PLACEHOLDER_NUM = "\ufb02\u00b0\u00b0"  # ﬂ°°  stands for "&#"
_ENTITY_PLACEHOLDER_NAMED = "\ufb02\u00b0"  # ﬂ°   stands for "&"
_ENTITY_PLACEHOLDER_END = "\u00b6\u00df"  # ¶ß   stands for ";"


_JS_WS_CHARS = (  # the same set, for str.strip
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _js_trim(text: str) -> str:
    """JavaScript's ``String.prototype.trim``."""
    return text.strip(_JS_WS_CHARS)


# --------------------------------------------------------------------------
# Step 1 and 2: preprocessing with a map back to the original offsets.


class _Mapped(NamedTuple):
    """Text plus, for each character (and one past the end), its offset in the input.

    ``origin`` None: positions are not wanted (measuring the size Mermaid sees), which
    saves copying a list of offsets per pass.
    """

    text: str
    origin: list[int] | None

    def sub(
        self,
        pattern: re.Pattern[str],
        repl: Callable[[re.Match[str]], str],
        endpos: int | None = None,
    ) -> _Mapped:
        size = len(self.text)
        matches = pattern.finditer(self.text, 0, size if endpos is None else endpos)
        parts: list[str] = []
        if self.origin is None:
            last = 0
            for match in matches:
                parts += (self.text[last : match.start()], repl(match))
                last = match.end()
            return _Mapped("".join(parts) + self.text[last:], None)
        old = self.origin
        origin: list[int] = []
        last = 0
        for match in matches:
            start, end = match.span()
            parts.append(self.text[last:start])
            origin.extend(old[last:start])
            new = repl(match)
            parts.append(new)
            if match.group(0).startswith(new):
                origin.extend(old[start : start + len(new)])
            else:
                origin.extend([old[start]] * len(new))
            last = end
        parts.append(self.text[last:])
        origin.extend(old[last:])
        return _Mapped("".join(parts), origin)

    def cut(self, spans: Iterable[tuple[int, int]]) -> _Mapped:
        """The text without the given (sorted, disjoint) spans."""
        parts: list[str] = []
        origin: list[int] = []
        last = 0
        for start, end in spans:
            parts.append(self.text[last:start])
            if self.origin is not None:
                origin.extend(self.origin[last:start])
            last = end
        parts.append(self.text[last:])
        if self.origin is None:
            return _Mapped("".join(parts), None)
        origin.extend(self.origin[last:])
        return _Mapped("".join(parts), origin)

    def lstrip_js(self) -> _Mapped:
        cut = len(self.text) - len(self.text.lstrip(_JS_WS_CHARS))
        return _Mapped(self.text[cut:], None if self.origin is None else self.origin[cut:])


_BREAKS = "\n\r\u2028\u2029"  # JavaScript's line terminators (where "." and "^" stop)
_CRLF = re.compile("\r\n?")
_TAG = re.compile(f"<({_W}+)([^>]*)>")
_ATTR_QUOTES = re.compile('="([^"]*)"')
_JS_BLANK = _JS_WS.replace("\n\x0b\x0c\r", "\x0b\x0c")  # \s without \n and \r
_FRONT_MATTER = re.compile(
    f"\\A([{_JS_BLANK}]*)-{{3}}{_S}*[\n\r](.*?)[\n\r]\\1-{{3}}{_S}*[\n\r]+", re.DOTALL
)
_DIRECTIVE = re.compile(
    f"%{{2}}{{{_S}*(?:({_W}+){_S}*:|({_W}+)){_S}*(?:({_W}+)|((?:(?!}}%{{2}}){_DOT}|\r?\n)*))?"
    f"{_S}*(?:}}%{{2}})?",
    _FLAGS,
)
_ENTITY = re.compile(f"#({_W}+);")
_INTEGER = re.compile(r"\+?[0-9]+\Z")


def _preprocess(mapped: _Mapped) -> _Mapped:
    """Mermaid's ``preprocessDiagram``: normalise, drop front matter, directives, comments."""
    mapped = mapped.sub(_CRLF, lambda m: "\n")
    mapped = mapped.sub(  # a tag needs a ">": searching past the last one cannot match
        _TAG,
        lambda m: "<" + m.group(1) + _ATTR_QUOTES.sub(r"='\1'", m.group(2)) + ">",
        mapped.text.rfind(">") + 1,
    )
    mapped = mapped.sub(_FRONT_MATTER, lambda m: "")
    mapped = mapped.sub(_DIRECTIVE, lambda m: "")
    mapped = mapped.cut(_comment_lines(mapped.text))
    return mapped.lstrip_js()


def _line_start(text: str, at: int) -> bool:
    return at == 0 or text[at - 1] in _BREAKS


def _comment_lines(text: str) -> Iterator[tuple[int, int]]:
    """The matches of Mermaid's ``/^\\s*%%(?!{)[^\\n]+\\n?/gm``, found by a scan.

    As a regex it is tried at every line start and its ``\\s*`` runs over all the blank
    lines that follow before it fails: quadratic in a run of blank lines. A match is the
    earliest line start (not before the previous match) from which only blanks lead to the
    ``%%``, so each blank is looked at once.
    """
    pos = 0
    while (mark := text.find("%%", pos)) >= 0:
        start = mark
        while start > pos and text[start - 1] in _JS_WS_CHARS:
            start -= 1
        line = next((at for at in range(start, mark + 1) if _line_start(text, at)), -1)
        tail = mark + 2
        if line < 0 or text[tail : tail + 1] in ("", "\n", "{"):
            pos = mark + 1
            continue
        newline = text.find("\n", tail)
        end = len(text) if newline < 0 else newline + 1
        yield line, end
        pos = end


def diagram_kind(text: str) -> str:
    """``stateDiagram-v2``, ``stateDiagram`` or "": Mermaid's detector, which first turns
    every ``\\s*%%.*\\n`` into a line feed (done here as one scan from the start, the only
    place the result is looked at)."""
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in _JS_WS_CHARS:
            pos += 1
        if not text.startswith("%%", pos):
            break
        end = pos + 2
        while end < size and text[end] not in _BREAKS:
            end += 1
        if end >= size or text[end] != "\n":
            return ""
        pos = end + 1
    for kind in ("stateDiagram-v2", "stateDiagram"):
        if text.startswith(kind, pos):
            return kind
    return ""


def _encode_entity(match: re.Match[str]) -> str:
    inner = match.group(1)
    if _INTEGER.match(inner):
        return _ENTITY_PLACEHOLDER_NUM + inner + _ENTITY_PLACEHOLDER_END
    return _ENTITY_PLACEHOLDER_NAMED + inner + _ENTITY_PLACEHOLDER_END


def _encode_entities(mapped: _Mapped) -> _Mapped:
    """Mermaid's ``encodeEntities``, quirks included.

    A line ``style...:...#...;`` (or ``classDef``) loses its last ``;``.
    """
    for word in ("style", "classDef"):
        mapped = mapped.cut((at, at + 1) for at in _lost_semicolons(mapped.text, word))
    return mapped.sub(_ENTITY, _encode_entity)


def _lost_semicolons(text: str, word: str) -> Iterator[int]:
    """The ``;`` that Mermaid's ``/word.*:\\S*#.*;/g`` drops, one scan per line.

    As a regex it backtracks over every ``:`` and ``;`` of the line from every ``word``.
    Per line: the first ``word``; a ``#`` before the line's last ``;`` with a ``:`` before
    it (after the word) and only non-blanks between them; then that last ``;`` goes.
    """
    pos = 0
    while (found := text.find(word, pos)) >= 0:
        line_end = found
        while line_end < len(text) and text[line_end] not in _BREAKS:
            line_end += 1
        semicolon = text.rfind(";", found + len(word), line_end)
        colon = -1  # the last ":" in the current run of non-blanks
        for at in range(found + len(word), max(semicolon, found)):
            char = text[at]
            if char in _JS_WS_CHARS:
                colon = -1
            elif char == "#" and colon >= 0:
                yield semicolon
                break
            elif char == ":":
                colon = at
        pos = line_end + 1


# --------------------------------------------------------------------------
# Step 4: what a label shows.

_BR = re.compile(f"<br{_S}*/?>", _FLAGS)
_CHAR_REF = re.compile(r"&(?:#([0-9]+);?|#[xX]([0-9a-fA-F]+);?|[A-Za-z][A-Za-z0-9]*;?)")


def _numeric_ref(number: int) -> str:
    # HTML's numeric character reference rules, as a browser applies them.
    if number == 0 or number > 0x10FFFF or 0xD800 <= number <= 0xDFFF:
        return "\ufffd"
    if 0x80 <= number <= 0x9F:
        try:
            return bytes([number]).decode("cp1252")
        except UnicodeDecodeError:
            return chr(number)
    return chr(number)


def _char_ref(match: re.Match[str]) -> str:
    decimal, hexadecimal = match.group(1), match.group(2)
    if decimal is not None:
        return _numeric_ref(int(decimal) if len(decimal) < 10 else 0x110000)
    if hexadecimal is not None:
        return _numeric_ref(int(hexadecimal, 16) if len(hexadecimal) < 9 else 0x110000)
    import html  # here: html.entities is a large table most diagrams never need

    return html.unescape(match.group(0))


def decode_display_text(raw: str) -> str:
    """Turn label text as written in a diagram into the text Mermaid shows.

    ``#59;`` / ``#quot;`` entities (and raw ``&...;`` references) are decoded,
    ``<br>`` becomes a newline. Markdown and other HTML are left as written.
    """
    text = _ENTITY.sub(_encode_entity, raw)
    return _decode_placeholders_for_display(text)


def _decode_placeholders(text: str) -> str:
    return (
        text.replace(_ENTITY_PLACEHOLDER_NUM, "&#")
        .replace(_ENTITY_PLACEHOLDER_NAMED, "&")
        .replace(_ENTITY_PLACEHOLDER_END, ";")
    )


_PLACEHOLDER_PARTS = re.compile(f"{_ENTITY_PLACEHOLDER_NAMED}|{_ENTITY_PLACEHOLDER_END}")


def _decode_placeholders_for_display(text: str) -> str:
    shown = _CHAR_REF.sub(_char_ref, _BR.sub("\n", _decode_placeholders(text)))
    if _PLACEHOLDER_PARTS.search(shown):
        # Mermaid decodes placeholders a second time after DOMPurify has turned
        # entities into characters (and escaped &, <, >): mirror that pass.
        escaped = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        shown = _CHAR_REF.sub(_char_ref, _decode_placeholders(escaped))
    return shown


def _as_written(text: str) -> str:
    """Undo ``encodeEntities`` so an id reads as in the source (``a#59;b``)."""
    return _ENCODED_ENTITY.sub(lambda m: f"#{m.group(1)};", text)


_ENCODED_ENTITY = re.compile(
    f"(?:{_ENTITY_PLACEHOLDER_NUM}|{_ENTITY_PLACEHOLDER_NAMED})({_W}+){_ENTITY_PLACEHOLDER_END}"
)

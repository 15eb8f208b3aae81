"""LSP positions <-> code-point offsets.

statedoc counts code points (1-based lines and columns); LSP counts lines at LF, CRLF and CR
only and characters in the negotiated encoding's code units: UTF-16 unless the client offers
another. An astral character (an emoji) is one column to statedoc, two UTF-16 units, four
UTF-8 bytes: every position that crosses the protocol goes through here.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lsprotocol import types

from generator.core.findings import Finding
from generator.load.source import Span

_BREAK = re.compile(r"\r\n?|\n")  # the same breaks as generator.load.source and LSP

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str = UTF16) -> int:
    """The length of ``text`` in the code units of ``encoding``."""
    if text.isascii() or encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _column(line: str, character: int, encoding: str) -> int:
    """The code-point index in ``line`` of LSP ``character`` (clamped to the line; a unit in the
    middle of a character counts as that character's end)."""
    if character <= 0:
        return 0
    if line.isascii() or encoding == UTF32:
        return min(character, len(line))
    count = 0
    for index, char in enumerate(line):
        if count >= character:
            return index
        code = ord(char)
        if encoding == UTF8:
            count += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        else:
            count += 2 if code > 0xFFFF else 1
    return len(line)


class Lines:
    """A text's line table, built once per version (the positions of one request or one
    diagnostics run share it)."""

    __slots__ = ("_starts", "encoding", "text")

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _BREAK.finditer(self.text))]
        return self._starts

    def line(self, index: int) -> str:
        """The 0-based line ``index`` without its line break ("" past the end)."""
        starts = self.starts
        if not 0 <= index < len(starts):
            return ""
        end = starts[index + 1] if index + 1 < len(starts) else len(self.text)
        return self.text[starts[index] : end].rstrip("\r\n")

    def offset(self, position: types.Position) -> int:
        """The code-point offset of an LSP position (clamped into the text)."""
        starts = self.starts
        if position.line >= len(starts):
            return len(self.text)
        line = max(0, position.line)
        return starts[line] + _column(self.line(line), position.character, self.encoding)

    def position(self, offset: int) -> types.Position:
        """The LSP position of a code-point offset (clamped into the text)."""
        offset = max(0, min(offset, len(self.text)))
        index = bisect_right(self.starts, offset) - 1
        start = self.starts[index]
        line = self.line(index)
        column = min(offset - start, len(line))
        return types.Position(index, units(line[:column], self.encoding))

    def at(self, line: int, column: int) -> types.Position:
        """The LSP position of statedoc's 1-based (line, column) in code points."""
        index = max(0, line - 1)
        text = self.line(index)
        return types.Position(index, units(text[: max(0, column - 1)], self.encoding))

    def range(self, span: Span) -> types.Range:
        return types.Range(self.position(span.start), self.position(span.end))

    def finding_range(self, finding: Finding) -> types.Range:
        """A finding's range: its end column is exclusive, as LSP's end position is."""
        return types.Range(
            self.at(finding.line, finding.column), self.at(finding.end_line, finding.end_column)
        )

    def point(self, line: int, column: int) -> types.Range:
        """One character from statedoc's (line, column): where a related place is."""
        start = self.at(line, column)
        text = self.line(start.line)
        index = _column(text, start.character, self.encoding)
        end = units(text[: index + 1], self.encoding) if index < len(text) else start.character
        return types.Range(start, types.Position(start.line, end))


def apply_change(text: str, change: types.TextDocumentContentChangeEvent, encoding: str) -> str:
    """``text`` after one ``didChange`` content change (a whole text or a ranged edit)."""
    if isinstance(change, types.TextDocumentContentChangeWholeDocument):
        return change.text
    lines = Lines(text, encoding)
    start = lines.offset(change.range.start)
    end = max(start, lines.offset(change.range.end))
    return text[:start] + change.text + text[end:]

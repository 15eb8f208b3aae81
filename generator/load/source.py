"""Source text: strict decoding and the offset -> (line, column) map every finding goes through.

Editors count lines at LF, CRLF and lone CR only; PyYAML also breaks at U+2028, U+2029 and NEL,
so its ``mark.line`` drifts. Everything here works from code-point offsets instead.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import NamedTuple

_BREAK = re.compile(r"\r\n?|\n")
BOM = "\ufeff"


class Span(NamedTuple):
    """A half-open range of code-point offsets into the decoded text (a tuple: made by the
    hundred thousand when loading, so it must be cheap)."""

    start: int
    end: int


@dataclass(frozen=True)
class SourceText:
    """Decoded document text (one leading BOM removed) with a lazily built line table."""

    text: str
    had_bom: bool = False
    _starts: list[int] = field(default_factory=list, repr=False, compare=False)
    _lookups: list[int] = field(default_factory=list, repr=False, compare=False)

    def _line_starts(self) -> list[int]:
        if not self._starts:
            self._starts.append(0)
            self._starts.extend(m.end() for m in _BREAK.finditer(self.text))
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a code-point offset, as an editor shows it."""
        offset = max(0, min(offset, len(self.text)))
        if not self._starts and len(self._lookups) < 4 and "\r" not in self.text:
            # A clean document asks for one or two positions (its id): counting in C is
            # cheaper than building the whole line table; many lookups build the table.
            self._lookups.append(offset)
            start = self.text.rfind("\n", 0, offset) + 1
            return self.text.count("\n", 0, offset) + 1, offset - start + 1
        starts = self._line_starts()
        index = bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index] + 1

    def offset(self, line: int, column: int) -> int:
        """The code-point offset of a 1-based (line, column): the inverse of ``position``."""
        starts = self._line_starts()
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + column - 1, len(self.text))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line break."""
        if not self._starts and 1 <= line <= 16 and "\r" not in self.text:
            # A clean document asks for the line of its id, near the top: finding a few
            # line breaks is cheaper than building the whole line table.
            start = 0
            for _ in range(line - 1):
                start = self.text.find("\n", start) + 1
                if start == 0:
                    return ""
            end = self.text.find("\n", start)
            return self.text[start : len(self.text) if end == -1 else end]
        starts = self._line_starts()
        if not 1 <= line <= len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


class DecodeError(Exception):
    """The bytes are not UTF-8; carries the position an editor would show."""

    def __init__(self, line: int, column: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.column = column
        self.reason = reason


def decode(data: bytes) -> SourceText:
    """Strict UTF-8 with one optional BOM; the error position counts code points, not bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        if good.startswith(BOM):
            good = good[1:]
        prefix = SourceText(good)
        line, column = prefix.position(len(good))
        bad = data[exc.start : exc.end].hex(" ")
        raise DecodeError(line, column, f"invalid UTF-8 byte(s) {bad}: {exc.reason}") from None
    if text.startswith(BOM):
        return SourceText(text[1:], had_bom=True)
    return SourceText(text)


_ONLY_REGULAR = "not a regular file: only regular files are read"


class NotAFileError(OSError):
    """The path is not a regular file (a FIFO, device, socket or folder): never read it."""


def _kind(mode: int) -> str:
    import stat

    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def read_bounded(path: str | os.PathLike[str], limit: int) -> tuple[bytes, int]:
    """Read a regular file, at most ``limit + 1`` bytes; returns the bytes and the file size.

    Opened non-blocking (a FIFO would otherwise wait for a writer forever) and checked with
    ``stat`` before and ``fstat`` after opening (no race with a swap), so a device such as
    ``/dev/zero`` or a 1 GiB sparse file never costs more than the limit. Raises
    :class:`NotAFileError` for anything but a regular file and ``OSError`` when it cannot be read.
    """
    import stat

    before = os.stat(path)  # never even open a device (opening some has side effects)
    if not stat.S_ISREG(before.st_mode):
        raise NotAFileError(0, f"{_kind(before.st_mode)}, {_ONLY_REGULAR}")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)  # what was opened, should the path have been swapped meanwhile
        if not stat.S_ISREG(info.st_mode):
            raise NotAFileError(0, f"{_kind(info.st_mode)}, {_ONLY_REGULAR}")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        wanted = limit + 1
        while wanted > 0:
            chunk = os.read(fd, min(wanted, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data, max(info.st_size, len(data))

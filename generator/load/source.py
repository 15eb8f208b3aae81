"""Source text: strict decoding and the offset -> (line, column) map every finding goes through.

Editors count lines at LF, CRLF and lone CR only; PyYAML also breaks at U+2028, U+2029 and NEL,
so its ``mark.line`` drifts. Everything here works from code-point offsets instead.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from functools import cached_property
from typing import NamedTuple

_BREAK = re.compile(r"\r\n?|\n")
BOM = "\ufeff"


class Span(NamedTuple):
    """A half-open range of code-point offsets into the decoded text (a tuple: made by the
    hundred thousand when loading, so it must be cheap)."""

    start: int
    end: int


#: Counting line breaks from the last lookup may scan this many times the text before the
#: full line table is built instead (a table costs about a microsecond per line, a scan a
#: fraction of a nanosecond per character, so a blank-line-heavy text never needs one).
_SCAN_BUDGET = 16


class _SourceFields(NamedTuple):
    text: str
    had_bom: bool = False


class SourceText(_SourceFields):
    """Decoded document text (one leading BOM removed) with a lazily built line table.

    Lookups count line breaks (``str.count``, in C) from the previous lookup, as findings
    come roughly in order, and remember the start of each line they met; the full table (one
    int per line) is built only once counting has scanned ``_SCAN_BUDGET`` times the text.
    Equal and hashed by its fields (a NamedTuple's); the tables live in the subclass's
    ``__dict__``, outside them.
    """

    @cached_property
    def _starts(self) -> list[int]:
        return []

    @cached_property
    def _cursor(self) -> list[int]:
        """Counting state: [cursor offset, its line, its line's start, characters scanned,
        1 if the text holds a CR]; empty until the first lookup."""
        return []

    @cached_property
    def _known(self) -> dict[int, int]:
        return {}

    def _line_starts(self) -> list[int]:
        if not self._starts:
            self._starts.append(0)
            self._starts.extend(m.end() for m in _BREAK.finditer(self.text))
        return self._starts

    def _breaks(self, low: int, high: int, cr: int) -> int:
        """Line starts in ``(low, high]`` (``low < high``): LF, CR and CRLF each count once,
        and ``high`` between the CR and the LF of a CRLF is still on the CR's line."""
        text = self.text
        found = text.count("\n", low, high)
        if cr:
            found += text.count("\r", low, high) - text.count("\r\n", low, high)
            found -= text[high - 1 : high + 1] == "\r\n"
        return found

    def _line_start(self, low: int, offset: int, cr: int) -> int:
        """The last line start in ``(low, offset]``, or 0 when there is none (scanning no
        further back than ``low``)."""
        text = self.text
        start = text.rfind("\n", low, offset) + 1
        if cr:
            end = offset - (offset > 0 and text[offset - 1 : offset + 1] == "\r\n")
            start = max(start, text.rfind("\r", max(start, low), end) + 1)
        return start

    def _counted(self, offset: int) -> tuple[int, int] | None:
        """(line, line start) of ``offset`` by counting, or None when the table is due."""
        text, cursor = self.text, self._cursor
        if self._starts:
            return None
        if not cursor:
            cursor.extend((0, 1, 0, 0, "\r" in text))
        at, line, start, scanned, cr = cursor
        if offset > at:
            line += self._breaks(at, offset, cr)
            start = max(start, self._line_start(at, offset, cr))
            scanned += offset - at
        elif offset < start:
            line -= self._breaks(offset, at, cr)
            start = self._line_start(0, offset, cr)
            scanned += at - start
        else:  # earlier on the same line
            scanned += 1
        if scanned > _SCAN_BUDGET * (len(text) + 1):
            return None
        cursor[:] = (offset, line, start, scanned, cr)
        self._known[line] = start
        return line, start

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a code-point offset, as an editor shows it."""
        offset = max(0, min(offset, len(self.text)))
        counted = self._counted(offset)
        if counted is not None:
            return counted[0], offset - counted[1] + 1
        starts = self._line_starts()
        index = bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index] + 1

    def _start(self, line: int) -> int | None:
        """The offset where a 1-based line starts, if counting already met it (or the next)."""
        if self._starts or not self._cursor:
            return None
        if line in self._known:
            return self._known[line]
        after = self._known.get(line + 1)
        if not after:
            return None
        start = self._line_start(0, after - 1, self._cursor[4])  # before its line break
        self._known[line] = start
        return start

    def offset(self, line: int, column: int) -> int:
        """The code-point offset of a 1-based (line, column): the inverse of ``position``."""
        start = self._start(line)
        if start is not None:
            return min(start + column - 1, len(self.text))
        starts = self._line_starts()
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + column - 1, len(self.text))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line break."""
        start = self._start(line)
        if start is not None:
            found = _BREAK.search(self.text, start)
            return self.text[start : found.start() if found is not None else len(self.text)]
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

"""The Markdown body: headings and fenced code blocks, with offsets into the file text.

Only what the rules need: the first heading (SD206), the ``## The Lifecycle`` section and the
Mermaid block (SD3xx, ``diagram --write``). Fences follow CommonMark: up to three spaces of
indent, three or more backticks or tildes, closed by a fence of the same character at least as
long; an unclosed fence runs to the end of the document.
"""

from __future__ import annotations

import re
from functools import cache, cached_property
from typing import NamedTuple

#: The heading of the section that holds the diagram.
LIFECYCLE = "The Lifecycle"

_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n|$)")
_LINE_START = r"(?:^|(?<=[\r\n]))"  # LF, CRLF and a lone CR end a line
# A line that may open a fence or be a heading: up to three spaces, then ` ~ or #.
_CANDIDATE = re.compile(_LINE_START + r" {0,3}[`~#]")


@cache
def _at_line_start(pattern: str, carriage_returns: bool) -> re.Pattern[str]:
    """``pattern`` at the start of a line. Without a carriage return in the text, ``^`` in
    multiline mode says the same as :data:`_LINE_START`'s look-behind, and is cheaper."""
    if carriage_returns:
        return re.compile(_LINE_START + pattern)
    return re.compile("^" + pattern, re.MULTILINE)


def _closing(char: str, count: int, carriage_returns: bool) -> re.Pattern[str]:
    """A line that closes a fence opened with ``count`` times ``char``."""
    return _at_line_start(
        r" {0,3}" + re.escape(char) + f"{{{count},}}" + r"[ \t]*(?=[\r\n]|\Z)", carriage_returns
    )


def _fence_open(line: str) -> tuple[str, str] | None:
    """(marker, info) of an opening fence line, else None.

    String operations, not a regex: a regex with two adjacent runs that can both take spaces
    backtracks quadratically on a long line of spaces.
    """
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or stripped[:1] not in ("`", "~"):
        return None
    rest = stripped.lstrip(stripped[0])
    marker = stripped[: len(stripped) - len(rest)]
    if len(marker) < 3 or "`" in rest:
        return None
    rest = rest.lstrip(" \t")
    end = 0
    while end < len(rest) and not rest[end].isspace():
        end += 1
    return marker, rest[:end]


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, else None (a trailing ``#`` run is dropped).

    String operations, not a regex: see :func:`_fence_open`.
    """
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return None
    rest = stripped.lstrip("#")
    level = len(stripped) - len(rest)
    if not 1 <= level <= 6 or rest[:1] not in ("", " ", "\t"):
        return None
    rest = rest.lstrip(" \t")
    title = rest.rstrip(" \t")
    unhashed = title.rstrip("#")
    if len(unhashed) < len(title) and unhashed[-1:] in (" ", "\t"):
        title = unhashed.rstrip(" \t")
    return level, title.strip()


class Heading(NamedTuple):
    level: int
    text: str
    start: int  # offset of the heading line
    end: int  # offset just past its line break


class Fence(NamedTuple):
    info: str
    start: int  # offset of the opening fence line
    content_start: int  # offset of the first content line
    content_end: int  # offset of the closing fence line (== end of text if unclosed)
    end: int  # offset just past the closing fence line
    closed: bool
    marker: str = "```"  # the opening fence's characters: a closing fence must match it

    def content(self, text: str) -> str:
        return text[self.content_start : self.content_end]


class _BodyFields(NamedTuple):
    text: str  # the whole document
    offset: int  # where the body starts


class Body(_BodyFields):
    """Headings and fences of the body (``text[offset:]``); offsets are into ``text``. The
    subclass's ``__dict__`` holds the cached scans."""

    @cached_property
    def _scan(self) -> tuple[tuple[Heading, ...], tuple[Fence, ...]]:
        """One pass; lines that cannot open a fence or a heading (and a fence's content) are
        skipped by a regex search, so the cost per line is C's, not Python's."""
        headings: list[Heading] = []
        fences: list[Fence] = []
        text = self.text
        pos = self.offset
        crs = "\r" in text
        candidates = _CANDIDATE if crs else _at_line_start(r" {0,3}[`~#]", False)
        while (candidate := candidates.search(text, pos)) is not None:
            pos = candidate.start()
            match = _LINE.match(text, pos)
            assert match is not None
            end = match.end()
            line = match.group().rstrip("\r\n")
            fence = _fence_open(line)
            if fence is not None:
                marker, info = fence
                closing = _closing(marker[0], len(marker), crs).search(text, end)
                if closing is None:
                    fences.append(
                        Fence(info.lower(), pos, end, len(text), len(text), False, marker)
                    )
                    break
                close_end = _LINE.match(text, closing.start())
                assert close_end is not None
                fences.append(
                    Fence(info.lower(), pos, end, closing.start(), close_end.end(), True, marker)
                )
                end = close_end.end()
            else:
                heading = _heading(line)
                if heading is not None:
                    headings.append(Heading(heading[0], heading[1], pos, end))
            if end == pos:  # pragma: no cover - only an empty last line matches empty
                break
            pos = end
        return tuple(headings), tuple(fences)

    @property
    def headings(self) -> tuple[Heading, ...]:
        return self._scan[0]

    @property
    def fences(self) -> tuple[Fence, ...]:
        return self._scan[1]

    @cached_property
    def state_diagrams(self) -> tuple[Fence, ...]:
        """Every ``mermaid`` fence that holds a state diagram (other diagrams are not ours)."""
        return tuple(
            fence
            for fence in self.fences
            if fence.info == "mermaid"
            and _first_statement(fence.content(self.text)).startswith("statediagram")
        )

    @cached_property
    def mermaid(self) -> Fence | None:
        """The authoritative state diagram: the first in ``## The Lifecycle``, else the first.

        The others are reported (SD307), never checked against the front matter: two
        diagrams of one lifecycle can only disagree.
        """
        section = self.lifecycle
        inside = [
            fence
            for fence in self.state_diagrams
            if section is not None and section[0] <= fence.start < section[1]
        ]
        found = inside or list(self.state_diagrams)
        return found[0] if found else None

    @cached_property
    def lifecycle(self) -> tuple[int, int] | None:
        """Offsets of the ``## The Lifecycle`` section (to the next heading of level 1-2)."""
        headings = self.headings
        for index, heading in enumerate(headings):
            if heading.level == 2 and heading.text.casefold() == LIFECYCLE.casefold():
                end = next((h.start for h in headings[index + 1 :] if h.level <= 2), len(self.text))
                return heading.start, end
        return None


#: What ``str.splitlines`` breaks at (every one is also whitespace to ``\s``).
_LINE_END = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_NOT_SPACE = re.compile(r"\S")


def _first_statement(content: str) -> str:
    """The first line that is neither blank nor a ``%%`` comment, stripped and lowercased.

    Jumps from one non-blank character to the next rather than splitting the content, so a
    block of a million blank lines costs one regex scan, not a list of a million lines."""
    at = 0
    while (found := _NOT_SPACE.search(content, at)) is not None:
        end = _LINE_END.search(content, found.start())
        at = end.start() if end is not None else len(content)
        line = content[found.start() : at].strip()
        if not line.startswith("%%"):
            return line.lower()
    return ""

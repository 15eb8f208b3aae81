"""Split a document into YAML front matter and Markdown body, by hand and without stripping.

python-frontmatter silently returns ``{}`` for a missing or unterminated block and strips text
(shifting every line number), so the split is done here with exact offsets.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Linear on any input: the look-behind is one character, the possessive ``*+`` never gives
# back a run of blanks to retry the line break (a 1 MB line of spaces is scanned once), and
# the first line is found with a match, not by splitting the whole text into lines.
_FENCE = re.compile(r"---[ \t]*+(?:\r\n?|\n|\Z)")
_CLOSE = re.compile(r"(?<=[\r\n])---[ \t]*+(?:\r\n?|\n|\Z)")
_FIRST_LINE = re.compile(r"[^\r\n]{0,41}")


class Split(NamedTuple):
    """Offsets are code points into the decoded text."""

    yaml_text: str
    yaml_offset: int
    body: str
    body_offset: int


class SplitError(Exception):
    """The document has no usable front matter block (``code`` is SD001 or SD002)."""

    def __init__(self, code: str, offset: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.offset = offset
        self.message = message


def split(text: str) -> Split:
    """Return the front matter and body; raise SplitError with SD001/SD002 otherwise."""
    opening = _FENCE.match(text)
    if opening is None:
        first = _FIRST_LINE.match(text)
        assert first is not None  # matches the empty string at worst
        shown = first.group() if len(first.group()) <= 40 else first.group()[:40] + "..."
        found = f"found {shown!r}" if text else "the file is empty"
        raise SplitError(
            "SD001", 0, f"the file does not start with a '---' front matter line ({found})"
        )
    start = opening.end()
    # A closing fence needs a line start: the opening fence's own end counts as one.
    closing = _closing(text, start)
    if closing is None:
        raise SplitError("SD002", 0, "the front matter opened on line 1 has no closing '---' line")
    return Split(
        yaml_text=text[start : closing.start()],
        yaml_offset=start,
        body=text[closing.end() :],
        body_offset=closing.end(),
    )


def _closing(text: str, start: int) -> re.Match[str] | None:
    """The closing fence: ``_CLOSE.search``, but a look-behind stops the regex engine from
    skipping ahead, so a text with only ``\\n`` line breaks (nearly all) jumps from one
    ``\\n---`` to the next with ``str.find`` instead."""
    if "\r" in text:
        return _CLOSE.search(text, start)
    pos = start - 1  # the opening fence's own line break counts as a line start
    while (pos := text.find("\n---", pos)) != -1:
        fence = _FENCE.match(text, pos + 1)
        if fence is not None:
            return fence
        pos += 1
    return None

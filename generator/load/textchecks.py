"""Checks on the raw text, before and beside YAML: foreign encodings and bidi controls."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from generator.load.markdown import Body

_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)

#: Explicit embeddings, overrides and isolates, the implicit marks and the Arabic letter mark:
#: each can make text display in an order other than the one it is read in.
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
#: The characters :data:`BIDI` matches, for a quick substring test.
_BIDI_CHARS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def foreign_encoding(data: bytes) -> str | None:
    """The name of a UTF-16/UTF-32 encoding the bytes are in (by BOM, or by the NUL bytes
    that ASCII text has in them without one), else None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:64]
    if len(head) < 8 or data.startswith(b"---") or b"\x00" not in head:
        return None  # a spec starts with '---'; only ASCII-looking text is judged without BOM
    quarters = [head[i::4] for i in range(4)]
    halves = [head[i::2] for i in range(2)]

    def zeros(part: bytes) -> bool:
        return part.count(0) == len(part)

    def letters(part: bytes) -> bool:
        return 0 not in part

    if letters(quarters[0]) and all(map(zeros, quarters[1:])):
        return "UTF-32 LE"
    if letters(quarters[3]) and all(map(zeros, quarters[:3])):
        return "UTF-32 BE"
    if letters(halves[0]) and zeros(halves[1]):
        return "UTF-16 LE"
    if letters(halves[1]) and zeros(halves[0]):
        return "UTF-16 BE"
    return None


def bidi_controls(text: str, body_offset: int) -> Iterator[tuple[int, str]]:
    """(offset, message) for each raw bidi control in the front matter or a Mermaid block."""
    if text.isascii() or not any(char in text for char in _BIDI_CHARS):
        return  # a substring search per character is far cheaper than the regex's scan
    regions = [(0, body_offset, "front matter")]
    regions += [
        (fence.content_start, fence.content_end, "diagram")
        for fence in Body(text, body_offset).fences
        if fence.info == "mermaid"
    ]
    for start, end, where in regions:
        for match in BIDI.finditer(text, start, end):
            char = match.group()
            escape = f"\\u{ord(char):04x} in a double-quoted string"
            if where == "diagram":
                escape = f"#{ord(char)}; in a quoted name or label"
            yield (
                match.start(),
                f"raw bidirectional control U+{ord(char):04X} {unicodedata.name(char)} in the "
                f"{where}: it can make the text display in another order than it is read "
                f"(trojan source); remove it or write it as {escape}",
            )

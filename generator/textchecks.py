"""Checks on the raw text, before and beside YAML: foreign encodings and bidi controls."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from generator.body import Body

_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)

#: Explicit embeddings, overrides and isolates, the implicit marks and the Arabic letter mark:
#: each can make text display in an order other than the one it is read in.
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def foreign_encoding(data: bytes) -> str | None:
    """The name of a UTF-16/UTF-32 encoding the bytes are in (by BOM, or by the NUL bytes
    that ASCII text has in them without one), else None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:64]
    if len(head) >= 8 and b"\x00" in head:
        if head[1::4].count(0) == head[2::4].count(0) == head[3::4].count(0) == len(head) // 4:
            return "UTF-32 LE"
        if head[0::4].count(0) == head[1::4].count(0) == head[2::4].count(0) == len(head) // 4:
            return "UTF-32 BE"
        if head[1::2].count(0) == len(head) // 2 and 0 not in head[0::2]:
            return "UTF-16 LE"
        if head[0::2].count(0) == len(head) // 2 and 0 not in head[1::2]:
            return "UTF-16 BE"
    return None


def bidi_controls(text: str, body_offset: int) -> Iterator[tuple[int, str]]:
    """(offset, message) for each raw bidi control in the front matter or a Mermaid block."""
    if BIDI.search(text) is None:
        return
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

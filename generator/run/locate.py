"""Where a key of pyproject.toml is written, so a finding about a configured value points at
its line (``tomllib`` keeps no positions).

A line scan that knows TOML's table headers, dotted keys (bare or quoted) and inline tables:
the key's own line when it is found, else its table's header, else the top of the file. It
never fails: a position is a pointer for the reader, the value itself was read by ``tomllib``.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["key_span"]

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_DOTTED = rf"{_PART}(?:[ \t]*\.[ \t]*{_PART})*"
_HEADER = re.compile(rf"[ \t]*\[[ \t]*({_DOTTED})[ \t]*\]")
_ARRAY_HEADER = re.compile(r"[ \t]*\[\[")
_ASSIGN = re.compile(rf"([ \t]*)({_DOTTED})[ \t]*=")
_ONE_PART = re.compile(_PART)


def _parts(dotted: str) -> tuple[str, ...]:
    """The key names of a dotted key, quotes removed (escapes kept as written: names in
    pyproject.toml tables are plain)."""
    return tuple(part.strip("\"'") for part in _ONE_PART.findall(dotted))


At = tuple[int, int, int, int]


def key_span(source: Path, table: tuple[str, ...], key: str) -> At:
    """``(line, column, end_line, end_column)`` (1-based) of ``key`` of ``table`` in the TOML
    file ``source``: from the key to the end of its line."""
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return (1, 1, 1, 1)
    wanted = (*table, key)
    current: tuple[str, ...] | None = ()
    fallback: At = (1, 1, 1, 1)
    for number, line in enumerate(lines, start=1):
        end = len(line.rstrip()) + 1
        if _ARRAY_HEADER.match(line):
            current = None  # an array of tables: never the table looked for
            continue
        header = _HEADER.match(line)
        if header is not None:
            current = _parts(header.group(1))
            if current == table:
                fallback = (number, 1, number, end)
            continue
        assign = _ASSIGN.match(line)
        if current is None or assign is None:
            continue
        full = (*current, *_parts(assign.group(2)))
        if full == wanted:
            return (number, len(assign.group(1)) + 1, number, end)
        if full == wanted[: len(full)]:  # an inline table holding the key
            rest = wanted[len(full) :]
            found = _inline(line, assign.end(), rest)
            if found is not None:
                return (number, found + 1, number, end)
    return fallback


def _inline(line: str, start: int, parts: tuple[str, ...]) -> int | None:
    """The index of the last of ``parts`` assigned in the inline table(s) after ``start``."""
    at = start
    for part in parts:
        match = re.compile(rf"""(?:^|[{{,\s])["']?({re.escape(part)})["']?[ \t]*=""").search(
            line, at
        )
        if match is None:
            return None
        at = match.start(1)
    return at

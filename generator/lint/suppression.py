"""Inline suppression: ``# statedoc: ignore[CODE]`` in a real comment on the reported line.

Only a YAML comment in the front matter, or a Mermaid ``%%`` comment in a ``mermaid`` block of
the body, counts. The same text inside a quoted trigger, a block scalar or a Markdown heading
is just text: matching it there would let a value silence a finding, and a file without front
matter (SD001) could never be told apart from a spec that asked to be silenced.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Iterator

from generator.load.markdown import Body
from generator.load.source import SourceText, Span
from generator.load.strict_yaml import Scalars

MARK = "statedoc:"
_DIRECTIVE = re.compile(r"(?:#|%%)\s*statedoc:\s*ignore\[([^\]\r\n]*)\]")
_TOKEN = re.compile(r"[^\s,]+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n|$)")


class Suppressions:
    """Codes silenced per 1-based line (an empty tuple silences every code on its line), and
    the entries that name no rule (reported as SD012)."""

    __slots__ = ("lines", "unknown")

    def __init__(self) -> None:
        self.lines: dict[int, list[tuple[str, ...]]] = {}
        self.unknown: list[tuple[Span, str]] = []

    def ignores(self, line: int, code: str) -> bool:
        return any(
            not codes or any(code.startswith(c) for c in codes)
            for codes in self.lines.get(line, ())
        )


def find(
    source: SourceText,
    yaml_span: Span,
    body_offset: int,
    scalars: Scalars | None,
    known: Collection[str],
) -> Suppressions:
    """Every ``statedoc: ignore[...]`` directive that stands in a real comment.

    The front matter counts only when it parsed completely (``scalars.complete``): in a
    document with a syntax error nobody can say what is a comment, so nothing is silenced.
    """
    found = Suppressions()
    text = source.text
    if MARK not in text:
        return found
    matches: list[tuple[int, re.Match[str]]] = []
    if scalars is not None and scalars.complete:
        starts = [span.start for span in scalars.spans]
        for match in _DIRECTIVE.finditer(text, yaml_span.start, yaml_span.end):
            if _in_yaml_comment(text, match.start(), yaml_span.start, scalars.spans, starts):
                matches.append((match.start(), match))
    for span in _mermaid_comments(text, body_offset):
        matches.extend(
            (span.start + m.start(), m) for m in _DIRECTIVE.finditer(text[span.start : span.end])
        )
    for where, match in matches:
        line, _ = source.position(where)
        codes: list[str] = []
        for token in _TOKEN.finditer(match.group(1)):
            code = token.group().upper()
            if any(k.startswith(code) for k in known):
                codes.append(code)
            else:
                at = where + match.start(1) - match.start() + token.start()
                found.unknown.append((Span(at, at + len(code)), token.group()))
        if codes or not _TOKEN.search(match.group(1)):
            found.lines.setdefault(line, []).append(tuple(codes))
    return found


def _in_yaml_comment(
    text: str, at: int, yaml_start: int, spans: list[Span], starts: list[int]
) -> bool:
    """Whether offset ``at`` is inside a YAML comment: outside every scalar, after a ``#``
    that starts its line or follows a blank (YAML's rule) with no scalar in between."""
    index = bisect_right(starts, at) - 1
    line_break = max(text.rfind("\n", yaml_start, at), text.rfind("\r", yaml_start, at))
    line_start = line_break + 1 if line_break >= 0 else yaml_start
    low = max(line_start, spans[index].end if index >= 0 else 0)
    if index >= 0 and spans[index].end > at:
        span = spans[index]
        if text[span.start] not in "|>" or span.start < line_start:
            return False  # inside a quoted, plain or block scalar (or a key)
        low = span.start + 1  # the header line of a block scalar may end in a comment
    hash_at = text.find("#", low, at + 1)
    while hash_at >= 0:
        if hash_at == line_start or text[hash_at - 1] in " \t":
            return True
        hash_at = text.find("#", hash_at + 1, at + 1)
    return False


def _mermaid_comments(text: str, body_offset: int) -> Iterator[Span]:
    """``%%`` comments of every ``mermaid`` block: a line that starts with ``%%`` (not a
    ``%%{`` directive), or a trailing ``%%`` with no label (``:``) or quoted name before it,
    where Mermaid's lexer reads it as a comment and not as label text."""
    if MARK not in text[body_offset:]:
        return
    for fence in Body(text, body_offset).fences:
        if fence.info != "mermaid" or MARK not in fence.content(text):
            continue
        pos = fence.content_start
        while pos < fence.content_end:
            match = _LINE.match(text, pos, fence.content_end)
            assert match is not None
            line = match.group().rstrip("\r\n")
            at = line.find("%%")
            if at >= 0 and not line.startswith("%%{", at):
                before = line[:at]
                if not before.strip() or (":" not in before and '"' not in before):
                    yield Span(pos + at, pos + len(line))
            if match.end() == pos:
                break
            pos = match.end()

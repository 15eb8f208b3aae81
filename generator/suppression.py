"""Inline suppression: ``# statedoc: ignore[CODE]`` in a real comment on the reported line.

Only a YAML comment in the front matter, or a Mermaid ``%%`` comment in a ``mermaid`` block of
the body, counts. The same text inside a quoted trigger, a block scalar or a Markdown heading
is just text: matching it there would let a value silence a finding, and a file without front
matter (SD001) could never be told apart from a spec that asked to be silenced.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from generator.body import Body
from generator.source import SourceText, Span
from generator.yamlload import comments

MARK = "statedoc:"
_DIRECTIVE = re.compile(r"(?:#|%%)\s*statedoc:\s*ignore\[([^\]\r\n]*)\]")
_TOKEN = re.compile(r"[^\s,]+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n|$)")


@dataclass
class Suppressions:
    """Codes silenced per 1-based line (an empty tuple silences every code on its line), and
    the entries that name no rule (reported as SD012)."""

    lines: dict[int, list[tuple[str, ...]]] = field(default_factory=dict)
    unknown: list[tuple[Span, str]] = field(default_factory=list)

    def ignores(self, line: int, code: str) -> bool:
        return any(
            not codes or any(code.startswith(c) for c in codes)
            for codes in self.lines.get(line, ())
        )


def find(
    source: SourceText, yaml_text: str, yaml_offset: int, body_offset: int, known: Collection[str]
) -> Suppressions:
    """Every ``statedoc: ignore[...]`` directive that stands in a real comment."""
    found = Suppressions()
    if MARK not in source.text:
        return found
    spans: list[Span] = []
    if MARK in yaml_text:
        spans.extend(Span(yaml_offset + s, yaml_offset + e) for s, e in comments(yaml_text))
    spans.extend(_mermaid_comments(source.text, body_offset))
    for span in spans:
        text = source.text[span.start : span.end]
        for match in _DIRECTIVE.finditer(text):
            line, _ = source.position(span.start + match.start())
            codes: list[str] = []
            for token in _TOKEN.finditer(match.group(1)):
                code = token.group().upper()
                if any(k.startswith(code) for k in known):
                    codes.append(code)
                else:
                    where = span.start + match.start(1) + token.start()
                    found.unknown.append((Span(where, where + len(code)), token.group()))
            if codes or not _TOKEN.search(match.group(1)):
                found.lines.setdefault(line, []).append(tuple(codes))
    return found


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

"""Reporters: findings -> text for people and CI systems. Pure functions of their input."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from generator.core.findings import Finding

FORMATS = ("text", "json", "github", "sarif", "junit")


def default_format() -> str:
    """The format of a run without ``--format``: ``STATEDOC_FORMAT`` or text. Not checked
    against :data:`FORMATS` here: the command line reports a bad value as a usage error."""
    return (os.environ.get("STATEDOC_FORMAT") or "text").lower()


_TEXT_LINE = re.compile(r".+:[0-9]+:[0-9]+: SD[0-9]{3} ")
_GITHUB_LINE = re.compile(r"::(?:error|warning) file=")
_JUNIT_START = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="statedoc" '


class Run(NamedTuple):
    """What a reporter may need besides findings: which files were checked, by which version."""

    findings: Sequence[Finding]
    files: Sequence[str]
    tool_version: str


def render(fmt: str, run: Run) -> str:
    """The report in ``fmt``; each reporter module imports only what it needs."""
    renderer: Callable[[Run], str]
    if fmt == "text":
        from generator.report.text import render as renderer
    elif fmt == "json":
        from generator.report.json import render as renderer
    elif fmt == "github":
        from generator.report.github import render as renderer
    elif fmt == "sarif":
        from generator.report.sarif import render as renderer
    elif fmt == "junit":
        from generator.report.junit import render as renderer
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return renderer(run)


def is_report(fmt: str, data: bytes) -> bool:
    """Whether ``data`` is recognisably a report statedoc wrote in ``fmt`` (so ``--output``
    may replace it): a cheap structural check, never a full parse of untrusted XML."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if fmt == "text":
        return all(_TEXT_LINE.match(line) for line in text.splitlines() if line)
    if fmt == "github":
        return all(_GITHUB_LINE.match(line) for line in text.splitlines() if line)
    if fmt == "junit":
        return text.startswith(_JUNIT_START)
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return False
    if fmt == "json":
        keys = {"path", "line", "column", "code", "message"}
        return isinstance(value, list) and all(
            isinstance(item, dict) and keys <= item.keys() for item in value
        )
    if fmt == "sarif":
        try:
            return bool(value["version"] == "2.1.0") and all(
                run["tool"]["driver"]["name"] == "statedoc" for run in value["runs"]
            )
        except (KeyError, TypeError, IndexError):
            return False
    return False


# Control characters (C0, DEL, C1 including NEL), line and paragraph separators, bidi
# controls and lone surrogates (undecodable bytes of a file name, kept by surrogateescape).
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_BREAKS = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, keep_breaks: bool = False) -> str:
    """``text`` safe to print on one line of any terminal or log: control characters, bidi
    controls and undecodable file-name bytes backslash-escaped (``\\n``, ``\\xff``,
    ``\\u202e``). ``keep_breaks`` escapes only undecodable bytes (for formats with their own
    escaping of line breaks)."""
    return (_BREAKS if keep_breaks else _UNPRINTABLE).sub(_escape, text)


def json_text(value: object) -> str:
    """JSON with non-ASCII kept readable but lone surrogates (undecodable file-name bytes)
    written as ``\\udcff`` escapes, so the report encodes as UTF-8 and ``json.loads`` then
    ``os.fsencode`` give back the original name."""
    import json

    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"

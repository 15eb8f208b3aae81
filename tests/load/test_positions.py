"""Every finding points inside the text it is about.

Convention (README, ``generator.lint.document.text_range``): lines and columns are 1-based and count
code points; the end is exclusive, so ``end_column`` may be one past the last character of
``end_line``; a span never covers a line break (not even CRLF's ``\\r``) and never reaches past
the last line (a final line break does not start another line).

The property runs over mutated seeds (the specs of this repository and the explain examples),
random text, LF/CRLF/CR line breaks and astral-plane characters.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from profiles import fuzz_examples
from sample_documents import DOOR, document

from generator.core.findings import Finding
from generator.lint.document import lint_bytes
from generator.testing.strategies import TRICKY_TEXT

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (
    *sorted(p.read_text(encoding="utf-8") for p in (ROOT / "specs").rglob("*.md")),
    document(),
    document(DOOR + "invalid:\n  - {from: open, to: opne, why: x}\n"),
)
_BREAK = re.compile(r"\r\n?|\n")
_QUOTED = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\"""")
#: Codes whose message quotes, first, the state name the span points at.
_NAMES_AT_SPAN = {"SD101", "SD102", "SD103", "SD107", "SD109", "SD112", "SD113", "SD114"}
PIECES = (
    *TRICKY_TEXT,
    "\U0001f600",
    "\U00010348",
    "\r\n",
    "\r",
    "\n\n\n",
    "\x07",
    "\t",
    "  - name: x\n",
    "  - {from: open, to: x, trigger: t}\n",
    "# Title\n",
    "```mermaid\nstateDiagram-v2\n  a --> b\n",
    "```\n",
    "## The Lifecycle\n",
    "title: ",
    "\u202e",
    "\u043e",
    "  # statedoc: ignore[SD1]\n",
)


def lines_of(text: str) -> list[str]:
    """Lines as an editor counts them: LF, CRLF and CR break; a final break adds no line."""
    parts = _BREAK.split(text)
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


def check_positions(text: str, findings: list[Finding]) -> None:
    lines = lines_of(text)
    count = len(lines)
    for f in findings:
        where = f"{f}\n{text!r}"
        assert f.code != "SD000", where
        if f.code == "SD006":
            continue  # UTF-16/32 without a BOM: the text is not what the file means
        assert 1 <= f.line <= f.end_line <= count, where
        assert 1 <= f.column <= len(lines[f.line - 1]) + 1, where
        assert 1 <= f.end_column <= len(lines[f.end_line - 1]) + 1, where
        assert (f.line, f.column) <= (f.end_line, f.end_column), where
        for related in f.related:
            assert 1 <= related.line <= count, where
            assert 1 <= related.column <= len(lines[related.line - 1]) + 1, where
        if f.line == f.end_line:
            _check_quoted(f, lines[f.line - 1][f.column - 1 : f.end_column - 1], where)


def _check_quoted(f: Finding, shown: str, where: str) -> None:
    """Where the message quotes text of the file, the span is that text."""
    char = re.search(
        r"unacceptable character #x([0-9a-f]+)|^raw bidirectional control U\+(\w+)", f.message
    )
    if f.code in ("SD003", "SD013") and char is not None:
        assert shown == chr(int(char.group(1) or char.group(2), 16)), where
    elif f.code == "SD206":
        assert repr(shown) == _QUOTED.search(f.message).group(), where  # type: ignore[union-attr]
    elif f.code in _NAMES_AT_SPAN:
        quoted = _QUOTED.search(f.message)
        assert quoted is not None, where
        name = ast.literal_eval(quoted.group())
        if shown[:1] not in ("'", '"'):  # a plain scalar is the name itself
            assert shown == name, where
        else:  # a quoted scalar holds it, quotes and escapes around it
            assert len(shown) >= 2 and shown[-1] == shown[0], where


@st.composite
def fuzzed(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS) | st.text(max_size=200))
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(("insert", "delete", "dup-line")))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(PIECES) | st.text(max_size=8)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        else:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at) + 1 or len(text)
            text = text[:start] + text[start:end] + text[start:]
    newline = draw(st.sampled_from(("\n", "\r\n", "\r")))
    return text.replace("\r\n", "\n").replace("\n", newline) if newline != "\n" else text


@settings(max_examples=fuzz_examples(settings().max_examples))
@given(fuzzed())
@example(document().replace("\n", "\r\n"))
@example(document().replace("\n", "\r"))
@example(document().replace("---\n\n# Door", "---"))
@example(document(DOOR.replace("trigger: close}", "trigger: Caf\u00e9 cr\u00e8me\x07}")))
@example(document(DOOR.replace("trigger: close}", "trigger: \U0001f600\x01}")))
@example(document(body="\n# Window\n").replace("\n", "\r\n"))
@example("---\nid: [\n---\n")
@example("---\r\nid: 1\r\n---")
@example("\n" + "\x00" * 8)
def test_every_finding_stays_inside_the_text(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return  # not text: the SD006 position counts bytes of an undecodable file
    check_positions(text.removeprefix("\ufeff"), lint_bytes(data, "f.md").findings)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_ends_at_the_end_of_the_file(newline: str) -> None:
    """SD301 and SD010 used to end on a line after the last one (a final line break)."""
    cases = [
        document(body=""),  # no body at all: SD301 at the closing fence's line end
        document(DOOR.replace("initial: closed\n", "initial: 7\n"), body="\n# Door\n"),
        document(body="\n# Window"),
    ]
    for case in cases:
        text = case.replace("\n", newline)
        found = lint_bytes(text.encode(), "f.md").findings
        assert found
        check_positions(text, found)


def test_crlf_spans_stop_before_the_carriage_return() -> None:
    text = document(body="\n# Window\n").replace("\n", "\r\n")
    (finding,) = [f for f in lint_bytes(text.encode(), "f.md").findings if f.code == "SD206"]
    assert (finding.column, finding.end_column) == (3, 9)


@given(st.text(alphabet="ab\n\r \u2028", max_size=40), st.integers(-1, 20))
def test_line_text_without_the_table_agrees_with_it(text: str, line: int) -> None:
    # line_text answers the first lines of a "\r"-free text without building the line
    # table; the answer must be the table's.
    from generator.load.source import SourceText

    quick = SourceText(text).line_text(line)
    table = SourceText(text)
    table.offset(1, 1)  # builds the line table first
    assert quick == table.line_text(line)

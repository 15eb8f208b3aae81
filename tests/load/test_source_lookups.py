"""``SourceText`` lookups: counting from the previous lookup answers exactly as the full line
table would, in any order of calls, and a blank-line-heavy text never pays for a table.

The reference below is computed independently (``str.split`` on the three line breaks), so a
wrong cursor, a stale remembered line start or a lookup backwards across lines shows up as a
mismatch. The Markdown scan for a fence's first statement is checked the same way.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sample_documents import document

from generator.lint.document import lint_bytes
from generator.load.markdown import _first_statement
from generator.load.source import SourceText

_PIECES = st.sampled_from(["a", "bc", "😀", "\n", "\n\n", "\r\n", "\r", " ", "é"])
_BREAK = re.compile(r"(\r\n?|\n)")


def reference(text: str) -> tuple[list[int], list[str]]:
    """Line starts and line texts, from splitting at the breaks."""
    pieces = _BREAK.split(text)
    starts, at = [0], 0
    for piece in pieces[:-1]:
        at += len(piece)
        if _BREAK.fullmatch(piece):
            starts.append(at)
    return starts, pieces[::2]


Call = tuple[str, int, int]


@st.composite
def texts_and_calls(draw: st.DrawFn) -> tuple[str, list[Call]]:
    """A text of line breaks and characters, and lookups at offsets and lines inside it
    (and one past it), in any order."""
    text = "".join(draw(st.lists(_PIECES, max_size=40)))
    lines = len(reference(text)[0])
    call = st.one_of(
        st.tuples(st.just("position"), st.integers(0, len(text) + 1), st.just(1)),
        st.tuples(
            st.sampled_from(["offset", "line_text"]), st.integers(0, lines + 1), st.integers(1, 5)
        ),
    )
    return text, draw(st.lists(call, max_size=40))


@given(texts_and_calls())
@example(("a\n\nb\n", [("position", 5, 1), ("line_text", 3, 1), ("position", 0, 1)]))
@example(("ab\ncd", [("position", 4, 1), ("position", 5, 1), ("position", 1, 1)]))
@example(("\n\nx\n", [("position", 4, 1), ("line_text", 3, 1), ("offset", 3, 1)]))
@example(("a\r\nb", [("position", 2, 1), ("position", 4, 1), ("position", 2, 1)]))
@example(("a\r\nb\r\n", [("position", 6, 1), ("line_text", 2, 1), ("line_text", 1, 1)]))
@example(("\r\r\nx", [("position", 4, 1), ("line_text", 2, 1), ("offset", 1, 2)]))
@example(("a\rb\r\nc\rd", [("position", 7, 1), ("position", 1, 1), ("line_text", 3, 1)]))
def test_lookups_agree_with_the_line_table(case: tuple[str, list[Call]]) -> None:
    text, calls = case
    starts, lines = reference(text)
    source = SourceText(text)
    for name, number, column in calls:
        if name == "position":
            offset = min(number, len(text))
            line = max(i for i, start in enumerate(starts) if start <= offset) + 1
            assert source.position(number) == (line, offset - starts[line - 1] + 1)
        elif name == "line_text":
            expected = lines[number - 1] if 1 <= number <= len(lines) else ""
            assert source.line_text(number) == expected
        else:
            line = max(1, min(number, len(starts)))
            assert source.offset(number, column) == min(starts[line - 1] + column - 1, len(text))


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_blank_line_heavy_text_is_linted_without_a_line_table(newline: str) -> None:
    """200,000 blank lines and a finding at the end: positions come from counting, not from
    a table of 200,000 line starts (which made such a 1 MB file cost 5-9x plain text)."""
    text = document(body="\n# Door\n" + "\n" * 200_000 + "## The Lifecycle\n")
    text = text.replace("\n", newline)
    result = lint_bytes(text.encode(), "blank.md")
    assert result.findings, "the document must have a finding whose position is computed"
    assert result.document is not None
    source = result.document.source
    assert source.position(len(source.text)) == (text.count(newline) + 1, 1)
    assert not source._starts  # no per-line table was built


def _first_statement_by_lines(content: str) -> str:
    """The definition: split into lines, skip blank and ``%%`` lines."""
    for line in content.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("%%"):
            return stripped.lower()
    return ""


_MERMAID_PIECES = st.sampled_from(
    ("stateDiagram-v2", "%%", "%% c", " ", "\t", "\n", "\r\n", "\r", "\x0b", "\x1c", "\x85")
) | st.sampled_from(("\u2028", "\u00a0", "a", "B"))


@given(st.lists(_MERMAID_PIECES, max_size=30).map("".join))
@example("\n\n%% c\n  stateDiagram-v2 \n")
@example("%%\u2028 a")
def test_first_statement_skips_blank_and_comment_lines(content: str) -> None:
    """The scan that jumps between non-blank characters (one regex pass over a block of blank
    lines instead of a list of its lines) picks the same line as splitting would."""
    assert _first_statement(content) == _first_statement_by_lines(content)

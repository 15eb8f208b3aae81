"""Linear time on pathological text (issue 18 item 4), without a clock.

Each input that was quadratic finishes at 64 KB with the right finding (the benchmark
``benchmarks/bench_pathological.py`` measures 1 MB against plain text). The scans that
replaced backtracking regexes are held to the regexes they replace (Mermaid's own patterns,
copied here) on generated text, so being fast never changed what is read.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pathological import BODIES, EXPECTED
from sample_documents import DOOR, codes, document, lint_text

from generator.load.markdown import Body, _fence_open, _heading
from generator.load.mermaid import parse_state_diagram
from generator.load.mermaid.lexer import _tokenize
from generator.load.mermaid.preprocess import (
    _DOT,
    _NOT_S,
    _S,
    _comment_lines,
    _lost_semicolons,
    diagram_kind,
)

SIZE = 64 * 1024


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_pathological_body_of_64_kb_is_linted_with_its_finding(name: str) -> None:
    result = lint_text(document(DOOR, BODIES[name](SIZE)))
    assert EXPECTED[name] in codes(result), result.findings
    assert "SD000" not in codes(result)


@pytest.mark.parametrize("name", sorted(n for n in BODIES if EXPECTED[n] == "SD302"))
def test_a_pathological_diagram_just_under_the_size_limit_is_read(name: str) -> None:
    """Below maxTextSize the whole lexer and grammar run on it (and must finish)."""
    text = BODIES[name](45_000)
    content = text[text.index("stateDiagram-v2") : text.rindex("```")]
    diagram = parse_state_diagram(content)
    assert not any("maxTextSize" in problem.message for problem in diagram.problems)


def test_the_size_limit_is_checked_before_parsing() -> None:
    """A diagram past maxTextSize is one finding, nothing read from it."""
    diagram = parse_state_diagram("stateDiagram-v2\n" + "a --> b\n" * 10_000)
    assert diagram.rejected and diagram.edges == () and len(diagram.problems) == 1
    # Comments do not count, as in Mermaid: the same size of comments is read.
    commented = parse_state_diagram("stateDiagram-v2\n" + "%% c\n" * 12_000 + "a --> b\n")
    assert commented.ok and len(commented.edges) == 1


# Mermaid's patterns (mermaid 11.17.2 preprocessDiagram, detectType, encodeEntities) and
# the Markdown scanner's former regexes, as references for the scans that replaced them.
COMMENT_LINE = re.compile(f"(?:(?<=[\n\r\u2028\u2029])|\\A){_S}*%%(?!{{)[^\n]+\n?")
DETECT_COMMENT = re.compile(f"{_S}*%%{_DOT}*\n")
SEMICOLON = {w: re.compile(f"{w}{_DOT}*:{_NOT_S}*#{_DOT}*;") for w in ("style", "classDef")}
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*?$")
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")

PIECES = ["%%", "{", " ", "\n", "\r", "\u2028", "a", "\t", "\u00a0", ":", "#", ";", "x"]
PIECES += ["stateDiagram", "-v2", "style", "classDef", "<a", ">", "end note", "note left of "]
PIECES += ["direction", " LR", " tb", "<<fork>>", "[[join]]", "state ", '"', " as ", "-->"]
PIECES += ["[*]", "b c", "--", "scale ", "5", " width", "class ", "accTitle: ", "}"]
soup = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(soup)
def test_preprocessing_scans_match_mermaids_regexes(text: str) -> None:
    assert list(_comment_lines(text)) == [m.span() for m in COMMENT_LINE.finditer(text)]
    detected = DETECT_COMMENT.sub("\n", text)
    kind = next(
        (k for k in ("stateDiagram-v2", "stateDiagram") if re.match(f"{_S}*{k}", detected)), ""
    )
    assert diagram_kind(text) == kind
    for word, pattern in SEMICOLON.items():
        assert list(_lost_semicolons(text, word)) == [m.end() - 1 for m in pattern.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(soup)
def test_the_guarded_lexer_matches_the_plain_lexer(text: str) -> None:
    source = "stateDiagram-v2\n" + text + "\n"
    fast, fast_error = _tokenize(source)
    slow, slow_error = _tokenize(source, guarded=False)
    assert fast == slow
    assert (fast_error is None) == (slow_error is None)
    if fast_error is not None and slow_error is not None:
        assert (fast_error.message, fast_error.offset) == (slow_error.message, slow_error.offset)


line = st.lists(st.sampled_from([" ", "\t", "#", "`", "~", "a", "b c", "\u00a0"]), max_size=14)


@settings(max_examples=500, deadline=None)
@given(line.map("".join))
def test_markdown_line_scans_match_the_former_regexes(text: str) -> None:
    fence = FENCE_OPEN.match(text)
    assert _fence_open(text) == (None if fence is None else (fence.group(1), fence.group(2)))
    heading = HEADING.match(text)
    expected = (
        None if heading is None else (len(heading.group(1)), (heading.group(2) or "").strip())
    )
    assert _heading(text) == expected


Scan = tuple[list[tuple[int, str, int, int]], list[tuple[str, int, int, int, int, bool, str]]]


def reference_scan(text: str, offset: int) -> Scan:
    """The scanner as it was: every line in Python, with the former regexes."""
    headings: list[tuple[int, str, int, int]] = []
    fences: list[tuple[str, int, int, int, int, bool, str]] = []
    open_fence: tuple[str, str, int, int] | None = None
    for match in re.finditer(r"[^\r\n]*(?:\r\n?|\n|$)", text[offset:]):
        start, end = offset + match.start(), offset + match.end()
        if start == end and start == len(text):
            break
        line = match.group().rstrip("\r\n")
        if open_fence is not None:
            marker, info, begin, content = open_fence
            stripped = line.lstrip(" ")
            body = stripped.rstrip(" \t")
            closes = body == marker[0] * len(body) and len(body) >= len(marker)
            if len(line) - len(stripped) <= 3 and closes:
                fences.append((info, begin, content, start, end, True, marker))
                open_fence = None
        elif fence := FENCE_OPEN.match(line):
            open_fence = (fence.group(1), fence.group(2).lower(), start, end)
        elif heading := HEADING.match(line):
            headings.append((len(heading.group(1)), (heading.group(2) or "").strip(), start, end))
    if open_fence is not None:
        marker, info, begin, content = open_fence
        fences.append((info, begin, content, len(text), len(text), False, marker))
    return headings, fences


document_lines = st.lists(
    st.sampled_from(["```", "~~~", "````", "`", "# a", "## b #", "   ", "    ", "x", "mermaid"])
    | st.sampled_from(["\n", "\r\n", "\r", " ", "\t", "~"]),
    max_size=25,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(document_lines)
def test_the_markdown_scan_skips_lines_without_changing_what_it_finds(text: str) -> None:
    body = Body(text, 0)
    headings = [(h.level, h.text, h.start, h.end) for h in body.headings]
    fences = [
        (f.info, f.start, f.content_start, f.content_end, f.end, f.closed, f.marker)
        for f in body.fences
    ]
    assert (headings, fences) == reference_scan(text, 0)

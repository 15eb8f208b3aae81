"""The Markdown scan's fast line-start patterns (no carriage return in the text) find exactly
what the look-behind patterns find."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from generator.load.markdown import _LINE_START, Body, _at_line_start, _closing

LINES = st.lists(
    st.sampled_from(
        [
            "",
            " ",
            "# T",
            "## The Lifecycle",
            "```mermaid",
            "~~~",
            "   ```",
            "    ```",
            "text #",
            "````",
            "x```",
            " ~~~~ x",
            "#nope",
            "\t# t",
            "\x0b#",
            "\x85#",
        ]
    ),
    max_size=12,
)


@given(LINES, st.integers(0, 40))
def test_line_start_patterns_agree_without_carriage_returns(lines: list[str], pos: int) -> None:
    text = "\n".join(lines)
    pos = min(pos, len(text))
    for pattern in (r" {0,3}[`~#]", _closing("`", 3, True).pattern.removeprefix(_LINE_START)):
        slow, fast = _at_line_start(pattern, True), _at_line_start(pattern, False)
        assert [m.span() for m in slow.finditer(text, pos)] == [
            m.span() for m in fast.finditer(text, pos)
        ]


@given(LINES)
def test_scan_with_and_without_carriage_returns_agrees(lines: list[str]) -> None:
    text = "\n".join(lines)
    crlf = text.replace("\n", "\r\n")
    plain, windows = Body(text, 0), Body(crlf, 0)
    assert [h.text for h in plain.headings] == [h.text for h in windows.headings]
    assert [(f.info, f.closed) for f in plain.fences] == [
        (f.info, f.closed) for f in windows.fences
    ]

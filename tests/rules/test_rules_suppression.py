"""Inline ``statedoc: ignore[CODE]`` counts only in a real comment on the reported line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sample_documents import DIAGRAM, DOOR, codes, document, lint_text

from generator.core.findings import Finding
from generator.lint.files import lint_files
from generator.lint.files import settings_for as _settings_for
from generator.load.config import Config
from generator.load.discover import SpecFile

SHUT = DOOR.replace("to: closed, trigger: close}", "to: shut, trigger: close}")


def _lint(tmp_path: Path, text: str) -> list[Finding]:
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8", newline="")
    config = Config(root=tmp_path, specs=(tmp_path,), out=tmp_path / "out")
    spec = SpecFile("doc.md", path, "doc.md")
    return lint_files([spec], _settings_for(config)).findings


def _codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def test_a_real_yaml_comment_silences_its_line(tmp_path: Path) -> None:
    text = document(SHUT.replace("trigger: close}", "trigger: close}  # statedoc: ignore[SD102]"))
    assert "SD102" in codes(lint_text(text))  # lint_bytes reports; the linter filters
    assert "SD102" not in _codes(_lint(tmp_path, text))


@pytest.mark.parametrize(
    "value",
    [
        '"shut # statedoc: ignore[SD102]"',  # double-quoted
        "'shut''s # statedoc: ignore[SD102]'",  # single-quoted with a '' escape
        "shut#statedoc:ignore[SD102]",  # a '#' with no space before it is plain text
    ],
)
def test_the_directive_inside_a_quoted_or_plain_scalar_is_text(tmp_path: Path, value: str) -> None:
    block = "  - from: open\n    to: " + value + "\n    trigger: close\n"
    text = document(DOOR.replace("  - {from: open, to: closed, trigger: close}\n", block))
    found = _lint(tmp_path, text)
    assert [f.line for f in found if f.code == "SD102"] == [15], found


def test_the_directive_inside_a_block_scalar_is_text(tmp_path: Path) -> None:
    guard = "  - {from: closed, to: open, trigger: open}\n"
    front = DOOR + "    guard: |\n      x \u202e # statedoc: ignore[SD013]\n"
    front = front.replace(guard, guard.replace("{", "").replace("}", "").replace(", ", "\n    "))
    found = _lint(tmp_path, document(front))
    assert [f.line for f in found if f.code == "SD013"] == [19], found


def test_the_directive_in_a_flow_collection_string_is_text(tmp_path: Path) -> None:
    text = "trigger: close, side_effects: ['x # statedoc: ignore[SD102]']}"
    front = SHUT.replace("trigger: close}", text)
    assert "SD102" in _codes(_lint(tmp_path, document(front)))
    text = "trigger: close, side_effects: [x]}  # statedoc: ignore[SD102]"
    comment = SHUT.replace("trigger: close}", text)
    assert "SD102" not in _codes(_lint(tmp_path, document(comment)))


def test_a_markdown_heading_does_not_silence_anything(tmp_path: Path) -> None:
    text = document(body="\n# Window # statedoc: ignore[SD206]\n" + DIAGRAM)
    assert "SD206" in _codes(_lint(tmp_path, text))


def test_a_file_without_front_matter_is_never_silenced(tmp_path: Path) -> None:
    text = "# Door  # statedoc: ignore[SD001]\n\nstates: open\n"
    assert _codes(_lint(tmp_path, text)) == ["SD001"]


def test_mermaid_comment_counts_but_label_text_does_not(tmp_path: Path) -> None:
    drawn = DIAGRAM.replace("  closed --> open\n", "  closed --> open\n  open --> ajar")
    comment = document(
        body="\n# Door\n" + drawn.replace("--> ajar", "--> ajar %% statedoc: ignore[SD304]\n")
    )
    assert "SD304" not in _codes(_lint(tmp_path, comment))
    label = document(
        body="\n# Door\n" + drawn.replace("--> ajar", "--> ajar : %% statedoc: ignore[SD304]\n")
    )
    assert "SD304" in _codes(_lint(tmp_path, label))


def test_an_unknown_code_is_a_warning_where_it_is_written(tmp_path: Path) -> None:
    line = "  - {from: open, to: shut, trigger: close}  # statedoc: ignore[SD102, SD9X9]"
    text = document(SHUT.replace("  - {from: open, to: shut, trigger: close}", line))
    found = _lint(tmp_path, text)
    assert "SD102" not in _codes(found)  # the known code still applies
    (unknown,) = [f for f in found if f.code == "SD012"]
    assert unknown.severity.value == "warning" and "'SD9X9'" in unknown.message
    assert (unknown.line, unknown.column) == (14, line.index("SD9X9") + 1)
    assert (unknown.end_line, unknown.end_column) == (14, line.index("SD9X9") + 6)


def test_a_directive_of_unknown_codes_only_silences_nothing(tmp_path: Path) -> None:
    text = document(SHUT.replace("trigger: close}", "trigger: close}  # statedoc: ignore[SD1O2]"))
    found = _codes(_lint(tmp_path, text))
    assert "SD102" in found and "SD012" in found


def test_sd204_is_silenced_only_by_a_real_comment(tmp_path: Path) -> None:
    config = Config(root=tmp_path, specs=(tmp_path,), out=tmp_path / "out")
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text(document())
    files = [SpecFile(p.name, p, p.name) for p in (first, second)]
    second.write_text(document().replace("DOR-001\n", "DOR-001  # statedoc: ignore[SD204]\n", 1))
    assert "SD204" not in _codes(lint_files(files, _settings_for(config)).findings)
    second.write_text(document().replace("title: Door", "title: 'Door # statedoc: ignore[SD204]'"))
    assert "SD204" in _codes(lint_files(files, _settings_for(config)).findings)


def _silenced_lines(front: str) -> list[int]:
    result = lint_text(document(front, body="\n# Door\n"))
    return sorted(result.suppressions.lines) if result.suppressions else []


def test_which_lines_hold_a_real_comment() -> None:
    d = "# statedoc: ignore[SD1]"
    front = (
        f"{d}\n"  # 16: a whole-line comment
        f"a: 'x {d}' {d}\n"  # 17: after a quoted scalar
        f'b: "y {d}"\n'  # 18: only inside the quotes
        f"c: |\n  {d}\n  x {d}\n"  # 19-21: a block scalar holds both
        f"e: [f, 'g {d}'] {d}\n"  # 22: after a flow collection
        "h: i#statedoc:ignore[SD1]\n"  # 23: part of the plain scalar
        f"j: k #note{d}\n"  # 24: inside a comment that starts earlier
        f"l: >-\n  m\n\n  {d}\n"  # 25-28: folded block scalar, after a blank line
        f"n: o\n  {d}\n"  # 29-30: a comment line more indented than the key: still one
    )
    assert _silenced_lines(DOOR + front) == [16, 17, 22, 24, 30]


def test_a_comment_on_the_first_front_matter_line_counts(tmp_path: Path) -> None:
    text = document(SHUT).replace("---\n", "---\n# statedoc: ignore[SD102]\n", 1)
    assert sorted(lint_text(text).suppressions.lines) == [2]  # type: ignore[union-attr]
    text = document(SHUT).replace("---\n", "---\r\n# statedoc: ignore[SD9]\r\n", 1)
    assert [f.code for f in _lint(tmp_path, text) if f.code == "SD012"] == ["SD012"]


def test_nothing_is_silenced_in_a_front_matter_that_does_not_parse(tmp_path: Path) -> None:
    text = document(SHUT + "x: [  # statedoc: ignore[SD003]\n")
    assert "SD003" in _codes(_lint(tmp_path, text))


# ---- the comment detector agrees with PyYAML's own scanner (an independent oracle)


class _OracleScanner(yaml.reader.Reader, yaml.scanner.Scanner):  # type: ignore[misc]
    """PyYAML's pure-Python scanner, noting where it skips a comment."""

    def __init__(self, text: str) -> None:
        yaml.reader.Reader.__init__(self, text)
        yaml.scanner.Scanner.__init__(self)
        self.starts: list[int] = []

    def _note(self) -> None:
        while self.peek() == " ":
            self.forward()
        if self.peek() == "#":
            self.starts.append(self.index)

    def scan_to_next_token(self) -> None:
        while True:
            self._note()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if self.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                return

    def scan_block_scalar_ignored_line(self, start_mark: yaml.Mark) -> None:
        self._note()
        super().scan_block_scalar_ignored_line(start_mark)


DIRECTIVE = "# statedoc: ignore[SD1]"
VALUES = st.sampled_from(
    [
        "v",
        "a b",
        "'q # x'",
        "'it''s'",
        '"d # x"',
        '"e \\" # x"',
        "[f, 'g # x', h]",
        "{i: j, k: 'l # m'}",
        "p#q",
        f"'{DIRECTIVE}'",
        f'"{DIRECTIVE}"',
        "r#statedoc:ignore[SD1]",
    ]
)
BLOCKS = st.sampled_from(["|", ">-", "|+", "|2"])


@st.composite
def front_matters(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for index in range(draw(st.integers(1, 8))):
        tail = draw(st.sampled_from(["", f" {DIRECTIVE}", f"  {DIRECTIVE} more"]))
        if draw(st.booleans()):
            content = draw(st.lists(st.sampled_from(["x", DIRECTIVE, f"y {DIRECTIVE}", ""])))
            lines.append(f"k{index}: {draw(BLOCKS)}{tail}")
            lines.extend(f"  {c}" if c else "" for c in content)
            if draw(st.booleans()):
                lines.append(draw(st.sampled_from([f" {DIRECTIVE}", DIRECTIVE, f"   {DIRECTIVE}"])))
        else:
            lines.append(f"k{index}: {draw(VALUES)}{tail}")
        if draw(st.booleans()):
            lines.append(DIRECTIVE)
    return "\n".join(lines) + "\n"


@settings(deadline=None)
@example("k0: v\nk2: | # statedoc: ignore[SD1]\n  x\n")
@given(front_matters())
def test_directive_lines_match_pyyaml_scanner(front: str) -> None:
    oracle = _OracleScanner(front)
    try:
        while oracle.get_token() is not None:  # type: ignore[no-untyped-call]
            pass
        yaml.safe_load(front)
    except yaml.YAMLError:
        return  # not a document both parsers read: nothing to compare
    comment_lines = {front.count("\n", 0, start) + 1 for start in oracle.starts}
    expected = sorted(
        line
        for line in comment_lines
        if "statedoc:" in front.splitlines()[line - 1][_column(front, oracle.starts, line) :]
    )
    result = lint_text(f"---\n{front}---\n")
    found = sorted(line - 1 for line in result.suppressions.lines) if result.suppressions else []
    assert found == expected, front


def _column(text: str, starts: list[int], line: int) -> int:
    """Column (0-based) where the comment on ``line`` starts."""
    for start in starts:
        if text.count("\n", 0, start) + 1 == line:
            return start - (text.rfind("\n", 0, start) + 1)
    raise AssertionError(line)

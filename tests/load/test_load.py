"""The load stage: encoding, front matter split and strict YAML, with exact positions."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sample_documents import DOOR, HEADER, at, codes, document, lint_text

from generator.lint.document import lint_bytes
from generator.load.frontmatter import SplitError, split
from generator.load.strict_yaml import load, resolve_plain


def test_clean_document_has_no_findings() -> None:
    assert lint_text(document()).findings == []


@pytest.mark.parametrize("word", ["on", "off", "yes", "no", "y", "n", "NO", "On", "Yes", "OFF"])
def test_yaml_11_booleans_stay_strings_as_state_names(word: str) -> None:
    front = DOOR.replace("open", word)
    result = lint_text(document(front, body="\n# Door\n"))
    assert [c for c in codes(result) if c != "SD301"] == []
    assert result.document is not None
    assert word in result.document.spec.state_names


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2026-10-09", "2026-10-09"),
        ("2026-02-30", "2026-02-30"),
        ("1:30", "1:30"),
        ("0755", 755),
        ("0o17", 15),
        ("0x1F", 31),
        ("1e3", 1000.0),
        ("-.inf", -math.inf),
        ("~", None),
        ("", None),
        ("True", True),
        ("yes", "yes"),
        ("12:30:00", "12:30:00"),
    ],
)
def test_plain_scalars_follow_yaml_12_core(text: str, value: object) -> None:
    assert resolve_plain(text) == value
    assert type(resolve_plain(text)) is type(value)


def test_dates_in_text_fields_stay_strings() -> None:
    result = lint_text(document(DOOR + "evidence:\n  - 2026-10-09\n  - 2026-02-30\n"))
    assert result.findings == []
    assert result.document is not None
    assert result.document.spec.evidence == ("2026-10-09", "2026-02-30")


def test_all_digit_sha_is_reported_with_a_location() -> None:
    front = DOOR + "source_sha:\n  repo: 1234567890123456789012345678901234567890\n"
    result = lint_text(document(front))
    assert at(result, "SD010") == [(17, 9)]
    assert "quote the value" in result.findings[0].message


def test_duplicate_keys_report_both_positions() -> None:
    result = lint_text(document(DOOR + "status: active\n"))
    (finding,) = result.findings
    assert (finding.code, finding.line, finding.column) == ("SD004", 16, 1)
    assert [(r.line, r.column) for r in finding.related] == [(8, 1)]


def test_duplicate_keys_in_nested_mappings() -> None:
    front = DOOR.replace("  - name: open\n", "  - name: open\n    name: opened\n")
    assert at(lint_text(document(front)), "SD004") == [(12, 5)]


def test_anchor_and_alias_are_reported_where_they_stand() -> None:
    front = "states:\n  - &s {name: open}\n  - *s\ntransitions: []\n"
    result = lint_text(document(front))
    assert at(result, "SD005") == [(10, 5), (11, 5)]


def test_billion_laughs_is_rejected_without_expanding() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    result = lint_text("---\n" + "\n".join(lines) + "\n---\n")
    assert set(codes(result)) == {"SD005"}
    # 9 anchors and 8 * 9 aliases: each reported once, nothing expanded.
    assert len(result.findings) == 9 + 8 * 9


@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_deep_nesting_is_capped_not_crashing(opener: str) -> None:
    text = "---\nk: " + opener * 20_000 + "\n---\n"
    result = lint_text(text)
    assert codes(result) == ["SD003"]
    assert "nesting" in result.findings[0].message or "YAML" in result.findings[0].message


def test_bad_utf8_points_at_the_byte() -> None:
    data = document().encode("utf-8").replace(b"title: Door", b"title: D\xffor")
    (finding,) = lint_bytes(data, "doc.md").findings
    assert (finding.code, finding.line, finding.column) == ("SD006", 3, 9)
    assert "ff" in finding.message


def test_bad_utf8_column_counts_code_points() -> None:
    data = "---\ntitle: ééé".encode() + b"\xc3\x28"
    (finding,) = lint_bytes(data, "doc.md").findings
    assert (finding.line, finding.column) == (2, 11)


def _positions(data: bytes) -> list[tuple[str, int, int, int, int]]:
    return [
        (f.code, f.line, f.column, f.end_line, f.end_column)
        for f in lint_bytes(data, "doc.md").findings
    ]


BROKEN = document(DOOR.replace("to: closed,", "to: shut,") + "status: x\n")


def test_bom_and_line_endings_do_not_move_positions() -> None:
    expected = _positions(BROKEN.encode())
    assert expected  # the document is broken on purpose
    assert _positions(b"\xef\xbb\xbf" + BROKEN.encode()) == expected
    assert _positions(BROKEN.replace("\n", "\r\n").encode()) == expected
    assert _positions(BROKEN.replace("\n", "\r").encode()) == expected


def test_crlf_document_lints_clean() -> None:
    assert lint_bytes(document().replace("\n", "\r\n").encode(), "d.md").findings == []


def test_unicode_line_separators_inside_values_do_not_shift_lines() -> None:
    front = DOOR.replace(
        "  - name: open\n", '  - name: open\n    meaning: "a\u2028b\u2029c\x85d"\n'
    )
    front = front.replace("to: closed,", "to: shut,")
    result = lint_text(document(front))
    assert at(result, "SD102") == [(15, 22)]
    # libyaml would fold them away, so each is reported where it stands instead.
    assert at(result, "SD003") == [(12, 16), (12, 18), (12, 20)]


def test_escaped_line_separators_load_exactly() -> None:
    front = DOOR.replace("  - name: open\n", '  - name: open\n    meaning: "a\\u2028b\\x85c"\n')
    result = lint_text(document(front))
    assert result.findings == []
    assert result.document is not None
    assert result.document.spec.states[0].meaning == "a\u2028b\x85c"


def test_tabs_and_control_characters_are_syntax_errors_not_crashes() -> None:
    result = lint_text(document(DOOR + 'concurrency: "a\x01b"\n'))
    assert codes(result) == ["SD003"]
    assert result.findings[0].line == 16


def test_non_string_keys_are_rejected() -> None:
    result = lint_text(document(DOOR + "1: one\n? [a, b]\n: complex\n"))
    assert at(result, "SD003") == [(16, 1), (17, 3)]


def test_explicit_tags_are_rejected() -> None:
    result = lint_text(document(DOOR + "x: !!python/object:os.system ls\ny: !!str fine\n"))
    assert at(result, "SD003") == [(16, 4)]


def test_more_than_one_yaml_document() -> None:
    result = lint_text("---\na: 1\n...\nb: 2\n---\n")
    assert at(result, "SD003") == [(4, 1)]


@pytest.mark.parametrize(
    ("text", "code", "position"),
    [
        ("", "SD001", (1, 1)),
        ("# Door\n", "SD001", (1, 1)),
        ("\n---\nid: x\n---\n", "SD001", (1, 1)),
        ("---\nid: x\n", "SD002", (1, 1)),
        ("---\nid: x\n--- \n# body\n", "SD010", (2, 1)),
    ],
)
def test_front_matter_split(text: str, code: str, position: tuple[int, int]) -> None:
    result = lint_text(text)
    assert (result.findings[0].code, result.findings[0].line, result.findings[0].column) == (
        code,
        *position,
    )


def test_split_keeps_exact_offsets() -> None:
    text = "---\r\na: 1\r\n---\r\nbody\r\n"
    parts = split(text)
    assert text[parts.yaml_offset :].startswith("a: 1")
    assert text[parts.body_offset :] == "body\r\n"
    with pytest.raises(SplitError):
        split("---\na: 1\n")


@pytest.mark.parametrize("front", ["", "- a\n- b\n", "just text\n", "42\n"])
def test_front_matter_must_be_a_mapping(front: str) -> None:
    result = lint_text(f"---\n{front}---\n")
    assert codes(result) == ["SD010"]


def test_file_size_limit() -> None:
    data = document().encode()
    (finding,) = lint_bytes(data, "d.md", max_file_size=len(data) - 1).findings
    assert finding.code == "SD007"
    assert lint_bytes(data, "d.md", max_file_size=len(data)).findings == []


def test_huge_integer_is_a_finding() -> None:
    result = lint_text(document(DOOR + f"x: {'9' * 5000}\n"))
    assert codes(result) == ["SD003"]


def test_loader_spans_use_code_points() -> None:
    loaded, problems = load("a: 'é😀'\nb: x\n", offset=10)
    assert not problems and loaded is not None
    assert loaded.spans[("b",)].start == 10 + len("a: 'é😀'\nb: ")
    assert loaded.key_spans[("b",)].start == 10 + len("a: 'é😀'\n")


def test_header_is_parsed() -> None:
    result = lint_text(document())
    assert result.document is not None
    spec = result.document.spec
    assert (spec.id, spec.title, spec.revision, spec.module) == (
        "STATE-EX-DOR-001",
        "Door",
        1,
        "doors",
    )
    assert HEADER.count("\n") == 7


_BREAKS = re.compile(r"\r\n?|\n")
_FENCE_TEXT = re.compile(r"---[ \t]*")


def _reference_split(text: str) -> tuple[int, int] | str:
    """Line by line, the obvious way: (yaml start, closing line start) or the SD code."""
    starts = [0] + [m.end() for m in _BREAKS.finditer(text)]
    ends = [m.start() for m in _BREAKS.finditer(text)] + [len(text)]
    if not _FENCE_TEXT.fullmatch(text, 0, ends[0]):
        return "SD001"
    for start, end in zip(starts[1:], ends[1:], strict=True):
        if text.startswith("---", start) and _FENCE_TEXT.fullmatch(text, start, end):
            return starts[1], start
    return "SD002"


MEGA = 1 << 20
PATHOLOGICAL = {
    "blank-run": "---\n" + " " * MEGA,
    "blank-lines": "---\n" + "\n" * MEGA,
    "long-line": "---\n" + "a" * MEGA + "\n---\n",
    "near-fences": "---\n" + ("---" + " " * 1000 + "x\n") * (MEGA // 1005),
    "tab-fences": "---\n" + ("\n---" + "\t" * 1000 + "y") * (MEGA // 1005) + "\n---\n",
    "opening-then-text": "---" + " " * MEGA + "x",
    "no-fence": " " * MEGA,
    "carriage-returns": "---" + "\r" * MEGA,
    "dashes": "---\n" + "-" * MEGA,
    "newlines-only": "\n" * MEGA,
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_split_is_linear_on_pathological_megabytes(name: str) -> None:
    """A quadratic scan of these 1 MiB texts takes hours (10^12 steps), a linear one
    milliseconds; the answer must agree with a plain line-by-line reference."""
    text = PATHOLOGICAL[name]
    expected = _reference_split(text)
    try:
        found = split(text)
        got: tuple[int, int] | str = (found.yaml_offset, found.yaml_offset + len(found.yaml_text))
    except SplitError as exc:
        got = exc.code
    assert got == expected


@given(st.text(alphabet="-\n\r \tab", max_size=60))
def test_the_closing_fence_is_found_where_the_regex_finds_it(body: str) -> None:
    # split() finds the closing fence with str.find when the text has no "\r"; it must agree
    # with the look-behind regex it replaces (line starts, "---" runs, trailing blanks).
    from generator.load import frontmatter

    text = "---\n" + body
    expected = frontmatter._CLOSE.search(text, 4)
    found = frontmatter._closing(text, 4)
    assert (found and found.span()) == (expected and expected.span())

"""Spec text -> TypeScript literals and comments (generator.targets.typescript.literals):
exact round trips through tsc and node for arbitrary Unicode, and nothing that can end a
literal, a comment or an inline HTML script early."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import scaled
from ts_harness import compile_project, run_script

from generator.targets.typescript.literals import (
    TsLiteralError,
    ts_comment,
    ts_string,
    tsliteral,
)
from generator.testing.strategies import AWKWARD_NAMES, TRICKY_TEXT, texts

#: JavaScript line terminators and other characters a literal or comment must not hold raw.
RAW_FORBIDDEN = ("\n", "\r", "\u2028", "\u2029", "\x00", "\u202e", "\ufeff", "\x85")


@given(texts(60))
def test_a_literal_is_one_line_of_printable_text(value: str) -> None:
    literal = ts_string(value)
    assert json.loads(literal) == value
    assert not any(char in literal for char in RAW_FORBIDDEN)
    assert "</" not in literal and "<!--" not in literal


@given(texts(60))
def test_a_comment_cannot_end_early(value: str) -> None:
    comment = ts_comment(value)
    assert "*/" not in comment and "</" not in comment and "<!--" not in comment
    assert not any(char in comment for char in RAW_FORBIDDEN)


def test_numbers_and_lists() -> None:
    assert tsliteral(None) == "null" and tsliteral(True) == "true"
    assert tsliteral(2**53 - 1) == "9007199254740991"
    assert tsliteral(2**53) == "9007199254740992n"
    assert tsliteral(["a", None]) == '["a", null]'
    assert ts_string("\U000e0041") == '"\\uDB40\\uDC41"'  # a non-printable astral character


def test_a_lone_surrogate_is_refused() -> None:
    with pytest.raises(TsLiteralError):
        ts_string("a\ud800")


@pytest.mark.slow
def test_literals_and_comments_round_trip_through_tsc_and_node(tmp_path: Path) -> None:
    values: list[str] = [*TRICKY_TEXT, *AWKWARD_NAMES, "*/", "</script>", "<!--", "${x}", "`"]

    @settings(max_examples=scaled(300, minimum=50), database=None, deadline=None)
    @given(st.lists(texts(40), max_size=4).map("".join))
    def collect(value: str) -> None:
        values.append(value)

    collect()
    lines = ["declare const console: { log(text: string): void };", "const values: string[] = [];"]
    for value in values:
        lines += [f"/** {ts_comment(value)} */", f"// {ts_comment(value)}"]
        lines.append(f"values.push({ts_string(value)}); /* {ts_comment(value)} */")
    lines.append("console.log(JSON.stringify(values));")
    compiled = compile_project(tmp_path, {"values.ts": "\n".join(lines) + "\n"})
    assert compiled.returncode == 0, compiled.errors[:4000]
    result = run_script(compiled, "js/values.js")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == values

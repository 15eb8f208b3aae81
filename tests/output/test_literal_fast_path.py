"""The string fast path of ``pyliteral`` (the one normal runs take: no self-check) writes what
the checked path writes, inside and outside a module's memo; the suite otherwise runs with
the self-check on, so without this test the path users run would go unproven."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.targets.python import literals

POSITIONS = st.tuples(st.integers(0, 40), st.integers(0, 60))


@pytest.fixture
def unchecked() -> Iterator[None]:
    saved = literals.SELF_CHECK
    literals.SELF_CHECK = False
    try:
        yield
    finally:
        literals.SELF_CHECK = saved


def _checked(value: str, indent: int, lead: int) -> str:
    saved = literals.SELF_CHECK
    literals.SELF_CHECK = True
    try:
        return literals.pyliteral(value, indent, lead)
    finally:
        literals.SELF_CHECK = saved


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=300), POSITIONS), min_size=1, max_size=8))
def test_the_unchecked_string_path_writes_what_the_checked_one_does(
    values: list[tuple[str, tuple[int, int]]],
) -> None:
    saved = literals.SELF_CHECK
    literals.SELF_CHECK = False
    try:
        plain = [literals.pyliteral(v, i, lead) for v, (i, lead) in values]
        with literals.memo():  # twice each: the second is served by the memo
            memoized = [literals.pyliteral(v, i, lead) for v, (i, lead) in values * 2]
    finally:
        literals.SELF_CHECK = saved
    expected = [_checked(v, i, lead) for v, (i, lead) in values]
    assert plain == expected
    assert memoized == expected * 2
    for (value, _), source in zip(values, plain, strict=True):
        assert ast.literal_eval(source) == value


def test_the_memo_keys_on_the_position_too(unchecked: None) -> None:
    text = "a long meaning " * 8
    with literals.memo():
        flat = literals.pyliteral(text, 0, 0)
        deep = literals.pyliteral(text, 36, 20)
    assert flat != deep
    assert (flat, deep) == (_checked(text, 0, 0), _checked(text, 36, 20))

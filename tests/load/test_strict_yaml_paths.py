"""The loader's inline path for plain scalars gives exactly what its general path gives.

Recording scalar spans (``scalars=``) sends every event down the general path, so loading the
same text both ways compares the two paths on values, spans, key spans and problems."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.load.strict_yaml import Loaded, Problem, Scalars, load

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.sampled_from(["yes", "on", "0755", "1e3", ".inf", "~", "", "null", "a: b", "- x", "#c"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.sampled_from(["a", "b"]), inner, max_size=4)
    ),
    max_leaves=15,
)


def _shape(result: tuple[Loaded | None, list[Problem]]) -> object:
    loaded, problems = result
    values = None
    if loaded is not None:  # repr: NaN is not equal to itself
        values = (repr(loaded.value), repr(loaded.spans), repr(loaded.key_spans))
    return values, problems


def _agree(text: str) -> None:
    assert _shape(load(text, 4)) == _shape(load(text, 4, scalars=Scalars())), text


@settings(max_examples=300)
@given(VALUES, st.booleans())
def test_both_paths_agree_on_dumped_values(value: object, flow: bool) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True)
    _agree(text)
    _agree(text + text)  # duplicate keys, a second document's worth of text


@settings(max_examples=300)
@given(st.text(alphabet="ab:- \n'\"[]{},#&*!0.~\t", max_size=40))
def test_both_paths_agree_on_yaml_soup(text: str) -> None:
    _agree(text)


def test_both_paths_agree_on_the_tricky_cases() -> None:
    for text in (
        "a: 1\na: 2\n",
        "? [x]\n: 1\nb: c\n",
        "[a, b]: 1\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a:\n  - ~\n  - ''\n  - \n  - x\n",
        "1: a\nnull: b\n'': c\n",
        "a: {b: {c: [d, {e: f}]}}\n",
    ):
        _agree(text)

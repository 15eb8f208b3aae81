"""``_fast_text`` (one substitution for ``#digits;``) shows a name or label as the full path does.

The full path encodes entities (Mermaid's ``encodeEntities``) and then decodes them for display
(``decode_display_text``); ``_fast_text`` skips both when it can. Its contract is the fast
path's text: every ``#`` starts a ``#digits;`` entity (``_FAST_TEXT``). Outside that the fast
path must not answer, so ``#name;``, a lone ``#`` and ``;`` are drawn too: where the text is
fast-shaped the two decodings must agree, and a diagram holding any other text must go to the
full lexer or agree with it."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from generator.load.mermaid.parse import _FAST_TEXT, _fast, _fast_text, _parse_full
from generator.load.mermaid.preprocess import (
    _ENTITY_PLACEHOLDER_END,
    _ENTITY_PLACEHOLDER_NAMED,
    _ENTITY_PLACEHOLDER_NUM,
    decode_display_text,
)

# Code points that matter: the placeholder characters (ﬂ 64258, ° 176, ¶ 182, ß 223), NUL, the
# cp1252 range, surrogates, the largest code point and past it, and too many digits.
NUMBERS = st.one_of(
    st.sampled_from([0, 9, 10, 35, 38, 59, 60, 95, 128, 150, 159, 176, 182, 223, 64258]),
    st.sampled_from([0xD800, 0xDFFF, 0x10FFFF, 0x110000, 10**9, 10**10]),
    st.integers(0, 0x10FFFF),
)
DIGIT_ENTITY = st.one_of(
    NUMBERS.map(lambda n: f"#{n};"),
    st.sampled_from([9, 10, 4300, 4301, 5000]).map(lambda n: f"#{'7' * n};"),  # int() caps
    NUMBERS.map(lambda n: f"#{n:07d};"),  # leading zeros
)
OTHER = st.sampled_from(
    ["#amp;", "#lt;", "#quot;", "#br;", "#x41;", "#;", "#", "##", ";", ";;", "&", "&#59;", "<br>"]
)
PLAIN = st.text(alphabet="ab -.,()/!?'0123456789", max_size=5)
PLACEHOLDERS = st.sampled_from(
    [_ENTITY_PLACEHOLDER_NUM, _ENTITY_PLACEHOLDER_NAMED, _ENTITY_PLACEHOLDER_END, "ﬂ", "°", "¶ß"]
)
NON_ASCII = st.text(alphabet="éß°¶ﬂ日😀\u00a0", min_size=1, max_size=3)

FAST_SHAPED = st.lists(st.one_of(PLAIN, PLAIN, DIGIT_ENTITY), max_size=6).map("".join)
MIXED = st.lists(st.one_of(PLAIN, DIGIT_ENTITY, OTHER, PLACEHOLDERS, NON_ASCII), max_size=8).map(
    "".join
)

_FAST_SHAPE = re.compile(_FAST_TEXT)
_EVERY_HASH_AN_ENTITY = re.compile(r"(?:[^#]|#[0-9]+;)*")
_RAW_PLACEHOLDER = re.compile(f"{_ENTITY_PLACEHOLDER_NAMED}|{_ENTITY_PLACEHOLDER_END}")


def _in_contract(text: str) -> bool:
    """What ``_fast_text`` may be given: every ``#`` an entity, no raw ``&`` or ``<``, and no
    raw placeholder character unless a ``#`` sends the text through the decoding."""
    if not _EVERY_HASH_AN_ENTITY.fullmatch(text) or "&" in text or "<" in text:
        return False
    return "#" in text or _RAW_PLACEHOLDER.search(text) is None


@example("#64258;#176;#176;95#182;#223;")  # entities that spell a placeholder: the long way
@example("#64258;#176;x#182;#223;")
@example("a#95;b")
@example("#0;#128;#55296;#1114112;#99999999999;")
@example("#" + "1" * 5000 + ";")  # past int()'s digit limit: shown as U+FFFD, no ValueError
@given(FAST_SHAPED)
def test_fast_text_equals_the_full_decoding_on_fast_shaped_text(text: str) -> None:
    assert _FAST_SHAPE.fullmatch(text)
    assert _fast_text(text) == decode_display_text(text)


@example("ﬂ°#95;")  # raw placeholder characters beside an entity
@example("¶ß#59;x")
@example("é#233;;")
@given(MIXED)
def test_fast_text_equals_the_full_decoding_where_every_hash_is_an_entity(text: str) -> None:
    """Beyond the fast path's ASCII: any text in ``_fast_text``'s contract."""
    if _in_contract(text):
        assert _fast_text(text) == decode_display_text(text)


@example("#amp;")
@example("a # b")
@example("x#y;")
@given(MIXED)
def test_a_label_outside_the_fast_shape_goes_the_full_way_or_agrees(text: str) -> None:
    for line in (f"  a --> b : {text}", f'  state "{text}" as s'):
        diagram = f"stateDiagram-v2\n{line}\n"
        fast = _fast(diagram)
        if not _FAST_SHAPE.fullmatch(text.strip()):
            assert fast is None, diagram
        elif fast is not None:
            assert fast == _parse_full(diagram), diagram

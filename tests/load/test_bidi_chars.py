"""The quick bidi pre-check knows every character the reported regex matches."""

from __future__ import annotations

from generator.load.textchecks import _BIDI_CHARS, BIDI, bidi_controls


def test_quick_check_covers_exactly_the_regex() -> None:
    matched = {chr(code) for code in range(0x10000) if BIDI.match(chr(code))}
    assert matched == set(_BIDI_CHARS)


def test_every_control_is_still_reported() -> None:
    for char in _BIDI_CHARS:
        text = f"---\nid: a{char}b\n---\n# T é\n"
        assert [offset for offset, _ in bidi_controls(text, text.index("# T"))] == [9]

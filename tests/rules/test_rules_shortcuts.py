"""Invariants the rules' shortcuts rely on (each shortcut skips work only where it is a no-op)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from generator.load.mermaid.display import display_name
from generator.model.events import event_member as plain_event_member
from generator.model.names import member_name as plain_member_name
from generator.rules.events import event_member
from generator.rules.graph import member_name

PRINTABLE_ASCII = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1
)


@given(PRINTABLE_ASCII)
def test_printable_ascii_names_are_shown_as_written(name: str) -> None:
    # SD30x compare a diagram with the spec by displayed names and skip the mapping for these
    assert display_name(name) == name


@given(st.text(max_size=12))
def test_cached_member_names_are_the_model_s(name: str) -> None:
    assert member_name(name) == plain_member_name(name)
    assert event_member(name) == plain_event_member(name)
    assert member_name(name) == plain_member_name(name)  # served from the cache

"""The reader's fast path (plain line shapes) must give exactly what the full lexer gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diagram.test_mermaid_oracle import HANDWRITTEN, RENDERED_SPECS, SOUP
from generator.diagram.writer import render_state_diagram
from generator.load.mermaid.parse import _fast, _parse_full


def _agree(text: str) -> bool:
    """True when the fast path answered (and asserts it answered right)."""
    fast = _fast(text)
    if fast is None:
        return False
    assert fast == _parse_full(text), text
    return True


def test_fast_path_agrees_on_the_oracle_corpus() -> None:
    texts = [*HANDWRITTEN.values(), *SOUP]
    texts.extend(render_state_diagram(*spec) for spec in RENDERED_SPECS)
    answered = sum(_agree(text) for text in texts)
    assert answered >= 20  # the fast path is really exercised by this corpus


PLAIN = st.sampled_from(["a", "s0", "pending", "x_y", "b2", "Done", "s10", "[*]", "[*]"])
TRICKY = st.sampled_from(
    [
        "state",
        "State",
        "note",
        "end",
        "ending",
        "as",
        "of",
        "class",
        "default",
        "direction",
        "root_start",
        "ROOT_END",
        "hide",
        "click",
        "Fork",
        "scale",
        "acc",
        "accTitle",
        "accdescr",
        "accepted",
        "a-b",
        "é",
        "a.b",
        "style",
        "lifestyle",
        "classDef",
    ]
)
WORDS = st.one_of(*[PLAIN] * 12, TRICKY)
ENTITY = st.sampled_from(["#95;", "#59;", "#35;", "#0;", "#64258;#176;", "#182;#223;", "#9;"])
TEXT = st.one_of(
    st.text(alphabet="ab -.,()/!?'", max_size=12),
    st.text(alphabet="ab -.,()/!?'", max_size=12),
    st.text(alphabet='ab -_:;#<>"%{}\t', max_size=6),
    st.lists(st.one_of(st.text(alphabet="ab -.", max_size=4), ENTITY), max_size=4).map("".join),
)


@st.composite
def fast_shaped(draw: st.DrawFn) -> str:
    lines = [
        draw(st.sampled_from(["stateDiagram-v2"] * 4 + ["  stateDiagram-v2", "stateDiagram-v2 "]))
    ]
    for _ in range(draw(st.integers(0, 8))):
        shape = draw(st.integers(0, 3))
        if shape == 0:
            lines.append(draw(st.sampled_from(["", "  ", " "])))
        elif shape == 1:
            lines.append(f'  state "{draw(TEXT)}" as {draw(WORDS)}')
        else:
            label = f" : {draw(TEXT)}" if shape == 3 else ""
            lines.append(f"  {draw(WORDS)} --> {draw(WORDS)}{label}")
    return draw(st.sampled_from(["", "\n"])) + "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=300)
@given(fast_shaped())
def test_fast_path_agrees_on_fast_shaped_text(text: str) -> None:
    _agree(text)


def test_statedocs_own_plain_output_takes_the_fast_path() -> None:
    text = render_state_diagram(
        ["pending", "running", "done"],
        [("pending", "running"), ("running", "done")],
        ["pending"],
        ["done"],
        labels={("pending", "running"): "start it"},
    )
    assert _agree(text)


def test_states_that_merely_start_with_acc_take_the_fast_path() -> None:
    # Only ``accTitle``/``accDescr`` are lexer keywords; ``accepted`` used to send the whole
    # diagram down the full lexer (about six times slower).
    text = render_state_diagram(
        ["pending", "accepted", "accounted"],
        [("pending", "accepted"), ("accepted", "accounted")],
        ["pending"],
        ["accounted"],
        labels={("pending", "accepted"): "accept it"},
    )
    assert _agree(text)
    assert _fast("stateDiagram-v2\n  a --> accTitle : x\n") is None


def test_numeric_entities_in_labels_take_the_fast_path() -> None:
    # statedoc's renderer writes a ``_`` outside a word as ``#95;``: such diagrams used to
    # take the full lexer.
    text = render_state_diagram(
        ["pending", "running", "done"],
        [("pending", "running"), ("running", "done")],
        ["pending"],
        ["done"],
        labels={("pending", "running"): "start_ it", ("running", "done"): "on_done _now"},
    )
    assert "#95;" in text
    assert _agree(text)
    state = 'stateDiagram-v2\n  state "a#95;b" as x\n  x --> y : p#95;q #59;\n'
    assert _agree(state)
    assert _fast(state) == _parse_full(state)
    # Mermaid drops the last ``;`` of a ``style``/``classDef`` line before reading entities.
    assert _fast("stateDiagram-v2\n  lifestyle --> b :#95;x\n") is None
    assert _fast("stateDiagram-v2\n  a --> b : x#y;\n") is None

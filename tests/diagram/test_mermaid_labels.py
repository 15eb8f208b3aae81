"""Mermaid labels escape only what Mermaid needs, checked with Mermaid itself (node, pinned
npm packages from tests/mermaid_js's lockfile).

* readable: an event ``confirm_payout`` is written as ``confirm_payout``, not
  ``confirm#95;payout``, and Mermaid shows it as written, with no markup;
* a ``_`` that Markdown could read as emphasis (at the edge of a word, beside an escape) is
  still escaped, and Mermaid shows it literally;
* hostile: for any text (Hypothesis, biased to Mermaid's and Markdown's syntax), the diagram
  Mermaid parses is exactly the one meant, each label shows exactly its text, and a drawn
  label holds no markup: no text can break out of its label.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mermaid_oracle import ensure_node_modules, node_available, parse_diagrams
from profiles import scaled

from diagram.test_mermaid_oracle import intended_graph, mermaid_graph
from diagram.test_mermaid_render_parse import Spec, render_spec, usable_names
from generator.diagram import escape_label, escape_name, render_state_diagram

pytestmark = [pytest.mark.mermaid_js, pytest.mark.slow]

#: Texts with ``_`` in every position that matters: (text, whether every ``_`` stays raw).
UNDERSCORES = [
    ("confirm_payout", True),
    ("a__b", True),
    ("x_1_y", True),
    ("é_ü_日本", True),
    ("on_done now_ok", True),
    ("_leading", False),
    ("trailing_", False),
    ("a _b_ c", False),
    ("a#_b_", False),  # an escape ends in ``;``: punctuation that lets ``_`` open emphasis
    ("direction_x", False),  # the ``n`` of direction is escaped: ``;`` again
    ("a_ b", False),
    ("*a*_b_", False),
    ("1. x\n1_2", False),  # the digit at the line start is escaped
    ("one_two\nthree_four", True),
]


def _oracle() -> None:
    node_available()
    ensure_node_modules()


def _spec(name: str, label: str) -> Spec | None:
    """A two-state spec: ``name`` first, its one edge labelled ``label``."""
    states = usable_names([name, "other"])
    if len(states) < 2:
        return None  # the name shows as another state's or as [*]
    first, other = states
    labels = {(first, other): label} if label else {}
    return (states, [(first, other)], {first}, {other}, labels)


def _broken(spec: Spec, text: str, result: dict[str, Any]) -> list[str]:
    """How Mermaid's reading (and drawing) of ``text`` differs from what ``spec`` meant."""
    if "error" in result:
        return [f"Mermaid error {result['error']}\n{text}"]
    want, got = intended_graph(spec), mermaid_graph(result)
    if (want.nodes, want.edges, want.names) != (got.nodes, got.edges, got.names):
        return [f"meant {want}\ngot   {got}\n{text}"]
    if "render_error" in result:
        return [f"render error {result['render_error']}\n{text}"]
    if "rendered" not in result:
        return []
    failures = []
    for ident, name in want.names.items():
        shown = result["rendered"]["nodes"].get(ident)
        if shown is None or shown["text"] != name or shown["tags"]:
            failures.append(f"state {name!r} shows as {shown}\n{text}")
    for edge, (_, _, label) in zip(result["edges"], want.edges, strict=True):
        shown = result["rendered"]["edges"].get(edge["id"])
        if shown is None and label is None:
            continue  # no label, no label box
        if shown is None or shown["text"] != (label or "") or shown["tags"]:
            failures.append(f"label {label!r} shows as {shown}\n{text}")
    return failures


def test_words_with_underscores_are_written_as_is_and_shown_as_written() -> None:
    _oracle()
    for text, raw in UNDERSCORES:
        for written in (escape_label(text), escape_name(text)):
            assert ("#95;" not in written) == raw, (text, written)
    specs = [spec for text, _ in UNDERSCORES if (spec := _spec(text, text)) is not None]
    diagrams = [render_spec(spec) for spec in specs]
    results = parse_diagrams(diagrams, render=True)
    failures = [
        failure
        for spec, text, result in zip(specs, diagrams, results, strict=True)
        for failure in _broken(spec, text, result)
    ]
    assert not failures, "\n".join(failures)


def test_the_event_of_a_transition_reads_as_written_in_the_block() -> None:
    _oracle()
    text = render_state_diagram(
        ["awaiting_payout", "paid_out"],
        [("awaiting_payout", "paid_out")],
        ["awaiting_payout"],
        ["paid_out"],
        edge_labels=["confirm_payout"],
        plain_ids=True,
    )
    assert "awaiting_payout --> paid_out : confirm_payout\n" in text
    (result,) = parse_diagrams([text], render=True)
    (edge,) = [e for e in result["edges"] if e["start"] == "awaiting_payout"]
    shown = result["rendered"]["edges"][edge["id"]]
    assert (edge["text"], shown["text"], shown["tags"]) == ("confirm_payout", "confirm_payout", [])


# Pieces of Mermaid, Markdown, HTML and KaTeX syntax, and what Mermaid trims or rewrites.
_PIECES = st.sampled_from(
    [
        "_", "__", " _", "_ ", "_x_", "*", "**", "`", "~~", "$$", "\\", "|", "#", "#95;",
        "#59;", "&amp;", "&#95;",
        ";", ":", "::", "%%", "%%{init: {}}%%", "{", "}", "[[fork]]", "<<join>>", "<br>",
        "<b>x</b>", "<script>", '"', "'", "-->", " : ", "[*]", "direction", "direction LR",
        "end", "note", "state", "classDef", "style x fill:#f00", "fa:fa-car", "\n", "\n\n",
        "  ", "\t", "\u00a0", "\u2028", "1.", "- ", "=", "> ", "a", "payout", "é", "日本", "🚀",
        "\x00", "\x7f", "\ufb02\u00b0", "\u00b6\u00df",
    ]
)  # fmt: skip
_TEXT = st.lists(_PIECES | st.text(max_size=2), max_size=8).map("".join)


@settings(
    max_examples=scaled(20, minimum=3),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.tuples(_TEXT, _TEXT), min_size=40, max_size=40))
def test_no_text_breaks_out_of_its_label(cases: list[tuple[str, str]]) -> None:
    """Each example is one batch for one node process; the first few are also drawn."""
    _oracle()
    specs = [spec for name, label in cases if (spec := _spec(name, label)) is not None]
    diagrams = [render_spec(spec) for spec in specs]
    results = parse_diagrams(diagrams, render=[index < 4 for index in range(len(diagrams))])
    failures = [
        failure
        for spec, text, result in zip(specs, diagrams, results, strict=True)
        for failure in _broken(spec, text, result)
    ]
    assert not failures, "\n".join(failures[:5])

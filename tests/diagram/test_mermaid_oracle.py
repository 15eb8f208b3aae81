"""statedoc's Mermaid writer and reader against Mermaid itself (node, pinned npm packages).

All diagrams go to one node process per session (``oracle`` fixture): the
seed diagrams, hand-written constructs and traps, a seeded soup of
diagram-like text, one rendered diagram per hostile name, and a few hundred
rendered specs with hostile names and labels. Rendered diagrams are also
drawn, so labels are checked as displayed, not only as parsed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from mermaid_oracle import ensure_node_modules, node_available, parse_diagrams
from profiles import THOROUGH, scaled

from diagram.test_mermaid_render_parse import (
    HOSTILE_NAMES,
    SEED_ALIASES,
    SEED_BARE_IDS,
    Spec,
    random_specs,
    render_spec,
    spec_edges,
    usable_names,
)
from generator.diagram import render_state_diagram
from generator.load.mermaid import Diagram, parse_state_diagram
from generator.load.mermaid.display import display_label, display_name

#: slow: a thorough run sends ~1,000 diagrams and draws ~200; the default run about a fifth.
pytestmark = [pytest.mark.mermaid_js, pytest.mark.slow]

H = "stateDiagram-v2\n"

# Hand-written constructs and Mermaid's traps; the oracle says what they mean.
HANDWRITTEN: dict[str, str] = {
    "seed-aliases": SEED_ALIASES,
    "seed-bare-ids": SEED_BARE_IDS,
    "v1-header": "stateDiagram\n  [*] --> a\n  a --> b : x\n  b --> [*]",
    "header-same-line": "  stateDiagram-v2 a --> b",
    "leading-comment-directive": '%% c\n%%{init: {"theme": "dark"}}%%\n\nstateDiagram-v2\n a --> b',
    "diagram-front-matter": "---\ntitle: x\n---\nstateDiagram-v2\n a --> b",
    "no-header": "a --> b",
    "lowercase-header": "statediagram-v2\n a --> b",
    "flowchart": "flowchart LR\n a --> b",
    "state-alias": H + '  state "Awaiting approval" as s0\n  s0 --> s1',
    "state-bare": H + "  state a\n  state b\n  a --> b",
    "state-lonely": H + "  state lonely\n  lonely2",
    "alias-late": H + '  a --> b\n  state "late" as a',
    "alias-twice": H + '  state "y" as s0\n  state "z" as s0\n  s0 --> b',
    "alias-colon": H + '  state "x" as s0 : extra\n  s0 --> b',
    "alias-spaced-id": H + '  state "x" as a b\n  a --> b',
    "alias-marker": H + '  state "x" as [*]\n  a --> b',
    "description": H + "  a : one\n  a : two\n  a --> b",
    "labels": H + "  a-->b:lbl\n  b --> c : go on\n  c --> a :x:y\n  a --> c : ",
    "markers": H + "  [*] --> a\n  [*] --> b\n  b --> [*]\n  [*]\n  [*] --> [*]",
    "duplicates": H + "  a --> b\n  a --> b : again",
    "comments": H
    + "  %% line\n  a --> b %% trailing\n  b --> c # hash\n  %%{init: {}}%%\n  c --> d",
    "direction": H + "  direction LR\n  a --> b",
    "styles": (
        H + "  classDef red fill:#f00,color:white;\n  class a red\n  style b fill:#0f0\n"
        "  a --> b\n  a:::red --> c\n  hide empty description\n  scale 350 width"
    ),
    "click": H + '  click a "http://x" "tip"\n  a --> b',
    "acc": H + "  accTitle: Title\n  accDescr: d\n  accDescr {\n  multi\n  }\n  a --> b",
    "notes": (
        H + "  a --> b\n  note right of a : hello\n  note left of b\n    multi\n  end note\n"
        '  note "floating" as N1'
    ),
    "note-new-state": H + "  a --> b\n  note right of c : hello",
    "composite": H + "  state X {\n    [*] --> y\n  }\n  a --> X",
    "fork": H + "  state f <<fork>>\n  a --> f\n  f --> b\n  state j [[join]]\n  f --> j",
    "entities": H + '  state "a#59;b #quot;c#quot;" as s0\n  s0 --> s1 : x#59;y #35;1 #amp; #x41;',
    "entity-id": H + "  a#59;b --> c",
    "br": H + "  a --> b : one<br>two<br/>three\n" + '  state "x\ny" as b',
    "trap-semicolon-label": H + "  a --> b : x; y",
    "trap-semicolon-id": H + "  a --> b; b --> c",
    "trap-space-id": H + "  a b\n  c",
    "trap-space-after-edge": H + "  a --> b c",
    "trap-direction": H + "  a --> b : redirection bt",
    "trap-state-vanishes": H + "  state --> b",
    "trap-percent": H + "  a --> b : %% not a comment\n  a%%b --> c",
    "trap-raw-entity": H + "  a --> b : with &amp; and &lt;",
    "trap-end": H + "  end --> b",
    "trap-hash-label": H + "  a --> b : #35; and # hash",
    "trap-style-semicolon": H + "  a --> b : style x:y#35;z#59;",
    "error-double-colon": H + "  a --> b : x::y",
    "error-trailing-colon": H + "  a --> b :",
    "error-hyphen": H + "  a-b --> c",
    "error-default": H + "  Default --> b",
    "error-note": H + "  state NOTE\n  Note --> b",
    "error-empty-alias": H + '  state "" as s0\n  s0 --> b',
    "error-escaped-quote": H + '  state "say \\"hi\\"" as s0',
    "error-spaced-composite": H + "  state a b {\n  }",
    "error-unclosed": H + "  state X {\n    a --> b",
    "error-classdef-default": H + "  classDef default fill:#f00\n  a --> b",
}

_SOUP = (
    "a", "b", "c", "s0", "s1", "[*]", " --> ", "-->", " : ", ":", "::", ";", " ", "\n", "\n  ",
    "state ", 'state "x y" as ', '"', " as ", "{", "}", "%%", "%% c\n", "%%{init: {}}%%", "#",
    "#59;", "#quot;", "&amp;", "<br>", "direction LR", "direction tb", "note right of a : n\n",
    "note left of b\n x\nend note\n", 'note "f" as N1\n', "<<fork>>", "[[join]]",
    "classDef red fill:#f00\n", "class a red\n", "style a fill:#0f0\n", 'click a "u" "t"\n',
    ":::red", "hide empty description\n", "scale 30 width\n", "accTitle: t\n", "end", "note",
    "default", "State", "--", "-", "é", "\t", "\r\n", "root_start", "ﬂ°°59¶ß", "\u2028", "\u00a0",
    "a%%b", "'",
)  # fmt: skip
_SOUP_HEADERS = (
    "stateDiagram-v2\n",
    "stateDiagram\n",
    "%% c\nstateDiagram-v2\n",
    "  stateDiagram-v2 ",
)


def soup(count: int, seed: int) -> list[str]:
    """Deterministic diagram-like noise: the parsers must agree on all of it."""
    rng = random.Random(seed)
    return [
        rng.choice(_SOUP_HEADERS) + "".join(rng.choice(_SOUP) for _ in range(rng.randint(0, 25)))
        for _ in range(count)
    ]


def hostile_name_specs() -> list[Spec]:
    """One small spec per hostile name, with hostile labels on every edge."""
    specs: list[Spec] = []
    count = len(HOSTILE_NAMES)
    for index, name in enumerate(HOSTILE_NAMES):
        states = usable_names([name, f"other {index}"])
        if len(states) < 2:
            continue  # the name shows as [*]; covered by the writer tests
        first, other = states
        label = HOSTILE_NAMES[(index * 7 + 3) % count]
        labels = {(first, other): name, ("[*]", first): label, (other, "[*]"): name}
        labels = {edge: text for edge, text in labels.items() if text}
        specs.append((states, [(first, other), (first, first)], {first}, {other}, labels))
    return specs


HOSTILE_SPECS = hostile_name_specs()
RENDERED_SPECS: list[Spec] = HOSTILE_SPECS + random_specs(scaled(300), seed=20_241_130)
#: Which of them are also drawn (0.4-0.7 s each): all in a thorough run, else every tenth
#: hostile name and a fifth of the random specs (every one is still parsed).
DRAWN = [
    (THOROUGH or index % 10 == 0)
    if index < len(HOSTILE_SPECS)
    else index - len(HOSTILE_SPECS) < scaled(60)
    for index in range(len(RENDERED_SPECS))
]
RENDERED_DRAWN = sum(DRAWN)
SOUP = soup(scaled(600), seed=7)

# Names near Mermaid's keywords and id rules, for the bare-id style of ``diagram --write``.
NEAR_KEYWORDS = [
    "ok",
    "Open",
    "past_due",
    "a1",
    "x_y_z",
    "ABC",
    "LR",
    "TB",
    "notify",
    "ending",
    "as1",
    "of2",
    "left2",
    "right_x",
    "hide2",
    "click2",
    "href2",
    "scale2",
    "fork2",
    "join2",
    "choice2",
    "default2",
    "classic",
    "styled",
    "stated",
    "directions",
    "accepted",
    "endnote",
    "root",
    "root_start",
    "s0",
    "s1",
    "end",
    "note",
    "state",
    "class",
    "direction",
    "as",
    "a b",
    "a-b",
    "past due",
    "x:y",
]


def plain_id_specs(count: int, seed: int) -> list[Spec]:
    """Specs mixing bare-id names (near keywords) with names that need an alias."""
    rng = random.Random(seed)
    specs: list[Spec] = []
    for _ in range(count):
        states = rng.sample(NEAR_KEYWORDS, rng.randint(1, 6))
        transitions = [(rng.choice(states), rng.choice(states)) for _ in range(len(states))]
        initial = {states[0]}
        terminal = {name for name in states if rng.random() < 0.3}
        labels = {edge: "go on" for edge in transitions if rng.random() < 0.5}
        specs.append((states, transitions, initial, terminal, labels))
    return specs


PLAIN_SPECS = plain_id_specs(scaled(80), seed=11_17_2)


def render_plain(spec: Spec) -> str:
    states, transitions, initial, terminal, labels = spec
    return render_state_diagram(states, transitions, initial, terminal, labels, plain_ids=True)


@dataclass(frozen=True)
class Oracle:
    handwritten: dict[str, dict[str, Any]]
    rendered: list[dict[str, Any]]
    soup: list[dict[str, Any]]
    plain: list[dict[str, Any]]


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    node_available()
    ensure_node_modules()
    hand = list(HANDWRITTEN.values())
    rendered = [render_spec(spec) for spec in RENDERED_SPECS]
    plain = [render_plain(spec) for spec in PLAIN_SPECS]
    texts = hand + rendered + SOUP + plain
    draw = (
        [key.startswith("seed") for key in HANDWRITTEN]
        + DRAWN
        + [False] * len(SOUP)
        + [True] * len(plain)
    )
    results = parse_diagrams(texts, render=draw)
    soup_end = len(hand) + len(rendered) + len(SOUP)
    return Oracle(
        handwritten=dict(zip(HANDWRITTEN, results[: len(hand)], strict=True)),
        rendered=results[len(hand) : len(hand) + len(rendered)],
        soup=results[len(hand) + len(rendered) : soup_end],
        plain=results[soup_end:],
    )


# --------------------------------------------------------------------------
# Normalising both parsers to one shape: ids as written, [*] for the markers.

_ENCODED = re.compile("(?:\ufb02\u00b0\u00b0|\ufb02\u00b0)([A-Za-z0-9_]+)\u00b6\u00df")
_MARKERS = {"root_start": "[*]", "root_end": "[*]"}


@dataclass(frozen=True)
class Graph:
    nodes: list[str]  # ids, first appearance order, markers and notes left out
    edges: list[tuple[str, str, str | None]]  # ids or [*], label as displayed
    names: dict[str, str]  # id -> displayed name, where it can be compared


def _as_written(mermaid_id: str) -> str:
    return _ENCODED.sub(lambda m: f"#{m.group(1)};", mermaid_id)


def mermaid_graph(result: dict[str, Any]) -> Graph:
    notes = {n["id"] for n in result["nodes"] if n.get("shape") in ("note", "noteGroup")}
    nodes = [
        _as_written(n["id"])
        for n in result["nodes"]
        if n["id"] not in notes and n["id"] not in _MARKERS
    ]
    edges = [
        (
            _MARKERS.get(e["start"], _as_written(e["start"])),
            _MARKERS.get(e["end"], _as_written(e["end"])),
            e["text"] or None,
        )
        for e in result["edges"]
        if e["start"] not in notes and e["end"] not in notes
    ]
    names = {
        _as_written(n["id"]): n["text"]
        for n in result["nodes"]
        if n["id"] not in notes and n["id"] not in _MARKERS
    }
    return Graph(nodes, edges, names)


def our_graph(diagram: Diagram) -> Graph:
    by_name: dict[str, str] = {}
    for state in diagram.states:
        by_name.setdefault(state.name, state.id)

    def ident(name: str) -> str:
        return name if name == "[*]" else by_name[name]

    edges = [(ident(e.src), ident(e.dst), e.label) for e in diagram.edges]
    # Mermaid shows a bare id's first description instead of the id, and
    # sanitises HTML in labels; statedoc names states by id and keeps HTML.
    names = {
        state.id: state.name
        for state in diagram.states
        if not state.descriptions and "<" not in state.name
    }
    return Graph([state.id for state in diagram.states], edges, names)


def disagreement(text: str, result: dict[str, Any]) -> str | None:
    """Why our reading of ``text`` differs from Mermaid's, or None."""
    ours = parse_state_diagram(text)
    if "error" in result or ours.rejected:
        if ("error" in result) == ours.rejected:
            return None
        return f"Mermaid: {result.get('error', 'accepted')!r}; ours: {ours.problems}"
    if any("composite" in p.message for p in ours.problems):
        return None  # statedoc reports composites instead of reading inside them
    if any("Mermaid's own name" in p.message for p in ours.problems):
        return None  # Mermaid merges such an id with its marker or its root; we report it
    if len(set(ours.state_names)) != len(ours.states):
        return None  # two ids display the same name: edges by name are ambiguous
    theirs, mine = mermaid_graph(result), our_graph(ours)
    if theirs.nodes != mine.nodes:
        return f"nodes: Mermaid {theirs.nodes}, ours {mine.nodes}"
    edges_mermaid = [
        (a, b, None if label and "<" in label else label) for a, b, label in theirs.edges
    ]
    edges_ours = [(a, b, None if label and "<" in label else label) for a, b, label in mine.edges]
    if edges_mermaid != edges_ours:
        return f"edges: Mermaid {theirs.edges}, ours {mine.edges}"
    for ident, name in mine.names.items():
        if theirs.names.get(ident) != name:
            return f"name of {ident!r}: Mermaid {theirs.names.get(ident)!r}, ours {name!r}"
    return None


# --------------------------------------------------------------------------
# Hand-written diagrams


@pytest.mark.parametrize("key", list(HANDWRITTEN))
def test_our_reader_agrees_with_mermaid(oracle: Oracle, key: str) -> None:
    problem = disagreement(HANDWRITTEN[key], oracle.handwritten[key])
    assert problem is None, f"{key}: {problem}\n{HANDWRITTEN[key]}"


def test_the_cases_cover_errors_and_traps(oracle: Oracle) -> None:
    errors = {key for key, result in oracle.handwritten.items() if "error" in result}
    assert errors == {
        key for key in HANDWRITTEN if key.startswith(("error-", "no-", "lowercase", "flowchart"))
    }
    traps = oracle.handwritten
    assert mermaid_graph(traps["trap-direction"]).nodes == []
    assert mermaid_graph(traps["trap-semicolon-label"]).nodes == ["a", "b", ";", "y"]
    assert mermaid_graph(traps["state-lonely"]).nodes == ["lonely2"]


def test_composite_states_are_reported(oracle: Oracle) -> None:
    inside = mermaid_graph(oracle.handwritten["composite"])
    assert "y" in inside.nodes  # Mermaid draws the inner state ...
    ours = parse_state_diagram(HANDWRITTEN["composite"])
    assert not ours.rejected and "composite" in ours.problems[0].message  # ... we refuse to guess


@pytest.mark.parametrize("key", ["seed-aliases", "seed-bare-ids"])
def test_seed_labels_display_as_written(oracle: Oracle, key: str) -> None:
    result = oracle.handwritten[key]
    assert "render_error" not in result, result.get("render_error")
    ours = parse_state_diagram(HANDWRITTEN[key])
    shown = result["rendered"]["nodes"]
    for state in ours.states:
        assert shown[state.id]["text"] == state.name
        assert shown[state.id]["tags"] == []
    drawn = result["rendered"]["edges"]
    edge_texts = [(drawn.get(e["id"]) or {"text": ""})["text"] for e in result["edges"]]
    assert edge_texts == [edge.label or "" for edge in ours.edges]


def test_soup_agrees(oracle: Oracle) -> None:
    failures = [
        f"{text!r}: {problem}"
        for text, result in zip(SOUP, oracle.soup, strict=True)
        if (problem := disagreement(text, result)) is not None
    ]
    assert not failures, "\n".join(failures[:10])
    accepted = sum("error" not in result for result in oracle.soup)
    assert 0.2 * len(SOUP) < accepted < 0.95 * len(SOUP), "the soup must exercise both outcomes"


# --------------------------------------------------------------------------
# Diagrams written by statedoc


def intended_graph(spec: Spec) -> Graph:
    states = spec[0]
    ids = {name: f"s{index}" for index, name in enumerate(states)} | {"[*]": "[*]"}
    edges = []
    for src, dst in spec_edges(spec):
        edges.append((ids[src], ids[dst], display_label(spec[4].get((src, dst), ""))))
    names = {f"s{index}": display_name(name) for index, name in enumerate(states)}
    return Graph([f"s{index}" for index in range(len(states))], edges, names)


def _rendered_cases(oracle: Oracle) -> Iterator[tuple[Spec, str, dict[str, Any]]]:
    for spec, result in zip(RENDERED_SPECS, oracle.rendered, strict=True):
        yield spec, render_spec(spec), result


def test_mermaid_reads_what_we_meant(oracle: Oracle) -> None:
    failures = []
    for spec, text, result in _rendered_cases(oracle):
        if "error" in result:
            failures.append(f"{spec}: Mermaid error {result['error']}\n{text}")
            continue
        want, got = intended_graph(spec), mermaid_graph(result)
        if (want.nodes, want.edges, want.names) != (got.nodes, got.edges, got.names):
            failures.append(f"{spec}:\n  meant {want}\n  got   {got}\n{text}")
    assert not failures, f"{len(failures)} diagrams:\n" + "\n".join(failures[:5])


def test_mermaid_displays_what_we_meant(oracle: Oracle) -> None:
    failures = []
    drawn = 0
    for spec, text, result in _rendered_cases(oracle):
        if "rendered" not in result:
            if "render_error" in result:
                failures.append(f"{spec}: render error {result['render_error']}")
            continue
        drawn += 1
        want = intended_graph(spec)
        for ident, name in want.names.items():
            shown = result["rendered"]["nodes"].get(ident)
            if shown is None or shown["text"] != name or shown["tags"]:
                failures.append(f"state {name!r} shows as {shown}\n{text}")
        for index, (edge, (src, dst, label)) in enumerate(
            zip(result["edges"], want.edges, strict=True)
        ):
            later = [(a, b) for a, b, _ in want.edges[index + 1 :]]
            if src == dst and (src, dst) in later:
                continue  # Mermaid draws only the last of repeated self-loops (measured)
            shown = result["rendered"]["edges"].get(edge["id"])
            if shown is None and label is None:
                continue  # nothing to show, and Mermaid 12 draws no empty label box
            if shown is None or shown["text"] != (label or "") or shown["tags"]:
                failures.append(f"label {label!r} shows as {shown}\n{text}")
    assert drawn == RENDERED_DRAWN
    assert not failures, f"{len(failures)} labels:\n" + "\n".join(failures[:5])


def test_our_reader_agrees_on_what_we_wrote(oracle: Oracle) -> None:
    failures = [
        f"{problem}\n{text}"
        for _, text, result in _rendered_cases(oracle)
        if (problem := disagreement(text, result)) is not None
    ]
    assert not failures, f"{len(failures)} diagrams:\n" + "\n".join(failures[:5])


def test_the_corpus_is_hostile_enough() -> None:
    names = [name for spec in RENDERED_SPECS for name in spec[0]]
    labels = [label for spec in RENDERED_SPECS for label in spec[4].values()]
    assert len(RENDERED_SPECS) > scaled(400, minimum=150)
    for needle in ('"', ";", ":", "#", "%%", "\n", "direction tb", "<<fork>>", "$$", "*", "\x00"):
        assert any(needle in text for text in names), needle
        assert any(needle in text for text in labels), needle


def test_bare_ids_are_read_and_shown_as_the_names_they_stand_for(oracle: Oracle) -> None:
    """``diagram --write`` writes a name as a bare id where :func:`plain_id` allows it."""
    failures = []
    for spec, result in zip(PLAIN_SPECS, oracle.plain, strict=True):
        text = render_plain(spec)
        if "error" in result or "rendered" not in result:
            failures.append(f"Mermaid error {result.get('error') or result.get('render_error')}")
            continue
        problem = disagreement(text, result)
        if problem is not None:
            failures.append(f"{problem}\n{text}")
            continue
        got = mermaid_graph(result)
        shown = {"[*]": "[*]"} | got.names
        edges = [(shown[a], shown[b], label) for a, b, label in got.edges]
        want = [
            (display_name(a) if a != "[*]" else a, display_name(b) if b != "[*]" else b, label)
            for (a, b), label in (
                (edge, display_label(spec[4].get(edge, ""))) for edge in spec_edges(spec)
            )
        ]
        if edges != want:
            failures.append(f"edges {edges} != {want}\n{text}")
        for ident, node in result["rendered"]["nodes"].items():
            if ident in got.names and node["text"] != got.names[ident]:
                failures.append(f"{ident!r} shows {node['text']!r}\n{text}")
    assert not failures, f"{len(failures)} diagrams:\n" + "\n".join(failures[:5])

"""The Mermaid writer and reader, without node: round trips and hand-written constructs.

``test_mermaid_oracle.py`` checks the same code against Mermaid itself; this
module holds the shared hostile data (imported there) and runs everywhere.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.diagram import escape_label, escape_name, render_state_diagram
from generator.load.mermaid import Diagram, decode_display_text, parse_state_diagram
from generator.load.mermaid.display import EMPTY_NAME, display_label, display_name

# --------------------------------------------------------------------------
# Shared data (also used by test_mermaid_oracle.py)

# The two diagram styles found in real documents (shared/seeds), verbatim:
# aliases, and bare ids with labelled [*] edges.
SEED_ALIASES = """stateDiagram-v2
  state "pending" as s0
  state "delivering" as s1
  state "delivered" as s2
  state "failed" as s3
  state "withheld" as s4
  state "expired" as s5
  state "superseded" as s6
  s0 --> s1
  s3 --> s1
  s1 --> s2
  s1 --> s3
  s0 --> s4
  s0 --> s5
  s3 --> s5
  s4 --> s5
  s3 --> s6
"""

SEED_BARE_IDS = """stateDiagram-v2
  [*] --> pending: request committed
  pending --> running: execution started
  pending --> failed: reconciler, never started
  running --> succeeded: workspace opened
  running --> failed: refusal, exhausted retries or timeout
  succeeded --> [*]
  failed --> [*]: a retry is a new attempt
"""

# Texts that break naive diagram writers: Mermaid syntax and lexer traps,
# Markdown/HTML/KaTeX/icon syntax, keywords, entities and Mermaid's entity
# placeholders, whitespace, controls, surrogates and noncharacters.
# fmt: off
HOSTILE_NAMES: tuple[str, ...] = (
    "", " ", "   ", "  padded  ", '"quoted"', "'single'", 'say "hi"', "a:b", "a::b",
    "trailing:", ":leading", "a;b", ";", "#", "#35;", "#59;", "#quot;", "#x41;", "&amp;",
    "&#59;", "&lt;b&gt;", "&", "&nbsp;", "a # b", "%%", "%% comment", "%%{init: {}}%%",
    "-->", "a --> b", "--", "-", "{", "}", "{}", "state X {", "direction tb",
    "direction TB", "Direction LR", "redirection bt", "x direction\tRL", "directionlr",
    "DIRECTION\u00a0bt", "<<fork>>", "<<join>>", "<<choice>>", "[[fork]]", "[[choice]]",
    "[*]", "a\nb", "\n", "line\n\nbreak", "tab\there", "\t", "\r\n", "\r",
    "unicode é ü 漢字 🚀 👩‍👩‍👧", "RTL \u202e text", "zero\u200bwidth", "nbsp\u00a0here",
    "\u2028", "x\u3000y", "\ufeffbom", "*em*", "_u_", "**b**", "__b__", "~~s~~", "`code`",
    "<b>x</b>", "<br>", "<br/>", "<script>alert(1)</script>", '<a href="x">', "<!-- c -->",
    "$$x^2$$", "$x$", "fa:fa-car", "fab:fa-github", ":smile:", "end", "note", "state",
    "class", "classDef", "default", "Default", "style", "click", "href", "scale",
    "stateDiagram", "stateDiagram-v2", "root_start", "root_end", "hide empty description",
    "accTitle: x", "as", "a as b", "note right of x", "end note", "- item", "1. item",
    "1) x", "+ item", "> quote", "# heading", "---", "***", "===", "| a | b |",
    "[link](http://x)", "![img](x.png)", "[^1]", "- [ ] task", "http://example.com",
    "www.example.com", "@user", "a\\b", "\\n", "\\", "\\_", "a\\*b", "C:\\path\\to",
    "style a:b#c;", "classDef x:y#z;", "ﬂ°°59¶ß", "¶ß", "ﬂ°", "ﬂ", "¶", "°", "ß", "\x00",
    "\x07bell", "\x1b[31m", "\x7f", "\x85", "\x9f", "\ud800", "\udfff", "\ufdd0", "\uffff",
    "\U0010fffe", "a  b", "a=b", "1", "0", "-1", "null", "true", "✓ done", "a_b_c",
    "snake_case_name", "in-progress", "on hold (retry)", "    code", "a\n---", "a\n===",
)
# fmt: on


def hostile_names() -> st.SearchStrategy[str]:
    """Hostile names: the list above, arbitrary text, and mixes of both."""
    piece = st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=6))
    return st.one_of(
        st.sampled_from(HOSTILE_NAMES),
        st.text(max_size=20),
        st.lists(piece, min_size=1, max_size=4).map("".join),
    )


# (states, transitions, initial, terminal, labels): the arguments of render_state_diagram.
Spec = tuple[list[str], list[tuple[str, str]], set[str], set[str], dict[tuple[str, str], str]]


def spec_edges(spec: Spec) -> list[tuple[str, str]]:
    """Every edge the diagram draws, in drawing order, keyed as in ``labels``."""
    states, transitions, initial, terminal, _ = spec
    edges = [("[*]", name) for name in states if name in initial]
    edges.extend(transitions)
    edges.extend((name, "[*]") for name in states if name in terminal)
    return edges


def usable_names(names: list[str]) -> list[str]:
    """Drop names whose displayed form repeats or is the ``[*]`` marker.

    Two names that show the same (``"\\x00"`` and ``"␀"``) cannot be told
    apart in any picture; ``[*]`` as a name is a separate test below.
    """
    seen: set[str] = set()
    kept: list[str] = []
    for name in names:
        shown = display_name(name)
        if shown not in seen and shown != "[*]":
            seen.add(shown)
            kept.append(name)
    return kept


def _random_text(rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.45:
        return rng.choice(HOSTILE_NAMES)
    if choice < 0.7:
        return "".join(rng.choice(HOSTILE_NAMES) for _ in range(rng.randint(1, 3)))
    if choice < 0.85:  # any code point, surrogates and controls included
        return "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(1, 8)))
    alphabet = "ab :;#%&<>\"'{}[]*_$\\|`~\n\t-→é漢🚀"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))


def random_specs(count: int, seed: int) -> list[Spec]:
    """Deterministic random specs with hostile names and labels (for the node oracle)."""
    rng = random.Random(seed)
    specs: list[Spec] = []
    for _ in range(count):
        states = usable_names([_random_text(rng) for _ in range(rng.randint(1, 7))]) or ["only"]
        transitions = [
            (rng.choice(states), rng.choice(states)) for _ in range(rng.randint(0, 2 * len(states)))
        ]
        initial = {name for name in states if rng.random() < 0.3}
        terminal = {name for name in states if rng.random() < 0.3}
        bare: Spec = (states, transitions, initial, terminal, {})
        labels = {edge: _random_text(rng) for edge in spec_edges(bare) if rng.random() < 0.6}
        specs.append((states, transitions, initial, terminal, labels))
    return specs


def render_spec(spec: Spec) -> str:
    states, transitions, initial, terminal, labels = spec
    return render_state_diagram(states, transitions, initial, terminal, labels)


def expected_labels(spec: Spec) -> dict[tuple[str, str], str]:
    """What ``Diagram.labels`` must hold after a round trip."""
    shown = {"[*]": "[*]"} | {name: display_name(name) for name in spec[0]}
    result: dict[tuple[str, str], str] = {}
    for src, dst in spec_edges(spec):
        label = display_label(spec[4].get((src, dst), ""))
        if label is not None:
            result.setdefault((shown[src], shown[dst]), label)
    return result


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    states = usable_names(draw(st.lists(hostile_names(), min_size=1, max_size=8))) or ["only"]
    index = st.integers(0, len(states) - 1)
    transitions = [
        (states[a], states[b]) for a, b in draw(st.lists(st.tuples(index, index), max_size=12))
    ]
    initial = {states[i] for i in draw(st.sets(index, max_size=3))}
    terminal = {states[i] for i in draw(st.sets(index, max_size=3))}
    bare: Spec = (states, transitions, initial, terminal, {})
    edges = spec_edges(bare)
    labels: dict[tuple[str, str], str] = {}
    if edges:
        chosen = draw(st.lists(st.sampled_from(edges), max_size=len(edges)))
        labels = {edge: draw(hostile_names()) for edge in chosen}
    return states, transitions, initial, terminal, labels


# --------------------------------------------------------------------------
# Writer


def test_render_matches_the_seed_style() -> None:
    text = render_state_diagram(
        ["pending", "delivering", "failed"],
        [("pending", "delivering"), ("delivering", "failed")],
        initial={"pending"},
        terminal={"failed"},
        labels={("pending", "delivering"): "start", ("[*]", "pending"): "created"},
    )
    assert text == (
        "stateDiagram-v2\n"
        '  state "pending" as s0\n'
        '  state "delivering" as s1\n'
        '  state "failed" as s2\n'
        "  [*] --> s0 : created\n"
        "  s0 --> s1 : start\n"
        "  s1 --> s2\n"
        "  s2 --> [*]\n"
    )


def test_render_empty_and_ordering() -> None:
    assert render_state_diagram([], [], set(), set()) == "stateDiagram-v2\n"
    text = render_state_diagram(["b", "a"], [], initial=["a", "b"], terminal=("a", "b"))
    assert text.splitlines()[3:] == ["  [*] --> s0", "  [*] --> s1", "  s0 --> [*]", "  s1 --> [*]"]


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('say "hi"', "say #34;hi#34;"),
        ("a:b;c#d", "a#58;b#59;c#35;d"),
        ("50% {x}", "50#37; #123;x#125;"),
        ("[[fork]] <<join>>", "#91;#91;fork#93;#93; #60;#60;join#62;#62;"),
        ("*a* _b_ `c` ~d~ $$e$$", "#42;a#42; #95;b#95; #96;c#96; #126;d#126; #36;#36;e#36;#36;"),
        ("a\\b|c&d", "a#92;b#124;c#38;d"),
        ("the direction TB", "the directio#110; TB"),
        ("Redirection", "Redirectio#110;"),
        ("  x  ", "#32;#32;x#32;#32;"),
        ("tab\tx\u00a0y", "tab#9;x#160;y"),
        ("end note state default -->", "end note state default --#62;"),
        ("in-progress (retry) 1. é 漢 🚀", "in-progress (retry) 1. é 漢 🚀"),
        ("\x00\x1f\x7f\x85\ud800\ufdd0\uffff", "␀␟␡\ufffd\ufffd\ufffd\ufffd"),
        ("ﬂ°°59¶ß", "fl°°59¶ss"),
    ],
)
def test_escape_table(text: str, written: str) -> None:
    assert escape_name(text) == written
    assert escape_label(text) == written


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("", EMPTY_NAME, ""),
        ("a\nb", "a\nb", "a<br>b"),
        ("a \n b", "a#32;\n#32;b", "a#32;<br>#32;b"),
        ("a\n\nb", "a\n#32;\nb", "a<br>#32;<br>b"),
        ("\nx\n", "#32;\nx\n#32;", "#32;<br>x<br>#32;"),
        ("1. a\n- b\n=\nd", "#49;. a\n#45; b\n#61;\nd", "#49;. a<br>#45; b<br>#61;<br>d"),
        ("- b", "- b", "- b"),
    ],
)
def test_line_breaks(text: str, name: str, label: str) -> None:
    assert escape_name(text) == name
    assert escape_label(text) == label


def test_render_rejects_what_it_cannot_draw() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        render_state_diagram(["a", "a"], [], set(), set())
    with pytest.raises(ValueError, match="undeclared"):
        render_state_diagram(["a"], [("a", "b")], set(), set())
    with pytest.raises(ValueError, match="undeclared"):
        render_state_diagram(["a"], [], {"b"}, set())
    with pytest.raises(ValueError, match="undeclared"):
        render_state_diagram(["a"], [], set(), {"b"})
    with pytest.raises(ValueError, match="not an edge"):
        render_state_diagram(["a", "b"], [("a", "b")], set(), set(), {("b", "a"): "x"})
    with pytest.raises(ValueError, match="not an edge"):
        render_state_diagram(["a"], [], set(), set(), {("[*]", "a"): "x"})


def test_empty_label_is_no_label() -> None:
    text = render_state_diagram(["a", "b"], [("a", "b")], set(), set(), {("a", "b"): ""})
    assert text.endswith("  s0 --> s1\n")


def test_a_state_named_like_the_marker_stays_a_state() -> None:
    text = render_state_diagram(["[*]", "x"], [("[*]", "x")], {"x"}, set())
    assert '  state "#91;#42;#93;" as s0\n' in text
    assert "  s0 --> s1\n" in text
    assert "  [*] --> s1\n" in text


_STATE = re.compile(r'  state "((?:[^"#;]|#[0-9]+;)+)" as s([0-9]+)\n')
_EDGE = re.compile(r"  (s[0-9]+|\[\*\]) --> (s[0-9]+|\[\*\])(?: : ((?:[^:;#\n]|#[0-9]+;)+))?\n")
# Outside entities and <br>, none of these may reach Mermaid raw (``_`` only inside a word).
_RAW_FORBIDDEN = re.compile(r'[#;:%"{}\[\]<>&*`~$\\|\t\r\x00-\x08\x0b-\x1f\x7f-\x9f]')


def _check_text(text: str, line_break: str) -> None:
    for line in text.split(line_break):
        for run in re.finditer("_+", line):  # between a letter or digit on each side
            start, end = run.span()
            assert line[start - 1 : start].isalnum() and line[end : end + 1].isalnum(), line
        plain = re.sub(r"#[0-9]+;", "", line)
        assert not _RAW_FORBIDDEN.search(plain), line
        assert not re.search("direction", plain, re.IGNORECASE), line
        assert line == line.strip(" "), line


@given(specs())
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_render_is_well_formed(spec: Spec) -> None:
    text = render_spec(spec)
    assert text == render_spec(spec), "rendering must be deterministic"
    assert text.startswith("stateDiagram-v2\n")
    position = len("stateDiagram-v2\n")
    for index in range(len(spec[0])):
        match = _STATE.match(text, position)
        assert match is not None and match.group(2) == str(index), text[position:]
        _check_text(match.group(1), "\n")
        position = match.end()
    for _ in spec_edges(spec):
        match = _EDGE.match(text, position)
        assert match is not None, text[position:]
        _check_text(match.group(3) or "", "<br>")
        position = match.end()
    assert position == len(text), "nothing may follow the last edge"


@given(specs())
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_round_trip(spec: Spec) -> None:
    states, transitions, initial, terminal, _ = spec
    diagram = parse_state_diagram(render_spec(spec))
    shown = {name: display_name(name) for name in states}
    assert diagram.ok, diagram.problems
    assert diagram.kind == "stateDiagram-v2"
    assert list(diagram.state_names) == [shown[name] for name in states]
    assert [state.id for state in diagram.states] == [f"s{i}" for i in range(len(states))]
    assert list(diagram.transitions) == [(shown[a], shown[b]) for a, b in transitions]
    assert diagram.starts == {shown[name] for name in initial}
    assert diagram.ends == {shown[name] for name in terminal}
    assert dict(diagram.labels) == expected_labels(spec)


_UNDISPLAYABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef]|ﬂ°|¶ß")


def _displayable(text: str) -> bool:
    return not _UNDISPLAYABLE.search(text) and all((ord(ch) & 0xFFFE) != 0xFFFE for ch in text)


@given(hostile_names())
def test_what_is_written_decodes_to_what_is_shown(text: str) -> None:
    name, label = display_name(text), display_label(text)
    assert display_name(name) == name, "display_name must be idempotent"
    assert decode_display_text(escape_name(text)) == name
    if label is None:
        assert text == "" and escape_label(text) == ""
    else:
        assert display_label(label) == label, "display_label must be idempotent"
        assert decode_display_text(escape_label(text)) == label
    if text and _displayable(text) and ("\n" not in text or "" not in text.split("\n")):
        assert label == name == text


# --------------------------------------------------------------------------
# Reader: hand-written constructs


def parse(body: str, header: str = "stateDiagram-v2\n") -> Diagram:
    return parse_state_diagram(header + body)


def test_seed_with_aliases() -> None:
    diagram = parse_state_diagram(SEED_ALIASES)
    assert diagram.ok and diagram.kind == "stateDiagram-v2"
    assert diagram.state_names == (
        "pending", "delivering", "delivered", "failed", "withheld", "expired", "superseded",
    )  # fmt: skip
    assert diagram.transitions[:3] == (
        ("pending", "delivering"), ("failed", "delivering"), ("delivering", "delivered"),
    )  # fmt: skip
    assert len(diagram.transitions) == 9
    assert diagram.starts == diagram.ends == frozenset()
    assert diagram.states[0].line == 2 and diagram.states[0].column == 3
    assert (diagram.edges[0].line, diagram.edges[0].column) == (9, 3)


def test_seed_with_bare_ids() -> None:
    diagram = parse_state_diagram(SEED_BARE_IDS)
    assert diagram.ok
    assert diagram.state_names == ("pending", "running", "failed", "succeeded")
    assert diagram.starts == {"pending"}
    assert diagram.ends == {"succeeded", "failed"}
    assert diagram.transitions == (
        ("pending", "running"),
        ("pending", "failed"),
        ("running", "succeeded"),
        ("running", "failed"),
    )
    assert diagram.labels[("[*]", "pending")] == "request committed"
    assert diagram.labels[("failed", "[*]")] == "a retry is a new attempt"
    assert diagram.labels[("pending", "failed")] == "reconciler, never started"
    assert ("succeeded", "[*]") not in diagram.labels


def test_headers() -> None:
    assert parse("a --> b", "stateDiagram\n").kind == "stateDiagram"
    assert parse("a --> b", "%% comment\n\n%%{init: {}}%%\nstateDiagram-v2\n").ok
    assert parse_state_diagram("  stateDiagram-v2 a --> b").transitions == (("a", "b"),)
    for text in ("flowchart LR\n a --> b", "", "statediagram-v2\n a --> b", "a --> b"):
        diagram = parse_state_diagram(text)
        assert diagram.rejected and diagram.kind == ""
        assert diagram.problems[0].code == "SD302"


def test_state_declarations() -> None:
    diagram = parse('  state "Awaiting approval" as s0\n  state lonely\n  s0 --> done\n')
    # `state x` without braces draws nothing in Mermaid, so it declares nothing here.
    assert diagram.state_names == ("Awaiting approval", "done")
    assert diagram.states[0].id == "s0"
    late = parse('  a --> b\n  state "Later name" as a\n')
    assert late.transitions == (("Later name", "b"),)
    assert (late.states[0].line, late.states[0].column) == (3, 3)


def test_descriptions_do_not_rename() -> None:
    diagram = parse("  pending : Awaiting approval\n  pending --> done\n")
    assert diagram.state_names == ("pending", "done")
    assert diagram.states[0].descriptions == ("Awaiting approval",)
    extra = parse('  state "x" as s0 : extra\n  s0 --> b\n')
    assert extra.states[0].name == "x" and extra.states[0].descriptions == ("extra",)


def test_transitions_and_labels() -> None:
    diagram = parse("  a-->b\n  b --> c : go on\n  c --> a :x:y\n  a --> c :  \n")
    assert diagram.transitions == (("a", "b"), ("b", "c"), ("c", "a"), ("a", "c"))
    assert dict(diagram.labels) == {("b", "c"): "go on", ("c", "a"): "x:y"}
    assert diagram.edges[3].label is None


def test_start_and_end_markers() -> None:
    diagram = parse("  [*] --> a\n  [*] --> b\n  b --> [*]\n  [*]\n")
    assert diagram.starts == {"a", "b"} and diagram.ends == {"b"}
    assert diagram.transitions == ()


def test_comments_directives_and_ignored_lines() -> None:
    body = (
        "  %% a comment line\n"
        "  a --> b %% trailing comment\n"
        "  b --> c # hash comment\n"
        "  %%{init: {'theme': 'dark'}}%%\n"
        "  direction LR\n"
        "  classDef bad fill:#f00,color:white;\n"
        "  class a bad\n"
        "  style b fill:#0f0\n"
        '  click a "https://example.com" "tooltip"\n'
        "  c:::bad --> d\n"
        "  hide empty description\n"
        "  scale 300 width\n"
        "  accTitle: Title\n"
        "  accDescr: Description\n"
    )
    diagram = parse(body)
    assert diagram.ok, diagram.problems
    assert diagram.state_names == ("a", "b", "c", "d")
    assert diagram.transitions == (("a", "b"), ("b", "c"), ("c", "d"))


def test_notes_are_ignored_but_name_their_state() -> None:
    diagram = parse(
        "  a --> b\n  note right of a : one line\n"
        "  note left of b\n    several\n    lines\n  end note\n"
        '  note "floating" as N1\n  note right of c : c is drawn by Mermaid\n'
    )
    assert diagram.ok
    assert diagram.state_names == ("a", "b", "c")
    assert diagram.transitions == (("a", "b"),)


def test_unsupported_constructs_are_problems_not_errors() -> None:
    composite = parse("  state Busy {\n    [*] --> inner\n    inner --> [*]\n  }\n  a --> Busy\n")
    assert not composite.rejected and not composite.ok
    assert "composite" in composite.problems[0].message
    assert (composite.problems[0].line, composite.problems[0].column) == (2, 3)
    assert composite.state_names == ("Busy", "a")
    assert composite.transitions == (("a", "Busy"),)
    assert composite.starts == frozenset()
    fork = parse("  state f <<fork>>\n  a --> f\n  f --> b\n  state c [[choice]]\n")
    assert not fork.rejected
    assert [p.message.split()[0] for p in fork.problems] == ["<<fork>>", "<<choice>>"]
    reserved = parse("  root_start --> a\n")
    assert not reserved.rejected and "root_start" in reserved.problems[0].message


def test_entities_and_line_breaks_are_decoded() -> None:
    diagram = parse(
        '  state "a#59; b #quot;c#quot; #35;1" as s0\n'
        "  s0 --> s1 : x#59;y<br>z<br/>w #amp; #lt;b#gt; #x41;\n"
        '  state "two\nlines" as s1\n'
    )
    assert diagram.ok
    assert diagram.state_names == ('a; b "c" #1', "two\nlines")
    assert diagram.labels[('a; b "c" #1', "two\nlines")] == "x;y\nz\nw & <b> &x41;"
    assert decode_display_text("#9731; #128640; #0; #128;") == "☃ 🚀 \ufffd €"


@pytest.mark.parametrize(
    ("body", "states", "transitions"),
    [
        ("  a --> b : x; y\n", ("a", "b", ";", "y"), (("a", "b"),)),  # ; ends a label
        ("  a --> b; b --> c\n", ("a", "b;", "b", "c"), (("a", "b;"), ("b", "c"))),
        ("  a b\n", ("a", "b"), ()),  # a space splits an id
        ("  a --> b : redirection bt\n", (), ()),  # the line becomes a direction
        ("  state --> b\n", (), ()),  # vanishes
        ("  end --> b\n", ("end", "b"), (("end", "b"),)),
        ("  a%%b --> c\n", ("a",), ()),
    ],
)
def test_mermaid_traps_are_read_as_mermaid_reads_them(
    body: str, states: tuple[str, ...], transitions: tuple[tuple[str, str], ...]
) -> None:
    diagram = parse(body)
    assert diagram.ok
    assert diagram.state_names == states
    assert diagram.transitions == transitions


@pytest.mark.parametrize(
    ("body", "line", "column"),
    [
        ("  a --> b : x::y\n", 2, 14),
        ("  a --> b :\n", 2, 11),
        ("  a-b --> c\n", 2, 4),
        ("  Default --> b\n", 2, 3),
        ("  note --> b\n", 2, 8),
        ('  state "" as s0\n', 2, 12),
        ('  state "say \\"hi\\"" as s0\n', 2, 16),
        ("  state a b {\n  }\n", 2, 9),
        ("  state X {\n    a --> b\n", 4, 1),
        ("  classDef default fill:#f00\n", 2, 12),
    ],
)
def test_syntax_errors_are_located(body: str, line: int, column: int) -> None:
    diagram = parse(body)
    assert diagram.rejected and not diagram.ok
    problem = next(p for p in diagram.problems if "cannot" in p.message or "single" in p.message)
    assert problem.code == "SD302"
    assert (problem.line, problem.column) == (line, column), problem


def test_positions_survive_preprocessing() -> None:
    text = "%%{init: {}}%%\r\nstateDiagram-v2\r\n  %% note\r\n  a --> b : x #59; y\r\n  c --> d\r\n"
    diagram = parse_state_diagram(text)
    assert diagram.ok
    assert [(e.line, e.column) for e in diagram.edges] == [(4, 3), (5, 3)]
    assert [(s.line, s.column) for s in diagram.states] == [(4, 3), (4, 9), (5, 3), (5, 9)]
    assert diagram.labels[("a", "b")] == "x ; y"


def test_oversized_diagram_is_a_problem() -> None:
    names = [f"state number {i} " + "x" * 40 for i in range(1000)]
    text = render_state_diagram(names, [], set(), set())
    assert len(text) > 50_000
    diagram = parse_state_diagram(text)
    # Checked before parsing: Mermaid draws an error box instead, so nothing is read.
    assert diagram.rejected and "maxTextSize" in diagram.problems[0].message
    assert diagram.states == () and diagram.edges == ()


def test_reading_never_imports_jinja2() -> None:
    code = (
        "import sys, generator.load.mermaid as m; "
        "m.parse_state_diagram('stateDiagram-v2\\n a --> b'); "
        "print('jinja2' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_diagram_properties_are_read_only() -> None:
    diagram = parse_state_diagram(SEED_BARE_IDS)
    with pytest.raises(TypeError):
        diagram.labels[("a", "b")] = "x"  # type: ignore[index]
    assert diagram == parse_state_diagram(SEED_BARE_IDS)


# --------------------------------------------------------------------------
# Reader: never raises

_SOUP = st.sampled_from(
    [
        "a", "b", "s0", "[*]", " --> ", "-->", " : ", ":", ";", " ", "\n", "\r\n", "state ",
        'state "x" as ', '"', " as ", "{", "}", "%%", "%%{init: {}}%%", "#", "#59;", "&amp;",
        "<br>", "direction LR", "note right of a : n\n", "note left of b\n x\nend note\n",
        "<<fork>>", "[[join]]", "classDef c fill:#f00\n", "class a c\n", "style a fill:#0\n",
        'click a "u" "t"\n', ":::c", "--", "-", "é", "\t", "\u2028", "\x00", "ﬂ°°59¶ß",
        "accDescr {\n x \n}\n", "scale 3 width\n", "end", "note", "default", "\ud800",
    ]
)  # fmt: skip


@given(st.text())
@settings(deadline=None)
def test_never_raises_on_any_text(text: str) -> None:
    check_invariants(parse_state_diagram(text))
    check_invariants(parse_state_diagram("stateDiagram-v2\n" + text))


@given(
    st.lists(_SOUP, max_size=40).map("".join),
    st.sampled_from(["stateDiagram-v2\n", "stateDiagram "]),
)
@settings(deadline=None)
def test_never_raises_on_diagram_soup(body: str, header: str) -> None:
    check_invariants(parse_state_diagram(header + body))


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    diagram = parse("  state a {\n" * 2000 + "  }\n" * 2000)
    assert not diagram.rejected and len(diagram.problems) == 1


def check_invariants(diagram: Diagram) -> None:
    names = set(diagram.state_names)
    for edge in diagram.edges:
        assert edge.src in names or edge.src == "[*]"
        assert edge.dst in names or edge.dst == "[*]"
        assert edge.line >= 1 and edge.column >= 1
        assert edge.label is None or edge.label != ""
    for problem in diagram.problems:
        assert problem.code == "SD302" and problem.line >= 1 and problem.column >= 1
    assert diagram.rejected <= bool(diagram.problems)
    assert set(diagram.starts) <= names and set(diagram.ends) <= names

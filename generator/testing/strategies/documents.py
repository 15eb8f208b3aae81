"""Hypothesis strategies for valid state documents (broken ones: :mod:`.breakers`).

- :func:`spec_drafts` / :func:`spec_documents`: documents that lint with no error-severity
  finding. State names are awkward on purpose (keywords, soft keywords, digits first,
  hyphens, spaces, Unicode, quotes, YAML words such as ``on``/``no``/``null``/``~``) yet
  distinct under :func:`generator.model.names.member_name`; every text field holds arbitrary
  Unicode (newlines, quotes, backslashes, ``{{ }}``, ``{% %}``, ``\"\"\"``, control
  characters); the graph is random, every state reachable, invalid pairs disjoint from
  transitions. Each draft is written by one of the emitters of :mod:`.yaml_writer`, with or
  without a Mermaid diagram drawn by statedoc's own renderer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from generator.model.names import member_name
from generator.testing.strategies.yaml_writer import STYLES, dump_yaml

# -- building blocks ---------------------------------------------------------------------

#: State names that break naive generators, loaders and diagram writers.
# fmt: off
AWKWARD_NAMES: tuple[str, ...] = (
    # Python keywords, soft keywords, builtins and names the generated module binds
    "class", "None", "True", "False", "if", "lambda", "match", "case", "type", "_",
    "__init__", "self", "print", "State", "Machine", "check", "TRANSITIONS", "INVALID",
    # enum and str internals
    "name", "value", "mro", "_missing_", "_generate_next_value_", "upper", "format",
    # digits first, numbers YAML would resolve
    "2fa", "3", "0x1F", "0o17", "1e3", "1_000", ".inf", "-.5", "+1", "010",
    # YAML 1.1 booleans and nulls (strings in YAML 1.2)
    "on", "off", "yes", "no", "y", "n", "Y", "N", "ON", "No", "null", "Null", "~", "true",
    # YAML and Markdown indicators
    "-", "- x", ":", "a: b", "? x", "#", "# x", "&a", "*a", "!tag", "%x", "@x", "`x`", "|",
    ">", "[x]", "{x}", ",", "---", "...", "'", '"', "''", '"x"', "\\", "\\n",
    # spacing and separators
    "in-progress", "on hold", " leading", "trailing ", "two  spaces", "tab\there",
    "new\nline", "a_b", "a__b", "__", "snake_case", "CamelCase", "kebab-case", "dot.ted",
    # templates and quotes
    "{{ x }}", "{% if x %}", '"""', "'''", "f'{x}'",
    # Unicode: letters, NFKC forms, marks, scripts, emoji, invisible characters
    "ñandú", "Ǆ", "ﬁnal", "𝔘𝔫𝔦", "e\u0301", "\u0301x", "日本語", "שלום", "مرحبا", "Ελλάδα",
    "🚀", "☃", "\u200b", "\u00a0", "\u2028", "\ufeff", "ß", "İ", "Ω", "µ",
)

#: Text fragments that break naive escaping, templating and YAML writers.
TRICKY_TEXT: tuple[str, ...] = (
    "", " ", "\n", "\r\n", "\r", "\t", "\x00", "\x07", "\x1b[31m", "\x7f", "\x85", "\x9f",
    "\u2028", "\u2029", "\ufeff", "\u200b", "\u202e", "\ufffd", "\U0010fffd",
    '"', "'", '"""', "'''", "\\", "\\n", "\\x00", "\\u0041", "{{ x }}", "{%- if x %}",
    "{% endraw %}", "{# c #}", "${x}", "%s", "%(x)s", "{0}", "{}", "---", "...", "# c",
    "- x", ": x", "? x", "&a", "*a", "!!str", "|", ">", "@", "`", "<!-- -->", "```", "~~~",
    "%%", "-->", "[*]", "on", "no", "null", "~", "0x1F", "1e3", "\U0001f680", "é", "e\u0301",
    "ǅ", "ﬁ", "𝔘", "日本語", "שלום", "\U000e0041", "'''\"\"\"", "\\\n", "\r\r\n",
)
# fmt: on

_CITE = re.compile(r"\b([A-Za-z0-9][A-Za-z0-9_.-]*) at ([0-9a-f]{7,40})\b")
_SIMPLE_HEADING = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ,.()-]*[A-Za-z0-9)]|[A-Za-z0-9]")


def texts(max_size: int = 40) -> st.SearchStrategy[str]:
    """Arbitrary Unicode text (surrogates excluded: UTF-8 cannot hold them), tricky bits."""
    return st.one_of(
        st.text(max_size=max_size),
        st.sampled_from(TRICKY_TEXT),
        st.lists(st.sampled_from(TRICKY_TEXT) | st.text(max_size=4), max_size=6).map("".join),
    )


def state_names() -> st.SearchStrategy[str]:
    """One state name: awkward, random, or both glued together (never empty)."""
    return st.one_of(
        st.sampled_from(AWKWARD_NAMES),
        st.text(min_size=1, max_size=12),
        st.tuples(st.sampled_from(AWKWARD_NAMES), st.sampled_from((*AWKWARD_NAMES, "-", " "))).map(
            "".join
        ),
    ).filter(bool)


def spec_code(prefix: str) -> st.SearchStrategy[str]:
    return st.from_regex(rf"{prefix}(-[A-Z0-9]{{1,5}}){{1,4}}", fullmatch=True)


_SLUG = st.one_of(
    st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,6}){0,2}", fullmatch=True),
    st.sampled_from(
        ("on", "no", "null", "true", "1", "0", "1e3", "class", "import", "tenant-lifecycle")
    ),
)
_STATUS = st.one_of(
    st.from_regex(r"[a-z]{1,8}(-[a-z]{1,6}){0,2}", fullmatch=True),
    st.sampled_from(("on", "no", "off", "yes", "null", "true", "nan", "inf", "draft")),
)
REPO_NAMES = st.from_regex(r"[A-Za-z0-9_.-]{1,16}", fullmatch=True)
_SHA = st.from_regex(r"[0-9a-f]{40}", fullmatch=True)
_PROVENANCE = st.sampled_from(("observed", "documented", "inferred", "planned"))


def _yaml_values() -> st.SearchStrategy[Any]:
    """Values of extra (team) keys: anything the loader keeps (no NaN: it is not equal)."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(allow_nan=False),
        texts(12),
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts(6), inner, max_size=3),
        max_leaves=8,
    )


# -- documents ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Draft:
    """A document in the making: front matter values, a body, and how to write the YAML."""

    front: dict[str, Any]
    body: str
    style: str = "block"
    width: int = 80

    @property
    def text(self) -> str:
        return render_document(self.front, self.body, self.style, self.width)

    @property
    def state_names(self) -> list[str]:
        return [s["name"] for s in self.front["states"]]


def render_document(front: dict[str, Any], body: str, style: str = "block", width: int = 80) -> str:
    """``---``, the front matter in ``style``, ``---``, the body."""
    return f"---\n{dump_yaml(front, style, width)}---\n{body}"


def initial_and_terminal(front: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from generator.model.spec import build

    spec = build(front)
    return spec.initial_states, spec.terminal_states


def diagram_for(
    front: dict[str, Any],
    *,
    labels: bool = False,
    extra_edges: Sequence[tuple[str, str]] = (),
    extra_states: Sequence[str] = (),
    initial: Sequence[str] | None = None,
) -> str:
    """The Mermaid block statedoc's renderer draws for ``front`` (optionally drifted)."""
    from generator.diagram.sync import event_labels
    from generator.diagram.writer import render_state_diagram
    from generator.model.spec import build

    first, last = initial_and_terminal(front)
    spec = build(front)  # a list ``from`` draws one edge per source, an event labels its edge
    pairs = [t.pair for t in spec.transitions] + list(extra_edges)
    names = [s["name"] for s in front["states"]] + list(extra_states)
    texts_by_pair = {t.pair: t.trigger for t in spec.transitions}
    own = event_labels(spec)
    diagram = render_state_diagram(
        names,
        pairs,
        first if initial is None else initial,
        last,
        labels=texts_by_pair if labels else None,
        edge_labels=None if own is None else [*own, *(None for _ in extra_edges)],
    )
    return f"\n## The Lifecycle\n\n```mermaid\n{diagram}```\n"


def heading(title: str) -> str:
    return title if _SIMPLE_HEADING.fullmatch(title) else "Lifecycle"


def _reachable(count: int, edges: set[tuple[int, int]], start: Sequence[int]) -> set[int]:
    seen = set(start)
    frontier = list(start)
    while frontier:
        here = frontier.pop()
        for a, b in edges:
            if a == here and b not in seen:
                seen.add(b)
                frontier.append(b)
    return seen


@st.composite
def _graphs(
    draw: st.DrawFn, count: int
) -> tuple[list[tuple[int, int]], list[int] | None, list[tuple[int, int]]]:
    """Transitions (index pairs, in spec order), the declared initial states (or None when
    they are inferred) and invalid pairs, such that every state is reachable."""
    order = draw(st.permutations(range(count)))
    starts = draw(st.integers(1, min(3, count)))
    initial = sorted(order[:starts])
    edges: set[tuple[int, int]] = set()
    reached = list(initial)
    for index in order[starts:]:
        parent = draw(st.sampled_from(reached))
        edges.add((parent, index))
        reached.append(index)
    extra = draw(
        st.lists(
            st.tuples(st.integers(0, count - 1), st.integers(0, count - 1)), max_size=2 * count
        )
    )
    self_loops = draw(st.booleans())
    edges.update(e for e in extra if self_loops or e[0] != e[1])
    if count > 1:  # SD109: with two or more states, every state takes part in a transition
        for index in range(count):
            if not any(index in e for e in edges):
                edges.add((initial[0], index) if index != initial[0] else (index, order[-1]))
    declared = draw(st.booleans())
    inferred = [i for i in range(count) if not any(b == i and a != i for a, b in edges)]
    if not declared and (not inferred or _reachable(count, edges, inferred) != set(range(count))):
        declared = True
    transitions = draw(st.permutations(sorted(edges)))
    candidates = [(a, b) for a in range(count) for b in range(count) if (a, b) not in edges]
    invalid = (
        draw(st.lists(st.sampled_from(candidates), unique=True, max_size=count + 2))
        if candidates
        else []
    )
    return list(transitions), (initial if declared else None), invalid


@st.composite
def _optional_keys(
    draw: st.DrawFn, obj: str, repos: dict[str, str], citations: bool
) -> dict[str, Any]:
    optional: dict[str, Any] = {}
    for key in ("design_intent", "implementation_evidence", "origin", "concurrency"):
        if draw(st.booleans()):
            optional[key] = draw(texts())
    if repos:
        optional["source_sha"] = repos
    if draw(st.booleans()):
        optional["invariants"] = draw(
            st.lists(st.integers(0, 999).map(lambda n: f"INV-{obj}-{n:02d}"), max_size=3)
        )
    if draw(st.booleans()):
        cite = [
            f"{repo} at {sha[: draw(st.integers(7, 40))]}: {draw(texts(10))}"
            for repo, sha in repos.items()
            if citations
        ]
        free = draw(st.lists(texts(20).filter(lambda t: _CITE.search(t) is None), max_size=3))
        optional["evidence"] = cite + free
    return optional


@st.composite
def _transition_item(
    draw: st.DrawFn, from_state: str, to_state: str, repos: dict[str, str]
) -> dict[str, Any]:
    t: dict[str, Any] = {"from": from_state, "to": to_state, "trigger": draw(texts())}
    if draw(st.booleans()):
        t["guard"] = draw(texts())
    if draw(st.booleans()):
        t["side_effects"] = draw(st.lists(texts(20), max_size=3))
    if draw(st.booleans()):
        t["who"] = draw(texts(20))
    if draw(st.booleans()):
        t["provenance"] = draw(_PROVENANCE)
    if draw(st.booleans()) and repos:
        path = draw(texts(20).filter(lambda p: p[:1] not in ("", "\n")))
        t["source"] = f"{draw(st.sampled_from(sorted(repos)))}:{path}"
    return t


@st.composite
def spec_drafts(
    draw: st.DrawFn,
    *,
    min_states: int = 1,
    max_states: int = 8,
    diagram: bool | None = None,
    styles: Sequence[str] = STYLES,
    extra_keys: bool = True,
    citations: bool = True,
    events: bool = False,
) -> Draft:
    """A valid document (no error-severity finding) as a :class:`Draft`.

    ``diagram``: draw a Mermaid block with statedoc's renderer (``None``: sometimes);
    ``styles``: the YAML emitters to pick from (:data:`STYLES`); ``extra_keys``: add team
    keys (``x-...``) with arbitrary values; ``citations``: cite ``<repo> at <sha>`` in
    ``evidence`` for the repos of ``source_sha``; ``events``: name events (some pairs get
    several transitions), merge some transitions into a list ``from`` and cite some URLs.
    """
    names = draw(
        st.lists(state_names(), min_size=min_states, max_size=max_states, unique_by=member_name)
    )
    count = len(names)
    transitions, initial, invalid = draw(_graphs(count))
    obj = draw(spec_code("DOM"))
    front: dict[str, Any] = {
        "id": draw(spec_code("STATE")),
        "title": draw(texts(30).filter(bool)),
        "object": obj,
        "product_area": draw(_SLUG),
        "module": draw(_SLUG),
        "revision": draw(st.integers(1, 10**6) | st.integers(1, 10**40)),
        "status": draw(_STATUS),
    }
    repos = draw(st.dictionaries(REPO_NAMES, _SHA, max_size=2))
    optional = draw(_optional_keys(obj, repos, citations))
    if initial is not None:
        chosen = [names[i] for i in initial]
        optional["initial"] = chosen[0] if len(chosen) == 1 and draw(st.booleans()) else chosen
    state_items = []
    for name in names:
        item: dict[str, Any] = {"name": name}
        if draw(st.booleans()):
            item["meaning"] = draw(texts())
        state_items.append(item)
    transition_items = [draw(_transition_item(names[a], names[b], repos)) for a, b in transitions]
    if events:
        from generator.testing.strategies.event_documents import with_events

        transition_items = draw(with_events(transition_items))
    invalid_items = [{"from": names[a], "to": names[b], "why": draw(texts())} for a, b in invalid]
    # Key order: the header, then the optional keys and lists in a drawn order.
    tail: dict[str, Any] = dict(optional)
    tail["states"] = state_items
    tail["transitions"] = transition_items
    if draw(st.booleans()) or invalid_items:
        tail["invalid"] = invalid_items
    if extra_keys and draw(st.booleans()):
        for key in draw(
            st.lists(st.from_regex(r"x-[a-z]{1,8}", fullmatch=True), max_size=2, unique=True)
        ):
            tail[key] = draw(_yaml_values())
    for key in draw(st.permutations(list(tail))):
        front[key] = tail[key]
    with_diagram = draw(st.booleans()) if diagram is None else diagram
    body = f"\n# {heading(front['title'])}\n"
    if with_diagram:
        body += diagram_for(front, labels=draw(st.booleans()))
    if draw(st.booleans()):
        # No fences (a second Mermaid block) and no HTML comment that could swallow one.
        prose = draw(texts(80)).translate({ord("`"): None, ord("~"): None, ord("<"): None})
        body += f"\n{prose}\n"
    return Draft(
        front,
        body,
        style=draw(st.sampled_from(list(styles))),
        width=draw(st.sampled_from((40, 80, 4096))),
    )


def spec_documents(**options: Any) -> st.SearchStrategy[str]:
    """Text of valid documents; ``options`` as for :func:`spec_drafts`."""
    return spec_drafts(**options).map(lambda draft: draft.text)

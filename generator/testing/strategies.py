"""Hypothesis strategies for state documents: valid ones and ones broken in one known way.

- :func:`spec_drafts` / :func:`spec_documents`: documents that lint with no error-severity
  finding. State names are awkward on purpose (keywords, soft keywords, digits first,
  hyphens, spaces, Unicode, quotes, YAML words such as ``on``/``no``/``null``/``~``) yet
  distinct under :func:`generator.names.member_name`; every text field holds arbitrary Unicode
  (newlines, quotes, backslashes, ``{{ }}``, ``{% %}``, ``\"\"\"``, control characters); the
  graph is random, every state reachable, invalid pairs disjoint from transitions. Each draft
  is written by one of several YAML emitters (PyYAML block, flow or literal style, or a
  one-line double-quoted emitter with or without raw Unicode), with or without a Mermaid
  diagram drawn by statedoc's own renderer.
- :func:`broken_documents`: ``(text, code)`` pairs, a valid draft broken in one known way;
  lint must report ``code`` for ``text``. :func:`undecodable_documents` does the same with
  bytes for SD006.

YAML is written for statedoc's strict YAML 1.2 core loader: no anchors or aliases (PyYAML's
``ignore_aliases``), and every string that YAML 1.2 would read as something else
(``0o17``, ``1e3``, ``null``...) quoted.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import yaml
from hypothesis import strategies as st

from generator.names import member_name
from generator.yamlload import resolve_plain

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


def _code(prefix: str) -> st.SearchStrategy[str]:
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
_REPO = st.from_regex(r"[A-Za-z0-9_.-]{1,16}", fullmatch=True)
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


# -- YAML emitters ------------------------------------------------------------------------

#: The ways a draft's front matter can be written.
STYLES = ("block", "flow", "literal", "quoted", "quoted-ascii")


def _needs_quotes(text: str) -> bool:
    try:
        return not isinstance(resolve_plain(text), str)
    except Exception:  # e.g. an integer too long to resolve: quote it
        return True


#: Line breaks in YAML 1.1 (libyaml) but not in 1.2: PyYAML writes them raw in plain, single
#: quoted and block scalars, where libyaml then folds or splits them; double quotes escape them.
_BREAKS_1_1 = frozenset("\x85\u2028\u2029")


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper that never writes an alias and quotes YAML 1.2 non-strings."""

    literal = False

    def ignore_aliases(self, data: Any) -> bool:
        return True


class _LiteralDumper(_Dumper):
    literal = True


def _represent_str(dumper: _Dumper, data: str) -> yaml.ScalarNode:
    style: str | None = None
    if _needs_quotes(data) or any(char in _BREAKS_1_1 for char in data):
        style = '"'
    elif dumper.literal and "\n" in data:
        style = "|"  # PyYAML falls back to quotes where a block scalar cannot hold the text
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _represent_str)


def _quote(text: str, raw_unicode: bool) -> str:
    """``text`` as a one-line YAML double-quoted scalar."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif 0x20 <= code <= 0x7E or (
            raw_unicode
            and (
                (0xA0 <= code <= 0xD7FF and char not in "\u2028\u2029")
                or (0xE000 <= code <= 0xFFFD and char != "\ufeff")
                or code >= 0x10000
            )
        ):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02X}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def _scalar(value: object, raw_unicode: bool) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        return _quote(value, raw_unicode)
    raise TypeError(f"not a scalar: {value!r}")


def _key(key: str, raw_unicode: bool) -> str:
    plain = re.fullmatch(r"[a-z_]+", key) is not None and not _needs_quotes(key)
    return key if plain else _quote(key, raw_unicode)


def _emit(value: object, indent: int, raw_unicode: bool, lines: list[str], lead: str) -> None:
    """Block style, every string double-quoted on one line. ``lead`` starts the first line."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            lines.append(f"{lead}{{}}")
            return
        first = True
        for key, item in value.items():
            prefix = (lead if first else pad) + _key(key, raw_unicode) + ":"
            first = False
            if isinstance(item, dict | list) and item:
                lines.append(prefix)
                _emit(item, indent + 2, raw_unicode, lines, " " * (indent + 2))
            else:
                _emit(item, indent + 2, raw_unicode, lines, prefix + " ")
    elif isinstance(value, list):
        if not value:
            lines.append(f"{lead}[]")
            return
        for index, item in enumerate(value):
            prefix = (lead if index == 0 else pad) + "- "
            _emit(item, indent + 2, raw_unicode, lines, prefix)
    else:
        lines.append(lead + _scalar(value, raw_unicode))


def dump_yaml(value: dict[str, Any], style: str = "block", width: int = 80) -> str:
    """Front matter text for ``value`` in one of :data:`STYLES` (ends with a newline)."""
    if style in ("quoted", "quoted-ascii"):
        lines: list[str] = []
        _emit(value, 0, style == "quoted", lines, "")
        return "\n".join(lines) + "\n"
    dumper = _LiteralDumper if style == "literal" else _Dumper
    text: str = yaml.dump(
        value,
        Dumper=dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None if style == "flow" else False,
        width=width,
    )
    return text


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


def _initial_and_terminal(front: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from generator.model import build

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
    from generator.mermaid.render import render_state_diagram

    first, last = _initial_and_terminal(front)
    pairs = [(t["from"], t["to"]) for t in front["transitions"]] + list(extra_edges)
    names = [s["name"] for s in front["states"]] + list(extra_states)
    texts_by_pair = {(t["from"], t["to"]): t["trigger"] for t in front["transitions"]}
    diagram = render_state_diagram(
        names,
        pairs,
        first if initial is None else initial,
        last,
        labels=texts_by_pair if labels else None,
    )
    return f"\n## The Lifecycle\n\n```mermaid\n{diagram}```\n"


def _heading(title: str) -> str:
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
) -> Draft:
    """A valid document (no error-severity finding) as a :class:`Draft`.

    ``diagram``: draw a Mermaid block with statedoc's renderer (``None``: sometimes);
    ``styles``: the YAML emitters to pick from (:data:`STYLES`); ``extra_keys``: add team
    keys (``x-...``) with arbitrary values; ``citations``: cite ``<repo> at <sha>`` in
    ``evidence`` for the repos of ``source_sha``.
    """
    names = draw(
        st.lists(state_names(), min_size=min_states, max_size=max_states, unique_by=member_name)
    )
    count = len(names)
    transitions, initial, invalid = draw(_graphs(count))
    obj = draw(_code("DOM"))
    front: dict[str, Any] = {
        "id": draw(_code("STATE")),
        "title": draw(texts(30).filter(bool)),
        "object": obj,
        "product_area": draw(_SLUG),
        "module": draw(_SLUG),
        "revision": draw(st.integers(1, 10**6) | st.integers(1, 10**40)),
        "status": draw(_STATUS),
    }
    repos = draw(st.dictionaries(_REPO, _SHA, max_size=2))
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
    body = f"\n# {_heading(front['title'])}\n"
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


# -- broken documents ---------------------------------------------------------------------

Breaker = Callable[[st.DrawFn, Draft], "str | Draft | None"]
_BREAKERS: dict[str, Breaker] = {}


def _breaks(code: str) -> Callable[[Breaker], Breaker]:
    def register(func: Breaker) -> Breaker:
        _BREAKERS[code] = func
        return func

    return register


def _fresh_name(draft: Draft, base: str = "extra") -> str:
    taken = {member_name(n) for n in draft.state_names}
    index = 0
    while member_name(f"{base}-{index}") in taken:
        index += 1
    return f"{base}-{index}"


def _with(draft: Draft, **changes: Any) -> Draft:
    front = copy.deepcopy(draft.front)
    front.update(changes)
    return replace(draft, front=front)


def _plain_body(draft: Draft) -> Draft:
    """Drop the diagram: a broken graph would also make it drift (more codes than planted)."""
    return replace(draft, body=f"\n# {_heading(draft.front['title'])}\n")


@_breaks("SD001")
def _no_front_matter(draw: st.DrawFn, draft: Draft) -> str:
    lead = draw(st.sampled_from(("\n", " ", "# Title\n", "--\n", "----\n", "\ufeff\n", "x")))
    return lead + draft.text


@_breaks("SD002")
def _unterminated(draw: st.DrawFn, draft: Draft) -> str:
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}"


@_breaks("SD003")
def _bad_yaml(draw: st.DrawFn, draft: Draft) -> str:
    bad = draw(
        st.sampled_from(
            (
                "x-bad: [1, 2\n",
                "x-bad: {a: 1\n",
                'x-bad: "unterminated\n',
                "x-bad: 'unterminated\n",
                "x-bad: a: b: c\n",
                "@x-bad: 1\n",
                "`x-bad: 1\n",
                "x-bad: " + "[" * 100 + "]" * 100 + "\n",  # nesting over the cap
                "x-bad: !!python/object:os.system x\n",  # a foreign tag
            )
        )
    )
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}{bad}---\n{draft.body}"


@_breaks("SD004")
def _duplicate_key(draw: st.DrawFn, draft: Draft) -> str:
    key = draw(st.sampled_from(list(draft.front)))
    style = "block" if draft.style == "flow" else draft.style  # flow would write `{key: ...}`
    again = dump_yaml({key: draft.front[key]}, style, draft.width)
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}{again}---\n{draft.body}"


@_breaks("SD005")
def _alias(draw: st.DrawFn, draft: Draft) -> str:
    extra = draw(
        st.sampled_from(
            ('x-anchor: &a "v"\nx-alias: *a\n', "x-anchored: &b [1, 2]\n", "x-ref: *nowhere\n")
        )
    )
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}{extra}---\n{draft.body}"


@_breaks("SD010")
def _schema(draw: st.DrawFn, draft: Draft) -> Draft:
    how = draw(
        st.sampled_from(
            (
                "missing",
                "revision",
                "status",
                "id",
                "slug",
                "states",
                "state-name",
                "trigger",
                "provenance",
                "sha",
                "source",
                "why",
                "initial",
            )
        )
    )
    front = copy.deepcopy(draft.front)
    if how == "missing":
        del front[
            draw(
                st.sampled_from(
                    (
                        "id",
                        "title",
                        "object",
                        "product_area",
                        "module",
                        "revision",
                        "status",
                        "states",
                        "transitions",
                    )
                )
            )
        ]
    elif how == "revision":
        front["revision"] = draw(st.sampled_from((0, -1, "1", 1.5, None, True)))
    elif how == "status":
        front["status"] = draw(st.sampled_from(("Draft", "", "two words", 1, "draft\n")))
    elif how == "id":
        front["id"] = draw(
            st.sampled_from(("state-x-1", "STATE", "STATE-", "DOM-X-1", "STATE-X-1\n"))
        )
    elif how == "slug":
        front[draw(st.sampled_from(("product_area", "module")))] = draw(
            st.sampled_from(("Tenant", "a_b", "-a", ""))
        )
    elif how == "states":
        front["states"] = draw(st.sampled_from(([], None, "open", {"name": "open"})))
    elif how == "state-name":
        front["states"][0]["name"] = draw(st.sampled_from(("", None, 1, ["a"])))
    elif how == "trigger":
        front["transitions"] = [{"from": draft.state_names[0], "to": draft.state_names[0]}]
    elif how == "provenance":
        front["transitions"] = [
            {
                "from": draft.state_names[0],
                "to": draft.state_names[0],
                "trigger": "t",
                "provenance": "guessed",
            }
        ]
    elif how == "sha":
        front["source_sha"] = {"repo": draw(st.sampled_from(("ABC", "ad3f6a6", "g" * 40, 1)))}
    elif how == "source":
        front["transitions"] = [
            {
                "from": draft.state_names[0],
                "to": draft.state_names[0],
                "trigger": "t",
                "source": "no-colon",
            }
        ]
    elif how == "why":
        front["invalid"] = [{"from": draft.state_names[0], "to": draft.state_names[0]}]
    else:
        front["initial"] = draw(st.sampled_from(([], 1, "", [""])))
    return replace(draft, front=front)


@_breaks("SD101")
def _duplicate_state(draw: st.DrawFn, draft: Draft) -> Draft:
    name = draw(st.sampled_from(draft.state_names))
    return _with(draft, states=[*draft.front["states"], {"name": name}])


@_breaks("SD102")
def _unknown_transition_state(draw: st.DrawFn, draft: Draft) -> Draft:
    known = draw(st.sampled_from(draft.state_names))
    unknown = draw(state_names().filter(lambda n: n not in draft.state_names))
    pair = (known, unknown) if draw(st.booleans()) else (unknown, known)
    added = {"from": pair[0], "to": pair[1], "trigger": "t"}
    return _plain_body(_with(draft, transitions=[*draft.front["transitions"], added]))


@_breaks("SD103")
def _unknown_invalid_state(draw: st.DrawFn, draft: Draft) -> Draft:
    known = draw(st.sampled_from(draft.state_names))
    unknown = draw(state_names().filter(lambda n: n not in draft.state_names))
    pair = (known, unknown) if draw(st.booleans()) else (unknown, known)
    added = {"from": pair[0], "to": pair[1], "why": "w"}
    return _with(draft, invalid=[*draft.front.get("invalid", []), added])


def _some_transition(draw: st.DrawFn, draft: Draft) -> tuple[Draft, dict[str, Any]]:
    """A declared transition of the draft (a self-loop is added when there is none)."""
    if draft.front["transitions"]:
        return draft, draw(st.sampled_from(draft.front["transitions"]))
    name = draft.state_names[0]
    loop = {"from": name, "to": name, "trigger": "stay"}
    return _plain_body(_with(draft, transitions=[loop])), loop


@_breaks("SD104")
def _invalid_contradicts(draw: st.DrawFn, draft: Draft) -> Draft:
    draft, t = _some_transition(draw, draft)
    added = {"from": t["from"], "to": t["to"], "why": draw(texts())}
    return _with(draft, invalid=[*draft.front.get("invalid", []), added])


@_breaks("SD105")
def _duplicate_transition(draw: st.DrawFn, draft: Draft) -> Draft:
    draft, t = _some_transition(draw, draft)
    again = {"from": t["from"], "to": t["to"], "trigger": draw(texts())}
    return _with(draft, transitions=[*draft.front["transitions"], again])


@_breaks("SD106")
def _duplicate_invalid(draw: st.DrawFn, draft: Draft) -> Draft | None:
    listed = draft.front.get("invalid") or []
    if listed:
        item = draw(st.sampled_from(listed))
        return _with(
            draft, invalid=[*listed, {"from": item["from"], "to": item["to"], "why": "again"}]
        )
    declared = {(t["from"], t["to"]) for t in draft.front["transitions"]}
    free = [(a, b) for a in draft.state_names for b in draft.state_names if (a, b) not in declared]
    if not free:
        return None
    a, b = draw(st.sampled_from(free))
    return _with(
        draft, invalid=[{"from": a, "to": b, "why": "one"}, {"from": a, "to": b, "why": "two"}]
    )


def _initial_list(draft: Draft) -> list[str]:
    first, _ = _initial_and_terminal(draft.front)
    return list(first)


@_breaks("SD107")
def _unreachable(draw: st.DrawFn, draft: Draft) -> Draft:
    lost = _fresh_name(draft, "lost")
    target = draw(st.sampled_from(draft.state_names))
    return _plain_body(
        _with(
            draft,
            initial=_initial_list(draft),
            states=[*draft.front["states"], {"name": lost}],
            transitions=[*draft.front["transitions"], {"from": lost, "to": target, "trigger": "t"}],
        )
    )


@_breaks("SD108")
def _no_initial(draw: st.DrawFn, draft: Draft) -> Draft:
    names = draft.state_names
    states = list(draft.front["states"])
    if len(names) == 1:
        other = _fresh_name(draft, "other")
        states.append({"name": other})
        names = [*names, other]
    declared = {(t["from"], t["to"]) for t in draft.front["transitions"]}
    transitions = list(draft.front["transitions"])
    for index, name in enumerate(names):  # a cycle through all states: everything is entered
        pair = (names[index - 1], name)
        if pair not in declared:
            transitions.append({"from": pair[0], "to": pair[1], "trigger": "t"})
    front = {k: v for k, v in copy.deepcopy(draft.front).items() if k not in ("initial", "invalid")}
    front.update(states=states, transitions=transitions)
    return _plain_body(replace(draft, front=front))


@_breaks("SD109")
def _isolated(draw: st.DrawFn, draft: Draft) -> Draft:
    alone = _fresh_name(draft, "alone")
    return _plain_body(_with(draft, states=[*draft.front["states"], {"name": alone}]))


@_breaks("SD110")
def _collision(draw: st.DrawFn, draft: Draft) -> Draft | None:
    for name in draft.state_names:
        for twin in (name + "-", "-" + name, name + " ", name.swapcase(), name + "_", name.lower()):
            if (
                twin != name
                and twin not in draft.state_names
                and member_name(twin) == member_name(name)
            ):
                return _plain_body(
                    _with(
                        draft,
                        states=[*draft.front["states"], {"name": twin}],
                        transitions=[
                            *draft.front["transitions"],
                            {"from": name, "to": twin, "trigger": "t"},
                        ],
                    )
                )
    return None


@_breaks("SD112")
def _unknown_initial(draw: st.DrawFn, draft: Draft) -> Draft:
    unknown = draw(state_names().filter(lambda n: n not in draft.state_names))
    return _with(draft, initial=[*_initial_list(draft), unknown])


@_breaks("SD201")
def _unknown_repo(draw: st.DrawFn, draft: Draft) -> Draft:
    repos = draft.front.get("source_sha", {})
    repo = draw(_REPO.filter(lambda r: r not in repos))
    draft, t = _some_transition(draw, draft)
    transitions = [
        dict(x, source=f"{repo}:path") if x is t else x for x in draft.front["transitions"]
    ]
    return _with(draft, transitions=transitions)


@_breaks("SD202")
def _evidence_mismatch(draw: st.DrawFn, draft: Draft) -> Draft:
    repos = dict(draft.front.get("source_sha") or {"repo": "a" * 40})
    repo = draw(st.sampled_from(sorted(repos)))
    wrong = draw(
        st.from_regex(r"[0-9a-f]{7,12}", fullmatch=True).filter(
            lambda h: not repos[repo].startswith(h)
        )
    )
    evidence = [*draft.front.get("evidence", []), f"{repo} at {wrong}: somewhere"]
    return _with(draft, source_sha=repos, evidence=evidence)


@_breaks("SD203")
def _foreign_invariant(draw: st.DrawFn, draft: Draft) -> Draft:
    other = draw(_code("DOM").filter(lambda o: o != draft.front["object"]))
    return _with(draft, invariants=[*draft.front.get("invariants", []), f"INV-{other}-01"])


def _drifted(draw: st.DrawFn, draft: Draft, **drift: Any) -> Draft | None:
    from generator.mermaid.render import display_name

    if any(display_name(name) != name for name in draft.state_names):
        # A name the diagram can only show with a stand-in (a control character, say) is
        # already drift of another kind today (see tests/test_properties_random.py): it
        # would hide the planted code.
        return None
    heading = f"\n# {_heading(draft.front['title'])}\n"
    return replace(draft, body=heading + diagram_for(draft.front, **drift))


@_breaks("SD303")
def _edge_drift(draw: st.DrawFn, draft: Draft) -> Draft | None:
    declared = {(t["from"], t["to"]) for t in draft.front["transitions"]}
    free = [(a, b) for a in draft.state_names for b in draft.state_names if (a, b) not in declared]
    if not free:
        return None
    return _drifted(draw, draft, extra_edges=[draw(st.sampled_from(free))])


@_breaks("SD304")
def _unknown_diagram_state(draw: st.DrawFn, draft: Draft) -> Draft | None:
    return _drifted(draw, draft, extra_states=[_fresh_name(draft, "ghost")])


@_breaks("SD305")
def _start_drift(draw: st.DrawFn, draft: Draft) -> Draft | None:
    first = set(_initial_list(draft))
    others = [n for n in draft.state_names if n not in first]
    if not others:
        return None
    return _drifted(draw, draft, initial=[*first, draw(st.sampled_from(others))])


#: Every code :func:`broken_documents` can plant.
BROKEN_CODES: tuple[str, ...] = tuple(sorted(_BREAKERS))


@st.composite
def _broken(draw: st.DrawFn, codes: Sequence[str]) -> tuple[str, str] | None:
    code = draw(st.sampled_from(list(codes)))
    draft = draw(spec_drafts(max_states=5))
    broken = _BREAKERS[code](draw, draft)
    if broken is None:
        return None
    return (broken if isinstance(broken, str) else broken.text), code


def broken_documents(codes: Sequence[str] = BROKEN_CODES) -> st.SearchStrategy[tuple[str, str]]:
    """``(text, code)``: a valid document broken in one known way; lint must report ``code``.

    Other findings may accompany it (a duplicated state is also isolated, say), but ``code``
    is always among them. See :data:`BROKEN_CODES`.
    """
    unknown = sorted(set(codes) - set(_BREAKERS))
    if unknown:
        raise ValueError(f"no breaker for {unknown}; known: {', '.join(BROKEN_CODES)}")
    return _broken(tuple(codes)).filter(lambda pair: pair is not None)  # type: ignore[return-value]


@st.composite
def undecodable_documents(draw: st.DrawFn) -> tuple[bytes, str]:
    """``(data, "SD006")``: a valid document with bytes that are not UTF-8 somewhere."""
    data = draw(spec_documents(max_states=3)).encode("utf-8")
    bad = draw(
        st.sampled_from((b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"))
    )
    at = draw(st.integers(0, len(data)))
    return data[:at] + bad + data[at:], "SD006"

"""Write statedoc's Mermaid ``stateDiagram-v2`` block for a spec.

Shape (deterministic, spec order)::

    stateDiagram-v2
      state "<name 0>" as s0        one line per state
      [*] --> s0                    initial states
      s0 --> s1 : <label>           transitions (label only when given)
      s1 --> [*]                    terminal states

By default states are ``sN`` aliases: ids cannot hold spaces, ``-`` or ``:``, and
``note``, ``class``, ``default``, ``state``, ``root`` ... are keywords or vanish.
With ``plain_ids`` (what ``diagram --write`` uses, the style people write by
hand) a name that :func:`plain_id` accepts is its own id and only the others get
an alias. All human text sits in the quoted name or after
`` : `` and is escaped with Mermaid's decimal entities ``#N;``, which Mermaid
turns into ``&#N;`` after lexing, so the lexer never sees the character and the
HTML label shows it literally.

Escaping table (every rule was checked by rendering with the real Mermaid in
``tests/test_mermaid_oracle.py``):

==========================  ======================  ==========================================
text                        written as              why
==========================  ======================  ==========================================
``"``                       ``#34;``                ends the quoted name
``#``                       ``#35;``                ``#abc;`` would be read as an entity;
                                                    a leading ``#`` starts a comment
``;``                       ``#59;``                ends a label; rest becomes stray states
``:``                       ``#58;``                ``::`` / trailing ``:`` are errors; a line
                                                    ``style...:...#...;`` loses its last ``;``;
                                                    ``fa:fa-x`` becomes an icon
``%``                       ``#37;``                ``%%`` starts a comment, ``%%{`` a directive
``{`` ``}``                 ``#123;`` ``#125;``     composite-state braces, directives
``[`` ``]``                 ``#91;`` ``#93;``       ``[[fork]]`` makes a pseudo-state, even
                                                    quoted; Markdown links
``<`` ``>`` ``&``           ``#60;`` ``#62;``       HTML tags and character references,
                            ``#38;``                ``<<fork>>``; Markdown block quote
``*`` `````` ``~``          ``#42;`` ``#96;``       Markdown emphasis, code, strike-through
                            ``#126;``
``_`` (a run of them) not   ``#95;``                Markdown emphasis; inside a word
between two letters or                              (``confirm_payout``, ``a__b``) it is
digits written as is                                inert in Markdown and left as is
``$``                       ``#36;``                ``$$...$$`` is rendered with KaTeX
``\\``                      ``#92;``                Markdown escapes eat it; ``\\n`` is a break
``|``                       ``#124;``               Markdown tables
``n`` of ``direction``      ``directio#110;``       ``.*direction\\s+(TB|BT|RL|LR)`` anywhere
(any case)                                          on a line turns it into a direction
tab, no-break and other     ``#9;``, ``#160;``...   Mermaid trims them (JavaScript ``\\s``)
Unicode spaces, U+2028/9
space at the start or end   ``#32;``                names and labels are trimmed; Markdown
of a line                                           drops spaces after a line break
newline in a label          ``<br>``                a label cannot hold a raw newline
newline in a name           raw newline             see below
first ``-+=`` or digit of   ``#45;`` ...            list, thematic break, setext heading
a line of multi-line text
==========================  ======================  ==========================================

Why names keep raw newlines: in mermaid 11 a state label that contains a tag
(``<br>``) goes through DOMPurify before the Markdown step, and DOMPurify
writes every ``&#N;`` back as its character, so ``*``, ``_``, ``$$``,
``fa:`` ... would be interpreted again (measured: ``x<br>#95;u#95;`` shows an
italic *u*). Edge labels keep their escapes with ``<br>`` (measured on 11.17
and 12.3). A raw newline inside quotes is safe because ``direction`` is always
escaped. Mermaid 12 turns ``<br>`` into a newline before Markdown, so blank
lines are treated the same way in names and labels (next paragraph).

Every other character (letters of any script, digits, spaces inside the text,
``. , ( ) / ' ! ? @ = + - ^``, emoji, and ``_`` inside a word) is written as is,
so diagrams stay readable in review. A ``_`` run counts as inside a word only when
the characters written just before and after it are letters or digits as is: an
escape beside it ends in ``;``, Markdown punctuation that would let it open
emphasis (measured: ``a#35;_b_`` shows an italic *b*).

Keywords (``end``, ``note``, ``state``, ``class``,
``default``, ``click``) and ``-->`` need nothing of their own: inside quotes or
after `` : `` they are plain text (``-->`` only loses its ``>`` to the HTML rule).

What cannot be shown exactly is replaced by a visible stand-in
(:func:`display_name`, :func:`display_label`):

* C0 controls other than tab and newline by the matching Control Picture
  (U+2400 + code, e.g. NUL -> ``␀``), DEL by ``␡``; C1 controls, lone
  surrogates and noncharacters by ``�`` (U+FFFD). HTML would turn
  ``&#128;``-``&#159;`` into Windows-1252 characters and drop or replace the rest.
* Mermaid's entity placeholders: it writes ``&#``, ``&`` and ``;`` as ``ﬂ°°``,
  ``ﬂ°`` and ``¶ß`` while parsing and decodes them once more *after*
  sanitising, when every ``&#N;`` is already a plain character, so no escape
  survives (measured: ``#64258;°`` shows ``&``). ``ﬂ°`` is shown as ``fl°``
  (the ligature's decomposition) and ``¶ß`` as ``¶ss``.
* An empty line of multi-line text (also a leading or trailing newline)
  holds one space: Mermaid trims names (and, in 12.x, labels) and Markdown
  turns a blank line into a paragraph gap.
* An empty name is shown as ``∅`` (``state ""`` is a syntax error, a blank one
  shows the id); an empty label is the same as no label.

Mermaid does not render a diagram longer than its ``maxTextSize`` (50,000
UTF-16 units by default); :func:`parse_state_diagram` reports that.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from generator.load.mermaid.display import display_label, display_name
from generator.load.mermaid.model import START_END

if TYPE_CHECKING:  # jinja2 is imported lazily: the lint path must not need it
    import jinja2

__all__ = [
    "escape_label",
    "escape_name",
    "render_state_diagram",
]

_TEMPLATE = "state_diagram.mmd.j2"

_ALWAYS_ESCAPED = frozenset(
    '"#$%&*:;<>[\\]`{|}~'
    "\t"
    "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_DIRECTION = re.compile("direction", re.IGNORECASE | re.ASCII)
#: ``str.translate`` table: each always-escaped character to its ``#N;`` entity.
_ESCAPES = {ord(char): f"#{ord(char)};" for char in _ALWAYS_ESCAPED}
_UNDERSCORES = re.compile("_+")


def _underscores(written: str) -> str:
    """Escape every run of ``_`` in an escaped line unless a letter or digit written as is
    stands right before and right after it (intraword: never emphasis in Markdown)."""
    if "_" not in written:
        return written

    def one(match: re.Match[str]) -> str:
        start, end = match.span()
        inside = start > 0 and end < len(written)
        if inside and written[start - 1].isalnum() and written[end].isalnum():
            return match.group()
        return "#95;" * (end - start)

    return _UNDERSCORES.sub(one, written)


def _escape_line(line: str, *, block_start: bool) -> str:
    return _underscores(_escape_others(line, block_start=block_start))


def _escape_others(line: str, *, block_start: bool) -> str:
    """``line`` with every character but ``_`` escaped as it must be."""
    if (
        not line.startswith(" ")
        and not line.endswith(" ")
        and not (block_start and line[:1] in _BLOCK_STARTERS)
        and _DIRECTION.search(line) is None
    ):
        # The usual text: no position is special, so only the always-escaped characters
        # change (what the loop below does for such a line).
        return line.translate(_ESCAPES)
    size = len(line)
    lead = size - len(line.lstrip(" "))
    trail = size - len(line.rstrip(" "))
    marked = {match.end() - 1 for match in _DIRECTION.finditer(line)}
    if block_start and lead < size and line[lead] in _BLOCK_STARTERS:
        marked.add(lead)
    out: list[str] = []
    for index, char in enumerate(line):
        if char in _ALWAYS_ESCAPED or index < lead or index >= size - trail or index in marked:
            out.append(f"#{ord(char)};")
        else:
            out.append(char)
    return "".join(out)


# A line of multi-line text starting with these would be Markdown block syntax
# (list, ordered list, thematic break, setext underline).
_BLOCK_STARTERS = frozenset("-+=0123456789")


def _escape_lines(shown: str, line_break: str) -> str:
    lines = shown.split("\n")
    multi = len(lines) > 1
    return line_break.join(_escape_line(line, block_start=multi) for line in lines)


def escape_name(name: str) -> str:
    """``name`` as written inside ``state "..."`` so that Mermaid shows :func:`display_name`."""
    return _escape_lines(display_name(name), "\n")


def escape_label(label: str) -> str:
    """``label`` as written after `` : `` so that Mermaid shows :func:`display_label`."""
    shown = display_label(label)
    return "" if shown is None else _escape_lines(shown, "<br>")


def _template() -> jinja2.Template:
    from generator.render.environment import environment  # lazy: Jinja2 is not on the lint path

    # not strict: every text is escaped by escape_name/escape_label before rendering
    return environment("generator.diagram", strict=False).get_template(_TEMPLATE)


# Words that start a keyword rule in some lexer state of Mermaid's grammar, or that Mermaid
# treats specially; a name starting with one is never written as a bare id.
_KEYWORD_PREFIX = re.compile(
    r"state|note|class|style|default|click|href|scale|direction|acc|end|as\Z|left|right|of\Z"
    r"|root|hide|stateDiagram|fork|join|choice|concurrent",
    re.IGNORECASE,
)
# ASCII letters and digits, ``_`` only between them (never Markdown emphasis).
_PLAIN_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\Z")


@functools.cache
def plain_id(name: str) -> bool:
    """True when ``name`` can be written as a bare Mermaid id and is shown as itself.

    A conservative shape (letters, digits, inner ``_``; no keyword prefix), confirmed by the
    reader (a port of Mermaid's lexer): as an edge end, a start/end target, a lone state and
    beside a label it must read back as exactly that state.
    """
    if not _PLAIN_ID.match(name) or _KEYWORD_PREFIX.match(name) or len(name) > 64:
        return False
    from generator.load.mermaid.parse import parse_state_diagram

    probe = (
        f"stateDiagram-v2\n  {name}\n  [*] --> {name}\n  {name} --> {name} : x\n  {name} --> [*]\n"
    )
    diagram = parse_state_diagram(probe)
    return (
        diagram.ok
        and diagram.state_names == (name,)
        and [(edge.src, edge.dst, edge.label) for edge in diagram.edges]
        == [(START_END, name, None), (name, name, "x"), (name, START_END, None)]
    )


def render_state_diagram(
    states: Sequence[str],
    transitions: Sequence[tuple[str, str]],
    initial: Collection[str],
    terminal: Collection[str],
    labels: Mapping[tuple[str, str], str] | None = None,
    *,
    plain_ids: bool = False,
    edge_labels: Sequence[str | None] | None = None,
) -> str:
    """Return the diagram text (``stateDiagram-v2`` first, newline last, no fences).

    ``labels`` keys are transition pairs, or ``("[*]", name)`` /
    ``(name, "[*]")`` for the start and end edges. Raises ``ValueError`` for a
    duplicate state, or a transition, initial/terminal state or label that
    names an undeclared state or edge: the caller lints the spec first.

    ``edge_labels`` (one per transition, e.g. its event) labels that edge itself, before
    ``labels``: a pair drawn once per event gets one label per edge.

    With ``plain_ids`` a name that :func:`plain_id` accepts is its own id (the readable style
    people write by hand, and ``diagram --write`` keeps); only the others get ``sN`` aliases.
    """
    ids: dict[str, str] = {}
    for index, name in enumerate(states):
        if name in ids:
            raise ValueError(f"duplicate state {name!r}")
        ids[name] = name if plain_ids and plain_id(name) else f"s{index}"
    taken = {name for name, ident in ids.items() if name == ident}
    for index, name in enumerate(states):  # an alias never equals another state's bare id
        if ids[name] != name and ids[name] in taken:
            ids[name] = fresh_alias(taken | set(ids.values()), index)

    def state_id(name: str, what: str) -> str:
        try:
            return ids[name]
        except KeyError:
            raise ValueError(f"{what} names undeclared state {name!r}") from None

    for name in initial:
        state_id(name, "initial")
    for name in terminal:
        state_id(name, "terminal")
    initial_set = set(initial)
    terminal_set = set(terminal)

    # (mermaid src, mermaid dst, labels key); a state literally named "[*]" shares
    # its label keys with the start/end edges, and then both get the label.
    lines: list[tuple[str, str, tuple[str, str]]] = [
        (START_END, ids[name], (START_END, name)) for name in states if name in initial_set
    ]
    lines.extend(
        (state_id(src, "transition"), state_id(dst, "transition"), (src, dst))
        for src, dst in transitions
    )
    lines.extend(
        (ids[name], START_END, (name, START_END)) for name in states if name in terminal_set
    )
    given = dict(labels or {})
    known = {key for _, _, key in lines}
    for key in given:
        if key not in known:
            raise ValueError(f"label for {key!r}, which is not an edge of the diagram")
    own: list[str | None] = [None] * len(lines)
    if edge_labels is not None:
        if len(edge_labels) != len(transitions):
            raise ValueError("edge_labels needs one label per transition")
        first = sum(1 for name in states if name in initial_set)
        own[first : first + len(transitions)] = edge_labels

    def label(key: tuple[str, str], mine: str | None) -> str:
        text = mine or given.get(key)
        return f" : {escape_label(text)}" if text else ""

    edges = [
        {"src": src, "dst": dst, "label": label(key, mine)}
        for (src, dst, key), mine in zip(lines, own, strict=True)
    ]
    drawn = {end for src, dst, _ in lines for end in (src, dst)}
    return _template().render(
        states=[
            {"id": ids[name], "text": None if ids[name] == name else escape_name(name)}
            for name in states
            if ids[name] != name or name not in drawn  # a bare id in an edge needs no line
        ],
        edges=edges,
    )


def fresh_alias(taken: Collection[str], start: int = 0) -> str:
    """The first ``sN`` (from ``N = start``) that is not in ``taken``."""
    index = start
    while f"s{index}" in taken:
        index += 1
    return f"s{index}"

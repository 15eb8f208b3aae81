"""Read a Mermaid ``stateDiagram-v2`` block the way Mermaid itself reads it.

Why a port and not a regex per line: Mermaid's jison lexer has traps that a
line-based reader gets wrong (a ``direction tb`` anywhere swallows the line,
``;`` ends a label and turns the rest into states, ``a b`` is two states,
``state x`` without braces draws nothing, ``state --> b`` vanishes, keywords
are case-insensitive). So this module mirrors, step by step, what
``mermaid.parse`` does in mermaid 11.x (see ``tests/mermaid_js`` for the pinned
version and the oracle tests that compare both parsers on the same corpus):

1. ``preprocessDiagram``: ``\\r\\n`` -> ``\\n``, attribute quotes in tags,
   diagram front matter, ``%%{...}%%`` directives and ``%%`` comment lines are
   removed (done twice, as Mermaid does).
2. ``encodeEntities``: ``#59;``-style entities become Mermaid's placeholders
   (``ﬂ°°59¶ß``), so they never reach the lexer as ``#`` or ``;``.
3. The lexer of ``stateDiagram.jison`` (rules, start conditions, first-match
   order, ``processId``) and the grammar's productions.
4. Labels and quoted names are decoded as Mermaid displays them: placeholders
   back to HTML entities, ``<br>`` to a newline, HTML character references
   decoded as a browser does. Markdown is not interpreted (statedoc's own
   diagrams escape every Markdown character, see ``render.py``).

Steps 1, 2 and 4 live in :mod:`.preprocess`, the lexer in :mod:`.lexer`, the
productions in :mod:`.grammar`; this module holds the entry point, a fast path
for plain diagrams and the assembly of the result. Every step is linear in the
length of the text, and a text past Mermaid's ``maxTextSize`` is reported
before any of it is lexed.

Positions are kept through the preprocessing, so every line/column points into
the text given. Nothing here raises: syntax errors and unsupported constructs
(composite states, forks/joins/choices, concurrency) become :class:`Problem`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import partial

from .builder import _Builder
from .model import START_END, SYNTAX_CODE, Diagram, DiagramState, Edge, Problem
from .preprocess import (
    _ENTITY_PLACEHOLDER_END,
    _ENTITY_PLACEHOLDER_NUM,
    _PLACEHOLDER_PARTS,
    _as_written,
    _decode_placeholders_for_display,
    _encode_entities,
    _js_trim,
    _Mapped,
    _numeric_ref,
    _preprocess,
    decode_display_text,
    diagram_kind,
)

__all__ = ["MERMAID_MAX_TEXT_SIZE", "decode_display_text", "parse_state_diagram"]

#: Mermaid's default ``maxTextSize``: longer diagrams render as an error box.
MERMAID_MAX_TEXT_SIZE = 50_000


# --------------------------------------------------------------------------


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == "\n" or (char == "\r" and text[index + 1 : index + 2] != "\n"):
            starts.append(index + 1)
        index += 1
    return starts


def _position(line_starts: list[int], offset: int) -> tuple[int, int]:
    low = bisect_right(line_starts, offset) - 1 if offset >= 0 else 0
    return low + 1, offset - line_starts[low] + 1


def _utf16_length(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript counts (measured in C: texts can be large)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def parse_state_diagram(text: str) -> Diagram:
    """Parse a Mermaid state diagram (the block's text, without code fences).

    Never raises: what Mermaid would reject, and what statedoc cannot check,
    is reported in ``Diagram.problems`` with code SD302.
    """
    try:
        return _parse(text)
    except (RecursionError, MemoryError):  # pragma: no cover - pathological input
        return Diagram(
            "", (), (), (Problem("diagram too large to read", 1, 1, SYNTAX_CODE),), rejected=True
        )


# --------------------------------------------------------------------------
# The fast path: most diagrams (statedoc's own output for plain names, and the usual hand-written
# style) use only a few line shapes whose meaning is not in doubt. Those are read line by line
# with one regex each, into the same builder and the same assembly as the full lexer; anything
# else (any character or word that could change how Mermaid lexes a line) takes the full path.
# A test holds the two paths to identical results wherever the fast one answers.

_FAST_ID = "[A-Za-z][A-Za-z0-9_]*"
_FAST_END = rf"(?:{_FAST_ID}|\[\*\])"
# One run, checked for a non-blank afterwards: ``[set]*[set-without-space][set]*`` would
# backtrack quadratically over a long label that fails at its end. A numeric entity (``#59;``,
# how statedoc's renderer writes ``;``) starts with a character the set lacks: no backtracking.
# ``_`` is plain text in names and labels (statedoc writes it as is inside words).
# Possessive runs (never given back: what follows cannot start with a character of the set but
# a blank, and `` *$`` takes no blank the run left) match as the plain ones do, a third faster.
_FAST_TEXT = r"(?:[A-Za-z0-9 _.,()/!?'-]++|#[0-9]++;)*+"
_FAST_LINE = re.compile(
    rf"(?P<blank> *)$"
    rf'| *(?P<kw>state) +"(?P<name>{_FAST_TEXT})" +as +(?P<alias>{_FAST_ID}) *$'
    rf"| *(?P<src>{_FAST_END}) +--> +(?P<dst>{_FAST_END})"
    rf"(?: *(?P<label>:) *(?P<text>{_FAST_TEXT}))? *$"
)
_FAST_CHARS = re.compile(r"[A-Za-z0-9 \n_\[\]*>:.,()/!?'\"#;-]*\Z")
# Words that start a keyword rule in some lexer state, or that Mermaid treats specially
# (``accTitle``/``accDescr`` only: a state named ``accepted`` is plain).
_FAST_RESERVED = re.compile(
    r"state|note|class|style|default|click|href|scale|direction|acc(?:title|descr)|end|as\Z"
    r"|left|right|of\Z"
    r"|root_(?:start|end)\Z|hide|stateDiagram|fork|join|choice|concurrent",
    re.IGNORECASE,
)


_FAST_ENTITY = re.compile(r"#([0-9]+);")


def _fast_entity(match: re.Match[str]) -> str:
    digits = match.group(1)
    return _numeric_ref(int(digits) if len(digits) < 10 else 0x110000)


def _fast_text(text: str) -> str:
    """A name or label as shown: ``encodeEntities`` then the display decoding, as the full
    path does (in a fast-shaped text every ``#`` starts a ``#digits;`` entity). Without a
    ``#`` the text has nothing to decode (no ``&``, ``<`` or placeholder character)."""
    if "#" not in text:
        return text
    # The display decoding's first pass turns each entity into its character; a second pass
    # runs only if those characters spell a placeholder. Most texts need the first one only.
    shown = _FAST_ENTITY.sub(_fast_entity, text)
    if _PLACEHOLDER_PARTS.search(shown) is None:
        return shown
    text = text.replace("#", _ENTITY_PLACEHOLDER_NUM).replace(";", _ENTITY_PLACEHOLDER_END)
    return _decode_placeholders_for_display(text)


def _fast(text: str) -> Diagram | None:
    """The diagram, when every line is one of the plain shapes; else None (use the lexer)."""
    if not _FAST_CHARS.match(text) or len(text) > MERMAID_MAX_TEXT_SIZE:
        return None
    header = text.lstrip(" \n")
    if not header.startswith("stateDiagram-v2\n") and header != "stateDiagram-v2":
        return None
    lowered = text.lower()
    if "direction" in lowered:
        return None
    if "#" in text and ("style" in lowered or "classdef" in lowered):
        return None  # Mermaid drops a ``;`` of such lines before reading entities
    out = _Builder()
    touch, edges, reserved, line_match = (
        out.touch,
        out.edges,
        _FAST_RESERVED.match,
        _FAST_LINE.match,
    )
    plain: set[str] = set()  # ids already touched and found not reserved (ids recur a lot)
    offset = len(text) - len(header) + len("stateDiagram-v2")
    body = text[offset:]
    if body.startswith(" "):
        return None
    starts = [0]  # of every line (the text has no carriage return): for positions
    line_start = text.find("\n")
    while line_start >= 0 and line_start < offset:
        starts.append(line_start + 1)
        line_start = text.find("\n", line_start + 1)
    for line in body.split("\n")[1:] if body else ():
        offset = text.index("\n", offset) + 1
        starts.append(offset)
        match = line_match(line)
        if match is None:
            return None
        kw, src, dst, name, label_text, blank = match.group(
            "kw", "src", "dst", "name", "text", "blank"
        )
        if blank is not None:
            continue
        if (name is not None and not name.strip(" ")) or (
            label_text is not None and not label_text.strip(" ")
        ):
            return None  # a blank name or label: not a plain shape
        if kw is not None:
            alias = match.group("alias")
            if reserved(alias):
                return None
            keyword = offset + match.start("kw")
            state_id = touch(alias, keyword)
            assert state_id is not None
            info = out.states[state_id]
            shown = _fast_text(_js_trim(name))
            if info.alias is None:
                info.alias = shown
                info.alias_offset = keyword
            else:
                info.descriptions.append(shown)
            continue
        for end, group in ((src, "src"), (dst, "dst")):
            if end != START_END and end not in plain:
                if reserved(end):
                    return None
                touch(end, offset + match.start(group))
                plain.add(end)
        label = None
        if match.group("label") is not None:
            label = _fast_text(_js_trim(label_text)) or None
        edges.append((src, dst, label, offset + match.start("src")))
    return _assemble(
        "stateDiagram-v2", out, partial(_position, starts), [], False, text, plain=True
    )


def _assemble(
    kind: str,
    built: _Builder,
    place: Callable[[int], tuple[int, int]],
    problems: list[Problem],
    rejected: bool,
    shown_text: str,
    *,
    plain: bool = False,
) -> Diagram:
    """Turn what the grammar collected into a :class:`Diagram` (shared by both paths).
    ``plain``: every id is ``[A-Za-z0-9_]`` (the fast path), shown and written as it is."""
    names: dict[str, str] = {}
    states: list[DiagramState] = []
    for info in built.states.values():
        if info.alias is not None:
            name = info.alias
        else:
            name = info.id if plain else _decode_placeholders_for_display(info.id)
        names[info.id] = name
        line, column = place(info.alias_offset if info.alias is not None else info.offset)
        written = info.id if plain else _as_written(info.id)
        states.append(DiagramState(name, written, line, column, tuple(info.descriptions)))
    edges = []
    for src, dst, label, offset in built.edges:
        line, column = place(offset)
        edges.append(Edge(names.get(src, src), names.get(dst, dst), label, line, column))
    for message, offset in built.problems:
        line, column = place(offset)
        problems.append(Problem(message, line, column, SYNTAX_CODE))
    if _utf16_length(shown_text) > MERMAID_MAX_TEXT_SIZE:  # pragma: no cover - _too_long
        problems.append(_too_long_problem())
    problems.sort(key=lambda problem: (problem.line, problem.column))
    return Diagram(kind, tuple(states), tuple(edges), tuple(problems), rejected)


def _too_long(text: str) -> Diagram | None:
    """A finding instead of a parse for a diagram past Mermaid's ``maxTextSize``.

    Mermaid measures the text after its preprocessing (comments and directives removed), so a
    text longer than the limit is preprocessed (linear) and measured again before giving up.
    """
    if _utf16_length(text) <= MERMAID_MAX_TEXT_SIZE:
        return None
    shown = _preprocess(_preprocess(_Mapped(text, None))).text
    if _utf16_length(shown) <= MERMAID_MAX_TEXT_SIZE:
        return None
    return Diagram("", (), (), (_too_long_problem(),), rejected=True)


def _too_long_problem() -> Problem:
    return Problem(
        f"the diagram is longer than Mermaid's maxTextSize ({MERMAID_MAX_TEXT_SIZE}); "
        "Mermaid shows an error instead of it",
        1,
        1,
        SYNTAX_CODE,
    )


def _parse(text: str) -> Diagram:
    too_long = _too_long(text)
    if too_long is not None:
        return too_long
    fast = _fast(text)
    if fast is not None:
        return fast
    return _parse_full(text)


def _parse_full(text: str) -> Diagram:
    lines = _line_starts(text)
    mapped = _preprocess(_preprocess(_Mapped(text, list(range(len(text) + 1)))))
    assert mapped.origin is not None
    first = mapped.origin[0]

    kind = diagram_kind(mapped.text)
    if not kind:
        line, column = _position(lines, first)
        return Diagram(
            "",
            (),
            (),
            (
                Problem(
                    "not a Mermaid state diagram: the first line must be stateDiagram-v2",
                    line,
                    column,
                    SYNTAX_CODE,
                ),
            ),
            rejected=True,
        )

    encoded = _encode_entities(mapped)
    assert encoded.origin is not None
    origin = [*encoded.origin, encoded.origin[-1]]  # and the line feed added at the end
    source = _Mapped(encoded.text + "\n", origin)
    from .grammar import _Parser  # the full reading: only for what the fast path leaves
    from .lexer import _SyntaxError, _tokenize

    tokens, lex_error = _tokenize(source.text)
    parser = _Parser(tokens, lex_error)
    problems: list[Problem] = []
    rejected = False
    try:
        parser.diagram()
    except _SyntaxError as error:
        offset = origin[min(error.offset, len(origin) - 1)]
        line, column = _position(lines, offset)
        problems.append(Problem(error.message, line, column, SYNTAX_CODE))
        rejected = True

    def place(offset: int) -> tuple[int, int]:
        return _position(lines, origin[min(offset, len(origin) - 1)])

    return _assemble(kind, parser.out, place, problems, rejected, mapped.text)

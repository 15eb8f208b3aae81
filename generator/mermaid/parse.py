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

Positions are kept through the preprocessing, so every line/column points into
the text given. Nothing here raises: syntax errors and unsupported constructs
(composite states, forks/joins/choices, concurrency) become :class:`Problem`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

from .model import START_END, SYNTAX_CODE, Diagram, DiagramState, Edge, Problem

__all__ = ["MERMAID_MAX_TEXT_SIZE", "decode_display_text", "parse_state_diagram"]

#: Mermaid's default ``maxTextSize``: longer diagrams render as an error box.
MERMAID_MAX_TEXT_SIZE = 50_000

# JavaScript's \s (WhiteSpace + LineTerminator), written for a character class.
_JS_WS = "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_S = f"[{_JS_WS}]"
_NOT_S = f"[^{_JS_WS}]"
_DOT = "[^\n\r\u2028\u2029]"  # JavaScript's "." without the s flag
_W = "[A-Za-z0-9_]"  # JavaScript's \w (ASCII only)
_FLAGS = re.IGNORECASE | re.ASCII  # the grammar is %options case-insensitive

_ENTITY_PLACEHOLDER_NUM = "\ufb02\u00b0\u00b0"  # ﬂ°°  stands for "&#"
_ENTITY_PLACEHOLDER_NAMED = "\ufb02\u00b0"  # ﬂ°   stands for "&"
_ENTITY_PLACEHOLDER_END = "\u00b6\u00df"  # ¶ß   stands for ";"


_JS_WS_CHARS = (  # the same set, for str.strip
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _js_trim(text: str) -> str:
    """JavaScript's ``String.prototype.trim``."""
    return text.strip(_JS_WS_CHARS)


# --------------------------------------------------------------------------
# Step 1 and 2: preprocessing with a map back to the original offsets.


@dataclass(slots=True)
class _Mapped:
    """Text plus, for each character (and one past the end), its offset in the input."""

    text: str
    origin: list[int]

    def sub(self, pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]) -> _Mapped:
        parts: list[str] = []
        origin: list[int] = []
        last = 0
        for match in pattern.finditer(self.text):
            start, end = match.span()
            parts.append(self.text[last:start])
            origin.extend(self.origin[last:start])
            new = repl(match)
            parts.append(new)
            if match.group(0).startswith(new):
                origin.extend(self.origin[start : start + len(new)])
            else:
                origin.extend([self.origin[start]] * len(new))
            last = end
        parts.append(self.text[last:])
        origin.extend(self.origin[last:])
        return _Mapped("".join(parts), origin)

    def lstrip_js(self) -> _Mapped:
        cut = len(self.text) - len(self.text.lstrip(_JS_WS_CHARS))
        return _Mapped(self.text[cut:], self.origin[cut:])


class _LazyPattern:
    """A regex compiled on first use: the full lexer's preprocessing patterns cost start-up
    time that a lint whose diagrams all take the fast path never needs to pay."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return getattr(self._compiled, name)


def _lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


_LINE_START = "(?:(?<=[\n\r\u2028\u2029])|\\A)"  # JavaScript's ^ with the m flag
_CRLF = _lazy("\r\n?")
_TAG = _lazy(f"<({_W}+)([^>]*)>")
_ATTR_QUOTES = _lazy('="([^"]*)"')
_JS_BLANK = _JS_WS.replace("\n\x0b\x0c\r", "\x0b\x0c")  # \s without \n and \r
_FRONT_MATTER = _lazy(
    f"\\A([{_JS_BLANK}]*)-{{3}}{_S}*[\n\r](.*?)[\n\r]\\1-{{3}}{_S}*[\n\r]+", re.DOTALL
)
_DIRECTIVE = _lazy(
    f"%{{2}}{{{_S}*(?:({_W}+){_S}*:|({_W}+)){_S}*(?:({_W}+)|((?:(?!}}%{{2}}){_DOT}|\r?\n)*))?"
    f"{_S}*(?:}}%{{2}})?",
    _FLAGS,
)
_COMMENT_LINE = _lazy(f"{_LINE_START}{_S}*%%(?!{{)[^\n]+\n?")
_DETECT_COMMENT = _lazy(f"{_S}*%%{_DOT}*\n")
_STYLE_SEMICOLON = _lazy(f"style{_DOT}*:{_NOT_S}*#{_DOT}*;")
_CLASSDEF_SEMICOLON = _lazy(f"classDef{_DOT}*:{_NOT_S}*#{_DOT}*;")
_ENTITY = _lazy(f"#({_W}+);")
_INTEGER = _lazy(r"\+?[0-9]+\Z")


def _preprocess(mapped: _Mapped) -> _Mapped:
    """Mermaid's ``preprocessDiagram``: normalise, drop front matter, directives, comments."""
    mapped = mapped.sub(_CRLF, lambda m: "\n")
    mapped = mapped.sub(
        _TAG,
        lambda m: "<" + m.group(1) + _ATTR_QUOTES.sub(r"='\1'", m.group(2)) + ">",
    )
    mapped = mapped.sub(_FRONT_MATTER, lambda m: "")
    mapped = mapped.sub(_DIRECTIVE, lambda m: "")
    mapped = mapped.sub(_COMMENT_LINE, lambda m: "")
    return mapped.lstrip_js()


def _encode_entity(match: re.Match[str]) -> str:
    inner = match.group(1)
    if _INTEGER.match(inner):
        return _ENTITY_PLACEHOLDER_NUM + inner + _ENTITY_PLACEHOLDER_END
    return _ENTITY_PLACEHOLDER_NAMED + inner + _ENTITY_PLACEHOLDER_END


def _encode_entities(mapped: _Mapped) -> _Mapped:
    """Mermaid's ``encodeEntities``, quirks included.

    A line ``style...:...#...;`` (or ``classDef``) loses its last ``;``.
    """
    mapped = mapped.sub(_STYLE_SEMICOLON, lambda m: m.group(0)[:-1])
    mapped = mapped.sub(_CLASSDEF_SEMICOLON, lambda m: m.group(0)[:-1])
    return mapped.sub(_ENTITY, _encode_entity)


# --------------------------------------------------------------------------
# Step 4: what a label shows.

_BR = re.compile(f"<br{_S}*/?>", _FLAGS)
_CHAR_REF = re.compile(r"&(?:#([0-9]+);?|#[xX]([0-9a-fA-F]+);?|[A-Za-z][A-Za-z0-9]*;?)")


def _numeric_ref(number: int) -> str:
    # HTML's numeric character reference rules, as a browser applies them.
    if number == 0 or number > 0x10FFFF or 0xD800 <= number <= 0xDFFF:
        return "\ufffd"
    if 0x80 <= number <= 0x9F:
        try:
            return bytes([number]).decode("cp1252")
        except UnicodeDecodeError:
            return chr(number)
    return chr(number)


def _char_ref(match: re.Match[str]) -> str:
    decimal, hexadecimal = match.group(1), match.group(2)
    if decimal is not None:
        return _numeric_ref(int(decimal) if len(decimal) < 10 else 0x110000)
    if hexadecimal is not None:
        return _numeric_ref(int(hexadecimal, 16) if len(hexadecimal) < 9 else 0x110000)
    return html.unescape(match.group(0))


def decode_display_text(raw: str) -> str:
    """Turn label text as written in a diagram into the text Mermaid shows.

    ``#59;`` / ``#quot;`` entities (and raw ``&...;`` references) are decoded,
    ``<br>`` becomes a newline. Markdown and other HTML are left as written.
    """
    text = _ENTITY.sub(_encode_entity, raw)
    return _decode_placeholders_for_display(text)


def _decode_placeholders(text: str) -> str:
    return (
        text.replace(_ENTITY_PLACEHOLDER_NUM, "&#")
        .replace(_ENTITY_PLACEHOLDER_NAMED, "&")
        .replace(_ENTITY_PLACEHOLDER_END, ";")
    )


_PLACEHOLDER_PARTS = re.compile(f"{_ENTITY_PLACEHOLDER_NAMED}|{_ENTITY_PLACEHOLDER_END}")


def _decode_placeholders_for_display(text: str) -> str:
    shown = _CHAR_REF.sub(_char_ref, _BR.sub("\n", _decode_placeholders(text)))
    if _PLACEHOLDER_PARTS.search(shown):
        # Mermaid decodes placeholders a second time after DOMPurify has turned
        # entities into characters (and escaped &, <, >): mirror that pass.
        escaped = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        shown = _CHAR_REF.sub(_char_ref, _decode_placeholders(escaped))
    return shown


def _as_written(text: str) -> str:
    """Undo ``encodeEntities`` so an id reads as in the source (``a#59;b``)."""
    return _ENCODED_ENTITY.sub(lambda m: f"#{m.group(1)};", text)


_ENCODED_ENTITY = re.compile(
    f"(?:{_ENTITY_PLACEHOLDER_NUM}|{_ENTITY_PLACEHOLDER_NAMED})({_W}+){_ENTITY_PLACEHOLDER_END}"
)


# --------------------------------------------------------------------------
# Step 3a: the lexer of stateDiagram.jison, rule for rule.


_WS_CLASS = _JS_WS  # the same set, for use inside [...]
_DIRECTION = _DOT + "*direction" + _S + "+{}[^\n]*"


# Index = rule number in Mermaid's generated parser (stateDiagram.jison).
_RULE_SOURCES: tuple[str, ...] = (
    r"click\b",  # 0
    r"href\b",
    r'"[^"]*"',
    r"default\b",
    _DIRECTION.format("TB"),
    _DIRECTION.format("BT"),  # 5
    _DIRECTION.format("RL"),
    _DIRECTION.format("LR"),
    r"[\n]+",
    _S + "+",
    f"(?:(?!\n){_S})+",  # 10
    r"#[^\n]*",
    r"%%(?!\{)[^\n]*",
    f"scale{_S}+",
    r"[0-9]+",
    f"{_S}+width\\b",  # 15
    f"accTitle{_S}*:{_S}*",
    r"[^\n]*",
    f"accDescr{_S}*:{_S}*",
    r"[^\n]*",
    f"accDescr{_S}*\\{{{_S}*",  # 20
    r"[\}]",
    r"[^\}]*",
    f"classDef{_S}+",
    f"DEFAULT{_S}+",
    f"{_W}+{_S}+",  # 25
    r"[^\n]*",
    f"class{_S}+",
    f"{_W}+(?:,{_S}*{_W}+)*",
    r"[^\n]*",
    f"style{_S}+",  # 30
    f"[A-Za-z0-9_,]+{_S}+",
    r"[^\n]*",
    f"scale{_S}+",
    r"[0-9]+",
    f"{_S}+width\\b",  # 35
    f"state{_S}+",
    _DOT + r"*<<fork>>",
    _DOT + r"*<<join>>",
    _DOT + r"*<<choice>>",
    _DOT + r"*\[\[fork\]\]",  # 40
    _DOT + r"*\[\[join\]\]",
    _DOT + r"*\[\[choice\]\]",
    _DIRECTION.format("TB"),
    _DIRECTION.format("BT"),
    _DIRECTION.format("RL"),  # 45
    _DIRECTION.format("LR"),
    r'["]',
    f"{_S}*as{_S}+",
    r"[^\n\{]*",
    r'["]',  # 50
    r'[^"]*',
    f"{_W}+{_S}+{_W}+{_DOT}*?\\{{",
    f"[^\n{_WS_CLASS}\\{{]+",
    r"\n",
    r"\{",  # 55
    r"\}",
    r"[\n]",
    f"note{_S}+",
    r"left of\b",
    r"right of\b",  # 60
    r'"',
    f"{_S}*as{_S}*",
    r'["]',
    r'[^"]*',
    r"[^\n]*",  # 65
    f"{_S}*[^:\n{_WS_CLASS}\\-]+",
    f"{_S}*:[^:\n;]+",
    f"[\\s\\S]*?\n{_S}*end note\\b",
    f"stateDiagram{_S}+",
    f"stateDiagram-v2{_S}+",  # 70
    r"hide empty description\b",
    r"\[\*\]",
    f"[^:\n{_WS_CLASS}\\-\\{{]+",
    f"{_S}*:(?:[^:\n;]|:[^:\n;])+",
    r"-->",  # 75
    r"--",
    r":::",
    r"\Z",
    _DOT,
)
assert len(_RULE_SOURCES) == 80

# fmt: off
_CONDITIONS: dict[str, tuple[int, ...]] = {
    "INITIAL": (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 18, 20, 23, 27, 30, 33, 36,
                55, 58, 69, 70, 71, 72, 73, 74, 75, 77, 78, 79),
    "struct": (10, 11, 12, 23, 27, 30, 36, 43, 44, 45, 46, 56, 57, 58, 72, 73, 74, 75, 76, 77),
    "STATE": (10, 11, 12, 37, 38, 39, 40, 41, 42, 47, 48, 52, 53, 54, 55),
    "STATE_STRING": (50, 51),
    "STATE_ID": (49,),
    "SCALE": (14, 15, 34, 35),
    "acc_title": (17,),
    "acc_descr": (19,),
    "acc_descr_multiline": (21, 22),
    "CLASSDEF": (24, 25),
    "CLASSDEFID": (26,),
    "CLASS": (28,),
    "CLASS_STYLE": (29,),
    "STYLE": (31,),
    "STYLEDEF_STYLES": (32,),
    "NOTE": (59, 60, 61),
    "NOTE_ID": (66,),
    "NOTE_TEXT": (67, 68),
    "FLOATING_NOTE": (62, 63, 64),
    "FLOATING_NOTE_ID": (65,),
}


def _combined(rules: tuple[int, ...]) -> re.Pattern[str]:
    """One regex per start condition: an alternation is tried left to right and the first
    alternative that matches wins, which is jison's rule order. One C-level match per token
    instead of up to 33 Python-level attempts."""
    return re.compile("|".join(f"(?P<r{rule}>{_RULE_SOURCES[rule]})" for rule in rules), _FLAGS)


@cache
def _lexer() -> tuple[dict[str, re.Pattern[str]], dict[str, dict[int, int]]]:
    """The compiled lexer, built on first use: compiling it costs ~15 ms, which a lint of
    diagrams that all take the fast path never pays.

    Per condition: the combined pattern, and group index -> rule number (``match.lastindex``
    is cheaper than ``lastgroup``)."""
    combined = {name: _combined(rules) for name, rules in _CONDITIONS.items()}
    rule_at = {
        name: {pattern.groupindex[f"r{rule}"]: rule for rule in _CONDITIONS[name]}
        for name, pattern in combined.items()
    }
    return combined, rule_at


# fmt: off
_SIMPLE: dict[int, tuple[str | None, int, tuple[str, ...]]] = {
    0: ("CLICK", 0, ()), 1: ("HREF", 0, ()), 2: ("STRING", 0, ()), 3: ("DEFAULT", 0, ()),
    4: ("direction", 0, ()), 5: ("direction", 0, ()), 6: ("direction", 0, ()),
    7: ("direction", 0, ()), 8: ("NL", 0, ()), 9: (None, 0, ()), 10: (None, 0, ()),
    11: (None, 0, ()), 12: (None, 0, ()), 13: ("scale", 0, ("SCALE",)), 14: ("WIDTH", 0, ()),
    15: (None, 1, ()), 16: ("acc_title", 0, ("acc_title",)), 17: ("acc_title_value", 1, ()),
    18: ("acc_descr", 0, ("acc_descr",)), 19: ("acc_descr_value", 1, ()),
    20: (None, 0, ("acc_descr_multiline",)), 21: (None, 1, ()),
    22: ("acc_descr_multiline_value", 0, ()), 23: ("classDef", 0, ("CLASSDEF",)),
    24: ("DEFAULT_CLASSDEF_ID", 1, ("CLASSDEFID",)), 25: ("CLASSDEF_ID", 1, ("CLASSDEFID",)),
    26: ("CLASSDEF_STYLEOPTS", 1, ()), 27: ("class", 0, ("CLASS",)),
    28: ("CLASSENTITY_IDS", 1, ("CLASS_STYLE",)), 29: ("STYLECLASS", 1, ()),
    30: ("style", 0, ("STYLE",)), 31: ("STYLE_IDS", 1, ("STYLEDEF_STYLES",)),
    32: ("STYLEDEF_STYLEOPTS", 1, ()), 33: ("scale", 0, ("SCALE",)), 34: ("WIDTH", 0, ()),
    35: (None, 1, ()), 36: (None, 0, ("STATE",)),
    43: ("direction", 0, ()), 44: ("direction", 0, ()), 45: ("direction", 0, ()),
    46: ("direction", 0, ()), 47: (None, 0, ("STATE_STRING",)), 48: ("AS", 0, ("STATE_ID",)),
    50: (None, 1, ()), 51: ("STATE_DESCR", 0, ()), 53: ("COMPOSIT_STATE", 0, ()),
    54: (None, 1, ()), 55: ("STRUCT_START", 1, ("struct",)), 56: ("STRUCT_STOP", 1, ()),
    57: (None, 0, ()), 58: ("note", 0, ("NOTE",)), 59: ("notePosition", 1, ("NOTE_ID",)),
    60: ("notePosition", 1, ("NOTE_ID",)), 61: (None, 1, ("FLOATING_NOTE",)),
    62: ("AS", 1, ("FLOATING_NOTE_ID",)), 63: (None, 0, ()), 64: ("NOTE_TEXT", 0, ()),
    69: ("SD", 0, ()), 70: ("SD", 0, ()), 71: ("HIDE_EMPTY", 0, ()), 72: ("EDGE_STATE", 0, ()),
    75: ("-->", 0, ()), 76: ("CONCURRENT", 0, ()), 77: ("STYLE_SEPARATOR", 0, ()),
    78: ("NL", 0, ()), 79: ("INVALID", 0, ()),
}
_PSEUDO = {37: ("FORK", 8), 38: ("JOIN", 8), 39: ("CHOICE", 10),
           40: ("FORK", 8), 41: ("JOIN", 8), 42: ("CHOICE", 10)}
# fmt: on


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    start: int


class _SyntaxError(Exception):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def _pop(stack: list[str]) -> None:
    if len(stack) > 1:  # jison never pops the last condition
        stack.pop()


def _act(rule: int, text: str, stack: list[str]) -> tuple[str | None, str, int]:
    """The action of one lexer rule: (token or None to skip, token text, characters consumed)."""
    if rule in _SIMPLE:
        kind, pops, pushes = _SIMPLE[rule]
        for _ in range(pops):
            _pop(stack)
        stack.extend(pushes)
        return kind, text, len(text)
    if rule in _PSEUDO:
        kind, cut = _PSEUDO[rule]
        _pop(stack)
        return kind, _js_trim(text[:-cut]), len(text)
    if rule in (49, 65, 66, 73):
        cut_at = text.find("%%")  # processId: an id stops at a comment
        if cut_at == 0:
            return None, text, len(text)
        consumed = cut_at if cut_at > 0 else len(text)
        if rule != 73:
            _pop(stack)
        if rule == 66:
            stack.append("NOTE_TEXT")
        return "ID", text[:consumed], consumed
    if rule in (67, 68):
        _pop(stack)
        return "NOTE_TEXT", _js_trim(text[2:] if rule == 67 else text[:-8]), len(text)
    if rule == 74:
        return "DESCR", _js_trim(text), len(text)
    # rule 52: jison throws
    raise _SyntaxError(f'a state name must be a single word: "{_js_trim(text)}"', -1)


def _tokenize(src: str) -> tuple[list[_Token], _SyntaxError | None]:
    """Run the jison lexer to the end; a lexical error ends the token list."""
    combined, rule_at = _lexer()
    stack = ["INITIAL"]
    tokens: list[_Token] = []
    pos = 0
    done = False
    end = len(src)
    keyword = -1  # where the last `state` keyword began: reported for what it declares
    while not done:
        if pos >= end:
            done = True
        condition = stack[-1]
        match = combined[condition].match(src, pos)
        if match is None:
            if pos >= end:
                break
            return tokens, _SyntaxError("Mermaid cannot read the text here", pos)
        rule = rule_at[condition][match.lastindex or 0]
        start = pos
        simple = _SIMPLE.get(rule)
        if simple is not None and not simple[1] and not simple[2]:  # no state change: inline
            kind, text = simple[0], match.group(0)
            consumed = len(text)
        else:
            try:
                kind, text, consumed = _act(rule, match.group(0), stack)
            except _SyntaxError as error:
                error.offset = start
                return tokens, error
        pos = start + consumed
        if done and pos < end:
            done = False
        if rule == 36:
            keyword = start
        if kind is not None:
            if kind in _DECLARING and keyword >= 0:
                start, keyword = keyword, -1
            else:  # point at the token, not at the blanks some rules swallow first
                raw = match.group(0)
                start += len(raw) - len(raw.lstrip(_JS_WS_CHARS))
            tokens.append(_Token(kind, text, start))
    tokens.append(_Token("EOF", "", end))
    return tokens, None


_DECLARING = frozenset(("STATE_DESCR", "COMPOSIT_STATE", "FORK", "JOIN", "CHOICE"))


# --------------------------------------------------------------------------
# Step 3b: the grammar.


@dataclass(slots=True)
class _StateInfo:
    id: str
    offset: int
    alias: str | None = None
    alias_offset: int = -1
    descriptions: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Builder:
    states: dict[str, _StateInfo] = field(default_factory=dict)
    edges: list[tuple[str, str, str | None, int]] = field(default_factory=list)
    problems: list[tuple[str, int]] = field(default_factory=list)

    def touch(self, raw_id: str, offset: int) -> str | None:
        state_id = _js_trim(raw_id)
        if not state_id or state_id == START_END:
            return None  # Mermaid drops nodes without an id; "[*]" is the marker
        if state_id not in self.states:
            self.states[state_id] = _StateInfo(state_id, offset)
            if state_id.lower() in ("root_start", "root_end"):
                self.problems.append(
                    (
                        f"the id {state_id!r} is Mermaid's own name for the start/end marker; "
                        "use another id",
                        offset,
                    )
                )
        return state_id


def _trim_colon(text: str) -> str:
    return _js_trim(text[1:]) if text.startswith(":") else _js_trim(text)


# Statements that are a keyword followed by fixed tokens; statedoc ignores them.
_FOLLOW: dict[str, tuple[tuple[str, ...], ...]] = {
    "classDef": (("CLASSDEF_ID", "DEFAULT"), ("CLASSDEF_STYLEOPTS",)),
    "style": (("STYLE_IDS",), ("STYLEDEF_STYLEOPTS",)),
    "class": (("CLASSENTITY_IDS",), ("STYLECLASS",)),
    "scale": (("WIDTH",),),
    "acc_title": (("acc_title_value",),),
    "acc_descr": (("acc_descr_value",),),
    "HIDE_EMPTY": (),
    "direction": (),
    "acc_descr_multiline_value": (),
}

_TOKEN_WORDS = {
    "EOF": "the end of the diagram",
    "NL": "the end of the line",
    "SD": "stateDiagram-v2",
    "AS": "'as'",
    "ID": "a state id",
    "EDGE_STATE": "[*]",
    "STRUCT_STOP": "'}'",
    "NOTE_TEXT": "the note text",
    "STRING": "a quoted string",
    "CLASSDEF_ID": "a class name",
    "DEFAULT": "'default'",
}


class _Parser:
    def __init__(self, tokens: list[_Token], lex_error: _SyntaxError | None) -> None:
        self.tokens = tokens
        self.lex_error = lex_error
        self.index = 0
        self.depth = 0
        self.out = _Builder()

    # token access ----------------------------------------------------------
    def peek(self) -> _Token:
        if self.index < len(self.tokens):
            return self.tokens[self.index]
        if self.lex_error is not None:  # the parser reached where the lexer gave up
            raise self.lex_error
        return _Token("EOF", "", self.tokens[-1].start if self.tokens else 0)

    def take(self, *kinds: str) -> _Token:
        token = self.peek()
        if token.kind not in kinds:
            raise self.unexpected(token, kinds)
        self.index += 1
        return token

    @staticmethod
    def unexpected(token: _Token, expected: tuple[str, ...] = ()) -> _SyntaxError:
        shown = _TOKEN_WORDS.get(token.kind, repr(token.text))
        wanted = " or ".join(_TOKEN_WORDS.get(kind, kind) for kind in expected)
        wanted = f" (expected {wanted})" if wanted else ""
        return _SyntaxError(f"Mermaid cannot parse the diagram at {shown}{wanted}", token.start)

    # grammar ----------------------------------------------------------------
    def diagram(self) -> None:
        while self.peek().kind == "NL":
            self.index += 1
        self.take("SD")
        self.document()
        self.take("EOF")

    def document(self) -> None:
        # Iterative on purpose: nested composite states must not exhaust the stack.
        while True:
            token = self.peek()
            if token.kind == "NL":
                self.index += 1
            elif token.kind == "EOF":
                if self.depth:
                    raise self.unexpected(token, ("STRUCT_STOP",))
                return
            elif token.kind == "STRUCT_STOP" and self.depth:
                self.index += 1
                self.depth -= 1
            else:
                self.statement()

    def statement(self) -> None:
        token = self.peek()
        kind = token.kind
        if kind in _FOLLOW:
            self.index += 1
            for expected in _FOLLOW[kind]:
                self.take(*expected)
        elif kind in ("ID", "EDGE_STATE"):
            self.id_statement()
        elif kind == "COMPOSIT_STATE":
            self.index += 1
            if self.peek().kind == "STRUCT_START":
                self.composite(token.text, None, token)
        elif kind == "STATE_DESCR":
            self.index += 1
            self.take("AS")
            id_token = self.take("ID")
            if self.peek().kind == "STRUCT_START":
                self.composite(id_token.text, token.text, token)
            else:
                self.alias(token, id_token)
        elif kind in ("FORK", "JOIN", "CHOICE"):
            self.index += 1
            if self.depth == 0:
                self.out.touch(token.text, token.start)
                self.out.problems.append(
                    (f"<<{kind.lower()}>> pseudo-states are not supported by statedoc", token.start)
                )
        elif kind == "CONCURRENT":
            self.index += 1
        elif kind == "note":
            self.index += 1
            if self.peek().kind == "notePosition":
                self.index += 1
                id_token = self.take("ID")
                self.take("NOTE_TEXT")
                if self.depth == 0:
                    self.out.touch(id_token.text, id_token.start)  # Mermaid draws the state
            else:
                self.take("NOTE_TEXT")
                self.take("AS")
                self.take("ID")
        elif kind == "CLICK":
            self.index += 1
            self.take("ID")
            self.take("STRING", "HREF")
            self.take("STRING")
            self.take("NL")
        else:
            raise self.unexpected(token)

    def id_statement(self) -> None:
        first = self.take("ID", "EDGE_STATE")
        if self.peek().kind == "STYLE_SEPARATOR":
            self.index += 1
            self.take("ID")
        following = self.peek().kind
        if following == "DESCR":
            descr = self.take("DESCR")
            if self.depth == 0 and first.kind == "ID":
                state_id = self.out.touch(first.text, first.start)
                text = _decode_placeholders_for_display(_trim_colon(descr.text))
                if state_id is not None and text:
                    self.out.states[state_id].descriptions.append(text)
            return
        if following != "-->":
            if self.depth == 0 and first.kind == "ID":
                self.out.touch(first.text, first.start)
            return
        self.index += 1
        second = self.take("ID", "EDGE_STATE")
        if self.peek().kind == "STYLE_SEPARATOR":
            self.index += 1
            self.take("ID")
        label: str | None = None
        if self.peek().kind == "DESCR":
            label = _decode_placeholders_for_display(_trim_colon(self.take("DESCR").text)) or None
        if self.depth:
            return
        ends: list[str] = []
        for token in (first, second):
            if token.kind == "EDGE_STATE":
                ends.append(START_END)
            else:
                ends.append(self.out.touch(token.text, token.start) or "")
        self.out.edges.append((ends[0], ends[1], label, first.start))

    def alias(self, descr: _Token, id_token: _Token) -> None:
        if self.depth:
            return
        raw_id = id_token.text
        extra: str | None = None
        if ":" in raw_id:
            parts = raw_id.split(":")
            raw_id, extra = parts[0], parts[1]
        state_id = self.out.touch(raw_id, descr.start)
        if state_id is None:
            return
        info = self.out.states[state_id]
        name = _js_trim(descr.text)
        if name and info.alias is None:
            info.alias = _decode_placeholders_for_display(name)
            info.alias_offset = descr.start
        elif name:
            info.descriptions.append(_decode_placeholders_for_display(name))
        if extra is not None and _js_trim(extra):
            info.descriptions.append(_decode_placeholders_for_display(_js_trim(extra)))

    def composite(self, raw_id: str, name: str | None, token: _Token) -> None:
        self.take("STRUCT_START")
        if self.depth == 0:
            state_id = self.out.touch(raw_id, token.start)
            if state_id is not None and name and _js_trim(name):
                info = self.out.states[state_id]
                if info.alias is None:
                    info.alias = _decode_placeholders_for_display(_js_trim(name))
                    info.alias_offset = token.start
            self.out.problems.append(
                (
                    f"composite state {_js_trim(raw_id)!r} {{ ... }} is not supported by statedoc; "
                    "use a flat diagram",
                    token.start,
                )
            )
        self.depth += 1


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
    low, high = 0, len(line_starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if line_starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low + 1, offset - line_starts[low] + 1


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


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
_FAST_TEXT = r"[A-Za-z0-9 .,()/!?'-]*[A-Za-z0-9.,()/!?'-][A-Za-z0-9 .,()/!?'-]*"
_FAST_LINE = re.compile(
    rf"(?P<blank> *)$"
    rf'| *(?P<kw>state) +"(?P<name>{_FAST_TEXT})" +as +(?P<alias>{_FAST_ID}) *$'
    rf"| *(?P<src>{_FAST_END}) +--> +(?P<dst>{_FAST_END})"
    rf"(?: *(?P<label>:) *(?P<text>{_FAST_TEXT}))? *$"
)
_FAST_CHARS = re.compile(r"[A-Za-z0-9 \n_\[\]*>:.,()/!?'\"-]*\Z")
# Words that start a keyword rule in some lexer state, or that Mermaid treats specially.
_FAST_RESERVED = re.compile(
    r"state|note|class|style|default|click|href|scale|direction|acc|end|as\Z|left|right|of\Z"
    r"|root_(?:start|end)\Z|hide|stateDiagram|fork|join|choice|concurrent",
    re.IGNORECASE,
)


def _fast(text: str) -> Diagram | None:
    """The diagram, when every line is one of the plain shapes; else None (use the lexer)."""
    if not _FAST_CHARS.match(text) or len(text) > MERMAID_MAX_TEXT_SIZE:
        return None
    header = text.lstrip(" \n")
    if not header.startswith("stateDiagram-v2\n") and header != "stateDiagram-v2":
        return None
    if "direction" in text.lower():
        return None
    out = _Builder()
    offset = len(text) - len(header) + len("stateDiagram-v2")
    body = text[offset:]
    if body.startswith(" "):
        return None
    for line in body.split("\n")[1:] if body else ():
        offset = text.index("\n", offset) + 1
        match = _FAST_LINE.match(line)
        if match is None:
            return None
        if match.group("blank") is not None:
            continue
        if match.group("kw") is not None:
            alias = match.group("alias")
            if _FAST_RESERVED.match(alias):
                return None
            keyword = offset + match.start("kw")
            state_id = out.touch(alias, keyword)
            assert state_id is not None
            info = out.states[state_id]
            name = _js_trim(match.group("name"))
            if info.alias is None:
                info.alias = _decode_placeholders_for_display(name)
                info.alias_offset = keyword
            else:
                info.descriptions.append(_decode_placeholders_for_display(name))
            continue
        src, dst = match.group("src"), match.group("dst")
        if any(end != START_END and _FAST_RESERVED.match(end) for end in (src, dst)):
            return None
        label = None
        if match.group("label") is not None:
            label = _decode_placeholders_for_display(_js_trim(match.group("text"))) or None
        ends = [
            START_END if end == START_END else out.touch(end, offset + match.start(group)) or ""
            for end, group in ((src, "src"), (dst, "dst"))
        ]
        out.edges.append((ends[0], ends[1], label, offset + match.start("src")))
    lines = _line_starts(text)
    return _assemble("stateDiagram-v2", out, lambda at: _position(lines, at), [], False, text)


def _assemble(
    kind: str,
    built: _Builder,
    place: Callable[[int], tuple[int, int]],
    problems: list[Problem],
    rejected: bool,
    shown_text: str,
) -> Diagram:
    """Turn what the grammar collected into a :class:`Diagram` (shared by both paths)."""
    names: dict[str, str] = {}
    states: list[DiagramState] = []
    for info in built.states.values():
        name = info.alias if info.alias is not None else _decode_placeholders_for_display(info.id)
        names[info.id] = name
        line, column = place(info.alias_offset if info.alias is not None else info.offset)
        states.append(
            DiagramState(name, _as_written(info.id), line, column, tuple(info.descriptions))
        )
    edges = []
    for src, dst, label, offset in built.edges:
        line, column = place(offset)
        edges.append(Edge(names.get(src, src), names.get(dst, dst), label, line, column))
    for message, offset in built.problems:
        line, column = place(offset)
        problems.append(Problem(message, line, column, SYNTAX_CODE))
    if _utf16_length(shown_text) > MERMAID_MAX_TEXT_SIZE:
        problems.append(
            Problem(
                f"the diagram is longer than Mermaid's maxTextSize ({MERMAID_MAX_TEXT_SIZE}); "
                "Mermaid shows an error instead of it",
                1,
                1,
                SYNTAX_CODE,
            )
        )
    problems.sort(key=lambda problem: (problem.line, problem.column))
    return Diagram(kind, tuple(states), tuple(edges), tuple(problems), rejected)


def _parse(text: str) -> Diagram:
    fast = _fast(text)
    if fast is not None:
        return fast
    return _parse_full(text)


def _parse_full(text: str) -> Diagram:
    lines = _line_starts(text)
    mapped = _preprocess(_preprocess(_Mapped(text, list(range(len(text) + 1)))))

    def at(offset: int) -> tuple[int, int]:
        clamped = min(max(offset, 0), len(mapped.origin) - 1)
        return _position(lines, mapped.origin[clamped])

    detect = _DETECT_COMMENT.sub("\n", mapped.text)
    kind = ""
    if re.match(f"{_S}*stateDiagram-v2", detect):
        kind = "stateDiagram-v2"
    elif re.match(f"{_S}*stateDiagram", detect):
        kind = "stateDiagram"
    if not kind:
        line, column = at(0)
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
    source = _Mapped(
        encoded.text + "\n", [*encoded.origin[:-1], encoded.origin[-1], encoded.origin[-1]]
    )
    tokens, lex_error = _tokenize(source.text)
    parser = _Parser(tokens, lex_error)
    problems: list[Problem] = []
    rejected = False
    try:
        parser.diagram()
    except _SyntaxError as error:
        offset = source.origin[min(error.offset, len(source.origin) - 1)]
        line, column = _position(lines, offset)
        problems.append(Problem(error.message, line, column, SYNTAX_CODE))
        rejected = True

    def place(offset: int) -> tuple[int, int]:
        return _position(lines, source.origin[min(offset, len(source.origin) - 1)])

    return _assemble(kind, parser.out, place, problems, rejected, mapped.text)

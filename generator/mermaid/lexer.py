"""Step 3a of :mod:`generator.mermaid.parse`: the lexer of Mermaid's ``stateDiagram.jison``.

Rule for rule (same numbers, start conditions, first-match order and actions), so the tokens
are the ones Mermaid's parser sees. Rules whose regex scans to the end of a line before it can
fail (``.*direction\\s+TB``, ``.*<<fork>>``, ``\\w+\\s+\\w+.*?\\{``) are only tried where
they can match (see :class:`_Reach`), so lexing stays linear in the length of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .preprocess import _DOT, _FLAGS, _JS_WS, _JS_WS_CHARS, _S, _W, _js_trim

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

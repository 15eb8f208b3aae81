"""Step 3a of :mod:`generator.load.mermaid.parse`: the lexer of Mermaid's ``stateDiagram.jison``.

Rule for rule (same numbers, start conditions, first-match order and actions), so the tokens
are the ones Mermaid's parser sees. Rules whose regex scans to the end of a line before it can
fail (``.*direction\\s+TB``, ``.*<<fork>>``, ``\\w+\\s+\\w+.*?\\{``) are only tried where
they can match (see :class:`_Reach`), so lexing stays linear in the length of the text.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import cache
from typing import NamedTuple

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


# Rules that scan to the end of a line (or of the text) before they can fail. Tried at every
# token they make lexing quadratic, so each is only tried where it can match (see _Reach);
# rule 68 is run as a scan (_note_end).
_DIRECTION_RULES = frozenset((4, 5, 6, 7, 43, 44, 45, 46))
_PSEUDO_RULES = frozenset((37, 38, 39, 40, 41, 42))
_BRACE_RULES = frozenset((52,))
_NOTE_END_RULE = 68
_DIRECTION_AT = re.compile(f"direction{_S}+(?:TB|BT|RL|LR)", _FLAGS)
_PSEUDO_AT = re.compile(r"<<(?:fork|join|choice)>>|\[\[(?:fork|join|choice)\]\]", _FLAGS)
_BREAK_AT = re.compile("[\n\r\u2028\u2029]")  # where JavaScript's "." stops
_WORD_TO_LINE_END = re.compile(f"{_W}+{_S}*[\n\r\u2028\u2029]", _FLAGS)
_NOTE_END_AT = re.compile("end note\\b", _FLAGS)

Pattern = tuple[re.Pattern[str], dict[int, int]]


@cache
def _variant(condition: str, reach: int) -> Pattern:
    """The combined pattern of ``condition`` without the far-reaching rules ``reach`` excludes
    (bit 1: direction, 2: fork/join/choice, 4: ``a b {``, 8: rule 68 as a regex), and group
    index -> rule number (``match.lastindex`` is cheaper than ``lastgroup``). Compiled on
    first use: a lint whose diagrams all take the fast path never pays for it."""
    excluded: set[int] = set() if reach & 8 else {_NOTE_END_RULE}
    for bit, far in ((1, _DIRECTION_RULES), (2, _PSEUDO_RULES), (4, _BRACE_RULES)):
        if not reach & bit:
            excluded |= far
    rules = tuple(rule for rule in _CONDITIONS[condition] if rule not in excluded)
    pattern = _combined(rules)
    return pattern, {pattern.groupindex[f"r{rule}"]: rule for rule in rules}


_GUARDED = {
    name: any(rule in _DIRECTION_RULES | _PSEUDO_RULES | _BRACE_RULES for rule in rules)
    for name, rules in _CONDITIONS.items()
}


class _Reach:
    """Where the far-reaching rules can match, found once per text in linear time.

    ``.*direction\\s+TB[^\\n]*`` matches at ``pos`` only if an occurrence of
    ``direction\\s+TB`` starts on the same line at or after ``pos`` (likewise ``.*<<fork>>``);
    ``\\w+\\s+\\w+.*?\\{`` only if a ``{`` follows on the line, or the line holds nothing
    but one word after ``pos`` (the second word is then on a later line). Where a rule can
    match, the first rule that matches consumes the rest, so each line is scanned O(1) times.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.breaks = [m.start() for m in _BREAK_AT.finditer(text)]
        self.directions = [m.start() for m in _DIRECTION_AT.finditer(text)]
        self.pseudos = [m.start() for m in _PSEUDO_AT.finditer(text)]
        self.braces = [i for i, char in enumerate(text) if char == "{"]
        self._reach = 0
        self._through = -1  # the answer holds for positions up to here

    def at(self, pos: int, condition: str) -> int:
        """The mask of far-reaching rules worth trying at ``pos`` (see :func:`_variant`)."""
        if pos > self._through:
            # Constant until pos passes the next line break or the next occurrence.
            line_end = _after(self.breaks, pos, len(self.text))
            marks = [_after(found, pos, line_end) for found in self._marks()]
            self._through = min([line_end, *marks])
            bits = zip((1, 2, 4), marks, strict=True)
            self._reach = sum(bit for bit, mark in bits if mark < line_end)
        reach = self._reach
        if condition == "STATE" and not reach & 4 and _WORD_TO_LINE_END.match(self.text, pos):
            reach |= 4  # `a` alone on its line: `a b {` may continue on the next one
        return reach

    def _marks(self) -> tuple[list[int], list[int], list[int]]:
        return self.directions, self.pseudos, self.braces


def _after(positions: list[int], pos: int, default: int) -> int:
    """The first of the sorted ``positions`` at or after ``pos`` (``default`` if none)."""
    index = bisect_left(positions, pos)
    return positions[index] if index < len(positions) else default


def _note_end(text: str, pos: int) -> int | None:
    """Where rule 68 (``[\\s\\S]*?\\n\\s*end note\\b``) ends a match at ``pos``, as a scan.

    The lazy match ends at the first ``end note`` whose run of blanks before it (after
    ``pos``) holds a line feed; the regex would rescan that run from each line feed in it.
    """
    for found in _NOTE_END_AT.finditer(text, pos):
        run = found.start()
        while run > pos and text[run - 1] in _JS_WS_CHARS:
            run -= 1
        if "\n" in text[run : found.start()]:
            return found.end()
    return None


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


class _Token(NamedTuple):
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


def _tokenize(src: str, *, guarded: bool = True) -> tuple[list[_Token], _SyntaxError | None]:
    """Run the jison lexer to the end; a lexical error ends the token list.

    ``guarded=False`` tries every rule at every position, as jison does (quadratic on long
    lines): the tests hold both to the same tokens.
    """
    reach = _Reach(src) if guarded else None
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
        mask = 15 if reach is None else reach.at(pos, condition) if _GUARDED[condition] else 7
        pattern, rule_at = _variant(condition, mask)
        match = pattern.match(src, pos)
        if match is not None:
            rule, raw = rule_at[match.lastindex or 0], match.group(0)
        elif condition == "NOTE_TEXT" and (note_end := _note_end(src, pos)) is not None:
            rule, raw = _NOTE_END_RULE, src[pos:note_end]
        else:
            if pos >= end:
                break
            return tokens, _SyntaxError("Mermaid cannot read the text here", pos)
        start = pos
        simple = _SIMPLE.get(rule)
        if simple is not None and not simple[1] and not simple[2]:  # no state change: inline
            kind, text = simple[0], raw
            consumed = len(text)
        else:
            try:
                kind, text, consumed = _act(rule, raw, stack)
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
                start += len(raw) - len(raw.lstrip(_JS_WS_CHARS))
            tokens.append(_Token(kind, text, start))
    tokens.append(_Token("EOF", "", end))
    return tokens, None


_DECLARING = frozenset(("STATE_DESCR", "COMPOSIT_STATE", "FORK", "JOIN", "CHOICE"))

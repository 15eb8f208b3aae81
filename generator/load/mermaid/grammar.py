"""Step 3b of :mod:`generator.load.mermaid.parse`: the productions of ``stateDiagram.jison``.

A recursive-descent reading of the token list (iterative over statements, so nesting never
exhausts the stack) that collects states, edges, labels and the constructs statedoc reports
(composite states, forks/joins/choices) into a :class:`_Builder`.
"""

from __future__ import annotations

from .builder import _Builder
from .lexer import _SyntaxError, _Token
from .model import START_END
from .preprocess import _decode_placeholders_for_display, _js_trim


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

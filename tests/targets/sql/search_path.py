"""Names the generated SQL resolves through ``search_path``, read from its text: what the
search_path attack shadows (operators, called functions and their arities, casts, collations,
every identifier)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<comment>--[^\n]*|/\*.*?\*/)
      | (?P<string>[Ee]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*')
      | (?P<dollar>\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$)
      | (?P<qident>"(?:[^"]|"")*")
      | (?P<word>[A-Za-z_][A-Za-z_0-9$]*)
      | (?P<number>[0-9]+)
      | (?P<cast>::)
      | (?P<assign>:=)
      | (?P<op>[-+*/<>=~!@\#%^&|`?]+)
      | (?P<other>.)""",
    re.X | re.S,
)
#: PL/pgSQL statements that look like a call (``IF (...)``) and are not SQL keywords.
PLPGSQL_WORDS = frozenset({"elsif", "perform", "raise", "return", "exit", "loop", "assert"})


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, name) per token; comments and string literals dropped, dollar-quote tags too
    (the generated file quotes only code with them), identifiers as the server folds them."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup or "other", match.group()
        if kind in ("space", "comment", "string", "dollar", "assign"):
            continue
        if kind == "word":
            kind, value = "ident", value.lower()
        elif kind == "qident":
            kind, value = "ident", value[1:-1].replace('""', '"')
        out.append((kind, value))
    return out


@dataclass
class UsedNames:
    """Names in the generated text that the server resolves through ``search_path``
    (qualified ones too: shadowing them costs nothing and misses nothing)."""

    operators: set[str] = field(default_factory=set)
    calls: dict[str, set[int]] = field(default_factory=dict)  # name -> arities seen
    casts: set[str] = field(default_factory=set)  # names after ``::``
    collations: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)  # every identifier (type names among them)


def _arity(items: list[tuple[str, str]], open_at: int) -> int:
    depth, commas = 0, 0
    for index in range(open_at, len(items)):
        value = items[index][1]
        if value in "([":
            depth += 1
        elif value in ")]":
            depth -= 1
            if depth == 0:
                return 0 if index == open_at + 1 else commas + 1
        elif value == "," and depth == 1:
            commas += 1
    raise AssertionError("unbalanced parentheses in generated SQL")


def _last_name(items: list[tuple[str, str]], at: int) -> tuple[str, int]:
    """The name starting at ``at``, skipping qualifiers (``pg_catalog."C"`` -> ``C``)."""
    while at + 2 < len(items) and items[at + 1] == ("other", ".") and items[at][0] == "ident":
        at += 2
    return items[at][1], at


def used_names(texts: list[str]) -> UsedNames:
    used = UsedNames()
    for text in texts:
        items = tokens(text)
        words = [value for kind, value in items if kind == "ident"]
        used.words.update(words)
        if {"in", "case", "distinct", "any", "nullif"} & set(words):
            used.operators.add("=")  # implied by IN, CASE x WHEN, IS DISTINCT FROM, = ANY
        for index, (kind, value) in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else ("", "")
            if kind == "op" and value not in ("=>", ":="):
                used.operators.add("<>" if value == "!=" else value)
            elif kind == "ident" and value == "in" and index and items[index - 1][1] == "not":
                used.operators.add("<>")  # x NOT IN (...) is x <> a AND ...
            elif kind == "cast" and following[0] == "ident":
                used.casts.add(_last_name(items, index + 1)[0])
            elif kind == "ident" and value == "collate" and following[0] == "ident":
                used.collations.add(_last_name(items, index + 1)[0])
            elif kind == "ident" and value != "operator" and following == ("other", "("):
                qualifier = items[index - 2][1] if items[index - 1] == ("other", ".") else None
                if qualifier in (None, "pg_catalog"):
                    used.calls.setdefault(value, set()).add(_arity(items, index + 1))
    return used

"""Spec text -> TypeScript source: the one escaping path every spec string takes into a module.

:func:`tsliteral` writes a value (``str``, ``None``, ``bool``, ``int`` or a list/tuple of them)
as a TypeScript expression that evaluates to exactly that value. Strings become JSON-style
``"..."`` literals in which quotes, backslashes, every control or otherwise non-printable
character (line ends, U+2028/U+2029, NEL, bidi controls, BOM, unassigned code points) are
``\\uXXXX`` escapes, so a literal never spans a line nor hides text; ``</`` and ``<!--`` are
escaped too so the module can be inlined in an HTML ``<script>``. Backticks and ``${`` are
inert inside double quotes. Lone surrogates cannot come from YAML (UTF-8 cannot hold them)
and are refused. :func:`ts_comment` makes text safe inside a ``//`` or ``/** */`` comment.

No Jinja2 here: cheap to import and easy to test on its own.
"""

from __future__ import annotations

import json

#: Integers a JavaScript ``number`` holds exactly; larger ones are written as ``bigint``.
MAX_SAFE_INTEGER = 2**53 - 1


class TsLiteralError(ValueError):
    """A value cannot be written as a TypeScript literal."""


def _escape(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        raise TsLiteralError(f"lone surrogate U+{code:04X} cannot be written as UTF-8")
    if char == '"':
        return '\\"'
    if char == "\\":
        return "\\\\"
    if char.isprintable() or char == " ":
        return char
    if code > 0xFFFF:  # a non-printable astral character: its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
    return f"\\u{code:04X}"


def ts_string(value: str) -> str:
    """``value`` as a double-quoted TypeScript string literal (see the module docstring)."""
    body = "".join(_escape(char) for char in value)
    body = body.replace("</", "<\\/").replace("<!--", "\\u003C!--")
    literal = f'"{body}"'
    # A JSON reader agrees with JavaScript on every escape used here: prove the round trip.
    if json.loads(literal) != value:  # pragma: no cover - a bug in this module
        raise TsLiteralError(f"literal for {value!r} does not round-trip")
    return literal


def tsliteral(value: object) -> str:
    """A TypeScript expression for ``value``: ``null``, ``true``/``false``, a number (a
    ``bigint`` literal past 2**53 - 1), a string, or an array of those."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        number = int(value)
        return str(number) if abs(number) <= MAX_SAFE_INTEGER else f"{number}n"
    if isinstance(value, str):
        return ts_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(tsliteral(item) for item in value) + "]"
    raise TsLiteralError(f"cannot write a {type(value).__name__} as a TypeScript literal")


def ts_comment(text: str) -> str:
    """``text`` for a one-line ``//`` comment or a line of a ``/** */`` block: non-printable
    characters become ``\\uXXXX``, ``*/`` cannot close the block (``*\\/``), and neither
    ``</script>`` nor ``<!--`` can end or hide an inline HTML script."""
    out: list[str] = []
    for char in text:
        if char.isprintable() or char == " ":
            out.append(char)
        elif ord(char) > 0xFFFF:
            out.append(f"\\U{ord(char):08X}")
        else:
            out.append(f"\\u{ord(char):04X}")
    return "".join(out).replace("*/", "*\\/").replace("</", "<\\/").replace("<!--", "<\\!--")

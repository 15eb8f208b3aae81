"""YAML writers for generated documents: several emitters, all read back alike by statedoc.

PyYAML block, flow or literal style, or a one-line double-quoted emitter with or without raw
Unicode. Output is for statedoc's strict YAML 1.2 core loader: no anchors or aliases
(PyYAML's ``ignore_aliases``), and every string that YAML 1.2 would read as something else
(``0o17``, ``1e3``, ``null``...) quoted.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from generator.load.strict_yaml import resolve_plain

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

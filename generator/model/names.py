"""Readable Python identifiers for any state name or title.

Lint uses these to refuse collisions (SD110) before generation ever renames anything, so the
mapping must be a pure function of the text. Python NFKC-normalises identifiers, so the result
is normalised here too: two names that Python would treat as one are one here.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from functools import lru_cache

#: PostgreSQL's identifier limit in bytes; names the SQL target derives are kept within it.
SQL_NAME_BYTES = 63
#: A binding's table/column/schema: the name as PostgreSQL stores an unquoted identifier.
SQL_NAME = r"[a-z_][a-z0-9_$]*"

_SEPARATORS = re.compile(r"_+")

#: Names are asked for again by lint, each target and the diagram; pure functions of the text,
#: so remembered, within a bound (a run's names, not the whole corpus's).
_REMEMBERED = 4096


def _words(text: str) -> list[str]:
    """Runs of identifier characters; anything else separates words."""
    words: list[str] = []
    current: list[str] = []
    for char in unicodedata.normalize("NFKC", text):
        if char == "_" or not ("_" + char).isidentifier():
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        words.append("".join(current))
    return words


def _codepoints(text: str) -> str:
    return "_".join(f"U{ord(char):04X}" for char in text[:8]) or "EMPTY"


def _fix(name: str, prefix: str) -> str:
    name = unicodedata.normalize("NFKC", name)
    if not name.isidentifier():  # a digit or combining mark first
        name = f"{prefix}{name}"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        name += "_"
    assert name.isidentifier(), name
    return name


@lru_cache(maxsize=_REMEMBERED)
def member_name(state: str) -> str:
    """UPPER_SNAKE enum member: ``in-progress`` -> ``IN_PROGRESS``, ``2fa`` -> ``STATE_2FA``.

    Upper case keeps members clear of ``str`` methods, ``name``/``value`` and enum's
    ``_sunder_`` names; a name with no letters at all is spelled by its code points.
    """
    words = [w.upper() for w in _words(state)]
    joined = _SEPARATORS.sub("_", "_".join(words)).strip("_")
    if not joined:
        return "STATE_" + _codepoints(state)
    return _fix(joined, "STATE_")


@lru_cache(maxsize=_REMEMBERED)
def snake_name(text: str, fallback: str = "spec") -> str:
    """lower_snake module or package name: ``Export delivery`` -> ``export_delivery``."""
    words = [w.lower() for w in _words(text)]
    joined = _SEPARATORS.sub("_", "_".join(words)).strip("_")
    if not joined:
        return fallback
    return _fix(joined, f"{fallback}_")


@lru_cache(maxsize=_REMEMBERED)
def pascal_name(text: str, fallback: str = "Spec") -> str:
    """PascalCase class name: ``provisioning attempt`` -> ``ProvisioningAttempt``."""
    parts = [p for w in _words(text) for p in w.split("_") if p]
    joined = "".join(p[:1].upper() + p[1:] for p in parts)
    if not joined:
        return fallback
    return _fix(joined, fallback)


def pytest_class_name(dotted: str) -> str:
    """``Test`` + the PascalCase name of a module's last part: the class a generated test
    module binds, and the name :func:`generator.testing.statedoc_tests` gives it by default
    (one function, so the two agree)."""
    return "Test" + pascal_name(dotted.rsplit(".", 1)[-1], fallback="Module")

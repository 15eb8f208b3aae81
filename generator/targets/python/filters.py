"""The template filters of Python output, added to the kit's (:mod:`generator.render.environment`):
``pyliteral`` (spec text -> a Python literal, :mod:`.literals`), ``docstring`` and ``pyrepr``
(a short ``repr`` in the quotes ``ruff format`` prefers). The ``tests`` target's templates
use them too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from generator.render.environment import Code, RenderError, defined
from generator.render.environment import environment as kit_environment
from generator.targets.python.literals import docstring, pyliteral

if TYPE_CHECKING:
    import jinja2


_NONE = Code("None")


def _pyliteral(value: object, indent: int = 0, lead: int = 0) -> Code:
    if value is None:  # the commonest value of an optional text
        return _NONE
    if type(value) is not str:  # a str is never Undefined
        defined(value)
    return Code(pyliteral(value, indent, lead))


def _docstring(value: object, indent: int = 0) -> Code:
    defined(value)
    if not isinstance(value, str):
        raise RenderError(f"template bug: `docstring` got a {type(value).__name__}")
    return Code(docstring(value, indent))


def pyrepr(value: str) -> str:
    """``repr`` in double quotes where that needs no escape (as ``ruff format`` writes it)."""
    text = repr(value)
    if text.startswith("'") and "'" not in value and '"' not in value:
        text = f'"{text[1:-1]}"'
    if ast.literal_eval(text) != value:  # pragma: no cover - a bug here must not write code
        raise RenderError(f"literal for {value!r} does not round-trip")
    return text


def _pyrepr(value: object) -> Code:
    defined(value)
    if not isinstance(value, str):
        raise RenderError(f"template bug: `pyrepr` got a {type(value).__name__}")
    return Code(pyrepr(value))


FILTERS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("pyliteral", _pyliteral),
    ("docstring", _docstring),
    ("pyrepr", _pyrepr),
)


def environment(
    package: str = "generator.targets.python", *, strict: bool = True
) -> jinja2.Environment:
    """The kit's environment for ``package``'s templates, with the Python filters."""
    return kit_environment(package, strict=strict, filters=FILTERS)

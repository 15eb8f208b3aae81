"""Regular expressions compiled on first use, not at import.

Compiling costs more than most matches (Unicode classes most of all), and a cold
one-document lint imports many modules whose patterns serve only some inputs: a finding's
report, the full Mermaid lexer, a suppression comment. ``lazy`` stands in for
``re.compile`` at module level; after the first use the pattern's methods are plain
attributes of the stand-in, so a hot loop pays no more than with the compiled pattern.
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        """Only reached before the first use (or for a rare attribute): compile, then keep
        the bound methods so later lookups never come back here."""
        if name == "_args":  # made without __init__ (a copy or an unpickle): not a pattern
            raise AttributeError(name)
        compiled: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._args[0]!r}, {self._args[1]})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, deferred to the first method call."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))

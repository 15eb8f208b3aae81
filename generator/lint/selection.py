"""Which codes are reported: ``select``/``ignore`` with prefixes and per-file ignores (inline
ignores in real comments: :mod:`generator.lint.suppression`)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from generator.core.errors import ConfigError


def known_codes() -> list[str]:
    from generator.rules import all_rules

    return [r.code for r in all_rules()]


def validate_codes(codes: Iterable[str], where: str) -> None:
    """Every entry must be a code or a prefix of one (``SD1``, ``SD``; ``ALL`` too)."""
    known = known_codes()
    for code in codes:
        if code == "ALL":
            continue
        if not code or not any(k.startswith(code.upper()) for k in known):
            raise ConfigError(
                f"{where}: {code!r} is not a rule code or prefix (see `statedoc rules`)"
            )


def _matches(code: str, patterns: Iterable[str]) -> int:
    """Length of the longest pattern matching ``code`` (-1 if none): the most specific wins."""
    best = -1
    for raw in patterns:
        pattern = raw.upper()
        if pattern == "ALL":
            best = max(best, 0)
        elif code.startswith(pattern):
            best = max(best, len(pattern))
    return best


class Selection(NamedTuple):
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file: Mapping[str, tuple[str, ...]] | None = None

    def enabled(self, code: str, path: str = "") -> bool:
        """ruff's rule: the more specific of a matching select and ignore wins."""
        if code == "SD000":
            return True  # internal errors are never hidden
        chosen = _matches(code, self.select or ("ALL",))
        dropped = _matches(code, self.ignore)
        if path and self.per_file:
            for glob, codes in self.per_file.items():
                if fnmatch.fnmatch(path, glob) or fnmatch.fnmatch(path, f"*/{glob}"):
                    dropped = max(dropped, _matches(code, codes))
        return chosen >= 0 and chosen > dropped

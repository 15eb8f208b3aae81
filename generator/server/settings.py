"""The server's settings, from ``initializationOptions`` or ``workspace/didChangeConfiguration``.

Everything else comes from ``[tool.statedoc]``, found from each file as the CLI finds it; the
settings are what a command line would add: ``--select``/``--ignore``, ``--against GIT_REF``.
A setting of the wrong type is reported and left at its default, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

#: Seconds one request (a lint, a fix) may take before the server gives up on it.
DEFAULT_TIMEOUT = 20.0


class Settings(NamedTuple):
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: ``lint --against GIT_REF``: SD207 (and the revision quick fix) against that ref.
    against: str | None = None
    timeout: float = DEFAULT_TIMEOUT


def _codes(value: object, key: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [c for c in value.split(",")]
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return tuple(c.strip() for c in value if c.strip())
    problems.append(f"statedoc.{key} must be a list of rule codes; ignored")
    return ()


def read(options: object) -> tuple[Settings, list[str]]:
    """Settings from a client's options (``{"statedoc": {...}}`` or the inner table), and
    what was wrong with them."""
    problems: list[str] = []
    if isinstance(options, Mapping) and isinstance(options.get("statedoc"), Mapping):
        options = options["statedoc"]
    if not isinstance(options, Mapping):
        return Settings(), problems
    table: Mapping[str, Any] = options
    settings = Settings()
    if "select" in table:
        settings = settings._replace(select=_codes(table["select"], "select", problems))
    if "ignore" in table:
        settings = settings._replace(ignore=_codes(table["ignore"], "ignore", problems))
    against = table.get("against")
    if isinstance(against, str) and against.strip():
        settings = settings._replace(against=against.strip())
    elif against not in (None, ""):
        problems.append("statedoc.against must be a git ref (a string); ignored")
    timeout = table.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        settings = settings._replace(timeout=float(timeout))
    elif timeout is not None:
        problems.append("statedoc.timeout must be a positive number of seconds; ignored")
    return settings, problems

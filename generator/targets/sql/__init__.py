"""The ``sql`` target: database enforcement of a spec for PostgreSQL and SQLite.

:class:`SqlTarget` implements :class:`generator.targets.Target`; :mod:`.postgresql` and
:mod:`.sqlite` spell one :class:`~generator.targets.sql.plan.SqlPlan`; :mod:`.names` is the
only path from spec text to SQL text. Nothing here imports Jinja2: SQL is assembled from
escaped pieces, each produced by :mod:`.names`. :mod:`.settings` reads
``[tool.statedoc.sql]``; the configuration imports it, so this package imports nothing until
a name is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.targets.sql.names import SqlError
    from generator.targets.sql.target import SqlTarget

__all__ = ["SqlError", "SqlTarget"]
_WHERE = {"SqlError": "names", "SqlTarget": "target"}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{where}"), name)

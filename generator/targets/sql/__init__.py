"""The ``sql`` target: database enforcement of a spec for PostgreSQL and SQLite.

:class:`SqlTarget` implements :class:`generator.targets.Target`; :mod:`.postgresql` and
:mod:`.sqlite` spell one :class:`~generator.targets.sql.plan.SqlPlan`; :mod:`.names` is the
only path from spec text to SQL text. Nothing here imports Jinja2: SQL is assembled from
escaped pieces, each produced by :mod:`.names`.
"""

from __future__ import annotations

from generator.targets.sql.names import SqlError
from generator.targets.sql.target import SqlTarget

__all__ = ["SqlError", "SqlTarget"]

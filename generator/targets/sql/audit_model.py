"""What ``db audit`` reads of one database, as plain records (:mod:`.audit` fills them,
:mod:`.audit_findings` judges them, :mod:`.audit_report` shows them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from generator.targets.sql.plan import SqlPlan

#: Distinct unknown values, or disallowed pairs, reported per spec (the rest are counted).
SHOWN = 10
#: Example keys given for each of them.
EXAMPLES = 3

Pair = tuple[str, str]
TIMEOUT_STATES = ("57014", "55P03")  # query_canceled (statement_timeout), lock_not_available


@dataclass(frozen=True)
class Unknown:
    """Rows whose state column holds ``value`` (None: NULL), which is no state of the spec."""

    value: str | None
    rows: int
    examples: tuple[object, ...]  # the first keys, as JSON values ({"id": 7})


@dataclass(frozen=True)
class Disallowed:
    """History rows recording ``from_state -> to_state`` (None: an INSERT) that the spec does
    not allow."""

    from_state: str | None
    to_state: str
    rows: int
    last: dt.datetime | None
    revisions: tuple[int, int]  # lowest and highest revision that recorded it
    examples: tuple[object, ...]  # row_key of the first history rows


@dataclass(frozen=True)
class HistoryFacts:
    """What the history of one bound column says within the window."""

    table: tuple[str, str]  # (schema, name)
    inserts: int
    updates: int
    migrations: int
    declared: dict[Pair, tuple[int, dt.datetime | None]]  # pair -> (times, last time)
    disallowed: tuple[Disallowed, ...]  # the most frequent :data:`SHOWN`
    disallowed_pairs: int  # all of them
    disallowed_rows: int


@dataclass
class SpecAudit:
    """Everything the audit read for one spec (``problems``: what it could not read)."""

    plan: SqlPlan
    table: tuple[str, str] | None = None  # (schema, name) as found
    total: int = 0
    states: dict[str, int] = field(default_factory=dict)
    unknown: tuple[Unknown, ...] = ()
    unknown_values: int = 0
    unknown_rows: int = 0
    missing_keys: tuple[str, ...] = ()  # key columns the table lacks (no examples then)
    history: HistoryFacts | None = None
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Window:
    """The history window: rows with ``changed_at >= start`` (None: all rows)."""

    start: dt.datetime | None = None
    given: str | None = None  # what --since said

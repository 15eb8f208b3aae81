"""``statedoc db audit``: what a database holds, read against the specs of the repository.

For each bound spec (a :class:`~.plan.SqlPlan` with a binding) it reads, in one ``READ ONLY``
``REPEATABLE READ`` transaction (one snapshot) whose every statement has a statement and lock
timeout:

- the rows per state of the bound column, and the rows holding a value that is no state of
  the repository's revision (NULL included): how many, and the first few keys of each value
  (the binding's key columns, ``id`` unless configured, as the history records them);
- with history on, from ``<table>_<column>_history`` (:mod:`.history`) within the window
  (``--since``; default: all of it): how often each declared transition happened, and every
  recorded change the spec does not allow (an undeclared or forbidden pair, an INSERT in a
  state an INSERT may not use). Rows of kind ``migration`` (written by a revision's migration,
  as the owner) are counted apart and never judged.

Each spec's reads run in a savepoint: a table that is missing, unreadable or locked past the
timeout becomes a problem of that spec (SD140), and the others are still read. Nothing here
writes: SELECT on the bound table and its history (and USAGE on their schemas) is enough.
Every value from the database stays data: it is returned, never put into SQL text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import sql

from generator.targets.sql import history as h
from generator.targets.sql.audit_history import read_history
from generator.targets.sql.audit_model import (
    EXAMPLES,
    SHOWN,
    TIMEOUT_STATES,
    SpecAudit,
    Unknown,
    Window,
)
from generator.targets.sql.audit_window import resolve
from generator.targets.sql.plan import SqlPlan
from generator.targets.sql.session import DEFAULT_TIMEOUT, read_only_session


def audit_database(
    connection: Any,
    plans: Sequence[SqlPlan],
    *,
    since: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[list[SpecAudit], Window]:
    """Audit ``plans`` (each with a binding) over ``connection`` (autocommit)."""
    read_only_session(connection, timeout, "statedoc db audit")
    audits = [SpecAudit(plan) for plan in plans]
    with connection.transaction(force_rollback=True):  # read-only, and never committed
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        window = resolve(connection, since)
        for audit in audits:
            _guarded(connection, audit, "the bound table", timeout, _read_rows)
            if audit.plan.history and audit.table is not None:
                _guarded(connection, audit, "the history", timeout, _read_history, window)
    return audits, window


def _guarded(
    connection: Any, audit: SpecAudit, what: str, timeout: float, read: Any, *args: Any
) -> None:
    """Run ``read`` in a savepoint; a database error of this read is the spec's problem
    (unless the connection itself is gone)."""
    import psycopg

    try:
        with connection.transaction():
            read(connection, audit, *args)
    except psycopg.Error as exc:
        if connection.broken or connection.closed:
            raise
        audit.problems.append(_problem(what, exc, timeout))


def _problem(what: str, exc: Any, timeout: float) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if exc.sqlstate in TIMEOUT_STATES:
        return f"reading {what} timed out after {timeout:g} s (--timeout): {text}"
    if exc.sqlstate == "42501":
        return f"reading {what}: {text}: grant this role SELECT on it (and USAGE on its schema)"
    return f"reading {what} failed: {text}"


def _relation(connection: Any, schema: str | None, name: str) -> tuple[int, str, str] | None:
    """(oid, schema, name) of a table as this session resolves it, or None."""
    text = sql.Identifier(name) if schema is None else sql.Identifier(schema, name)
    row = connection.execute(
        "SELECT c.oid, n.nspname::pg_catalog.text, c.relname::pg_catalog.text"
        " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(%s)",
        (text.as_string(connection),),
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]), str(row[2]))


def _columns(connection: Any, oid: int) -> set[str]:
    cursor = connection.execute(
        "SELECT attname::pg_catalog.text FROM pg_catalog.pg_attribute"
        " WHERE attrelid OPERATOR(pg_catalog.=) %s AND attnum OPERATOR(pg_catalog.>) 0"
        " AND NOT attisdropped",
        (oid,),
    )
    return {str(row[0]) for row in cursor.fetchall()}


def _state(column: sql.Composable) -> sql.Composable:
    """The state as compared byte for byte, as the generated checks compare it."""
    return sql.SQL('({}::pg_catalog.text COLLATE pg_catalog."C")').format(column)


def _known(value: sql.Composable) -> sql.Composable:
    """True when ``value`` is one of the ``%(states)s`` parameter's states, false otherwise."""
    return sql.SQL(
        "coalesce({} OPERATOR(pg_catalog.=) ANY (%(states)s::pg_catalog.text[]), false)"
    ).format(value)


def _read_rows(connection: Any, audit: SpecAudit) -> None:
    binding = audit.plan.binding
    assert binding is not None
    found = _relation(connection, binding.schema, binding.table)
    where = binding.table if binding.schema is None else f"{binding.schema}.{binding.table}"
    if found is None:
        audit.problems.append(
            f"the bound table {where} does not exist (or this role cannot see it)"
        )
        return
    oid, schema, name = found
    columns = _columns(connection, oid)
    if binding.column not in columns:
        audit.problems.append(f"the bound table {schema}.{name} has no column {binding.column}")
        return
    missing = tuple(k for k in binding.key if k not in columns)
    table = sql.Identifier(schema, name)
    value = _state(sql.SQL("t.{}").format(sql.Identifier(binding.column)))
    states = list(audit.plan.states)
    cursor = connection.execute(
        sql.SQL(
            "SELECT CASE WHEN {known} THEN {v} END, pg_catalog.count(*) FROM {t} t GROUP BY 1"
        ).format(known=_known(value), v=value, t=table),
        {"states": states},
    )
    counts = {row[0]: int(row[1]) for row in cursor.fetchall()}
    unknown = _read_unknown(connection, audit.plan, missing, table) if counts.get(None) else None
    # Only a complete read is kept: a read that fails half-way leaves the audit as it was.
    audit.table, audit.missing_keys = (schema, name), missing
    audit.total = sum(counts.values())
    audit.states = {s: counts.get(s, 0) for s in states}
    if unknown is not None:
        audit.unknown, audit.unknown_values, audit.unknown_rows = unknown


def _key_json(keys: Sequence[str], record: str) -> sql.Composable:
    """``jsonb_build_object('id', t."id", ...)``: the key as the history records it."""
    items = sql.SQL(", ").join(
        sql.SQL("{}, {}.{}").format(sql.Literal(k), sql.Identifier(record), sql.Identifier(k))
        for k in keys
    )
    return sql.SQL("pg_catalog.jsonb_build_object({})").format(items)


def _read_unknown(
    connection: Any, plan: SqlPlan, missing: tuple[str, ...], table: sql.Composable
) -> tuple[tuple[Unknown, ...], int, int]:
    """The :data:`SHOWN` most frequent values that are no state (with their first keys), how
    many such values there are, and in how many rows."""
    assert plan.binding is not None
    column = sql.Identifier(plan.binding.column)
    value = _state(sql.SQL("t.{}").format(column))
    inner = _state(sql.SQL("x.{}").format(column))
    if missing:
        examples: sql.Composable = sql.SQL("ARRAY[]::pg_catalog.jsonb[]")
    else:
        examples = sql.SQL(
            "ARRAY(SELECT e.k FROM (SELECT {key} AS k FROM {t} x WHERE CASE WHEN u.v IS NULL"
            " THEN {inner} IS NULL ELSE {inner} OPERATOR(pg_catalog.=) u.v END) e"
            " ORDER BY e.k LIMIT %(examples)s)"
        ).format(key=_key_json(plan.binding.key, "x"), t=table, inner=inner)
    query = sql.SQL(
        "SELECT u.v, u.n, u.values_total, u.rows_total, {examples} FROM ("
        " SELECT g.v, g.n, pg_catalog.count(*) OVER () AS values_total,"
        " pg_catalog.sum(g.n) OVER () AS rows_total FROM ("
        "  SELECT {v} AS v, pg_catalog.count(*) AS n FROM {t} t"
        "  WHERE NOT {known}"
        "  GROUP BY 1) g"
        " ORDER BY g.n DESC, g.v NULLS FIRST LIMIT %(shown)s) u"
        " ORDER BY u.n DESC, u.v NULLS FIRST"
    ).format(examples=examples, known=_known(value), v=value, t=table)
    params = {"states": list(plan.states), "shown": SHOWN, "examples": EXAMPLES}
    rows = connection.execute(query, params).fetchall()
    found = tuple(Unknown(r[0], int(r[1]), tuple(r[4] or ())) for r in rows)
    return found, int(rows[0][2]) if rows else 0, int(rows[0][3]) if rows else 0


def _read_history(connection: Any, audit: SpecAudit, window: Window) -> None:
    assert audit.plan.binding is not None
    schema, name = h.history_table(audit.plan.binding)
    found = _relation(connection, schema, name)
    if found is None:
        audit.problems.append(
            f"history is on but {schema}.{name} does not exist (or this role cannot see it): "
            "apply the generated SQL (db check reports SD123)"
        )
        return
    columns = _columns(connection, found[0])
    missing = [c for c in h.COLUMNS if c not in columns]
    if missing:
        audit.problems.append(
            f"the history {schema}.{name} lacks column(s) {', '.join(missing)} (db check: SD132)"
        )
        return
    audit.history = read_history(connection, audit.plan, (found[1], found[2]), window)

"""Hostile names of the history: the binding's table, column and key columns come from the
configuration, so they are drawn from every way out of an identifier, a literal, a dollar
quote, a comment or a psql line (:func:`.hostile.identifiers`).

PostgreSQL: the file is applied with plain ``psql -X -f FILE`` (no ``ON_ERROR_STOP``, the
worst case) to a table whose columns carry those names; psql reports no ERROR, nothing named
``pwned`` appears, and a written row's history holds exactly the key names and values and
the pair. SQLite: the same with ``executescript``.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from profiles import fuzz_examples, scaled
from psycopg import sql as pgsql

from generator.targets.sql.history import history_name
from generator.targets.sql.settings import SqlBinding

from .history import document_at, render
from .hostile import identifiers
from .lifecycle import Lifecycle
from .postgres import Databases, dsn_with, own_schemas, psql_file

#: Columns every PostgreSQL table has already.
SYSTEM_COLUMNS = {"tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"}


@st.composite
def bindings(draw: st.DrawFn) -> SqlBinding:
    names = draw(st.lists(identifiers(), min_size=4, max_size=4, unique=True))
    table, column, *keys = names
    assume(not {column, *keys} & SYSTEM_COLUMNS)
    assume(history_name(SqlBinding(table, column)) != table)
    return SqlBinding(table, column, None, True, tuple(keys))


def pair(life: Lifecycle) -> tuple[str, str]:
    start = life.initial[0]
    return start, next(b for a, b in life.declared if a == start)


@settings(
    max_examples=fuzz_examples(scaled(40, 4)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(binding=bindings())
def test_hostile_names_stay_names_in_postgresql(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases, binding: SqlBinding
) -> None:
    admin = databases(pg_dsn)
    with own_schemas(admin) as (app, sd), tempfile.TemporaryDirectory() as folder:
        bound = binding._replace(schema=app)
        table = pgsql.Identifier(app, bound.table)
        k1, k2 = (pgsql.Identifier(k) for k in bound.key)
        admin.execute(
            pgsql.SQL("CREATE TABLE {} ({} int, {} text, {} text)").format(
                table, k1, k2, pgsql.Identifier(bound.column)
            )
        )
        path = Path(folder) / "history.sql"
        path.write_text(render(document_at(1), bound, sd), encoding="utf-8")
        done = psql_file(dsn_with(admin.info.dsn), path, stop_on_error=False)
        assert done.returncode == 0 and "ERROR" not in done.stderr, done.stderr
        assert "WARNING" not in done.stderr, done.stderr
        assert not any(Path(folder).glob("pwned*"))
        start, then = pair(lifecycle)
        state = pgsql.Identifier(bound.column)
        # Literals, not parameters: a name holding % would read as a placeholder.
        admin.execute(
            pgsql.SQL("INSERT INTO {} ({}, {}, {}) VALUES (7, 'it''s', {})").format(
                table, k1, k2, state, pgsql.Literal(start)
            )
        )
        admin.execute(pgsql.SQL("UPDATE {} SET {} = {}").format(table, state, pgsql.Literal(then)))
        history = pgsql.Identifier(app, history_name(bound))
        rows = admin.execute(
            pgsql.SQL("SELECT row_key, from_state, to_state FROM {} ORDER BY id").format(history)
        ).fetchall()
        key = dict(zip(bound.key, (7, "it's"), strict=True))
        assert rows == [(key, None, start), (key, start, then)]
        pwned = admin.execute("SELECT count(*) FROM pg_class WHERE relname = 'pwned'").fetchone()
        assert pwned == (0,)


@settings(max_examples=fuzz_examples(scaled(100, 10)), deadline=None)
@given(binding=bindings())
def test_hostile_names_stay_names_in_sqlite(binding: SqlBinding) -> None:
    spec = document_at(1).spec
    life_start = spec.initial_states[0]
    life_then = next(t.to_state for t in spec.transitions if t.from_state == life_start)
    db = sqlite3.connect(":memory:", isolation_level=None)
    q = [
        f'"{n.replace(chr(34), chr(34) * 2)}"'
        for n in (binding.table, *binding.key, binding.column)
    ]
    folded = {n.casefold() for n in (binding.column, *binding.key)}  # SQLite folds ASCII
    assume(len(folded) == 3 and binding.table.casefold() != history_name(binding).casefold())
    db.execute(f"CREATE TABLE {q[0]} ({q[1]} INTEGER, {q[2]} TEXT, {q[3]} TEXT)")
    db.executescript(render(document_at(1), binding, "statedoc", kind="sqlite"))
    db.execute(f"INSERT INTO {q[0]} ({q[1]}, {q[2]}, {q[3]}) VALUES (7, 'it''s', ?)", (life_start,))
    db.execute(f"UPDATE {q[0]} SET {q[3]} = ?", (life_then,))
    history = history_name(binding).replace('"', '""')
    rows = db.execute(
        f'SELECT row_key, from_state, to_state FROM "{history}" ORDER BY id'
    ).fetchall()
    key = dict(zip(binding.key, (7, "it's"), strict=True))
    assert [(json.loads(r[0]), r[1], r[2]) for r in rows] == [
        (key, None, life_start),
        (key, life_start, life_then),
    ]
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_schema")}
    assert "pwned" not in names

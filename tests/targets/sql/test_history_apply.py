"""Issue 25 section 1: the history is idempotent, upgraded in place, and refused where it
would be wrong, on a real PostgreSQL.

Applying the file twice changes nothing (catalog, comments, privileges, rows); revision 2
over revision 1 keeps every row and records the new revision from then on; history turned
on by a later revision starts empty. Before anything changes, the file refuses (SDT01) a key
column the table lacks, a relation under the history's name that the applier does not own or
that statedoc did not make for this spec, and an unqualified binding whose table is not in
the history's schema.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import sql as pgsql

from generator.targets.sql.history import DEFAULT_SCHEMA, history_table
from generator.targets.sql.settings import SqlBinding

from .catalog import catalog_snapshot
from .history import Recorded, document_at, recorded, render
from .lifecycle import Lifecycle
from .postgres import Databases, apply_file, login_role

#: Privileges of every relation and function outside the system schemas.
ACLS = """
SELECT 'relation', c.oid::regclass::text, c.relacl::text FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'function', p.oid::regprocedure::text, p.proacl::text FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname !~ '^(pg_|information_schema$)'
"""


def state(g: Recorded, rows: bool = True) -> tuple[Any, ...]:
    """The catalog, every privilege and (with ``rows``) the history rows."""
    acls = {tuple(r) for r in g.admin.execute(ACLS).fetchall()}
    return (catalog_snapshot(g.admin), acls, g.rows() if rows else None)


def move(g: Recorded, row: int, states: list[str]) -> None:
    g.writer.execute(g.sql("INSERT INTO {app} (id, status) VALUES (%s, %s)"), (row, states[0]))
    for new in states[1:]:
        g.writer.execute(g.sql("UPDATE {app} SET status = %s WHERE id = %s"), (new, row))


def declared_path(life: Lifecycle) -> list[str]:
    first = life.initial[0]
    return [first, next(b for a, b in life.declared if a == first)]


def test_applying_twice_changes_nothing(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    with recorded(databases, pg_dsn, lifecycle) as g:
        move(g, 1, declared_path(lifecycle))
        before = state(g)
        assert g.apply() is None
        assert state(g) == before


def test_a_later_revision_keeps_the_rows_and_records_its_own_revision(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    with recorded(databases, pg_dsn, lifecycle) as g:
        path = declared_path(lifecycle)
        move(g, 1, path)
        first = g.rows()
        assert g.apply(revision=2) is None
        move(g, 2, path)
        rows = g.rows()
        assert rows[: len(first)] == first
        assert [r["revision"] for r in rows] == [1] * len(first) + [2] * len(path)
        comment = g.admin.execute(
            "SELECT obj_description(%s::regclass, 'pg_class')", (g.history.as_string(None),)
        ).fetchone()
        assert comment is not None and "revision=2 " in comment[0]
        again = state(g)
        assert g.apply(revision=2) is None
        assert state(g) == again


def test_history_turned_on_by_a_later_revision_starts_empty(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    with recorded(databases, pg_dsn, lifecycle, apply=False) as g:
        plain = g.binding._replace(history=False)
        assert apply_file(g.owner, render(document_at(1), plain, g.sd)) is None
        move(g, 1, declared_path(lifecycle))
        exists = "SELECT to_regclass(%s)"
        assert g.admin.execute(exists, (g.history.as_string(None),)).fetchone() == (None,)
        assert g.apply(revision=2) is None
        assert g.rows() == []
        move(g, 2, declared_path(lifecycle))
        assert [r["row_key"] for r in g.rows()] == [{"id": 2}] * 2


def refused(g: Recorded, connection: Any, text: str) -> psycopg.Error:
    before = state(g, rows=False)
    error = apply_file(connection, text)
    assert error is not None
    assert state(g, rows=False) == before
    return error


def test_a_missing_key_column_is_refused_before_anything_changes(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    with recorded(databases, pg_dsn, lifecycle, apply=False, key=("id", "tenant")) as g:
        error = refused(g, g.owner, render(document_at(1), g.binding, g.sd))
        assert error.sqlstate == "SDT01" and '"tenant"' in str(error)


@pytest.mark.parametrize("made_by", ["another role", "the owner, without statedoc's comment"])
def test_a_relation_under_the_historys_name_is_refused(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases, made_by: str
) -> None:
    """Someone who may create tables in the schema could otherwise own the history (and
    rewrite it) by creating it first."""
    with recorded(databases, pg_dsn, lifecycle, apply=False) as g:
        fake = g.sql("CREATE TABLE {history} (id int)")
        if made_by == "another role":
            with login_role(g.admin, "squatter") as squatter:
                g.admin.execute(fake)
                g.admin.execute(
                    g.sql("ALTER TABLE {history} OWNER TO {}", pgsql.Identifier(squatter))
                )
                error = refused(g, g.owner, render(document_at(1), g.binding, g.sd))
                g.admin.execute(g.sql("DROP TABLE {history}"))
        else:
            g.owner.execute(fake)
            error = refused(g, g.owner, render(document_at(1), g.binding, g.sd))
        assert error.sqlstate == "SDT01" and "exists but is not a table owned by you" in str(error)


def test_a_superuser_does_not_take_over_a_history_someone_else_owns(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    with recorded(databases, pg_dsn, lifecycle) as g:
        error = refused(g, g.admin, render(document_at(2), g.binding, g.sd))
        assert error.sqlstate == "SDT01"


def test_an_unqualified_binding_keeps_its_history_in_the_default_schema(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    """A binding without a schema: the history is in ``public``, and the file refuses a
    bound table found elsewhere on the search_path."""
    with recorded(databases, pg_dsn, lifecycle, apply=False) as g:
        unqualified = SqlBinding("deliveries", "status", None, True)
        assert history_table(unqualified)[0] == DEFAULT_SCHEMA
        g.owner.execute(pgsql.SQL("SET search_path = {}").format(pgsql.Identifier(g.app)))
        error = refused(g, g.owner, render(document_at(1), unqualified, g.sd))
        assert error.sqlstate == "SDT01" and "not in the schema" in str(error)

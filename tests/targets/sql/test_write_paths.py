"""Issue 23: every way of writing a row goes through the generated triggers.

With the triggers applied, each write path PostgreSQL offers (COPY, upsert, MERGE, writable
CTEs, updatable views with and without CHECK OPTION, TRUNCATE then INSERT, foreign-key
cascades, server-side prepared statements, SQL functions) refuses exactly what a plain
UPDATE or INSERT refuses, with the same SQLSTATE, and leaves the row as it was; declared
transitions and initial rows pass through each of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import psycopg
import pytest
from psycopg import sql as pgsql

from generator.targets.sql.settings import SqlBinding

from .lifecycle import Lifecycle
from .postgres import (
    MISSING,
    Connection,
    Databases,
    apply_file,
    attempt,
    dsn_with,
    login_role,
    own_schemas,
    seed,
    sqlstate,
    stored,
    table_values,
)
from .verdicts import (
    FORBIDDEN,
    NOT_INITIAL,
    OK,
    UNDECLARED,
    UNKNOWN,
    expected_insert,
    expected_update,
)

SERVERS = ["pg_dsn", "pg_contrib_dsn"]
VIEWS = """
CREATE VIEW {app}.plain_view AS SELECT id, status FROM {app}.deliveries;
CREATE VIEW {app}.checked_view AS SELECT id, status FROM {app}.deliveries WHERE id > 0
  WITH CASCADED CHECK OPTION;
CREATE FUNCTION {app}.move(row_id int, target text) RETURNS void LANGUAGE sql
  AS $$ UPDATE {app}.deliveries SET status = target WHERE id = row_id $$;
"""


@dataclass
class Guarded:
    """A table bound to the spec (triggers applied), with views and a function over it.
    ``writer`` is an application role (no superuser, owns nothing) with just the rights
    each path needs; ``admin`` (superuser) seeds rows and reads them back."""

    admin: Connection
    writer: Connection
    life: Lifecycle
    app: str
    rows: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def table(self) -> pgsql.Composable:
        return pgsql.Identifier(self.app, "deliveries")

    def sql(self, text: str, *args: pgsql.Composable, **names: pgsql.Composable) -> pgsql.Composed:
        """``text`` with ``{app}`` (the test's schema) and any other placeholders filled."""
        return pgsql.SQL(text).format(*args, app=pgsql.Identifier(self.app), **names)

    def grant(self) -> None:
        """The writer's rights on every table and view of the schema (again after adding)."""
        role = pgsql.Identifier(str(self.writer.info.user))
        self.admin.execute(self.sql("GRANT USAGE ON SCHEMA {app} TO {}", role))
        self.admin.execute(
            self.sql(
                "GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA {app} "
                "TO {}",
                role,
            )
        )


@pytest.fixture(params=SERVERS, ids=lambda s: s.removesuffix("_dsn"))
def guarded(
    request: pytest.FixtureRequest, lifecycle: Lifecycle, databases: Databases
) -> Iterator[Guarded]:
    admin = databases(request.getfixturevalue(request.param))
    with (
        own_schemas(admin) as (app, sd),
        login_role(admin, "writer") as role,
        psycopg.connect(dsn_with(admin.info.dsn, user=role), autocommit=True) as writer,
    ):
        target = Guarded(admin, writer, lifecycle, app)
        admin.execute(target.sql("CREATE TABLE {app}.deliveries (id int PRIMARY KEY, status text)"))
        binding = SqlBinding("deliveries", "status", app)
        assert apply_file(admin, lifecycle.render(schema=sd, binding=binding)) is None
        admin.execute(VIEWS.format(app=pgsql.Identifier(app).as_string(None)))
        target.grant()
        yield target


def run(g: Guarded, query: pgsql.Composable, params: tuple[object, ...] = ()) -> str | None:
    """The SQLSTATE ``query`` fails with in its own transaction (None: it passed)."""
    return sqlstate(attempt(g.writer, query, params))


# --- update paths: (guarded, row, new state) -> SQLSTATE -------------------------------------


def plain_update(g: Guarded, row: int, new: str | None) -> str | None:
    return run(g, g.sql("UPDATE {app}.deliveries SET status = %s WHERE id = %s"), (new, row))


def upsert_set(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql(
        "INSERT INTO {app}.deliveries (id, status) VALUES (%s, %s) "
        "ON CONFLICT (id) DO UPDATE SET status = %s"
    )
    return run(g, query, (row, g.life.initial[0], new))


def merge_matched(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql(
        "MERGE INTO {app}.deliveries t USING (VALUES (%s::int, %s::text)) s(id, status) "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET status = s.status "
        "WHEN NOT MATCHED THEN INSERT (id, status) VALUES (s.id, s.status)"
    )
    return run(g, query, (row, new))


def cte_update(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql(
        "WITH u AS (UPDATE {app}.deliveries SET status = %s WHERE id = %s RETURNING *) "
        "SELECT count(*) FROM u"
    )
    return run(g, query, (new, row))


def view_update(g: Guarded, row: int, new: str | None) -> str | None:
    return run(g, g.sql("UPDATE {app}.plain_view SET status = %s WHERE id = %s"), (new, row))


def checked_view_update(g: Guarded, row: int, new: str | None) -> str | None:
    return run(g, g.sql("UPDATE {app}.checked_view SET status = %s WHERE id = %s"), (new, row))


def update_from(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql(
        "UPDATE {app}.deliveries t SET status = v.status "
        "FROM (VALUES (%s::int, %s::text)) v(id, status) WHERE t.id = v.id"
    )
    return run(g, query, (row, new))


def prepared_update(g: Guarded, row: int, new: str | None) -> str | None:
    """A server-side prepared statement, run often enough to get a generic plan."""
    query = g.sql("UPDATE {app}.deliveries SET status = %s WHERE id = %s")
    for _ in range(6):
        g.writer.execute(query, (g.life.initial[0], -1), prepare=True)  # no such row
    try:
        with g.writer.transaction():
            g.writer.execute(query, (new, row), prepare=True)
    except psycopg.Error as exc:
        return exc.sqlstate
    return None


def function_update(g: Guarded, row: int, new: str | None) -> str | None:
    return run(g, g.sql("SELECT {app}.move(%s, %s)"), (row, new))


UPDATE_PATHS: dict[str, Callable[[Guarded, int, str | None], str | None]] = {
    "INSERT ON CONFLICT DO UPDATE": upsert_set,
    "MERGE WHEN MATCHED": merge_matched,
    "writable CTE UPDATE": cte_update,
    "auto-updatable view": view_update,
    "view WITH CHECK OPTION": checked_view_update,
    "UPDATE FROM": update_from,
    "prepared statement": prepared_update,
    "SQL function": function_update,
}


def update_cases(life: Lifecycle) -> list[tuple[str, str | None]]:
    """(old, new): a declared pair, a forbidden one, an undeclared one, no state, NULL."""
    start = life.initial[0]
    return [
        life.declared[0],
        life.forbidden,
        life.undeclared,
        (start, life.not_a_state()),
        (start, None),
    ]


@pytest.mark.parametrize("path", list(UPDATE_PATHS))
def test_update_paths_refuse_what_a_plain_update_refuses(guarded: Guarded, path: str) -> None:
    g, through = guarded, UPDATE_PATHS[path]
    wants = set()
    for old, new in update_cases(g.life):
        baseline, row = next(g.rows), next(g.rows)
        seed(g.admin, g.table, baseline, old)
        seed(g.admin, g.table, row, old)
        want = plain_update(g, baseline, new)
        assert want == expected_update(g.life.module, old, new), (old, new)
        assert through(g, row, new) == want, (path, old, new)
        assert stored(g.admin, g.table, row) == (new if want is OK else old), (path, old, new)
        wants.add(want)
    assert wants == {OK, FORBIDDEN, UNDECLARED, UNKNOWN}


# --- insert paths: (guarded, row, state) -> SQLSTATE ------------------------------------------


def plain_insert(g: Guarded, row: int, new: str | None) -> str | None:
    return run(g, g.sql("INSERT INTO {app}.deliveries (id, status) VALUES (%s, %s)"), (row, new))


def copy_in(g: Guarded, row: int, new: str | None) -> str | None:
    statement = g.sql("COPY {app}.deliveries (id, status) FROM STDIN")
    try:
        with g.writer.transaction(), g.writer.cursor() as c, c.copy(statement) as copy:
            copy.write_row((row, new))
    except psycopg.Error as exc:
        return exc.sqlstate
    return None


def merge_not_matched(g: Guarded, row: int, new: str | None) -> str | None:
    return merge_matched(g, row, new)  # no such row yet: the INSERT branch


def cte_insert(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql(
        "WITH i AS (INSERT INTO {app}.deliveries (id, status) VALUES (%s, %s) RETURNING *) "
        "SELECT count(*) FROM i"
    )
    return run(g, query, (row, new))


def view_insert(g: Guarded, row: int, new: str | None) -> str | None:
    return run(g, g.sql("INSERT INTO {app}.plain_view (id, status) VALUES (%s, %s)"), (row, new))


def checked_view_insert(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql("INSERT INTO {app}.checked_view (id, status) VALUES (%s, %s)")
    return run(g, query, (row, new))


def insert_select(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql("INSERT INTO {app}.deliveries (id, status) SELECT %s::int, %s::text")
    return run(g, query, (row, new))


def upsert_nothing(g: Guarded, row: int, new: str | None) -> str | None:
    query = g.sql(
        "INSERT INTO {app}.deliveries (id, status) VALUES (%s, %s) ON CONFLICT DO NOTHING"
    )
    return run(g, query, (row, new))


def truncate_then_insert(g: Guarded, row: int, new: str | None) -> str | None:
    assert run(g, g.sql("TRUNCATE {app}.deliveries")) is None
    assert table_values(g.admin, g.table) == []
    return plain_insert(g, row, new)


INSERT_PATHS: dict[str, Callable[[Guarded, int, str | None], str | None]] = {
    "COPY FROM STDIN": copy_in,
    "MERGE WHEN NOT MATCHED": merge_not_matched,
    "writable CTE INSERT": cte_insert,
    "auto-updatable view": view_insert,
    "view WITH CHECK OPTION": checked_view_insert,
    "INSERT SELECT": insert_select,
    "INSERT ON CONFLICT DO NOTHING": upsert_nothing,
    "TRUNCATE then INSERT": truncate_then_insert,
}


@pytest.mark.parametrize("path", list(INSERT_PATHS))
def test_insert_paths_refuse_what_a_plain_insert_refuses(guarded: Guarded, path: str) -> None:
    g, through = guarded, INSERT_PATHS[path]
    wants = set()
    for new in (g.life.initial[0], g.life.not_initial, g.life.not_a_state(), None):
        baseline, row = next(g.rows), next(g.rows)
        want = plain_insert(g, baseline, new)
        assert want == expected_insert(g.life.module, new), new
        assert through(g, row, new) == want, (path, new)
        assert stored(g.admin, g.table, row) == (new if want is OK else MISSING), (path, new)
        wants.add(want)
    assert wants == {OK, NOT_INITIAL, UNKNOWN}


def test_one_refused_row_refuses_the_whole_statement(guarded: Guarded) -> None:
    """A multi-row UPDATE with one forbidden row changes no row at all."""
    g = guarded
    old, new = g.life.forbidden
    ok_from = next(a for a, b in g.life.declared if b == new)
    rows = [next(g.rows), next(g.rows), next(g.rows)]
    for row, state in zip(rows, (ok_from, old, ok_from), strict=True):
        seed(g.admin, g.table, row, state)
    query = g.sql("UPDATE {app}.deliveries SET status = %s WHERE id = ANY (%s)")
    assert run(g, query, (new, rows)) == expected_update(g.life.module, old, new)
    assert [stored(g.admin, g.table, r) for r in rows] == [ok_from, old, ok_from]


def test_foreign_key_cascades_go_through_the_trigger(guarded: Guarded) -> None:
    """ON UPDATE CASCADE / ON DELETE SET NULL write the column from inside PostgreSQL."""
    g = guarded
    start = g.life.initial[0]
    g.admin.execute(g.sql("CREATE TABLE {app}.states (name text PRIMARY KEY)"))
    with g.admin.cursor() as cursor:
        cursor.executemany(
            g.sql("INSERT INTO {app}.states VALUES (%s)"), [(s,) for s in g.life.states]
        )
    g.admin.execute(
        g.sql(
            "ALTER TABLE {app}.deliveries ADD FOREIGN KEY (status) REFERENCES {app}.states "
            "ON UPDATE CASCADE ON DELETE SET NULL"
        )
    )
    g.grant()
    row = next(g.rows)
    assert plain_insert(g, row, start) is None
    renamed = start.upper() if start.upper() != start else start + "_renamed"
    rename = g.sql("UPDATE {app}.states SET name = %s WHERE name = %s")
    assert run(g, rename, (renamed, start)) == UNKNOWN
    delete = g.sql("DELETE FROM {app}.states WHERE name = %s")
    assert run(g, delete, (start,)) == UNKNOWN
    assert stored(g.admin, g.table, row) == start
    unused = next(s for s in g.life.states if s != start)
    assert run(g, delete, (unused,)) is None  # no row refers to it: nothing cascades


def test_a_column_default_is_judged_like_a_value(guarded: Guarded) -> None:
    g = guarded
    g.admin.execute(
        g.sql(
            "ALTER TABLE {app}.deliveries ALTER COLUMN status SET DEFAULT {}",
            pgsql.Literal(g.life.not_initial),
        )
    )
    row = next(g.rows)
    query = g.sql("INSERT INTO {app}.deliveries (id) VALUES (%s)")
    assert run(g, query, (row,)) == expected_insert(g.life.module, g.life.not_initial)
    assert stored(g.admin, g.table, row) == MISSING


def _partitioned(g: Guarded, sd: str, key: str) -> psycopg.Error | None:
    """A second table, partitioned by ``key``: one partition for the initial state's
    rows, or for even ids, and a default one; then the file bound to it."""
    first: pgsql.Composable = pgsql.SQL("FOR VALUES IN ({})").format(
        pgsql.Literal(g.life.initial[0])
    )
    if key == "id":
        first = pgsql.SQL("FOR VALUES FROM (0) TO (1000)")
    g.admin.execute(
        g.sql(
            "CREATE TABLE {app}.parted (id int, status text, PRIMARY KEY ({key})) "
            "PARTITION BY {how}",
            key=pgsql.SQL("id, status" if key == "status" else "id"),
            how=pgsql.SQL("LIST (status)" if key == "status" else "RANGE (id)"),
        )
    )
    g.admin.execute(g.sql("CREATE TABLE {app}.part_a PARTITION OF {app}.parted {}", first))
    g.admin.execute(g.sql("CREATE TABLE {app}.part_b PARTITION OF {app}.parted DEFAULT"))
    binding = SqlBinding("parted", "status", g.app)
    error = apply_file(g.admin, g.life.render(schema=f"{sd}_parted", binding=binding))
    g.grant()
    return error


@pytest.mark.parametrize("key", ["id", "status"])
def test_partitioned_tables_are_guarded_in_every_partition(guarded: Guarded, key: str) -> None:
    """Partitioned by another column, a row never moves: each partition (one attached
    after the file too) carries the triggers. Partitioned by the state column, a change
    of state moves the row, which PostgreSQL runs as an INSERT into the new partition: the
    file must then either refuse the binding (SDT01) or still let a declared step pass."""
    g = guarded
    error = _partitioned(g, g.app.replace("app_", "sd_"), key)
    if key == "status" and sqlstate(error) == "SDT01":
        return  # refused when applied: nothing to guard wrongly
    assert error is None, error
    parent = pgsql.Identifier(g.app, "parted")
    (old, new), (bad_old, bad_new) = g.life.declared[0], g.life.forbidden
    assert run(g, pgsql.SQL("INSERT INTO {} VALUES (1, %s)").format(parent), (old,)) is None
    update = pgsql.SQL("UPDATE {} SET status = %s WHERE id = %s")
    assert run(g, update.format(parent), (new, 1)) is None  # declared: passes, moving or not
    for partition in ("part_a", "part_b"):
        table = pgsql.Identifier(g.app, partition)
        insert = pgsql.SQL("INSERT INTO {} VALUES (%s, %s)").format(table)
        refused = run(g, insert, (500, g.life.not_initial))  # before any partition check
        assert refused == NOT_INITIAL, (partition, refused)
    if key == "id":
        later = (
            "CREATE TABLE {app}.part_c PARTITION OF {app}.parted FOR VALUES FROM (1000) TO (2000)"
        )
        g.admin.execute(g.sql(later))
        g.grant()
    row = 1500 if key == "id" else 2
    seed(g.admin, parent, row, bad_old)
    assert run(g, update.format(parent), (bad_new, row)) == FORBIDDEN
    assert stored(g.admin, parent, row) == bad_old

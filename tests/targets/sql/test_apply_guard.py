"""Applying a ``.postgresql.sql`` file where it would do harm is refused and changes nothing.

On a real server, with the real ``psql`` where the claim is about ``psql -f``: a missing table
or column, a relation that is not a table, a schema owned by a role the applier is not a member
of (``SDT01``), and an older revision over a newer one (``SDR01``, unless the session sets
``statedoc.allow_downgrade``). The file is one transaction, so even plain ``psql -f`` (which
goes on after an error) leaves the catalog exactly as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql as pgsql

from .cases import Case, bound_config, cases, lint_document
from .catalog import catalog_snapshot
from .postgres import dsn_with, psql_file


def snapshot(pg: Any) -> set[tuple[str, str, str | None]]:
    """Every object outside the system schemas, and each schema's owner."""
    owners = {
        ("owner", n, o)
        for n, o in pg.execute(
            "SELECT nspname, nspowner::regrole::text FROM pg_namespace"
        ).fetchall()
    }
    return catalog_snapshot(pg) | owners


def door(tmp_path: Path, revision: int, states: list[str]) -> Case:
    from ..test_generate_support import spec_text

    path = tmp_path / f"door{revision}.md"
    transitions = [{"from": "closed", "to": s, "trigger": "t"} for s in states if s != "closed"]
    path.write_text(spec_text(states, transitions, revision=revision), encoding="utf-8")
    document = lint_document(path, "specs/door.md")
    return cases([document], bound_config([document]), tmp_path / f"m{revision}")[0]


def dsn_of(pg: Any, **changes: str) -> str:
    info = pg.info
    dsn = f"host={info.host} port={info.port} user={info.user} dbname={info.dbname}"
    return dsn_with(dsn, **changes)


def refused(pg: Any, text: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as caught:
        pg.execute(text)
    pg.execute("ROLLBACK")  # the file's own transaction is left aborted
    return caught.value


def test_a_missing_table_is_refused_before_anything_changes(pg: Any, tmp_path: Path) -> None:
    case = door(tmp_path, 1, ["closed", "open"])
    before = snapshot(pg)
    error = refused(pg, case.postgresql)
    assert error.sqlstate == "SDT01"
    assert 'the table "t0" does not exist' in str(error)
    assert "create the table first" in (error.diag.message_hint or "")
    assert snapshot(pg) == before  # not even the schema


@pytest.mark.parametrize(
    ("create", "words"),
    [
        ("CREATE TABLE t0 (id int PRIMARY KEY, status text)", 'has no column "state"'),
        ("CREATE TABLE t0 (id int PRIMARY KEY)", 'has no column "state"'),
        ("CREATE VIEW t0 AS SELECT 1 AS id, 'closed'::text AS state", "is not a table"),
        ("CREATE TABLE t0 (id int PRIMARY KEY, state char(12))", "is character(n)"),
        (
            "CREATE DOMAIN padded AS char(12); CREATE TABLE t0 (id int, state padded)",
            "is character(n)",
        ),
    ],
)
def test_a_binding_that_cannot_be_guarded_is_refused(
    pg: Any, tmp_path: Path, create: str, words: str
) -> None:
    case = door(tmp_path, 1, ["closed", "open"])
    pg.execute(create)
    before = snapshot(pg)
    error = refused(pg, case.postgresql)
    assert error.sqlstate == "SDT01", error
    assert words in str(error)
    assert snapshot(pg) == before


def test_an_older_revision_over_a_newer_one_changes_nothing(pg: Any, tmp_path: Path) -> None:
    one = door(tmp_path, 1, ["closed", "open"])
    two = door(tmp_path, 2, ["closed", "open", "locked"])
    pg.execute("CREATE TABLE t0 (id int PRIMARY KEY, state text)")
    pg.execute(two.postgresql)
    installed = snapshot(pg)
    file = tmp_path / "one.sql"
    file.write_text(one.postgresql, encoding="utf-8")
    done = psql_file(dsn_of(pg), file, stop_on_error=False)  # plain psql -f goes on
    assert "the database holds spec STATE-TST-GEN-001 revision 2" in done.stderr, done.stderr
    assert snapshot(pg) == installed  # plain psql -f went on, and nothing changed
    pg.execute("INSERT INTO t0 VALUES (1, 'closed')")
    pg.execute("UPDATE t0 SET state = 'locked' WHERE id = 1")  # revision 2 still enforces

    downgrade = dsn_of(pg, options="-c statedoc.allow_downgrade=on")
    done = psql_file(downgrade, file, stop_on_error=True)  # revision 1 would strand the row
    assert "SDM01" in done.stderr and "1 row(s) hold 'locked'" in done.stderr, done.stderr
    assert snapshot(pg) == installed
    pg.execute("DELETE FROM t0")
    done = psql_file(downgrade, file, stop_on_error=True)
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stderr, done.stderr
    comment = pg.execute(
        "SELECT obj_description('statedoc.door_state'::regtype, 'pg_type')"
    ).fetchone()[0]
    assert comment.startswith("statedoc spec=STATE-TST-GEN-001 revision=1 ")


def test_the_same_or_a_newer_revision_applies(pg: Any, tmp_path: Path) -> None:
    one = door(tmp_path, 1, ["closed", "open"])
    two = door(tmp_path, 2, ["closed", "open", "locked"])
    pg.execute("CREATE TABLE t0 (id int PRIMARY KEY, state text)")
    for text in (one.postgresql, one.postgresql, two.postgresql, two.postgresql):
        pg.execute(text)
    comment = pg.execute(
        "SELECT obj_description('statedoc.door_state'::regtype, 'pg_type')"
    ).fetchone()[0]
    assert comment.startswith("statedoc spec=STATE-TST-GEN-001 revision=2 ")


def test_another_specs_objects_under_the_same_names_are_not_replaced(
    pg: Any, tmp_path: Path
) -> None:
    case = door(tmp_path, 1, ["closed", "open"])
    pg.execute("CREATE TABLE t0 (id int PRIMARY KEY, state text)")
    pg.execute(case.postgresql.replace("STATE-TST-GEN-001", "STATE-TST-GEN-999"))
    before = snapshot(pg)
    error = refused(pg, case.postgresql)
    assert error.sqlstate == "SDR01"
    assert "holds spec STATE-TST-GEN-999 revision 1" in str(error)
    assert snapshot(pg) == before


def test_a_schema_owned_by_another_role_is_refused(pg: Any, tmp_path: Path) -> None:
    """Whoever owns the schema can drop the guard's functions: the applier must be that role
    (or a member of it), not a writer who created the schema first."""
    case = door(tmp_path, 1, ["closed", "open"])
    name, applier = f"owner_{pg.info.dbname}", f"applier_{pg.info.dbname}"
    pg.execute(pgsql.SQL("CREATE ROLE {}").format(pgsql.Identifier(name)))
    pg.execute(pgsql.SQL("CREATE ROLE {}").format(pgsql.Identifier(applier)))
    try:
        pg.execute("CREATE TABLE t0 (id int PRIMARY KEY, state text)")
        pg.execute(
            pgsql.SQL("CREATE SCHEMA statedoc AUTHORIZATION {}").format(pgsql.Identifier(name))
        )
        pg.execute(pgsql.SQL("GRANT ALL ON SCHEMA statedoc TO {}").format(pgsql.Identifier(name)))
        pg.execute(
            pgsql.SQL("GRANT CREATE ON SCHEMA statedoc TO {}").format(pgsql.Identifier(applier))
        )
        pg.execute(pgsql.SQL("ALTER TABLE t0 OWNER TO {}").format(pgsql.Identifier(applier)))
        pg.execute(pgsql.SQL("SET ROLE {}").format(pgsql.Identifier(applier)))
        before = snapshot(pg)
        error = refused(pg, case.postgresql)
        assert error.sqlstate == "SDT01", error
        assert "is owned by a role you are not a member of" in str(error)
        pg.execute("RESET ROLE")
        assert snapshot(pg) == before
    finally:
        pg.execute("RESET ROLE")
        roles = pgsql.SQL(", ").join([pgsql.Identifier(name), pgsql.Identifier(applier)])
        pg.execute(pgsql.SQL("DROP OWNED BY {}").format(roles))
        pg.execute(pgsql.SQL("DROP ROLE {}").format(roles))

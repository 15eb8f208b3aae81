"""Issue 25 section 1 on a real PostgreSQL: the database writes the history itself.

Every INSERT and every state change of the bound table is recorded in the writer's own
transaction, with the writer's role, application_name, transaction id and the spec revision
in force; a write that rolls back leaves no history; nobody but the owner may change the
history, and its trigger refuses UPDATE, DELETE and TRUNCATE even to the owner; the writer
cannot attach the SECURITY DEFINER recorder to a table of its own; COPY, upsert and MERGE are
recorded like plain statements. Expected rows are computed from the writes the test makes and
the spec (the generated Python module), never typed in.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql as pgsql

from generator.targets.sql.history import KIND_INSERT, KIND_UPDATE
from generator.targets.sql.plan import Names

from .history import Recorded, document_at, recorded
from .lifecycle import Lifecycle
from .postgres import Databases, attempt, login_role, seed, sqlstate

INSUFFICIENT_PRIVILEGE = "42501"
APPEND_ONLY = "SDH01"


@pytest.fixture
def g(pg_dsn: str, lifecycle: Lifecycle, databases: Databases) -> Iterator[Recorded]:
    with recorded(databases, pg_dsn, lifecycle) as target:
        yield target


def walk(life: Lifecycle, length: int) -> list[str]:
    """A path of declared transitions from an initial state (as long as the spec allows)."""
    path = [life.initial[0]]
    while len(path) < length:
        nexts = [b for a, b in life.declared if a == path[-1]]
        if not nexts:
            break
        path.append(nexts[0])
    return path


def expected_row(
    g: Recorded, row: int, old: str | None, new: str, who: str, app: str, tx: str
) -> dict[str, Any]:
    return {
        "row_key": {"id": row},
        "from_state": old,
        "to_state": new,
        "changed_by": who,
        "application_name": app,
        "transaction_id": tx,
        "revision": document_at(1).spec.revision,
        "kind": KIND_INSERT if old is None else KIND_UPDATE,
    }


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("id", "changed_at")} for r in rows]


def write(g: Recorded, query: str, params: tuple[object, ...] = ()) -> str:
    """Run ``query`` as the writer in one transaction; that transaction's id."""
    with g.writer.transaction():
        g.writer.execute(g.sql(query), params or None)
        row = g.writer.execute("SELECT pg_current_xact_id()::text").fetchone()
    assert row is not None
    return str(row[0])


def test_every_insert_and_state_change_is_recorded_with_the_writers_facts(g: Recorded) -> None:
    path = walk(g.life, 4)
    assert len(path) >= 3  # the spec has a path long enough to show from -> to
    who = str(g.writer.info.user)
    g.writer.execute("SET application_name = 'billing worker'")
    expected = []
    tx = write(g, "INSERT INTO {app} (id, status) VALUES (1, %s)", (path[0],))
    expected.append(expected_row(g, 1, None, path[0], who, "billing worker", tx))
    for old, new in itertools.pairwise(path):
        tx = write(g, "UPDATE {app} SET status = %s WHERE id = 1", (new,))
        expected.append(expected_row(g, 1, old, new, who, "billing worker", tx))
    rows = g.rows()
    assert comparable(rows) == expected
    times = [r["changed_at"] for r in rows]
    assert times == sorted(times) and len(set(times)) == len(times)


def test_set_role_is_recorded_as_the_role_in_force(g: Recorded) -> None:
    """Inside the SECURITY DEFINER recorder current_user is its owner: the recorder reads the
    role the session set, so a login role acting as the writer is recorded as the writer."""
    writer = str(g.writer.info.user)
    with login_role(g.admin, "login") as login:
        g.admin.execute(
            pgsql.SQL("GRANT {} TO {}").format(pgsql.Identifier(writer), pgsql.Identifier(login))
        )
        dsn = g.admin.info.dsn.replace(f"user={g.admin.info.user}", f"user={login}")
        with psycopg.connect(dsn, autocommit=True) as session:
            session.execute(pgsql.SQL("SET ROLE {}").format(pgsql.Identifier(writer)))
            session.execute(
                g.sql("INSERT INTO {app} (id, status) VALUES (7, %s)"), (g.life.initial[0],)
            )
            session.execute("RESET ROLE")
    assert [r["changed_by"] for r in g.rows()] == [writer]


def test_writes_that_change_no_state_are_not_recorded(g: Recorded) -> None:
    start = g.life.initial[0]
    write(g, "INSERT INTO {app} (id, status) VALUES (1, %s)", (start,))
    before = g.rows()
    write(g, "UPDATE {app} SET status = status WHERE id = 1")
    write(g, "UPDATE {app} SET payload = 'x' WHERE id = 1")
    write(g, "UPDATE {app} SET status = %s, payload = 'y' WHERE id = 1", (start,))
    assert g.rows() == before


def test_rolled_back_and_refused_writes_leave_no_history(g: Recorded) -> None:
    start, (a, b) = g.life.initial[0], g.life.forbidden
    with pytest.raises(psycopg.errors.RaiseException), g.writer.transaction():
        g.writer.execute(g.sql("INSERT INTO {app} (id, status) VALUES (1, %s)"), (start,))
        g.writer.execute("DO $$ BEGIN RAISE 'give up'; END $$")
    assert g.rows() == []
    with g.writer.transaction(force_rollback=True):
        g.writer.execute(g.sql("INSERT INTO {app} (id, status) VALUES (2, %s)"), (start,))
    assert g.rows() == []
    seed(g.admin, g.table, 3, a)  # behind every trigger's back: not recorded
    seeded = g.rows()
    error = attempt(g.writer, g.sql("UPDATE {app} SET status = %s WHERE id = 3"), (b,))
    assert sqlstate(error) == "SDF01" and g.rows() == seeded


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO {history} (row_key, to_state, changed_at, changed_by, revision, kind) "
        "VALUES ('{{}}', 'x', now(), 'me', 1, 'insert')",
        "UPDATE {history} SET to_state = 'x'",
        "DELETE FROM {history}",
        "TRUNCATE {history}",
        "SELECT * FROM {history}",
    ],
)
def test_a_writer_may_not_touch_the_history_even_after_a_grant(g: Recorded, statement: str) -> None:
    """The writer holds no privilege on the history: default privileges and explicit grants
    (also column grants) are revoked again by the next apply."""
    write(g, "INSERT INTO {app} (id, status) VALUES (1, %s)", (g.life.initial[0],))
    writer = pgsql.Identifier(str(g.writer.info.user))
    g.owner.execute(g.sql("GRANT USAGE ON SCHEMA {} TO {}", pgsql.Identifier(g.app), writer))
    g.owner.execute(g.sql("GRANT ALL ON {history} TO {}", writer))
    g.owner.execute(g.sql("GRANT UPDATE (to_state), INSERT (kind) ON {history} TO {}", writer))
    assert g.apply() is None
    error = attempt(g.writer, g.sql(statement))
    if statement.startswith("SELECT"):
        assert error is None  # reading was granted and stays: only writes are revoked
    else:
        assert sqlstate(error) == INSUFFICIENT_PRIVILEGE, error
    assert len(g.rows()) == 1


def test_default_privileges_do_not_make_a_new_history_writable(
    pg_dsn: str, lifecycle: Lifecycle, databases: Databases
) -> None:
    with recorded(databases, pg_dsn, lifecycle, apply=False) as g:
        writer = pgsql.Identifier(str(g.writer.info.user))
        g.owner.execute(
            g.sql(
                "ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT ALL ON TABLES TO {}",
                pgsql.Identifier(g.app),
                writer,
            )
        )
        g.owner.execute(g.sql("ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO {}", writer))
        assert g.apply() is None
        for statement in ("UPDATE {history} SET kind = 'x'", "DELETE FROM {history}"):
            assert sqlstate(attempt(g.writer, g.sql(statement))) == INSUFFICIENT_PRIVILEGE


@pytest.mark.parametrize(
    "statement",
    ["UPDATE {history} SET to_state = 'x'", "DELETE FROM {history}", "TRUNCATE {history}"],
)
def test_the_append_only_trigger_refuses_even_the_owner(g: Recorded, statement: str) -> None:
    write(g, "INSERT INTO {app} (id, status) VALUES (1, %s)", (g.life.initial[0],))
    before = g.rows()
    error = attempt(g.owner, g.sql(statement))
    assert sqlstate(error) == APPEND_ONLY, error
    assert g.rows() == before


def test_a_writer_cannot_attach_the_recorder_to_its_own_table(g: Recorded) -> None:
    """A role that could execute the SECURITY DEFINER recorder could write made-up history
    rows through a trigger on a table of its own."""
    recorder = pgsql.Identifier(g.sd, Names.for_spec(g.life.document.spec).history_function)
    g.writer.execute("CREATE TEMP TABLE mine (id int, status text)")
    error = attempt(
        g.writer,
        pgsql.SQL(
            "CREATE TRIGGER forge AFTER INSERT ON mine FOR EACH ROW EXECUTE FUNCTION {}()"
        ).format(recorder),
    )
    g.writer.execute("DROP TABLE mine")  # before the role is dropped
    assert sqlstate(error) == INSUFFICIENT_PRIVILEGE, error


def test_copy_upsert_and_merge_are_recorded(g: Recorded) -> None:
    a, b = g.life.declared[0]
    start = g.life.initial[0]
    with (
        g.writer.transaction(),
        g.writer.cursor().copy(g.sql("COPY {app} (id, status) FROM STDIN")) as copy,
    ):
        copy.write_row((1, start))
        copy.write_row((2, start))
    seed(g.admin, g.table, 3, a)  # behind every trigger's back: not recorded
    seed(g.admin, g.table, 4, a)
    upsert = (
        "INSERT INTO {app} (id, status) VALUES (%s, %s) ON CONFLICT (id) DO UPDATE SET status = %s"
    )
    write(g, upsert, (3, start, b))  # an update
    write(g, upsert, (5, start, b))  # an insert
    merge = (
        "MERGE INTO {app} t USING (VALUES (%s::int, %s::text)) s(id, status) ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET status = s.status "
        "WHEN NOT MATCHED THEN INSERT (id, status) VALUES (s.id, s.status)"
    )
    write(g, merge, (4, b))  # an update
    write(g, merge, (6, start))  # an insert
    got = [(r["row_key"]["id"], r["from_state"], r["to_state"], r["kind"]) for r in g.rows()]
    assert got == [
        (1, None, start, KIND_INSERT),
        (2, None, start, KIND_INSERT),
        (3, a, b, KIND_UPDATE),
        (5, None, start, KIND_INSERT),
        (4, a, b, KIND_UPDATE),
        (6, None, start, KIND_INSERT),
    ]


def test_an_audit_role_with_select_only_reads_the_history(g: Recorded) -> None:
    """What the README lists for an audit role is enough to read, and not to write."""
    write(g, "INSERT INTO {app} (id, status) VALUES (1, %s)", (g.life.initial[0],))
    with login_role(g.admin, "audit") as audit:
        role = pgsql.Identifier(audit)
        g.owner.execute(g.sql("GRANT USAGE ON SCHEMA {} TO {}", pgsql.Identifier(g.app), role))
        g.owner.execute(g.sql("GRANT SELECT ON {history} TO {}", role))
        assert g.apply() is None  # a later apply keeps the grant: SELECT is no write
        dsn = g.admin.info.dsn.replace(f"user={g.admin.info.user}", f"user={audit}")
        with psycopg.connect(dsn, autocommit=True) as reader:
            read = reader.execute(g.sql("SELECT to_state FROM {history}")).fetchall()
            assert read == [(g.life.initial[0],)]
            denied = attempt(reader, g.sql("DELETE FROM {history}"))
            assert sqlstate(denied) == INSUFFICIENT_PRIVILEGE

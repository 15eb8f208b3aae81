"""Issue 25 section 1 on SQLite: the generated triggers write the history themselves.

Every INSERT and state change is recorded (key as JSON, from, to, an ISO 8601 UTC time, the
revision; SQLite has no roles, sessions or transaction ids, so those columns are NULL), an
unchanged state is not, a rolled-back write leaves nothing, UPDATE and DELETE of the history
are refused, applying twice changes nothing, revision 2 keeps the rows, and a missing key
column makes the file fail before it changes anything.
"""

from __future__ import annotations

import datetime
import itertools
import json
import sqlite3
from typing import Any

import pytest

from generator.targets.sql.history import COLUMNS, KIND_INSERT, KIND_UPDATE, history_name
from generator.targets.sql.settings import SqlBinding

from .history import document_at, render
from .lifecycle import Lifecycle
from .pairs import sqlite_connection

BINDING = SqlBinding("deliveries", "status", None, True, ("tenant", "id"))
HISTORY = history_name(BINDING)


def sqlite_file(revision: int = 1, binding: SqlBinding = BINDING) -> str:
    return render(document_at(revision), binding, "statedoc", kind="sqlite")


@pytest.fixture
def db() -> sqlite3.Connection:
    connection = sqlite_connection()
    connection.execute(
        "CREATE TABLE deliveries (tenant TEXT, id INTEGER, status TEXT, payload TEXT, "
        "PRIMARY KEY (tenant, id))"
    )
    connection.executescript(sqlite_file())
    return connection


def rows(db: sqlite3.Connection) -> list[dict[str, Any]]:
    cursor = db.execute(f'SELECT {", ".join(COLUMNS)} FROM "{HISTORY}" ORDER BY id')
    return [dict(zip(COLUMNS, r, strict=True)) for r in cursor.fetchall()]


def path(life: Lifecycle) -> list[str]:
    states = [life.initial[0]]
    while len(states) < 3:
        nexts = [b for a, b in life.declared if a == states[-1]]
        if not nexts:
            break
        states.append(nexts[0])
    return states


def test_every_insert_and_state_change_is_recorded(
    db: sqlite3.Connection, lifecycle: Lifecycle
) -> None:
    states = path(lifecycle)
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    db.execute("INSERT INTO deliveries (tenant, id, status) VALUES ('acme', 1, ?)", (states[0],))
    for new in states[1:]:
        db.execute("UPDATE deliveries SET status = ? WHERE id = 1", (new,))
    db.execute("UPDATE deliveries SET payload = 'x', status = status WHERE id = 1")  # no change
    got = rows(db)
    revision = document_at(1).spec.revision
    pairs = [(None, states[0]), *itertools.pairwise(states)]
    assert [
        (json.loads(r["row_key"]), r["from_state"], r["to_state"], r["revision"], r["kind"])
        for r in got
    ] == [
        ({"tenant": "acme", "id": 1}, a, b, revision, KIND_INSERT if a is None else KIND_UPDATE)
        for a, b in pairs
    ]
    assert all(
        r[c] is None for r in got for c in ("changed_by", "application_name", "transaction_id")
    )
    for r in got:
        at = datetime.datetime.fromisoformat(r["changed_at"].replace("Z", "+00:00"))
        assert before <= at <= datetime.datetime.now(datetime.UTC)


def test_a_rolled_back_write_leaves_no_history(
    db: sqlite3.Connection, lifecycle: Lifecycle
) -> None:
    db.execute("BEGIN")
    db.execute(
        "INSERT INTO deliveries (tenant, id, status) VALUES ('a', 1, ?)", (lifecycle.initial[0],)
    )
    db.execute("ROLLBACK")
    start = lifecycle.initial[0]
    b = next(s for s in lifecycle.states if s != start and (start, s) not in lifecycle.declared)
    db.execute(
        "INSERT INTO deliveries (tenant, id, status) VALUES ('a', 2, ?)", (lifecycle.initial[0],)
    )
    before = rows(db)
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("UPDATE deliveries SET status = ? WHERE id = 2", (b,))
    assert rows(db) == before and len(before) == 1


@pytest.mark.parametrize(
    "statement", [f"UPDATE \"{HISTORY}\" SET kind = 'x'", f'DELETE FROM "{HISTORY}"']
)
def test_the_history_refuses_update_and_delete(
    db: sqlite3.Connection, lifecycle: Lifecycle, statement: str
) -> None:
    db.execute(
        "INSERT INTO deliveries (tenant, id, status) VALUES ('a', 1, ?)", (lifecycle.initial[0],)
    )
    before = rows(db)
    with pytest.raises(sqlite3.IntegrityError, match="append-only history"):
        db.execute(statement)
    assert rows(db) == before


def schema_of(db: sqlite3.Connection) -> list[tuple[str, ...]]:
    return db.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY name").fetchall()


def test_applying_again_or_a_later_revision_keeps_the_rows(
    db: sqlite3.Connection, lifecycle: Lifecycle
) -> None:
    db.execute(
        "INSERT INTO deliveries (tenant, id, status) VALUES ('a', 1, ?)", (lifecycle.initial[0],)
    )
    before, schema = rows(db), schema_of(db)
    db.executescript(sqlite_file())
    assert (rows(db), schema_of(db)) == (before, schema)
    db.executescript(sqlite_file(revision=2))
    db.execute(
        "INSERT INTO deliveries (tenant, id, status) VALUES ('a', 2, ?)", (lifecycle.initial[0],)
    )
    assert [r["revision"] for r in rows(db)] == [1, 2]
    assert rows(db)[0] == before[0]


def test_a_missing_key_column_fails_before_anything_changes() -> None:
    db = sqlite_connection()
    db.execute("CREATE TABLE deliveries (id INTEGER PRIMARY KEY, status TEXT)")
    before = schema_of(db)
    with pytest.raises(sqlite3.OperationalError, match="tenant"):
        db.executescript(sqlite_file())
    assert schema_of(db) == before

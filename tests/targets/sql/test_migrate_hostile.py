"""Retired state names and whys that try every way out of a literal, an identifier or a
comment: the migration moves their rows on PostgreSQL and SQLite, and a refusal quotes them
back exactly."""

from __future__ import annotations

import sqlite3

import pytest
from psycopg import sql as pgsql

from ..test_generate_support import spec_text
from .cases import SQL_HOSTILE_STATES
from .migrate import SPEC_ID, Table, apply_script, document_of, sqlite_script
from .postgres import apply_file

#: With format() specifiers: a name in a format string would break the file (or worse).
HOSTILE = [s for s in SQL_HOSTILE_STATES if "\r" not in s] + ["%s %I %L %"]  # YAML folds CR
WHY = "why: it's $statedoc$ \\ \" -- x /* \n'); DROP TABLE items; --"


def _spec(revision: int, states: list[str], retired: list[dict[str, str]]) -> str:
    transitions = [{"from": "plain", "to": s, "trigger": f"go {i}"} for i, s in enumerate(states)]
    return spec_text(
        ["plain", *states],
        transitions,
        spec_id=SPEC_ID,
        module="migration",
        revision=revision,
        initial="plain",
        extra={"retired": retired} if retired else None,
    )


FIRST = _spec(1, HOSTILE, [])
SECOND = _spec(2, ["kept"], [{"state": s, "to": "kept", "why": WHY} for s in HOSTILE])


def test_hostile_names_are_valid_specs() -> None:
    assert len(document_of(SECOND).spec.retired) == len(HOSTILE)


def test_postgresql_moves_rows_of_hostile_states(table: Table) -> None:
    first = table.revision(FIRST)
    table.create()
    assert apply_file(table.admin, first.postgresql) is None
    insert = pgsql.SQL("INSERT INTO {} VALUES (%s, 'plain')").format(table.ident)
    for n, state in enumerate(HOSTILE):
        table.admin.execute(insert, (n,))
        assert table.update(n, state) is None
    assert apply_file(table.admin, table.revision(SECOND).postgresql) is None
    assert table.rows() == dict.fromkeys(range(len(HOSTILE)), "kept")


def test_postgresql_refusal_quotes_a_hostile_name_exactly(table: Table) -> None:
    name = "') OR true; --"
    first = table.revision(FIRST)
    table.create()
    assert apply_file(table.admin, first.postgresql) is None
    table.admin.execute(pgsql.SQL("INSERT INTO {} VALUES (0, 'plain')").format(table.ident))
    assert table.update(0, name) is None
    retired = [{"state": s, "why": WHY, **({} if s == name else {"to": "kept"})} for s in HOSTILE]
    before = table.snapshot()
    error = apply_file(table.admin, table.revision(_spec(2, ["kept"], retired)).postgresql)
    assert error is not None and error.sqlstate == "SDM01"
    quoted = "'" + name.replace("'", "''") + "'"  # as quote_literal writes it
    assert f"1 row(s) hold {quoted} (retired without a destination)" in str(error)
    assert table.snapshot() == before


@pytest.mark.parametrize("closed", [False, True], ids=["moved", "refused"])
def test_sqlite_moves_or_refuses_hostile_states(closed: bool) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, state TEXT NOT NULL)")
    db.executescript(sqlite_script(FIRST))
    for n, state in enumerate(HOSTILE):
        db.execute("INSERT INTO items VALUES (?, 'plain')", (n,))
        db.execute("UPDATE items SET state = ? WHERE id = ?", (state, n))
    last = HOSTILE[-1]
    retired = [
        {"state": s, "why": WHY, **({} if closed and s == last else {"to": "kept"})}
        for s in HOSTILE
    ]
    second = sqlite_script(_spec(2, ["kept"], retired))
    if closed:
        with pytest.raises(sqlite3.IntegrityError) as raised:
            apply_script(db, second)
        assert f"rows hold {last!r}, retired without a destination" in str(raised.value)
        assert dict(db.execute("SELECT id, state FROM items")) == dict(enumerate(HOSTILE))
    else:
        apply_script(db, second)
        assert dict(db.execute("SELECT id, state FROM items")) == dict.fromkeys(
            range(len(HOSTILE)), "kept"
        )

"""Every pair of states on a real database, compared with the generated Python module: the
table made and filled before the triggers exist, each UPDATE and INSERT tried, the SQLSTATE,
the message and the stored value checked (PostgreSQL through psycopg, SQLite from the stdlib)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis.stateful import RuleBasedStateMachine
from psycopg import sql as pgsql

from generator.targets.sql.names import message_text
from generator.targets.sql.testing import rejection, sql_state_machine_for

from .cases import Case
from .postgres import attempt
from .verdicts import (
    FORBIDDEN,
    NOT_INITIAL,
    OK,
    UNDECLARED,
    UNKNOWN,
    expected_insert,
    expected_update,
    probe_names,
)

# --- PostgreSQL ------------------------------------------------------------------------------


def setup_table(pg: Any, case: Case, rows: dict[int, str | None]) -> None:
    """Create the table and its rows before the trigger exists, then apply the SQL."""
    table = pgsql.Identifier(case.table)
    pg.execute(pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, state text)").format(table))
    with pg.cursor() as cursor:
        cursor.executemany(
            pgsql.SQL("INSERT INTO {} (id, state) VALUES (%s, %s)").format(table),
            list(rows.items()),
        )
    pg.execute(case.postgresql)


def check_all_pairs(pg: Any, case: Case) -> int:
    """UPDATE every (old, new) over the states and non-states; compare with the Python module."""
    names = probe_names(case.module)
    pairs = [(a, b) for a in names for b in names]
    setup_table(pg, case, {i: a for i, (a, _) in enumerate(pairs)})
    table = pgsql.Identifier(case.table)
    update = pgsql.SQL("UPDATE {} SET state = %s WHERE id = %s").format(table)
    select = pgsql.SQL("SELECT state FROM {} WHERE id = %s").format(table)
    why = {(i.from_state, i.to_state): i.why for i in case.spec.invalid}
    states = [s.value for s in case.module.State]
    for row, (old, new) in enumerate(pairs):
        error = attempt(pg, update, (new, row))
        want = expected_update(case.module, old, new)
        got = None if error is None else error.sqlstate
        assert got == want, (case.spec.id, old, new, error)
        stored = pg.execute(select, (row,)).fetchone()[0]
        assert stored == (new if want is OK else old)
        if error is not None:
            diag = error.diag
            assert diag.message_hint == f"spec {case.spec.id} revision {case.spec.revision}"
            primary = diag.message_primary or ""
            assert f"spec {case.spec.id} revision {case.spec.revision}" in primary
            (place, pair, value) = pg.execute(
                "SELECT format(' on %%I.%%I.%%I', current_schema(), %s::text, 'state'),"
                " format('%%L -> %%L', %s::text, %s::text), quote_nullable(%s::text)",
                (case.table, old, new, old if old not in states else new),
            ).fetchone()
            assert primary.endswith(place), primary  # the table and column
            if want in ("SDF01", "SDU01"):
                assert f" {pair}{place}" in primary, primary  # the pair
            else:
                assert f" {value} is not a state" in primary, primary  # the offending value
            if want == "SDF01":
                assert diag.message_detail == message_text(why[(old, new)])
    return len(pairs)


def check_inserts(pg: Any, case: Case) -> None:
    table = pgsql.Identifier(case.table)
    insert = pgsql.SQL("INSERT INTO {} (id, state) VALUES (%s, %s)").format(table)
    for row, name in enumerate(probe_names(case.module), start=10_000):
        error = attempt(pg, insert, (row, name))
        assert (None if error is None else error.sqlstate) == expected_insert(case.module, name)


# --- SQLite ----------------------------------------------------------------------------------


def sqlite_connection() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    return connection


def sqlite_setup(
    connection: sqlite3.Connection, case: Case, rows: Mapping[int, str | None]
) -> None:
    """Create the table, insert ``rows`` (before the triggers exist), apply the SQL."""
    assert case.sqlite is not None
    connection.execute(f'CREATE TABLE "{case.table}" (id INTEGER PRIMARY KEY, state TEXT)')
    connection.executemany(
        f'INSERT INTO "{case.table}" (id, state) VALUES (?, ?)', list(rows.items())
    )
    connection.executescript(case.sqlite)


def kind_of(error: sqlite3.Error) -> str:
    """The SQLSTATE PostgreSQL raises for the same refusal, read from SQLite's message."""
    kind = rejection(error)
    assert kind in (FORBIDDEN, UNDECLARED, UNKNOWN, NOT_INITIAL), str(error)
    return kind


def check_case(case: Case) -> None:
    names = probe_names(case.module)
    pairs = [(a, b) for a in names for b in names]
    connection = sqlite_connection()
    sqlite_setup(connection, case, {i: a for i, (a, _) in enumerate(pairs)})
    connection.executescript(case.sqlite or "")  # a second time: idempotent
    why = {(i.from_state, i.to_state): i.why for i in case.spec.invalid}
    table = f'"{case.table}"'
    for row, (old, new) in enumerate(pairs):
        want = expected_update(case.module, old, new)
        try:
            connection.execute(f"UPDATE {table} SET state = ? WHERE id = ?", (new, row))
            got = OK
        except sqlite3.IntegrityError as exc:
            message = str(exc)
            got = kind_of(exc)
            spec = f"statedoc: spec {case.spec.id} revision {case.spec.revision} "
            assert message.startswith(spec), message
            place = f" on {message_text(case.table)}.state"
            if got in (FORBIDDEN, UNDECLARED):
                assert f"{old!r} -> {new!r}{place}" in message, message
            else:
                assert place in message, message
            if got == FORBIDDEN:
                assert message.endswith(f"{place}: {message_text(why[(old, new)])}")
        assert got == want, (case.spec.id, old, new)
        (stored,) = connection.execute(f"SELECT state FROM {table} WHERE id = ?", (row,)).fetchone()
        assert stored == (new if want is OK else old)
    for row, name in enumerate(names, start=10_000):
        try:
            connection.execute(f"INSERT INTO {table} (id, state) VALUES (?, ?)", (row, name))
            got = OK
        except sqlite3.IntegrityError as exc:
            got = kind_of(exc)
        assert got == expected_insert(case.module, name), (case.spec.id, name)


def sqlite_machine(case: Case, script: str, database: Path) -> type[RuleBasedStateMachine]:
    """Random UPDATEs (:func:`sql_state_machine_for`) on the case's table in the file
    ``database``, made before ``script`` (the case's SQLite file, or a mutant of it) runs."""
    with sqlite3.connect(database) as setup:
        setup.execute(f'CREATE TABLE "{case.table}" (id INTEGER PRIMARY KEY, state TEXT)')
        setup.executescript(script)
    return sql_state_machine_for(
        case.module,
        lambda: sqlite3.connect(database, isolation_level=None),
        table=case.table,
        column="state",
        dialect="sqlite",
    )

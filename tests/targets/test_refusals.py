"""``from_database_error`` of the generated Python module on real refusals: every UPDATE
between the states and names that are not states, and every INSERT, on a real PostgreSQL
(psycopg) and on SQLite (the stdlib), for the repository's specs and hostile ones. Each
refusal must become the error the module itself raises for the same move (type, pair, why,
name and message), and anything else must stay the database's own error (``None``)."""

from __future__ import annotations

import sqlite3
from types import ModuleType
from typing import Any

import psycopg
import pytest
from psycopg import sql as pgsql

from .sql.cases import Case, bound_config, cases, hostile_documents, spec_documents
from .sql.pairs import sqlite_connection, sqlite_setup
from .sql.verdicts import probe_names


@pytest.fixture(scope="module")
def all_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    documents = spec_documents() + hostile_documents(tmp_path_factory.mktemp("hostile"))
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("modules"))


def expected_update(module: ModuleType, old: str | None, new: str | None) -> Exception | None:
    """What the module raises for the move the UPDATE tries (the triggers name the old value
    first when neither is a state); None when it passes."""
    names = {s.value for s in module.State}
    if old == new:
        return None
    for value in (old, new):
        if value not in names:
            return module.UnknownStateError(value)
    try:
        module.check(old, new)
    except module.TransitionError as exc:
        return exc
    return None


def expected_insert(module: ModuleType, new: str | None) -> Exception | None:
    if new not in {s.value for s in module.State}:
        return module.UnknownStateError(new)
    state = module.State(new)
    return None if state in module.INITIAL else module.InitialStateError(state)


def same(got: object, want: Exception, *, quoted: bool = True) -> None:
    """``got`` is the module's error ``want`` (``quoted``: the database named the value)."""
    assert type(got) is type(want), (got, want)
    for name in ("from_state", "to_state", "why"):
        assert getattr(got, name, None) == getattr(want, name, None), name
    if quoted:
        assert str(got) == str(want)
        assert getattr(got, "value", None) == getattr(want, "value", None)
        assert getattr(got, "state", None) == getattr(want, "state", None)
    else:  # SQLite cannot quote an unknown value, nor the state of a refused new row
        assert getattr(got, "value", None) is None and getattr(got, "state", None) is None


def attempt_pg(pg: Any, query: Any, params: tuple[object, ...]) -> psycopg.Error | None:
    try:
        with pg.transaction():
            pg.execute(query, params)
    except psycopg.Error as exc:
        return exc
    return None


def test_postgresql_refusals_become_the_module_errors(pg: Any, all_cases: list[Case]) -> None:
    refusals = 0
    for case in all_cases:
        module, names = case.module, probe_names(case.module)
        pairs = [(a, b) for a in names for b in names]
        table = pgsql.Identifier(case.table)
        pg.execute(pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, state text)").format(table))
        with pg.cursor() as cursor:
            insert = pgsql.SQL("INSERT INTO {} (id, state) VALUES (%s, %s)").format(table)
            cursor.executemany(insert, list(enumerate(a for a, _ in pairs)))
        pg.execute(case.postgresql)
        update = pgsql.SQL("UPDATE {} SET state = %s WHERE id = %s").format(table)
        for row, (old, new) in enumerate(pairs):
            error = attempt_pg(pg, update, (new, row))
            want = expected_update(module, old, new)
            if want is None:
                assert error is None, (old, new, error)
                continue
            assert error is not None, (old, new)
            same(module.from_database_error(error), want)
            refusals += 1
        for offset, new in enumerate(names):
            error = attempt_pg(pg, insert, (len(pairs) + offset, new))
            want = expected_insert(module, new)
            assert (error is None) == (want is None), (new, error)
            if want is not None:
                same(module.from_database_error(error), want)
                refusals += 1
    assert refusals > 100


def test_postgresql_errors_that_are_not_this_specs_refusals_stay(
    pg: Any, all_cases: list[Case]
) -> None:
    first, second = all_cases[0], all_cases[1]
    table = pgsql.Identifier(first.table)
    pg.execute(pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, state text)").format(table))
    pg.execute(first.postgresql)
    insert = pgsql.SQL("INSERT INTO {} (id, state) VALUES (%s, %s)").format(table)
    refused = attempt_pg(pg, insert, (1, "not a state"))
    assert refused is not None and refused.sqlstate == "SDS01"
    assert isinstance(first.module.from_database_error(refused), first.module.UnknownStateError)
    assert second.module.from_database_error(refused) is None  # another spec's refusal
    start = next(iter(first.module.INITIAL)).value
    assert attempt_pg(pg, insert, (1, start)) is None
    duplicate = attempt_pg(pg, insert, (1, start))
    assert duplicate is not None and duplicate.sqlstate == "23505"
    assert first.module.from_database_error(duplicate) is None
    assert first.module.from_database_error(ValueError("statedoc: nothing")) is None
    assert first.module.from_database_error(KeyError()) is None


def attempt_sqlite(
    connection: sqlite3.Connection, query: str, params: tuple[object, ...]
) -> sqlite3.Error | None:
    try:
        connection.execute(query, params)
    except sqlite3.Error as exc:
        return exc
    return None


def test_sqlite_refusals_become_the_module_errors(all_cases: list[Case]) -> None:
    refusals = 0
    for case in all_cases:
        if case.sqlite is None:
            continue
        module, names = case.module, probe_names(case.module)
        pairs = [(a, b) for a in names for b in names]
        connection = sqlite_connection()
        sqlite_setup(connection, case, {i: a for i, (a, _) in enumerate(pairs)})
        update = f'UPDATE "{case.table}" SET state = ? WHERE id = ?'
        for row, (old, new) in enumerate(pairs):
            error = attempt_sqlite(connection, update, (new, row))
            want = expected_update(module, old, new)
            if want is None:
                assert error is None, (old, new, error)
                continue
            assert error is not None, (old, new)
            got = module.from_database_error(error)
            if isinstance(want, module.UnknownStateError):
                same(got, want, quoted=False)
            else:
                same(got, want)
            refusals += 1
        insert = f'INSERT INTO "{case.table}" (id, state) VALUES (?, ?)'
        for offset, new in enumerate(names):
            error = attempt_sqlite(connection, insert, (len(pairs) + offset, new))
            want = expected_insert(module, new)
            assert (error is None) == (want is None), (new, error)
            if want is not None:
                same(module.from_database_error(error), want, quoted=False)
                refusals += 1
        unique = attempt_sqlite(connection, insert, (0, next(iter(module.INITIAL)).value))
        assert unique is not None and module.from_database_error(unique) is None
        connection.close()
    assert refusals > 100

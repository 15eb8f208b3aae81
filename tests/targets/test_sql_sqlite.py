"""Every spec in ``specs/`` (and hostile ones) generated for SQLite and executed with the
standard library's SQLite: all pairs of states, INSERT, idempotence, messages."""

from __future__ import annotations

import sqlite3

import pytest

from generator.targets.sql.names import message_text
from generator.targets.sql.testing import rejection

from .sql_support import (
    FORBIDDEN,
    NOT_INITIAL,
    OK,
    UNDECLARED,
    UNKNOWN,
    Case,
    bound_config,
    cases,
    expected_insert,
    expected_update,
    hostile_documents,
    probe_names,
    spec_documents,
    sqlite_connection,
    sqlite_setup,
)


@pytest.fixture(scope="module")
def all_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    documents = spec_documents() + hostile_documents(tmp_path_factory.mktemp("hostile"))
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("modules"))


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


def test_every_spec_and_hostile_spec_on_sqlite(all_cases: list[Case]) -> None:
    assert len(all_cases) > 2
    for case in all_cases:
        check_case(case)


def test_nocase_column_cannot_pass_a_case_changed_name(all_cases: list[Case]) -> None:
    case = all_cases[0]
    connection = sqlite_connection()
    connection.execute(
        f'CREATE TABLE "{case.table}" (id INTEGER PRIMARY KEY, state TEXT COLLATE NOCASE)'
    )
    connection.executescript(case.sqlite or "")
    initial = sorted(s.value for s in case.module.INITIAL)[0]
    assert initial.swapcase() != initial
    with pytest.raises(sqlite3.IntegrityError, match=r"not a state"):
        connection.execute(f'INSERT INTO "{case.table}" VALUES (1, ?)', (initial.swapcase(),))


def test_any_declared_state_may_start_when_configured(tmp_path: object) -> None:
    from pathlib import Path

    document = next(d for d in spec_documents() if d.spec.id == "STATE-PFM-QRY-011")
    config = bound_config([document], insert_must_be_initial=False)
    (case,) = cases([document], config, Path(str(tmp_path)))
    connection = sqlite_connection()
    sqlite_setup(connection, case, {})
    for row, name in enumerate(probe_names(case.module)):
        try:
            connection.execute(f'INSERT INTO "{case.table}" VALUES (?, ?)', (row, name))
            got = OK
        except sqlite3.IntegrityError as exc:
            got = kind_of(exc)
        assert got == expected_insert(case.module, name, must_be_initial=False), name

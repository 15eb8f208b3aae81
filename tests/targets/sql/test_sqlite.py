"""Every spec in ``specs/`` (and hostile ones) generated for SQLite and executed with the
standard library's SQLite: all pairs of states, INSERT, idempotence, messages."""

from __future__ import annotations

import sqlite3

import pytest

from .cases import Case, bound_config, cases, hostile_documents, spec_documents
from .pairs import check_case, kind_of, sqlite_connection, sqlite_setup
from .verdicts import (
    OK,
    expected_insert,
    probe_names,
)


@pytest.fixture(scope="module")
def all_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    documents = spec_documents() + hostile_documents(tmp_path_factory.mktemp("hostile"))
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("modules"))


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

"""Random text and random valid specs from :mod:`generator.testing.strategies` through the
SQL target, executed on the real servers."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.lint.document import lint_bytes
from generator.targets.sql.names import SqlError, pg_literal, sqlite_literal
from generator.testing.strategies import spec_documents, state_names, texts

from .cases import bound_config, cases
from .pairs import check_all_pairs, check_case, check_inserts

FEW = settings(
    max_examples=max(5, settings().max_examples // 10),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    deadline=None,
)


@pytest.fixture(scope="module")
def db(pg_dsn: str) -> Iterator[Any]:
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS random_specs")
        admin.execute("CREATE DATABASE random_specs")
    dsn = pg_dsn.replace("dbname=postgres", "dbname=random_specs")
    with psycopg.connect(dsn, autocommit=True) as connection:
        yield connection


@given(st.one_of(texts(200), state_names()))
def test_literals_round_trip_on_both_servers(db: Any, text: str) -> None:
    lite = sqlite3.connect(":memory:")
    if "\x00" in text:
        with pytest.raises(SqlError):
            pg_literal(text)
        with pytest.raises(SqlError):
            sqlite_literal(text)
        return
    assert db.execute(f"SELECT {pg_literal(text)}").fetchone()[0] == text
    assert pg_literal(text).isascii() and "\n" not in pg_literal(text)
    assert lite.execute(f"SELECT {sqlite_literal(text)}").fetchone()[0] == text


@FEW
@given(spec_documents())
def test_random_specs_on_both_servers(db: Any, tmp_path_factory: Any, text: str) -> None:
    result = lint_bytes(text.encode("utf-8"), "specs/random.md")
    document = result.document
    assert document is not None, result.findings
    config = bound_config([document])
    if any("\x00" in name for name in document.spec.state_names):
        with pytest.raises(SqlError, match="NUL"):
            cases([document], config, Path(tmp_path_factory.mktemp("r")))
        return
    (case,) = cases([document], config, Path(tmp_path_factory.mktemp("r")))
    check_case(case)
    db.execute("DROP TABLE IF EXISTS t0; DROP SCHEMA IF EXISTS statedoc CASCADE")
    check_all_pairs(db, case)
    check_inserts(db, case)

"""The generated SQL against the generated Python ``Machine``, by random UPDATEs on real
tables (:mod:`generator.targets.sql.testing`), for every spec in ``specs/`` and a hostile spec."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from generator.targets.sql.testing import sql_state_machine_for

from .sql_support import Case, bound_config, cases, lint_document, spec_documents, sql_hostile_spec


def examples() -> settings:
    """A fifth of the profile's examples (10 locally, 50 in CI), 25 steps each."""
    return settings(
        max_examples=max(5, settings().max_examples // 5),
        stateful_step_count=25,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        deadline=None,
    )


@pytest.fixture(scope="module")
def all_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    folder = tmp_path_factory.mktemp("sqlprops")
    hostile = folder / "sql.md"
    hostile.write_text(sql_hostile_spec(), encoding="utf-8")
    documents = [*spec_documents(), lint_document(hostile, "specs/hostile/sql.md")]
    return cases(documents, bound_config(documents), folder / "modules")


def test_random_updates_on_postgresql(pg: Any, all_cases: list[Case]) -> None:
    dsn = pg.info.dsn
    for case in all_cases:
        pg.execute(f'CREATE TABLE "{case.table}" (id int PRIMARY KEY, state text NOT NULL)')
        pg.execute(case.postgresql)
        machine = sql_state_machine_for(
            case.module,
            lambda: psycopg.connect(dsn, autocommit=True),
            table=case.table,
            column="state",
        )
        run_state_machine_as_test(machine, settings=examples())


def test_random_updates_on_sqlite(tmp_path: Path, all_cases: list[Case]) -> None:
    database = tmp_path / "db.sqlite"
    for case in all_cases:
        with sqlite3.connect(database) as setup:
            setup.execute(f'CREATE TABLE "{case.table}" (id INTEGER PRIMARY KEY, state TEXT)')
            setup.executescript(case.sqlite or "")
        machine = sql_state_machine_for(
            case.module,
            lambda: sqlite3.connect(database, isolation_level=None),
            table=case.table,
            column="state",
            dialect="sqlite",
        )
        run_state_machine_as_test(machine, settings=examples())

"""The generated SQL against the generated Python ``Machine``, by random UPDATEs on real
tables (:mod:`generator.targets.sql.testing`), for every spec in ``specs/`` and a hostile spec."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from generator.targets.sql.testing import sql_state_machine_for

from .cases import Case
from .pairs import sqlite_machine


def examples() -> settings:
    """A fifth of the profile's examples (10 locally, 50 in CI), 25 steps each."""
    return settings(
        max_examples=max(5, settings().max_examples // 5),
        stateful_step_count=25,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        deadline=None,
    )


def test_random_updates_on_postgresql(pg: Any, spec_cases: list[Case]) -> None:
    dsn = pg.info.dsn
    for case in spec_cases:
        pg.execute(f'CREATE TABLE "{case.table}" (id int PRIMARY KEY, state text NOT NULL)')
        pg.execute(case.postgresql)
        machine = sql_state_machine_for(
            case.module,
            lambda: psycopg.connect(dsn, autocommit=True),
            table=case.table,
            column="state",
        )
        run_state_machine_as_test(machine, settings=examples())


def test_random_updates_on_sqlite(tmp_path: Path, spec_cases: list[Case]) -> None:
    database = tmp_path / "db.sqlite"
    for case in spec_cases:
        machine = sqlite_machine(case, case.sqlite or "", database)
        run_state_machine_as_test(machine, settings=examples())

"""Mutation self-test: generated SQL with one defect each must fail the checks that prove it.

Mutants (each applied to the text of the seed spec's generated SQL, on both dialects):
an invalid-pair check removed, the unchanged-state pass-through widened to any pair, and the
INSERT check dropped. The exhaustive all-pairs check must kill every one; the random-UPDATE
state machine must kill the first two (it only inserts rows in initial states).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from generator.targets.sql.testing import sql_state_machine_for

from .cases import Case, bound_config, cases, spec_documents
from .pairs import check_all_pairs, check_case, check_inserts, sqlite_machine


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Case:
    documents = [
        d for d in spec_documents() if d.spec.id == "STATE-PFM-QRY-011"
    ]  # has invalid pairs reachable from an initial state
    assert documents and documents[0].spec.invalid
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("m"))[0]


def _sub(pattern: str, replacement: str, text: str, count: int = 1) -> str:
    """``pattern`` replaced ``count`` times (0: everywhere, at least once)."""
    changed, done = re.subn(pattern, replacement, text, count=count, flags=re.S)
    assert done == count or (count == 0 and done > 0), f"mutation did not apply: {pattern}"
    return changed


# PostgreSQL mutants ------------------------------------------------------------------------
def pg_invalid_pair_removed(sql: str) -> str:
    """The first forbidden pair's arm of each why-CASE goes: it raises the wrong SQLSTATE."""
    arm = (
        r"\n    WHEN old_state OPERATOR\(pg_catalog\.=\) E'[^']*'"
        r" AND new_state [^\n]* THEN E'[^']*'"
    )
    first = re.search(arm, sql)
    assert first is not None, f"mutation did not apply: {arm}"
    return _sub(re.escape(first[0]), "", sql, count=0)


def pg_pass_through_widened(sql: str) -> str:
    return _sub(r"IF NOT \(CASE WHEN old_state IS NULL [^\n]* END\) THEN", "IF true THEN", sql)


def pg_insert_check_dropped(sql: str) -> str:
    start = "IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN\n"
    return _sub(re.escape(start), start + "    RETURN NEW;\n", sql)


# SQLite mutants ----------------------------------------------------------------------------
def lite_invalid_pair_removed(sql: str) -> str:
    return _sub(r"  SELECT RAISE\(ABORT, '[^\n]*forbids[^\n]*'\)\n    WHERE [^\n]*;\n", "", sql)


def lite_pass_through_widened(sql: str) -> str:
    return _sub(r"(BEFORE UPDATE OF [^\n]*\n  WHEN )", r"\g<1>0 AND ", sql)


def lite_insert_check_dropped(sql: str) -> str:
    return _sub(r"(BEFORE INSERT ON [^\n]*\n  WHEN )", r"\g<1>0 AND ", sql)


PG_MUTANTS = [pg_invalid_pair_removed, pg_pass_through_widened, pg_insert_check_dropped]
LITE_MUTANTS = [lite_invalid_pair_removed, lite_pass_through_widened, lite_insert_check_dropped]


def killed(check: Callable[[], object]) -> bool:
    try:
        check()
    except AssertionError:
        return True
    return False


def test_unmutated_sql_passes_every_check(pg: Any, seed: Case) -> None:
    assert not killed(lambda: (check_all_pairs(pg, seed), check_inserts(pg, seed)))
    assert not killed(lambda: check_case(seed))


@pytest.mark.parametrize("mutant", PG_MUTANTS, ids=lambda m: m.__name__)
def test_postgresql_mutant_is_killed_by_all_pairs(
    pg: Any, seed: Case, mutant: Callable[[str], str]
) -> None:
    bad = dataclasses.replace(seed, postgresql=mutant(seed.postgresql))
    assert killed(lambda: (check_all_pairs(pg, bad), check_inserts(pg, bad)))


@pytest.mark.parametrize("mutant", LITE_MUTANTS, ids=lambda m: m.__name__)
def test_sqlite_mutant_is_killed_by_all_pairs(seed: Case, mutant: Callable[[str], str]) -> None:
    assert seed.sqlite is not None
    assert killed(lambda: check_case(dataclasses.replace(seed, sqlite=mutant(seed.sqlite))))


MACHINE = settings(
    max_examples=200,
    stateful_step_count=30,
    phases=[Phase.generate],  # a kill is all we need: no shrinking
    derandomize=True,  # the same examples every run: a kill that depends on luck would flake
    suppress_health_check=list(HealthCheck),
    deadline=None,
    database=None,
)


@pytest.mark.parametrize("mutant", PG_MUTANTS[:2], ids=lambda m: m.__name__)
def test_postgresql_mutant_is_killed_by_the_state_machine(
    pg: Any, seed: Case, mutant: Callable[[str], str]
) -> None:
    pg.execute(f'CREATE TABLE "{seed.table}" (id int PRIMARY KEY, state text)')
    pg.execute(mutant(seed.postgresql))
    dsn = pg.info.dsn
    machine = sql_state_machine_for(
        seed.module, lambda: psycopg.connect(dsn, autocommit=True), table=seed.table, column="state"
    )
    assert killed(lambda: run_state_machine_as_test(machine, settings=MACHINE))


@pytest.mark.parametrize("mutant", LITE_MUTANTS[:2], ids=lambda m: m.__name__)
def test_sqlite_mutant_is_killed_by_the_state_machine(
    tmp_path: Path, seed: Case, mutant: Callable[[str], str]
) -> None:
    assert seed.sqlite is not None
    machine = sqlite_machine(seed, mutant(seed.sqlite), tmp_path / "db.sqlite")
    assert killed(lambda: run_state_machine_as_test(machine, settings=MACHINE))

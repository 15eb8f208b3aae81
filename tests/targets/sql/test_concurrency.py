"""16 connections race conflicting transitions on the same rows of a real PostgreSQL table,
at READ COMMITTED and SERIALIZABLE; a test-only audit trigger records every change, and
afterwards every row's history holds only declared pairs, chained from its first state to
the stored one. Clients pick targets from a state they read earlier, so the trigger must
judge the row's real ``OLD``, not what a client believed."""

from __future__ import annotations

import random
import threading
from typing import Any

import psycopg
import pytest

from .cases import Case, bound_config, cases, hostile_documents, spec_documents

WORKERS = 16
ROWS = 4
STEPS = 30  # per worker
AUDIT = """
CREATE TABLE audit (seq bigserial PRIMARY KEY, id int, old_state text, new_state text);
CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state IS DISTINCT FROM OLD.state THEN
    INSERT INTO audit (id, old_state, new_state) VALUES (OLD.id, OLD.state, NEW.state);
  END IF;
  RETURN NEW;
END $$;
"""
#: The generated trigger's SQLSTATEs and the two a race may legitimately cause.
EXPECTED = {"SDF01", "SDU01", "40001", "40P01"}


@pytest.fixture(scope="module")
def race_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    seeds = [d for d in spec_documents() if d.spec.id == "STATE-PFM-QRY-011"]
    cycle = [
        d
        for d in hostile_documents(tmp_path_factory.mktemp("h"))
        if d.spec.id == "STATE-TST-HOS-003"
    ]
    documents = seeds + cycle
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("m"))


def worker(dsn: str, case: Case, isolation: str, seed: int, errors: list[str]) -> None:
    rng = random.Random(seed)
    states = [s.value for s in case.module.State]
    table = f'"{case.table}"'
    with psycopg.connect(dsn) as connection:
        connection.execute(f"SET default_transaction_isolation = '{isolation}'")
        connection.commit()
        for _ in range(STEPS):
            row = rng.randrange(ROWS)
            try:
                with connection.transaction():
                    (seen,) = connection.execute(
                        f"SELECT state FROM {table} WHERE id = %s", (row,)
                    ).fetchone()
                    declared = sorted(t.value for t in case.module.targets(seen))
                    target = (
                        rng.choice(declared)
                        if declared and rng.random() < 0.8
                        else rng.choice(states)
                    )
                    connection.execute(
                        f"UPDATE {table} SET state = %s WHERE id = %s", (target, row)
                    )
            except psycopg.Error as exc:
                if exc.sqlstate not in EXPECTED:
                    errors.append(f"{exc.sqlstate}: {exc}")


@pytest.mark.parametrize("isolation", ["read committed", "serializable"])
def test_racing_updates_keep_only_declared_pairs(
    pg: Any, race_cases: list[Case], isolation: str
) -> None:
    pg.execute(AUDIT)
    dsn = pg.info.dsn
    for case in race_cases:
        table = f'"{case.table}"'
        start = sorted(s.value for s in case.module.INITIAL)[0]
        pg.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, state text NOT NULL)")
        pg.execute(case.postgresql)
        pg.execute(
            f"CREATE TRIGGER audit AFTER UPDATE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION audit_row()"
        )
        for row in range(ROWS):
            pg.execute(f"INSERT INTO {table} VALUES (%s, %s)", (row, start))
        pg.execute("TRUNCATE audit")
        errors: list[str] = []
        threads = [
            threading.Thread(target=worker, args=(dsn, case, isolation, n, errors))
            for n in range(WORKERS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors[:5]
        declared = {(a.value, b.value) for a, b in case.module.TRANSITIONS}
        history = pg.execute("SELECT id, old_state, new_state FROM audit ORDER BY seq").fetchall()
        assert len(history) > ROWS  # the race did move rows
        current = dict.fromkeys(range(ROWS), start)
        for row, old, new in history:
            assert (old, new) in declared, (case.spec.id, row, old, new)
            assert current[row] == old, "history does not chain"
            current[row] = new
        stored = dict(pg.execute(f"SELECT id, state FROM {table}").fetchall())
        assert stored == current

"""Revision 2 (a state renamed, another retired to a destination) applied while writers run on
a real PostgreSQL server, at READ COMMITTED and SERIALIZABLE.

A test-only audit trigger (a user trigger the migration leaves alone) records every committed
change with its transaction id. Afterwards: every change before the migration's moves is a
pair revision 1 declares, every change after them one revision 2 declares, nothing happens in
between, each row's changes chain to what it stores, no inserted row is lost, and no row holds
a retired name. Two writers are placed exactly: one holds an UPDATE open when the file starts
(the migration waits for it and then moves the row it wrote), one arrives while the migration
holds the lock (it waits and then meets revision 2's triggers)."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg import sql as pgsql

from .migrate import Revision, Table, review_renamed, spec
from .postgres import apply_file

WRITERS = 6
AFTER = 15  # successful writes each writer makes against revision 2 before it stops
AUDIT = """
CREATE TABLE {app}.audit (seq bigserial PRIMARY KEY, id int, old_state text, new_state text,
                          txid xid8 DEFAULT pg_current_xact_id());
CREATE FUNCTION {app}.audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.state::text IS DISTINCT FROM OLD.state::text THEN
    INSERT INTO {app}.audit (id, old_state, new_state)
    VALUES (NEW.id, CASE WHEN TG_OP = 'UPDATE' THEN OLD.state::text END, NEW.state::text);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER audit AFTER INSERT OR UPDATE ON {app}.items
  FOR EACH ROW EXECUTE FUNCTION {app}.audit_row();
"""
#: The refusals of either revision's triggers, and what a race may legitimately cause.
EXPECTED = {"SDF01", "SDU01", "SDS01", "SDI01", "40001", "40P01"}
MOVES = {"review": "in_review", "spam": "archived"}


def _second() -> str:
    return review_renamed({"to": "archived", "why": "spam is archived"})


class Writers:
    """Threads writing random transitions and inserts until told to stop."""

    def __init__(
        self, dsn: str, table: Table, names: list[str], isolation: str, reserved: list[int]
    ) -> None:
        self.dsn, self.table, self.names, self.isolation = dsn, table, names, isolation
        self.reserved = reserved  # rows the placed writers use
        self.errors: list[str] = []
        self.inserted: list[int] = []
        self.after = [0] * WRITERS  # successful writes once the migration has committed
        self.migrated = threading.Event()
        self.stop = threading.Event()
        self.ids = itertools.count(10_000)
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(n,)) for n in range(WRITERS)]

    def run(self, number: int) -> None:
        rng = random.Random(number)
        items = self.table.ident
        with psycopg.connect(self.dsn, autocommit=True) as connection:
            connection.execute(f"SET default_transaction_isolation = '{self.isolation}'")
            while not self.stop.is_set():
                migrated = self.migrated.is_set()
                new = None
                try:
                    with connection.transaction():
                        if rng.random() < 0.2:
                            with self.lock:
                                new = next(self.ids)
                            connection.execute(
                                pgsql.SQL("INSERT INTO {} VALUES (%s, 'draft')").format(items),
                                (new,),
                            )
                        else:
                            (row,) = connection.execute(
                                pgsql.SQL(
                                    "SELECT id FROM {} WHERE id <> ALL(%s) "
                                    "ORDER BY random() LIMIT 1"
                                ).format(items),
                                (self.reserved,),
                            ).fetchone() or (0,)
                            connection.execute(
                                pgsql.SQL("UPDATE {} SET state = %s WHERE id = %s").format(items),
                                (rng.choice(self.names), row),
                            )
                except psycopg.Error as exc:
                    if exc.sqlstate not in EXPECTED:
                        with self.lock:
                            self.errors.append(f"{exc.sqlstate}: {exc}")
                    continue
                if new is not None:  # committed
                    with self.lock:
                        self.inserted.append(new)
                if migrated:
                    self.after[number] += 1
                    if min(self.after) >= AFTER:
                        self.stop.set()


def _waits_for_a_lock(admin: Any, pid: int, alive: Callable[[], bool]) -> bool:
    """Whether backend ``pid`` comes to wait for a lock while ``alive()`` holds."""
    query = "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %s"
    while alive():
        found = admin.execute(query, (pid,)).fetchone()
        if found is not None and found[0]:
            return True
        time.sleep(0.005)
    return False


@pytest.mark.parametrize("isolation", ["read committed", "serializable"])
def test_writers_during_the_migration(table: Table, isolation: str) -> None:
    admin = table.admin
    first = table.revision(spec(1))
    table.create()
    assert apply_file(admin, first.postgresql) is None
    table.fill()
    second: Revision = table.revision(_second())
    admin.execute(AUDIT.format(app=pgsql.Identifier(table.app).as_string(None)))
    start = table.rows()
    dsn = admin.info.dsn
    names = sorted({*first.states, *second.states})
    drafts = [r for r, s in start.items() if s == "draft"]
    held, late_old, late_new = drafts[0], drafts[1], drafts[2]
    writers = Writers(dsn, table, names, isolation, [held, late_old, late_new])
    items = table.ident

    with (
        psycopg.connect(dsn) as holder,
        psycopg.connect(dsn) as migrator,
        psycopg.connect(dsn, autocommit=True) as late,
    ):
        migrator_pid, late_pid = migrator.info.backend_pid, late.info.backend_pid
        for thread in writers.threads:
            thread.start()
        # A writer inside its transaction: a declared pair of revision 1, not committed yet.
        holder.execute(
            pgsql.SQL("UPDATE {} SET state = 'review' WHERE id = %s").format(items), (held,)
        )
        outcome: dict[str, Any] = {}

        def migrate() -> None:
            outcome["error"] = apply_file(migrator, second.postgresql)

        def late_writes() -> None:
            update = pgsql.SQL("UPDATE {} SET state = %s WHERE id = %s").format(items)
            for name, row in (("review", late_old), ("in_review", late_new)):
                try:
                    late.execute(update, (name, row))
                    outcome[name] = None
                except psycopg.Error as exc:
                    outcome[name] = exc.sqlstate

        migration = threading.Thread(target=migrate)
        late_thread = threading.Thread(target=late_writes)
        try:
            migration.start()
            assert _waits_for_a_lock(admin, migrator_pid, migration.is_alive)
            late_thread.start()
            assert _waits_for_a_lock(admin, late_pid, late_thread.is_alive)
            holder.commit()  # the migration goes on, and moves the row the holder wrote
            migration.join()
            writers.migrated.set()
            late_thread.join()
        finally:
            holder.rollback()  # a failed assertion must not leave the others waiting
            if not writers.migrated.is_set():
                writers.stop.set()
            for thread in (migration, late_thread, *writers.threads):
                if thread.is_alive() or thread.ident is not None:
                    thread.join()

    assert outcome["error"] is None, outcome["error"]
    assert writers.errors == [], writers.errors[:5]
    # The late writer waited behind the migration and met revision 2's triggers.
    assert outcome["review"] == "SDS01" and outcome["in_review"] is None
    stored = table.rows()
    assert stored[held] == "in_review"
    assert not {s for s in stored.values()} & set(MOVES)
    assert set(writers.inserted) <= set(stored) and set(start) <= set(stored)
    assert len(stored) == len(start) + len(writers.inserted)

    audit = admin.execute(
        pgsql.SQL("SELECT seq, id, old_state, new_state, txid::text FROM {} ORDER BY seq").format(
            pgsql.Identifier(table.app, "audit")
        )
    ).fetchall()
    moves = [a for a in audit if a[2] in MOVES and a[3] == MOVES[a[2]]]
    assert moves and len({a[4] for a in moves}) == 1  # one transaction: the migration's
    migration_txid = moves[0][4]
    assert all(a[4] == migration_txid for a in audit if moves[0][0] <= a[0] <= moves[-1][0])
    current = dict(start)
    for seq, row, old, new, txid in audit:
        if old is None:
            assert new == "draft" and row not in current
        else:
            assert current[row] == old, "the audit does not chain"
            if txid != migration_txid:
                pairs = first.pairs if seq < moves[0][0] else second.pairs
                assert (old, new) in pairs, (seq, row, old, new)
        current[row] = new
    assert current == stored
    assert min(writers.after) >= AFTER  # every writer went on against revision 2
    assert sum(1 for a in audit if a[0] > moves[-1][0]) >= WRITERS


def test_a_value_committed_while_the_migration_waits_is_judged(table: Table) -> None:
    """A writer holds an UPDATE to a state revision 2 retires without a destination when the
    file starts: the migration waits for it before it looks at the rows, so it sees the
    committed value and refuses (SDM01) instead of stranding it."""
    admin = table.admin
    first = table.revision(spec(1))
    table.create()
    assert apply_file(admin, first.postgresql) is None
    table.fill()
    admin.execute(pgsql.SQL("DELETE FROM {} WHERE state = 'spam'").format(table.ident))
    second = table.revision(review_renamed({"why": "no longer kept"}))
    row = next(r for r, s in table.rows().items() if s == "draft")
    dsn = admin.info.dsn
    with psycopg.connect(dsn) as holder, psycopg.connect(dsn) as migrator:
        holder.execute(
            pgsql.SQL("UPDATE {} SET state = 'spam' WHERE id = %s").format(table.ident), (row,)
        )
        outcome: dict[str, Any] = {}

        def migrate() -> None:
            outcome["error"] = apply_file(migrator, second.postgresql)

        migration = threading.Thread(target=migrate)
        migration.start()
        try:
            assert _waits_for_a_lock(admin, migrator.info.backend_pid, migration.is_alive)
            holder.commit()
        finally:
            holder.rollback()
            migration.join()
    before = table.snapshot()
    error = outcome["error"]
    assert error is not None and error.sqlstate == "SDM01", error
    assert "1 row(s) hold 'spam' (retired without a destination)" in str(error)
    assert table.snapshot() == before and table.rows()[row] == "spam"

"""Systems under test for the conformance suite: small repositories over a real table whose
writes go through plain SQL, as a team would write them, and deliberately wrong variants.

- :class:`CheckedStore` validates a move in Python, against a table of allowed moves written
  by hand (``MOVES``: not read from the spec), under a transaction, then issues the UPDATE;
- :class:`TriggerStore` issues the UPDATE and lets the SQL target's triggers refuse it.

Both run on SQLite (stdlib, in memory) and on PostgreSQL (psycopg, autocommit connection).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.lint.document import lint_bytes
from generator.run.config import load_config
from generator.targets.registry import get_target

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {
    "delivery": "specs/platform/queries/workspace-export-delivery.md",
    "attempt": "specs/platform/tenant-lifecycle/provisioning-attempt.md",
}
#: The tables the repository's ``[tool.statedoc.sql.bindings]`` bind the seeds to.
TABLES = {"delivery": "data_export_deliveries", "attempt": "tenant_provisioning_jobs"}

#: What each service allows, written by hand in the service.
MOVES: dict[str, dict[str, frozenset[str]]] = {
    "delivery": {
        "pending": frozenset({"delivering", "withheld", "expired"}),
        "delivering": frozenset({"delivered", "failed"}),
        "failed": frozenset({"delivering", "expired", "superseded"}),
        "withheld": frozenset({"expired"}),
        "delivered": frozenset(),
        "expired": frozenset(),
        "superseded": frozenset(),
    },
    "attempt": {
        "pending": frozenset({"running", "failed"}),
        "running": frozenset({"succeeded", "failed"}),
        "succeeded": frozenset(),
        "failed": frozenset(),
    },
}


class RefusedError(Exception):
    """The service refused a move."""


def sql_files(seed: str) -> dict[str, str]:
    """The SQL target's output for a seed, under the repository's own bindings."""
    path = ROOT / SEEDS[seed]
    document = lint_bytes(path.read_bytes(), SEEDS[seed]).document
    assert document is not None
    config = load_config(ROOT)
    files = get_target("sql", config).files(document, config)
    return {name.rsplit(".", 2)[-2]: data.decode() for name, data in files.items()}


class Store:
    """One table ``TABLES[seed]`` with ``id`` and ``status``; plain SQL only."""

    def __init__(self, connection: Any, seed: str, dialect: str) -> None:
        self.db = connection
        self.seed = seed
        self.table = TABLES[seed]
        self.moves: Mapping[str, frozenset[str]] = MOVES[seed]
        self.mark = "?" if dialect == "sqlite" else "%s"
        self.dialect = dialect

    @classmethod
    def sqlite(cls, seed: str, triggers: bool = False) -> Store:
        connection = sqlite3.connect(":memory:", isolation_level=None)
        connection.execute(
            f"CREATE TABLE {TABLES[seed]} (id INTEGER PRIMARY KEY AUTOINCREMENT, status TEXT)"
        )
        if triggers:
            connection.executescript(sql_files(seed)["sqlite"])
        return cls(connection, seed, "sqlite")

    @classmethod
    def postgresql(cls, connection: Any, seed: str, triggers: bool = False) -> Store:
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {TABLES[seed]} (id serial PRIMARY KEY, status text)"
        )
        if triggers:
            connection.execute(sql_files(seed)["postgresql"])
        return cls(connection, seed, "postgresql")

    def _one(self, query: str, params: tuple[object, ...]) -> Any:
        row = self.db.execute(query, params).fetchone()
        return None if row is None else row[0]

    def add(self, status: str) -> int:
        query = f"INSERT INTO {self.table} (status) VALUES ({self.mark}) RETURNING id"
        return int(self._one(query, (status,)))

    def status(self, row: int) -> object:
        return self._one(f"SELECT status FROM {self.table} WHERE id = {self.mark}", (row,))

    def _update(self, row: int, status: str) -> None:
        query = f"UPDATE {self.table} SET status = {self.mark} WHERE id = {self.mark}"
        self.db.execute(query, (status, row))

    def _locked_status(self, row: int) -> object:
        lock = " FOR UPDATE" if self.dialect == "postgresql" else ""
        return self._one(f"SELECT status FROM {self.table} WHERE id = {self.mark}{lock}", (row,))

    def allowed(self, old: object, new: str) -> bool:
        return isinstance(old, str) and new in self.moves.get(old, frozenset())

    def move(self, row: int, status: str) -> None:
        raise NotImplementedError


class CheckedStore(Store):
    """Checks the move against ``MOVES`` in a transaction, then updates."""

    def move(self, row: int, status: str) -> None:
        self.db.execute("BEGIN")
        try:
            old = self._locked_status(row)
            if not self.allowed(old, status):
                raise RefusedError(f"{old!r} -> {status!r}")
            self._update(row, status)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")


class TriggerStore(Store):
    """Issues the UPDATE; the database's statedoc triggers refuse what the spec does not allow."""

    def move(self, row: int, status: str) -> None:
        errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
        if self.dialect == "postgresql":
            import psycopg

            errors = (psycopg.Error,)
        try:
            self._update(row, status)
        except errors as exc:
            raise RefusedError(str(exc)) from exc


# -- deliberately wrong services ------------------------------------------------------------


class PerformsInvalidPair(CheckedStore):
    """Lets a delivered row start transfer again: the spec lists it as invalid."""

    def allowed(self, old: object, new: str) -> bool:
        return (old, new) == ("delivered", "delivering") or super().allowed(old, new)


class ForgetsRollback(CheckedStore):
    """Writes first and checks afterwards, committing either way: a refusal sticks."""

    def move(self, row: int, status: str) -> None:
        self.db.execute("BEGIN")
        try:
            old = self._locked_status(row)
            self._update(row, status)
            if not self.allowed(old, status):
                raise RefusedError(f"{old!r} -> {status!r}")
        finally:
            self.db.execute("COMMIT")


class MissingTransition(CheckedStore):
    """Never implemented supersession: ``failed -> superseded`` is refused."""

    def allowed(self, old: object, new: str) -> bool:
        return (old, new) != ("failed", "superseded") and super().allowed(old, new)


class AcceptsUnknownState(CheckedStore):
    """Only checks names it knows: anything that is no state is written as is."""

    def allowed(self, old: object, new: str) -> bool:
        known = {s for targets in self.moves.values() for s in targets} | set(self.moves)
        return new not in known or super().allowed(old, new)


@dataclass
class StoreAdapter:
    """The conformance adapter over a store: objects are row ids."""

    store: Store

    def create(self, state: str) -> int:
        return self.store.add(state)

    def read(self, obj: int) -> object:
        return self.store.status(obj)

    def attempt(self, obj: int, to_state: str) -> bool:
        try:
            self.store.move(obj, to_state)
        except RefusedError:
            return False
        return True

    def close(self) -> None:
        if self.store.dialect == "sqlite":
            self.store.db.close()

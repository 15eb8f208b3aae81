"""The lifecycle of the migration tests: five states at revision 1, the revisions that change
it, their generated PostgreSQL and SQLite files, and a table with rows in every state.

Every expectation is computed from the specs (the generated Python module of each revision is
the oracle of which pairs its triggers allow), never typed in."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import psycopg
from psycopg import sql as pgsql

from generator.lint.document import lint_bytes
from generator.model.document import Document
from generator.run.config import load_config
from generator.targets.sql import SqlTarget
from generator.targets.sql.plan import Names
from generator.targets.sql.settings import SqlBinding, SqlSettings

from ..test_generate_support import ROOT, spec_text
from .cases import python_module
from .catalog import catalog_snapshot
from .postgres import Connection

SPEC_ID = "STATE-TST-MIG-001"
STATES = ("draft", "review", "published", "archived", "spam")
TRANSITIONS: tuple[tuple[str, str], ...] = (
    ("draft", "review"),
    ("review", "draft"),
    ("review", "published"),
    ("published", "archived"),
    ("draft", "spam"),
)
ROWS_PER_STATE = 3


@dataclass(frozen=True)
class Revision:
    """One revision of the lifecycle: its document, generated file and Python oracle."""

    document: Document
    postgresql: str
    module: ModuleType

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(s.value for s in self.module.State)

    @property
    def pairs(self) -> set[tuple[str, str]]:
        return {(a.value, b.value) for a, b in self.module.TRANSITIONS}


def document_of(text: str, name: str = "mig.md") -> Document:
    result = lint_bytes(text.encode("utf-8"), name)
    assert result.document is not None, result.findings
    errors = [f for f in result.findings if f.severity.value == "error"]
    assert not errors, errors
    return result.document


def spec(
    revision: int,
    states: Sequence[str] = STATES,
    transitions: Sequence[tuple[str, str]] = TRANSITIONS,
    retired: Sequence[Mapping[str, str]] = (),
) -> str:
    extra = {"retired": [dict(r) for r in retired]} if retired else None
    return spec_text(
        states,
        [{"from": a, "to": b, "trigger": f"{a} to {b}"} for a, b in transitions],
        spec_id=SPEC_ID,
        module="migration",
        revision=revision,
        initial="draft",
        extra=extra,
    )


def renamed(old: str, new: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """STATES and TRANSITIONS with ``old`` called ``new``."""

    def name(state: str) -> str:
        return new if state == old else state

    return tuple(map(name, STATES)), tuple((name(a), name(b)) for a, b in TRANSITIONS)


def review_renamed(spam: Mapping[str, str] | None = None) -> str:
    """Revision 2 with ``review`` renamed ``in_review``; with ``spam`` (its ``to`` and ``why``),
    the state ``spam`` is retired too and leaves the states and transitions."""
    states, transitions = renamed("review", "in_review")
    retired = [{"state": "review", "to": "in_review", "why": "renamed"}]
    if spam is not None:
        states = tuple(s for s in states if s != "spam")
        transitions = tuple(t for t in transitions if "spam" not in t)
        retired.append({"state": "spam", **spam})
    return spec(2, states, transitions, retired)


def without(state: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """STATES and TRANSITIONS without ``state``."""
    return (
        tuple(s for s in STATES if s != state),
        tuple((a, b) for a, b in TRANSITIONS if state not in (a, b)),
    )


def route(start: str, goal: str) -> list[str]:
    """The shortest path of revision 1's transitions from ``start`` to ``goal``."""
    paths = {start: [start]}
    queue = [start]
    for here in queue:
        for a, b in TRANSITIONS:
            if a == here and b not in paths:
                paths[b] = [*paths[here], b]
                queue.append(b)
    return paths[goal]


class Table:
    """A table in its own schema, with the generated objects in another, on one server."""

    def __init__(self, admin: Connection, app: str, generated: str, folder: Path) -> None:
        self.admin, self.app, self.generated, self.folder = admin, app, generated, folder
        self.ident = pgsql.Identifier(app, "items")
        self.binding = SqlBinding("items", "state", app)
        self._numbers = itertools.count()

    def revision(self, text: str, *, bound: bool = True) -> Revision:
        document = document_of(text)
        bindings = {SPEC_ID: self.binding} if bound else {}
        settings = SqlSettings(schema=self.generated, bindings=bindings)
        files = SqlTarget(settings).files(document, load_config(ROOT))
        postgresql = next(v for k, v in files.items() if k.endswith(".postgresql.sql"))
        folder = self.folder / f"m{next(self._numbers)}"
        return Revision(document, postgresql.decode(), python_module(document, folder))

    @property
    def domain(self) -> str:
        name = Names.for_spec(document_of(spec(1)).spec).domain
        return pgsql.Identifier(self.generated, name).as_string(None)

    def create(self, column_type: str = "text") -> None:
        self.admin.execute(
            pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, state {} NOT NULL)").format(
                self.ident, pgsql.SQL(column_type)
            )
        )

    def fill(self) -> None:
        """ROWS_PER_STATE rows in each state of revision 1, written through its triggers:
        inserted in the initial state, then moved along declared transitions."""
        insert = pgsql.SQL("INSERT INTO {} (id, state) VALUES (%s, %s)").format(self.ident)
        for n, state in enumerate(s for s in STATES for _ in range(ROWS_PER_STATE)):
            path = route("draft", state)
            self.admin.execute(insert, (n, path[0]))
            for step in path[1:]:
                assert self.update(n, step) is None, (n, step)

    def rows(self) -> dict[int, str]:
        found = self.admin.execute(
            pgsql.SQL("SELECT id, state::text FROM {} ORDER BY id").format(self.ident)
        ).fetchall()
        return dict(found)

    def snapshot(self) -> tuple[dict[int, str], set[tuple[str, str, str | None]]]:
        return self.rows(), catalog_snapshot(self.admin)

    def update(self, row: int, state: str) -> str | None:
        """UPDATE one row in its own transaction: the SQLSTATE it raised, or None."""
        try:
            with self.admin.transaction():
                self.admin.execute(
                    pgsql.SQL("UPDATE {} SET state = %s WHERE id = %s").format(self.ident),
                    (state, row),
                )
        except psycopg.Error as exc:
            return exc.sqlstate
        return None


# --- SQLite ----------------------------------------------------------------------------------

#: The SQLite tests' table: no schema (SQLite has none to qualify it with).
SQLITE_BINDING = SqlBinding("items", "state")


def sqlite_script(text: str, binding: SqlBinding = SQLITE_BINDING) -> str:
    """The ``.sqlite.sql`` file the SQL target generates for the spec ``text``."""
    settings = SqlSettings(bindings={SPEC_ID: binding})
    files = SqlTarget(settings).files(document_of(text), load_config(ROOT))
    return next(v for k, v in files.items() if k.endswith(".sqlite.sql")).decode()


def apply_script(db: sqlite3.Connection, text: str) -> None:
    """As a migration tool does: the whole file in one transaction that keeps writers out."""
    try:
        db.executescript(f"BEGIN IMMEDIATE;\n{text}\nCOMMIT;")
    except sqlite3.Error:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise

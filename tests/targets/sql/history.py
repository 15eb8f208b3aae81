"""The table of the history tests: the repository's delivery spec bound with history on,
applied by an owner role (not a superuser) to a table an application role writes, and the
history read back exactly as stored."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql as pgsql

from generator.lint.document import lint_bytes
from generator.model.document import Document
from generator.run.config import load_config
from generator.targets.sql import SqlTarget
from generator.targets.sql.history import COLUMNS, history_table
from generator.targets.sql.settings import SqlBinding, SqlSettings

from ..test_generate_support import ROOT
from .lifecycle import SPEC, Lifecycle
from .postgres import Connection, Databases, apply_file, dsn_with, login_role, own_schemas


def document_at(revision: int) -> Document:
    """The delivery spec with its ``revision`` set (the same states and transitions)."""
    text = (ROOT / SPEC).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("revision:"))
    lines[at] = f"revision: {revision}\n"
    result = lint_bytes("".join(lines).encode(), SPEC)
    assert result.document is not None, result.findings
    return result.document


def render(document: Document, binding: SqlBinding, schema: str, kind: str = "postgresql") -> str:
    settings = SqlSettings(schema=schema, bindings={document.spec.id: binding})
    files = SqlTarget(settings).files(document, load_config(ROOT))
    return next(v for k, v in files.items() if k.endswith(f".{kind}.sql")).decode()


@dataclass
class Recorded:
    """A bound table with history: ``owner`` applied the file (and owns table and history),
    ``writer`` may only SELECT, INSERT and UPDATE the table; ``admin`` is a superuser."""

    admin: Connection
    owner: Connection
    writer: Connection
    life: Lifecycle
    app: str
    sd: str
    binding: SqlBinding
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def table(self) -> pgsql.Composable:
        return pgsql.Identifier(self.app, self.binding.table)

    @property
    def history(self) -> pgsql.Composable:
        return pgsql.Identifier(*history_table(self.binding))

    def sql(self, text: str, *args: pgsql.Composable, **names: pgsql.Composable) -> pgsql.Composed:
        return pgsql.SQL(text).format(
            *args, app=self.table, history=self.history, sd=pgsql.Identifier(self.sd), **names
        )

    def apply(
        self, revision: int = 1, connection: Connection | None = None
    ) -> psycopg.Error | None:
        text = render(document_at(revision), self.binding, self.sd)
        return apply_file(connection or self.owner, text)

    def rows(self) -> list[dict[str, Any]]:
        """Every history row, in id order, as stored (read by the superuser); none when
        there is no history table."""
        found = self.admin.execute(
            "SELECT pg_catalog.to_regclass(%s)", (self.history.as_string(None),)
        ).fetchone()
        if found is None or found[0] is None:
            return []
        names = pgsql.SQL(", ").join(pgsql.Identifier(c) for c in COLUMNS)
        query = pgsql.SQL("SELECT {} FROM {} ORDER BY id").format(names, self.history)
        cursor = self.admin.execute(query)
        return [dict(zip(COLUMNS, row, strict=True)) for row in cursor.fetchall()]


TABLE = "CREATE TABLE {app} (id int PRIMARY KEY, status text, payload text)"


@contextlib.contextmanager
def recorded(
    databases: Databases, server_dsn: str, life: Lifecycle, *, apply: bool = True, **binding: Any
) -> Iterator[Recorded]:
    """A fresh :class:`Recorded` (schemas and roles dropped afterwards)."""
    admin = databases(server_dsn)
    with (
        own_schemas(admin) as (app, sd),
        login_role(admin, "owner") as owner_role,
        login_role(admin, "writer") as writer_role,
        psycopg.connect(dsn_with(admin.info.dsn, user=owner_role), autocommit=True) as owner,
        psycopg.connect(dsn_with(admin.info.dsn, user=writer_role), autocommit=True) as writer,
    ):
        settings = {"history": True, **binding}
        g = Recorded(
            admin, owner, writer, life, app, sd, SqlBinding("deliveries", "status", app, **settings)
        )
        owner_id, writer_id = pgsql.Identifier(owner_role), pgsql.Identifier(writer_role)
        database = pgsql.Identifier(str(admin.info.dbname))
        admin.execute(pgsql.SQL("GRANT CREATE ON DATABASE {} TO {}").format(database, owner_id))
        admin.execute(
            pgsql.SQL("ALTER SCHEMA {} OWNER TO {}").format(pgsql.Identifier(app), owner_id)
        )
        owner.execute(g.sql(TABLE))
        owner.execute(g.sql("GRANT USAGE ON SCHEMA {} TO {}", pgsql.Identifier(app), writer_id))
        owner.execute(g.sql("GRANT SELECT, INSERT, UPDATE ON {app} TO {}", writer_id))
        if apply:
            assert g.apply() is None
        try:
            yield g
        finally:
            admin.execute(pgsql.SQL("REVOKE ALL ON DATABASE {} FROM {}").format(database, owner_id))

"""Applying generated SQL to a real PostgreSQL: scratch databases, login roles and schemas
that clean up after themselves, statements run in their own transaction, rows stored behind
the triggers' back and read back exactly, and files applied with psql as the README says."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql as pgsql
from psycopg.conninfo import make_conninfo

from generator.testing.pgserver import find_bindir

Connection = psycopg.Connection[Any]

# --- connections and databases ---------------------------------------------------------------


def dsn_with(dsn: str, **changes: str) -> str:
    return make_conninfo(dsn, **changes)


@contextlib.contextmanager
def scratch_database(server_dsn: str) -> Iterator[str]:
    """A fresh database on the server of ``server_dsn`` (a superuser DSN); dropped after."""
    name = f"a_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_dsn, autocommit=True) as admin:
        admin.execute(pgsql.SQL("CREATE DATABASE {}").format(pgsql.Identifier(name)))
    try:
        yield dsn_with(server_dsn, dbname=name)
    finally:
        with psycopg.connect(server_dsn, autocommit=True) as admin:
            admin.execute(
                pgsql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(pgsql.Identifier(name))
            )


@contextlib.contextmanager
def login_role(admin: Connection, prefix: str) -> Iterator[str]:
    """A new login role (roles are cluster-wide: a unique name, dropped afterwards)."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    role = pgsql.Identifier(name)
    admin.execute(pgsql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER").format(role))
    try:
        yield name
    finally:
        admin.execute(pgsql.SQL("REASSIGN OWNED BY {} TO CURRENT_USER").format(role))
        admin.execute(pgsql.SQL("DROP OWNED BY {}").format(role))
        admin.execute(pgsql.SQL("DROP ROLE {}").format(role))


class Databases:
    """One scratch database per server for a whole test module, made when first asked
    for (the contrib server's gets citext); tests then isolate themselves in schemas."""

    def __init__(self, stack: contextlib.ExitStack[Any]) -> None:
        self._stack = stack
        self._opened: dict[str, Connection] = {}

    def __call__(self, server_dsn: str) -> Connection:
        if server_dsn not in self._opened:
            dsn = self._stack.enter_context(scratch_database(server_dsn))
            connection = self._stack.enter_context(psycopg.connect(dsn, autocommit=True))
            if connection.execute(
                "SELECT 1 FROM pg_available_extensions WHERE name = 'citext'"
            ).fetchone():
                connection.execute("CREATE EXTENSION citext SCHEMA public")
            self._opened[server_dsn] = connection
        return self._opened[server_dsn]


@contextlib.contextmanager
def own_schemas(admin: Connection) -> Iterator[tuple[str, str]]:
    """(the table's schema, the generated objects' schema), both dropped afterwards; the
    second is only named: applying a file creates it."""
    number = uuid.uuid4().hex[:10]  # unique without a counter shared by the process
    app, generated = f"app_{number}", f"sd_{number}"
    admin.execute(pgsql.SQL("CREATE SCHEMA {}").format(pgsql.Identifier(app)))
    try:
        yield app, generated
    finally:
        admin.execute(
            pgsql.SQL("DROP SCHEMA IF EXISTS {}, {} CASCADE").format(
                pgsql.Identifier(app), pgsql.Identifier(generated)
            )
        )


# --- running statements ----------------------------------------------------------------------


def attempt(connection: Connection, query: Any, params: Any = ()) -> psycopg.Error | None:
    """Run ``query`` in its own transaction; the error it raised, or None."""
    try:
        with connection.transaction():
            connection.execute(query, params or None)
    except psycopg.Error as exc:
        return exc
    return None


def sqlstate(error: psycopg.Error | None) -> str | None:
    return None if error is None else error.sqlstate


def apply_file(connection: Connection, text: str) -> psycopg.Error | None:
    """Execute a whole generated file, as a migration tool does; the error, or None. A file
    that opens its own transaction leaves the session inside it when it fails: roll back."""
    try:
        connection.execute(text)
    except psycopg.Error as exc:
        if connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            connection.execute("ROLLBACK")
        return exc
    return None


def seed(connection: Connection, table: pgsql.Composable, row: int, state: str | None) -> None:
    """Store a row in any state, bypassing the triggers (superuser only: replica role)."""
    with connection.transaction():
        connection.execute("SET LOCAL session_replication_role = replica")
        connection.execute(
            pgsql.SQL("INSERT INTO {} (id, status) VALUES (%s, %s)").format(table), (row, state)
        )


MISSING = "<no such row>"


def stored(connection: Connection, table: pgsql.Composable, row: int) -> str | None:
    """The row's state exactly as stored (as text: no server comparison involved)."""
    found = connection.execute(
        pgsql.SQL("SELECT status::pg_catalog.text FROM {} WHERE id = %s").format(table), (row,)
    ).fetchone()
    return MISSING if found is None else found[0]


def table_values(connection: Connection, table: pgsql.Composable) -> list[str | None]:
    rows = connection.execute(
        pgsql.SQL("SELECT status::pg_catalog.text FROM {} ORDER BY id").format(table)
    ).fetchall()
    return [r[0] for r in rows]


# --- psql -----------------------------------------------------------------------------------


def psql_binary() -> Path:
    """The psql next to the test server's binaries (any psql talks to any server here)."""
    folder = find_bindir()
    found = folder / "psql" if folder is not None else None
    if found is not None and found.is_file():
        return found
    which = shutil.which("psql")
    assert which is not None, "psql is needed to apply files the documented way"
    return Path(which)


def psql_file(dsn: str, path: Path, *, stop_on_error: bool) -> subprocess.CompletedProcess[str]:
    """``psql [-v ON_ERROR_STOP=1] -f FILE``, with SQLSTATEs in its error lines."""
    args = [str(psql_binary()), "-X", "-q", "-v", "VERBOSITY=verbose", "-d", dsn, "-f", str(path)]
    if stop_on_error:
        args[1:1] = ["-v", "ON_ERROR_STOP=1"]
    return subprocess.run(args, capture_output=True, text=True, check=False)

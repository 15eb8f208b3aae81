"""Shared pieces of the issue-23 tests (search_path attack, column types, write paths): the
repository's delivery spec rendered for PostgreSQL with a chosen binding, the pairs the tests
need (computed from the spec, never typed in), and small helpers to apply files, seed rows
behind the triggers' back and read what a table really holds."""

from __future__ import annotations

import contextlib
import itertools
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
from psycopg import sql as pgsql
from psycopg.conninfo import make_conninfo

from generator.model.document import Document
from generator.run.config import load_config
from generator.targets.sql import SqlTarget
from generator.targets.sql.settings import SqlBinding, SqlSettings
from generator.testing.pgserver import find_bindir

from .sql_support import (
    FORBIDDEN,
    OK,
    UNDECLARED,
    expected_update,
    lint_document,
    python_module,
)
from .test_generate_support import ROOT

Connection = psycopg.Connection[Any]

SPEC = "specs/platform/queries/workspace-export-delivery.md"


@dataclass(frozen=True)
class Lifecycle:
    """The spec the tests attack, with the generated Python module as the oracle."""

    document: Document
    module: ModuleType

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(s.value for s in self.module.State)

    @property
    def initial(self) -> tuple[str, ...]:
        return tuple(s.value for s in self.module.INITIAL)

    def pairs(self, outcome: str | None) -> list[tuple[str, str]]:
        """Every pair of distinct states whose UPDATE has ``outcome`` (a SQLSTATE or OK)."""
        return [
            (a, b)
            for a in self.states
            for b in self.states
            if a != b and expected_update(self.module, a, b) == outcome
        ]

    @property
    def declared(self) -> list[tuple[str, str]]:
        return self.pairs(OK)

    @property
    def forbidden(self) -> tuple[str, str]:
        return self.pairs(FORBIDDEN)[0]

    @property
    def undeclared(self) -> tuple[str, str]:
        return self.pairs(UNDECLARED)[0]

    @property
    def not_initial(self) -> str:
        return next(s for s in self.states if s not in self.initial)

    def not_a_state(self, hint: str = "archived") -> str:
        """A name that is no state of the spec (``hint``, suffixed until it is none)."""
        name = hint
        while name in self.states:
            name += "_x"
        return name

    def render(self, *, schema: str = "statedoc", binding: SqlBinding | None) -> str:
        """The ``.postgresql.sql`` text the SQL target generates for this binding."""
        base = load_config(ROOT)
        bindings = {} if binding is None else {self.document.spec.id: binding}
        files = SqlTarget(SqlSettings(schema=schema, bindings=bindings)).files(self.document, base)
        return next(v for k, v in files.items() if k.endswith(".postgresql.sql")).decode()


def load_lifecycle(folder: Path) -> Lifecycle:
    document = lint_document(ROOT / SPEC, SPEC)
    return Lifecycle(document, python_module(document, folder))


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


_schemas = itertools.count()


@contextlib.contextmanager
def own_schemas(admin: Connection) -> Iterator[tuple[str, str]]:
    """(the table's schema, the generated objects' schema), both dropped afterwards; the
    second is only named: applying a file creates it."""
    number = next(_schemas)
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


# --- the catalog and psql --------------------------------------------------------------------

#: Every object a file could create or change outside the system schemas, with its comment.
SNAPSHOT = """
SELECT 'schema', n.nspname, obj_description(n.oid, 'pg_namespace')
  FROM pg_namespace n WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'function', p.oid::regprocedure::text || ' ' || md5(p.prosrc) ||
       coalesce(array_to_string(p.proconfig, ','), ''), obj_description(p.oid, 'pg_proc')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'type', t.oid::regtype::text, obj_description(t.oid, 'pg_type')
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'constraint', c.conname || ' ' || pg_get_constraintdef(c.oid), NULL
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'trigger', t.tgrelid::regclass::text || ' ' || t.tgname || ' ' || t.tgenabled::text,
       obj_description(t.oid, 'pg_trigger')
  FROM pg_trigger t WHERE NOT t.tgisinternal
UNION ALL
SELECT 'relation', c.oid::regclass::text, obj_description(c.oid, 'pg_class')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
"""


def catalog_snapshot(connection: Connection) -> set[tuple[str, str, str | None]]:
    return {(kind, name, note) for kind, name, note in connection.execute(SNAPSHOT).fetchall()}


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


# --- names the generated SQL uses (the search_path attack shadows them) ----------------------

_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<comment>--[^\n]*|/\*.*?\*/)
      | (?P<string>[Ee]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*')
      | (?P<dollar>\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$)
      | (?P<qident>"(?:[^"]|"")*")
      | (?P<word>[A-Za-z_][A-Za-z_0-9$]*)
      | (?P<number>[0-9]+)
      | (?P<cast>::)
      | (?P<assign>:=)
      | (?P<op>[-+*/<>=~!@\#%^&|`?]+)
      | (?P<other>.)""",
    re.X | re.S,
)
#: PL/pgSQL statements that look like a call (``IF (...)``) and are not SQL keywords.
PLPGSQL_WORDS = frozenset({"elsif", "perform", "raise", "return", "exit", "loop", "assert"})


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, name) per token; comments and string literals dropped, dollar-quote tags too
    (the generated file quotes only code with them), identifiers as the server folds them."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup or "other", match.group()
        if kind in ("space", "comment", "string", "dollar", "assign"):
            continue
        if kind == "word":
            kind, value = "ident", value.lower()
        elif kind == "qident":
            kind, value = "ident", value[1:-1].replace('""', '"')
        out.append((kind, value))
    return out


@dataclass
class UsedNames:
    """Names in the generated text that the server resolves through ``search_path``
    (qualified ones too: shadowing them costs nothing and misses nothing)."""

    operators: set[str] = field(default_factory=set)
    calls: dict[str, set[int]] = field(default_factory=dict)  # name -> arities seen
    casts: set[str] = field(default_factory=set)  # names after ``::``
    collations: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)  # every identifier (type names among them)


def _arity(items: list[tuple[str, str]], open_at: int) -> int:
    depth, commas = 0, 0
    for index in range(open_at, len(items)):
        value = items[index][1]
        if value in "([":
            depth += 1
        elif value in ")]":
            depth -= 1
            if depth == 0:
                return 0 if index == open_at + 1 else commas + 1
        elif value == "," and depth == 1:
            commas += 1
    raise AssertionError("unbalanced parentheses in generated SQL")


def _last_name(items: list[tuple[str, str]], at: int) -> tuple[str, int]:
    """The name starting at ``at``, skipping qualifiers (``pg_catalog."C"`` -> ``C``)."""
    while at + 2 < len(items) and items[at + 1] == ("other", ".") and items[at][0] == "ident":
        at += 2
    return items[at][1], at


def used_names(texts: list[str]) -> UsedNames:
    used = UsedNames()
    for text in texts:
        items = tokens(text)
        words = [value for kind, value in items if kind == "ident"]
        used.words.update(words)
        if {"in", "case", "distinct", "any", "nullif"} & set(words):
            used.operators.add("=")  # implied by IN, CASE x WHEN, IS DISTINCT FROM, = ANY
        for index, (kind, value) in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else ("", "")
            if kind == "op" and value not in ("=>", ":="):
                used.operators.add("<>" if value == "!=" else value)
            elif kind == "ident" and value == "in" and index and items[index - 1][1] == "not":
                used.operators.add("<>")  # x NOT IN (...) is x <> a AND ...
            elif kind == "cast" and following[0] == "ident":
                used.casts.add(_last_name(items, index + 1)[0])
            elif kind == "ident" and value == "collate" and following[0] == "ident":
                used.collations.add(_last_name(items, index + 1)[0])
            elif kind == "ident" and value != "operator" and following == ("other", "("):
                qualifier = items[index - 2][1] if items[index - 1] == ("other", ".") else None
                if qualifier in (None, "pg_catalog"):
                    used.calls.setdefault(value, set()).add(_arity(items, index + 1))
    return used

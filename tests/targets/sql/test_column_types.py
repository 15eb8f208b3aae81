"""Issue 23: the column's own type or collation never decides what counts as a state.

The update trigger's ``WHEN`` clause used to compare with the column's comparison rules: on a
``citext`` column, or a ``text`` column with a nondeterministic ICU collation, ``'pending' ->
'PENDING'`` was "unchanged" and the row then held a name that is no state. For every column
type a state column plausibly has, case and padding variants of every state name are refused
on INSERT and UPDATE (by the trigger, SDS01, whenever the type can hold them at all), declared
pairs pass and every other pair is refused with its SQLSTATE. A ``character(n)`` column, which
pads what it stores, is refused when the file is applied, and the file then changes nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from psycopg import sql as pgsql

from generator.targets.sql.plan import Names
from generator.targets.sql.settings import SqlBinding

from .catalog import catalog_snapshot
from .lifecycle import Lifecycle
from .postgres import (
    MISSING,
    Connection,
    Databases,
    apply_file,
    attempt,
    own_schemas,
    psql_file,
    seed,
    sqlstate,
    stored,
    table_values,
)
from .verdicts import OK, UNKNOWN, expected_insert, expected_update

NOT_READY = "SDT01"


@dataclass(frozen=True)
class ColumnType:
    """A state column's type: ``setup`` runs first (``{app}``: the table's schema, ``{sd}``:
    the generated objects' schema), ``column`` is the type as the table declares it."""

    setup: Callable[[Lifecycle], str]
    column: str
    contrib: bool = False  # needs citext or ICU
    lenient: bool = False  # its own comparison takes some variant for the state itself


def _enum(life: Lifecycle) -> str:
    labels = [*life.states, life.not_a_state()]
    quoted = ", ".join(pgsql.Literal(label).as_string(None) for label in labels)
    return f"CREATE TYPE {{app}}.status_enum AS ENUM ({quoted})"


ICU = (
    "CREATE COLLATION {app}.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
)
TYPES: dict[str, ColumnType] = {
    "text": ColumnType(lambda _: "", "text"),
    "varchar": ColumnType(lambda _: "", "varchar(40)"),
    "domain": ColumnType(lambda _: "CREATE DOMAIN {app}.status_text AS text", "{app}.status_text"),
    "enum": ColumnType(_enum, "{app}.status_enum"),
    "statedoc-domain": ColumnType(lambda _: "", "{sd}.{domain}"),
    "citext": ColumnType(lambda _: "", "public.citext", contrib=True, lenient=True),
    "icu": ColumnType(lambda _: ICU, "text COLLATE {app}.ci", contrib=True, lenient=True),
    "icu-domain": ColumnType(
        lambda _: ICU + ";\nCREATE DOMAIN {app}.status_ci AS text COLLATE {app}.ci",
        "{app}.status_ci",
        contrib=True,
        lenient=True,
    ),
}
CASES = [
    (server, name)
    for server in ("pg_dsn", "pg_contrib_dsn")
    for name, kind in TYPES.items()
    if server == "pg_contrib_dsn" or not kind.contrib
]


def variants(name: str) -> list[str]:
    """Names a lenient comparison could take for ``name``: case, blanks, invisible
    characters, full-width letters (the same at ICU strength 2)."""
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name)
    out = [
        name.upper(),
        name.title(),
        name.swapcase(),
        f"{name} ",
        f" {name}",
        f"{name}\t",
        f"{name}\n",
        f"{name}\u00a0",
        f"{name}\u200b",
        f"{name[:1]}\u00ad{name[1:]}",
        wide,
    ]
    return [v for v in dict.fromkeys(out) if v != name]


@dataclass
class Column:
    """One table whose ``status`` column has the type under test, with the spec applied."""

    admin: Connection
    life: Lifecycle
    kind: ColumnType
    table: pgsql.Composable
    type_sql: str
    rows: Iterator[int]

    def held_by_type(self, value: str | None) -> str | None:
        """The SQLSTATE with which the type itself refuses ``value`` (None: it holds it)."""
        return sqlstate(attempt(self.admin, f"SELECT %s::{self.type_sql}", (value,)))

    def equal_by_column(self, a: str, b: str) -> bool:
        """Whether the column's own ``=`` (type and collation) takes ``a`` for ``b``."""
        if self.held_by_type(a) is not None:
            return False
        found = self.admin.execute(
            f"SELECT %s::{self.type_sql} = %s::{self.type_sql}", (a, b)
        ).fetchone()
        return bool(found and found[0])


@pytest.fixture(params=CASES, ids=lambda case: f"{case[0].removesuffix('_dsn')}-{case[1]}")
def column(
    request: pytest.FixtureRequest, lifecycle: Lifecycle, databases: Databases
) -> Iterator[Column]:
    server, name = request.param
    admin = databases(request.getfixturevalue(server))
    kind = TYPES[name]
    with own_schemas(admin) as (app, sd):
        domain = Names.for_spec(lifecycle.document.spec).domain
        names = {
            key: pgsql.Identifier(v).as_string(None)
            for key, v in (("app", app), ("sd", sd), ("domain", domain))
        }
        type_sql = kind.column.format(**names)
        setup = kind.setup(lifecycle).format(**names)
        if setup:
            admin.execute(setup)
        if name == "statedoc-domain":  # the domain exists once the unbound file is applied
            assert apply_file(admin, lifecycle.render(schema=sd, binding=None)) is None
        table = pgsql.Identifier(app, "deliveries")
        admin.execute(
            pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, status {})").format(
                table, pgsql.SQL(type_sql)
            )
        )
        binding = SqlBinding("deliveries", "status", app)
        assert apply_file(admin, lifecycle.render(schema=sd, binding=binding)) is None
        yield Column(admin, lifecycle, kind, table, type_sql, itertools.count())


def _refusal(column: Column, value: str | None) -> str:
    """How writing ``value`` must fail: by the type, when it cannot hold it; else SDS01."""
    return column.held_by_type(value) or UNKNOWN


UPDATE = "UPDATE {} SET status = %s WHERE id = %s"
INSERT = "INSERT INTO {} (id, status) VALUES (%s, %s)"


def test_variants_of_state_names_are_no_states(column: Column) -> None:
    life, table = column.life, column.table
    update, insert = (pgsql.SQL(q).format(table) for q in (UPDATE, INSERT))
    taken = 0
    for state in life.states:
        targets = [state, *(b for a, b in life.declared if a == state)]
        for target in targets:
            for value in variants(target):
                want = _refusal(column, value)
                taken += column.equal_by_column(value, target)
                row = next(column.rows)
                seed(column.admin, table, row, state)
                got = sqlstate(attempt(column.admin, update, (value, row)))
                assert got == want, (state, value, got)
                assert stored(column.admin, table, row) == state
                row = next(column.rows)
                got = sqlstate(attempt(column.admin, insert, (row, value)))
                assert got == want, ("insert", value, got)
                assert stored(column.admin, table, row) == MISSING
    for other in (None, life.not_a_state()):  # the enum holds the extra label: the trigger
        want = _refusal(column, other)
        row = next(column.rows)
        seed(column.admin, table, row, life.initial[0])
        assert sqlstate(attempt(column.admin, update, (other, row))) == want, other
        assert sqlstate(attempt(column.admin, insert, (next(column.rows), other))) == want
    assert set(table_values(column.admin, table)) <= set(life.states)
    if column.kind.lenient:  # the variants are ones this column's own = takes for the state
        assert taken > 0
    else:
        assert taken == 0


def test_pairs_and_inserts_keep_their_sqlstates(column: Column) -> None:
    life, table, module = column.life, column.table, column.life.module
    update, insert = (pgsql.SQL(q).format(table) for q in (UPDATE, INSERT))
    for old, new in itertools.product(life.states, repeat=2):
        row = next(column.rows)
        seed(column.admin, table, row, old)
        want = expected_update(module, old, new)
        assert sqlstate(attempt(column.admin, update, (new, row))) == want, (old, new)
        assert stored(column.admin, table, row) == (new if want is OK else old)
    for state in life.states:
        row = next(column.rows)
        want = expected_insert(module, state)
        assert sqlstate(attempt(column.admin, insert, (row, state))) == want, state
        assert stored(column.admin, table, row) == (state if want is OK else MISSING)


#: Bindings the file must refuse to guard (SDT01): name -> (setup, table, or None for none).
NOT_GUARDABLE: dict[str, tuple[str, str | None]] = {
    "character(20)": ("", "id int PRIMARY KEY, status character(20)"),
    "domain over character(20)": (
        "CREATE DOMAIN {app}.padded AS character(20)",
        "id int PRIMARY KEY, status {app}.padded",
    ),
    "no such column": ("", "id int PRIMARY KEY, state text"),
    "no such table": ("", None),
}


@pytest.mark.parametrize("server", ["pg_dsn", "pg_contrib_dsn"])
@pytest.mark.parametrize("binding", list(NOT_GUARDABLE))
def test_an_unguardable_binding_is_refused_and_the_file_changes_nothing(
    request: pytest.FixtureRequest,
    lifecycle: Lifecycle,
    databases: Databases,
    tmp_path: Path,
    server: str,
    binding: str,
) -> None:
    admin = databases(request.getfixturevalue(server))
    setup, columns = NOT_GUARDABLE[binding]
    with own_schemas(admin) as (app, sd):
        if setup:
            admin.execute(setup.format(app=app))
        if columns is not None:
            admin.execute(f"CREATE TABLE {app}.deliveries ({columns.format(app=app)})")
        text = lifecycle.render(schema=sd, binding=SqlBinding("deliveries", "status", app))
        before = catalog_snapshot(admin)
        error = apply_file(admin, text)
        assert sqlstate(error) == NOT_READY, error
        assert error is not None and lifecycle.document.spec.id in str(error)
        assert "deliveries" in str(error)
        assert catalog_snapshot(admin) == before
        path = tmp_path / "file.postgresql.sql"
        path.write_text(text, encoding="utf-8")
        for stop_on_error in (True, False):  # plain psql -f runs on after the error
            done = psql_file(admin.info.dsn, path, stop_on_error=stop_on_error)
            assert f"ERROR:  {NOT_READY}:" in done.stderr, done.stderr
            assert done.returncode == (3 if stop_on_error else 0), done.stderr
            assert catalog_snapshot(admin) == before, stop_on_error

"""What a live PostgreSQL database holds that ``statedoc db check`` must judge: read from the
catalog, never from the objects' comments alone.

:func:`read_catalog` runs a handful of catalog queries in the caller's (read-only)
transaction and returns plain records: every function, domain, type and relation of the
configured schema, every object anywhere whose ``COMMENT`` statedoc wrote, every trigger that
executes one of those functions or sits on a bound table, and the bound columns. The
comparison with what the repository generates is :mod:`.verify`; the probes that need the
server to parse generated text are :mod:`.probe`. psycopg is imported by the caller.

Bound tables without a schema are resolved on the connection's own ``search_path`` (the
role's setting), as the applying session resolved them; everything else is read with
``search_path = pg_catalog, pg_temp`` so type and function names print schema-qualified.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: What the generated ``COMMENT ON`` carries (:attr:`SqlPlan.comment`).
COMMENT = re.compile(r"statedoc spec=(\S+) revision=(\d+) sha256=([0-9a-f]{64}) source=(.*)", re.S)
#: A ``LIKE`` pattern that selects those comments without reading every description.
_MARK = "statedoc spec=%"
#: Where deparsed names are qualified unless they live in pg_catalog.
CATALOG_PATH = "pg_catalog, pg_temp"

# pg_trigger.tgtype bits (src/include/catalog/pg_trigger.h).
_ROW, _BEFORE, _INSERT, _DELETE, _UPDATE, _TRUNCATE, _INSTEAD = 1, 2, 4, 8, 16, 32, 64


@dataclass(frozen=True)
class Comment:
    """A parsed statedoc comment: which spec, revision and document bytes made the object."""

    spec_id: str
    revision: int
    sha256: str
    source: str

    @property
    def label(self) -> str:
        return f"{self.spec_id} revision {self.revision}, sha256 {self.sha256[:12]}"


def parse_comment(text: str | None) -> Comment | None:
    match = COMMENT.fullmatch(text or "")
    if match is None:
        return None
    return Comment(match[1], int(match[2]), match[3], match[4])


@dataclass(frozen=True)
class Function:
    oid: int
    schema: str
    name: str
    signature: str  # regprocedure, qualified: statedoc.x_check(text,text)
    arg_names: tuple[str, ...]
    arg_types: tuple[str, ...]
    arg_modes: tuple[str, ...]  # () when every argument is IN
    returns: str
    returns_set: bool
    body: str
    volatility: str
    parallel: str
    config: tuple[str, ...]
    language: str
    security_definer: bool
    strict: bool
    kind: str  # prokind: f function, p procedure, a aggregate, w window
    defaults: int
    comment: Comment | None


@dataclass(frozen=True)
class Constraint:
    name: str
    kind: str  # contype: c check, n not null (PostgreSQL 17)
    validated: bool
    definition: str  # pg_get_constraintdef


@dataclass(frozen=True)
class Domain:
    oid: int
    schema: str
    name: str
    base_type: str
    not_null: bool
    constraints: tuple[Constraint, ...]
    comment: Comment | None

    @property
    def label(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class Trigger:
    oid: int
    name: str
    table_oid: int
    table: str  # regclass, qualified
    enabled: str  # tgenabled: O origin/local, A always, R replica only, D disabled
    type_bits: int
    columns: tuple[str, ...]  # UPDATE OF ...
    function_oid: int
    function: str  # regprocedure
    function_schema: str
    args: tuple[str, ...]
    parent_oid: int  # the partitioned table's trigger this one was cloned from, or 0
    constraint: bool
    transition_tables: bool
    definition: str  # pg_get_triggerdef
    comment: Comment | None

    @property
    def row(self) -> bool:
        return bool(self.type_bits & _ROW)

    @property
    def timing(self) -> str:
        if self.type_bits & _INSTEAD:
            return "INSTEAD OF"
        return "BEFORE" if self.type_bits & _BEFORE else "AFTER"

    @property
    def events(self) -> tuple[str, ...]:
        bits = ((_INSERT, "INSERT"), (_UPDATE, "UPDATE"), (_DELETE, "DELETE"))
        return tuple(name for bit, name in (*bits, (_TRUNCATE, "TRUNCATE")) if self.type_bits & bit)

    @property
    def when(self) -> str | None:
        """The deparsed ``WHEN`` condition (None without one)."""
        return when_of(self.definition)

    @property
    def label(self) -> str:
        return f"{self.name} on {self.table}"


def when_of(definition: str) -> str | None:
    """The text between ``WHEN (`` and ``) EXECUTE`` of a ``pg_get_triggerdef()`` result.

    The name and table before it are plain identifiers here (statedoc's own or validated
    bindings); the function's arguments after it are not, so the end is the last
    ``) EXECUTE FUNCTION``: a crafted argument can only make the text differ, never match."""
    start = definition.find(" FOR EACH ROW WHEN (")
    end = definition.rfind(") EXECUTE FUNCTION ")
    if start < 0 or end < start:
        return None
    return definition[start + len(" FOR EACH ROW WHEN (") : end]


@dataclass(frozen=True)
class Column:
    """A bound column as the database has it (the probe recreates its type and collation)."""

    type: str  # format_type, qualified
    collation: str | None  # qualified, quoted; None for a type without collation


@dataclass(frozen=True)
class Table:
    name: str  # as the binding names it, quoted
    oid: int | None  # None: no such relation on the connection's search_path
    label: str  # regclass, qualified (the name itself when missing)
    relkind: str
    columns: dict[str, Column]


@dataclass(frozen=True)
class Relation:
    """A table, view, sequence, ... of the schema (statedoc generates none)."""

    schema: str
    name: str
    relkind: str


@dataclass(frozen=True)
class OtherType:
    """A type of the schema that is not a domain (enum, composite, range, base)."""

    schema: str
    name: str
    typtype: str


@dataclass(frozen=True)
class Catalog:
    schema: str
    functions: tuple[Function, ...]
    domains: tuple[Domain, ...]
    types: tuple[OtherType, ...]
    relations: tuple[Relation, ...]
    triggers: tuple[Trigger, ...]
    tables: dict[str, Table]  # by the binding's quoted name

    def function(self, schema: str, name: str, arg_types: Sequence[str]) -> Function | None:
        for item in self.functions:
            if (item.schema, item.name, item.arg_types) == (schema, name, tuple(arg_types)):
                return item
        return None

    def domain(self, schema: str, name: str) -> Domain | None:
        return next((d for d in self.domains if (d.schema, d.name) == (schema, name)), None)

    def trigger(self, table_oid: int, name: str) -> Trigger | None:
        return next((t for t in self.triggers if (t.table_oid, t.name) == (table_oid, name)), None)


_FUNCTIONS = """
SELECT p.oid, n.nspname, p.proname, p.oid::pg_catalog.regprocedure::pg_catalog.text,
       coalesce(p.proargnames, '{}'),
       ARRAY(SELECT pg_catalog.format_type(u.t, NULL)
               FROM pg_catalog.unnest(p.proargtypes) WITH ORDINALITY u(t, i) ORDER BY u.i),
       coalesce(p.proargmodes::pg_catalog.text[], '{}'),
       pg_catalog.format_type(p.prorettype, NULL), p.proretset, p.prosrc, p.provolatile,
       p.proparallel, coalesce(p.proconfig, '{}'), l.lanname, p.prosecdef, p.proisstrict,
       p.prokind, p.pronargdefaults, d.description
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_catalog.pg_language l ON l.oid = p.prolang
  LEFT JOIN pg_catalog.pg_description d
    ON d.classoid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objoid = p.oid
   AND d.objsubid = 0
 WHERE n.nspname = %(schema)s OR d.description LIKE %(mark)s
 ORDER BY 4
"""

_DOMAINS = """
SELECT t.oid, n.nspname, t.typname, pg_catalog.format_type(t.typbasetype, t.typtypmod),
       t.typnotnull, d.description
  FROM pg_catalog.pg_type t
  JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
  LEFT JOIN pg_catalog.pg_description d
    ON d.classoid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objoid = t.oid
 WHERE t.typtype = 'd' AND (n.nspname = %(schema)s OR d.description LIKE %(mark)s)
 ORDER BY 2, 3
"""

_CONSTRAINTS = """
SELECT c.contypid, c.conname, c.contype, c.convalidated, pg_catalog.pg_get_constraintdef(c.oid)
  FROM pg_catalog.pg_constraint c
 WHERE c.contypid = ANY (%(domains)s::pg_catalog.oid[])
 ORDER BY 2
"""

#: Types of the schema other than domains, their array types and relations' row types.
_TYPES = """
SELECT n.nspname, t.typname, t.typtype
  FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname = %(schema)s AND t.typtype <> 'd' AND t.typrelid = 0
   AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.typarray = t.oid)
 ORDER BY 2
"""

_RELATIONS = """
SELECT n.nspname, c.relname, c.relkind
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = %(schema)s AND c.relkind <> ALL (ARRAY['i', 'I', 't']::pg_catalog."char"[])
 ORDER BY 2
"""

_TRIGGERS = """
SELECT g.oid, g.tgname, g.tgrelid, g.tgrelid::pg_catalog.regclass::pg_catalog.text,
       g.tgenabled, g.tgtype,
       ARRAY(SELECT a.attname::pg_catalog.text
               FROM pg_catalog.unnest(g.tgattr) WITH ORDINALITY u(k, i)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = g.tgrelid AND a.attnum = u.k
              ORDER BY u.i),
       g.tgfoid, g.tgfoid::pg_catalog.regprocedure::pg_catalog.text, fn.nspname, g.tgargs,
       g.tgparentid,
       g.tgconstraint <> 0, g.tgoldtable IS NOT NULL OR g.tgnewtable IS NOT NULL,
       pg_catalog.pg_get_triggerdef(g.oid), d.description
  FROM pg_catalog.pg_trigger g
  JOIN pg_catalog.pg_proc f ON f.oid = g.tgfoid
  JOIN pg_catalog.pg_namespace fn ON fn.oid = f.pronamespace
  LEFT JOIN pg_catalog.pg_description d
    ON d.classoid = 'pg_catalog.pg_trigger'::pg_catalog.regclass AND d.objoid = g.oid
 WHERE NOT g.tgisinternal
   AND (fn.nspname = %(schema)s OR g.tgfoid = ANY (%(functions)s::pg_catalog.oid[])
        OR g.tgrelid = ANY (%(tables)s::pg_catalog.oid[]) OR d.description LIKE %(mark)s)
 ORDER BY 4, 2
"""

_COLUMNS = """
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
       CASE WHEN a.attcollation <> 0 THEN
         pg_catalog.quote_ident(cn.nspname) || '.' || pg_catalog.quote_ident(co.collname) END
  FROM pg_catalog.pg_attribute a
  LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
  LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace
 WHERE a.attrelid = %(table)s AND a.attnum > 0 AND NOT a.attisdropped
"""


def read_catalog(connection: Any, schema: str, tables: Iterable[str]) -> Catalog:
    """The catalog as :mod:`.verify` needs it. ``tables`` are the bound tables' quoted,
    possibly schema-qualified names; run inside one read-only transaction."""
    resolved = _resolve(connection, tables)  # before search_path changes: as applied
    connection.execute(f"SET LOCAL search_path = {CATALOG_PATH}")
    for name, (oid, _, _) in list(resolved.items()):
        if oid is not None:
            row = connection.execute(
                "SELECT %(t)s::pg_catalog.regclass::pg_catalog.text", {"t": oid}
            ).fetchone()
            resolved[name] = (oid, row[0], resolved[name][2])
    params: dict[str, object] = {"schema": schema, "mark": _MARK}
    functions = tuple(_function(row) for row in connection.execute(_FUNCTIONS, params))
    domains = _domains(connection, params)
    table_oids = [oid for oid, _, _ in resolved.values() if oid is not None]
    trigger_params = {
        **params,
        "functions": [f.oid for f in functions],
        "tables": table_oids,
    }
    triggers = tuple(_trigger(row) for row in connection.execute(_TRIGGERS, trigger_params))
    return Catalog(
        schema=schema,
        functions=functions,
        domains=domains,
        types=tuple(OtherType(*row) for row in connection.execute(_TYPES, params)),
        relations=tuple(Relation(*row) for row in connection.execute(_RELATIONS, params)),
        triggers=triggers,
        tables={
            name: Table(
                name,
                oid,
                label,
                relkind,
                _columns(connection, oid) if oid is not None else {},
            )
            for name, (oid, label, relkind) in resolved.items()
        },
    )


def _resolve(connection: Any, tables: Iterable[str]) -> dict[str, tuple[int | None, str, str]]:
    """Each bound table's oid (None when missing), label and relkind."""
    out: dict[str, tuple[int | None, str, str]] = {}
    for name in dict.fromkeys(tables):
        row = connection.execute(
            "SELECT c.oid, c.relkind FROM pg_catalog.pg_class c "
            "WHERE c.oid = pg_catalog.to_regclass(%(name)s)",
            {"name": name},
        ).fetchone()
        out[name] = (None, name, "") if row is None else (int(row[0]), name, str(row[1]))
    return out


def _function(row: Sequence[Any]) -> Function:
    return Function(
        oid=int(row[0]),
        schema=row[1],
        name=row[2],
        signature=row[3],
        arg_names=tuple(row[4]),
        arg_types=tuple(row[5]),
        arg_modes=tuple(row[6]),
        returns=row[7],
        returns_set=bool(row[8]),
        body=row[9] or "",
        volatility=str(row[10]),
        parallel=str(row[11]),
        config=tuple(row[12]),
        language=row[13],
        security_definer=bool(row[14]),
        strict=bool(row[15]),
        kind=str(row[16]),
        defaults=int(row[17]),
        comment=parse_comment(row[18]),
    )


def _domains(connection: Any, params: dict[str, object]) -> tuple[Domain, ...]:
    rows = connection.execute(_DOMAINS, params).fetchall()
    constraints: dict[int, list[Constraint]] = {}
    oids = [int(row[0]) for row in rows]
    for oid, name, kind, validated, definition in connection.execute(
        _CONSTRAINTS, {"domains": oids}
    ):
        constraints.setdefault(int(oid), []).append(
            Constraint(name, str(kind), bool(validated), definition)
        )
    return tuple(
        Domain(
            oid=int(row[0]),
            schema=row[1],
            name=row[2],
            base_type=row[3],
            not_null=bool(row[4]),
            constraints=tuple(constraints.get(int(row[0]), ())),
            comment=parse_comment(row[5]),
        )
        for row in rows
    )


def _trigger(row: Sequence[Any]) -> Trigger:
    raw: bytes = bytes(row[10] or b"")
    args = tuple(a.decode("utf-8", "replace") for a in raw.split(b"\x00")[:-1]) if raw else ()
    return Trigger(
        oid=int(row[0]),
        name=row[1],
        table_oid=int(row[2]),
        table=row[3],
        enabled=str(row[4]),
        type_bits=int(row[5]),
        columns=tuple(row[6]),
        function_oid=int(row[7]),
        function=row[8],
        function_schema=row[9],
        args=args,
        parent_oid=int(row[11]),
        constraint=bool(row[12]),
        transition_tables=bool(row[13]),
        definition=row[14] or "",
        comment=parse_comment(row[15]),
    )


def _columns(connection: Any, oid: int) -> dict[str, Column]:
    return {
        name: Column(type_, collation)
        for name, type_, collation in connection.execute(_COLUMNS, {"table": oid})
    }

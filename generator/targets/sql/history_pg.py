"""The PostgreSQL objects of a bound column's history (:mod:`.history`), and their DDL.

- the table ``<table>_<column>_history`` in the bound table's schema, created once and never
  altered by a later revision (its rows survive every upgrade);
- the recorder ``<name>_history()``: an AFTER ROW trigger function, ``SECURITY DEFINER`` so
  that writers need no privilege on the history at all (they cannot add a made-up row, only
  the database writes it), with ``SET search_path = pg_catalog, pg_temp`` and every name in it
  schema-qualified, as PostgreSQL's guidance for such functions asks. EXECUTE on it is
  revoked from everyone but its owner: a role that may execute it could attach it to a table
  of its own and write rows as the owner;
- two triggers on the bound table: AFTER INSERT, and AFTER UPDATE OF the column when the
  state really changes (an UPDATE that rewrites the same state is no transition and is not
  recorded; neither is a declared self-loop, which the database cannot tell from one);
- ``<name>_history_append_only()`` and a BEFORE UPDATE OR DELETE OR TRUNCATE statement
  trigger on the history that refuses all three, for everyone: its owner can drop the
  trigger, nobody else can;
- privileges: every INSERT, UPDATE, DELETE, TRUNCATE or TRIGGER privilege on the history (or
  a column of it) held by a role other than its owner, from a GRANT or from default
  privileges, is revoked on every apply.

``changed_by`` is the role the writing session acts as: ``SET ROLE``'s role, else the login
role. Inside a SECURITY DEFINER function ``current_user`` names the function's owner, so the
recorder reads the ``role`` setting, which ``SET ROLE`` (and nothing else) changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from generator.targets.sql import history as h
from generator.targets.sql.names import dollar_quote, ident, pg_literal, qualified
from generator.targets.sql.pg_functions import SEARCH_PATH, PgFunction, PgTrigger, distinct
from generator.targets.sql.plan import SqlPlan

SQLSTATE_APPEND_ONLY = "SDH01"  # UPDATE, DELETE or TRUNCATE of a history table
#: Privileges nobody but the owner may hold on a history table.
WRITE_PRIVILEGES = ("INSERT", "UPDATE", "DELETE", "TRUNCATE", "TRIGGER")

_PG_TYPES = {
    h.ID: "pg_catalog.int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    h.ROW_KEY: "pg_catalog.jsonb NOT NULL",
    h.FROM_STATE: "pg_catalog.text",
    h.TO_STATE: "pg_catalog.text NOT NULL",
    h.CHANGED_AT: "pg_catalog.timestamptz NOT NULL",
    h.CHANGED_BY: "pg_catalog.text NOT NULL",
    h.APPLICATION_NAME: "pg_catalog.text",
    h.TRANSACTION_ID: "pg_catalog.xid8",
    h.REVISION: "pg_catalog.int4 NOT NULL",
    h.KIND: "pg_catalog.text NOT NULL",
}
#: The role the writing session acts as (see the module docstring).
ACTOR = (
    "CASE WHEN pg_catalog.current_setting('role') OPERATOR(pg_catalog.=) 'none'"
    " THEN SESSION_USER::pg_catalog.text ELSE pg_catalog.current_setting('role') END"
)


@dataclass(frozen=True)
class PgHistoryTable:
    schema: str
    name: str
    keys: tuple[str, ...]  # the bound table's key column(s), recorded in row_key

    @property
    def qualified(self) -> str:
        return qualified(self.schema, self.name)


@dataclass(frozen=True)
class PgAppendOnly:
    """The statement trigger on the history refusing UPDATE, DELETE and TRUNCATE."""

    name: str
    table: PgHistoryTable
    function: PgFunction
    events: tuple[str, ...] = ("UPDATE", "DELETE", "TRUNCATE")


@dataclass(frozen=True)
class PgHistory:
    table: PgHistoryTable
    recorder: PgFunction
    triggers: tuple[PgTrigger, PgTrigger]  # AFTER INSERT, AFTER UPDATE OF the column
    refuser: PgFunction
    append_only: PgAppendOnly

    @property
    def functions(self) -> tuple[PgFunction, PgFunction]:
        return (self.recorder, self.refuser)


def _insert(plan: SqlPlan, table: PgHistoryTable, old: str, kind: str) -> str:
    assert plan.binding is not None
    column = ident(plan.binding.column)
    values = (
        h.pg_row_key(table.keys, "NEW"),
        old,
        f"NEW.{column}::pg_catalog.text",
        "pg_catalog.clock_timestamp()",
        ACTOR,
        "pg_catalog.current_setting('application_name', true)",
        "pg_catalog.pg_current_xact_id()",
        f"{plan.spec.revision:d}",
        pg_literal(kind),
    )
    columns = ", ".join(ident(c) for c in h.WRITTEN)
    rows = ",\n      ".join(values)
    return f"INSERT INTO {table.qualified} ({columns})\n    VALUES ({rows});"


def _recorder_body(plan: SqlPlan, table: PgHistoryTable) -> str:
    assert plan.binding is not None
    old = f"OLD.{ident(plan.binding.column)}::pg_catalog.text"
    return f"""
BEGIN
  IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
    {_insert(plan, table, "NULL", h.KIND_INSERT)}
  ELSE
    {_insert(plan, table, old, h.KIND_UPDATE)}
  END IF;
  RETURN NULL;
END
"""


def _refuser_body(plan: SqlPlan) -> str:
    message = (
        "pg_catalog.format('statedoc: %I.%I is the append-only history of spec %s: %s is "
        f"refused', TG_TABLE_SCHEMA, TG_TABLE_NAME, {pg_literal(plan.spec.id)}, TG_OP)"
    )
    hint = pg_literal("history rows are never changed; its owner may drop this trigger")
    return f"""
BEGIN
  RAISE EXCEPTION USING ERRCODE = '{SQLSTATE_APPEND_ONLY}',
    MESSAGE = {message},
    HINT = {hint};
END
"""


def pg_history(plan: SqlPlan) -> PgHistory | None:
    """The history objects of ``plan``, or None when its binding keeps no history."""
    binding = plan.binding
    if binding is None or not binding.history:
        return None
    schema, name = h.history_table(binding)
    table = PgHistoryTable(schema, name, binding.key)
    names = plan.names
    config = (f"search_path={SEARCH_PATH}",)
    recorder = PgFunction(
        schema=plan.schema,
        name=names.history_function,
        arg_names=(),
        arg_types=(),
        returns="trigger",
        body=_recorder_body(plan, table),
        volatility="v",
        parallel="u",
        config=config,
        security_definer=True,
    )
    refuser = PgFunction(
        schema=plan.schema,
        name=names.append_only_function,
        arg_names=(),
        arg_types=(),
        returns="trigger",
        body=_refuser_body(plan),
        volatility="v",
        parallel="u",
        config=config,
    )
    column = ident(binding.column)
    where = (binding.schema, binding.table, binding.column)
    insert = PgTrigger(
        names.history_insert_trigger,
        *where,
        event="INSERT",
        function=recorder,
        when=None,
        timing="AFTER",
    )
    update = PgTrigger(
        names.history_update_trigger,
        *where,
        event="UPDATE",
        function=recorder,
        when=distinct(f"OLD.{column}", f"NEW.{column}"),
        timing="AFTER",
    )
    append_only = PgAppendOnly(names.append_only_trigger, table, refuser)
    return PgHistory(table, recorder, (insert, update), refuser, append_only)


# --- DDL ----------------------------------------------------------------------------------


def create_table(history: PgHistory, comment: str) -> str:
    """``CREATE TABLE IF NOT EXISTS``: an existing history keeps its rows (the guard has
    checked that it is this spec's and its owner's)."""
    table = history.table.qualified
    columns = ",\n".join(f"  {ident(c)} {_PG_TYPES[c]}" for c in h.COLUMNS)
    return (
        f"CREATE TABLE IF NOT EXISTS {table} (\n{columns}\n);\n"
        f"COMMENT ON TABLE {table} IS {comment};\n"
    )


def _grantees(acl: str, owner: str, source: str, where: str, privileges: tuple[str, ...]) -> str:
    """A query for the roles other than the owner holding one of ``privileges`` in ``acl``
    (an ``aclitem[]`` expression over ``source`` filtered by ``where``), as ``REVOKE ... FROM``
    names them."""
    listed = ", ".join(pg_literal(p) for p in privileges)
    return (
        "SELECT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'"
        " ELSE pg_catalog.quote_ident(r.rolname) END"
        f"\n      FROM {source}"
        f"\n     CROSS JOIN LATERAL pg_catalog.aclexplode({acl}) a"
        "\n      LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee"
        f"\n     WHERE {where} AND a.grantee OPERATOR(pg_catalog.<>) {owner}"
        "\n       AND a.privilege_type OPERATOR(pg_catalog.=)"
        f" ANY (ARRAY[{listed}]::pg_catalog.text[])"
    )


def revoke_writers(history: PgHistory) -> str:
    """The ``DO`` block that leaves the history writable by its owner only, and its recorder
    executable by its owner only (see the module docstring)."""
    table = pg_literal(history.table.qualified)
    recorder = pg_literal(history.recorder.signature)
    is_table = f"c.oid OPERATOR(pg_catalog.=) {table}::pg_catalog.regclass"
    table_acl = _grantees(
        "coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))",
        "c.relowner",
        "pg_catalog.pg_class c",
        is_table,
        WRITE_PRIVILEGES,
    )
    column_acl = _grantees(
        "t.attacl",
        "c.relowner",
        "pg_catalog.pg_class c JOIN pg_catalog.pg_attribute t"
        " ON t.attrelid OPERATOR(pg_catalog.=) c.oid",
        f"{is_table} AND t.attacl IS NOT NULL",
        ("INSERT", "UPDATE"),
    )
    function_acl = _grantees(
        "coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))",
        "p.proowner",
        "pg_catalog.pg_proc p",
        f"p.oid OPERATOR(pg_catalog.=) {recorder}::pg_catalog.regprocedure",
        ("EXECUTE",),
    )
    writes = ", ".join(WRITE_PRIVILEGES)
    body = f"""
DECLARE
  grantee pg_catalog.text;
BEGIN
  FOR grantee IN
    {table_acl}
    UNION
    {column_acl}
  LOOP
    EXECUTE pg_catalog.format('REVOKE {writes} ON TABLE %s FROM %s CASCADE', {table}, grantee);
  END LOOP;
  FOR grantee IN
    {function_acl}
  LOOP
    EXECUTE pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM %s CASCADE', {recorder},
      grantee);
  END LOOP;
END
"""
    return f"DO {dollar_quote(body)};\n"


def append_only_trigger(history: PgHistory, comment: str) -> str:
    trigger = history.append_only
    name, table = ident(trigger.name), trigger.table.qualified
    return (
        f"CREATE OR REPLACE TRIGGER {name}\n"
        f"  BEFORE {' OR '.join(trigger.events)} ON {table} FOR EACH STATEMENT\n"
        f"  EXECUTE FUNCTION {trigger.function.qualified}();\n"
        f"COMMENT ON TRIGGER {name} ON {table} IS {comment};\n"
    )


def history_checks(
    plan: SqlPlan, history: PgHistory, refuse: Callable[[str, str, str], str]
) -> str:
    """Guard statements (inside the guard's ``DO`` block, after ``relation`` is the bound
    table): the key columns exist; an unqualified bound table is in the history's schema;
    an existing history is this spec's table and belongs to the applying role."""
    assert plan.binding is not None
    binding, table = plan.binding, history.table
    about = f"statedoc: spec {plan.spec.id} revision {plan.spec.revision}"
    parts = []
    for key in table.keys:
        missing = refuse(
            "SDT01",
            f"{about}: the table has no column {ident(key)}, the key its history records",
            "add the column, or configure the key: storage key (or the binding's key = [...])",
        )
        parts.append(
            f"""
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
                  WHERE a.attrelid OPERATOR(pg_catalog.=) relation
                    AND a.attname OPERATOR(pg_catalog.=) {pg_literal(key)}
                    AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped) THEN
    {missing}
  END IF;"""
        )
    if binding.schema is None:
        elsewhere = refuse(
            "SDT01",
            f"{about}: the bound table is not in the schema {ident(table.schema)}, where a "
            "binding without a schema keeps its history",
            "name the table's schema in the binding (storage schema, or schema = ...)",
        )
        parts.append(
            f"""
  IF (SELECT c.relnamespace FROM pg_catalog.pg_class c
       WHERE c.oid OPERATOR(pg_catalog.=) relation)
     OPERATOR(pg_catalog.<>) pg_catalog.to_regnamespace({pg_literal(ident(table.schema))}) THEN
    {elsewhere}
  END IF;"""
        )
    foreign = refuse(
        "SDT01",
        f"{about}: {table.qualified} exists but is not a table owned by you (or by a role you "
        "are a member of, unless you are a superuser) that statedoc made for this spec",
        "apply the file as the owner of the history, or drop or rename that relation",
    )
    marker = pg_literal(f"statedoc spec={plan.spec.id} ")
    parts.append(
        f"""
  history := pg_catalog.to_regclass({pg_literal(table.qualified)});
  IF history IS NOT NULL AND NOT coalesce((
      SELECT c.relkind OPERATOR(pg_catalog.=) 'r'
         AND (c.relowner OPERATOR(pg_catalog.=) me.oid
              OR (NOT me.rolsuper AND pg_catalog.pg_has_role(c.relowner, 'MEMBER')))
         AND pg_catalog.starts_with(pg_catalog.obj_description(c.oid, 'pg_class'), {marker})
        FROM pg_catalog.pg_class c, pg_catalog.pg_roles me
       WHERE c.oid OPERATOR(pg_catalog.=) history
         AND me.rolname OPERATOR(pg_catalog.=) CURRENT_USER), false) THEN
    {foreign}
  END IF;"""
    )
    return "".join(parts)

"""The PostgreSQL file of one spec (PostgreSQL 14 or later).

Objects, all in the configured schema and each with ``COMMENT ON`` spec id, revision and
SHA-256: a domain ``<name>_state`` for the state names, the pure check function
``<name>_check(from text, to text)``, the trigger function ``<name>_trigger()`` and, with a
binding, the INSERT and UPDATE triggers on the bound table (:mod:`.pg_functions` says what
each holds and why nothing in it depends on the session that runs it).

The file is one transaction (``BEGIN`` ... ``COMMIT``): applied with plain ``psql -f``, an
error anywhere leaves the database as it was. Before changing anything it checks, and refuses
with SQLSTATE ``SDT01`` or ``SDR01``:

- the bound table and column exist, and the column's type can be guarded (``character(n)``
  pads values with blanks, so the stored text would not be the state name);
- the schema is owned by a role the applying user belongs to (its owner could drop the guard);
- the database does not hold a newer revision of the spec (or another spec's objects under
  these names), unless the session sets ``statedoc.allow_downgrade = on``.

Every statement is idempotent, so the file can be applied again, or a later revision applied
over it.
"""

from __future__ import annotations

from generator.targets.sql.history_pg import (
    append_only_trigger,
    create_table,
    history_checks,
    pg_history,
    revoke_writers,
)
from generator.targets.sql.migrate import render_migration
from generator.targets.sql.names import (
    comment_line,
    dollar_quote,
    fit_name,
    ident,
    message_text,
    pg_literal,
)
from generator.targets.sql.pg_functions import (
    PgFunction,
    PgObjects,
    PgTrigger,
    pg_objects,
)
from generator.targets.sql.plan import SqlPlan

SQLSTATE_NOT_READY = "SDT01"  # the bound table or column is missing or cannot be guarded
SQLSTATE_NEWER = "SDR01"  # the database holds a newer revision (or another spec) already
ALLOW_DOWNGRADE = "statedoc.allow_downgrade"
#: What the guard reads back from the domain's comment, as an ``E''`` literal: a plain
#: ``'...\\S...'`` would lose its backslash under ``standard_conforming_strings = off``.
_INSTALLED = pg_literal("^statedoc spec=(\\S+) revision=([0-9]+) ")


def _refuse(code: str, message: str, hint: str) -> str:
    return (
        f"RAISE EXCEPTION USING ERRCODE = '{code}',\n"
        f"      MESSAGE = {pg_literal(message_text(message))},\n"
        f"      HINT = {pg_literal(message_text(hint))};"
    )


def _binding_checks(plan: SqlPlan) -> str:
    binding = plan.binding
    if binding is None:
        return ""
    table = (
        ident(binding.table)
        if binding.schema is None
        else (f"{ident(binding.schema)}.{ident(binding.table)}")
    )
    about = f"statedoc: spec {plan.spec.id} revision {plan.spec.revision}"
    missing = _refuse(
        SQLSTATE_NOT_READY,
        f"{about}: the table {table} does not exist",
        "create the table first (this file adds triggers to it), then apply this file",
    )
    not_table = _refuse(
        SQLSTATE_NOT_READY,
        f"{about}: {table} is not a table",
        "bind the spec to the table that stores the state",
    )
    no_column = _refuse(
        SQLSTATE_NOT_READY,
        f"{about}: the table {table} has no column {ident(binding.column)}",
        "add the column, or bind the spec to the column that holds the state",
    )
    padded = _refuse(
        SQLSTATE_NOT_READY,
        f"{about}: the column {ident(binding.column)} of {table} is character(n), which pads "
        "values with blanks, so what it stores is not the state name",
        "use text or varchar (or the generated domain) for the state column",
    )
    partitioned = _refuse(
        SQLSTATE_NOT_READY,
        f"{about}: {table} is partitioned by {ident(binding.column)}: a row that changes state "
        "moves to another partition as an INSERT there, which no trigger can tell from a new row",
        "partition the table by another column",
    )
    return f"""
  relation := pg_catalog.to_regclass({pg_literal(table)});
  IF relation IS NULL THEN
    {missing}
  END IF;
  IF NOT (SELECT c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'f']::pg_catalog."char"[])
          FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) relation) THEN
    {not_table}
  END IF;
  SELECT a.atttypid INTO type_id FROM pg_catalog.pg_attribute a
   WHERE a.attrelid OPERATOR(pg_catalog.=) relation
     AND a.attname OPERATOR(pg_catalog.=) {pg_literal(binding.column)}
     AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
  IF type_id IS NULL THEN
    {no_column}
  END IF;
  LOOP  -- a domain's base type, and its base type's, ...
    SELECT t.typbasetype INTO base_id FROM pg_catalog.pg_type t
     WHERE t.oid OPERATOR(pg_catalog.=) type_id AND t.typtype OPERATOR(pg_catalog.=) 'd';
    EXIT WHEN base_id IS NULL;
    type_id := base_id;
    base_id := NULL;
  END LOOP;
  IF type_id OPERATOR(pg_catalog.=) 'pg_catalog.bpchar'::pg_catalog.regtype THEN
    {padded}
  END IF;
  IF EXISTS (  -- a column in a partition key depends on its table (PostgreSQL's own record)
    SELECT FROM pg_catalog.pg_partition_tree(relation) tree
      JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) tree.relid
       AND a.attname OPERATOR(pg_catalog.=) {pg_literal(binding.column)}
      JOIN pg_catalog.pg_depend d
        ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objid OPERATOR(pg_catalog.=) tree.relid
       AND d.objsubid OPERATOR(pg_catalog.=) a.attnum
       AND d.refobjid OPERATOR(pg_catalog.=) tree.relid
       AND d.refobjsubid OPERATOR(pg_catalog.=) 0
       AND d.deptype OPERATOR(pg_catalog.=) 'i') THEN
    {partitioned}
  END IF;{_history_checks(plan)}"""


def _history_declare(plan: SqlPlan) -> str:
    return "\n  history pg_catalog.regclass;" if plan.history else ""


def _history_checks(plan: SqlPlan) -> str:
    history = pg_history(plan)
    return "" if history is None else history_checks(plan, history, _refuse)


def _guard(plan: SqlPlan, domain: str) -> str:
    """The ``DO`` block that refuses to apply the file where it would do harm."""
    about = f"statedoc: spec {plan.spec.id} revision {plan.spec.revision}"
    foreign_schema = _refuse(
        SQLSTATE_NOT_READY,
        f"{about}: the schema {ident(plan.schema)} is owned by a role you are not a member of; "
        "its owner could drop or replace the functions that guard the table",
        "apply the file as the schema's owner, or configure another schema",
    )
    downgrade = (
        f"apply the newer file, or set {ALLOW_DOWNGRADE} = on for this session to replace it "
        f"(PGOPTIONS='-c {ALLOW_DOWNGRADE}=on' psql -f FILE)"
    )
    body = f"""
DECLARE
  installed pg_catalog.text[];
  relation pg_catalog.regclass;
  type_id pg_catalog.oid;
  base_id pg_catalog.oid;{_history_declare(plan)}
BEGIN
  IF pg_catalog.to_regnamespace({pg_literal(ident(plan.schema))}) IS NULL THEN
    CREATE SCHEMA {ident(plan.schema)};  -- in here: CREATE SCHEMA IF NOT EXISTS needs CREATE
  END IF;                                -- on the database even when the schema exists
  IF NOT (SELECT pg_catalog.pg_has_role(n.nspowner, 'MEMBER') FROM pg_catalog.pg_namespace n
          WHERE n.nspname OPERATOR(pg_catalog.=) {pg_literal(plan.schema)}) THEN
    {foreign_schema}
  END IF;
  installed := pg_catalog.regexp_match(
    pg_catalog.obj_description(pg_catalog.to_regtype({pg_literal(domain)}), 'pg_type'),
    {_INSTALLED});
  IF installed IS NOT NULL
     AND (installed[1] OPERATOR(pg_catalog.<>) {pg_literal(plan.spec.id)}
          OR installed[2]::pg_catalog.numeric OPERATOR(pg_catalog.>) {plan.spec.revision:d})
     AND coalesce(pg_catalog.current_setting({pg_literal(ALLOW_DOWNGRADE)}, true), '')
         OPERATOR(pg_catalog.<>) 'on' THEN
    RAISE EXCEPTION USING ERRCODE = '{SQLSTATE_NEWER}',
      MESSAGE = pg_catalog.format('%s: the database holds spec %s revision %s, which this file'
        ' would replace', {pg_literal(about)}, installed[1], installed[2]),
      HINT = {pg_literal(downgrade)};
  END IF;{_binding_checks(plan)}
END
"""
    return f"DO {dollar_quote(body)};\n"


_VOLATILITY = {"i": "IMMUTABLE", "s": "STABLE", "v": "VOLATILE"}
_PARALLEL = {"s": "PARALLEL SAFE", "r": "PARALLEL RESTRICTED", "u": "PARALLEL UNSAFE"}


def _function(function: PgFunction, comment: str) -> str:
    args = ", ".join(
        f"{n} {t}" for n, t in zip(function.arg_names, function.arg_types, strict=True)
    )
    settings = "".join(
        f"\nSET {key} = {value}" for key, _, value in (c.partition("=") for c in function.config)
    )
    return (
        f"CREATE OR REPLACE FUNCTION {function.qualified}({args}) RETURNS {function.returns}\n"
        f"LANGUAGE {function.language} {_VOLATILITY[function.volatility]} "
        f"{_PARALLEL[function.parallel]}{' SECURITY DEFINER' if function.security_definer else ''}"
        f"{settings}\n"
        f"AS {dollar_quote(function.body)};\n"
        f"COMMENT ON FUNCTION {function.signature} IS {comment};\n"
    )


def _trigger(trigger: PgTrigger, comment: str) -> str:
    name, table = ident(trigger.name), trigger.table_name
    event = "INSERT" if trigger.event == "INSERT" else f"UPDATE OF {ident(trigger.column)}"
    when = "" if trigger.when is None else f"  WHEN ({trigger.when})\n"
    return (
        f"CREATE OR REPLACE TRIGGER {name}\n"
        f"  {trigger.timing} {event} ON {table} FOR EACH ROW\n"
        f"{when}"
        f"  EXECUTE FUNCTION {trigger.function.qualified}();\n"
        f"COMMENT ON TRIGGER {name} ON {table} IS {comment};\n"
    )


def _domain(objects: PgObjects, comment: str) -> str:
    domain = objects.domain
    create = f"""
BEGIN
  IF pg_catalog.to_regtype({pg_literal(domain.qualified)}) IS NULL THEN
    CREATE DOMAIN {domain.qualified} AS pg_catalog.text;
  END IF;
END
"""
    constraint = ident(domain.constraint)
    return (
        f"DO {dollar_quote(create)};\n"
        f"ALTER DOMAIN {domain.qualified} DROP CONSTRAINT IF EXISTS {constraint};\n"
        f"ALTER DOMAIN {domain.qualified} ADD CONSTRAINT {constraint} CHECK ({domain.check});\n"
        f"COMMENT ON DOMAIN {domain.qualified} IS {comment};\n"
    )


def _history_table(plan: SqlPlan, comment: str) -> list[str]:
    """The history table (before a migration, which records its moves there); nothing
    without history."""
    history = pg_history(plan)
    if history is None:
        return []
    return [
        "-- The transition history: written by the database only, never changed.",
        create_table(history, comment),
    ]


def _history(plan: SqlPlan, comment: str) -> list[str]:
    """The history's recorder and refuser, their triggers and the privileges
    (:mod:`.history_pg`); nothing without history."""
    history = pg_history(plan)
    if history is None:
        return []
    return [
        *(_function(function, comment) for function in history.functions),
        *(_trigger(trigger, comment) for trigger in history.triggers),
        append_only_trigger(history, comment),
        revoke_writers(history),
    ]


def render_postgresql(plan: SqlPlan, header: str) -> str:
    objects = pg_objects(plan)
    comment = pg_literal(message_text(plan.comment))
    parts = [
        header,
        "-- PostgreSQL 14 or later. One transaction: psql -v ON_ERROR_STOP=1 -f FILE (with plain",
        "-- psql -f an error still changes nothing). Idempotent: apply it again, or a later",
        "-- revision over it. Create the bound table first.",
        "",
        "SET client_encoding = 'UTF8';",
        "BEGIN;",
        _guard(plan, objects.domain.qualified),
        *_history_table(plan, comment),
        render_migration(plan, objects.domain),
        _domain(objects, comment),
        *(_function(function, comment) for function in objects.functions),
        *(_trigger(trigger, comment) for trigger in objects.triggers),
        *_history(plan, comment),
        "COMMIT;\n",
    ]
    if not objects.triggers:
        trigger_function = objects.functions[1].qualified
        parts.append(
            "-- No binding (front matter `storage` or [tool.statedoc.sql.bindings]): attach the\n"
            "-- trigger function yourself, naming the column that holds the state:\n"
            f"-- CREATE TRIGGER {comment_line(ident(fit_name('statedoc_' + plan.names.base)))}\n"
            "--   BEFORE INSERT OR UPDATE ON my_table\n"
            f"--   FOR EACH ROW EXECUTE FUNCTION {comment_line(trigger_function)}('my_column');\n"
        )
    return "\n".join(parts)

"""The PostgreSQL file of one spec (PostgreSQL 14 or later).

Objects, all in the configured schema and each with ``COMMENT ON`` spec id, revision and
SHA-256: a domain ``<name>_state`` for the state names, the pure check function
``<name>_check(from text, to text)``, the trigger function ``<name>_trigger()`` and, with a
binding, the INSERT and UPDATE triggers on the bound table. Every statement is idempotent,
so the file can be applied again, or a later revision applied over it, in one transaction.

The bound triggers' ``WHEN`` clauses decide the common case without PL/pgSQL: an unchanged
state or a declared pair (a ``CASE`` on the old state, ``lookup="case"``) never calls the
trigger function; anything else calls it, and it raises with the SQLSTATE that says why.
``benchmarks/bench_sql.py`` compares the three ways to test a pair: ``CASE`` and an array of
encoded pairs cost the same within noise (both run inline in ``WHEN``); a lookup table cannot
(``WHEN`` allows no subquery) and costs ~2.5x more on a bulk UPDATE. ``CASE`` is generated: as
fast, and readable.
"""

from __future__ import annotations

from typing import Literal

from generator.targets.sql.names import (
    comment_line,
    fit_name,
    ident,
    message_text,
    pg_literal,
    qualified,
)
from generator.targets.sql.plan import (
    SQLSTATE_FORBIDDEN,
    SQLSTATE_NOT_INITIAL,
    SQLSTATE_UNDECLARED,
    SQLSTATE_UNKNOWN,
    SqlPlan,
)

Lookup = Literal["case", "array", "table"]
QUOTE = "$statedoc$"  # never inside a literal: pg_literal escapes every "$"


def _in(value: str, names: tuple[str, ...]) -> str:
    """``value IN (...)``; false for an empty list (SQL has no empty IN list)."""
    if not names:
        return "false"
    return f"{value} IN ({', '.join(pg_literal(n) for n in names)})"


def _pair_key(old: str, new: str) -> str:
    """An injective text key of a pair (the length prefix separates the two names)."""
    return f"(length({old})::text || ':' || {old} || {new})"


def declared_expression(plan: SqlPlan, old: str, new: str, lookup: Lookup = "case") -> str:
    """True exactly when ``old -> new`` is a declared transition (NULL when either is NULL)."""
    if not plan.declared:
        return "false"
    if lookup == "array":
        keys = [
            pg_literal(f"{len(a)}:{a}{b}") for a, targets in plan.declared.items() for b in targets
        ]
        return f"{_pair_key(old, new)} = ANY (ARRAY[{', '.join(keys)}])"
    if lookup == "table":
        table = qualified(plan.schema, fit_name(plan.names.base, "_pairs"))
        return f"EXISTS (SELECT 1 FROM {table} WHERE from_state = {old} AND to_state = {new})"
    arms = "".join(
        f"\n      WHEN {pg_literal(a)} THEN {_in(new, targets)}"
        for a, targets in plan.declared.items()
    )
    return f"(CASE {old}{arms}\n      ELSE false\n    END)"  # parenthesised: IF ... THEN


def _why_expression(plan: SqlPlan) -> str:
    if not plan.forbidden:
        return "NULL"
    by_from: dict[str, list[tuple[str, str]]] = {}
    for (a, b), why in plan.forbidden.items():
        by_from.setdefault(a, []).append((b, why))
    arms = []
    for a, items in by_from.items():
        inner = " ".join(
            f"WHEN {pg_literal(b)} THEN {pg_literal(message_text(why))}" for b, why in items
        )
        arms.append(f"\n    WHEN {pg_literal(a)} THEN CASE to_state {inner} END")
    return f"CASE from_state{''.join(arms)}\n  END"


def _raise(code: str, message: str, detail: str, hint: str) -> str:
    return (
        f"RAISE EXCEPTION USING ERRCODE = '{code}',\n"
        f"      MESSAGE = {message},\n      DETAIL = {detail},\n      HINT = {hint};"
    )


def _check_function(plan: SqlPlan, name: str, lookup: Lookup) -> str:
    spec = pg_literal(plan.spec.id)
    hint = pg_literal(plan.hint)
    states = ", ".join(pg_literal(n) for n in plan.states)
    unknown = _raise(
        SQLSTATE_UNKNOWN,
        f"format('statedoc: %s is not a state of %s', quote_nullable(bad), {spec})",
        pg_literal(message_text("the states are: " + ", ".join(repr(n) for n in plan.states))),
        hint,
    )
    forbidden = _raise(
        SQLSTATE_FORBIDDEN,
        f"format('statedoc: %s forbids %s -> %s', {spec}, quote_literal(from_state), "
        "quote_literal(to_state))",
        "why",
        hint,
    )
    undeclared = _raise(
        SQLSTATE_UNDECLARED,
        f"format('statedoc: %s does not declare %s -> %s', {spec}, quote_literal(from_state), "
        "quote_literal(to_state))",
        pg_literal("the spec declares no transition between these states"),
        hint,
    )
    return f"""\
CREATE OR REPLACE FUNCTION {name}(from_state text, to_state text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS {QUOTE}
DECLARE
  bad text;
  why text;
BEGIN
  IF from_state IS NULL OR NOT (from_state IN ({states})) THEN
    bad := from_state;
  ELSIF to_state IS NULL OR NOT (to_state IN ({states})) THEN
    bad := to_state;
  ELSE
    IF {declared_expression(plan, "from_state", "to_state", lookup)} THEN
      RETURN;
    END IF;
    why := {_why_expression(plan)};
    IF why IS NOT NULL THEN
      {forbidden}
    END IF;
    {undeclared}
  END IF;
  {unknown}
END
{QUOTE};
"""


def _trigger_function(plan: SqlPlan, name: str, check: str, lookup: Lookup) -> str:
    if plan.binding is not None:
        column = ident(plan.binding.column)
        new, old = f"NEW.{column}::text", f"OLD.{column}::text"
    else:  # generic: the column's name is the trigger's first argument
        new, old = "to_jsonb(NEW) ->> TG_ARGV[0]", "to_jsonb(OLD) ->> TG_ARGV[0]"
    spec = pg_literal(plan.spec.id)
    initial = ", ".join(repr(n) for n in plan.insert_states) or "(none)"
    not_initial = _raise(
        SQLSTATE_NOT_INITIAL,
        f"format('statedoc: a new row of %s cannot start in %s', {spec}, quote_literal(new_state))",
        pg_literal(message_text(f"a new row must start in one of: {initial}")),
        pg_literal(plan.hint),
    )
    return f"""\
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger
LANGUAGE plpgsql
AS {QUOTE}
DECLARE
  new_state text := {new};
  old_state text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF {_in("new_state", plan.insert_states)} THEN
      RETURN NEW;
    END IF;
    IF new_state IS NULL OR NOT ({_in("new_state", plan.states)}) THEN
      PERFORM {check}(new_state, new_state);
    END IF;
    {not_initial}
  END IF;
  old_state := {old};
  IF new_state IS NOT DISTINCT FROM old_state THEN
    RETURN NEW;
  END IF;
  IF {declared_expression(plan, "old_state", "new_state", lookup)} THEN
    RETURN NEW;
  END IF;
  PERFORM {check}(old_state, new_state);
  RETURN NEW;
END
{QUOTE};
"""


def _triggers(plan: SqlPlan, function: str, comment: str, lookup: Lookup) -> str:
    """The bound table's two triggers. Their ``WHEN`` clauses let a declared or unchanged
    UPDATE (and an INSERT in an allowed state) through without calling PL/pgSQL at all: the
    executor evaluates them inline, which keeps a bulk UPDATE near the cost of no trigger.
    The function still checks everything itself, so it is correct without them."""
    assert plan.binding is not None
    table = qualified(plan.binding.schema, plan.binding.table)
    column = ident(plan.binding.column)
    new, old = f"NEW.{column}::text", f"OLD.{column}::text"
    insert, update = ident(plan.names.insert_trigger), ident(plan.names.update_trigger)
    undeclared = (
        ""
        if lookup == "table"  # a trigger's WHEN cannot hold a subquery
        else f"\n    AND NOT coalesce({declared_expression(plan, old, new, lookup)}, false)"
    )
    return f"""\
CREATE OR REPLACE TRIGGER {insert}
  BEFORE INSERT ON {table} FOR EACH ROW
  WHEN (NOT coalesce({_in(new, plan.insert_states)}, false))
  EXECUTE FUNCTION {function}();
COMMENT ON TRIGGER {insert} ON {table} IS {comment};
CREATE OR REPLACE TRIGGER {update}
  BEFORE UPDATE OF {column} ON {table} FOR EACH ROW
  WHEN (OLD.{column} IS DISTINCT FROM NEW.{column}{undeclared})
  EXECUTE FUNCTION {function}();
COMMENT ON TRIGGER {update} ON {table} IS {comment};
"""


def render_postgresql(plan: SqlPlan, header: str, lookup: Lookup = "case") -> str:
    names = plan.names
    schema = ident(plan.schema)
    domain = qualified(plan.schema, names.domain)
    check = qualified(plan.schema, names.check)
    trigger_function = qualified(plan.schema, names.trigger_function)
    comment = pg_literal(message_text(plan.comment))
    states = ", ".join(pg_literal(n) for n in plan.states)
    parts = [
        header,
        "-- PostgreSQL 14 or later. Idempotent: apply it again, or a later revision over it,",
        "-- in one transaction (psql --single-transaction -f FILE).",
        "",
        f"CREATE SCHEMA IF NOT EXISTS {schema};",
        "",
        f"""\
DO {QUOTE}
BEGIN
  IF to_regtype({pg_literal(domain)}) IS NULL THEN
    CREATE DOMAIN {domain} AS text;
  END IF;
END
{QUOTE};
ALTER DOMAIN {domain} DROP CONSTRAINT IF EXISTS "state_names";
ALTER DOMAIN {domain} ADD CONSTRAINT "state_names" CHECK (VALUE IN ({states}));
COMMENT ON DOMAIN {domain} IS {comment};
""",
    ]
    if lookup == "table":
        table = qualified(plan.schema, fit_name(names.base, "_pairs"))
        rows = ", ".join(
            f"({pg_literal(a)}, {pg_literal(b)})" for a, bs in plan.declared.items() for b in bs
        )
        parts.append(
            f"CREATE TABLE IF NOT EXISTS {table} "
            "(from_state text, to_state text, PRIMARY KEY (from_state, to_state));\n"
            f"DELETE FROM {table};\n" + (f"INSERT INTO {table} VALUES {rows};\n" if rows else "")
        )
    parts += [
        _check_function(plan, check, lookup),
        f"COMMENT ON FUNCTION {check}(text, text) IS {comment};\n",
        _trigger_function(plan, trigger_function, check, lookup),
        f"COMMENT ON FUNCTION {trigger_function}() IS {comment};\n",
    ]
    if plan.binding is not None:
        parts.append(_triggers(plan, trigger_function, comment, lookup))
    else:
        parts.append(
            "-- No binding (front matter `storage` or [tool.statedoc.sql.bindings]): attach the\n"
            "-- trigger function yourself, naming the column that holds the state:\n"
            f"-- CREATE TRIGGER {comment_line(ident(fit_name('statedoc_' + names.base)))}\n"
            "--   BEFORE INSERT OR UPDATE ON my_table\n"
            f"--   FOR EACH ROW EXECUTE FUNCTION {comment_line(trigger_function)}('my_column');\n"
        )
    return "\n".join(parts)

"""Revision N+1 applied over revision N: the rows of retired states move, or nothing changes.

The PostgreSQL file of a bound spec runs this ``DO`` block after its guard and the history
table, in the file's one transaction, as the migration role (the table's owner):

1. ``LOCK TABLE ... IN EXCLUSIVE MODE``, before the rows are read: reads go on; writers (and
   ``SELECT ... FOR UPDATE/SHARE``) wait until the file commits and then run against the new
   triggers, which PostgreSQL reads again once their lock is granted. A writer already inside
   a transaction that wrote the table finishes first (the lock waits for it), so the check
   below sees what it committed; no writer can store a value after the check; and the moves
   never wait on a row a writer holds.
2. ``row_security`` is off for the transaction: a table with ``FORCE ROW LEVEL SECURITY`` makes
   the file fail rather than let the owner see, and move, only some of the rows.
3. A value the new revision would strand makes the block raise ``SDM01``, naming each value and
   its row count, and the transaction changes nothing: a state retired without ``to``, or a
   state of the installed revision (its check function, still in place, says so) that this
   revision neither declares nor retires. Values that were no state before either (NULL,
   anything written behind the triggers' back) are left as they are, with a NOTICE: the
   migration strands nothing that was not stranded already.
4. Each retired state's rows move to its destination, one UPDATE per retired state. The moves
   bypass the old triggers legitimately: the owner disables this spec's triggers on the table
   (``ALTER TABLE ... DISABLE TRIGGER``, which only the owner may run, under the lock it holds)
   and enables them again in the same transaction, so no other session ever sees them disabled;
   the file then replaces them. No setting of a writer's session changes what any check does.
   With history on, the history triggers are paused with them and each moved row is recorded
   once, with kind ``migration``. With the generated domain as the column's type its constraint
   is dropped first (the destination may be a state revision N lacked); the file adds it back,
   checked against every row.

Without a binding the file names no table, so the moves are written as comments for whoever
attaches the trigger function by hand.
"""

from __future__ import annotations

from typing import NamedTuple

from generator.targets.sql import history
from generator.targets.sql.names import (
    SqlError,
    comment_line,
    dollar_quote,
    ident,
    message_text,
    pg_literal,
    qualified,
    state_text,
)
from generator.targets.sql.pg_functions import PgDomain, exact, exact_eq, exact_in
from generator.targets.sql.plan import (
    SQLSTATE_FORBIDDEN,
    SQLSTATE_UNDECLARED,
    SQLSTATE_UNKNOWN,
    SqlPlan,
)

SQLSTATE_STRANDED = "SDM01"  # rows hold a value the new revision would strand
#: Distinct stranded values a refusal names before "and N more".
SHOWN = 10
#: Characters of one stranded value a refusal quotes (values come from the table).
QUOTED = 60


class Retirements(NamedTuple):
    """The spec's ``retired`` list as the SQL uses it."""

    moves: tuple[tuple[str, str], ...]  # (retired state, destination), in spec order
    closed: tuple[str, ...]  # retired states no row may hold


def retirements(plan: SqlPlan) -> Retirements:
    """The moves and closed states, refusing what lint reports (SD117-SD119): generation
    never guesses where rows go."""
    states = set(plan.states)
    moves: list[tuple[str, str]] = []
    closed: list[str] = []
    seen: set[str] = set()
    for item in plan.spec.retired:
        name = state_text(item.state)
        if name in states:
            raise SqlError(f"retired state {name!r} is also declared (SD117)")
        if name in seen:
            raise SqlError(f"state {name!r} is retired twice (SD119)")
        seen.add(name)
        if item.to is None:
            closed.append(name)
        elif state_text(item.to) not in states:
            raise SqlError(f"retired state {name!r} moves to {item.to!r}, no state (SD118)")
        else:
            moves.append((name, item.to))
    return Retirements(tuple(moves), tuple(closed))


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(repr(n) for n in names) or "(none)"


def _stranded_check(plan: SqlPlan, table: str, column: str, found: Retirements) -> str:
    """Raise SDM01, naming each stranded value and its rows, before anything changes.

    Stranded: a state retired without a destination, or a value the installed revision's check
    function accepts as a state (it raises SDU01 or SDF01 for the value to itself, or passes)
    that this revision neither declares nor retires. Other values (NULL, or anything written
    behind the triggers' back) were no state before either: the migration leaves them as they
    are and says how many rows hold them."""
    kept = (*plan.states, *(a for a, _ in found.moves))
    value = f"t.{column}"
    about = f"statedoc: spec {plan.spec.id} revision {plan.spec.revision}"
    where = f"{about} cannot migrate {table}.{column}"
    detail = (
        f"the states of revision {plan.spec.revision} are: {_names(plan.states)}; retired "
        f"with a destination: {_names(tuple(a for a, _ in found.moves))}; retired without "
        f"one: {_names(found.closed)}"
    )
    hint = (
        "nothing was changed: move or delete those rows, or retire each value with a `to` "
        "in the spec and generate again, then apply this file"
    )
    checker = qualified(plan.schema, plan.names.check)
    # Spec and config text is a format() argument, never part of its format string.
    left = (
        "'%s: %s row(s) of %s hold values that are no state of the installed revision either;"
        " they are left as they are'"
    )
    plus = "OPERATOR(pg_catalog.+)"
    closed = f"coalesce({exact_in('held.v', found.closed)}, false)" if found.closed else "false"
    return f"""
  FOR held IN
    SELECT g.v, g.n FROM (SELECT {exact(value)} AS v, pg_catalog.count(*) AS n
                            FROM {table} t
                           WHERE NOT coalesce({exact_in(value, kept)}, false)
                           GROUP BY 1) g
     ORDER BY g.v
  LOOP
    was_state := {closed};
    why := ' (retired without a destination)';
    IF NOT was_state AND held.v IS NOT NULL AND pg_catalog.to_regprocedure(
         {pg_literal(f"{checker}(pg_catalog.text, pg_catalog.text)")}) IS NOT NULL THEN
      why := ' (a state of the installed revision, neither a state nor retired now)';
      BEGIN
        EXECUTE {pg_literal(f"SELECT {checker}($1, $1)")} USING held.v;
        was_state := true;
      EXCEPTION
        WHEN SQLSTATE '{SQLSTATE_UNKNOWN}' THEN was_state := false;
        WHEN SQLSTATE '{SQLSTATE_UNDECLARED}' OR SQLSTATE '{SQLSTATE_FORBIDDEN}' THEN
          was_state := true;
      END;
    END IF;
    IF was_state THEN
      stranded_values := stranded_values {plus} 1;
      stranded_rows := stranded_rows {plus} held.n;
      IF stranded_values OPERATOR(pg_catalog.<=) {SHOWN} THEN
        stranded := pg_catalog.array_append(stranded, pg_catalog.format('%s row(s) hold %s%s',
          held.n, pg_catalog.quote_nullable(pg_catalog.substr(held.v, 1, {QUOTED})), why));
      END IF;
    ELSE
      left_rows := left_rows {plus} held.n;
    END IF;
  END LOOP;
  IF stranded_values OPERATOR(pg_catalog.>) 0 THEN
    RAISE EXCEPTION USING ERRCODE = '{SQLSTATE_STRANDED}',
      MESSAGE = pg_catalog.format('%s: %s row(s) would be stranded: %s%s',
        {pg_literal(message_text(where))}, stranded_rows,
        pg_catalog.array_to_string(stranded, '; '),
        CASE WHEN stranded_values OPERATOR(pg_catalog.>) {SHOWN}
             THEN pg_catalog.format('; and %s more values',
                    stranded_values OPERATOR(pg_catalog.-) {SHOWN})
             ELSE '' END),
      DETAIL = {pg_literal(message_text(detail))},
      HINT = {pg_literal(hint)};
  END IF;
  IF left_rows OPERATOR(pg_catalog.>) 0 THEN
    RAISE NOTICE USING MESSAGE = pg_catalog.format({left}, {pg_literal(message_text(about))},
      left_rows, {pg_literal(message_text(f"{table}.{column}"))});
  END IF;"""


def _pause_triggers(plan: SqlPlan) -> str:
    """Disable this spec's enabled triggers on the table, remembering how each fired."""
    names = ", ".join(
        pg_literal(n)
        for n in (
            plan.names.insert_trigger,
            plan.names.update_trigger,
            plan.names.history_insert_trigger,
            plan.names.history_update_trigger,
        )
    )
    ours = pg_literal(f"statedoc spec={plan.spec.id} ")
    return f"""
    FOR guard IN
      SELECT tg.tgname, tg.tgenabled FROM pg_catalog.pg_trigger tg
       WHERE tg.tgrelid OPERATOR(pg_catalog.=) relation AND NOT tg.tgisinternal
         AND tg.tgenabled OPERATOR(pg_catalog.<>) 'D'
         AND (tg.tgname OPERATOR(pg_catalog.=) ANY (ARRAY[{names}]::pg_catalog.name[])
              OR pg_catalog.starts_with(
                   coalesce(pg_catalog.obj_description(tg.oid, 'pg_trigger'), ''), {ours}))
       ORDER BY tg.tgname
    LOOP
      EXECUTE pg_catalog.format('ALTER TABLE %s DISABLE TRIGGER %I', relation, guard.tgname);
      paused := pg_catalog.array_append(paused, guard.tgname::pg_catalog.text);
      modes := pg_catalog.array_append(modes, guard.tgenabled);
    END LOOP;"""


_RESUME = """
    FOR i IN 1 .. coalesce(pg_catalog.array_length(paused, 1), 0) LOOP
      EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE %s TRIGGER %I', relation,
        CASE WHEN modes[i] OPERATOR(pg_catalog.=) 'A' THEN 'ALWAYS'
             WHEN modes[i] OPERATOR(pg_catalog.=) 'R' THEN 'REPLICA' ELSE '' END, paused[i]);
    END LOOP;"""


def _move(plan: SqlPlan, table: str, column: str, source: str, target: str) -> str:
    """One retired state's rows to its destination (and, with history, one row each)."""
    update = (
        f"UPDATE {table} t SET {column} = {pg_literal(target)}\n"
        f"     WHERE {exact_eq(exact(f't.{column}'), pg_literal(source))}"
    )
    if plan.history:
        assert plan.binding is not None
        record = ", ".join(
            (
                "m.row_key",
                pg_literal(source),
                pg_literal(target),
                "pg_catalog.clock_timestamp()",
                "CURRENT_USER::pg_catalog.text",
                "pg_catalog.current_setting('application_name', true)",
                "pg_catalog.pg_current_xact_id()",
                f"{plan.spec.revision:d}",
                pg_literal(history.KIND_MIGRATION),
            )
        )
        update = (
            f"WITH moves AS ({update}\n"
            f"       RETURNING {history.pg_row_key(plan.binding.key, 't')} AS row_key)\n"
            f"    INSERT INTO {history.history_qualified(plan.binding)}\n"
            f"      ({', '.join(ident(c) for c in history.WRITTEN)})\n"
            f"    SELECT {record} FROM moves m"
        )
    pair = pg_literal(message_text(f"from {source!r} to {target!r}"))
    return f"""
    {update};
    GET DIAGNOSTICS moved = ROW_COUNT;
    IF moved OPERATOR(pg_catalog.>) 0 THEN
      RAISE NOTICE USING MESSAGE = pg_catalog.format('statedoc: moved %s row(s) %s', moved, {pair});
    END IF;"""


def _drop_domain_constraint(domain: PgDomain) -> str:
    return f"""
    IF pg_catalog.to_regtype({pg_literal(domain.qualified)}) IS NOT NULL THEN
      ALTER DOMAIN {domain.qualified} DROP CONSTRAINT IF EXISTS {ident(domain.constraint)};
    END IF;"""


def render_migration(plan: SqlPlan, domain: PgDomain) -> str:
    """The migration ``DO`` block of the PostgreSQL file ('' comments without a binding)."""
    found = retirements(plan)
    binding = plan.binding
    if binding is None:
        return _unbound(found)
    table = qualified(binding.schema, binding.table)
    column = ident(binding.column)
    moving = tuple(a for a, _ in found.moves)
    moves = "".join(_move(plan, table, column, a, b) for a, b in found.moves)
    steps = _drop_domain_constraint(domain) + _pause_triggers(plan) + moves + _RESUME
    apply_moves = (
        f"""
  SELECT pg_catalog.count(*) INTO moved FROM {table} t
   WHERE coalesce({exact_in(f"t.{column}", moving)}, false);
  IF moved OPERATOR(pg_catalog.>) 0 THEN{steps}
  END IF;"""
        if moving
        else ""
    )
    check = _stranded_check(plan, table, column, found)
    body = f"""
DECLARE
  relation pg_catalog.regclass := pg_catalog.to_regclass({pg_literal(table)});
  held record;
  was_state pg_catalog.bool;
  why pg_catalog.text;
  stranded pg_catalog.text[] := ARRAY[]::pg_catalog.text[];
  stranded_values pg_catalog.int8 := 0;
  stranded_rows pg_catalog.int8 := 0;
  left_rows pg_catalog.int8 := 0;
  moved pg_catalog.int8;
  guard record;
  paused pg_catalog.text[] := ARRAY[]::pg_catalog.text[];
  modes pg_catalog."char"[] := ARRAY[]::pg_catalog."char"[];
BEGIN
  IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) relation)
     OPERATOR(pg_catalog.<>) 'f' THEN
    LOCK TABLE {table} IN EXCLUSIVE MODE;
  END IF;
  SET LOCAL row_security = off;{check}{apply_moves}
END
"""
    return (
        "-- Migration: rows of retired states move to their destination; a value this revision\n"
        "-- would strand makes the file fail (SQLSTATE SDM01) and change nothing.\n"
        f"DO {dollar_quote(body)};\n"
    )


def _unbound(found: Retirements) -> str:
    if not found.moves and not found.closed:
        return ""
    lines = ["-- Retired states (no binding: move the rows yourself before applying):"]
    lines += [f"--   {comment_line(repr(a))} -> {comment_line(repr(b))}" for a, b in found.moves]
    lines += [f"--   {comment_line(repr(a))}: no row may hold it" for a in found.closed]
    return "\n".join(lines) + "\n"


__all__ = ["SQLSTATE_STRANDED", "Retirements", "render_migration", "retirements"]

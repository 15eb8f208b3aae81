"""What PostgreSQL holds for one spec: the domain, the two functions and the bound triggers.

:func:`pg_objects` describes each object as the catalog will store it (a function's body is
exactly ``pg_proc.prosrc``), so :mod:`.postgresql` renders the file from these records and
``statedoc db check`` compares the same records with what the database really holds.

Nothing here may depend on the session that runs it (PostgreSQL's guidance for functions
that must not trust their caller):

- every function runs with ``SET search_path = pg_catalog, pg_temp``, so a writer's own
  schema first on ``search_path`` cannot shadow ``=``, ``format`` or ``text`` inside it;
- trigger ``WHEN`` clauses and the domain constraint are parsed when the file is applied, so
  they name every operator by schema (``OPERATOR(pg_catalog.=)``), cast to ``pg_catalog.text``
  and use no implicit ``=`` (no ``IN``, no simple ``CASE``, no ``IS DISTINCT FROM``);
- every value is compared as an exact string: cast to ``text`` and ``COLLATE "C"``, so a
  ``citext`` column or a nondeterministic collation cannot make ``'PENDING'`` pass for
  ``'pending'``.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.targets.sql.names import ident, message_text, pg_literal, qualified
from generator.targets.sql.plan import (
    SQLSTATE_FORBIDDEN,
    SQLSTATE_NOT_INITIAL,
    SQLSTATE_UNDECLARED,
    SQLSTATE_UNKNOWN,
    SqlPlan,
)

SEARCH_PATH = "pg_catalog, pg_temp"
EXACT = 'COLLATE pg_catalog."C"'


@dataclass(frozen=True)
class PgFunction:
    schema: str
    name: str
    arg_names: tuple[str, ...]
    arg_types: tuple[str, ...]
    returns: str  # "void" or "trigger"
    body: str  # exactly what pg_proc.prosrc holds
    volatility: str  # pg_proc.provolatile
    parallel: str  # pg_proc.proparallel
    config: tuple[str, ...]  # pg_proc.proconfig
    language: str = "plpgsql"
    security_definer: bool = False  # only the history's recorder (:mod:`.history_pg`)

    @property
    def qualified(self) -> str:
        return qualified(self.schema, self.name)

    @property
    def signature(self) -> str:
        """What ``to_regprocedure()`` accepts and ``regprocedure`` prints."""
        return f"{self.qualified}({', '.join(self.arg_types)})"


@dataclass(frozen=True)
class PgTrigger:
    name: str
    table_schema: str | None  # None: found on the applying session's search_path
    table: str
    column: str
    event: str  # "INSERT" or "UPDATE" (UPDATE OF the column)
    function: PgFunction
    when: str | None  # the WHEN expression as generated, without its parentheses
    timing: str = "BEFORE"  # the history's recorders fire AFTER

    @property
    def table_name(self) -> str:
        return qualified(self.table_schema, self.table)


@dataclass(frozen=True)
class PgDomain:
    schema: str
    name: str
    constraint: str
    states: tuple[str, ...]

    @property
    def qualified(self) -> str:
        return qualified(self.schema, self.name)

    @property
    def check(self) -> str:
        """The constraint's expression."""
        return exact_in("VALUE", self.states)


@dataclass(frozen=True)
class PgObjects:
    domain: PgDomain
    functions: tuple[PgFunction, ...]  # (check, trigger function)
    triggers: tuple[PgTrigger, ...]  # () without a binding, else (insert, update)


def exact(value: str) -> str:
    """``value`` as an exact string: ``text``, compared byte for byte."""
    return f"({value}::pg_catalog.text {EXACT})"


def exact_eq(left: str, right: str) -> str:
    return f"{left} OPERATOR(pg_catalog.=) {right}"


def exact_in(value: str, names: tuple[str, ...]) -> str:
    """True when ``value`` is one of ``names`` (NULL for NULL); false for no names."""
    if not names:
        return "false"
    items = ", ".join(pg_literal(n) for n in names)
    return f"{exact(value)} OPERATOR(pg_catalog.=) ANY (ARRAY[{items}]::pg_catalog.text[])"


def distinct(old: str, new: str) -> str:
    """``old IS DISTINCT FROM new`` as exact strings, without an implicit ``=``."""
    return (
        f"(CASE WHEN {old} IS NULL THEN {new} IS NOT NULL WHEN {new} IS NULL THEN true"
        f" ELSE {exact(old)} OPERATOR(pg_catalog.<>) {exact(new)} END)"
    )


def declared_expression(plan: SqlPlan, old: str, new: str) -> str:
    """True exactly when ``old -> new`` is a declared transition; false or NULL otherwise."""
    if not plan.declared:
        return "false"
    arms = "".join(
        f"\n      WHEN {exact_eq(exact(old), pg_literal(a))} THEN {exact_in(new, targets)}"
        for a, targets in plan.declared.items()
    )
    return f"(CASE{arms}\n      ELSE false\n    END)"


def _why_expression(plan: SqlPlan, old: str, new: str) -> str:
    if not plan.forbidden:
        return "NULL"
    arms = "".join(
        f"\n    WHEN {exact_eq(old, pg_literal(a))} AND {exact_eq(new, pg_literal(b))}"
        f" THEN {pg_literal(message_text(why))}"
        for (a, b), why in plan.forbidden.items()
    )
    return f"CASE{arms}\n  END"


def _raise(code: str, message: str, detail: str, hint: str) -> str:
    return (
        f"RAISE EXCEPTION USING ERRCODE = '{code}',\n"
        f"      MESSAGE = {message},\n      DETAIL = {detail},\n      HINT = {hint};"
    )


def _allowed_from(plan: SqlPlan) -> str:
    """DETAIL of an undeclared pair: what the old state may become."""
    arms = "".join(
        f"\n      WHEN {exact_eq('old_state', pg_literal(a))} THEN "
        + pg_literal(message_text(f"from {a!r} the spec allows: {', '.join(map(repr, bs))}"))
        for a, bs in plan.declared.items()
    )
    terminal = pg_literal("the spec declares no transition out of this state")
    return f"CASE{arms}\n      ELSE {terminal}\n    END" if arms else terminal


def _spec(plan: SqlPlan) -> str:
    return pg_literal(f"spec {plan.spec.id} revision {plan.spec.revision}")


def _unknown(plan: SqlPlan, value: str, side: str, place: str) -> str:
    """Raise SDS01 for ``value`` (``side``: which value it is), listing the states."""
    listing = "the states are: " + ", ".join(map(repr, plan.states))
    return _raise(
        SQLSTATE_UNKNOWN,
        f"pg_catalog.format('statedoc: %s %s is not a state of %s%s', {pg_literal(side)}, "
        f"pg_catalog.quote_nullable({value}), {_spec(plan)}, {place})",
        pg_literal(message_text(listing)),
        pg_literal(plan.hint),
    )


def _verdict(plan: SqlPlan, place: str, done: str) -> str:
    """Statements that ``done`` for a declared ``old_state -> new_state`` and otherwise raise
    the error that says why. ``place`` is an SQL text expression naming the table and
    column (``''`` when there is none)."""
    spec = _spec(plan)
    hint = pg_literal(plan.hint)
    states = tuple(plan.states)

    pair = f"pg_catalog.quote_literal(old_state), pg_catalog.quote_literal(new_state), {place}"
    forbidden = _raise(
        SQLSTATE_FORBIDDEN,
        f"pg_catalog.format('statedoc: %s forbids %s -> %s%s', {spec}, {pair})",
        "why",
        hint,
    )
    undeclared = _raise(
        SQLSTATE_UNDECLARED,
        f"pg_catalog.format('statedoc: %s does not declare %s -> %s%s', {spec}, {pair})",
        _allowed_from(plan),
        hint,
    )
    return f"""\
  IF NOT coalesce({exact_in("old_state", states)}, false) THEN
    {_unknown(plan, "old_state", "the old value", place)}
  END IF;
  IF NOT coalesce({exact_in("new_state", states)}, false) THEN
    {_unknown(plan, "new_state", "the new value", place)}
  END IF;
  IF {declared_expression(plan, "old_state", "new_state")} THEN
    {done}
  END IF;
  why := {_why_expression(plan, "old_state", "new_state")};
  IF why IS NOT NULL THEN
    {forbidden}
  END IF;
  {undeclared}
"""


_DECLARE = f"""\
DECLARE
  old_state pg_catalog.text {EXACT};
  new_state pg_catalog.text {EXACT};
  why pg_catalog.text;
"""


def _check_body(plan: SqlPlan) -> str:
    return f"""
{_DECLARE}BEGIN
  old_state := from_state;
  new_state := to_state;
{_verdict(plan, "''", "RETURN;")}END
"""


def _trigger_body(plan: SqlPlan) -> str:
    if plan.binding is not None:
        column = ident(plan.binding.column)
        new, old = f"NEW.{column}::pg_catalog.text", f"OLD.{column}::pg_catalog.text"
        name = pg_literal(plan.binding.column)
    else:  # generic: the column's name is the trigger's first argument
        new = "pg_catalog.to_jsonb(NEW) ->> TG_ARGV[0]"
        old = "pg_catalog.to_jsonb(OLD) ->> TG_ARGV[0]"
        name = "TG_ARGV[0]"
    place = f"pg_catalog.format(' on %I.%I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME, {name})"
    spec = _spec(plan)
    initial = ", ".join(repr(n) for n in plan.insert_states) or "(none)"
    not_initial = _raise(
        SQLSTATE_NOT_INITIAL,
        "pg_catalog.format('statedoc: a new row of %s cannot start in %s%s', "
        f"{spec}, pg_catalog.quote_literal(new_state), {place})",
        pg_literal(message_text(f"a new row must start in one of: {initial}")),
        pg_literal(plan.hint),
    )
    unknown_new = _unknown(plan, "new_state", "the new value", place)
    return f"""
{_DECLARE}BEGIN
  new_state := {new};
  IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
    IF coalesce({exact_in("new_state", plan.insert_states)}, false) THEN
      RETURN NEW;
    END IF;
    IF NOT coalesce({exact_in("new_state", plan.states)}, false) THEN
      {unknown_new}
    END IF;
    {not_initial}
  END IF;
  old_state := {old};
  IF NOT {distinct("old_state", "new_state")} THEN  -- unchanged
    RETURN NEW;
  END IF;
{_verdict(plan, place, "RETURN NEW;")}END
"""


def pg_functions(plan: SqlPlan) -> tuple[PgFunction, PgFunction]:
    """The pure check function and the trigger function."""
    config = (f"search_path={SEARCH_PATH}",)
    names = plan.names
    check = PgFunction(
        schema=plan.schema,
        name=names.check,
        arg_names=("from_state", "to_state"),
        arg_types=("text", "text"),
        returns="void",
        body=_check_body(plan),
        volatility="i",
        parallel="s",
        config=config,
    )
    trigger = PgFunction(
        schema=plan.schema,
        name=names.trigger_function,
        arg_names=(),
        arg_types=(),
        returns="trigger",
        body=_trigger_body(plan),
        volatility="v",
        parallel="u",
        config=config,
    )
    return check, trigger


def pg_triggers(plan: SqlPlan, function: PgFunction) -> tuple[PgTrigger, ...]:
    """The bound table's two triggers. Their ``WHEN`` clauses let a declared or unchanged
    UPDATE (and an INSERT in an allowed state) through without calling PL/pgSQL at all: the
    executor evaluates them inline, which keeps a bulk UPDATE near the cost of no trigger.
    The function still checks everything itself, so it is correct without them."""
    binding = plan.binding
    if binding is None:
        return ()
    column = ident(binding.column)
    new, old = f"NEW.{column}", f"OLD.{column}"
    where = (binding.schema, binding.table, binding.column)
    insert = PgTrigger(
        plan.names.insert_trigger,
        *where,
        event="INSERT",
        function=function,
        when=f"NOT coalesce({exact_in(new, plan.insert_states)}, false)",
    )
    declared = declared_expression(plan, old, new)
    update = PgTrigger(
        plan.names.update_trigger,
        *where,
        event="UPDATE",
        function=function,
        when=f"{distinct(old, new)}\n    AND NOT coalesce({declared}, false)",
    )
    return insert, update


def pg_objects(plan: SqlPlan) -> PgObjects:
    check, trigger = pg_functions(plan)
    domain = PgDomain(plan.schema, plan.names.domain, "state_names", tuple(plan.states))
    return PgObjects(domain, (check, trigger), pg_triggers(plan, trigger))

"""The SQLite file of one bound spec: ``BEFORE INSERT`` and ``BEFORE UPDATE OF`` triggers.

SQLite's ``RAISE(ABORT, ...)`` takes a string literal only, so every message is spelled out at
generation time: one ``RAISE`` per forbidden pair (with its why) and per undeclared pair of
distinct states, each naming the spec and the pair. Comparisons use ``COLLATE BINARY`` so a
``NOCASE`` column cannot make ``'Open'`` pass for ``'open'``. ``DROP TRIGGER IF EXISTS`` before
each ``CREATE TRIGGER`` makes the file idempotent and lets a later revision replace it.
"""

from __future__ import annotations

from generator.targets.sql import history as h
from generator.targets.sql.migrate_sqlite import sqlite_moves, sqlite_recorded, sqlite_refusal
from generator.targets.sql.names import SqlError, fit_name, ident, message_text, sqlite_literal
from generator.targets.sql.plan import SqlPlan

#: What each SQLite refusal says after ``statedoc: spec ID revision N``, by the SQLSTATE
#: PostgreSQL raises for the same refusal (read by
#: :func:`generator.targets.sql.testing.rejection`).
PHRASES = {
    "SDF01": "forbids",
    "SDU01": "does not declare",
    "SDS01": "rejects a new value that is not a state",
    "SDS01 stored": "finds a stored value that is not a state",
    "SDI01": "says a new row must start in one of:",
}


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(sqlite_literal(n) for n in names)


def _message(plan: SqlPlan, text: str, why: str | None = None) -> str:
    """``statedoc: spec ID revision N <text> on TABLE.COLUMN``. SQLite before 3.46 takes only
    a literal in ``RAISE``, so a value that is not a state cannot be quoted back."""
    spec, binding = plan.spec, plan.binding
    assert binding is not None
    where = f"{binding.table}.{binding.column}"
    return sqlite_literal(
        message_text(
            f"statedoc: spec {spec.id} revision {spec.revision} {text} on {where}"
            + ("" if why is None else f": {why}")
        )
    )


def _history_insert(plan: SqlPlan, old: str, kind: str) -> str:
    assert plan.binding is not None
    values = (
        h.sqlite_row_key(plan.binding.key, "NEW"),
        old,
        f"NEW.{ident(plan.binding.column)}",
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
        "NULL",
        "NULL",
        "NULL",
        f"{plan.spec.revision:d}",
        sqlite_literal(kind),
    )
    table = ident(h.history_name(plan.binding))
    columns = ", ".join(ident(c) for c in h.WRITTEN)
    return f"  INSERT INTO {table} ({columns})\n    VALUES ({', '.join(values)});"


def _history(plan: SqlPlan) -> tuple[list[str], list[str]]:
    """(statements before everything else, statements after the guards) of the history:
    a statement naming the key columns, which fails when one is missing, so that nothing
    is changed; the table; AFTER INSERT and AFTER UPDATE OF the column triggers writing it;
    triggers refusing UPDATE and DELETE of it. SQLite has no roles, sessions or
    transaction ids: ``changed_by``, ``application_name`` and ``transaction_id`` are NULL."""
    binding = plan.binding
    if binding is None or not binding.history:
        return [], []
    names, column = plan.names, ident(binding.column)
    table, history = ident(binding.table), ident(h.history_name(binding))
    # Qualified: SQLite reads an unknown "name" alone as a string literal, never "t"."name".
    keys = ", ".join(f"{table}.{ident(k)}" for k in (*binding.key, binding.column))
    check = [
        "-- Refused (no such column) before anything changes when a key column is missing:",
        f"SELECT {keys} FROM {table} WHERE 0;",
        "",
    ]
    columns = ",\n".join(
        f"  {ident(c)} {kind}{' PRIMARY KEY' if c == h.ID else ' NOT NULL' if needed else ''}"
        for c, (kind, needed) in h.SQLITE_COLUMNS.items()
    )
    refusal = sqlite_literal(
        f"statedoc: {h.history_name(binding)} is the append-only history of spec {plan.spec.id}"
    )
    new, old = f"NEW.{column} COLLATE BINARY", f"OLD.{column} COLLATE BINARY"
    out = [
        "-- The transition history, written by these triggers only, never changed.",
        f"CREATE TABLE IF NOT EXISTS {history} (\n{columns}\n);",
        "",
    ]
    for name, event, when, old_value, kind in (
        (names.history_insert_trigger, "INSERT", "", "NULL", h.KIND_INSERT),
        (
            names.history_update_trigger,
            f"UPDATE OF {column}",
            f"\n  WHEN {old} IS NOT {new}",
            f"OLD.{column}",
            h.KIND_UPDATE,
        ),
    ):
        trigger = ident(name)
        out += [
            f"DROP TRIGGER IF EXISTS {trigger};",
            f"CREATE TRIGGER {trigger} AFTER {event} ON {table} FOR EACH ROW{when}",
            "BEGIN",
            _history_insert(plan, old_value, kind),
            "END;",
            "",
        ]
    for event in ("UPDATE", "DELETE"):
        trigger = ident(fit_name(f"statedoc_{names.base}", f"_append_only_{event.lower()}"))
        out += [
            f"DROP TRIGGER IF EXISTS {trigger};",
            f"CREATE TRIGGER {trigger} BEFORE {event} ON {history} FOR EACH ROW",
            "BEGIN",
            f"  SELECT RAISE(ABORT, {refusal});",
            "END;",
            "",
        ]
    return check, out


def render_sqlite(plan: SqlPlan, header: str) -> str:
    binding = plan.binding
    if binding is None:
        raise SqlError("SQLite needs a binding: front matter `storage` or a config binding")
    table = ident(binding.table)  # SQLite: a trigger's table is in the trigger's schema
    column = ident(binding.column)
    new, old = f"NEW.{column} COLLATE BINARY", f"OLD.{column} COLLATE BINARY"
    states = _names(plan.states)

    def unknown(value: str) -> str:
        return f"{value} IS NULL OR {value} NOT IN ({states})"

    listing = ", ".join(map(repr, plan.states))
    new_unknown = _message(plan, f"{PHRASES['SDS01']} ({listing})")
    old_unknown = _message(plan, f"{PHRASES['SDS01 stored']} ({listing})")
    insert_raises = [f"  SELECT RAISE(ABORT, {new_unknown})\n    WHERE {unknown(new)};"]
    initial = ", ".join(repr(n) for n in plan.insert_states) or "(none)"
    not_initial = _message(plan, f"{PHRASES['SDI01']} {initial}")
    insert_raises.append(f"  SELECT RAISE(ABORT, {not_initial});")
    allowed = _names(plan.insert_states)
    insert_when = f"{new} IS NULL OR {new} NOT IN ({allowed})" if allowed else "1"
    update_raises = [
        f"  SELECT RAISE(ABORT, {new_unknown})\n    WHERE {unknown(new)};",
        f"  SELECT RAISE(ABORT, {old_unknown})\n    WHERE {unknown(old)};",
    ]
    for a in plan.states:
        for b in plan.states:
            if a == b or b in plan.declared.get(a, ()):
                continue
            why = plan.forbidden.get((a, b))
            verb = PHRASES["SDU01" if why is None else "SDF01"]
            update_raises.append(
                f"  SELECT RAISE(ABORT, {_message(plan, f'{verb} {a!r} -> {b!r}', why)})\n"
                f"    WHERE {old} = {sqlite_literal(a)} AND {new} = {sqlite_literal(b)};"
            )
    declared = " OR ".join(
        f"({old} = {sqlite_literal(a)} AND {new} IN ({_names(bs)}))"
        for a, bs in plan.declared.items()
    )
    update_when = f"{old} IS NOT {new}" + (f" AND NOT coalesce({declared}, 0)" if declared else "")
    names = plan.names
    insert_trigger, update_trigger = ident(names.insert_trigger), ident(names.update_trigger)
    history_check, history = _history(plan)
    return "\n".join(
        [
            header,
            "-- SQLite. Idempotent: apply it again, or a later revision over it.",
            "",
            *sqlite_refusal(plan),
            *history_check,
            f"DROP TRIGGER IF EXISTS {insert_trigger};",
            f"CREATE TRIGGER {insert_trigger} BEFORE INSERT ON {table} FOR EACH ROW",
            f"  WHEN {insert_when}",
            "BEGIN",
            *insert_raises,
            "END;",
            "",
            f"DROP TRIGGER IF EXISTS {update_trigger};",
            *sqlite_moves(plan),
            f"CREATE TRIGGER {update_trigger} BEFORE UPDATE OF {column} ON {table} FOR EACH ROW",
            f"  WHEN {update_when}",
            "BEGIN",
            *update_raises,
            "END;",
            "",
            *history,
            *sqlite_recorded(plan),
        ]
    )

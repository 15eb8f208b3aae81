"""The SQLite file of one bound spec: ``BEFORE INSERT`` and ``BEFORE UPDATE OF`` triggers.

SQLite's ``RAISE(ABORT, ...)`` takes a string literal only, so every message is spelled out at
generation time: one ``RAISE`` per forbidden pair (with its why) and per undeclared pair of
distinct states, each naming the spec and the pair. Comparisons use ``COLLATE BINARY`` so a
``NOCASE`` column cannot make ``'Open'`` pass for ``'open'``. ``DROP TRIGGER IF EXISTS`` before
each ``CREATE TRIGGER`` makes the file idempotent and lets a later revision replace it.
"""

from __future__ import annotations

from generator.targets.sql.names import SqlError, ident, message_text, sqlite_literal
from generator.targets.sql.plan import SqlPlan


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(sqlite_literal(n) for n in names)


def _message(plan: SqlPlan, text: str) -> str:
    spec = plan.spec
    return sqlite_literal(message_text(f"statedoc: {spec.id} revision {spec.revision}: {text}"))


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

    insert_raises = [
        f"  SELECT RAISE(ABORT, {_message(plan, 'a new row holds a name that is not a state')})"
        f"\n    WHERE {unknown(new)};",
    ]
    initial = ", ".join(repr(n) for n in plan.insert_states) or "(none)"
    insert_raises.append(
        f"  SELECT RAISE(ABORT, {_message(plan, f'a new row must start in one of: {initial}')});"
    )
    allowed = _names(plan.insert_states)
    insert_when = f"{new} IS NULL OR {new} NOT IN ({allowed})" if allowed else "1"
    update_raises = [
        f"  SELECT RAISE(ABORT, {_message(plan, 'the old or new value is not a state')})"
        f"\n    WHERE {unknown(new)} OR {unknown(old)};"
    ]
    for a in plan.states:
        for b in plan.states:
            if a == b or b in plan.declared.get(a, ()):
                continue
            why = plan.forbidden.get((a, b))
            text = (
                f"forbids {a!r} -> {b!r}: {why}"
                if why is not None
                else f"does not declare {a!r} -> {b!r}"
            )
            update_raises.append(
                f"  SELECT RAISE(ABORT, {_message(plan, text)})\n"
                f"    WHERE {old} = {sqlite_literal(a)} AND {new} = {sqlite_literal(b)};"
            )
    declared = " OR ".join(
        f"({old} = {sqlite_literal(a)} AND {new} IN ({_names(bs)}))"
        for a, bs in plan.declared.items()
    )
    update_when = f"{old} IS NOT {new}" + (f" AND NOT coalesce({declared}, 0)" if declared else "")
    names = plan.names
    insert_trigger, update_trigger = ident(names.insert_trigger), ident(names.update_trigger)
    return "\n".join(
        [
            header,
            "-- SQLite. Idempotent: apply it again, or a later revision over it.",
            "",
            f"DROP TRIGGER IF EXISTS {insert_trigger};",
            f"CREATE TRIGGER {insert_trigger} BEFORE INSERT ON {table} FOR EACH ROW",
            f"  WHEN {insert_when}",
            "BEGIN",
            *insert_raises,
            "END;",
            "",
            f"DROP TRIGGER IF EXISTS {update_trigger};",
            f"CREATE TRIGGER {update_trigger} BEFORE UPDATE OF {column} ON {table} FOR EACH ROW",
            f"  WHEN {update_when}",
            "BEGIN",
            *update_raises,
            "END;",
            "",
        ]
    )

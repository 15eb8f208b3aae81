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

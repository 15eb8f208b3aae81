"""The migration in the SQLite file: refuse before anything changes, then move the rows of each
retired state while the file has dropped the old update trigger and not yet made the new one.

SQLite runs no procedural code outside triggers, and before 3.46 ``RAISE`` takes a literal
only, so the refusal is a named ``CHECK`` on a temporary table: inserting the count of rows in
a state retired without a destination fails with ``CHECK constraint failed: statedoc: ...``,
naming the state (SQLite cannot say how many rows). It comes first in the file, so a refusal
changes nothing. SQLite has no catalog of the installed revision's states to ask, so a state
removed without a retirement entry cannot be told apart from a value written behind the
triggers' back: ``statedoc lint --against`` reports it (SD208) before it reaches a database.

The moves fire no statedoc trigger (the update trigger is dropped; with history, the old
history update trigger too, which the file creates again): the rows moved are collected in a
temporary table first and written to the history with kind ``migration`` at the end of the
file, once the history table exists. Apply the file inside ``BEGIN IMMEDIATE`` ... ``COMMIT``
to make it atomic and keep other writers out while it runs.
"""

from __future__ import annotations

from generator.targets.sql import history
from generator.targets.sql.migrate import retirements
from generator.targets.sql.names import SqlError, ident, message_text, sqlite_literal
from generator.targets.sql.plan import SqlPlan

_CHECK = ident("statedoc_migration_check")
_MOVED = ident("statedoc_migration_moved")


def _long_name(text: str) -> str:
    """A quoted SQLite identifier of any length (it has no 63-byte limit): a constraint's name
    is what SQLite's error message shows. Spec text: ``"`` doubled, NUL refused."""
    if "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise SqlError("a constraint name cannot hold NUL or a lone surrogate")
    return '"' + text.replace('"', '""') + '"'


def _table_column(plan: SqlPlan) -> tuple[str, str]:
    """The table, and its column qualified (SQLite reads an unknown ``"name"`` alone as a
    string literal, never ``"t"."name"``)."""
    assert plan.binding is not None
    table = ident(plan.binding.table)
    return table, f"{table}.{ident(plan.binding.column)}"


def sqlite_refusal(plan: SqlPlan) -> list[str]:
    """Statements that fail, naming the state, when a row holds a state retired without a
    destination (none when the spec retires none)."""
    closed = retirements(plan).closed
    if plan.binding is None or not closed:
        return []
    table, column = _table_column(plan)
    where = f"{plan.binding.table}.{plan.binding.column}"
    checks = ",\n".join(
        "  {} INTEGER CONSTRAINT {} CHECK ({} = 0)".format(
            ident(f"n{i}"),
            _long_name(
                message_text(
                    f"statedoc: spec {plan.spec.id} revision {plan.spec.revision} cannot migrate "
                    f"{where} (SDM01): rows hold {state!r}, retired without a destination; "
                    "nothing was changed"
                )
            ),
            ident(f"n{i}"),
        )
        for i, state in enumerate(closed)
    )
    counts = ", ".join(
        f"(SELECT count(*) FROM {table} WHERE {column} COLLATE BINARY = {sqlite_literal(s)})"
        for s in closed
    )
    return [
        "-- Refused before anything changes when a row holds a state retired without a",
        "-- destination (the CHECK constraint's name says which):",
        f"DROP TABLE IF EXISTS temp.{_CHECK};",
        f"CREATE TEMP TABLE {_CHECK} (\n{checks}\n);",
        f"INSERT INTO temp.{_CHECK} VALUES ({counts});",
        f"DROP TABLE temp.{_CHECK};",
        "",
    ]


def sqlite_moves(plan: SqlPlan) -> list[str]:
    """The moves, for the place in the file where no update trigger of this spec exists."""
    moves = retirements(plan).moves
    if plan.binding is None or not moves:
        return []
    table, column = _table_column(plan)
    out = ["-- Migration: rows of retired states move to their destination."]
    if plan.history:
        out += [
            f"DROP TRIGGER IF EXISTS {ident(plan.names.history_update_trigger)};",
            f"DROP TABLE IF EXISTS temp.{_MOVED};",
            f"CREATE TEMP TABLE {_MOVED} (row_key TEXT, from_state TEXT, to_state TEXT);",
        ]
    for source, target in moves:
        matches = f"{column} COLLATE BINARY = {sqlite_literal(source)}"
        if plan.history:
            key = history.sqlite_row_key(plan.binding.key, table)
            out.append(
                f"INSERT INTO temp.{_MOVED} SELECT {key}, {sqlite_literal(source)}, "
                f"{sqlite_literal(target)} FROM {table} WHERE {matches};"
            )
        name = ident(plan.binding.column)
        out.append(f"UPDATE {table} SET {name} = {sqlite_literal(target)} WHERE {matches};")
    return [*out, ""]


def sqlite_recorded(plan: SqlPlan) -> list[str]:
    """With history, the moved rows written to it (at the end of the file, where it exists)."""
    if plan.binding is None or not plan.history or not retirements(plan).moves:
        return []
    values = (
        "row_key",
        "from_state",
        "to_state",
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
        "NULL",
        "NULL",
        "NULL",
        f"{plan.spec.revision:d}",
        sqlite_literal(history.KIND_MIGRATION),
    )
    columns = ", ".join(ident(c) for c in history.WRITTEN)
    table = ident(history.history_name(plan.binding))
    return [
        "-- The moves of the migration, in the history:",
        f"INSERT INTO {table} ({columns})\n  SELECT {', '.join(values)} FROM temp.{_MOVED};",
        f"DROP TABLE temp.{_MOVED};",
        "",
    ]


__all__ = ["sqlite_moves", "sqlite_recorded", "sqlite_refusal"]

"""With history on, the migration records each row it moves (kind ``migration``, the revision
it applies, its own transaction), and the history triggers record nothing else for the moves;
a refused migration records nothing."""

from __future__ import annotations

from psycopg import sql as pgsql

from generator.targets.sql.history import KIND_MIGRATION, history_table
from generator.targets.sql.settings import SqlBinding

from .migrate import ROWS_PER_STATE, Table, renamed, review_renamed, spec
from .postgres import apply_file


def _filled_with_history(table: Table) -> pgsql.Composable:
    """Revision 1 bound with history on and applied, rows in every state; the history table."""
    table.binding = SqlBinding("items", "state", table.app, True, ("id",))
    first = table.revision(spec(1))
    table.create()
    assert apply_file(table.admin, first.postgresql) is None
    table.fill()
    return pgsql.Identifier(*history_table(table.binding))


def _history(table: Table, history: pgsql.Composable) -> list[tuple[object, ...]]:
    query = pgsql.SQL(
        "SELECT row_key, from_state, to_state, changed_by, transaction_id::text, revision, kind "
        "FROM {} ORDER BY id"
    ).format(history)
    return table.admin.execute(query).fetchall()


def test_moves_are_recorded_as_a_migration(table: Table) -> None:
    history = _filled_with_history(table)
    written = _history(table, history)
    assert written and {r[6] for r in written} == {"insert", "update"}
    second = table.revision(review_renamed())
    before = table.rows()
    assert apply_file(table.admin, second.postgresql) is None
    recorded = _history(table, history)
    assert recorded[: len(written)] == written  # kept, never changed
    added = recorded[len(written) :]
    moved = sorted(row for row, state in before.items() if state == "review")
    assert len(moved) == ROWS_PER_STATE
    assert sorted(r[0]["id"] for r in added) == moved  # type: ignore[index]
    user = table.admin.info.user
    assert {r[1:4] + r[5:] for r in added} == {("review", "in_review", user, 2, KIND_MIGRATION)}
    assert len({r[4] for r in added}) == 1  # one transaction: the file's
    row = moved[0]
    assert table.update(row, "published") is None  # the history triggers are back on
    last = _history(table, history)[-1]
    assert last[0] == {"id": row} and last[1:3] == ("in_review", "published")
    assert last[5:] == (2, "update")


def test_a_refused_migration_records_nothing(table: Table) -> None:
    history = _filled_with_history(table)
    states, transitions = renamed("review", "in_review")
    retired = [
        {"state": "spam", "why": "gone"},
        {"state": "review", "to": "in_review", "why": "renamed"},
    ]
    states = tuple(s for s in states if s != "spam")
    transitions = tuple(t for t in transitions if "spam" not in t)
    second = table.revision(spec(2, states, transitions, retired))
    written = _history(table, history)
    before = table.snapshot()
    error = apply_file(table.admin, second.postgresql)
    assert error is not None and error.sqlstate == "SDM01"
    assert _history(table, history) == written
    assert table.snapshot() == before

"""The SQLite file of revision 2 over revision 1 with rows in every state (sqlite3 from the
standard library): renamed and removed states move, a state retired without a destination
that rows hold refuses the file before it changes anything, and history records the moves."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import pytest

from generator.targets.sql.history import history_name
from generator.targets.sql.settings import SqlBinding

from .migrate import (
    ROWS_PER_STATE,
    STATES,
    apply_script,
    renamed,
    review_renamed,
    route,
    spec,
    sqlite_script,
    without,
)


def _database(first: str) -> sqlite3.Connection:
    """A table with revision 1's triggers and rows in each of its states, written through
    them (inserted in the initial state, moved along declared transitions)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, state TEXT NOT NULL)")
    db.executescript(first)
    for n, state in enumerate(s for s in STATES for _ in range(ROWS_PER_STATE)):
        path = route("draft", state)
        db.execute("INSERT INTO items VALUES (?, ?)", (n, path[0]))
        for step in path[1:]:
            db.execute("UPDATE items SET state = ? WHERE id = ?", (step, n))
    return db


def _rows(db: sqlite3.Connection) -> dict[int, str]:
    return dict(db.execute("SELECT id, state FROM items ORDER BY id").fetchall())


def _schema(db: sqlite3.Connection) -> list[tuple[str, ...]]:
    return db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()


def _refused(db: sqlite3.Connection, sql: str, params: Sequence[object]) -> str | None:
    try:
        db.execute(sql, params)
    except sqlite3.IntegrityError as exc:
        return str(exc)
    return None


def test_renamed_and_removed_states_move() -> None:
    db = _database(sqlite_script(spec(1)))
    before = _rows(db)
    second = sqlite_script(review_renamed({"to": "archived", "why": "archived now"}))
    apply_script(db, second)
    moves = {"review": "in_review", "spam": "archived"}
    assert _rows(db) == {r: moves.get(s, s) for r, s in before.items()}
    row = next(r for r, s in _rows(db).items() if s == "in_review")
    update = "UPDATE items SET state = ? WHERE id = ?"
    assert "rejects a new value that is not a state" in (
        _refused(db, update, ("review", row)) or ""
    )
    assert _refused(db, update, ("published", row)) is None
    schema = _schema(db)
    apply_script(db, second)  # again: nothing left to move, the same triggers
    assert _schema(db) == schema


def test_rows_in_a_state_retired_without_a_destination_refuse_the_file() -> None:
    states, transitions = without("spam")
    db = _database(sqlite_script(spec(1)))
    before = (_rows(db), _schema(db))
    second = sqlite_script(spec(2, states, transitions, [{"state": "spam", "why": "gone"}]))
    with pytest.raises(sqlite3.IntegrityError) as raised:
        apply_script(db, second)
    assert "cannot migrate items.state (SDM01): rows hold 'spam', retired without a" in str(
        raised.value
    )
    assert (_rows(db), _schema(db)) == before
    db.execute("DELETE FROM items WHERE state = 'spam'")
    apply_script(db, second)
    assert "spam" not in _rows(db).values()


def test_history_records_the_moves_as_a_migration() -> None:
    binding = SqlBinding("items", "state", None, True, ("id",))
    states, transitions = renamed("review", "in_review")
    retired = [{"state": "review", "to": "in_review", "why": "renamed"}]
    db = _database(sqlite_script(spec(1), binding))
    table = history_name(binding)
    query = f'SELECT row_key, from_state, to_state, revision, kind FROM "{table}" ORDER BY id'
    written = db.execute(query).fetchall()
    moved = sorted(r for r, s in _rows(db).items() if s == "review")
    apply_script(db, sqlite_script(spec(2, states, transitions, retired), binding))
    recorded = db.execute(query).fetchall()
    assert recorded[: len(written)] == written
    added = recorded[len(written) :]
    assert sorted(json.loads(r[0])["id"] for r in added) == moved
    assert {r[1:] for r in added} == {("review", "in_review", 2, "migration")}
    db.execute("UPDATE items SET state = 'published' WHERE id = ?", (moved[0],))
    assert db.execute(query).fetchall()[-1][1:] == ("in_review", "published", 2, "update")

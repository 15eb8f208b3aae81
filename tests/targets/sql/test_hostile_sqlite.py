"""No spec text becomes SQL on SQLite: hostile texts -> ``.sqlite.sql`` -> ``executescript``.

The same hostile drafts as the PostgreSQL test (:mod:`.hostile`) are rendered and
run with :meth:`sqlite3.Connection.executescript` on a fresh database holding the bound table
(its name and column hostile too): ``sqlite_master`` then holds the table and exactly the two
triggers, each stored as the file spelled it, nothing was attached or set, the rows are as
they were, and every INSERT and UPDATE gets the spec's verdict with a message that carries the
pair, the table, the column and the why exactly. What SQLite cannot hold is refused by
generation with a clean :class:`SqlError` (NUL in a state name, a bad identifier).
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from profiles import fuzz_examples, scaled

from generator.targets.sql.names import SqlError, message_text
from generator.targets.sql.sqlite import render_sqlite
from generator.targets.sql.target import header
from generator.targets.sql.testing import rejection

from .hostile import PAYLOADS, SPEC_ID, Draft, at_limit, drafts
from .verdicts import OK

#: The texts the SQLite file writes (it names no schema).
SQLITE_SPOILABLE = ("state", "table", "column")

CANONICAL = Draft(
    states=('"; CREATE TABLE pwned (x); --', "closed"),
    declared=(('"; CREATE TABLE pwned (x); --', "closed"),),
    forbidden={("closed", '"; CREATE TABLE pwned (x); --'): "'); DROP TABLE t; --\0 END;"},
    initial=('"; CREATE TABLE pwned (x); --',),
    title="Door",
    schema="statedoc",
    table='t"; DROP TABLE x; --',
    column="$statedoc$ END; [c] `c`",
)


def quoted(name: str) -> str:
    """The test's own spelling of an SQLite identifier (not the renderer's)."""
    return '"' + name.replace('"', '""') + '"'


def generated(draft: Draft) -> str | None:
    """The file, or None when generation refused (and had to)."""
    refusal = draft.refusal(sqlite=True)
    try:
        plan = draft.plan()
        text = render_sqlite(plan, header(plan))
    except SqlError as exc:
        assert refusal is not None, exc
        assert str(exc)
        return None
    assert refusal is None, f"generated although {refusal}"
    return text


def outcome(connection: sqlite3.Connection, query: str, params: tuple[object, ...]) -> object:
    """The error ``query`` raises, else how many rows it changed (always rolled back)."""
    connection.execute("BEGIN")
    try:
        return connection.execute(query, params).rowcount
    except sqlite3.Error as exc:
        return exc
    finally:
        connection.execute("ROLLBACK")


def verdict(result: object) -> str | None:
    if isinstance(result, sqlite3.Error):
        code = rejection(result)
        assert code is not None, f"not a statedoc refusal: {result}"
        return code
    return OK


def check_message(draft: Draft, result: object, old: str | None, new: str | None) -> None:
    """A refusal names the spec, the table and the column; a pair's refusal the pair, and a
    forbidden pair's its why, each exactly as the spec spells it."""
    if not isinstance(result, sqlite3.Error):
        return
    message = str(result)
    for text in (f"spec {SPEC_ID} revision {draft.revision}", draft.table, draft.column):
        assert text in message, (text, message)
    code = rejection(result)
    if code in ("SDF01", "SDU01"):
        assert f"{old!r} -> {new!r}" in message, message
    if code == "SDF01":
        assert old is not None and new is not None
        assert message_text(draft.forbidden[(old, new)]) in message, message


def check_file(draft: Draft, text: str) -> None:
    plan = draft.plan()
    table, column = quoted(draft.table), quoted(draft.column)
    with tempfile.TemporaryDirectory() as folder:
        connection = sqlite3.connect(Path(folder) / "db.sqlite", isolation_level=None)
        try:
            connection.execute(f"CREATE TABLE {table} ({column} TEXT)")
            insert = f"INSERT INTO {table} ({column}) VALUES (?)"
            connection.executemany(insert, [(value,) for value in draft.probes()])
            listing = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
            before = connection.execute(listing).fetchall()
            rows = f"SELECT {column} FROM {table} ORDER BY rowid"
            values = connection.execute(rows).fetchall()
            connection.executescript(text)
            after = connection.execute(listing).fetchall()
            triggers = [row for row in after if row not in before]
            assert [row for row in before if row not in after] == []
            names = {plan.names.insert_trigger, plan.names.update_trigger}
            assert {(kind, name, of) for kind, name, of, _ in triggers} == {
                ("trigger", name, draft.table) for name in names
            }
            for *_, sql in triggers:
                assert sql in text  # stored as the file spelled it, whole
            attached = connection.execute("PRAGMA database_list").fetchall()
            assert [name for _, name, _ in attached] == ["main"], attached
            assert connection.execute("SELECT count(*) FROM sqlite_temp_master").fetchone() == (0,)
            assert connection.execute("PRAGMA user_version").fetchone() == (0,)
            assert connection.execute(rows).fetchall() == values
            check_verdicts(connection, draft)
        finally:
            connection.close()
        assert sorted(p.name for p in Path(folder).iterdir()) == ["db.sqlite"]


def check_verdicts(connection: sqlite3.Connection, draft: Draft) -> None:
    table, column = quoted(draft.table), quoted(draft.column)
    probes = draft.probes()
    for new in probes:
        result = outcome(connection, f"INSERT INTO {table} ({column}) VALUES (?)", (new,))
        assert verdict(result) == draft.insert_verdict(new), (new, result)
        check_message(draft, result, None, new)
    update = f"UPDATE {table} SET {column} = ? WHERE {column} IS ?"
    for old in probes:
        for new in probes:
            result = outcome(connection, update, (new, old))
            want = draft.update_verdict(old, new)
            assert verdict(result) == want, (old, new, result)
            assert want is not OK or result == 1, (old, new, result)
            check_message(draft, result, old, new)


@pytest.mark.slow
@settings(
    max_examples=fuzz_examples(scaled(500, minimum=100)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(draft=drafts(spoil=SQLITE_SPOILABLE))
@example(draft=CANONICAL)
@example(draft=CANONICAL.replace(column="$statedoc$", table=PAYLOADS[3]))
@example(
    draft=CANONICAL.replace(
        table=at_limit("t\r\n😀", "😀"), column=at_limit("c\u202e\u200b", "é"), title="é" * 60
    )
)
@example(draft=CANONICAL.replace(column="c\0"))
@example(draft=CANONICAL.replace(table=at_limit("t", "😀") + "x"))
def test_hostile_text_never_becomes_sql_on_sqlite(draft: Draft) -> None:
    text = generated(draft)
    if text is None:
        event("refused by generation")
        return
    assume(draft.table.encode("utf-8")[:7].lower() != b"sqlite_")  # SQLite's own tables
    event("applied")
    check_file(draft, text)


@pytest.mark.parametrize(
    "states", [("ok", "a\0b"), ("a\0", "\0"), ("x\0; DROP TABLE t; --", "y")], ids=str
)
def test_nul_state_is_a_clean_refusal(states: tuple[str, ...]) -> None:
    """SQLite cannot hold NUL in a literal: generation refuses with :class:`SqlError` that
    names the state, for both dialects (the plan is shared)."""
    draft = CANONICAL.replace(states=states, declared=(), forbidden={}, initial=states[:1])
    with pytest.raises(SqlError, match="NUL") as caught:
        plan = draft.plan()
        render_sqlite(plan, header(plan))
    assert any(repr(name) in str(caught.value) for name in states if "\0" in name)

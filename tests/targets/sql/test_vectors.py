"""The generated SQL held to the spec's verdict vectors on real servers: every ordered pair,
every name that is no state, and every INSERT, on PostgreSQL (psycopg) and SQLite (stdlib),
each outcome with its SQLSTATE (PostgreSQL) or message (SQLite) and the forbidden pair's why.

The vectors are those the ``vectors`` target writes (:mod:`generator.targets.vectors`), read
back from their bytes, so the SQL, the Python module (:mod:`generator.testing.proofs`) and the
TypeScript module answer to one file. A mutated trigger that disagrees with one vector is
caught, naming the pair.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from generator.model.verdicts import (
    ALLOWED,
    FORBIDDEN,
    UNDECLARED,
    Vectors,
    load_vectors,
    vectors_of_spec,
)
from generator.targets.sql.names import ident, message_text
from generator.targets.sql.testing import rejection
from generator.targets.vectors import render_vectors

from . import verdicts as sqlstates
from .cases import Case

#: What each verdict makes the triggers raise.
SQLSTATE = {FORBIDDEN: sqlstates.FORBIDDEN, UNDECLARED: sqlstates.UNDECLARED}
NOT_A_STATE, NOT_INITIAL = sqlstates.UNKNOWN, sqlstates.NOT_INITIAL
#: (SQLSTATE or None for success, the why a forbidden pair carries)
Outcome = tuple[str | None, str | None]


def vectors_of(case: Case) -> Vectors:
    """The case's vectors file, as the target writes it, read back."""
    written = render_vectors(vectors_of_spec(case.spec, source="spec.md", sha256="0" * 64))
    return load_vectors(written.encode("ascii"))


def disagreements(
    vectors: Vectors,
    update: Callable[[int, str], Outcome],
    insert: Callable[[str], Outcome],
    why_text: Callable[[str], str],
    carried: Callable[[str], bool],
) -> list[str]:
    """Every vector the database answers differently; row ``i + 1`` holds ``states[i]``."""
    row = {state: index + 1 for index, state in enumerate(vectors.states)}
    found: list[str] = []

    def compare(what: str, got: Outcome, want: Outcome) -> None:
        if got != want:
            found.append(f"{what}: the database says {got}, the vectors {want}")

    for v in vectors.pairs:
        # An unchanged value is no transition: the triggers let it through as a no-op.
        want: Outcome = (None, None)
        if v.verdict != ALLOWED and v.from_state != v.to_state:
            want = (SQLSTATE[v.verdict], None if v.why is None else why_text(v.why))
        compare(f"{v.from_state!r} -> {v.to_state!r}", update(row[v.from_state], v.to_state), want)
    for name in (n.name for n in vectors.not_states):
        if carried(name):
            compare(f"to {name!r}", update(1, name), (NOT_A_STATE, None))
            compare(f"insert {name!r}", insert(name), (NOT_A_STATE, None))
    for state in vectors.states:
        allowed = state in vectors.initial
        compare(
            f"insert {state!r}", insert(state), (None, None) if allowed else (NOT_INITIAL, None)
        )
    return found


# -- PostgreSQL -------------------------------------------------------------------------------


def postgresql(pg: Any, case: Case, sql: str) -> list[str]:
    table = ident(case.table)
    pg.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, state text NOT NULL)")
    vectors = vectors_of(case)
    for index, state in enumerate(vectors.states):  # before the triggers: any state may be stored
        pg.execute(f"INSERT INTO {table} (id, state) VALUES (%s, %s)", (index + 1, state))
    pg.execute(sql)
    pg.autocommit = False
    try:

        def attempt(query: str, params: tuple[object, ...]) -> Outcome:
            try:
                pg.execute(query, params)
            except psycopg.Error as exc:
                code = exc.sqlstate
                return code, exc.diag.message_detail if code == SQLSTATE[FORBIDDEN] else None
            finally:
                pg.rollback()
            return None, None

        def update(key: int, value: str) -> Outcome:
            return attempt(f"UPDATE {table} SET state = %s WHERE id = %s", (value, key))

        def insert(value: str) -> Outcome:
            return attempt(f"INSERT INTO {table} (id, state) VALUES (%s, %s)", (10**6, value))

        return disagreements(vectors, update, insert, message_text, lambda n: "\x00" not in n)
    finally:
        pg.autocommit = True


def test_the_postgresql_triggers_give_every_verdict_of_the_vectors(
    pg: Any, spec_cases: list[Case]
) -> None:
    for case in spec_cases:
        assert postgresql(pg, case, case.postgresql) == [], case.spec.id


def test_psycopg_cannot_carry_a_name_with_nul(pg: Any, spec_cases: list[Case]) -> None:
    """Why the names holding NUL are left out above: the driver refuses them itself."""
    vectors = vectors_of(spec_cases[0])
    nul = [n.name for n in vectors.not_states if "\x00" in n.name]
    assert nul
    for name in nul:
        with pytest.raises(psycopg.DataError, match="NUL"):
            pg.execute("SELECT %s::text", (name,))


# -- SQLite -----------------------------------------------------------------------------------

_WHY = re.compile(r"statedoc: spec \S+ revision \d+ forbids .* on \S+: (?P<why>.*)", re.DOTALL)


def sqlite(path: Path, case: Case, sql: str) -> list[str]:
    table = ident(case.table)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, state TEXT)")
        vectors = vectors_of(case)
        for index, state in enumerate(vectors.states):
            db.execute(f"INSERT INTO {table} (id, state) VALUES (?, ?)", (index + 1, state))
        db.executescript(sql)

        def attempt(query: str, params: tuple[object, ...]) -> Outcome:
            db.execute("BEGIN")
            try:
                db.execute(query, params)
            except sqlite3.Error as exc:
                code = rejection(exc)
                match = _WHY.fullmatch(str(exc))
                why = match["why"] if match is not None and code == SQLSTATE[FORBIDDEN] else None
                return code, why
            finally:
                db.execute("ROLLBACK")
            return None, None

        def update(key: int, value: str) -> Outcome:
            return attempt(f"UPDATE {table} SET state = ? WHERE id = ?", (value, key))

        def insert(value: str) -> Outcome:
            return attempt(f"INSERT INTO {table} (id, state) VALUES (?, ?)", (10**6, value))

        return disagreements(vectors, update, insert, message_text, lambda name: True)
    finally:
        db.close()


def test_the_sqlite_triggers_give_every_verdict_of_the_vectors(
    tmp_path: Path, spec_cases: list[Case]
) -> None:
    for index, case in enumerate(spec_cases):
        assert case.sqlite is not None
        assert sqlite(tmp_path / f"{index}.sqlite", case, case.sqlite) == [], case.spec.id


# -- a trigger that disagrees with one vector -------------------------------------------------


def attempt_case(spec_cases: list[Case]) -> Case:
    return next(c for c in spec_cases if c.spec.id == "STATE-PFM-TNL-002")


def test_a_postgresql_trigger_that_forgets_one_forbidden_pair_is_caught(
    pg: Any, spec_cases: list[Case]
) -> None:
    case = attempt_case(spec_cases)
    pair = r"E'failed' AND new_state OPERATOR\(pg_catalog\.=\) E'running' THEN"
    line = re.compile(rf"\n *WHEN old_state OPERATOR\(pg_catalog\.=\) {pair}[^\n]*")
    mutated, count = line.subn("", case.postgresql)  # each function's table of whys
    assert count >= 1
    found = postgresql(pg, case, mutated)
    assert len(found) == 1, found
    assert found[0].startswith("'failed' -> 'running': the database says ('SDU01', None)")


def test_a_sqlite_trigger_that_lets_one_undeclared_pair_through_is_caught(
    tmp_path: Path, spec_cases: list[Case]
) -> None:
    case = attempt_case(spec_cases)
    assert case.sqlite is not None
    pair = "''pending'' -> ''succeeded''"
    raise_line = re.compile(rf"\n  SELECT RAISE\(ABORT, '[^\n]*{pair}[^\n]*\n    WHERE [^\n]*")
    mutated, count = raise_line.subn("", case.sqlite)
    assert count == 1
    found = sqlite(tmp_path / "db.sqlite", case, mutated)
    assert found == [
        "'pending' -> 'succeeded': the database says (None, None), the vectors ('SDU01', None)"
    ]

"""Property tests of the generated SQL on a real database table (PostgreSQL or SQLite).

:func:`sql_state_machine_for` builds a Hypothesis ``RuleBasedStateMachine`` that keeps a few
rows of your table in step with the generated Python ``Machine``: it inserts rows in initial
states, then issues random ``UPDATE`` s (a declared transition, a pair the spec lists as
invalid, an undeclared pair, a name that is no state, NULL, the unchanged state) and checks
after every step that

- each row's stored state equals its ``Machine``'s state;
- a rejected statement left the row unchanged and said why: the SQLSTATE (``SDF01``
  forbidden, ``SDU01`` undeclared, ``SDS01`` unknown state) on PostgreSQL, the message on SQLite;
- no row ever reached its state through a pair the spec lists as invalid.

Usage against your own database, where the generated ``.postgresql.sql`` is applied::

    from generator.targets.sql.testing import sql_state_machine_for
    from myproject.generated.platform.queries import workspace_export_delivery as spec

    TestDelivery = sql_state_machine_for(
        spec, lambda: psycopg.connect(DSN, autocommit=True), table="deliveries",
        column="status", columns={"workspace_id": 1},
    ).TestCase

The connection must autocommit (each statement is its own transaction). Rows are inserted
with keys from ``key_start`` upwards and deleted at teardown (a delete never runs the
update trigger). Imports Hypothesis; nothing on the lint path imports this module.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

from generator.targets.sql.names import ident
from generator.targets.sql.sqlite import PHRASES

_SQLITE_REFUSAL = re.compile(
    r"statedoc: spec \S+ revision \d+ ("
    + "|".join(re.escape(words) for words in PHRASES.values())
    + ") "
)


def rejection(error: BaseException) -> str | None:
    """The SQLSTATE a generated check raised (PostgreSQL) or stands for (SQLite message)."""
    code = getattr(error, "sqlstate", None)
    if isinstance(code, str):
        return code
    match = _SQLITE_REFUSAL.match(str(error))
    if match is None:
        return None
    return next(code.split()[0] for code, words in PHRASES.items() if words == match[1])


def sql_state_machine_for(
    module: types.ModuleType,
    connect: Callable[[], Any],
    *,
    table: str,
    column: str,
    key: str = "id",
    columns: Mapping[str, object] | None = None,
    key_start: int = 1_000_000,
    dialect: str = "postgresql",
) -> type[RuleBasedStateMachine]:
    """A state machine class for ``module``'s spec enforced on ``table.column``."""
    m: Any = module
    states = [s.value for s in m.State]
    initial = sorted((s.value for s in m.INITIAL), key=states.index)
    invalid = {(a.value, b.value) for a, b in m.INVALID}
    mark = "%s" if dialect == "postgresql" else "?"
    extra = dict(columns or {})
    names = ", ".join(ident(c) for c in (key, column, *extra))
    marks = ", ".join([mark] * (2 + len(extra)))
    insert_sql = f"INSERT INTO {ident(table)} ({names}) VALUES ({marks})"
    update_sql = f"UPDATE {ident(table)} SET {ident(column)} = {mark} WHERE {ident(key)} = {mark}"
    select_sql = f"SELECT {ident(column)} FROM {ident(table)} WHERE {ident(key)} = {mark}"
    delete_sql = f"DELETE FROM {ident(table)} WHERE {ident(key)} >= {mark}"
    unknown = st.text(max_size=6).filter(lambda s: s not in states and "\x00" not in s)
    counter = iter(range(key_start, key_start + 10**9))

    class SqlMachine(RuleBasedStateMachine):
        rows = Bundle("rows")

        def __init__(self) -> None:
            super().__init__()
            self.db = connect()
            self.db.execute(delete_sql, (key_start,))
            self.machines: dict[int, Any] = {}
            self.history: dict[int, list[tuple[str, str]]] = {}

        def teardown(self) -> None:
            try:
                self.db.execute(delete_sql, (key_start,))
            finally:
                self.db.close()

        def _stored(self, row: int) -> object:
            fetched = self.db.execute(select_sql, (row,)).fetchone()
            return None if fetched is None else fetched[0]

        @initialize(target=rows, start=st.sampled_from(initial or states))
        def first_row(self, start: str) -> int:
            return self._insert(start)

        @rule(target=rows, start=st.sampled_from(initial or states))
        def insert(self, start: str) -> int:
            return self._insert(start)

        def _insert(self, start: str) -> int:
            row = next(counter)
            self.db.execute(insert_sql, (row, start, *extra.values()))
            self.machines[row] = m.Machine(start)
            self.history[row] = []
            return row

        def _attempt(self, row: int, target: str | None) -> None:
            machine = self.machines[row]
            before = machine.state.value
            want: str | None
            if target == before:
                want = None
            elif target not in states:
                want = "SDS01"
            else:
                try:
                    machine.transition(target)
                    want = None
                except m.ForbiddenTransition:
                    want = "SDF01"
                except m.UndeclaredTransition:
                    want = "SDU01"
            try:
                self.db.execute(update_sql, (target, row))
                got = None
            except Exception as exc:
                got = rejection(exc)
                note(f"rejected: {exc}")
                if got is None:
                    raise
            note(f"row {row}: {before!r} -> {target!r}: expected {want}, got {got}")
            assert got == want, f"{before!r} -> {target!r}: expected {want}, database said {got}"
            if got is None and target != before:
                assert target is not None
                self.history[row].append((before, target))
            stored = self._stored(row)
            assert stored == machine.state.value, f"row holds {stored!r}, Machine {machine.state}"
            if got is not None:
                assert stored == before, "a rejected UPDATE changed the row"

        @rule(row=rows, data=st.data())
        def declared(self, row: int, data: st.DataObject) -> None:
            here = self.machines[row].state
            targets = sorted(t.value for t in m.targets(here)) if hasattr(m, "targets") else []
            if targets:
                self._attempt(row, data.draw(st.sampled_from(targets)))

        @rule(row=rows, name=st.sampled_from(states))
        def any_state(self, row: int, name: str) -> None:
            self._attempt(row, name)

        @rule(row=rows, data=st.data())
        def forbidden(self, row: int, data: st.DataObject) -> None:
            here = self.machines[row].state.value
            targets = sorted(b for a, b in invalid if a == here)
            if targets:
                self._attempt(row, data.draw(st.sampled_from(targets)))

        @rule(row=rows, name=unknown)
        def unknown_name(self, row: int, name: str) -> None:
            self._attempt(row, name)

        @rule(row=rows)
        def null(self, row: int) -> None:
            self._attempt(row, None)

        @rule(row=rows)
        def unchanged(self, row: int) -> None:
            self._attempt(row, self.machines[row].state.value)

        @invariant()
        def no_row_reached_a_state_through_an_invalid_pair(self) -> None:
            for row, steps in self.history.items():
                bad = [pair for pair in steps if pair in invalid]
                assert not bad, f"row {row} went through invalid pairs {bad}"

    SqlMachine.__name__ = SqlMachine.__qualname__ = f"SqlMachine_{m.SPEC_ID.replace('-', '_')}"
    return SqlMachine

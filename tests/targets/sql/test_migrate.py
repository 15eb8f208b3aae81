"""Revision 2 applied over revision 1 on a real PostgreSQL server, with rows in every state of
revision 1: a state renamed, removed with its rows moved, removed while no row holds it,
removed while rows hold it without a destination (refused, nothing changed), a transition
removed, a state added; the same with the generated domain as the column's type."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import sql as pgsql

from .migrate import ROWS_PER_STATE, STATES, TRANSITIONS, Revision, Table, renamed, spec, without
from .postgres import apply_file, dsn_with, login_role


def _migrate(table: Table, second: str, column_type: str = "text") -> tuple[Revision, Revision]:
    """Revision 1 applied over a table holding rows in each of its states, then ``second``
    applied over it; both revisions."""
    first = table.revision(spec(1))
    if column_type == "domain":  # the domain exists once the unbound file is applied
        unbound = table.revision(spec(1), bound=False)
        assert apply_file(table.admin, unbound.postgresql) is None
        column_type = table.domain
    table.create(column_type)
    assert apply_file(table.admin, first.postgresql) is None
    table.fill()
    return first, table.revision(second)


def _no_state(column_type: str) -> str:
    """How writing a name that is no state fails: the domain refuses it before the trigger."""
    return "23514" if column_type == "domain" else "SDS01"


def _moved(before: dict[int, str], moves: dict[str, str]) -> dict[int, str]:
    return {row: moves.get(state, state) for row, state in before.items()}


def _allowed_after(table: Table, revision: Revision) -> None:
    """The new triggers are in force: every pair is judged as revision 2's oracle says."""
    for row, state in table.rows().items():
        for target in revision.states:
            if target == state:
                continue
            want = None if (state, target) in revision.pairs else "SDU01"
            got = table.update(row, target)
            assert got == want, (row, state, target, got)
            if got is None:
                assert table.update(row, state) in (None, "SDU01")
                return  # one row proves the table accepts declared pairs again


@pytest.mark.parametrize("column_type", ["text", "domain"])
def test_a_renamed_state_moves_its_rows(table: Table, column_type: str) -> None:
    states, transitions = renamed("review", "in_review")
    retired = [{"state": "review", "to": "in_review", "why": "renamed for the UI"}]
    _, second = _migrate(table, spec(2, states, transitions, retired), column_type)
    before = table.rows()
    assert apply_file(table.admin, second.postgresql) is None
    after = table.rows()
    assert after == _moved(before, {"review": "in_review"})
    assert sorted(after.values()).count("in_review") == ROWS_PER_STATE
    row = next(r for r, s in after.items() if s == "in_review")
    assert table.update(row, "review") == _no_state(column_type)  # no state any more
    assert table.update(row, "published") is None  # the renamed state keeps its transitions
    _allowed_after(table, second)


@pytest.mark.parametrize("column_type", ["text", "domain"])
def test_a_removed_state_moves_its_rows_to_its_destination(table: Table, column_type: str) -> None:
    states, transitions = without("spam")
    retired = [{"state": "spam", "to": "archived", "why": "spam is archived now"}]
    _, second = _migrate(table, spec(2, states, transitions, retired), column_type)
    before = table.rows()
    assert apply_file(table.admin, second.postgresql) is None
    assert table.rows() == _moved(before, {"spam": "archived"})
    draft = next(r for r, s in table.rows().items() if s == "draft")
    assert table.update(draft, "spam") == _no_state(column_type)


def test_a_removed_state_no_row_holds_applies(table: Table) -> None:
    states, transitions = without("spam")
    retired = [{"state": "spam", "why": "never used"}]
    _, second = _migrate(table, spec(2, states, transitions, retired))
    table.admin.execute(pgsql.SQL("DELETE FROM {} WHERE state = 'spam'").format(table.ident))
    before = table.rows()
    assert apply_file(table.admin, second.postgresql) is None
    assert table.rows() == before
    assert "spam" not in before.values()
    _allowed_after(table, second)


@pytest.mark.parametrize("column_type", ["text", "domain"])
@pytest.mark.parametrize("retire", [True, False], ids=["retired-no-destination", "not-retired"])
def test_rows_left_without_a_destination_refuse_the_file(
    table: Table, column_type: str, retire: bool
) -> None:
    states, transitions = without("spam")
    retired = [{"state": "spam", "why": "no longer a state"}] if retire else []
    _, second = _migrate(table, spec(2, states, transitions, retired), column_type)
    before = table.snapshot()
    error = apply_file(table.admin, second.postgresql)
    assert error is not None and error.sqlstate == "SDM01", error
    message = str(error)
    assert f"{ROWS_PER_STATE} row(s) hold 'spam'" in message
    assert ("retired without a destination" in message) is retire
    assert table.snapshot() == before  # rows, triggers, functions, domain: all unchanged
    spam = next(r for r, s in table.rows().items() if s == "spam")
    assert table.update(spam, "draft") == "SDU01"  # revision 1 still guards the table
    draft = next(r for r, s in table.rows().items() if s == "draft")
    assert table.update(draft, "spam") is None


def _behind_the_triggers(table: Table, *values: str | None) -> None:
    """Rows with ``values``, written with the triggers disabled (superuser: replica role)."""
    with table.admin.transaction():
        table.admin.execute("SET LOCAL session_replication_role = replica")
        for n, value in enumerate(values, start=1000):
            table.admin.execute(
                pgsql.SQL("INSERT INTO {} VALUES (%s, %s)").format(table.ident), (n, value)
            )


def test_values_that_were_never_states_are_left_alone(table: Table) -> None:
    """What no installed revision had as a state (garbage written behind the triggers' back)
    was stranded before this file: the migration leaves it to `db audit`, and judges only
    the states it would strand."""
    states, transitions = without("spam")
    _, second = _migrate(table, spec(2, states, transitions))
    _behind_the_triggers(table, "it's 'odd'", "it's 'odd'", "sp am")
    before = table.snapshot()
    error = apply_file(table.admin, second.postgresql)
    assert error is not None and error.sqlstate == "SDM01"
    message = str(error)
    assert f"{ROWS_PER_STATE} row(s) would be stranded: {ROWS_PER_STATE} row(s) hold 'spam'" in (
        message
    )
    assert "(a state of the installed revision, neither a state nor retired now)" in message
    assert "odd" not in message and "sp am" not in message
    assert table.snapshot() == before
    table.admin.execute(pgsql.SQL("DELETE FROM {} WHERE state = 'spam'").format(table.ident))
    before = table.rows()
    notices: list[str] = []
    table.admin.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
    assert apply_file(table.admin, second.postgresql) is None
    assert table.rows() == before
    assert any("3 row(s) of" in n and "left as they are" in n for n in notices), notices


def test_a_removed_transition_is_refused_afterwards(table: Table) -> None:
    transitions = tuple(t for t in TRANSITIONS if t != ("review", "draft"))
    _, second = _migrate(table, spec(2, STATES, transitions))
    before = table.rows()
    review = next(r for r, s in before.items() if s == "review")
    assert table.update(review, "draft") is None  # revision 1 allows it
    assert table.update(review, "review") is None  # unchanged
    assert table.update(next(r for r, s in table.rows().items() if s == "draft"), "review") is None
    before = table.rows()
    assert apply_file(table.admin, second.postgresql) is None
    assert table.rows() == before
    review = next(r for r, s in before.items() if s == "review")
    assert table.update(review, "draft") == "SDU01"
    _allowed_after(table, second)


def test_an_added_state_is_reachable_afterwards(table: Table) -> None:
    states = (*STATES, "scheduled")
    transitions = (*TRANSITIONS, ("review", "scheduled"), ("scheduled", "published"))
    first, second = _migrate(table, spec(2, states, transitions))
    before = table.rows()
    review = next(r for r, s in before.items() if s == "review")
    assert table.update(review, "scheduled") == "SDS01"  # revision 1: no such state
    assert apply_file(table.admin, second.postgresql) is None
    assert table.rows() == before
    assert table.update(review, "scheduled") is None
    assert table.update(review, "published") is None
    assert ("review", "scheduled") not in first.pairs


def test_applying_the_migration_again_changes_nothing(table: Table) -> None:
    states, transitions = renamed("review", "in_review")
    retired = [{"state": "review", "to": "in_review", "why": "renamed"}]
    _, second = _migrate(table, spec(2, states, transitions, retired))
    assert apply_file(table.admin, second.postgresql) is None
    once = table.snapshot()
    assert apply_file(table.admin, second.postgresql) is None
    assert table.snapshot() == once


def test_writers_get_no_way_around_the_new_triggers(table: Table) -> None:
    """A writer role (INSERT, UPDATE, no ownership) cannot store the retired name after the
    migration, nor disable a trigger, whatever it sets in its session."""
    states, transitions = renamed("review", "in_review")
    retired = [{"state": "review", "to": "in_review", "why": "renamed"}]
    _, second = _migrate(table, spec(2, states, transitions, retired))
    assert apply_file(table.admin, second.postgresql) is None
    admin = table.admin
    with login_role(admin, "writer") as writer:
        role = pgsql.Identifier(writer)
        admin.execute(
            pgsql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(pgsql.Identifier(table.app), role)
        )
        admin.execute(
            pgsql.SQL("GRANT SELECT, INSERT, UPDATE ON {} TO {}").format(table.ident, role)
        )
        dsn = dsn_with(admin.info.dsn, user=writer)
        row = next(r for r, s in table.rows().items() if s == "in_review")
        with psycopg.connect(dsn, autocommit=True) as connection:
            for setting in ("statedoc.migrating", "statedoc.allow_downgrade"):
                connection.execute(pgsql.SQL("SET {} = 'on'").format(pgsql.Identifier(setting)))
            update = pgsql.SQL("UPDATE {} SET state = 'review' WHERE id = %s").format(table.ident)
            with pytest.raises(psycopg.Error) as raised:
                connection.execute(update, (row,))
            assert raised.value.sqlstate == "SDS01"
            disable = pgsql.SQL("ALTER TABLE {} DISABLE TRIGGER ALL").format(table.ident)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                connection.execute(disable)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                connection.execute("SET session_replication_role = replica")
    assert table.rows()[row] == "in_review"


def test_a_partitioned_table_migrates_every_partition(table: Table) -> None:
    """The lock and the paused triggers reach the partitions (their triggers are clones)."""
    items = table.ident
    table.admin.execute(
        pgsql.SQL("CREATE TABLE {} (id int, state text NOT NULL) PARTITION BY RANGE (id)").format(
            items
        )
    )
    for name, low, high in (("items_low", 0, 6), ("items_high", 6, 1000)):
        table.admin.execute(
            pgsql.SQL("CREATE TABLE {} PARTITION OF {} FOR VALUES FROM ({}) TO ({})").format(
                pgsql.Identifier(table.app, name), items, pgsql.Literal(low), pgsql.Literal(high)
            )
        )
    first = table.revision(spec(1))
    assert apply_file(table.admin, first.postgresql) is None
    table.fill()
    states, transitions = renamed("review", "in_review")
    retired = [{"state": "review", "to": "in_review", "why": "renamed"}]
    second = table.revision(spec(2, states, transitions, retired))
    before = table.rows()
    assert {r for r, s in before.items() if s == "review"} & set(range(6))  # both partitions
    assert apply_file(table.admin, second.postgresql) is None
    assert table.rows() == _moved(before, {"review": "in_review"})
    row = next(r for r, s in table.rows().items() if s == "in_review")
    assert table.update(row, "review") == "SDS01"
    disabled = table.admin.execute(
        "SELECT count(*) FROM pg_trigger WHERE tgenabled = 'D' AND NOT tgisinternal"
    ).fetchone()
    assert disabled == (0,)

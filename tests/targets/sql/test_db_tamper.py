"""Each way a database can stop enforcing a spec while its objects (and their comments) stay
in place is caught by ``statedoc db check`` with its own code, on a real server; where the
tampering opens a hole, the test shows a write that now goes through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

from generator.targets.sql.names import pg_literal
from generator.targets.sql.pg_functions import PgObjects, PgTrigger

from .project import (
    QUERIES,
    Project,
    codes,
    comment_of,
    create_tables,
    db_check,
)

NOT_A_STATE = "statedoc-test: not a state"
SPEC = "specs/platform/queries/workspace-export-delivery.md"


def _trigger_sql(
    trigger: PgTrigger,
    *,
    timing: str = "BEFORE",
    column: str | None = None,
    when: str | None = None,
) -> str:
    """``CREATE OR REPLACE TRIGGER`` (keeps the comment) with one part changed."""
    event = "INSERT" if trigger.event == "INSERT" else f'UPDATE OF "{column or trigger.column}"'
    return (
        f'CREATE OR REPLACE TRIGGER "{trigger.name}" {timing} {event} ON {trigger.table_name} '
        f"FOR EACH ROW WHEN ({when or trigger.when}) "
        f"EXECUTE FUNCTION {trigger.function.qualified}()"
    )


def _subtle_when(objects: PgObjects) -> str:
    """The generated UPDATE condition with one declared target swapped for another state:
    reads the same, lets one undeclared pair skip the function."""
    when = objects.triggers[-1].when
    start = when.index("ANY (ARRAY[", when.index("THEN"))
    end = when.index("]", start)
    targets = when[start:end]
    states = objects.domain.states
    target = next(s for s in states if pg_literal(s) in targets)
    other = next(s for s in states if pg_literal(s) not in targets)
    return when[:start] + targets.replace(pg_literal(target), pg_literal(other)) + when[end:]


def _replace_body(function: Any, body: str) -> str:
    args = ", ".join(
        f"{n} {t}" for n, t in zip(function.arg_names, function.arg_types, strict=True)
    )
    return (
        f"CREATE OR REPLACE FUNCTION {function.qualified}({args}) RETURNS {function.returns} "
        f"LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $x${body}$x$"
    )


def _domain_constraint(objects: PgObjects, check: str | None, suffix: str = "") -> list[str]:
    domain = objects.domain
    out = [f'ALTER DOMAIN {domain.qualified} DROP CONSTRAINT "{domain.constraint}"']
    if check is not None:
        out.append(
            f'ALTER DOMAIN {domain.qualified} ADD CONSTRAINT "{domain.constraint}" '
            f"CHECK ({check}){suffix}"
        )
    return out


@dataclass(frozen=True)
class Tampering:
    name: str
    statements: Callable[[PgObjects], list[str]]
    code: str  # what db check must report, and nothing else
    opens_a_hole: bool = False  # an UPDATE to a non-state goes through afterwards


def _update(o: PgObjects) -> PgTrigger:
    return o.triggers[-1]


TAMPERINGS = [
    Tampering(
        "trigger disabled",
        lambda o: [f'ALTER TABLE {_update(o).table_name} DISABLE TRIGGER "{_update(o).name}"'],
        "SD125",
        opens_a_hole=True,
    ),
    Tampering(
        "trigger replica only",
        lambda o: [
            f'ALTER TABLE {_update(o).table_name} ENABLE REPLICA TRIGGER "{_update(o).name}"'
        ],
        "SD125",
        opens_a_hole=True,
    ),
    Tampering(
        "trigger dropped",
        lambda o: [f'DROP TRIGGER "{_update(o).name}" ON {_update(o).table_name}'],
        "SD123",
        opens_a_hole=True,
    ),
    Tampering(
        "trigger with a WHEN that never holds",
        lambda o: [_trigger_sql(_update(o), when=f"{_update(o).when} AND false")],
        "SD125",
        opens_a_hole=True,
    ),
    Tampering(
        "trigger with a WHEN one state off",
        lambda o: [_trigger_sql(_update(o), when=_subtle_when(o))],
        "SD125",
    ),
    Tampering(
        "trigger on another column",
        lambda o: [_trigger_sql(_update(o), column="other")],
        "SD125",
        opens_a_hole=True,
    ),
    Tampering(
        "trigger AFTER the write", lambda o: [_trigger_sql(_update(o), timing="AFTER")], "SD125"
    ),
    Tampering(
        "trigger function returns at once (comment kept)",
        lambda o: [_replace_body(o.functions[1], "\nBEGIN\n  RETURN NEW;\nEND\n")],
        "SD126",
        opens_a_hole=True,
    ),
    Tampering(
        "check function returns at once (comment kept)",
        lambda o: [_replace_body(o.functions[0], "\nBEGIN\n  RETURN;\nEND\n")],
        "SD126",
    ),
    Tampering(
        "SET search_path removed",
        lambda o: [f"ALTER FUNCTION {o.functions[1].signature} RESET search_path"],
        "SD126",
    ),
    Tampering("domain constraint dropped", lambda o: _domain_constraint(o, None), "SD126"),
    Tampering(
        "domain constraint replaced", lambda o: _domain_constraint(o, "VALUE IS NOT NULL"), "SD126"
    ),
    Tampering(
        "domain constraint with one more value",
        lambda o: _domain_constraint(o, f"({o.domain.check}) OR VALUE = 'archived'"),
        "SD126",
    ),
    Tampering(
        "domain constraint NOT VALID",
        lambda o: _domain_constraint(o, o.domain.check, " NOT VALID"),
        "SD126",
    ),
    Tampering(
        "an extra function in the schema",
        lambda o: [
            f"CREATE FUNCTION {o.domain.schema}.extra() RETURNS int LANGUAGE sql AS 'SELECT 1'"
        ],
        "SD127",
    ),
    Tampering(
        "a table in the schema",
        lambda o: [f"CREATE TABLE {o.domain.schema}.pairs (from_state text, to_state text)"],
        "SD127",
    ),
    Tampering(
        "the trigger function attached to another table",
        lambda o: [
            "CREATE TABLE side (status text)",
            f"CREATE TRIGGER side_status BEFORE UPDATE ON side FOR EACH ROW "
            f"EXECUTE FUNCTION {o.functions[1].qualified}()",
        ],
        "SD127",
    ),
]


def _update_goes_through(pg: Any, table: str) -> bool:
    """Whether moving row 1 to a value that is no state succeeds (rolled back either way)."""
    try:
        with pg.transaction(force_rollback=True):
            pg.execute(f"UPDATE {table} SET status = %s WHERE id = 1", (NOT_A_STATE,))
    except psycopg.Error:
        return False
    return True


def _comments(pg: Any, objects: PgObjects) -> dict[str, str]:
    return {
        "domain": comment_of(pg, "domain", objects.domain.qualified),
        **{f.signature: comment_of(pg, "function", f.signature) for f in objects.functions},
    }


@pytest.mark.parametrize("tampering", TAMPERINGS, ids=[t.name for t in TAMPERINGS])
def test_tampering_is_caught(
    tampering: Tampering, project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    create_tables(pg)
    project.apply(pg.info.dsn)
    objects = project.objects(QUERIES)
    table = _update(objects).table_name
    pg.execute(f"INSERT INTO {table} (id, status) VALUES (1, %s)", (objects.domain.states[0],))
    assert db_check(capsys, pg.info.dsn)[:2] == (0, [])
    assert not _update_goes_through(pg, table)
    comments = _comments(pg, objects)

    for statement in tampering.statements(objects):
        pg.execute(statement)

    assert _update_goes_through(pg, table) is tampering.opens_a_hole
    assert _comments(pg, objects) == comments  # the comments still say "installed"
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and codes(findings) == {tampering.code}, findings
    if tampering.code == "SD127":
        assert {f["path"] for f in findings} == {"pyproject.toml"}
    else:
        assert {(f["path"], f["line"]) for f in findings} == {(SPEC, 2)}

"""``statedoc db audit`` on a real PostgreSQL: a table with rows walked through the triggers
into every state, plus rows and history written with the triggers disabled (values that are
no state, NULL, a forbidden and an undeclared pair, an INSERT in a state that is not initial);
each is reported exactly, through the CLI, in text and in JSON, by a role that may only SELECT.

Expected counts and keys come from the :class:`Ledger` of what the test wrote and from the
spec, never typed in.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from psycopg import sql as pgsql

from generator.model.spec import Spec
from generator.targets.sql.audit_findings import pair_text, quoted
from generator.targets.sql.audit_model import SHOWN

from ..test_generate_support import run_cli
from .audit import (
    ATTEMPTS,
    DELIVERIES,
    PLANNED,
    Ledger,
    by_code,
    create_tables,
    db_audit,
    guard_triggers,
    history_of,
    measurable,
    set_triggers,
    spec_json,
    spec_of,
    walk_every_state,
)
from .lifecycle import SPEC
from .postgres import dsn_with, login_role
from .project import QUERIES, TENANT, Project


def not_a_state(spec: Spec, hint: str) -> str:
    name = hint
    while name in spec.state_names:
        name += "_x"
    return name


def seed(project: Project, pg: Any) -> Ledger:
    """Rows in every state through the triggers, then behind their back: two values that
    are no state (one NULL) with every trigger off (no history), and with only the guard off
    (history on): a forbidden pair, an undeclared pair and an INSERT in a non-initial state."""
    spec = spec_of(project)
    ledger = Ledger()
    walk_every_state(pg, spec, ledger)
    set_triggers(pg, DELIVERIES, None, enabled=False)
    archived = not_a_state(spec, "archived")
    for key in (1004, 1001, 1003, 1002):
        pg.execute(f"INSERT INTO {DELIVERIES} VALUES (%s, %s)", (key, archived))
        ledger.rows[key] = archived
    pg.execute(f"INSERT INTO {DELIVERIES} VALUES (1010, NULL)")
    ledger.rows[1010] = None
    set_triggers(pg, DELIVERIES, None, enabled=True)

    set_triggers(pg, DELIVERIES, guard_triggers(project), enabled=False)
    declared = set(measurable(spec))
    forbidden = spec.invalid[0].pair
    undeclared = next(
        (a, b)
        for a in spec.state_names
        for b in spec.state_names
        if a != b
        and (a, b) not in declared
        and (a, b) not in spec.invalid_pairs
        and a in ledger.rows.values()
        and (a, b) != forbidden
    )
    for old, new in (forbidden, undeclared):
        key = min(k for k, v in ledger.rows.items() if v == old)
        pg.execute(f"UPDATE {DELIVERIES} SET status = %s WHERE id = %s", (new, key))
        ledger.record({"id": key}, old, new)
        ledger.rows[key] = new
    late = next(s for s in spec.state_names if s not in spec.initial_states)
    pg.execute(f"INSERT INTO {DELIVERIES} (id, status) VALUES (2000, %s)", (late,))
    ledger.record({"id": 2000}, None, late)
    ledger.rows[2000] = late
    set_triggers(pg, DELIVERIES, guard_triggers(project), enabled=True)
    pg.execute(
        f"INSERT INTO {ATTEMPTS} (id, status) VALUES (1, %s)",
        (spec_of(project, TENANT).initial_states[0],),
    )
    return ledger


def disallowed(spec: Spec, ledger: Ledger) -> list[tuple[str | None, str]]:
    declared = set(measurable(spec))
    return [
        pair
        for pair in ledger.changes
        if (pair[0] is None and pair[1] not in spec.initial_states)
        or (pair[0] is not None and pair not in declared)
    ]


@pytest.fixture
def seeded(audited_project: Project, pg: Any) -> tuple[Project, Ledger, str]:
    create_tables(pg)
    audited_project.apply(pg.info.dsn)
    return audited_project, seed(audited_project, pg), pg.info.dsn


def test_every_problem_is_reported_exactly_in_json(
    seeded: tuple[Project, Ledger, str], capsys: pytest.CaptureFixture[str]
) -> None:
    project, ledger, dsn = seeded
    spec = spec_of(project)
    code, findings, data, _ = db_audit(capsys, dsn)
    assert code == 1

    audit = spec_json(data)
    assert audit["rows"]["total"] == len(ledger.rows)
    assert audit["rows"]["states"] == ledger.per_state(spec)
    unknown = ledger.unknown(spec)
    shown = audit["rows"]["unknown"]
    assert shown["rows"] == sum(map(len, unknown.values())) and shown["values"] == len(unknown)
    assert {u["value"]: (u["rows"], u["examples"]) for u in shown["shown"]} == {
        value: (len(keys), [{"id": k} for k in keys[:3]]) for value, keys in unknown.items()
    }

    history = audit["history"]
    assert history is not None, audit["problems"]
    pairs = measurable(spec)
    assert [(t["from"], t["to"], t["times"]) for t in history["transitions"]] == [
        (a, b, ledger.changes[(a, b)]) for a, b in pairs
    ]
    never = [p for p in pairs if not ledger.changes[p]]
    assert [(n["from"], n["to"]) for n in history["never"]] == never
    assert (history["covered"], history["total"]) == (len(pairs) - len(never), len(pairs))
    assert history["inserts"] == sum(n for (a, _), n in ledger.changes.items() if a is None)
    assert history["updates"] == sum(n for (a, _), n in ledger.changes.items() if a is not None)
    bad = disallowed(spec, ledger)
    assert {
        (d["from"], d["to"]): (d["rows"], d["examples"]) for d in history["disallowed"]["shown"]
    } == {pair: (ledger.changes[pair], ledger.keys[pair]) for pair in bad}
    assert data["coverage"]["covered"] == history["covered"]

    tenant = spec_json(data, TENANT)
    assert tenant["history"] is None and tenant["rows"]["total"] == 1

    observed_never = [
        p for p in never if any(t.provenance == "observed" for t in spec.transitions if t.pair == p)
    ]
    assert by_code(findings) == {
        "SD141": len(unknown),
        "SD142": len(bad),
        "SD143": 1,
        "SD144": 1,
        "SD145": len(observed_never),
    }
    assert all(f["path"] == SPEC for f in findings)
    messages = {f["code"]: [] for f in findings}
    for f in findings:
        messages[f["code"]].append(f["message"])
    for value, keys in unknown.items():
        line = next(m for m in messages["SD141"] if f" {quoted(value)}, no state " in m)
        assert line.startswith(f"{QUERIES}: {len(keys)} row")
        assert line.endswith("e.g. " + ", ".join(quoted({"id": k}) for k in keys[:3]))
    for pair in bad:
        line = next(m for m in messages["SD142"] if f" records {pair_text(*pair)} " in m)
        assert f" {ledger.changes[pair]} time" in line
    assert pair_text(*PLANNED) in messages["SD143"][0]
    assert {m.split(" is `")[0].split(": ", 1)[1] for m in messages["SD145"]} == {
        pair_text(*p) for p in observed_never
    }
    forbidden = next(f for f in findings if "forbids" in f["message"])
    invalid_line = spec_line(
        project,
        f"  - from: {spec.invalid[0].from_state}\n    to: {spec.invalid[0].to_state}\n    why:",
    )
    assert forbidden["line"] == invalid_line


def spec_line(project: Project, block: str) -> int:
    text = project.spec_path("queries").read_text(encoding="utf-8")
    return text[: text.index(block)].count("\n") + 1


def test_text_shows_a_table_per_spec_and_the_findings(
    seeded: tuple[Project, Ledger, str], capsys: pytest.CaptureFixture[str]
) -> None:
    project, ledger, dsn = seeded
    spec = spec_of(project)
    code, out, err = run_cli(capsys, "db", "audit", "--dsn", dsn)
    assert code == 1, err
    lines = out.splitlines()
    start = lines.index(next(x for x in lines if x.startswith(f"{QUERIES} ")))
    assert lines[start].endswith(f"public.{DELIVERIES}.status, {len(ledger.rows)} rows")
    counted = {}
    for line in lines[start + 2 : start + 2 + len(spec.state_names) + 1]:
        name, rows = line.rsplit(maxsplit=1)
        counted[name.strip()] = int(rows)
    unknown = sum(map(len, ledger.unknown(spec).values()))
    assert counted == {**ledger.per_state(spec), "(no state)": unknown}
    for a, b in measurable(spec):
        text = re.escape(pair_text(a, b))
        row = next(x for x in lines if re.match(rf"^  {text} +\d+ ", x))
        assert int(row.split()[3]) == ledger.changes[(a, b)]
    total = next(x for x in lines if x.startswith("TOTAL production transition coverage "))
    pairs = measurable(spec)
    covered = sum(1 for p in pairs if ledger.changes[p])
    assert total.split()[4] == f"{covered}/{len(pairs)}"
    findings = [x for x in lines if x.startswith(f"{SPEC}:")]
    assert len(findings) == len(set(findings)) and any(" SD141 " in x for x in findings)
    tenant = next(x for x in lines if x.startswith(f"{TENANT} "))
    assert tenant.endswith(f"public.{ATTEMPTS}.status, 1 row")
    assert lines[lines.index(tenant) + 1 :].count("  history: off (coverage not measured)") == 1


def test_a_role_that_may_only_select_gets_the_same_audit(
    seeded: tuple[Project, Ledger, str], pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, dsn = seeded
    _, expected, as_owner, _ = db_audit(capsys, dsn)
    with login_role(pg, "auditor") as role:
        who = pgsql.Identifier(role)
        for table in (pgsql.Identifier(DELIVERIES), pgsql.Identifier(ATTEMPTS), history_of()):
            pg.execute(pgsql.SQL("GRANT SELECT ON {} TO {}").format(table, who))
        code, findings, data, err = db_audit(capsys, dsn_with(dsn, user=role))
        assert findings == expected and code == 1, err
        assert data == as_owner
        pg.execute(pgsql.SQL("REVOKE SELECT ON {} FROM {}").format(history_of(), who))
        code, findings, data, _ = db_audit(capsys, dsn_with(dsn, user=role))
        unreadable = [f for f in findings if f["code"] == "SD140"]
        assert len(unreadable) == 1 and "permission denied" in unreadable[0]["message"]
        assert spec_json(data)["rows"] == spec_json(as_owner)["rows"]  # the table still read
        assert spec_json(data)["history"] is None


def test_many_values_and_pairs_are_counted_beyond_those_shown(
    audited_project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The SHOWN most frequent each get a finding; one more finding counts the rest."""
    create_tables(pg)
    audited_project.apply(pg.info.dsn)
    spec = spec_of(audited_project)
    extra = 3
    values = [not_a_state(spec, f"gone{n}") for n in range(SHOWN + extra)]
    set_triggers(pg, DELIVERIES, None, enabled=False)
    key = 0
    for n, value in enumerate(values):
        for _ in range(len(values) - n):  # distinct counts: the order is the counts' order
            key += 1
            pg.execute(f"INSERT INTO {DELIVERIES} VALUES (%s, %s)", (key, value))
            pg.execute(
                pgsql.SQL(
                    "INSERT INTO {} (row_key, from_state, to_state, changed_at, changed_by,"
                    " revision, kind) VALUES (jsonb_build_object('id', %s::int), %s, %s, now(),"
                    " current_user, 1, 'update')"
                ).format(history_of()),
                (key, value, spec.state_names[0]),
            )
    code, findings, data, _ = db_audit(capsys, pg.info.dsn)
    unknown = spec_json(data)["rows"]["unknown"]
    assert code == 1 and (unknown["values"], unknown["rows"]) == (len(values), key)
    assert [u["value"] for u in unknown["shown"]] == values[:SHOWN]
    rest_rows = sum(len(values) - n for n in range(SHOWN, len(values)))
    for code_ in ("SD141", "SD142"):
        mine = [f["message"] for f in findings if f["code"] == code_]
        assert len(mine) == SHOWN + 1
        rest = next(m for m in mine if " more " in m)
        assert f" {extra} more " in rest and f" {rest_rows} rows " in rest + " "
    disallowed = spec_json(data)["history"]["disallowed"]
    assert (disallowed["pairs"], disallowed["rows"]) == (len(values), key)

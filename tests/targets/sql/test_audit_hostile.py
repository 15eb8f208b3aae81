"""``db audit`` against what a database may hold: values and keys written to forge report
lines (terminal escapes, line breaks, GitHub workflow commands, bidi controls, SQL), a binding
whose table name needs quoting, a table locked past ``--timeout``, and every report format.
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from psycopg import sql as pgsql

from generator.report import printable
from generator.targets.sql.audit_findings import QUOTED, quoted
from generator.targets.sql.audit_window import parse_since
from generator.targets.sql.history import history_table
from generator.targets.sql.settings import SqlBinding

from ..test_generate_support import make_project, run_cli
from .audit import (
    ATTEMPTS,
    DELIVERIES,
    by_code,
    create_tables,
    db_audit,
    make_audited_project,
    spec_json,
    spec_of,
)
from .project import QUERIES, TENANT, Project

SPEC = "specs/platform/queries/workspace-export-delivery.md"
TABLE = "odd$deliveries"
FORGED = "\x1b[31mred\n::error file=evil.md,line=1::forged\u202ecba\r\n"
SQLISH = "x'); DROP TABLE deliveries; --\"\u2028"
KEYS = ("k\n::warning file=evil.md::forged", "\u202e\x07evil", "plain")


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg: Any) -> str:
    root = make_project(tmp_path / "p")
    with (root / "pyproject.toml").open("a") as handle:
        handle.write(
            f'\n[tool.statedoc.sql.bindings]\n"{QUERIES}" = {{table = "{TABLE}", '
            'column = "status", history = true, key = ["id"]}\n'
        )
    monkeypatch.chdir(root)
    table = pgsql.Identifier(TABLE)
    pg.execute(pgsql.SQL("CREATE TABLE {} (id text PRIMARY KEY, status text)").format(table))
    Project(root).apply(pg.info.dsn)
    pg.execute(pgsql.SQL("ALTER TABLE {} DISABLE TRIGGER USER").format(table))
    for key, value in zip(KEYS, (FORGED, FORGED, SQLISH), strict=True):
        pg.execute(pgsql.SQL("INSERT INTO {} VALUES (%s, %s)").format(table), (key, value))
    history = pgsql.Identifier(*history_table(SqlBinding(TABLE, "status")))
    pg.execute(
        pgsql.SQL(
            "INSERT INTO {} (row_key, from_state, to_state, changed_at, changed_by, revision, kind)"
            " VALUES (pg_catalog.jsonb_build_object('id', %s::text), %s, %s, now(), %s, 1,"
            " 'update')"
        ).format(history),
        (KEYS[0], SQLISH, FORGED, FORGED),
    )
    return str(pg.info.dsn)


def test_values_from_the_database_stay_data_in_every_format(
    hostile: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, findings, data, _ = db_audit(capsys, hostile)
    assert code == 1
    audit = spec_json(data)
    assert audit["table"]["name"] == TABLE
    unknown = {u["value"]: (u["rows"], u["examples"]) for u in audit["rows"]["unknown"]["shown"]}
    assert {value: rows for value, (rows, _) in unknown.items()} == {FORGED: 2, SQLISH: 1}
    assert sorted(k["id"] for k in unknown[FORGED][1]) == sorted(KEYS[:2])
    assert unknown[SQLISH][1] == [{"id": KEYS[2]}]
    shown = audit["history"]["disallowed"]["shown"]
    assert [(d["from"], d["to"], d["examples"]) for d in shown] == [
        (SQLISH, FORGED, [{"id": KEYS[0]}])
    ]
    counted = by_code(findings)
    assert (counted["SD141"], counted["SD142"], counted["SD144"]) == (2, 1, 1)

    code, out, _ = run_cli(capsys, "db", "audit", "--dsn", hostile)
    assert code == 1
    for line in out.splitlines():
        assert not any(c in line for c in "\x1b\x07\r\u202e\u2028"), line
        assert line.startswith((f"{SPEC}:", "  ", QUERIES, "TOTAL ", "STATE-PFM-TNL-002: ")), line

    code, out, _ = run_cli(capsys, "db", "audit", "--dsn", hostile, "--format", "github")
    lines = out.splitlines()
    assert code == 1 and len(lines) == len(findings)
    assert all(x.startswith((f"::error file={SPEC},", f"::warning file={SPEC},")) for x in lines)

    code, out, _ = run_cli(capsys, "db", "audit", "--dsn", hostile, "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1 and sorted(r["ruleId"] for r in results) == sorted(f["code"] for f in findings)
    assert [r["message"]["text"] for r in results] == [f["message"] for f in findings]

    code, out, _ = run_cli(capsys, "db", "audit", "--dsn", hostile, "--format", "junit")
    case = next(c for c in ET.fromstring(out).iter("testcase") if c.get("name") == SPEC)
    failure, written = case.find("failure"), case.find("system-out")
    assert code == 1 and failure is not None and written is not None
    errors = [f for f in findings if f["severity"] == "error"]
    assert failure.get("message", "").startswith(f"{len(errors)} error(s); ")
    lines = [*(failure.text or "").split("\n"), *(written.text or "").split("\n")]
    assert [x.split(": ", 1)[1].split(" ", 1)[0] for x in lines] == [
        f["code"] for f in sorted(findings, key=lambda f: f["severity"] != "error")
    ]


def test_a_locked_table_times_out_into_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A migration holding ACCESS EXCLUSIVE: that spec's reads end with SD140 after the
    timeout, the other spec is still audited."""
    project = make_audited_project(tmp_path / "p", monkeypatch)
    create_tables(pg)
    project.apply(pg.info.dsn)
    initial = spec_of(project, TENANT).initial_states[0]
    pg.execute(f"INSERT INTO {ATTEMPTS} (id, status) VALUES (1, %s)", (initial,))
    with psycopg.connect(pg.info.dsn) as locker:
        locker.execute(f"LOCK TABLE {DELIVERIES} IN ACCESS EXCLUSIVE MODE")
        code, findings, data, _ = db_audit(capsys, pg.info.dsn, "--timeout", "0.2")
        locker.rollback()
    timed_out = [f for f in findings if f["code"] == "SD140"]
    assert code == 1 and len(timed_out) == 1, findings
    assert "timed out after 0.2 s (--timeout)" in timed_out[0]["message"]
    assert timed_out[0]["message"].startswith(f"{QUERIES}: reading the bound table")
    assert spec_json(data)["rows"] is None
    other = [s for s in data["specs"] if s["id"] != QUERIES]
    assert [s["rows"]["total"] for s in other] == [1] and not other[0]["problems"]


@given(st.text(max_size=QUOTED))
def test_a_quoted_value_is_one_printable_line_that_reads_back(value: str) -> None:
    text = quoted(value)
    assert json.loads(text) == value
    assert text.isprintable() and text == printable(text)


@given(st.text(min_size=QUOTED + 1))
def test_a_long_value_is_cut_and_still_one_printable_line(value: str) -> None:
    text = quoted(value)
    assert text.endswith('..."') and json.loads(text) == value[:QUOTED] + "..."
    assert text.isprintable()


@given(st.integers(1, 999_999), st.sampled_from("mhdw"))
def test_a_duration_is_a_window_back_from_now(amount: int, unit: str) -> None:
    scale = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}[unit]
    assert parse_since(f"{amount}{unit}") == dt.timedelta(seconds=amount * scale)


def test_dates_and_times_of_since() -> None:
    assert parse_since("2026-11-01") == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    later = parse_since("2026-11-01T08:00:00+01:00")
    assert later == dt.datetime(2026, 11, 1, 7, tzinfo=dt.UTC)
    for bad in ("30", "0d", "-3d", "30 days", "2026-13-01", ""):
        with pytest.raises(ValueError, match="neither an ISO date"):
            parse_since(bad)

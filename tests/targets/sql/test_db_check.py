"""``statedoc db check`` against a real PostgreSQL: missing, matching, stale, unreachable, the
report formats, the catalogue, read-only, timeouts and roles that cannot probe."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from psycopg import sql as pgsql

from generator.rules import all_rules

from ..test_generate_support import run_cli
from .catalog import catalog_snapshot
from .postgres import dsn_with, login_role
from .project import (
    QUERIES,
    TABLES,
    TENANT,
    Project,
    codes,
    create_tables,
    db_check,
)

DB_CODES = [f"SD12{n}" for n in range(3, 10)]


def object_count(project: Project) -> int:
    """Objects the repository generates: a domain, the functions and the triggers a spec."""
    return sum(
        1 + len(o.functions) + len(o.triggers) for o in map(project.objects, (QUERIES, TENANT))
    )


def test_missing_then_clean_then_stale_then_dropped(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = pg.info.dsn
    create_tables(pg)
    total = object_count(project)

    code, findings, _ = db_check(capsys, dsn)
    missing = [f for f in findings if f["code"] == "SD123"]
    assert code == 1 and len(missing) == total == len(findings)
    assert {f["message"].split(":")[0] for f in missing} == {QUERIES, TENANT}
    assert all(f["line"] == 2 for f in missing)  # the id line

    project.apply(dsn)
    code, out, err = run_cli(capsys, "db", "check", "--dsn", dsn)
    assert code == 0 and out.count("installed: ") == total, (out, err)
    assert out.count(": matches the repository\n") == total
    assert "installed: trigger statedoc_" in out

    project.bump("queries", 2)
    code, findings, _ = db_check(capsys, dsn)
    ours = project.objects(QUERIES)
    assert code == 1 and codes(findings) == {"SD124"}
    assert len(findings) == 1 + len(ours.functions) + len(ours.triggers)
    assert all(f["path"].endswith("workspace-export-delivery.md") for f in findings)

    update = project.objects(TENANT).triggers[-1]
    pg.execute(f'DROP TRIGGER "{update.name}" ON {update.table_name}')
    code, findings, _ = db_check(capsys, dsn, "specs/platform/tenant-lifecycle")
    assert code == 1 and [f["code"] for f in findings] == ["SD123"]
    assert update.name in findings[0]["message"] and "trigger" in findings[0]["message"]


def test_listing_does_not_call_a_tampered_object_fine(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    create_tables(pg)
    project.apply(pg.info.dsn)
    update = project.objects(QUERIES).triggers[-1]
    pg.execute(f'ALTER TABLE {update.table_name} DISABLE TRIGGER "{update.name}"')
    code, out, _ = run_cli(capsys, "db", "check", "--dsn", pg.info.dsn)
    line = next(x for x in out.splitlines() if x.startswith(f"installed: trigger {update.name}"))
    assert code == 1 and line.endswith("does not match (SD125)")
    assert out.count(": matches the repository\n") == object_count(project) - 1


def test_every_report_format(project: Project, pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A finding about a spec's object points at the spec; one about an object no spec
    generates points at the configuration that names the schema."""
    create_tables(pg)
    project.apply(pg.info.dsn)
    update = project.objects(QUERIES).triggers[-1]
    pg.execute(f'ALTER TABLE {update.table_name} DISABLE TRIGGER "{update.name}"')
    pg.execute("CREATE FUNCTION statedoc.extra() RETURNS int LANGUAGE sql AS 'SELECT 1'")
    config_lines = (project.root / "pyproject.toml").read_text().splitlines()
    sql_line = config_lines.index("[tool.statedoc.sql.bindings]") + 1
    spec = "specs/platform/queries/workspace-export-delivery.md"
    dsn = pg.info.dsn

    code, findings, _ = db_check(capsys, dsn)
    where = {f["code"]: (f["path"], f["line"]) for f in findings}
    assert code == 1 and where == {"SD125": (spec, 2), "SD127": ("pyproject.toml", sql_line)}

    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "github")
    assert code == 1
    assert sum(x.startswith(f"::error file={spec},line=2,") for x in out.splitlines()) == 1
    assert f"::error file=pyproject.toml,line={sql_line}," in out

    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "sarif")
    run = json.loads(out)["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    results = {
        r["ruleId"]: r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in run["results"]
    }
    assert code == 1 and results == {"SD125": spec, "SD127": "pyproject.toml"}
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])

    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "junit")
    cases = {c.get("name"): c for c in ET.fromstring(out).iter("testcase")}
    assert code == 1 and {"pyproject.toml", spec} <= set(cases)
    failure = cases["pyproject.toml"].find("failure")
    assert failure is not None and failure.get("type") == "SD127"

    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "text")
    assert code == 1
    assert any(x.startswith(f"{spec}:2:") and " SD125 " in x for x in out.splitlines())
    assert any(x.startswith(f"pyproject.toml:{sql_line}:1: SD127 ") for x in out.splitlines())


@pytest.mark.parametrize("code", DB_CODES)
def test_codes_are_in_the_catalogue(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    rule = {r.code: r for r in all_rules()}[code]
    assert rule.scope == "database" and rule.why
    status, out, _ = run_cli(capsys, "rules")
    assert status == 0 and any(line.split()[:1] == [code] for line in out.splitlines())
    status, out, _ = run_cli(capsys, "explain", code)
    assert status == 0 and code in out and rule.why.split()[0] in out


def test_check_changes_nothing(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even a constraint that writes when a value is cast to the domain writes nothing: the
    casts run in a read-only transaction (and the probe's is rolled back)."""
    create_tables(pg)
    project.apply(pg.info.dsn)
    before = catalog_snapshot(pg)
    assert db_check(capsys, pg.info.dsn)[:2] == (0, [])
    assert catalog_snapshot(pg) == before

    domain = project.objects(QUERIES).domain
    pg.execute("CREATE TABLE public.seen (value text)")
    pg.execute(
        "CREATE FUNCTION public.note(v text) RETURNS boolean LANGUAGE plpgsql "
        "AS $$BEGIN INSERT INTO public.seen VALUES (v); RETURN true; END$$"
    )
    pg.execute(f'ALTER DOMAIN {domain.qualified} DROP CONSTRAINT "{domain.constraint}"')
    pg.execute(
        f'ALTER DOMAIN {domain.qualified} ADD CONSTRAINT "{domain.constraint}" '
        "CHECK (public.note(VALUE))"
    )
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and codes(findings) == {"SD126", "SD129"}
    assert "read-only transaction" in next(f for f in findings if f["code"] == "SD129")["message"]
    assert pg.execute("SELECT count(*) FROM public.seen").fetchone() == (0,)


def test_unreachable_is_exit_2(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "db", "check", "--dsn", f"host={tmp_path} dbname=x")
    assert code == 2 and "cannot reach the database" in err


def test_statement_timeout_ends_the_check(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A constraint that never returns stops the check with exit 2, not a hang."""
    create_tables(pg)
    project.apply(pg.info.dsn)
    domain = project.objects(QUERIES).domain
    pg.execute(
        "CREATE FUNCTION public.slow(text) RETURNS boolean LANGUAGE sql "
        "AS 'SELECT pg_sleep(30) IS NOT NULL'"
    )
    pg.execute(f'ALTER DOMAIN {domain.qualified} DROP CONSTRAINT "{domain.constraint}"')
    pg.execute(
        f'ALTER DOMAIN {domain.qualified} ADD CONSTRAINT "{domain.constraint}" '
        "CHECK (public.slow(VALUE))"
    )
    code, out, err = run_cli(capsys, "db", "check", "--dsn", pg.info.dsn, "--timeout", "0.5")
    assert code == 2 and "statement timeout" in err, (out, err)


def test_role_that_cannot_probe_gets_warnings(
    project: Project, pg: Any, pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without TEMPORARY the conditions cannot be compared: SD129 says so (a warning)."""
    create_tables(pg)
    project.apply(pg.info.dsn)
    database = pgsql.Identifier(pg.info.dbname)
    pg.execute(pgsql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(database))
    with login_role(pg, "checker") as role:
        pg.execute(pgsql.SQL("GRANT USAGE ON SCHEMA statedoc TO {}").format(pgsql.Identifier(role)))
        dsn = dsn_with(pg.info.dsn, user=role)
        code, findings, _ = db_check(capsys, dsn)
        assert code == 0 and codes(findings) == {"SD129"}
        assert all(f["severity"] == "warning" for f in findings)
        probed = [t for s in (QUERIES, TENANT) for t in project.objects(s).triggers]
        assert len(findings) == len(probed) + len(TABLES)  # each WHEN, each domain constraint
        assert all("permission denied" in f["message"] for f in findings)

        update = project.objects(QUERIES).triggers[-1]
        pg.execute(f'ALTER TABLE {update.table_name} DISABLE TRIGGER "{update.name}"')
        code, findings, _ = db_check(capsys, dsn)
        assert code == 1 and codes(findings) == {"SD125", "SD129"}  # the rest is still seen

"""``statedoc db check`` against a real PostgreSQL: missing, matching, stale, unreachable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import load_config
from generator.targets.sql import SqlTarget
from targets.test_generate_support import ROOT, SEEDS, make_project, run_cli

from .sql_support import lint_document

BINDINGS = """
[tool.statedoc.sql.bindings]
"STATE-PFM-QRY-011" = {table = "deliveries", column = "status"}
"STATE-PFM-TNL-002" = {table = "attempts", column = "status"}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project(tmp_path / "p")
    with (root / "pyproject.toml").open("a") as handle:
        handle.write(BINDINGS)
    monkeypatch.chdir(root)
    return root


def generated_sql(root: Path) -> list[str]:
    config = load_config(root)
    out = []
    for path in SEEDS.values():
        relative = path.relative_to(ROOT).as_posix()
        document = lint_document(root / relative, relative)
        files = SqlTarget().files(document, config)
        out += [v.decode() for k, v in files.items() if k.endswith(".postgresql.sql")]
    return out


def test_db_check(project: Path, pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    dsn = pg.info.dsn
    spec_ids = {"STATE-PFM-QRY-011", "STATE-PFM-TNL-002"}
    pg.execute("CREATE TABLE deliveries (id int, status text)")
    pg.execute("CREATE TABLE attempts (id int, status text)")

    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "json")
    findings = json.loads(out)
    assert code == 1
    missing = [f for f in findings if f["code"] == "SD123"]
    assert len(missing) == 10 and {f["message"].split(":")[0] for f in missing} == spec_ids
    assert all(f["line"] == 2 for f in missing)  # the id line

    for text in generated_sql(project):
        pg.execute(text)
    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn)
    assert code == 0, out
    assert out.count("installed: ") == 10 and "installed: trigger statedoc_" in out

    spec = project / SEEDS["queries"].relative_to(ROOT)
    spec.write_text(spec.read_text().replace("revision: 1", "revision: 2"))
    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "json")
    stale = [f for f in json.loads(out) if f["code"] == "SD124"]
    assert code == 1 and len(stale) == 5
    assert all(f["path"].endswith("workspace-export-delivery.md") for f in stale)

    pg.execute("DROP TRIGGER statedoc_provisioning_attempt_update ON attempts")
    code, out, _ = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "json")
    missing = [f for f in json.loads(out) if f["code"] == "SD123"]
    assert code == 1 and len(missing) == 1 and "trigger" in missing[0]["message"]


def test_db_check_unreachable_is_exit_2(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "db", "check", "--dsn", f"host={tmp_path} dbname=x")
    assert code == 2 and "cannot reach the database" in err

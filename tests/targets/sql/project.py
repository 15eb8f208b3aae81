"""The project of the ``statedoc db check`` tests: the two seed specs bound to tables, their
generated PostgreSQL files applied with psql as documented, the names and texts of what they
generate (computed by the SQL target, never typed in), and ``db check`` run through the CLI."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.run.config import load_config
from generator.targets import source_path
from generator.targets.registry import get_target
from generator.targets.sql.pg_functions import PgObjects, pg_objects
from generator.targets.sql.settings import sql_settings
from generator.targets.sql.target import plan_for

from ..test_generate_support import ROOT, SEEDS, make_project, run_cli
from .cases import lint_document
from .postgres import psql_file

QUERIES, TENANT = "STATE-PFM-QRY-011", "STATE-PFM-TNL-002"
TABLES = {QUERIES: "deliveries", TENANT: "attempts"}
BINDINGS = "\n[tool.statedoc.sql.bindings]\n" + "".join(
    f'"{spec_id}" = {{table = "{table}", column = "status"}}\n' for spec_id, table in TABLES.items()
)


@dataclass(frozen=True)
class Project:
    root: Path

    def spec_path(self, key: str) -> Path:
        return self.root / SEEDS[key].relative_to(ROOT)

    def documents(self) -> dict[str, Any]:
        out = {}
        for key in SEEDS:
            path = self.spec_path(key)
            if path.exists():
                relative = path.relative_to(self.root).as_posix()
                document = lint_document(path, relative)
                out[document.spec.id] = document
        return out

    def objects(self, spec_id: str) -> PgObjects:
        """What the repository generates for ``spec_id`` (the test's source of names)."""
        config = load_config(self.root)
        document = self.documents()[spec_id]
        return pg_objects(plan_for(document, sql_settings(config), source_path(document, config)))

    def files(self) -> dict[str, str]:
        """Each spec's ``.postgresql.sql`` text by spec id."""
        config = load_config(self.root)
        target = get_target("sql", config)
        out = {}
        for spec_id, document in self.documents().items():
            files = target.files(document, config)
            out[spec_id] = next(
                v.decode() for k, v in files.items() if k.endswith(".postgresql.sql")
            )
        return out

    def apply(self, dsn: str, only: str | None = None) -> None:
        """Apply the generated files the documented way: ``psql -v ON_ERROR_STOP=1 -f``."""
        for spec_id, text in self.files().items():
            if only is not None and spec_id != only:
                continue
            path = self.root / f"{spec_id}.postgresql.sql"
            path.write_text(text, encoding="utf-8")
            done = psql_file(dsn, path, stop_on_error=True)
            assert done.returncode == 0, done.stderr

    def bump(self, key: str, revision: int) -> None:
        path = self.spec_path(key)
        text = path.read_text(encoding="utf-8")
        assert "revision: 1\n" in text
        path.write_text(text.replace("revision: 1\n", f"revision: {revision}\n", 1))


def make_bound_project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    make_project(root)
    with (root / "pyproject.toml").open("a") as handle:
        handle.write(BINDINGS)
    monkeypatch.chdir(root)
    return Project(root)


def create_tables(pg: Any, column_type: str = "text") -> None:
    for table in TABLES.values():
        pg.execute(f"CREATE TABLE {table} (id int, status {column_type}, other text)")


def db_check(
    capsys: pytest.CaptureFixture[str], dsn: str, *args: str
) -> tuple[int, list[dict[str, Any]], str]:
    """``db check --format json``: exit code, findings, and stderr (the listing)."""
    code, out, err = run_cli(capsys, "db", "check", "--dsn", dsn, "--format", "json", *args)
    return code, json.loads(out), err


def codes(findings: list[dict[str, Any]]) -> set[str]:
    return {f["code"] for f in findings}


def comment_of(pg: Any, kind: str, target: str) -> str:
    """The COMMENT statedoc wrote on an object, to keep it across a tampering."""
    query = {
        "function": "SELECT obj_description(%s::regprocedure, 'pg_proc')",
        "domain": "SELECT obj_description(%s::regtype, 'pg_type')",
    }[kind]
    row = pg.execute(query, (target,)).fetchone()
    assert row is not None and row[0], (kind, target)
    return str(row[0])

"""The ``storage`` binding (schema, model, SD120), ``[tool.statedoc.sql]``, names within 63
bytes, and the run-level findings SD121/SD122."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from sample_documents import DOOR, HEADER

from generator.core.errors import ConfigError
from generator.lint.document import lint_bytes
from generator.load import schema
from generator.run.config import load_config
from generator.targets import REGISTRY
from generator.targets.registry import get_target
from generator.targets.sql.findings import target_findings
from generator.targets.sql.names import MAX_NAME_BYTES, fit_name, ident, sqlite_literal
from generator.targets.sql.settings import sql_settings

from ..test_generate_support import make_project, run_cli, spec_text
from .cases import bound_config, lint_document

VALID: dict[str, Any] = yaml.safe_load(HEADER + DOOR)
STORAGE_VALUES: list[Any] = [
    {"table": "doors", "column": "state"},
    {"table": "doors", "column": "state", "schema": "app"},
    {"table": "doors"},
    {"column": "state"},
    {"table": "", "column": "state"},
    {"table": 1, "column": "state"},
    {"table": "doors", "column": "state", "schema": None},
    {"table": "doors", "column": "state", "extra": 1},
    "doors.state",
    [],
    None,
]


@pytest.mark.parametrize("value", STORAGE_VALUES, ids=repr)
def test_fast_pass_agrees_with_jsonschema_on_storage(value: Any) -> None:
    doc = copy.deepcopy(VALID)
    doc["storage"] = value
    assert schema.fast_valid(doc) == (schema.violations(doc) == [])


@given(st.dictionaries(st.sampled_from(["table", "column", "schema", "x"]), st.text(max_size=3)))
def test_fast_pass_agrees_on_random_storage(value: dict[str, str]) -> None:
    doc = copy.deepcopy(VALID)
    doc["storage"] = value
    assert schema.fast_valid(doc) == (schema.violations(doc) == [])


def lint(storage: str) -> Any:
    return lint_bytes(f"---\n{HEADER}{DOOR}{storage}---\n\n# Door\n".encode(), "door.md")


def test_model_has_storage_only_when_given() -> None:
    bound = lint("storage:\n  table: doors\n  column: state\n  schema: app\n").document
    assert bound is not None and bound.spec.storage is not None
    assert (bound.spec.storage.schema, bound.spec.storage.table) == ("app", "doors")
    plain = lint("").document
    assert plain is not None and plain.spec.storage is None


@pytest.mark.parametrize(
    ("storage", "key", "line"),
    [
        ("storage:\n  table: Doors\n  column: state\n", "table", 17),
        ("storage:\n  table: doors\n  column: the state\n", "column", 18),
        ("storage:\n  table: doors\n  column: state\n  schema: " + "s" * 64 + "\n", "schema", 19),
        ('storage:\n  table: "do\\"ors"\n  column: state\n', "table", 17),
    ],
)
def test_sd120_points_at_the_bad_name(storage: str, key: str, line: int) -> None:
    found = [f for f in lint(storage).findings if f.code == "SD120"]
    assert len(found) == 1 and f"storage.{key}" in found[0].message
    assert found[0].line == line and found[0].column > 1


def test_storage_key_typo_is_sd011() -> None:
    found = [f for f in lint("storage:\n  tabel: doors\n  column: state\n").findings]
    assert any(f.code == "SD011" and "'table'" in f.message for f in found)


def test_config_sql_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.statedoc]\n[tool.statedoc.sql]\nschema = "enforce"\ninsert_must_be_initial = false\n'
        '[tool.statedoc.sql.bindings]\n"STATE-A-1" = {table = "doors", column = "state"}\n'
    )
    sql = sql_settings(load_config(tmp_path))
    assert sql.schema == "enforce" and not sql.insert_must_be_initial
    assert sql.bindings["STATE-A-1"].table == "doors"


@pytest.mark.parametrize(
    "table",
    [
        'schema = "Bad Name"',
        'bindings = {"STATE-A-1" = {table = "x"}}',
        'bindings = {"STATE-A-1" = {table = "x", column = "Y"}}',
        "insert_must_be_initial = 1",
        'shema = "x"',
    ],
)
def test_config_sql_errors_are_usage_errors(
    tmp_path: Path, table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.statedoc]\n[tool.statedoc.sql]\n{table}\n")
    with pytest.raises(ConfigError, match=r"tool\.statedoc\.sql"):
        load_config(tmp_path)
    make_project(tmp_path / "p")
    (tmp_path / "p/pyproject.toml").write_text(f"[tool.statedoc]\n[tool.statedoc.sql]\n{table}\n")
    import os

    old = Path.cwd()
    os.chdir(tmp_path / "p")
    try:
        code, _, err = run_cli(capsys, "lint")
    finally:
        os.chdir(old)
    assert code == 2 and "tool.statedoc.sql" in err


@given(
    st.text(min_size=1, max_size=80).filter(lambda s: "\x00" not in s),
    st.sampled_from(["", "_check", "_trigger"]),
)
def test_fit_name_is_short_stable_and_keeps_the_suffix(base: str, suffix: str) -> None:
    name = fit_name(base, suffix)
    assert len(name.encode("utf-8")) <= MAX_NAME_BYTES
    assert name == fit_name(base, suffix) and name.endswith(suffix)
    if len((base + suffix).encode()) <= MAX_NAME_BYTES:
        assert name == base + suffix


def test_long_names_sharing_a_prefix_stay_distinct() -> None:
    a, b = "é" * 40 + "one", "é" * 40 + "two"
    assert fit_name(a, "_check") != fit_name(b, "_check")
    assert ident(fit_name(a, "_check"))  # within the limit, whole characters


def test_sqlite_literal_round_trips() -> None:
    import sqlite3

    connection = sqlite3.connect(":memory:")
    for text in ["it's", "''", "\n\r", "😀", "\\", "$$"]:
        assert connection.execute(f"SELECT {sqlite_literal(text)}").fetchone()[0] == text


def test_registry_and_ownership() -> None:
    assert "sql" in REGISTRY
    target = get_target("sql")
    header = "-- Code generated by statedoc from specs/a.md. DO NOT EDIT."
    assert target.owns("a/b/c.postgresql.sql", header)
    assert target.owns("a/b/c.sqlite.sql", header)
    assert not target.owns("a/b/c.sql", header)
    assert not target.owns("a/b/c.postgresql.sql", "-- my migration")


def test_sd121_sd122(tmp_path: Path) -> None:
    def doc(name: str, spec_id: str, module: str, extra: Any = None, title: str = "Door") -> Any:
        path = tmp_path / f"{name}.md"
        text = spec_text(spec_id=spec_id, module=module, extra=extra, title=title)
        path.write_text(text, encoding="utf-8")
        return lint_document(path, f"specs/{name}.md")

    storage = {"storage": {"table": "doors", "column": "state"}}
    one = doc("a", "STATE-TST-A-001", "one", storage)
    two = doc("b", "STATE-TST-B-001", "two", storage)  # same title, same column
    three = doc("c", "STATE-TST-C-001", "three", title="Gate")
    settings = sql_settings(bound_config([]))
    found = target_findings([three, two, one], settings)
    sd121 = [f for f in found if f.code == "SD121"]
    assert {f.path for f in sd121} == {"specs/b.md"}
    assert any("doors.state" in f.message for f in sd121)
    assert any("'door_check'" in f.message for f in sd121)
    sd122 = [f for f in found if f.code == "SD122"]
    assert [f.path for f in sd122] == ["specs/c.md"] and sd122[0].severity.value == "warning"
    assert sd122[0].line == 2  # the id line
    assert not target_findings([one], settings)


def test_every_repository_spec_generates_both_dialects() -> None:
    from ..test_generate_support import ROOT
    from .cases import spec_documents

    config = load_config(ROOT)
    documents = spec_documents()
    target = get_target("sql", config)
    assert not target.findings(documents, config)
    for document in documents:
        files = target.files(document, config)
        assert sorted(k.split(".", 1)[1] for k in files) == ["postgresql.sql", "sqlite.sql"]
        for data in files.values():
            first = data.decode().splitlines()[0]
            assert get_target("sql").owns(next(iter(files)), first)
            assert document.path in first


def test_lint_path_does_not_import_the_sql_target() -> None:
    """SD120 lives with the rules; linting a bound spec never loads the SQL target."""
    import subprocess
    import sys

    document = f"---\n{HEADER}{DOOR}storage: {{table: Doors, column: s}}\n---\n".encode()
    code = (
        "import sys\n"
        "from generator.lint.document import lint_bytes\n"
        f"r = lint_bytes({document!r}, 'x.md')\n"
        "assert any(f.code == 'SD120' for f in r.findings), r.findings\n"
        "assert not [m for m in sys.modules if m.startswith('generator.targets')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

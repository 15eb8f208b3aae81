"""``statedoc db check`` as a project's specs and tables change: a spec deleted, renamed or at a
newer revision in the database, a spec with errors, PATHs, partitions, a trigger attached
by hand, the state column's type and a schema statedoc shares with others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .project import (
    QUERIES,
    TABLES,
    TENANT,
    Project,
    codes,
    create_tables,
    db_check,
    make_bound_project,
)


def _count(project: Project, spec_id: str) -> int:
    objects = project.objects(spec_id)
    return 1 + len(objects.functions) + len(objects.triggers)


def test_objects_of_a_spec_the_repository_does_not_have(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    create_tables(pg)
    project.apply(pg.info.dsn)
    count = _count(project, TENANT)
    project.spec_path("tenant").unlink()
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and codes(findings) == {"SD127"} and len(findings) == count
    assert all(f"spec {TENANT} revision 1, which the repository" in f["message"] for f in findings)
    assert {f["path"] for f in findings} == {"pyproject.toml"}


def test_newer_revision_in_the_database(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    create_tables(pg)
    path = project.spec_path("queries")
    current = path.read_text()
    project.bump("queries", 3)
    project.apply(pg.info.dsn)
    path.write_text(current)
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and codes(findings) == {"SD128"}
    assert len(findings) == _count(project, QUERIES)
    assert all("revision 3 of this spec" in f["message"] for f in findings)
    assert all(f["path"].endswith("workspace-export-delivery.md") for f in findings)


def test_renamed_spec_leaves_its_old_objects(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    create_tables(pg)
    project.apply(pg.info.dsn)
    old = project.objects(TENANT)
    path = project.spec_path("tenant")
    text = path.read_text().replace("title: Provisioning attempt", "title: Setup run", 1)
    path.write_text(text.replace("\n# Provisioning Attempt\n", "\n# Setup run\n", 1))
    new = project.objects(TENANT)
    assert new.domain.name != old.domain.name
    code, findings, _ = db_check(capsys, pg.info.dsn)
    by_code = {c: [f for f in findings if f["code"] == c] for c in codes(findings)}
    assert code == 1 and set(by_code) == {"SD123", "SD127"}
    assert len(by_code["SD123"]) == len(by_code["SD127"]) == _count(project, TENANT)
    assert all("left over from revision 1" in f["message"] for f in by_code["SD127"])
    assert all(f["path"] == path.relative_to(project.root).as_posix() for f in findings)
    assert any(old.domain.name in f["message"] for f in by_code["SD127"])


def test_a_spec_with_errors_is_not_judged(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its objects are neither compared nor "unknown": the lint error is the finding."""
    create_tables(pg)
    project.apply(pg.info.dsn)
    path = project.spec_path("tenant")
    path.write_text(
        path.read_text().replace(
            "- from: pending\n  to: running", "- from: pending\n  to: nowhere", 1
        )
    )
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and findings
    assert not codes(findings) & {f"SD12{n}" for n in range(3, 10)}


def test_paths_check_only_their_specs(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """With PATHs, objects of other specs are not "unknown" (as SD403 needs the whole set)."""
    create_tables(pg)
    project.apply(pg.info.dsn, only=QUERIES)
    pg.execute("CREATE FUNCTION statedoc.extra() RETURNS int LANGUAGE sql AS 'SELECT 1'")
    queries = project.spec_path("queries").parent.relative_to(project.root).as_posix()
    assert db_check(capsys, pg.info.dsn, queries)[:2] == (0, [])
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and codes(findings) == {"SD123", "SD127"}


def test_partitions_copies_of_the_triggers(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for table in TABLES.values():
        pg.execute(
            f"CREATE TABLE {table} (id int, status text, other text) PARTITION BY RANGE (id)"
        )
        pg.execute(f"CREATE TABLE {table}_low PARTITION OF {table} FOR VALUES FROM (0) TO (100)")
    project.apply(pg.info.dsn)
    assert db_check(capsys, pg.info.dsn)[:2] == (0, [])
    update = project.objects(QUERIES).triggers[-1]
    partition = f"{TABLES[QUERIES]}_low"
    pg.execute(f'ALTER TABLE {partition} DISABLE TRIGGER "{update.name}"')
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and [f["code"] for f in findings] == ["SD125"]
    assert f"on public.{partition} (a partition's copy of" in findings[0]["message"]


def test_trigger_attached_by_hand_to_an_unbound_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_bound_project(tmp_path / "p", monkeypatch)
    config = project.root / "pyproject.toml"
    config.write_text("\n".join(x for x in config.read_text().splitlines() if TENANT not in x))
    create_tables(pg)
    project.apply(pg.info.dsn)
    objects = project.objects(TENANT)
    assert objects.triggers == ()
    table = TABLES[TENANT]
    pg.execute(
        f"CREATE TRIGGER by_hand BEFORE INSERT OR UPDATE ON {table} FOR EACH ROW "
        f"EXECUTE FUNCTION {objects.functions[-1].qualified}('status')"
    )
    code, findings, err = db_check(capsys, pg.info.dsn)
    assert (code, findings) == (0, []) and f"trigger by_hand on public.{table}" in err
    pg.execute(f"ALTER TABLE {table} DISABLE TRIGGER by_hand")
    spec = project.spec_path("tenant").relative_to(project.root).as_posix()
    for paths in ((), (spec,)):
        code, findings, _ = db_check(capsys, pg.info.dsn, *paths)
        assert code == 1 and [f["code"] for f in findings] == ["SD125"]
        assert findings[0]["path"] == spec


def _enum(pg: Any, project: Project, spec_id: str) -> str:
    name = f"{TABLES[spec_id]}_states"
    labels = ", ".join(
        "'" + s.replace("'", "''") + "'" for s in project.objects(spec_id).domain.states
    )
    pg.execute(f"CREATE TYPE {name} AS ENUM ({labels})")
    return name


@pytest.mark.parametrize("kind", ["varchar(40)", "enum", "domain"])
def test_clean_whatever_the_column_type(
    kind: str, project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The probe recreates the column's own type, so a clean database passes for each."""
    for spec_id, table in TABLES.items():
        column = {
            "varchar(40)": "varchar(40)",
            "enum": _enum(pg, project, spec_id) if kind == "enum" else "",
            "domain": f"{table}_text",
        }[kind]
        if kind == "domain":
            pg.execute(f"CREATE DOMAIN {column} AS text")
        pg.execute(f"CREATE TABLE {table} (id int, status {column})")
    project.apply(pg.info.dsn)
    code, findings, err = db_check(capsys, pg.info.dsn)
    assert (code, findings) == (0, []), err


def test_clean_with_citext_and_a_nondeterministic_collation(
    project: Project, pg_contrib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    pg = pg_contrib
    pg.execute("CREATE EXTENSION citext")
    pg.execute(
        "CREATE COLLATION loose (provider = icu, locale = 'und-u-ks-level1', deterministic = false)"
    )
    pg.execute(f"CREATE TABLE {TABLES[QUERIES]} (id int, status citext)")
    pg.execute(f'CREATE TABLE {TABLES[TENANT]} (id int, status text COLLATE "loose")')
    project.apply(pg.info.dsn)
    code, findings, err = db_check(capsys, pg.info.dsn)
    assert (code, findings) == (0, []), err
    update = project.objects(TENANT).triggers[-1]
    pg.execute(f'ALTER TABLE {TABLES[TENANT]} DISABLE TRIGGER "{update.name}"')
    assert codes(db_check(capsys, pg.info.dsn)[1]) == {"SD125"}


def test_shared_schema_only_claims_what_statedoc_commented(
    project: Project, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``schema = "public"`` the application's own objects there are not "unknown";
    objects carrying statedoc's comment still are when no spec generates them."""
    config = project.root / "pyproject.toml"
    config.write_text(config.read_text() + '\n[tool.statedoc.sql]\nschema = "public"\n')
    create_tables(pg)
    project.apply(pg.info.dsn)
    pg.execute("CREATE FUNCTION public.app_helper() RETURNS int LANGUAGE sql AS 'SELECT 1'")
    pg.execute("CREATE TABLE public.app_table (id int)")
    assert db_check(capsys, pg.info.dsn)[:2] == (0, [])
    count = _count(project, TENANT)
    project.spec_path("tenant").unlink()
    code, findings, _ = db_check(capsys, pg.info.dsn)
    assert code == 1 and codes(findings) == {"SD127"} and len(findings) == count

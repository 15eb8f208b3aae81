"""Every spec in ``specs/`` (and hostile ones) generated for PostgreSQL and executed on a real
server: all pairs of states, INSERT, idempotence, revision 2 over revision 1, comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .cases import Case, bound_config, cases, hostile_documents, spec_documents
from .pairs import check_all_pairs, check_inserts, setup_table
from .postgres import attempt
from .verdicts import expected_insert, probe_names


@pytest.fixture(scope="module")
def repo_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    documents = spec_documents()
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("modules"))


@pytest.fixture(scope="module")
def hostile_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    documents = hostile_documents(tmp_path_factory.mktemp("hostile"))
    return cases(documents, bound_config(documents), tmp_path_factory.mktemp("modules"))


def test_every_spec_on_postgresql(pg: Any, repo_cases: list[Case]) -> None:
    for case in repo_cases:
        assert check_all_pairs(pg, case) >= len(case.spec.state_names) ** 2
        check_inserts(pg, case)


def test_hostile_specs_on_postgresql(pg: Any, hostile_cases: list[Case]) -> None:
    for case in hostile_cases:
        check_all_pairs(pg, case)
        check_inserts(pg, case)


def test_comments_carry_spec_id_revision_and_sha(pg: Any, hostile_cases: list[Case]) -> None:
    case = next(c for c in hostile_cases if c.spec.id == "STATE-TST-SQL-001")
    setup_table(pg, case, {})
    rows = pg.execute(
        "SELECT d.classoid::regclass::text, d.description FROM pg_description d "
        "WHERE d.description LIKE 'statedoc spec=%' ORDER BY 1"
    ).fetchall()
    kinds = [kind for kind, _ in rows]
    assert kinds == ["pg_proc", "pg_proc", "pg_trigger", "pg_trigger", "pg_type"]
    rows = [(text,) for _, text in rows]
    sha = case.postgresql.splitlines()[2].removeprefix("-- SHA-256: ")
    for (text,) in rows:
        assert f"spec={case.spec.id} revision={case.spec.revision} sha256={sha}" in text


def test_idempotent_and_revision_two_over_one_in_one_transaction(pg: Any, tmp_path: Path) -> None:
    from ..test_generate_support import spec_text
    from .cases import lint_document

    def case_for(revision: int, states: list[str], transitions: list[dict[str, str]]) -> Case:
        path = tmp_path / f"rev{revision}.md"
        path.write_text(
            spec_text(states, transitions, revision=revision, initial="closed"), encoding="utf-8"
        )
        document = lint_document(path, "specs/door.md")
        config = bound_config([document])
        return cases([document], config, tmp_path / f"m{revision}")[0]

    one = case_for(1, ["open", "closed"], [{"from": "closed", "to": "open", "trigger": "o"}])
    two = case_for(
        2,
        ["open", "closed", "locked"],
        [
            {"from": "closed", "to": "open", "trigger": "o"},
            {"from": "open", "to": "closed", "trigger": "c"},
            {"from": "closed", "to": "locked", "trigger": "l"},
        ],
    )
    setup_table(pg, one, {1: "closed"})
    with pg.transaction():
        pg.execute(one.postgresql)  # again: idempotent
        pg.execute(two.postgresql)  # revision 2 over 1
        pg.execute(two.postgresql)
    pg.execute("UPDATE t0 SET state = 'open' WHERE id = 1")
    pg.execute("UPDATE t0 SET state = 'closed' WHERE id = 1")  # declared only in revision 2
    pg.execute("UPDATE t0 SET state = 'locked' WHERE id = 1")
    error = attempt(pg, "UPDATE t0 SET state = 'open' WHERE id = 1", ())
    assert error is not None and error.sqlstate == "SDU01"
    assert error.diag.message_hint == "spec STATE-TST-GEN-001 revision 2"
    domain_check = pg.execute(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'state_names'"
    ).fetchone()[0]
    assert "locked" in domain_check


def test_unbound_spec_attaches_with_the_one_line_trigger(pg: Any, tmp_path: Path) -> None:
    """Without a binding: no table trigger, no SQLite file; the one-liner the file shows in
    its last comment attaches the generic trigger function (column named by argument)."""
    import dataclasses

    from generator.targets.sql import SqlTarget

    document = next(d for d in spec_documents() if d.spec.id == "STATE-PFM-QRY-011")
    config = bound_config([document])
    files = SqlTarget().files(document, config)  # no settings: no binding
    assert [k.rsplit(".", 2)[-2] for k in files] == ["postgresql"]
    text = next(iter(files.values())).decode()
    attach = "\n".join(
        line.removeprefix("-- ") for line in text.splitlines()[-3:] if line.startswith("-- ")
    )
    assert attach.startswith("CREATE TRIGGER") and "CREATE TRIGGER" not in text.replace(
        "-- CREATE TRIGGER", ""
    )
    attach = attach.replace("my_table", "t0").replace("'my_column'", "'state'")
    bound = cases([document], config, tmp_path)[0]
    check_all_pairs(pg, dataclasses.replace(bound, postgresql=text + attach))
    check_inserts(pg, bound)


def test_domain_holds_exactly_the_state_names(pg: Any, hostile_cases: list[Case]) -> None:
    case = next(c for c in hostile_cases if c.spec.id == "STATE-TST-SQL-001")
    setup_table(pg, case, {})
    (domain,) = pg.execute(
        "SELECT format('%I.%I', n.nspname, t.typname) FROM pg_type t "
        "JOIN pg_namespace n ON n.oid = t.typnamespace "
        "WHERE n.nspname = 'statedoc' AND t.typtype = 'd'"
    ).fetchone()
    for name in case.spec.state_names:
        assert pg.execute(f"SELECT %s::{domain}", (name,)).fetchone()[0] == name
    for name in probe_names(case.module)[len(case.spec.state_names) :]:
        if name is not None:
            error = attempt(pg, f"SELECT %s::{domain}", (name,))
            assert error is not None and error.sqlstate == "23514"  # check_violation


def test_settings_schema_table_schema_and_any_declared_insert(pg: Any, tmp_path: Path) -> None:
    """``schema``, a binding's own schema and ``insert_must_be_initial = false``."""
    document = next(d for d in spec_documents() if d.spec.id == "STATE-PFM-QRY-011")
    binding = {"table": "t0", "column": "state", "schema": "app"}
    config = bound_config(
        [document],
        schema="enforce",
        insert_must_be_initial=False,
        bindings={document.spec.id: binding},
    )
    (case,) = cases([document], config, tmp_path)
    pg.execute("CREATE SCHEMA app; CREATE TABLE app.t0 (id int PRIMARY KEY, state text)")
    pg.execute("SET search_path = public")  # the file must not depend on it
    pg.execute(case.postgresql)
    schemas = {
        row[0]
        for row in pg.execute(
            "SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE obj_description(p.oid, 'pg_proc') LIKE 'statedoc spec=%'"
        ).fetchall()
    }
    assert schemas == {"enforce"}
    insert = "INSERT INTO app.t0 VALUES (%s, %s)"
    for row, name in enumerate(probe_names(case.module)):
        error = attempt(pg, insert, (row, name))
        want = expected_insert(case.module, name, must_be_initial=False)
        assert (None if error is None else error.sqlstate) == want, name
    assert pg.execute("SELECT count(*) FROM app.t0").fetchone()[0] == len(case.spec.state_names)

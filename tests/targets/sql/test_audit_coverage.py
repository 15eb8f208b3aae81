"""``db audit`` production transition coverage on a real PostgreSQL: the window (``--since``,
a duration or an ISO date), ``--fail-under`` as the pytest plugin's, migrations counted apart,
and the spec's claims (``planned``, ``observed``, ``not-implemented``) held against the history.

The table holds only rows the triggers accepted, so the claims and the coverage are all that
is judged; expected figures come from the :class:`Ledger` of the walks and from the spec.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.model.spec import Spec
from generator.targets.sql.audit_findings import pair_text

from .audit import (
    PLANNED,
    Ledger,
    by_code,
    create_tables,
    db_audit,
    history_of,
    make_audited_project,
    measurable,
    spec_json,
    spec_of,
    walk_every_state,
)
from .project import Project


@pytest.fixture
def walked(audited_project: Project, pg: Any) -> tuple[Spec, Ledger, Any]:
    create_tables(pg)
    audited_project.apply(pg.info.dsn)
    spec = spec_of(audited_project)
    ledger = Ledger()
    walk_every_state(pg, spec, ledger)
    return spec, ledger, pg


def observed(spec: Spec, pair: tuple[str, str]) -> bool:
    return any(t.provenance == "observed" for t in spec.transitions if t.pair == pair)


def backdate(pg: Any, pair: tuple[str, str], days: int, kind: str = "update") -> None:
    """A history row of ``pair`` ``days`` ago, written by the owner (as a migration would)."""
    from psycopg import sql as pgsql

    pg.execute(
        pgsql.SQL(
            "INSERT INTO {} (row_key, from_state, to_state, changed_at, changed_by, revision, kind)"
            " VALUES ('{{\"id\": 1}}', %s, %s, now() - make_interval(days => %s), current_user,"
            " 1, %s)"
        ).format(history_of()),
        (*pair, days, kind),
    )


def test_coverage_and_claims_in_the_window(
    walked: tuple[Spec, Ledger, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    spec, ledger, pg = walked
    pairs = measurable(spec)
    never = [p for p in pairs if not ledger.changes[p]]
    old = never[0]
    backdate(pg, old, days=60)  # seen 60 days ago, not since

    code, findings, data, _ = db_audit(capsys, pg.info.dsn)
    unseen = [p for p in never if p != old and observed(spec, p)]
    assert code == 0  # the claims are warnings
    assert by_code(findings) == {"SD143": 1, "SD144": 1, "SD145": len(unseen)}
    assert all(f["severity"] == "warning" for f in findings)
    history = spec_json(data)["history"]
    assert history["covered"] == len(pairs) - len(never) + 1

    code, findings, data, _ = db_audit(capsys, pg.info.dsn, "--since", "30d")
    unseen = [p for p in never if observed(spec, p)]
    assert code == 0 and by_code(findings) == {"SD143": 1, "SD144": 1, "SD145": len(unseen)}
    assert spec_json(data)["history"]["covered"] == len(pairs) - len(never)
    assert data["since"] == "30d" and data["window_start"] is not None
    texts = {
        f["message"].split(": ", 1)[1].split(" is `")[0] for f in findings if f["code"] == "SD145"
    }
    assert texts == {pair_text(*p) for p in unseen}
    assert all("--since 30d" in f["message"] for f in findings)

    code, findings, data, _ = db_audit(capsys, pg.info.dsn, "--since", "2999-01-01")
    history = spec_json(data)["history"]
    assert history["covered"] == 0 and history["inserts"] == history["updates"] == 0
    assert by_code(findings) == {"SD145": sum(1 for p in pairs if observed(spec, p))}
    assert spec_json(data)["rows"]["total"] == len(ledger.rows)  # rows are not windowed


def test_planned_claim_points_at_its_transition(
    walked: tuple[Spec, Ledger, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    spec, ledger, pg = walked
    _, findings, _, _ = db_audit(capsys, pg.info.dsn)
    planned = next(f for f in findings if f["code"] == "SD143")
    transition = next(t for t in spec.transitions if t.pair == PLANNED)
    assert f"records it {ledger.changes[PLANNED]} time" in planned["message"]
    text = Path("specs/platform/queries/workspace-export-delivery.md").read_text()
    block = f"  - from: {PLANNED[0]}\n    to: {PLANNED[1]}\n"
    assert planned["line"] == text[: text.index(block)].count("\n") + 1
    assert transition.provenance == "planned"
    evidence = next(f for f in findings if f["code"] == "SD144")
    updates = sum(n for (a, _), n in ledger.changes.items() if a is not None)
    assert f"records {updates} rows changing state" in evidence["message"]


def test_fail_under_like_the_pytest_plugin(
    walked: tuple[Spec, Ledger, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    spec, ledger, pg = walked
    pairs = measurable(spec)
    value = 100.0 * sum(1 for p in pairs if ledger.changes[p]) / len(pairs)
    code, findings, data, _ = db_audit(capsys, pg.info.dsn, "--fail-under", repr(value))
    assert code == 0 and "SD146" not in by_code(findings)
    assert data["coverage"]["percent"] == round(value, 2)
    assert data["coverage"]["fail_under"] == value

    code, findings, _, _ = db_audit(capsys, pg.info.dsn, "--fail-under", f"{value + 0.01:.4f}")
    failing = [f for f in findings if f["code"] == "SD146"]
    assert code == 1 and len(failing) == 1 and failing[0]["severity"] == "error"
    assert failing[0]["path"] == "pyproject.toml"
    assert f"{value:.2f}%" in failing[0]["message"]

    for bad in (("--fail-under", "101"), ("--since", "last week")):
        with pytest.raises(SystemExit) as exited:
            db_audit(capsys, pg.info.dsn, *bad)
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert ("not a percentage" if bad[0] == "--fail-under" else "neither an ISO date") in err


def test_migration_rows_are_counted_apart_and_never_judged(
    walked: tuple[Spec, Ledger, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    spec, _ledger, pg = walked
    unknown_pair = (spec.state_names[-1], spec.state_names[0])
    assert unknown_pair not in measurable(spec)
    backdate(pg, unknown_pair, days=1, kind="migration")
    code, findings, data, _ = db_audit(capsys, pg.info.dsn)
    history = spec_json(data)["history"]
    assert history["migrations"] == 1 and history["disallowed"]["pairs"] == 0
    assert "SD142" not in by_code(findings) and code == 0


def test_history_without_any_table_fails_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tables exist, the SQL was never applied: SD140 for the missing history, and
    --fail-under has nothing to measure (SD146), rather than passing at 100%."""
    make_audited_project(tmp_path / "p", monkeypatch)
    create_tables(pg)
    code, findings, data, _ = db_audit(capsys, pg.info.dsn, "--fail-under", "0")
    assert code == 1 and by_code(findings) == {"SD140": 1, "SD146": 1}
    assert "does not exist" in next(f for f in findings if f["code"] == "SD140")["message"]
    assert data["coverage"]["measured"] is False

"""The project of the ``statedoc db audit`` tests: the two seed specs bound to tables (the
delivery spec with history on, one of its transitions claimed ``planned``), the generated SQL
applied with psql as documented, rows walked through the triggers into every
state, rows and history written behind the triggers' back, and ``db audit`` run through the CLI.

Every expected figure is computed from the spec and from the writes the test makes (the
:class:`Ledger`), never typed in.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from psycopg import sql as pgsql

from generator.model.spec import Spec
from generator.targets.sql.history import history_table
from generator.targets.sql.plan import Names
from generator.targets.sql.settings import SqlBinding

from ..test_generate_support import make_project, run_cli
from .project import QUERIES, TENANT, Project

DELIVERIES, ATTEMPTS = "deliveries", "attempts"
#: The transition the test project claims is only planned (the seed says observed).
PLANNED = ("failed", "superseded")
BINDINGS = f"""
[tool.statedoc.sql.bindings]
"{QUERIES}" = {{table = "{DELIVERIES}", column = "status", history = true}}
"{TENANT}" = {{table = "{ATTEMPTS}", column = "status"}}
"""

Pair = tuple[str, str]


def make_audited_project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The seeds, bound (delivery with history), the delivery's PLANNED transition claimed
    ``provenance: planned``."""
    make_project(root)
    with (root / "pyproject.toml").open("a") as handle:
        handle.write(BINDINGS)
    project = Project(root)
    path = project.spec_path("queries")
    text = path.read_text(encoding="utf-8")
    old, new = PLANNED
    block = f"  - from: {old}\n    to: {new}\n"
    start = text.index(block)
    at = text.index("    provenance: observed\n", start)
    path.write_text(
        text[:at] + "    provenance: planned\n" + text[at + len("    provenance: observed\n") :]
    )
    monkeypatch.chdir(root)
    return project


def create_tables(pg: Any, key_type: str = "int") -> None:
    for table in (DELIVERIES, ATTEMPTS):
        pg.execute(f"CREATE TABLE {table} (id {key_type} PRIMARY KEY, status text, other text)")


def spec_of(project: Project, spec_id: str = QUERIES) -> Spec:
    spec = project.documents()[spec_id].spec
    assert isinstance(spec, Spec)
    return spec


def measurable(spec: Spec) -> list[Pair]:
    """Declared pairs, in spec order, without self-loops (as the audit measures them)."""
    return list(dict.fromkeys(t.pair for t in spec.transitions if t.from_state != t.to_state))


def paths_from_initial(spec: Spec) -> dict[str, list[str]]:
    """A shortest walk of declared transitions from the first initial state to each state."""
    start = spec.initial_states[0]
    paths = {start: [start]}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for a, b in measurable(spec):
            if a == here and b not in paths:
                paths[b] = [*paths[here], b]
                queue.append(b)
    return paths


@dataclass
class Ledger:
    """What the test wrote: the state of every row, and every change the history holds."""

    rows: dict[object, str | None] = field(default_factory=dict)
    changes: Counter[tuple[str | None, str]] = field(default_factory=Counter)
    keys: dict[tuple[str | None, str], list[object]] = field(default_factory=dict)

    def record(self, key: object, old: str | None, new: str) -> None:
        self.changes[(old, new)] += 1
        self.keys.setdefault((old, new), []).append(key)

    def per_state(self, spec: Spec) -> dict[str, int]:
        counted = Counter(v for v in self.rows.values())
        return {s: counted[s] for s in spec.state_names}

    def unknown(self, spec: Spec) -> dict[str | None, list[object]]:
        """Each value that is no state -> its row keys, in key order."""
        found: dict[str | None, list[object]] = {}
        for key, value in sorted(self.rows.items(), key=lambda kv: str(kv[0])):
            if value not in spec.state_names:
                found.setdefault(value, []).append(key)
        return found


def walk_every_state(pg: Any, spec: Spec, ledger: Ledger, table: str = DELIVERIES) -> None:
    """Through the triggers: for the n-th state, n+1 new rows walked into it."""
    paths = paths_from_initial(spec)
    assert set(paths) == set(spec.state_names)  # every state is reachable
    key = 1
    for n, state in enumerate(spec.state_names):
        for _ in range(n + 1):
            path = paths[state]
            pg.execute(f"INSERT INTO {table} (id, status) VALUES (%s, %s)", (key, path[0]))
            ledger.record({"id": key}, None, path[0])
            for old, new in itertools.pairwise(path):
                pg.execute(f"UPDATE {table} SET status = %s WHERE id = %s", (new, key))
                ledger.record({"id": key}, old, new)
            ledger.rows[key] = state
            key += 1


def guard_triggers(project: Project, spec_id: str = QUERIES) -> list[str]:
    names = Names.for_spec(spec_of(project, spec_id))
    return [names.insert_trigger, names.update_trigger]


def set_triggers(pg: Any, table: str, names: list[str] | None, enabled: bool) -> None:
    """Enable or disable the named triggers of ``table`` (None: every user trigger)."""
    verb = "ENABLE" if enabled else "DISABLE"
    if names is None:
        pg.execute(f"ALTER TABLE {table} {verb} TRIGGER USER")
    for name in names or ():
        pg.execute(
            pgsql.SQL("ALTER TABLE {} {} TRIGGER {}").format(
                pgsql.Identifier(table), pgsql.SQL(verb), pgsql.Identifier(name)
            )
        )


def history_of(table: str = DELIVERIES) -> pgsql.Composable:
    return pgsql.Identifier(*history_table(SqlBinding(table, "status")))


def db_audit(
    capsys: pytest.CaptureFixture[str], dsn: str, *args: str
) -> tuple[int, list[dict[str, Any]], dict[str, Any], str]:
    """``db audit --format json --json FILE``: exit code, findings, the audit JSON, stderr."""
    report = Path("audit.json").resolve()
    report.unlink(missing_ok=True)
    code, out, err = run_cli(
        capsys, "db", "audit", "--dsn", dsn, "--format", "json", "--json", str(report), *args
    )
    assert out.startswith("["), (code, out, err)
    findings = json.loads(out)
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    return code, findings, data, err


def by_code(findings: list[dict[str, Any]]) -> Counter[str]:
    return Counter(f["code"] for f in findings)


def spec_json(data: dict[str, Any], spec_id: str = QUERIES) -> dict[str, Any]:
    found = [s for s in data["specs"] if s["id"] == spec_id]
    assert len(found) == 1, data
    audit: dict[str, Any] = found[0]
    return audit

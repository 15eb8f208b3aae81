"""``fromDatabaseError`` of the generated TypeScript module on real refusals, through the
pinned node-postgres (``pg``, tests/ts_js): every UPDATE between the states and names that are
not states, and every INSERT, on a real PostgreSQL for the repository's specs and hostile ones.
Each refusal must become the error the Python module raises for the same move (the same class
name, pair, why, name), with the database's error as its ``cause``; anything else stays
``undefined``. One tsc run, one node process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from psycopg import sql as pgsql
from ts_harness import compile_project, node_available, run_script

from generator.targets import document_sha256
from generator.targets.typescript.render import render_module

from .sql.cases import Case, bound_config, cases, hostile_documents, spec_documents
from .sql.verdicts import probe_names
from .test_refusals import expected_insert, expected_update

RUNNER = """\
import { readFileSync } from "node:fs";
import pg from "pg";

interface Job {
  readonly module: string;
  readonly table: string;
  readonly updates: readonly (readonly [number, string | null])[];
  readonly inserts: readonly (readonly [number, string | null])[];
}
interface Refusal extends Error {
  readonly from?: string;
  readonly to?: string;
  readonly why?: string;
  readonly value?: string | null;
  readonly state?: string | null;
}
type Module = { fromDatabaseError(error: unknown): Refusal | undefined };

const given = JSON.parse(readFileSync(process.argv[2] ?? "", "utf-8")) as {
  readonly config: pg.ClientConfig;
  readonly jobs: readonly Job[];
};
const [config, jobs] = [given.config, given.jobs];
const client = new pg.Client(config);
await client.connect();

function outcome(module: Module, error: unknown): unknown {
  const found = module.fromDatabaseError(error);
  if (found === undefined) {
    return { name: "undefined", code: (error as { code?: unknown }).code ?? null };
  }
  return {
    name: found.name,
    from: found.from ?? null,
    to: found.to ?? null,
    why: found.why ?? null,
    value: found.value ?? null,
    state: found.state ?? null,
    cause: found.cause === error,
  };
}

const out: unknown[][] = [];
for (const job of jobs) {
  const module = (await import(job.module)) as Module;
  const table = '"' + job.table.replaceAll('"', '""') + '"';
  const results: unknown[] = [];
  const statements: [string, readonly (readonly [number, string | null])[]][] = [
    [`UPDATE ${table} SET state = $2 WHERE id = $1`, job.updates],
    [`INSERT INTO ${table} (id, state) VALUES ($1, $2)`, job.inserts],
  ];
  for (const [statement, rows] of statements) {
    for (const [id, value] of rows) {
      try {
        await client.query(statement, [id, value]);
        results.push(null);
      } catch (error) {
        results.push(outcome(module, error));
      }
    }
  }
  out.push(results);
}
await client.end();
process.stdout.write(JSON.stringify(out));
"""


def as_seen(error: Exception | None) -> object:
    """What the runner reports for the TypeScript error matching the Python one."""
    if error is None:
        return None

    def text(name: str) -> object:
        value = getattr(error, name, None)
        return None if value is None else str(value)

    return {
        "name": type(error).__name__,
        "from": text("from_state"),
        "to": text("to_state"),
        "why": text("why"),
        "value": text("value"),
        "state": text("state"),
        "cause": True,
    }


def test_node_postgres_refusals_become_the_module_errors(
    tmp_path: Path, pg: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    node_available()
    documents = spec_documents() + hostile_documents(tmp_path_factory.mktemp("hostile"))
    found = cases(documents, bound_config(documents), tmp_path_factory.mktemp("modules"))
    files, jobs, wanted = {"run.ts": RUNNER}, [], []
    for index, case in enumerate(found):
        files[f"m{index}.ts"] = render_module(
            case.spec, relative=case.document.path, sha256=document_sha256(case.document.source)
        )
        names = probe_names(case.module)
        pairs = [(a, b) for a in names for b in names]
        prepare(pg, case, [a for a, _ in pairs])
        inserts = list(enumerate(names, start=len(pairs)))
        jobs.append(
            {
                "module": f"./m{index}.js",
                "table": case.table,
                "updates": [(row, b) for row, (_, b) in enumerate(pairs)],
                "inserts": inserts,
            }
        )
        want = [as_seen(expected_update(case.module, a, b)) for a, b in pairs]
        want += [as_seen(expected_insert(case.module, name)) for _, name in inserts]
        wanted.append(want)
    compiled = compile_project(tmp_path, files, types=["node"])
    assert compiled.returncode == 0, compiled.errors
    info = pg.info
    config = {"host": info.host, "port": info.port, "user": info.user, "database": info.dbname}
    given = tmp_path / "jobs.json"
    given.write_text(json.dumps({"config": config, "jobs": jobs}), encoding="utf-8")
    result = run_script(compiled, "js/run.js", str(given))
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    for case, want, seen in zip(found, wanted, got, strict=True):
        for index, (w, s) in enumerate(zip(want, seen, strict=True)):
            assert s == w, (case.spec.id, index, s, w)
    assert sum(w is not None for want in wanted for w in want) > 100


def prepare(pg: Any, case: Case, rows: list[str | None]) -> None:
    """The case's table with ``rows`` (ids 0..), before its triggers exist, then the SQL."""
    table = pgsql.Identifier(case.table)
    pg.execute(pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, state text)").format(table))
    with pg.cursor() as cursor:
        insert = pgsql.SQL("INSERT INTO {} (id, state) VALUES (%s, %s)").format(table)
        cursor.executemany(insert, list(enumerate(rows)))
    pg.execute(case.postgresql)

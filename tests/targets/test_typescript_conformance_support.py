"""Systems under test for the TypeScript conformance kit: TypeScript services over a real
PostgreSQL table through node-postgres (``pg``, pinned in tests/ts_js), as a team would write
them, and deliberately wrong variants; and the project that compiles them with the kit, which
takes its verdicts from each seed's vectors file (the ``vectors`` target's).

- ``CheckedService`` checks a move with the generated module under a transaction (row lock),
  then updates; ``TriggerService`` issues the UPDATE and lets the SQL target's triggers refuse
  it (SQLSTATE ``SDF01``/``SDU01``/``SDS01`` -> refused, anything else is an error).
- Wrong ones: case-insensitive names, an undeclared pair allowed, an invalid pair allowed, a
  lost write (rolled back, reported done), a wrong read (the last requested state, cached).

Each service has a table of its own; the trigger table is the one the repository's
``[tool.statedoc.sql.bindings]`` bind the seed to.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ts_harness import Compiled, compile_project, run_node_tests

from generator.lint.document import lint_bytes
from generator.run.config import load_config
from generator.targets.registry import get_target
from generator.targets.typescript.kit import kit_files

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {
    "delivery": "specs/platform/queries/workspace-export-delivery.md",
    "attempt": "specs/platform/tenant-lifecycle/provisioning-attempt.md",
}
TRIGGER_TABLES = {"delivery": "data_export_deliveries", "attempt": "tenant_provisioning_jobs"}

SERVICES = """\
import pg from "pg";
import type { Adapter } from "./statedoc-conformance.js";

/** What the generated module says about a move (the services' own check). */
export interface Rules {
  isState(value: unknown): boolean;
  canTransition(from: never, to: never): boolean;
}

/** A table of (id serial, status text); every write is plain SQL. */
export class CheckedService {
  readonly pool: pg.Pool;
  readonly table: string;
  readonly rules: Rules;
  constructor(pool: pg.Pool, table: string, rules: Rules) {
    this.pool = pool;
    this.table = table;
    this.rules = rules;
  }
  async create(state: string): Promise<number> {
    const insert = `INSERT INTO ${this.table} (status) VALUES ($1) RETURNING id`;
    const made = await this.pool.query(insert, [state]);
    return Number(made.rows[0].id);
  }
  async read(id: number): Promise<unknown> {
    const found = await this.pool.query(`SELECT status FROM ${this.table} WHERE id = $1`, [id]);
    return found.rows[0]?.status;
  }
  allowed(from: unknown, to: string): boolean {
    const rules = this.rules;
    const known = rules.isState(from) && rules.isState(to);
    return known && rules.canTransition(from as never, to as never);
  }
  /** True if moved; false if refused (rolled back). */
  async move(id: number, to: string): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const lock = `SELECT status FROM ${this.table} WHERE id = $1 FOR UPDATE`;
      const found = await client.query(lock, [id]);
      if (!this.allowed(found.rows[0]?.status, to)) {
        await client.query("ROLLBACK");
        return false;
      }
      await client.query(`UPDATE ${this.table} SET status = $1 WHERE id = $2`, [to, id]);
      await this.finish(client);
      return true;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    } finally {
      client.release();
    }
  }
  async finish(client: pg.PoolClient): Promise<void> {
    await client.query("COMMIT");
  }
}

const REFUSALS = new Set(["SDF01", "SDU01", "SDS01"]);

/** Issues the UPDATE; the statedoc triggers (when applied) refuse what the spec does not allow. */
export class TriggerService extends CheckedService {
  override async move(id: number, to: string): Promise<boolean> {
    try {
      await this.pool.query(`UPDATE ${this.table} SET status = $1 WHERE id = $2`, [to, id]);
    } catch (error) {
      if (REFUSALS.has((error as { code?: string }).code ?? "")) {
        return false;
      }
      throw error;
    }
    return true;
  }
}

// -- deliberately wrong services -------------------------------------------------------------

/** Accepts "DELIVERED" or "Delivered" for "delivered": a name is folded to lower case. */
export class CaseInsensitive extends CheckedService {
  override move(id: number, to: string): Promise<boolean> {
    return super.move(id, to.toLowerCase());
  }
}

/** Lets a withheld delivery start transfer: the spec neither declares nor forbids it. */
export class AllowsUndeclared extends CheckedService {
  override allowed(from: unknown, to: string): boolean {
    return (from === "withheld" && to === "delivering") || super.allowed(from, to);
  }
}

/** Lets a delivered row start transfer again: the spec lists it as invalid. */
export class AllowsInvalid extends CheckedService {
  override allowed(from: unknown, to: string): boolean {
    return (from === "delivered" && to === "delivering") || super.allowed(from, to);
  }
}

/** Forgets to commit: every accepted move is rolled back when the connection is released. */
export class LostWrite extends CheckedService {
  override async finish(client: pg.PoolClient): Promise<void> {
    await client.query("ROLLBACK");
  }
}

/** Answers reads from a cache of the last requested state, written before the check. */
export class WrongRead extends CheckedService {
  readonly cache = new Map<number, string>();
  override async move(id: number, to: string): Promise<boolean> {
    this.cache.set(id, to);
    return super.move(id, to);
  }
  override async read(id: number): Promise<unknown> {
    return this.cache.get(id) ?? super.read(id);
  }
}

/** The kit's adapter over a service: objects are row ids. */
export class ServiceAdapter implements Adapter<number> {
  readonly service: CheckedService;
  readonly carriesNul: boolean;
  constructor(service: CheckedService, carriesNul = false) {
    this.service = service;
    this.carriesNul = carriesNul;
  }
  create(state: string): Promise<number> {
    return this.service.create(state);
  }
  read(id: number): Promise<unknown> {
    return this.service.read(id);
  }
  attempt(id: number, to: string): Promise<boolean> {
    return this.service.move(id, to);
  }
  /** PostgreSQL's text holds no U+0000 (unless the test asks to see the failure). */
  cannotCarry(name: string): boolean {
    return !this.carriesNul && name.includes("\\u0000");
  }
}
"""

#: (name, seed, service class, table has the triggers, adapter carries NUL)
Case = tuple[str, str, str, bool, bool]


def table_of(case: Case) -> str:
    """A table of its own per case; the seed's bound table (with the triggers) for one."""
    name, seed, _, triggers, _ = case
    return TRIGGER_TABLES[seed] if triggers else f"svc_{name}"


RUNNER = """\
/// <reference types="node" />
import { after, test } from "node:test";
import pg from "pg";
import * as delivery from "./gen/delivery.js";
import * as attempt from "./gen/attempt.js";
import { readFileSync } from "node:fs";
import { type VectorsFile, conformanceTests } from "./statedoc-conformance.js";
import * as services from "./services.js";

const config = JSON.parse(process.env["STATEDOC_PG"] ?? "{}") as pg.PoolConfig;
const pool = new pg.Pool({ ...config, max: 4 });
after(() => pool.end());
const specs = { delivery, attempt } as const;
type Case = [string, keyof typeof specs, keyof typeof services, string, boolean];
const cases = JSON.parse(process.env["STATEDOC_CASES"] ?? "[]") as Case[];
const runs = Number(process.env["STATEDOC_NUM_RUNS"] ?? "100");
/** The seed's vectors file, as a team reads it (written next to the compiled project). */
const vectorsOf = (seed: string): VectorsFile => {
  const file = new URL(`../${seed}.vectors.json`, import.meta.url);
  return JSON.parse(readFileSync(file, "utf8")) as VectorsFile;
};
for (const [name, seed, service, table, carriesNul] of cases) {
  const spec = specs[seed];
  const Service = services[service] as typeof services.CheckedService;
  conformanceTests(test, {
    spec,
    vectors: vectorsOf(seed),
    name,
    adapter: () => new services.ServiceAdapter(new Service(pool, table, spec), carriesNul),
    numRuns: runs,
    seed: 20261201,
  });
}
"""


def sql_for(seed: str) -> str:
    """The SQL target's PostgreSQL output for a seed, under the repository's own bindings."""
    path = ROOT / SEEDS[seed]
    document = lint_bytes(path.read_bytes(), SEEDS[seed]).document
    assert document is not None
    config = load_config(ROOT)
    files = get_target("sql", config).files(document, config)
    return next(data.decode() for name, data in files.items() if name.endswith(".postgresql.sql"))


def vectors_for(seed: str) -> str:
    """The seed's vectors file, as the ``vectors`` target writes it."""
    path = ROOT / SEEDS[seed]
    document = lint_bytes(path.read_bytes(), SEEDS[seed]).document
    assert document is not None
    ((_, data),) = get_target("vectors").files(document, load_config(ROOT)).items()
    return data.decode("ascii")


def module_for(seed: str) -> str:
    path = ROOT / SEEDS[seed]
    document = lint_bytes(path.read_bytes(), SEEDS[seed]).document
    assert document is not None
    ((_, data),) = get_target("typescript").files(document, load_config(ROOT)).items()
    return data.decode("utf-8")


def prepare_tables(pg: Any, cases: list[Case]) -> None:
    """One fresh table per case; the statedoc triggers on those that ask for them."""
    for case in cases:
        pg.execute(f"CREATE TABLE {table_of(case)} (id serial PRIMARY KEY, status text)")
        if case[3]:
            pg.execute(sql_for(case[1]))


def compile_services(root: Path) -> Compiled:
    files = {
        "gen/delivery.ts": module_for("delivery"),
        "gen/attempt.ts": module_for("attempt"),
        "services.ts": SERVICES,
        "run.test.ts": RUNNER,
        **kit_files(),
    }
    compiled = compile_project(root, files)
    assert compiled.returncode == 0, compiled.errors
    for seed in SEEDS:  # read by the runner at run time, as a team's test reads the file
        (root / f"{seed}.vectors.json").write_text(vectors_for(seed), encoding="ascii")
    return compiled


def pool_config(pg: Any) -> dict[str, object]:
    """node-postgres settings for the connection's database (the socket folder as host)."""
    info = pg.info
    return {"host": info.host, "port": info.port, "user": info.user, "database": info.dbname}


def run_cases(
    root: Path, pg: Any, cases: list[Case], runs: int, *, tables: bool = True
) -> dict[str, dict[str, str]]:
    """Case name -> check name -> "" (passed) or the failure's message (``tables``: make the
    cases' tables first)."""
    if tables:
        prepare_tables(pg, cases)
    compiled = compile_services(root)
    env = {
        "STATEDOC_PG": json.dumps(pool_config(pg)),
        "STATEDOC_CASES": json.dumps(
            [(n, s, c, table_of((n, s, c, t, u)), u) for n, s, c, t, u in cases]
        ),
        "STATEDOC_NUM_RUNS": str(runs),
    }
    found = run_node_tests(compiled, ["run.test.ts"], env=env)
    results: dict[str, dict[str, str]] = {name: {} for name, *_ in cases}
    pattern = re.compile(r"^(\S+) conformance of (\S+): (.+?)( #\d+)?$")
    for _, _, tests in found.values():
        for title, (ok, message) in tests.items():
            match = pattern.match(title)
            assert match is not None, (title, message)
            results[match[2]][match[3]] = "" if ok else message
    return results


def problems(message: str) -> list[str]:
    """The problem lines of a ConformanceError's message (without the ``  - `` bullets; node
    shows the message twice: the test's failure and its cause)."""
    lines = [line[4:] for line in message.split("\n") if line.startswith("  - ")]
    return list(dict.fromkeys(lines))


def why(seed: str, pair: tuple[str, str]) -> str:
    """The spec's reason for an invalid pair, read from the seed document."""
    path = ROOT / SEEDS[seed]
    document = lint_bytes(path.read_bytes(), SEEDS[seed]).document
    assert document is not None
    return next(i.why for i in document.spec.invalid if i.pair == pair)

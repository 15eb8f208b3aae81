"""What does the generated PostgreSQL trigger cost? Bulk and single-row UPDATE, with vs without.

    python benchmarks/bench_sql.py [--rows 100000] [--single 2000] [--repeat 3] [--dsn DSN]

Without ``--dsn`` a throwaway server is started from the test extra's binaries
(:mod:`generator.testing.pgserver`). The spec is the seed ``Workspace export delivery``; its
table has an ``id``, the ``status`` and a ``payload`` column.

* bulk: ``UPDATE t SET status = 'delivering'`` over ``--rows`` rows that are all ``pending``
  (a declared transition, so every row passes through the whole check), on a fresh table each
  time, against the same table without any trigger;
* single row: ``--single`` one-row UPDATEs (autocommit) alternating ``delivering`` and
  ``failed`` (both declared), mean time per statement;
* refused: ``--single`` one-row UPDATEs the spec forbids (each in a savepoint), the only
  writes that run the trigger function, for the generated SQL and for the same SQL without
  its ``SET search_path`` clauses: what pinning the search path costs (a ``SET`` clause
  makes every call save and restore the setting).
  A no-op PL/pgSQL trigger shows the fixed cost any row trigger pays.
* history: the same three with the spec's history on (``[tool.statedoc.sql]`` ``history``):
  every state change also writes one row to ``t_status_history`` through the generated AFTER
  trigger. Its bulk ratio is held against :data:`TARGET_HISTORY`.

Times are the server process's CPU time (``/proc/PID/schedstat``) when the server runs on
this machine, else wall-clock. Each number is the best of ``--repeat`` runs (default 5, the
ways interleaved); ratios are against the no-trigger run of the same invocation. Nothing
asserts on time: target <= 1.3x for the bulk update, <= 2.5x with history.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_BULK = 1.3
TARGET_HISTORY = 2.5
ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs/platform/queries/workspace-export-delivery.md"
NOOP = """
CREATE OR REPLACE FUNCTION noop_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RETURN NEW; END $$;
CREATE TRIGGER noop BEFORE INSERT OR UPDATE OF status ON t FOR EACH ROW
  EXECUTE FUNCTION noop_trigger();
"""


def sql_for(*, history: bool = False) -> str:
    from generator.lint.document import lint_bytes
    from generator.run.config import load_config
    from generator.targets.sql import SqlTarget
    from generator.targets.sql.settings import SqlBinding, SqlSettings

    result = lint_bytes(SPEC.read_bytes(), SPEC.relative_to(ROOT).as_posix())
    assert result.document is not None
    spec_id = result.document.spec.id
    binding = SqlBinding("t", "status", None, history)
    target = SqlTarget(SqlSettings(bindings={spec_id: binding}))
    files = target.files(result.document, load_config(ROOT))
    return next(v.decode() for k, v in files.items() if k.endswith(".postgresql.sql"))


def fresh_table(connection: Any, rows: int, setup: str | None) -> None:
    connection.execute(
        "DROP TABLE IF EXISTS t, t_status_history; DROP SCHEMA IF EXISTS statedoc CASCADE"
    )
    connection.execute("CREATE TABLE t (id int PRIMARY KEY, status text NOT NULL, payload text)")
    connection.execute(
        "INSERT INTO t SELECT g, 'pending', md5(g::text) FROM generate_series(1, %s) g", (rows,)
    )
    if setup:
        connection.execute(setup)
    connection.execute("VACUUM ANALYZE t")


def clock(connection: Any) -> Callable[[], float]:
    """Seconds of CPU the server process of ``connection`` has used (Linux ``schedstat``,
    nanosecond resolution), which two cores shared with other work disturb far less than
    wall-clock time; wall-clock when the server is not on this machine."""
    pid = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
    path = Path(f"/proc/{pid}/schedstat")
    if not path.exists():
        return time.perf_counter
    return lambda: int(path.read_text().split()[0]) / 1e9


def bulk(connection: Any, rows: int, setup: str | None) -> float:
    fresh_table(connection, rows, setup)
    now = clock(connection)
    start = now()
    connection.execute("UPDATE t SET status = 'delivering'")
    return now() - start


def single(connection: Any, count: int, setup: str | None) -> float:
    fresh_table(connection, 10, setup)
    connection.execute("UPDATE t SET status = 'delivering' WHERE id = 1")
    states = ("failed", "delivering")
    now = clock(connection)
    start = now()
    for i in range(count):
        connection.execute("UPDATE t SET status = %s WHERE id = 1", (states[i % 2],))
    return (now() - start) / count


def refused(connection: Any, count: int, setup: str | None) -> float:
    """Mean server CPU of a forbidden one-row UPDATE (the trigger function runs and raises)."""
    if setup is None or "statedoc" not in setup:
        return math.inf
    fresh_table(connection, 10, setup)
    connection.execute("UPDATE t SET status = 'delivering' WHERE id = 1")
    connection.execute("UPDATE t SET status = 'delivered' WHERE id = 1")
    now = clock(connection)
    start = now()
    for _ in range(count):
        try:
            connection.execute("UPDATE t SET status = 'delivering' WHERE id = 1")
        except Exception as exc:  # the refusal being measured
            assert getattr(exc, "sqlstate", None) == "SDF01", exc
        else:
            raise AssertionError("the forbidden UPDATE was accepted")
    return (now() - start) / count


def measure(
    connection: Any, ways: list[tuple[str, str | None]], rows: int, count: int, repeat: int
) -> list[tuple[str, float, float, float]]:
    """Best of ``repeat`` per way, the ways interleaved so that noise hits all of them."""
    best = {name: [float("inf")] * 3 for name, _ in ways}
    for _ in range(repeat):
        for name, setup in ways:
            best[name][0] = min(best[name][0], bulk(connection, rows, setup))
            best[name][1] = min(best[name][1], single(connection, count, setup))
            best[name][2] = min(best[name][2], refused(connection, count, setup))
    return [(name, *best[name]) for name, _ in ways]  # type: ignore[misc]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--single", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dsn", help="an existing database (default: start a throwaway server)")
    args = parser.parse_args()
    import psycopg

    server = None
    dsn = args.dsn
    if dsn is None:
        from generator.testing.pgserver import LocalPostgres

        server = LocalPostgres().start()
        dsn = server.dsn
    try:
        with psycopg.connect(dsn, autocommit=True) as connection:
            version = connection.execute("SHOW server_version").fetchone()[0]
            generated = sql_for()
            unpinned = generated.replace("\nSET search_path = pg_catalog, pg_temp\n", "\n")
            assert unpinned != generated
            ways: list[tuple[str, str | None]] = [
                ("no trigger (baseline)", None),
                ("no-op PL/pgSQL trigger", NOOP),
                ("statedoc trigger (generated)", generated),
                ("statedoc trigger without SET search_path", unpinned),
                ("statedoc trigger with history (generated)", sql_for(history=True)),
            ]
            results = measure(connection, ways, args.rows, args.single, args.repeat)
    finally:
        if server is not None:
            server.stop()
    base_bulk, base_single = results[0][1], results[0][2]
    pinned_refusal, unpinned_refusal = results[2][3], results[3][3]
    print(
        f"PostgreSQL {version}; {args.rows:,} rows bulk, {args.single:,} single-row UPDATEs; "
        f"server CPU time, best of {args.repeat}"
    )
    print("| way | bulk UPDATE | ratio | single-row UPDATE | ratio | refused UPDATE |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, b, s, r in results:
        refusal = f"{r * 1e6:.0f} us" if math.isfinite(r) else "-"  # no statedoc trigger
        print(
            f"| {name} | {b * 1000:.0f} ms | {b / base_bulk:.2f}x | {s * 1e6:.0f} us "
            f"| {s / base_single:.2f}x | {refusal} |"
        )
    print(f"SET search_path on a refused UPDATE: {pinned_refusal / unpinned_refusal:.2f}x")
    generated = results[2][1] / base_bulk
    verdict = "met" if generated <= TARGET_BULK else "NOT met"
    print(f"bulk target <= {TARGET_BULK}x: {verdict} ({generated:.2f}x)")
    history = results[4][1] / base_bulk
    verdict = "met" if history <= TARGET_HISTORY else "NOT met"
    print(f"bulk with history target <= {TARGET_HISTORY}x: {verdict} ({history:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``statedoc db check --dsn URL [PATH...]``: does the database enforce the current specs?
(and ``statedoc db audit``, :func:`run_audit`: what do its rows and history hold? See
:mod:`generator.targets.sql.audit`.)

Compares what the database really holds (the catalog: function bodies and settings, trigger
events, state and conditions, the domain's constraint) with what the repository generates,
not the objects' comments alone (:mod:`generator.targets.sql.verify` lists every check).
Findings: SD123 missing, SD124 stale (another revision or document), SD125 a trigger that is
disabled or does not fire as generated, SD126 a definition that differs, SD127 an object no
spec of the repository generates (only without PATHs, like SD403), SD128 a newer revision in
the database, SD129 (warning) something that could not be verified. Each object it finds is
listed (``installed: ...``) with its verdict.

The check connects read-only (``default_transaction_read_only``, a ``READ ONLY`` snapshot);
only the probe that has the server parse the generated conditions writes, to temporary
objects, in a transaction that is always rolled back. Every statement has a timeout
(``--timeout``, default 30 seconds).

Exit 0 when everything matches (warnings allowed), 1 on any error finding (or a lint error),
2 when the database cannot be reached or fails during the check, or psycopg is missing
(``pip install 'statedoc[postgres]'``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from generator.cli.output import emit
from generator.core.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.core.findings import Finding, Severity
from generator.targets.sql.session import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from generator.lint.files import LintRun
    from generator.load.config import Config
    from generator.model.document import Document
    from generator.targets.sql.verify import Expected, Problem


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (0 < s <= 86400)")
    return value


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("db", help="compare a database with the generated SQL")
    actions = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        parents=[common],
        help="verify the installed objects; fail when missing, stale, tampered or unknown",
    )
    check.add_argument("--dsn", required=True, help="PostgreSQL connection string or URL")
    check.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"statement and lock timeout of every query (default: {DEFAULT_TIMEOUT:g})",
    )
    check.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: configured specs)"
    )
    check.set_defaults(run=run_check)
    _register_audit(actions, common)


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (0 to 100)")
    return value


def _register_audit(actions: Any, common: argparse.ArgumentParser) -> None:
    from generator.targets.sql.audit_window import since_argument

    audit = actions.add_parser(
        "audit",
        parents=[common],
        help="what the database holds against the specs: rows per state, unknown values, "
        "and with history undeclared changes and production transition coverage",
    )
    audit.add_argument("--dsn", required=True, help="PostgreSQL connection string or URL")
    audit.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"statement and lock timeout of every query (default: {DEFAULT_TIMEOUT:g})",
    )
    audit.add_argument(
        "--since",
        type=since_argument,
        metavar="WHEN",
        help="judge only history from WHEN on: an ISO date or time, or a duration back from "
        "the server's clock (90m, 12h, 30d, 8w); default: all of it",
    )
    audit.add_argument(
        "--fail-under",
        type=_percent,
        metavar="PERCENT",
        help="fail (SD146) when production transition coverage is below PERCENT",
    )
    audit.add_argument(
        "--json",
        dest="audit_json",
        metavar="FILE",
        help="also write the audit (counts, coverage, findings) as JSON to FILE",
    )
    audit.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: configured specs)"
    )
    audit.set_defaults(run=run_audit)


def _psycopg(command: str) -> Any:
    """psycopg, or None after saying how to install it (``db check`` and ``db audit``)."""
    try:
        import psycopg
    except ImportError:
        print(
            f"statedoc: error: db {command} needs psycopg: pip install 'statedoc[postgres]'",
            file=sys.stderr,
        )
        return None
    return psycopg


def _connect(psycopg: Any, dsn: str) -> Any:
    """An autocommit connection to ``dsn``, or None after saying why there is none."""
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        print(f"statedoc: error: cannot reach the database: {exc}".rstrip(), file=sys.stderr)
        return None


def run_audit(args: argparse.Namespace) -> int:
    """``db audit``: exit 0 without error findings, 1 with one (or a lint error), 2 when the
    database cannot be reached or fails beyond one spec's reads, or psycopg is missing."""
    from generator.cli.running import workspace_for
    from generator.run import pipeline

    psycopg = _psycopg("audit")
    if psycopg is None:
        return EXIT_USAGE
    from generator.targets.sql.audit import audit_database
    from generator.targets.sql.audit_report import as_json, render_text
    from generator.targets.sql.audit_run import all_findings, bound_plans

    workspace = workspace_for(args)
    lint_run = pipeline.lint(workspace, keep_documents=True)
    config = workspace.config
    plans, documents, unbound = bound_plans(lint_run, config)
    connection = _connect(psycopg, args.dsn)
    if connection is None:
        return EXIT_USAGE
    try:
        with connection:
            where = _database_label(connection)
            audits, window = audit_database(
                connection, plans, since=args.since, timeout=args.timeout
            )
    except psycopg.Error as exc:
        print(f"statedoc: error: the database audit failed: {exc}".rstrip(), file=sys.stderr)
        return EXIT_USAGE

    def run_level(code: str, message: str) -> Finding:
        from generator.targets.sql.verify import Problem

        return _finding(Problem(code, None, message), documents, config, where)

    # Not subject to select/ignore, as db check: a selection written for lint must not hide
    # what the database holds.
    found = all_findings(audits, documents, window, fail_under=args.fail_under, run_level=run_level)
    findings = sorted([*lint_run.findings, *found], key=Finding.sort_key)
    if not args.quiet:
        stream = sys.stdout if args.format == "text" and not args.output else sys.stderr
        stream.write(render_text(audits, window, unbound))
    files = [f.display for f in workspace.files]
    emit(args, findings, files)  # first: a --json path that cannot be written loses nothing
    if args.audit_json:
        from pathlib import Path

        from generator.cli.output import write_report
        from generator.report import json_text

        data = as_json(
            audits,
            window,
            database=where,
            findings=findings,
            fail_under=args.fail_under,
            unbound=unbound,
        )
        write_report(Path(args.audit_json), json_text(data), fmt=None, inputs=files)
    if lint_run.internal_error:
        return EXIT_USAGE
    errors = any(f.severity is Severity.ERROR for f in findings)
    return EXIT_FINDINGS if errors else EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    from generator.cli.running import workspace_for
    from generator.run import pipeline

    psycopg = _psycopg("check")
    if psycopg is None:
        return EXIT_USAGE
    workspace = workspace_for(args)
    lint_run = pipeline.lint(workspace, keep_documents=True)
    config = workspace.config
    findings = list(lint_run.findings)
    specs, documents, known_ids = _expected(lint_run, config)
    complete = all(result.document is not None for result in lint_run.results)
    connection = _connect(psycopg, args.dsn)
    if connection is None:
        return EXIT_USAGE
    from generator.targets.sql.check import check_database
    from generator.targets.sql.settings import sql_settings

    try:
        with connection:
            where = _database_label(connection)
            report = check_database(
                connection,
                specs,
                sql_settings(config).schema,
                sweep=workspace.whole and complete,
                known_ids=known_ids,
                timeout=args.timeout,
            )
    except psycopg.Error as exc:
        print(f"statedoc: error: the database check failed: {exc}".rstrip(), file=sys.stderr)
        return EXIT_USAGE
    # Not subject to select/ignore: a selection written for lint must not hide a tampered
    # database.
    findings += [_finding(problem, documents, config, where) for problem in report.problems]
    if not args.quiet:
        stream = sys.stdout if args.format == "text" and not args.output else sys.stderr
        for entry in sorted(report.entries, key=lambda e: (e.kind, e.name)):
            print(entry.line(), file=stream)
    findings.sort(key=Finding.sort_key)
    emit(args, findings, [f.display for f in workspace.files])
    if lint_run.internal_error:
        return EXIT_USAGE
    errors = any(f.severity is Severity.ERROR for f in findings)
    return EXIT_FINDINGS if errors else EXIT_OK


def _expected(
    lint_run: LintRun, config: Config
) -> tuple[list[Expected], dict[str, Document], set[str]]:
    """What each clean document generates, its document by spec id, and every spec id the
    run read (a document with errors is not judged, and its objects are not "unknown")."""
    from generator.targets import source_path
    from generator.targets.sql.names import SqlError
    from generator.targets.sql.pg_functions import pg_objects
    from generator.targets.sql.settings import sql_settings
    from generator.targets.sql.target import plan_for
    from generator.targets.sql.verify import Expected

    settings = sql_settings(config)
    specs: list[Expected] = []
    documents: dict[str, Document] = {}
    known: set[str] = set()
    for result in lint_run.results:
        document = result.document
        if document is None:
            continue
        known.add(document.spec.id)
        if not lint_run.clean(result.path) or document.spec.id in documents:
            continue
        try:
            plan = plan_for(document, settings, source_path(document, config))
            objects = pg_objects(plan)
        except SqlError:
            continue  # generate reports it; there is nothing installed to compare
        documents[document.spec.id] = document
        specs.append(Expected(plan, objects))
    return specs, documents, known


def _finding(
    problem: Problem, documents: dict[str, Document], config: Config, database: str
) -> Finding:
    """At the spec's id line; an object no spec generates points at the configuration that
    names statedoc's schema (``[tool.statedoc.sql]``), else at the database itself."""
    from generator.rules import finding
    from generator.targets.sql.findings import finding_at

    document = documents.get(problem.spec_id or "")
    if document is not None:
        return finding_at(document, problem.code, ("id",), problem.message)
    if config.source is None:
        return finding(problem.code, database, (1, 1, 1, 1), problem.message)
    from generator.output.paths import display

    line, length = _table_line(config.source.read_text(encoding="utf-8", errors="replace"))
    return finding(
        problem.code, display(config.source), (line, 1, line, length + 1), problem.message
    )


def _table_line(text: str) -> tuple[int, int]:
    """The line (and its length) of ``[tool.statedoc.sql]``, else of its first sub-table
    (``[tool.statedoc.sql.bindings]``), else of ``[tool.statedoc]``, else the first line."""
    import re

    lines = text.splitlines()
    table = r"\s*\[\s*tool\s*\.\s*statedoc\s*"
    for pattern in (rf"{table}\.\s*sql\s*\]", rf"{table}\.\s*sql\s*\.", rf"{table}\]"):
        for number, line in enumerate(lines, start=1):
            if re.match(pattern, line):
                return number, len(line.rstrip())
    return 1, len(lines[0]) if lines else 0


def _database_label(connection: Any) -> str:
    """``postgresql://host:port/dbname`` of the connection, without user or password."""
    from urllib.parse import quote

    info = connection.info
    return f"postgresql://{quote(str(info.host), safe='')}:{info.port}/{quote(str(info.dbname))}"

"""``statedoc db check --dsn URL [PATH...]``: is the database enforcing the current specs?

Lists every object the SQL target generated that the database holds, and reports SD123 for
an object of a current spec that is missing and SD124 for one that carries another SHA-256
(the database runs another revision of the spec). Exit 0 when everything matches, 1 on any
such finding (or a lint error), 2 when the database cannot be reached or psycopg is missing
(``pip install 'statedoc[postgres]'``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from generator.cli.commands.output import emit
from generator.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.findings import Finding, Severity


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("db", help="compare a database with the generated SQL")
    actions = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check", parents=[common], help="list installed objects; fail when missing or stale"
    )
    check.add_argument("--dsn", required=True, help="PostgreSQL connection string or URL")
    check.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: configured specs)"
    )
    check.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    from generator.cli.commands.lintrun import lint_specs
    from generator.config import load_config
    from generator.targets import source_path
    from generator.targets.sql.findings import finding_at
    from generator.targets.sql.names import SqlError
    from generator.targets.sql.target import plan_for

    try:
        import psycopg
    except ImportError:
        print(
            "statedoc: error: db check needs psycopg: pip install 'statedoc[postgres]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    config = load_config()
    lint_run, files = lint_specs(args)
    findings = list(lint_run.findings)
    try:
        connection = psycopg.connect(args.dsn, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        print(f"statedoc: error: cannot reach the database: {exc}".rstrip(), file=sys.stderr)
        return EXIT_USAGE
    from generator.targets.sql.installed import compare, installed_objects

    with connection:
        listing = installed_objects(connection)
        for result in lint_run.results:
            document = result.document
            if document is None or not lint_run.clean(result.path):
                continue
            try:
                plan = plan_for(document, config.sql, source_path(document, config))
            except SqlError:
                continue  # generate reports it; there is nothing installed to compare
            for problem, item, sha in compare(connection, plan):
                if problem == "missing":
                    findings.append(
                        finding_at(
                            document,
                            "SD123",
                            ("id",),
                            f"{plan.spec.id}: the {item.kind} {item.label} is not installed: "
                            "apply the generated .postgresql.sql",
                        )
                    )
                else:
                    findings.append(
                        finding_at(
                            document,
                            "SD124",
                            ("id",),
                            f"{plan.spec.id}: the {item.kind} {item.label} was generated from "
                            f"sha256 {sha or 'unknown'}, the spec now has {plan.sha256}: apply "
                            "the generated .postgresql.sql",
                        )
                    )
    if not args.quiet:
        stream = sys.stdout if args.format == "text" and not args.output else sys.stderr
        for obj in listing:
            print(
                f"installed: {obj.kind} {obj.name} ({obj.spec_id} revision {obj.revision}, "
                f"sha256 {obj.sha256[:12]})",
                file=stream,
            )
    findings.sort(key=Finding.sort_key)
    emit(args, findings, [f.display for f in files])
    if lint_run.internal_error:
        return EXIT_USAGE
    errors = any(f.severity is Severity.ERROR for f in findings)
    return EXIT_FINDINGS if errors else EXIT_OK

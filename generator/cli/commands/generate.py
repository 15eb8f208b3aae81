"""``statedoc generate [PATH...] [--out DIR] [--target NAME]... [--tests DIR] [--check]``.

Lint first; the findings of documents with errors are printed (in ``--format``) and those
documents are skipped, the others are generated. Refusals (SD404-SD409) and, with
``--check``, every file that would change (SD401-SD403) are findings in the same report; the
exit code is 1 if any error finding was reported. Stale files are deleted only when no PATH
is given (the whole configured set was generated): a file of a document outside PATH would
otherwise look stale.

Where things go: the findings report to stdout (or ``--output``), like ``lint``; notes and
the summary to stderr; ``--check`` diffs to stdout, unless stdout carries a
machine-readable report (a non-text ``--format`` without ``--output``), then to stderr.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.cli.finish import finish, plural
from generator.cli.running import workspace_for
from generator.targets import DEFAULT_TARGETS, REGISTRY

if TYPE_CHECKING:
    from generator.output.plan import Plan
    from generator.run.tree import GenerateOutcome


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "generate",
        parents=[common],
        help="write what the targets generate (Python modules, .mmd diagrams, SQL...)",
        description=(
            "Lint, then write what the targets generate for each clean document (default: "
            "a Python module and a .mmd diagram). "
            "Documents with lint errors are skipped (exit 1). Stale files (statedoc's header, "
            "no document produces them) are deleted only when no PATH is given; files "
            "without statedoc's header are never touched."
        ),
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: configured specs)"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="output folder of every target (default: each target's configured out)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff of what would change; exit 1 if anything would",
    )
    parser.add_argument(
        "--target",
        action="append",
        dest="targets",
        metavar="NAME",
        help=f"what to generate: {', '.join(REGISTRY)} (repeatable; default: "
        f"[tool.statedoc] targets, else {' and '.join(DEFAULT_TARGETS)})",
    )
    parser.add_argument(
        "--tests",
        metavar="DIR",
        help="also write the chosen targets' generated tests into DIR: a pytest module per "
        "spec for python, a node --test file for typescript (default: [tool.statedoc] tests "
        "or the target's own tests, if configured)",
    )
    parser.set_defaults(run=run)


def _folder(plan: Plan) -> str:
    return (plan.label or plan.out.as_posix()) + "/"


def _counts(plan: Plan) -> str:
    actions = [c.action for c in plan.changes]
    return ", ".join(f"{actions.count(k)} {k}d" for k in ("create", "update", "delete"))


def _summary(outcome: GenerateOutcome) -> str:
    plan = outcome.plan
    documents = plural(len(outcome.generated), "document")
    tests = outcome.tests
    refused = len(outcome.problems)
    tail = f" {refused} refused or failed (see the findings)." if refused else ""
    skipped = len(outcome.blocked)
    if skipped:
        tail += f" {plural(skipped, 'document')} skipped for lint errors."
    if outcome.check:
        if plan.changes:
            text = (
                f"generate --check: {len(plan.changes)} file(s) in {_folder(plan)} "
                f"would change ({_counts(plan)})"
            )
        else:
            text = f"generate --check: {_folder(plan)} is up to date ({documents})"
        if tests is not None:
            if tests.changes:
                text += (
                    f"; {len(tests.changes)} test module(s) in {_folder(tests)} "
                    f"would change ({_counts(tests)})"
                )
            else:
                text += f"; {_folder(tests)} is up to date"
        for more in outcome.more:
            pending = f"{len(more.changes)} file(s) would change" if more.changes else "up to date"
            text += f"; {_folder(more)}: {pending}"
        return text + "." + tail
    text = (
        f"generate: {documents} -> {_folder(plan)} ({outcome.written} written, "
        f"{outcome.deleted} deleted, {plan.unchanged} unchanged)"
    )
    if tests is not None:
        text += (
            f"; {len(tests.outputs)} test module(s) -> {_folder(tests)} "
            f"({outcome.tests_written} written, {tests.unchanged} unchanged)"
        )
    for more in outcome.more:  # the folders targets have of their own
        text += f"; {len(more.outputs)} file(s) -> {_folder(more)}"
    return text + "." + tail


def run(args: argparse.Namespace) -> int:
    from generator.run import pipeline

    workspace = workspace_for(args)
    lint_run = pipeline.lint(workspace, reuse=True, spare=True)  # generate releases
    blocked = {r.path for r in lint_run.results if not lint_run.clean(r.path)}
    outcome = pipeline.generate(
        workspace,
        lint_run,
        out=Path(args.out).absolute() if args.out else None,
        check=args.check,
        tests=Path(args.tests).absolute() if args.tests else None,
        targets=args.targets,
    )
    return finish(
        args,
        [f for f in lint_run.findings if f.path in blocked] + outcome.findings(),
        workspace.displays,
        diffs=outcome.diffs if args.check else (),
        notes=[n for plan in outcome.plans for n in plan.notes],
        summary=_summary(outcome),
        internal_error=lint_run.internal_error,
    )

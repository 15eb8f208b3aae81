"""``statedoc diagram [PATH...] (--write | --check)``: keep each document's diagram in sync.

Every document is tried: one that cannot be rewritten (lint errors, a block statedoc cannot
redraw, a read-only or unwritable file) is reported as a finding and the others are still
written. ``--check`` reports each drifted diagram as SD407 with its diff.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from generator.cli.finish import finish, plural
from generator.cli.output import emit
from generator.core.exitcodes import EXIT_USAGE

if TYPE_CHECKING:
    from generator.output.diagrams import DiagramOutcome


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "diagram", parents=[common], help="regenerate the Mermaid block where it drifted"
    )
    parser.add_argument("paths", nargs="*", metavar="PATH")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite drifted blocks in place")
    mode.add_argument(
        "--check", action="store_true", help="write nothing; diff and exit 1 on drift"
    )
    add_force(parser)
    parser.set_defaults(run=run)


def add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="also rewrite specs whose file is read-only (by default they are refused, SD408)",
    )


def summary(outcome: DiagramOutcome, total: int, *, write: bool) -> str:
    """One line for people: what was done and why the rest was not."""
    if write:
        text = f"diagram: rewrote {outcome.written} of {plural(total, 'document')}"
    else:
        text = f"diagram --check: {len(outcome.changed)} of {plural(total, 'document')} drifted"
    reasons = []
    if outcome.blocked_paths:
        reasons.append(f"{len(outcome.blocked_paths)} blocked by lint errors")
    if outcome.problems:
        reasons.append(f"{len(outcome.problems)} refused or failed")
    return text + (f" ({'; '.join(reasons)}: see the findings)." if reasons else ".")


def run(args: argparse.Namespace) -> int:
    from generator.cli.running import workspace_for
    from generator.run import pipeline

    workspace = workspace_for(args)
    lint_run = pipeline.lint(workspace)
    files = workspace.displays
    if lint_run.internal_error:
        emit(args, [f for f in lint_run.findings if f.code == "SD000"], files)
        return EXIT_USAGE
    outcome = pipeline.sync_diagrams(workspace, lint_run, write=args.write, force=args.force)
    return finish(
        args,
        outcome.findings(check=not args.write),
        files,
        diffs=() if args.write else outcome.diffs,
        summary=summary(outcome, len(files), write=args.write),
        internal_error=outcome.internal_error,
    )

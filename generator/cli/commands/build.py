"""``statedoc build`` (the main job) and ``statedoc check`` (the CI job).

build: lint, redraw drifted diagrams in the documents, lint again (the documents may have
changed), then generate. check: lint, ``diagram --check`` and ``generate --check``; it writes
nothing, reports every drifted diagram (SD407) and every stale, missing or left-over generated
file (SD401-SD403) as a finding with its diff, and exits 1 when anything is wrong or stale.
Both work on the configured specs only, so they take no PATH: stale-file cleanup needs the
whole set.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from generator.cli.commands.diagram import add_force
from generator.cli.finish import finish, plural
from generator.cli.running import workspace_for

if TYPE_CHECKING:
    from generator.run.pipeline import BuildOutcome


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    build = sub.add_parser(
        "build", parents=[common], help="lint, generate and redraw drifted diagrams (main job)"
    )
    add_force(build)
    build.set_defaults(run=run_build, paths=[])
    check = sub.add_parser(
        "check", parents=[common], help="lint and check that generated files and diagrams are fresh"
    )
    check.set_defaults(run=run_check, paths=[])


def run_build(args: argparse.Namespace) -> int:
    from generator.run import pipeline

    outcome = pipeline.build(workspace_for(args), force=args.force)
    diagrams, outputs = outcome.diagrams, outcome.outputs
    summary = (
        f"build: {plural(diagrams.written, 'diagram')} redrawn; "
        f"{plural(len(outputs.generated), 'document')} generated ({outputs.written} file(s) "
        f"written, {outputs.deleted} deleted); {len(outputs.blocked)} skipped for lint errors; "
        f"{len(diagrams.problems) + len(outputs.problems)} refused or failed."
    )
    return _report(args, outcome, summary, check=False)


def run_check(args: argparse.Namespace) -> int:
    from generator.run import pipeline

    outcome = pipeline.check(workspace_for(args))
    diagrams, outputs = outcome.diagrams, outcome.outputs
    summary = (
        f"check: {plural(len(diagrams.changed), 'diagram')} drifted; "
        f"{len(outputs.changes)} generated file(s) stale; "
        f"{len(outputs.blocked)} document(s) with lint errors; "
        f"{len(diagrams.problems) + len(outputs.problems)} refused."
    )
    return _report(args, outcome, summary, check=True)


def _report(args: argparse.Namespace, outcome: BuildOutcome, summary: str, *, check: bool) -> int:
    """The findings (with ``check``, every pending change too) and the diffs of a check."""
    return finish(
        args,
        outcome.findings(check=check),
        [f.display for f in outcome.run_files],
        diffs=outcome.diagrams.diffs + outcome.outputs.diffs if check else (),
        notes=outcome.notes,
        summary=summary,
        internal_error=outcome.internal_error,
    )

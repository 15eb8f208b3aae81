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

from generator.cli.commands.diagram import add_force, sync_diagrams
from generator.cli.commands.finish import finish, plural
from generator.cli.commands.lint import lint_specs
from generator.config import load_config

if TYPE_CHECKING:
    from generator.config import Config
    from generator.lint.cache import RenderCache


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


def _cache(args: argparse.Namespace, config: Config) -> RenderCache | None:
    from generator.lint.cache import RenderCache

    return None if args.no_cache else RenderCache(config.root)


def run_build(args: argparse.Namespace) -> int:
    from generator.output.tree import check_roots, generate

    config = load_config()
    check_roots(config.out, config)  # before the first write, not only before generating
    lint_run, files = lint_specs(args)
    paths = {spec.display: spec.path for spec in files}
    diagrams = sync_diagrams(lint_run, paths, write=True, force=args.force)
    if diagrams.written:
        lint_run, files = lint_specs(args)
    outcome = generate(lint_run, files, config, check=False, prune=True, cache=_cache(args, config))
    summary = (
        f"build: {plural(diagrams.written, 'diagram')} redrawn; "
        f"{plural(len(outcome.generated), 'document')} generated ({outcome.written} file(s) "
        f"written, {outcome.deleted} deleted); {len(outcome.blocked)} skipped for lint errors; "
        f"{len(diagrams.problems) + len(outcome.problems)} refused or failed."
    )
    return finish(
        args,
        lint_run.findings + [p.finding() for p in diagrams.problems] + outcome.findings(),
        [f.display for f in files],
        notes=outcome.plan.notes,
        summary=summary,
        internal_error=lint_run.internal_error or diagrams.internal_error,
    )


def run_check(args: argparse.Namespace) -> int:
    from generator.output.tree import generate

    config = load_config()
    lint_run, files = lint_specs(args)
    paths = {spec.display: spec.path for spec in files}
    diagrams = sync_diagrams(lint_run, paths, write=False)
    outcome = generate(lint_run, files, config, check=True, prune=True, cache=_cache(args, config))
    summary = (
        f"check: {plural(len(diagrams.changed), 'diagram')} drifted; "
        f"{len(outcome.changes)} generated file(s) stale; "
        f"{len(outcome.blocked)} document(s) with lint errors; "
        f"{len(diagrams.problems) + len(outcome.problems)} refused."
    )
    # The lint findings already hold what blocked a diagram: only add the diagram stage's own.
    own = [p.finding() for p in diagrams.problems] + diagrams.drift
    return finish(
        args,
        lint_run.findings + own + outcome.findings(),
        [f.display for f in files],
        diffs=diagrams.diffs + outcome.diffs,
        notes=outcome.plan.notes,
        summary=summary,
        internal_error=lint_run.internal_error or diagrams.internal_error,
    )

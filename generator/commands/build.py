"""``statedoc build`` (the main job) and ``statedoc check`` (the CI job).

build: lint, redraw drifted diagrams in the documents, lint again (the documents may have
changed), then generate. check: lint, ``diagram --check`` and ``generate --check``; it writes
nothing and exits 1 when anything is wrong or stale. Both work on the configured specs only,
so they take no PATH: stale-file cleanup needs the whole set.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from generator.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.commands.diagram import sync_diagrams
from generator.commands.lint import lint_specs
from generator.commands.output import diff_stream, emit
from generator.config import load_config

if TYPE_CHECKING:
    from generator.cache import RenderCache
    from generator.config import Config


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    build = sub.add_parser(
        "build", parents=[common], help="lint, generate and redraw drifted diagrams (main job)"
    )
    build.set_defaults(run=run_build, paths=[])
    check = sub.add_parser(
        "check", parents=[common], help="lint and check that generated files and diagrams are fresh"
    )
    check.set_defaults(run=run_check, paths=[])


def _cache(args: argparse.Namespace, config: Config) -> RenderCache | None:
    from generator.cache import RenderCache

    return None if args.no_cache else RenderCache(config.root)


def run_build(args: argparse.Namespace) -> int:
    from generator.outputs import generate

    config = load_config()
    lint_run, files = lint_specs(args)
    paths = {spec.display: spec.path for spec in files}
    diagrams = sync_diagrams(lint_run, paths, write=True)
    if diagrams.changed:
        lint_run, files = lint_specs(args)
    emit(args, lint_run.findings, [f.display for f in files])
    if lint_run.internal_error:
        return EXIT_USAGE
    outcome = generate(lint_run, files, config, check=False, prune=True, cache=_cache(args, config))
    for message in diagrams.refused:
        print(f"statedoc: {message}", file=sys.stderr)
    for problem in outcome.problems:
        print(problem, file=sys.stderr)
    if not args.quiet:
        print(
            f"build: {len(diagrams.changed)} diagram(s) redrawn; {len(outcome.generated)} "
            f"document(s) generated ({outcome.written} file(s) written, {outcome.deleted} "
            f"deleted); {len(outcome.blocked)} skipped for lint errors.",
            file=sys.stderr,
        )
    failed = lint_run.has_errors or not outcome.ok or diagrams.refused
    return EXIT_FINDINGS if failed else EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    from generator.outputs import generate

    config = load_config()
    lint_run, files = lint_specs(args)
    emit(args, lint_run.findings, [f.display for f in files])
    if lint_run.internal_error:
        return EXIT_USAGE
    paths = {spec.display: spec.path for spec in files}
    diagrams = sync_diagrams(lint_run, paths, write=False)
    outcome = generate(lint_run, files, config, check=True, prune=True, cache=_cache(args, config))
    stream = diff_stream(args)
    stream.write("".join(diagrams.diffs) + "".join(outcome.diffs))
    stream.flush()
    for message in diagrams.refused:
        print(f"statedoc: {message}", file=sys.stderr)
    for problem in outcome.problems:
        print(problem, file=sys.stderr)
    stale = len(outcome.changes)
    if not args.quiet:
        print(
            f"check: {len(diagrams.changed)} diagram(s) drifted; {stale} generated file(s) "
            f"stale; {len(outcome.blocked)} document(s) with lint errors.",
            file=sys.stderr,
        )
    failed = lint_run.has_errors or diagrams.changed or diagrams.refused or not outcome.ok
    return EXIT_FINDINGS if failed else EXIT_OK

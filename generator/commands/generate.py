"""``statedoc generate [PATH...] [--out DIR] [--check]``.

Lint first; the findings of documents with errors are printed (in ``--format``) and those
documents are skipped, the others are generated, and the exit code is 1 if anything was
skipped or refused. Stale files are deleted only when no PATH is given (the whole configured
set was generated): a file of a document outside PATH would otherwise look stale.

Where things go: the findings report to stdout (or ``--output``), like ``lint``; refusals,
notes and the summary to stderr; ``--check`` diffs to stdout, unless stdout carries a
machine-readable report (a non-text ``--format`` without ``--output``), then to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.commands.lint import lint_specs
from generator.commands.output import diff_stream, emit
from generator.config import load_config

if TYPE_CHECKING:
    from generator.config import Config
    from generator.discover import SpecFile
    from generator.linter import LintRun
    from generator.outputs import GenerateOutcome


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "generate",
        parents=[common],
        help="write Python modules and .mmd diagrams",
        description=(
            "Lint, then write one Python module and one .mmd diagram per clean document. "
            "Documents with lint errors are skipped (exit 1). Stale files (statedoc's header, "
            "no document produces them) are deleted only when no PATH is given; files "
            "without statedoc's header are never touched."
        ),
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: configured specs)"
    )
    parser.add_argument("--out", metavar="DIR", help="output folder (default: configured out)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff of what would change; exit 1 if anything would",
    )
    parser.add_argument(
        "--tests",
        metavar="DIR",
        help="also write a pytest module per generated spec into DIR (generator.testing: "
        "all-pairs check and a Hypothesis state machine against the spec)",
    )
    parser.set_defaults(run=run)


def _summary(outcome: GenerateOutcome) -> str:
    plan = outcome.plan
    where = plan.label or plan.out.as_posix()
    count = len(outcome.generated)
    documents = f"{count} document{'s' if count != 1 else ''}"
    if outcome.check:
        if not outcome.changes:
            return f"generate --check: {where}/ is up to date ({documents})."
        actions = [c.action for c in outcome.changes]
        kinds = {k: actions.count(k) for k in ("create", "update", "delete")}
        return (
            f"generate --check: {len(outcome.changes)} file(s) in {where}/ would change "
            f"({kinds['create']} created, {kinds['update']} updated, {kinds['delete']} deleted)."
        )
    return (
        f"generate: {documents} -> {where}/ ({outcome.written} written, {outcome.deleted} "
        f"deleted, {plan.unchanged} unchanged)."
    )


def run(args: argparse.Namespace) -> int:
    from generator.cache import RenderCache
    from generator.outputs import generate  # lazy: keeps `statedoc lint` startup light

    lint_run, files = lint_specs(args, keep_documents=True)
    config = load_config()
    paths = list(getattr(args, "paths", []) or [])
    blocked = {r.path for r in lint_run.results if not lint_run.clean(r.path)}
    emit(args, [f for f in lint_run.findings if f.path in blocked], [f.display for f in files])
    out = Path(args.out).absolute() if args.out else None
    cache = None if args.no_cache else RenderCache(config.root)
    outcome = generate(
        lint_run, files, config, out=out, check=args.check, prune=not paths, cache=cache
    )
    for problem in outcome.problems:
        print(problem, file=sys.stderr)
    if args.check and outcome.changes:
        stream = diff_stream(args)
        stream.write("".join(outcome.diffs))
        stream.flush()
    if not args.quiet:
        for note in outcome.plan.notes:
            print(f"statedoc: note: {note}", file=sys.stderr)
        print(_summary(outcome), file=sys.stderr)
    if lint_run.internal_error:
        return EXIT_USAGE
    tests_ok = True
    if args.tests:
        tests_ok = write_tests(lint_run, files, config, Path(args.tests), outcome, args)
    return EXIT_OK if outcome.ok and tests_ok else EXIT_FINDINGS


def write_tests(
    run: LintRun,
    files: list[SpecFile],
    config: Config,
    folder: Path,
    outcome: GenerateOutcome,
    args: argparse.Namespace,
) -> bool:
    """One pytest module per generated document: ``test_<area>_<module>_<name>.py``.

    With ``--check`` nothing is written and a stale or missing test module is an error.
    """
    from generator.outputs import module_parts
    from generator.testing.pytest_plugin import render_test_module
    from generator.write import atomic_write

    out = (Path(args.out).absolute() if args.out else config.out).resolve()
    try:
        package = out.relative_to(config.root.resolve()).parts
    except ValueError:
        package = (out.name,)
    by_display = {spec.display: spec for spec in files}
    documents = {r.path: r.document for r in run.results if r.document is not None}
    fresh = True
    for display in outcome.generated:
        area, module, name = module_parts(documents[display])
        text = render_test_module(
            ".".join((*package, area, module, name)), by_display[display].relative
        )
        target = folder / f"test_{area}_{module}_{name}.py"
        if args.check:
            try:
                same = target.read_text(encoding="utf-8") == text
            except OSError:
                same = False
            if not same:
                print(f"statedoc: {target.as_posix()} is stale or missing", file=sys.stderr)
                fresh = False
        else:
            atomic_write(target, text.encode("utf-8"))
    return fresh

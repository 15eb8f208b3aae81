"""What the commands share: a workspace from the arguments, a lint run (with a progress bar
where one is wanted), its exit code and its report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.options import CommonOptions
from generator.core.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.core.findings import Finding
from generator.lint.files import LintRun, LintTally
from generator.load.discover import SpecFile
from generator.run.workspace import Workspace

if TYPE_CHECKING:
    import argparse

    from generator.run.progress import Progress


def workspace_for(args: argparse.Namespace) -> Workspace:
    """The workspace of the command's PATHs and selection (config of the files' project)."""
    return Workspace.open(CommonOptions.of(args).workspace_options())


def lint_specs(
    args: argparse.Namespace, *, keep_documents: bool = True, progress_bar: bool = False
) -> tuple[LintRun, list[SpecFile]]:
    """Discover and lint through :func:`generator.run.lint.lint`, returning the run and the
    discovered :class:`SpecFile` s (with a progress bar on stderr where
    :func:`generator.run.progress.wanted` allows). ``keep_documents`` keeps every parsed
    document, as generation needs, which bypasses the cache and worker processes."""
    from generator.run import pipeline

    workspace = workspace_for(args)
    bar = progress_for(args, len(workspace.files)) if progress_bar and workspace.files else None
    try:
        run = pipeline.lint(workspace, keep_documents=keep_documents, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    return run, workspace.files


def exit_code(run: LintRun | LintTally) -> int:
    if run.internal_error:
        return EXIT_USAGE
    return EXIT_FINDINGS if run.has_errors else EXIT_OK


def progress_for(args: argparse.Namespace, total: int) -> Progress | None:
    import os

    from generator.run import progress

    common = CommonOptions.of(args)
    if not progress.wanted(sys.stderr, quiet=common.quiet, fmt=common.format, environ=os.environ):
        return None
    return progress.Progress(total, sys.stderr, delay=progress.DELAY)


def report(args: argparse.Namespace, findings: list[Finding], files: list[str]) -> None:
    """The findings, or with ``--statistics`` their count per code. (The output module is
    imported here: a live ``lint`` prints as it goes and never needs it.)"""
    from generator.cli.output import emit, write_report

    if not args.statistics:
        emit(args, findings, files)
        return
    from generator.report.statistics import render

    text = render(findings, args.format)
    if args.output:
        write_report(Path(args.output), text, fmt=None, inputs=files)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()

"""``statedoc lint`` itself: each file's findings printed as soon as that file is done."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from generator.cli.running import exit_code, progress_for, report, workspace_for
from generator.core.findings import Finding

if TYPE_CHECKING:
    import argparse


def lint_and_report(args: argparse.Namespace) -> int:
    """``statedoc lint``: each file's findings are printed as soon as that file is done (text
    and github on stdout; files are linted in the report's order), and only counts are kept;
    a report that is one document (json, sarif, junit, ``--output``, ``--statistics``) keeps
    the findings, never the per-file results or documents."""
    from generator import __version__
    from generator.lint.files import LintTally, in_order
    from generator.report import Run, render
    from generator.run.lint import stream

    workspace = workspace_for(args)
    files, against = workspace.files, workspace.options.against
    live = (
        args.format in ("text", "github")
        and not (args.output or args.statistics or against)
        and in_order(files)
    )
    tally = LintTally(keep=not live)
    bar = progress_for(args, len(files)) if files else None
    try:
        for findings in stream(workspace, progress=bar):
            tally.add(findings)
            if live and findings:
                if bar is not None:
                    bar.close()  # erase the bar's line first; it is drawn again later
                sys.stdout.write(render(args.format, Run(findings, (), __version__)))
    finally:
        if bar is not None:
            bar.close()
    if live:
        sys.stdout.flush()
        if not args.quiet and args.format == "text":
            from generator.report.text import counted_summary

            print(counted_summary(tally.errors, tally.warnings, len(files)), file=sys.stderr)
    else:
        tally.findings.sort(key=Finding.sort_key)
        report(args, tally.findings, [spec.display for spec in files])
    return exit_code(tally)

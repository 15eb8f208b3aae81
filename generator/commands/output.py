"""Shared output handling: report to stdout or ``--output`` (atomically), summary to stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator import __version__
from generator.findings import Finding
from generator.report import Run, render
from generator.report.text import summary


def emit(args: argparse.Namespace, findings: list[Finding], files: list[str]) -> None:
    run = Run(findings, files, __version__)
    text = render(args.format, run)
    if args.output:
        from generator.write import atomic_write

        atomic_write(Path(args.output), text.encode("utf-8"))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if not args.quiet and args.format == "text":
        print(summary(run), file=sys.stderr)

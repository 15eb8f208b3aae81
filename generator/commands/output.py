"""Shared output handling: report to stdout or ``--output`` (atomically), summary to stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from generator import __version__
from generator.config import ConfigError
from generator.findings import Finding
from generator.report import Run, render
from generator.report.text import summary


def emit(args: argparse.Namespace, findings: list[Finding], files: list[str]) -> None:
    run = Run(findings, files, __version__)
    text = render(args.format, run)
    if args.output:
        write_report(Path(args.output), text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if not args.quiet and args.format == "text":
        print(summary(run), file=sys.stderr)


def write_report(path: Path, text: str) -> None:
    """``--output``: atomic for a regular file (through a symlink to its target); a device or
    pipe (``/dev/stdout``) is written as a stream, never read or replaced."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise ConfigError(f"--output {path}: is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    from generator.write import atomic_write

    atomic_write(Path(os.path.realpath(path)), text.encode("utf-8"))


def diff_stream(args: argparse.Namespace) -> TextIO:
    """Where diffs go: beside text findings on stdout; when stdout carries a machine-readable
    report (json, sarif, ... without ``--output``), on stderr so the report stays parseable."""
    return sys.stdout if args.format == "text" or args.output else sys.stderr

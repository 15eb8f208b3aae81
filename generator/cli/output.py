"""Shared output handling: report to stdout or ``--output`` (atomically), summary to stderr."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from generator import __version__
from generator.core.errors import ConfigError
from generator.core.findings import Finding
from generator.report import Run, render
from generator.report.text import summary

if TYPE_CHECKING:
    import argparse


def emit(args: argparse.Namespace, findings: list[Finding], files: list[str]) -> None:
    run = Run(findings, files, __version__)
    text = render(args.format, run)
    if args.output:
        write_report(Path(args.output), text, fmt=args.format, inputs=files)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if not args.quiet and args.format == "text":
        print(summary(run), file=sys.stderr)


def write_report(path: Path, text: str, *, fmt: str | None, inputs: Sequence[str] = ()) -> None:
    """``--output``: atomic for a regular file (through a symlink to its target); a device or
    pipe (``/dev/stdout``) is written as a stream, never read or replaced.

    Nothing a user wrote is overwritten: the target must be new, empty or a statedoc report of
    the same format, and never one of the documents being checked (so ``--output specs/x.md``
    cannot truncate a spec). ``fmt=None`` (reports without a recogniser) refuses only inputs
    and files that look like state documents."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise ConfigError(f"--output {path}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise ConfigError(f"--output {path}: is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    target = Path(os.path.realpath(path))
    if target in {Path(os.path.realpath(p)) for p in inputs}:
        raise ConfigError(f"--output {path}: refusing to overwrite a document being checked")
    if mode is not None:
        _check_replaceable(path, target, fmt)
    from generator.core.files import atomic_write

    atomic_write(target, text.encode("utf-8"))


#: A previous report bigger than this is not read to recognise it: choose another path.
_MAX_REPORT = 64 * 1024 * 1024


def _check_replaceable(shown: Path, target: Path, fmt: str | None) -> None:
    """Refuse unless ``target`` is empty or recognisably an earlier ``fmt`` report."""
    from generator.load.source import read_bounded
    from generator.report import is_report

    try:
        data, size = read_bounded(target, _MAX_REPORT)
    except OSError as exc:
        raise ConfigError(f"--output {shown}: cannot read it: {exc.strerror or exc}") from None
    if fmt is None and not data.removeprefix(b"\xef\xbb\xbf").startswith(b"---"):
        return
    if size == 0 or (fmt is not None and size <= _MAX_REPORT and is_report(fmt, data)):
        return
    if fmt is None:
        raise ConfigError(f"--output {shown}: refusing to overwrite what looks like a document")
    raise ConfigError(
        f"--output {shown}: refusing to overwrite a file that is not a statedoc {fmt} report "
        "(remove it or choose another path)"
    )


def diff_stream(args: argparse.Namespace) -> TextIO:
    """Where diffs go: beside text findings on stdout; when stdout carries a machine-readable
    report (json, sarif, ... without ``--output``), on stderr so the report stays parseable."""
    return sys.stdout if args.format == "text" or args.output else sys.stderr

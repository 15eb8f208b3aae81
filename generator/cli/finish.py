"""How ``generate``, ``diagram``, ``build`` and ``check`` end: one report, diffs, a summary.

Every finding (lint findings and the output stage's SD4xx refusals, stale files and drifted
diagrams) goes into the one report in ``--format``, so CI formats carry them all; the exit
code follows the findings: 1 when any is an error, 2 after an internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence

from generator.cli.output import diff_stream, emit
from generator.core.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.core.findings import Finding, Severity


def finish(
    args: argparse.Namespace,
    findings: Iterable[Finding],
    files: list[str],
    *,
    diffs: Sequence[str] = (),
    notes: Sequence[str] = (),
    summary: str = "",
    internal_error: bool = False,
) -> int:
    """Print the report, the diffs (``--check``), notes and summary; return the exit code."""
    ordered = sorted(findings, key=lambda f: f.sort_key())
    emit(args, ordered, files)  # always: --output and CI reports must exist
    if diffs:
        stream = diff_stream(args)
        stream.write("".join(diffs))
        stream.flush()
    if not args.quiet:
        for note in notes:
            print(f"statedoc: note: {note}", file=sys.stderr)
        if summary:
            print(summary, file=sys.stderr)
    if internal_error:
        return EXIT_USAGE
    failed = any(f.severity is Severity.ERROR for f in ordered)
    return EXIT_FINDINGS if failed else EXIT_OK


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"

"""``statedoc diagram [PATH...] (--write | --check)``: keep each document's diagram in sync."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.commands.output import diff_stream, emit
from generator.findings import Finding, Severity
from generator.linter import LintRun
from generator.write import atomic_write, unified_diff

#: Findings that the diagram command itself repairs; any other error blocks a document.
REPAIRS = ("SD301", "SD303", "SD304", "SD305")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "diagram", parents=[common], help="regenerate the Mermaid block where it drifted"
    )
    parser.add_argument("paths", nargs="*", metavar="PATH")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite drifted blocks in place")
    mode.add_argument(
        "--check", action="store_true", help="write nothing; diff and exit 1 on drift"
    )
    parser.set_defaults(run=run)


@dataclass
class DiagramOutcome:
    changed: list[str] = field(default_factory=list)  # display paths (written or would be)
    diffs: list[str] = field(default_factory=list)
    blocked: list[Finding] = field(default_factory=list)  # findings that stopped a document
    refused: list[str] = field(default_factory=list)  # messages: path: why


def blocking(run: LintRun, path: str) -> list[Finding]:
    """Error findings of ``path`` that the diagram command does not repair itself."""
    return [
        f
        for f in run.findings
        if f.path == path and f.severity is Severity.ERROR and f.code not in REPAIRS
    ]


def sync_diagrams(run: LintRun, paths: dict[str, Path], *, write: bool) -> DiagramOutcome:
    """Plan (and with ``write`` apply) the diagram edits of every linted document."""
    from generator.docedit import plan

    outcome = DiagramOutcome()
    for result in run.results:
        stop = blocking(run, result.path)
        if stop or result.document is None:
            outcome.blocked.extend(stop)
            continue
        edit = plan(result.document)
        if edit.refused is not None:
            outcome.refused.append(f"{result.path}: {edit.refused}")
            continue
        if edit.new is None:
            continue
        path = paths[result.path]
        old = path.read_bytes()
        if old == edit.new:
            continue
        outcome.changed.append(result.path)
        outcome.diffs.append(unified_diff(old, edit.new, result.path))
        if write:  # through a symlinked spec to the file it names, never replacing the link
            atomic_write(Path(os.path.realpath(path)), edit.new)
    return outcome


def report(
    args: argparse.Namespace, outcome: DiagramOutcome, files: list[str], *, write: bool
) -> int:
    """Print the outcome; the exit code of ``diagram``."""
    emit(args, outcome.blocked, files)  # always: --output and CI reports must exist
    for message in outcome.refused:
        print(f"statedoc: {message}", file=sys.stderr)
    if not write:
        stream = diff_stream(args)
        stream.write("".join(outcome.diffs))
        stream.flush()
    if not args.quiet:
        verb = "rewrote" if write else "would rewrite"
        print(
            f"diagram: {verb} {len(outcome.changed)} of {len(files)} document(s)", file=sys.stderr
        )
    if outcome.blocked or outcome.refused or (not write and outcome.changed):
        return EXIT_FINDINGS
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from generator.commands.lint import lint_specs

    lint_run, specs = lint_specs(args)
    files = [spec.display for spec in specs]
    if lint_run.internal_error:
        emit(args, [f for f in lint_run.findings if f.code == "SD000"], files)
        return EXIT_USAGE
    paths = {spec.display: spec.path for spec in specs}
    outcome = sync_diagrams(lint_run, paths, write=args.write)
    return report(args, outcome, files, write=args.write)

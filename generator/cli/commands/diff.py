"""``statedoc diff OLD NEW`` and ``statedoc diff --against GIT_REF [PATH...]``.

Exit 0: the gate passes; 1: it fails (by default on a breaking change, or with
``--fail-on CATEGORY`` on a change in one of those categories; never with
``--allow-breaking``); 2: usage, a missing ref, or a new version that cannot be compared (it
does not get past the schema stage). An old version that cannot be read does not block: it is
reported and not compared. This module parses and prints; the work is
:func:`generator.diffing.compare.run_diff`, imported only when diff runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from generator.diffing import FORMATS
from generator.diffing.categories import CATEGORIES


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    # Not built on ``common``: diff has its own formats (markdown for PR comments) and no
    # rule selection. ``dest`` differs from ``format`` so the lint formats' check in
    # ``cli.main`` does not apply to it.
    parser = sub.add_parser(
        "diff",
        help="semantic diff of specs: breaking / compatible / wording changes",
        description=(
            "Compare two spec files (OLD NEW), or each spec with its version at a git ref "
            "(--against GIT_REF [PATH...]; specs are matched by id, so a moved file is the same "
            "spec). Each change is filed under who it breaks: code (generated APIs), data "
            "(stored rows, existing writers), wording (texts only); a compatible change breaks "
            "no one. Exit 1 when a change is breaking, unless --allow-breaking; with --fail-on, "
            "exit 1 when a change is in one of those categories."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="OLD NEW files; with --against: files or folders (default: configured specs)",
    )
    parser.add_argument(
        "--against", metavar="GIT_REF", help="compare with the specs at this git ref"
    )
    env_format = os.environ.get("STATEDOC_FORMAT")
    parser.add_argument(
        "--format",
        dest="diff_format",
        choices=FORMATS,
        default=env_format if env_format in FORMATS else "text",
        help="output format (default text; markdown is ready for a pull-request comment)",
    )
    parser.add_argument(
        "--fail-on",
        action="append",
        metavar="CATEGORY",
        help=(
            f"exit 1 when a change is in CATEGORY ({', '.join(CATEGORIES)}); repeat it or "
            "give a comma-separated list (default: exit 1 on a breaking change)"
        ),
    )
    parser.add_argument(
        "--allow-breaking", action="store_true", help="exit 0 even when a change is breaking"
    )
    parser.add_argument(
        "--output", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print the report only, no summary"
    )
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from generator.cli.output import write_report
    from generator.diffing.categories import parse_fail_on
    from generator.diffing.compare import DiffRequest, run_diff
    from generator.run.config import load_config

    paths: list[str] = list(args.paths)
    request = DiffRequest(
        paths=tuple(paths),
        against=args.against,
        fmt=args.diff_format,
        fail_on=None if args.fail_on is None else parse_fail_on(args.fail_on),
        allow_breaking=args.allow_breaking,
    )
    outcome = run_diff(request, load_config())
    if args.output:  # never over one of the documents compared (or any other)
        write_report(Path(args.output), outcome.text, fmt=None, inputs=paths)
    else:
        sys.stdout.write(outcome.text)
        sys.stdout.flush()
    if not args.quiet and (args.diff_format == "text" or args.output):
        print(outcome.summary, file=sys.stderr)
    for error in outcome.errors:
        print(f"statedoc: error: {error}", file=sys.stderr)
    return outcome.exit_code

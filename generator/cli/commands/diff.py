"""``statedoc diff OLD NEW`` and ``statedoc diff --against GIT_REF [PATH...]``.

Exit 0: no breaking change (or ``--allow-breaking``); 1: a breaking change; 2: usage, a
missing ref, or a new version that cannot be compared (it does not get past the schema stage).
An old version that cannot be read does not block: it is reported and not compared.
The work is in :mod:`generator.diffing.command`, imported only when diff runs.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from generator.diffing import FORMATS


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
            "spec). Exit 1 when a change is breaking, unless --allow-breaking."
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
    from generator.diffing.command import run

    return run(args)

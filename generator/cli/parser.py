"""The ``statedoc`` argument parser (:mod:`argparse`), built per command.

Kept apart from :mod:`generator.cli.main` so that a plain ``statedoc lint`` (read by
:func:`generator.cli.main.plain_lint`) never imports :mod:`argparse` nor builds a parser.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from generator import __version__
from generator.report import FORMATS, default_format


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, the same steps: argparse's formatter calls it on
    every parser it builds, and importing :mod:`shutil` brings in bz2, lzma and zlib."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    try:
        lines = int(os.environ["LINES"])
    except (KeyError, ValueError):
        lines = 0
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((80, 24))
        if columns <= 0:
            columns = size.columns or 80
    return columns


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as it would be, sized without :mod:`shutil`."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """Every statedoc parser (sub-parsers are made with the parent's class) uses
    :class:`_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def _common() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--format",
        choices=FORMATS,
        default=default_format(),
        help="output format (env STATEDOC_FORMAT; default text)",
    )
    common.add_argument("--select", default="", help="comma-separated codes or prefixes to report")
    common.add_argument("--ignore", default="", help="comma-separated codes or prefixes to skip")
    common.add_argument(
        "--output", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    common.add_argument(
        "-q", "--quiet", action="store_true", help="print findings only, no summary"
    )
    common.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="worker processes (default: all cores)",
    )
    common.add_argument(
        "--no-cache", action="store_true", help="ignore and do not update .statedoc_cache/"
    )
    common.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when findings or stale files are reported (still 2 on usage or "
        "internal errors)",
    )
    common.set_defaults(report_format=True)
    return common


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``command`` (the first argument) only the parser of the module
    that registers it: the other command modules and their parsers are start-up cost a run of
    one command never uses. The top-level usage names ``COMMAND``, not the choices, so every
    message of that command's run reads the same either way."""
    parser = _Parser(
        prog="statedoc",
        description="Lint state documents, generate their state machines, keep diagrams in sync.",
    )
    parser.add_argument("--version", action="version", version=f"statedoc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = _common()
    from generator.cli.commands import COMMANDS, register, register_all

    if command in COMMANDS:
        register(sub, common, COMMANDS[command])
    else:  # --help, --version, no or an unknown command: argparse lists every choice
        register_all(sub, common)
    return parser

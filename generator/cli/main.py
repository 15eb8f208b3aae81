"""The ``statedoc`` command line: argument parsing and dispatch, nothing else.

Exit codes: 0 clean or done, 1 findings of error severity / stale output / a breaking change
(0 with ``--exit-zero``), 2 usage, configuration or internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from generator import __version__
from generator.config import ConfigError
from generator.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.report import FORMATS


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
        default=(os.environ.get("STATEDOC_FORMAT") or "text").lower(),
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


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if getattr(args, "report_format", False) and args.format not in FORMATS:
        # argparse never checks a default, and this one may come from STATEDOC_FORMAT
        print(
            f"statedoc: error: STATEDOC_FORMAT={args.format!r} is not one of {', '.join(FORMATS)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        result: int = args.run(args)
    except ConfigError as exc:
        print(f"statedoc: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a folder that cannot be written, a file that vanished, ...
        print(f"statedoc: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: never let CI read a traceback as "findings" (exit 1)
        import traceback

        traceback.print_exc()
        print(f"statedoc: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if result == EXIT_FINDINGS and getattr(args, "exit_zero", False):
        return EXIT_OK  # as ruff's --exit-zero: findings are reported, the job goes on
    return result

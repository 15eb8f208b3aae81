"""The ``statedoc`` argument parser (:mod:`argparse`), built per command: a run builds only
the parser of its own command (see :func:`build_parser`)."""

from __future__ import annotations

import argparse

from generator import __version__
from generator.report import FORMATS, default_format


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
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
    parser = argparse.ArgumentParser(
        prog="statedoc",
        description="Lint state documents, generate their state machines, keep diagrams in sync.",
    )
    parser.add_argument("--version", action="version", version=f"statedoc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = _common()
    from generator.cli.commands import module_of, register, register_all

    module = module_of(command) if command is not None else None
    if module is not None:
        register(sub, common, module)
    else:  # --help, --version, no or an unknown command: argparse lists every choice
        register_all(sub, common)
    return parser

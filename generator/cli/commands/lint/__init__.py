"""``statedoc lint [PATH...]``: the parser and the choice of run (``stream``: the plain lint;
``fix``: ``--fix``/``--diff``; ``stdin``: ``-``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from generator.cli.commands.lint.stream import lint_and_report
from generator.cli.running import lint_specs
from generator.core.errors import ConfigError

if TYPE_CHECKING:
    import argparse


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("lint", parents=[common], help="lint documents or folders")
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: configured specs)"
    )
    parser.add_argument(
        "--against",
        metavar="GIT_REF",
        help="also check revisions and removed states against a git ref (SD207, SD208)",
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="fix what is mechanical (diagram drift, SD207 revision) and report the rest",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="with or without --fix: print the fixes as a unified diff, write nothing "
        "(exit 1 if anything would change)",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="with PATH '-': the name of the document read from stdin (config lookup, "
        "per-file-ignores, paths in findings)",
    )
    parser.add_argument(
        "--statistics", action="store_true", help="print a count per rule code instead"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from generator.run.interrupt import exit_code as signal_exit
    from generator.run.interrupt import stoppable

    if args.statistics and args.format not in ("text", "json"):
        raise ConfigError("--statistics prints text or json, not " + args.format)
    if "-" in args.paths or args.stdin_filename:
        from generator.cli.commands.lint.stdin import run_stdin

        return run_stdin(args)
    try:
        with stoppable():
            if not (args.fix or args.diff):
                return lint_and_report(args)
            lint_run, files = lint_specs(args, keep_documents=False, progress_bar=True)
            from generator.cli.commands.lint.fix import run_fix

            return run_fix(args, lint_run, files)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: workers are already gone
        return signal_exit(exc)

"""The ``statedoc`` command line: argument parsing and dispatch, nothing else.

Exit codes: 0 clean or done, 1 findings of error severity / stale output / a breaking change
(0 with ``--exit-zero``), 2 usage, configuration or internal error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from generator.config import ConfigError
from generator.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.report import FORMATS, default_format

if TYPE_CHECKING:
    import argparse

#: The options of ``statedoc lint`` that take no value, by the attribute argparse sets.
_LINT_SWITCHES = {
    "-q": "quiet",
    "--quiet": "quiet",
    "--no-cache": "no_cache",
    "--exit-zero": "exit_zero",
    "--fix": "fix",
    "--diff": "diff",
    "--statistics": "statistics",
}


def plain_lint(argv: Sequence[str]) -> SimpleNamespace | None:
    """What argparse reads from ``lint`` followed by switches and one run of paths (the
    common ``statedoc lint -q docs/``), or None for anything else, which argparse reads.

    Importing :mod:`argparse` and building the parsers cost a one-document lint about 3 ms
    of CPU; a test holds this reading equal to argparse's, option for option."""
    if not argv or argv[0] != "lint":
        return None
    switches = dict.fromkeys(_LINT_SWITCHES.values(), False)
    paths: list[str] = []
    for index, arg in enumerate(argv[1:], start=1):
        if arg in _LINT_SWITCHES:
            switches[_LINT_SWITCHES[arg]] = True
        elif arg.startswith("-") or (paths and argv[index - 1] in _LINT_SWITCHES):
            return None  # an option with a value, stdin, or a second run of paths (an error)
        else:
            paths.append(arg)
    from generator.cli.commands.lint import run

    return SimpleNamespace(
        command="lint",
        format=default_format(),
        select="",
        ignore="",
        output=None,
        jobs=0,
        report_format=True,
        paths=paths,
        against=None,
        stdin_filename=None,
        run=run,
        **switches,
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of :mod:`generator.cli.parser` (see there), imported when it is needed."""
    from generator.cli.parser import build_parser as build

    return build(command)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args: Any = plain_lint(argv) or build_parser(argv[0] if argv else None).parse_args(argv)
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

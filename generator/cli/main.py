"""The ``statedoc`` command line: argument parsing and dispatch, nothing else.

Exit codes: 0 clean or done, 1 findings of error severity / stale output / a breaking change
(0 with ``--exit-zero``), 2 usage, configuration or internal error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from generator.cli.parser import build_parser
from generator.core.errors import ConfigError
from generator.core.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.report import FORMATS

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args: Any = build_parser(argv[0] if argv else None).parse_args(argv)
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

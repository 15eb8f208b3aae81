"""``lint -`` (and ``--stdin-filename PATH``): one document from stdin, for editors.

The name decides the config (found from its folder), ``exclude`` and ``per-file-ignores``,
and the path in findings. With ``--fix`` the (fixed) document goes to stdout and the findings
that remain to stderr, as ruff does; ``--diff`` prints the would-be fix."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.core.errors import ConfigError
from generator.core.files import unified_diff
from generator.lint.files import lint_data, settings_for
from generator.lint.fix import plan_fix
from generator.lint.selection import validate_codes
from generator.load.discover import SpecFile, excluded
from generator.report import Run, render
from generator.run.config import load_config
from generator.run.workspace import codes


def _spec(name: str | None, root: Path) -> SpecFile:
    if name is None:
        return SpecFile("-", Path.cwd() / "-", "-")
    path = Path(name).absolute()
    try:
        display = path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        display = path.as_posix() if Path(name).is_absolute() else Path(name).as_posix()
    try:
        relative = path.relative_to(root).as_posix()
    except ValueError:
        relative = path.as_posix()
    return SpecFile(display, path, relative)


def run_stdin(args: argparse.Namespace) -> int:
    from generator.cli.running import exit_code, report

    if args.paths not in ([], ["-"]):
        raise ConfigError("stdin ('-' or --stdin-filename) is linted alone: name no other PATH")
    if args.against:
        raise ConfigError("--against compares files in a git repository; it cannot read stdin")
    name = args.stdin_filename
    config = load_config(Path(name).absolute().parent if name else None)
    select, ignore = codes(args.select), codes(args.ignore)
    validate_codes(select, "--select")
    validate_codes(ignore, "--ignore")
    settings = settings_for(config, select, ignore)
    spec = _spec(name, config.root)
    data = sys.stdin.buffer.read()
    fixing = args.fix or args.diff
    if name is not None and excluded(spec.relative, config.exclude):
        if args.fix and not args.diff:
            sys.stdout.buffer.write(data)  # an editor replaces the buffer with what we print
        return 0
    lint_run = lint_data(spec, data, settings)
    if not fixing:
        report(args, lint_run.findings, [spec.display])
        return exit_code(lint_run)
    fix = plan_fix(data, spec.display, lint_run.findings, max_file_size=config.max_file_size)
    for reason in fix.refused:
        print(f"statedoc: not fixed: {spec.display}: {reason}", file=sys.stderr)
    if args.diff:
        if fix.new is not None:
            sys.stdout.write(unified_diff(fix.old, fix.new, spec.display))
        return 1 if fix.new is not None else 0
    fixed = fix.new if fix.new is not None else data
    sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    left = lint_data(spec, fixed, settings) if fix.new is not None else lint_run
    from generator import __version__

    sys.stderr.write(render(args.format, Run(left.findings, [spec.display], __version__)))
    return exit_code(left)

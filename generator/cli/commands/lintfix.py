"""``lint --fix`` / ``lint --diff`` over files: plan, refuse with reasons, write atomically,
then lint again so the report shows what is left (as ruff does)."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from generator.findings import Finding
from generator.lint.files import LintRun
from generator.lint.fix import Fix, apply, fixable, plan_fix, writable
from generator.load.discover import SpecFile
from generator.output.files import unified_diff


def plan_all(lint_run: LintRun, files: list[SpecFile]) -> list[tuple[SpecFile, Fix]]:
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in lint_run.findings:
        by_path[finding.path].append(finding)
    planned = []
    for spec in files:
        findings = by_path.get(spec.display, [])
        if not fixable(findings):
            continue
        try:
            data = spec.path.read_bytes()
        except OSError as exc:
            planned.append((spec, Fix(spec.display, b"", refused=[f"cannot read: {exc}"])))
            continue
        fix = plan_fix(data, spec.display, findings)
        if fix.new is not None:
            why = writable(spec.path)
            if why is not None:
                fix.refused.append(why)
                fix.new, fix.fixed = None, []
        planned.append((spec, fix))
    return planned


def tell_refusals(fixes: list[Fix]) -> None:
    for fix in fixes:
        for reason in fix.refused:
            print(f"statedoc: not fixed: {fix.path}: {reason}", file=sys.stderr)


def _count(fixes: list[Fix]) -> str:
    found = sum(len(f.fixed) for f in fixes)
    files = sum(1 for f in fixes if f.new is not None)
    return f"{found} finding{'s' if found != 1 else ''} in {files} file{'s' if files != 1 else ''}"


def run_fix(args: argparse.Namespace, lint_run: LintRun, files: list[SpecFile]) -> int:
    from generator.cli.commands.lintrun import exit_code, lint_specs, report

    planned = plan_all(lint_run, files)
    fixes = [fix for _, fix in planned]
    tell_refusals(fixes)
    if args.diff:
        for fix in fixes:
            if fix.new is not None:
                sys.stdout.write(unified_diff(fix.old, fix.new, fix.path))
        sys.stdout.flush()
        if not args.quiet:
            print(f"Would fix {_count(fixes)}.", file=sys.stderr)
        return 1 if any(fix.new is not None for fix in fixes) else 0
    for spec, fix in planned:
        apply(spec.path, fix)
    if any(fix.new is not None for fix in fixes):
        lint_run, files = lint_specs(args, keep_documents=False, progress_bar=True)
    report(args, lint_run.findings, [spec.display for spec in files])
    if not args.quiet and args.format == "text":
        print(f"Fixed {_count(fixes)}.", file=sys.stderr)
    return exit_code(lint_run)

"""``lint --fix`` / ``lint --diff`` over files: each fix is computed from a document lint read
(bytes in, bytes out), then diffed or applied by the one plan/apply layer
(:mod:`generator.output.plan`, :mod:`generator.output.apply`) as an in-place edit of that
document, so a file changed since, or read-only, is refused with the reason; then lint again
so the report shows what is left (as ruff does).

The run that found the findings keeps no documents (it uses the cache and worker processes),
so the files with a fixable finding, usually few, are linted again keeping theirs. A file
whose own findings differ the second time changed in between: it is refused, not fixed from
findings that no longer describe it.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from generator.core.findings import Finding
from generator.lint.files import LintRun
from generator.lint.fix import DIAGRAM, REVISION, Fix, blocked, fixable, plan_fix
from generator.load.discover import SpecFile

if TYPE_CHECKING:
    from generator.model.document import Document
    from generator.output.plan import DocumentEdit, Plan, Problem

#: Findings that look beyond the file's own bytes (other files, a git ref): they come from
#: the first run only, so they are left out when the two runs are compared.
ACROSS = ("SD204", REVISION)


@dataclass
class FixPlan:
    """Each document's fix (what it repairs, or why not) and the plan of their edits."""

    fixes: list[Fix]
    plan: Plan

    def done(self) -> list[Fix]:
        """The fixes the plan holds an edit for and has not refused (so far)."""
        refused = {problem.path for problem in self.plan.problems}
        planned = {change.relative for change in self.plan.changes}
        return [fix for fix in self.fixes if fix.path in planned and fix.path not in refused]


def _by_path(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    found: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        found[finding.path].append(finding)
    return found


def to_fix(lint_run: LintRun, files: list[SpecFile]) -> list[SpecFile]:
    """The files with a reported finding that ``--fix`` repairs."""
    by_path = _by_path(lint_run.findings)
    return [spec for spec in files if fixable(by_path.get(spec.display, []))]


def plan_all(lint_run: LintRun, files: list[SpecFile], again: LintRun) -> FixPlan:
    """Plan the fix of every file of ``files`` with a fixable finding in ``lint_run``; reads
    only. ``again`` lints those files once more, keeping their documents: a fix is computed
    from, and only ever written over, the bytes that run read."""
    from generator.output.plan import CHANGED, WRITE_FAILED, Problem, linted_bytes, plan_edits

    first, second = _by_path(lint_run.findings), _by_path(again.findings)
    documents = {result.path: result.document for result in again.results}
    fixes: list[Fix] = []
    edits: list[DocumentEdit] = []
    problems: list[Problem] = []
    for spec in to_fix(lint_run, files):
        findings = first[spec.display]
        if _own(findings) != _own(second.get(spec.display, [])):
            subject = _subject(fixable(findings))
            message = f"{subject} not rewritten: {CHANGED}"
            problems.append(Problem(spec.display, 1, 1, message, WRITE_FAILED, reason=CHANGED))
            continue
        document = documents.get(spec.display)
        if document is None:  # lint built no model of it: nothing to compute a fix from
            why = blocked(findings) or "the document cannot be read"
            fixes.append(Fix(spec.display, b"", refused=[why]))
            continue
        fix = plan_fix(linted_bytes(document), spec.display, findings)
        fixes.append(fix)
        if fix.new is not None:
            edits.append(_edit(document, spec, fix))
    plan = plan_edits(edits, problems=problems, refuse_read_only=True, fix="statedoc lint --fix")
    return FixPlan(fixes, plan)


def _own(findings: list[Finding]) -> list[Finding]:
    return sorted((f for f in findings if f.code not in ACROSS), key=Finding.sort_key)


def _subject(findings: list[Finding]) -> str:
    """What a fix rewrites, for refusals: "diagram", "revision" or both."""
    codes = {finding.code for finding in findings}
    parts = [
        name for name, of in (("diagram", DIAGRAM), ("revision", (REVISION,))) if codes & set(of)
    ]
    return " and ".join(parts)


def _edit(document: Document, spec: SpecFile, fix: Fix) -> DocumentEdit:
    from generator.output.plan import DocumentEdit

    assert fix.new is not None and fix.fixed
    first = fix.fixed[0]
    subject = _subject(fix.fixed)
    return DocumentEdit.of(
        document,
        spec.path,
        fix.new,
        at=(first.line, first.column, first.end_line, first.end_column),
        subject=subject,
        pending=f"the {subject} can be fixed; run `statedoc lint --fix` (the diff shows the "
        "change)",
    )


def relint(args: argparse.Namespace, specs: list[SpecFile]) -> LintRun:
    """Lint ``specs`` again with the run's settings, keeping each document."""
    from generator.cli.options import CommonOptions
    from generator.lint.files import lint_files, settings_for
    from generator.run.config import load_config_for

    if not specs:
        return LintRun([], [])
    options = CommonOptions.of(args).workspace_options()
    config = load_config_for(options.paths)  # as the first run's workspace, not discovering
    settings = settings_for(config, options.select, options.ignore)
    return lint_files(specs, settings, keep_documents=True)


def tell_refusals(fixes: Iterable[Fix], problems: Iterable[Problem] = ()) -> None:
    """Every fix not made, with its reason, in today's wording."""
    reasons = [(fix.path, reason) for fix in fixes for reason in fix.refused]
    reasons += [(problem.path, problem.reason or problem.message) for problem in problems]
    for path, reason in reasons:
        print(f"statedoc: not fixed: {path}: {reason}", file=sys.stderr)


def _count(fixes: list[Fix]) -> str:
    found = sum(len(f.fixed) for f in fixes)
    files = len(fixes)
    return f"{found} finding{'s' if found != 1 else ''} in {files} file{'s' if files != 1 else ''}"


def run_fix(args: argparse.Namespace, lint_run: LintRun, files: list[SpecFile]) -> int:
    """Preview (``--diff``) or make the fixes; a fix the plan refuses (the file is read-only,
    or changed since lint read it) is also an SD408 finding of the report."""
    from generator.cli.running import exit_code, lint_specs, report
    from generator.output.apply import apply_plan

    planned = plan_all(lint_run, files, relint(args, to_fix(lint_run, files)))
    plan = planned.plan
    tell_refusals(planned.fixes, plan.problems)
    if args.diff:
        sys.stdout.write("".join(plan.diffs))
        sys.stdout.flush()
        if not args.quiet:
            print(f"Would fix {_count(planned.done())}.", file=sys.stderr)
        return 1 if plan.changes else 0
    refused = len(plan.problems)
    written, _ = apply_plan(plan)
    tell_refusals((), plan.problems[refused:])
    if written:
        lint_run, files = lint_specs(args, keep_documents=False, progress_bar=True)
    findings = lint_run.findings + [problem.finding() for problem in plan.problems]
    findings.sort(key=Finding.sort_key)
    report(args, findings, [spec.display for spec in files])
    if not args.quiet and args.format == "text":
        print(f"Fixed {_count(planned.done())}.", file=sys.stderr)
    return exit_code(LintRun(lint_run.results, findings))

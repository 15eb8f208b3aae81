"""Bring each document's Mermaid block in line with its front matter, in place.

Every document is tried: one that cannot be rewritten (lint errors, a block statedoc cannot
redraw, a read-only or unwritable file, a file changed while statedoc ran) is a finding
with the block's position, and the others are still written. The edits are planned and
applied by the one plan/apply layer (:func:`generator.output.plan.plan_edits`,
:func:`generator.output.apply.apply_plan`) as in-place edits of the linted documents;
without ``write`` each drifted diagram is SD407 with its diff.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.core.findings import Finding, Severity
from generator.lint.files import LintRun
from generator.model.document import Document

if TYPE_CHECKING:  # the plan module imports the renderers: not on `statedoc lint`'s path
    from generator.output.plan import At, DocumentEdit, Plan, Problem

#: Findings that the diagram command itself repairs; any other error blocks a document.
REPAIRS = ("SD301", "SD303", "SD304", "SD305")


@dataclass
class DiagramOutcome:
    """The diagram step's plan (edits and refusals), what blocked documents, what was
    written."""

    plan: Plan
    written: int = 0
    blocked: list[Finding] = field(default_factory=list)  # findings that stopped a document
    blocked_paths: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        """Display paths of the documents rewritten (or that would be)."""
        return [change.relative for change in self.plan.changes]

    @property
    def diffs(self) -> list[str]:
        return self.plan.diffs

    @property
    def problems(self) -> list[Problem]:
        """Refusals and failed writes."""
        return self.plan.problems

    @property
    def drift(self) -> list[Finding]:
        """SD407 per changed document."""
        return [self.plan.change_finding(change) for change in self.plan.changes]

    @property
    def internal_error(self) -> bool:
        return any(p.code == "SD000" for p in self.problems)

    def findings(self, *, check: bool) -> list[Finding]:
        """Blocking lint findings, refusals, and with ``check`` each drifted diagram."""
        return self.blocked + self.plan.findings(pending=check)


def blocking(run: LintRun, path: str) -> list[Finding]:
    """Error findings of ``path`` that the diagram command does not repair itself."""
    return [
        f
        for f in run.findings
        if f.path == path and f.severity is Severity.ERROR and f.code not in REPAIRS
    ]


def _block_at(document: Document) -> At:
    """The diagram block's lines; a missing block: the ``## The Lifecycle`` heading or line 1."""
    fence = document.body.mermaid
    if fence is not None:
        return _lines(document, fence.start, fence.end)
    heading = next(
        (
            h
            for h in document.body.headings
            if h.level == 2 and h.text.casefold() == "the lifecycle"
        ),
        None,
    )
    if heading is not None:
        return _lines(document, heading.start, heading.end)
    return (1, 1, 1, 1)


def _lines(document: Document, start: int, end: int) -> At:
    """The span ``start:end`` without its closing line break (columns stay inside lines)."""
    text = document.source.text
    while end > start + 1 and text[end - 1] in "\r\n":
        end -= 1
    return (*document.source.position(start), *document.source.position(end))


def plan_diagrams(run: LintRun, paths: dict[str, Path]) -> DiagramOutcome:
    """Plan the diagram edits of every linted document; reads only.

    A document that cannot be rewritten becomes a finding; the others go on.
    """
    from generator.output.plan import REFUSED, Problem, plan_edits

    blocked: list[Finding] = []
    blocked_paths: list[str] = []
    problems: list[Problem] = []
    edits: list[DocumentEdit] = []
    for result in run.results:
        stop = blocking(run, result.path)
        if stop:
            blocked.extend(stop)
            blocked_paths.append(result.path)
            continue
        document = result.document
        if document is None:
            problems.append(
                Problem(
                    result.path,
                    1,
                    1,
                    "diagram not checked: the front matter did not load "
                    "far enough to build a model (see `statedoc lint`)",
                    REFUSED,
                )
            )
            continue
        found = _edit(document, paths[result.path])
        if isinstance(found, Problem):
            problems.append(found)
        elif found is not None:
            edits.append(found)
    plan = plan_edits(edits, problems=problems)
    return DiagramOutcome(plan, blocked=blocked, blocked_paths=blocked_paths)


def _edit(document: Document, path: Path) -> DocumentEdit | Problem | None:
    """The document's diagram edit, a refusal, or None (nothing to redraw)."""
    from generator.diagram.sync import plan
    from generator.output.plan import REFUSED, DocumentEdit, Problem

    try:
        edit = plan(document)
    except Exception as exc:  # a bug in the planner: this document only, and exit 2
        line, column, end_line, end_column = _block_at(document)
        message = f"internal error while redrawing the diagram: {type(exc).__name__}: {exc}"
        return Problem(document.path, line, column, message, "SD000", (end_line, end_column))
    # Hook: a refusal reason of the planner (unclosed or unreadable block, a rendered
    # block lint would reject) is reported here, with the block's position.
    if edit.refused is not None:
        line, column, end_line, end_column = _block_at(document)
        return Problem(
            document.path,
            line,
            column,
            f"the diagram cannot be redrawn: {edit.refused}",
            REFUSED,
            (end_line, end_column),
        )
    if edit.new is None:
        return None
    what = "is missing" if document.body.mermaid is None else "differs from the front matter"
    return DocumentEdit.of(
        document,
        path,
        edit.new,
        at=_block_at(document),
        subject="diagram",
        pending=f"the Mermaid diagram {what}; run `statedoc diagram --write` (the diff shows "
        "the change)",
    )


def sync_diagrams(
    run: LintRun, paths: dict[str, Path], *, write: bool, force: bool = False
) -> DiagramOutcome:
    """Plan (and with ``write`` apply) the diagram edits of every linted document; ``force``
    also rewrites read-only documents."""
    outcome = plan_diagrams(run, paths)
    if write:
        from generator.output.apply import apply_plan

        outcome.written, _ = apply_plan(outcome.plan, force=force)
    return outcome

"""Bring each document's Mermaid block in line with its front matter, in place.

Every document is tried: one that cannot be rewritten (lint errors, a block statedoc cannot
redraw, a read-only or unwritable file, a file changed while statedoc ran) is a finding
with the block's position, and the others are still written. Writes are atomic and happen
only when the bytes change (:mod:`generator.output.files`); without ``write`` each drifted
diagram is SD407 with its diff.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.findings import Finding, Severity
from generator.lint.files import LintRun
from generator.load.source import BOM
from generator.model.document import Document
from generator.output.files import atomic_write, unified_diff

if TYPE_CHECKING:  # the plan module imports the renderers: not on `statedoc lint`'s path
    from generator.output.plan import At, Problem

#: Findings that the diagram command itself repairs; any other error blocks a document.
REPAIRS = ("SD301", "SD303", "SD304", "SD305")


@dataclass
class DiagramOutcome:
    changed: list[str] = field(default_factory=list)  # display paths (written or would be)
    written: int = 0
    diffs: list[str] = field(default_factory=list)
    blocked: list[Finding] = field(default_factory=list)  # findings that stopped a document
    blocked_paths: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # refusals and failed writes
    drift: list[Finding] = field(default_factory=list)  # SD407 per changed document

    @property
    def refused(self) -> list[str]:
        """The refusals as ``path:line:col: message`` lines."""
        return [str(p) for p in self.problems]

    @property
    def internal_error(self) -> bool:
        return any(p.code == "SD000" for p in self.problems)

    def findings(self, *, check: bool) -> list[Finding]:
        """Blocking lint findings, refusals, and with ``check`` each drifted diagram."""
        return self.blocked + [p.finding() for p in self.problems] + (self.drift if check else [])


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


def _read_only(path: Path) -> bool:
    return not os.stat(path).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def sync_diagrams(
    run: LintRun, paths: dict[str, Path], *, write: bool, force: bool = False
) -> DiagramOutcome:
    """Plan (and with ``write`` apply) the diagram edits of every linted document.

    A document that cannot be rewritten becomes a finding; the others go on.
    """
    from generator.diagram.sync import plan
    from generator.output.plan import REFUSED, Problem

    outcome = DiagramOutcome()
    for result in run.results:
        stop = blocking(run, result.path)
        if stop:
            outcome.blocked.extend(stop)
            outcome.blocked_paths.append(result.path)
            continue
        document = result.document
        if document is None:
            outcome.problems.append(
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
        try:
            edit = plan(document)
        except Exception as exc:  # a bug in the planner: this document only, and exit 2
            line, column, end_line, end_column = _block_at(document)
            message = f"internal error while redrawing the diagram: {type(exc).__name__}: {exc}"
            outcome.problems.append(
                Problem(result.path, line, column, message, "SD000", (end_line, end_column))
            )
            continue
        # Hook: a refusal reason of the planner (unclosed or unreadable block, a rendered
        # block lint would reject) is reported here, with the block's position.
        if edit.refused is not None:
            line, column, end_line, end_column = _block_at(document)
            outcome.problems.append(
                Problem(
                    result.path,
                    line,
                    column,
                    f"the diagram cannot be redrawn: {edit.refused}",
                    REFUSED,
                    (end_line, end_column),
                )
            )
            continue
        if edit.new is None:
            continue
        _apply(outcome, result.path, paths[result.path], document, edit.new, write, force)
    return outcome


def _apply(
    outcome: DiagramOutcome,
    shown: str,
    path: Path,
    document: Document,
    new: bytes,
    write: bool,
    force: bool,
) -> None:
    from generator.output.plan import DRIFT, WRITE_FAILED, Problem, make_finding

    target = Path(os.path.realpath(path))  # through a symlinked spec to the file it names
    source = document.source
    linted = ((BOM if source.had_bom else "") + source.text).encode("utf-8")
    try:
        old = target.read_bytes()
    except OSError as exc:
        outcome.problems.append(
            Problem(shown, 1, 1, f"cannot read: {exc.strerror or exc}", WRITE_FAILED)
        )
        return
    if old == new:
        return
    at = _block_at(document)
    if old != linted:
        outcome.problems.append(
            Problem(
                shown,
                1,
                1,
                "diagram not rewritten: the file changed while statedoc ran; run it again",
                WRITE_FAILED,
            )
        )
        return
    outcome.changed.append(shown)
    outcome.diffs.append(unified_diff(old, new, shown))
    what = "is missing" if document.body.mermaid is None else "differs from the front matter"
    outcome.drift.append(
        make_finding(
            DRIFT,
            shown,
            at,
            f"the Mermaid diagram {what}; run `statedoc diagram --write` (the diff shows the "
            "change)",
        )
    )
    if not write:
        return
    try:
        if _read_only(target) and not force:
            outcome.problems.append(
                Problem(
                    shown,
                    at[0],
                    at[1],
                    "diagram not rewritten: the file is read-only; make it writable or pass "
                    "--force",
                    WRITE_FAILED,
                    (at[2], at[3]),
                )
            )
            return
        if atomic_write(target, new):
            outcome.written += 1
    except OSError as exc:
        outcome.problems.append(
            Problem(
                shown,
                at[0],
                at[1],
                f"diagram not rewritten: cannot write: {exc.strerror or exc}",
                WRITE_FAILED,
                (at[2], at[3]),
            )
        )

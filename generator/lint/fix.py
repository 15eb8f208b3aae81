"""``lint --fix``: the mechanical repairs, planned as bytes in, bytes out.

- a missing or drifted diagram (SD301, SD303-SD305) is redrawn by the same planner as
  ``diagram --write``;
- SD207 (``--against REF``): ``revision`` is raised to the value the finding asks for,
  replacing only the digits of that value, every other byte unchanged.

Only reported findings are fixed (so ``--select``/``--ignore`` and inline ignores apply), and a
fix is refused, with the reason, when an error it cannot fix is present (the spec the fix
would be computed from is wrong). Nothing here writes: ``lint --fix`` hands the new bytes to
the one plan/apply layer (:mod:`generator.output.plan`), which refuses read-only files and
files changed since lint read them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from generator.core.findings import Finding, Severity
from generator.lint.document import lint_bytes
from generator.model.document import Document

DIAGRAM = ("SD301", "SD303", "SD304", "SD305")
REVISION = "SD207"
FIXABLE = (*DIAGRAM, REVISION)
_ASKED = re.compile(r"set revision to (\d+)")


@dataclass
class Fix:
    """The outcome for one document: ``new`` bytes when something changes, and what was fixed
    or why not."""

    path: str
    old: bytes
    new: bytes | None = None
    fixed: list[Finding] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def fixable(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.code in FIXABLE]


def blocked(findings: Sequence[Finding]) -> str | None:
    """Why no fix may be computed: an error no fix repairs (the spec a fix would start
    from is wrong), or None."""
    blockers = [f for f in findings if f.severity is Severity.ERROR and f.code not in FIXABLE]
    if not blockers:
        return None
    first = blockers[0]
    more = f" and {len(blockers) - 1} more" if len(blockers) > 1 else ""
    return f"{first.code} at {first.line}:{first.column}{more} must be fixed by hand first"


def plan_fix(
    data: bytes, path: str, findings: Sequence[Finding], *, max_file_size: int | None = None
) -> Fix:
    """What ``--fix`` would do to the document ``data`` given its reported ``findings``."""
    fix = Fix(path, data)
    wanted = fixable(findings)
    if not wanted:
        return fix
    why = blocked(findings)
    if why is not None:
        fix.refused.append(why)
        return fix
    new = data
    codes = {f.code for f in wanted}
    if codes & set(DIAGRAM):
        new = _diagram(new, path, max_file_size, fix)
        if new != data:
            fix.fixed.extend(f for f in wanted if f.code in DIAGRAM)
    if REVISION in codes:
        bumped = _revision(new, path, max_file_size, [f for f in wanted if f.code == REVISION], fix)
        if bumped != new:
            fix.fixed.extend(f for f in wanted if f.code == REVISION)
            new = bumped
    fix.new = new if new != data else None
    return fix


def _document(data: bytes, path: str, max_file_size: int | None) -> Document | None:
    return lint_bytes(data, path, max_file_size=max_file_size).document


def _diagram(data: bytes, path: str, max_file_size: int | None, fix: Fix) -> bytes:
    from generator.diagram.sync import plan

    document = _document(data, path, max_file_size)
    if document is None:
        fix.refused.append("the document cannot be read")
        return data
    edit = plan(document)
    if edit.refused:
        fix.refused.append(f"diagram: {edit.refused}")
        return data
    return edit.new if edit.new is not None else data


def _revision(
    data: bytes, path: str, max_file_size: int | None, findings: list[Finding], fix: Fix
) -> bytes:
    asked = [int(m.group(1)) for f in findings if (m := _ASKED.search(f.message))]
    document = _document(data, path, max_file_size)
    if not asked or document is None:
        fix.refused.append("revision: cannot tell which revision to set")
        return data
    span = document.span(("revision",))
    text = document.source.text
    current = text[span.start : span.end]
    if not re.fullmatch(r"[0-9]+", current):
        fix.refused.append(f"revision: {current!r} is not a plain number; set it by hand")
        return data
    value = max(asked)
    if int(current) >= value:
        return data
    new_text = text[: span.start] + str(value) + text[span.end :]
    return ("\ufeff" if document.source.had_bom else "").encode() + new_text.encode("utf-8")

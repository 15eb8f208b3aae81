"""Code actions: the ``lint --fix`` repairs as quick fixes, "fix all", and "ignore this finding".

A fix is :func:`generator.lint.fix.plan_fix` itself (the diagram redrawn or edited in the
author's style, the SD207 revision bump), offered as the smallest edit that turns the buffer
into its result. "Ignore" writes the inline comment statedoc honours
(:mod:`generator.lint.suppression`) on the finding's line: ``# statedoc: ignore[CODE]`` in
the front matter, ``%% statedoc: ignore[CODE]`` in the Mermaid block. It is offered only when
a lint of the edited text shows that finding gone and nothing new, so it never lands inside a
quoted value or where Mermaid would read it as label text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lsprotocol import types

from generator.core.findings import Finding
from generator.lint.fix import DIAGRAM, FIXABLE, REVISION, plan_fix
from generator.load.source import Span
from generator.server.analysis import encode
from generator.server.diagnostics import Outcome, Target, diagnostic, own, with_project
from generator.server.positions import Lines
from generator.server.rename import workspace_edit
from generator.server.session import Session

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.statedoc"
_DIRECTIVE = re.compile(r"(?:#|%%)\s*statedoc:\s*ignore\[([^\]\r\n]*)\]")
_TITLES = {
    "diagram": "Update the Mermaid diagram from the front matter (statedoc lint --fix)",
    "revision": "Raise revision as SD207 asks (statedoc lint --fix)",
}


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _wanted(only: Sequence[str] | None, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def minimal_edit(lines: Lines, old: str, new: str) -> types.TextEdit:
    """The one edit that turns ``old`` into ``new``: what lies between their common prefix
    and common suffix."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return types.TextEdit(lines.range(Span(start, len(old) - end)), new[start : len(new) - end])


def _fixed(text: str, target: Target, findings: list[Finding]) -> str | None:
    fix = plan_fix(
        encode(text), target.spec.display, findings, max_file_size=target.settings.max_file_size
    )
    if fix.new is None:
        return None
    fixed = fix.new.decode("utf-8", "surrogatepass")
    if fixed.startswith("\ufeff") and not text.startswith("\ufeff"):
        fixed = fixed[1:]  # the buffer has no BOM (the editor keeps it apart): nor does the fix
    return fixed


def _with_directive(text: str, lines: Lines, finding: Finding, comment: str) -> str:
    index = finding.line - 1
    line = lines.line(index)
    start = lines.starts[index]
    found = _DIRECTIVE.search(line)
    if found is not None and found.group()[0] == comment[0] and found.group(1).strip():
        at = start + found.end(1)
        return f"{text[:at]}, {finding.code}{text[at:]}"
    at = start + len(line)
    space = "" if not line or line[-1] in " \t" else "  "
    return f"{text[:at]}{space}{comment} statedoc: ignore[{finding.code}]{text[at:]}"


def _ignore(
    session: Session, uri: str, text: str, lines: Lines, outcome: Outcome, finding: Finding
) -> str | None:
    """The text with ``finding`` silenced inline, if a lint of it shows exactly that."""
    target = outcome.target
    assert target is not None
    before = Counter((f.code, f.line, f.message) for f in outcome.findings)
    for comment in ("#", "%%"):
        candidate = _with_directive(text, lines, finding, comment)
        after = with_project(
            own(candidate, target),
            candidate,
            session.settings,
            session.projects,
            session.open_facts,
        )
        if after.error is not None:
            continue
        gone = not any(f.code == finding.code and f.line == finding.line for f in after.findings)
        counts = Counter((f.code, f.line, f.message) for f in after.findings)
        if gone and all(counts[k] <= before[k] for k in counts):
            return candidate
    return None


def code_actions(
    session: Session, uri: str, version: int | None, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    buffer = session.buffer(uri, version)
    outcome = session.outcome(uri, buffer)
    target = outcome.target
    if outcome.error is not None or target is None or not outcome.findings:
        return None
    text, lines = buffer.text, session.lines(buffer.text)
    only = params.context.only
    here = [f for f in outcome.findings if _overlaps(lines.finding_range(f), params.range)]
    actions: list[types.CodeAction] = []

    def action(title: str, kind: str, new: str, about: list[Finding]) -> types.CodeAction:
        edit = minimal_edit(lines, text, new)
        return types.CodeAction(
            title=title,
            kind=kind,
            diagnostics=[diagnostic(f, lines, uri) for f in about] or None,
            edit=workspace_edit(session, uri, version, [edit]),
            is_preferred=kind == types.CodeActionKind.QuickFix.value or None,
        )

    if _wanted(only, types.CodeActionKind.QuickFix.value):
        for group, codes in (("diagram", DIAGRAM), ("revision", (REVISION,))):
            about = [f for f in here if f.code in codes]
            if not about:
                continue
            keep = [f for f in outcome.findings if f.code not in FIXABLE or f.code in codes]
            fixed = _fixed(text, target, keep)
            if fixed is not None:
                actions.append(
                    action(_TITLES[group], types.CodeActionKind.QuickFix.value, fixed, about)
                )
        for finding in here:
            if finding.code == "SD000":
                continue  # an internal error is never silenced
            silenced = _ignore(session, uri, text, lines, outcome, finding)
            if silenced is not None:
                actions.append(
                    types.CodeAction(
                        title=f"Ignore {finding.code} on line {finding.line} "
                        f"(statedoc: ignore[{finding.code}])",
                        kind=types.CodeActionKind.QuickFix.value,
                        diagnostics=[diagnostic(finding, lines, uri)],
                        edit=workspace_edit(
                            session, uri, version, [minimal_edit(lines, text, silenced)]
                        ),
                    )
                )
    if _wanted(only, FIX_ALL) and any(f.code in FIXABLE for f in outcome.findings):
        fixed = _fixed(text, target, outcome.findings)
        if fixed is not None:
            fixes = [f for f in outcome.findings if f.code in FIXABLE]
            actions.append(
                action("Fix all statedoc findings that lint --fix can fix", FIX_ALL, fixed, fixes)
            )
    return actions

"""``path:line:col: CODE message``, one finding a line, like ruff and compilers."""

from __future__ import annotations

from generator.core.findings import Severity
from generator.report import Run, printable


def render(run: Run) -> str:
    lines = []
    for finding in run.findings:
        suffix = " (warning)" if finding.severity is Severity.WARNING else ""
        message = finding.message
        for related in finding.related:  # one finding a line: related places join the message
            message += f" ({related.message} at {related.line}:{related.column})"
        path, message = printable(finding.path), printable(message)
        lines.append(f"{path}:{finding.line}:{finding.column}: {finding.code} {message}{suffix}")
    return "".join(line + "\n" for line in lines)


def summary(run: Run) -> str:
    """One closing line for people (stderr), never part of the parseable output."""
    errors = sum(1 for f in run.findings if f.severity is Severity.ERROR)
    return counted_summary(errors, len(run.findings) - errors, len(run.files))


def counted_summary(errors: int, warnings: int, files: int) -> str:
    """:func:`summary` from counts (a streamed run keeps no findings)."""
    checked = f"{files} file{'s' if files != 1 else ''} checked"
    if not errors and not warnings:
        return f"All clean: {checked}."
    return f"Found {_plural(errors, 'error')} and {_plural(warnings, 'warning')} ({checked})."


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"

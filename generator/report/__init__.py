"""Reporters: findings -> text for people and CI systems. Pure functions of their input."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from generator.findings import Finding

FORMATS = ("text", "json", "github", "sarif", "junit")


@dataclass(frozen=True)
class Run:
    """What a reporter may need besides findings: which files were checked, by which version."""

    findings: Sequence[Finding]
    files: Sequence[str]
    tool_version: str


def render(fmt: str, run: Run) -> str:
    """The report in ``fmt``; each reporter module imports only what it needs."""
    renderer: Callable[[Run], str]
    if fmt == "text":
        from generator.report.text import render as renderer
    elif fmt == "json":
        from generator.report.json import render as renderer
    elif fmt == "github":
        from generator.report.github import render as renderer
    elif fmt == "sarif":
        from generator.report.sarif import render as renderer
    elif fmt == "junit":
        from generator.report.junit import render as renderer
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return renderer(run)

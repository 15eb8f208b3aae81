"""GitHub Actions workflow commands, escaped exactly as @actions/core does (command.ts)."""

from __future__ import annotations

from generator.core.findings import Severity
from generator.report import Run, printable


def escape_data(text: str) -> str:
    text = printable(text, keep_breaks=True)  # undecodable file-name bytes as \xff
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(run: Run) -> str:
    lines = []
    for f in run.findings:
        command = "error" if f.severity is Severity.ERROR else "warning"
        props = {
            "file": printable(f.path),
            "line": str(f.line),
            "col": str(f.column),
            "endLine": str(f.end_line),
            "endColumn": str(f.end_column),
            "title": f"{f.code} {f.name}",
        }
        rendered = ",".join(f"{key}={escape_property(value)}" for key, value in props.items())
        lines.append(f"::{command} {rendered}::{escape_data(f.code + ' ' + f.message)}")
    return "".join(line + "\n" for line in lines)

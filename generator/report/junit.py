"""JUnit XML: one test case per file, one failure per error (warnings in system-out).

CI systems (GitLab, Jenkins, Azure) render this as a test report, so a clean file is a passing
test and a file with errors is a failing one.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

from generator.core.findings import Finding, Severity
from generator.report import Run

_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    """XML 1.0 cannot hold control characters at all, escaped or not."""
    return _XML_UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable file-name byte (surrogateescape): the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _line(f: Finding) -> str:
    return _clean(f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}")


def render(run: Run) -> str:
    by_file: dict[str, list[Finding]] = {path: [] for path in run.files}
    for finding in run.findings:
        by_file.setdefault(finding.path, []).append(finding)
    failed = sum(
        1 for items in by_file.values() if any(f.severity is Severity.ERROR for f in items)
    )
    suites = ET.Element(
        "testsuites", name="statedoc", tests=str(len(by_file)), failures=str(failed)
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="statedoc lint",
        tests=str(len(by_file)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    for path, items in by_file.items():
        case = ET.SubElement(suite, "testcase", classname="statedoc", name=_clean(path))
        failing = [f for f in items if f.severity is Severity.ERROR]
        if failing:
            failure = ET.SubElement(
                case,
                "failure",
                type=failing[0].code,
                message=_clean(
                    f"{len(failing)} error(s); first: {failing[0].code} {failing[0].message}"
                ),
            )
            failure.text = "\n".join(_line(f) for f in failing)
        warnings = [f for f in items if f.severity is Severity.WARNING]
        if warnings:
            ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in warnings)
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )

"""Reporters: each format is what its consumer reads."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from sample_documents import DOOR, document, lint_text

from generator.core.findings import Finding, Related, Severity
from generator.report import Run, render

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _findings() -> list[Finding]:
    broken = DOOR.replace("to: closed,", "to: shut,") + "status: x\n"
    findings = lint_text(document(broken), "specs/a b/door.md").findings
    findings.append(
        Finding(
            "specs/x:y,z.md",
            3,
            4,
            3,
            9,
            "SD111",
            "self-transition",
            Severity.WARNING,
            "100% odd\r\nsecond line: a, b",
            (Related(2, 1, "see here"),),
        )
    )
    return findings


def test_text_format_is_one_line_per_finding() -> None:
    run = Run(_findings(), ["specs/a b/door.md"], "0")
    lines = render("text", run).splitlines()
    assert lines[0] == (
        "specs/a b/door.md:16:1: SD004 duplicate key 'status' (first defined here at 8:1)"
    )
    assert len(lines) == len(run.findings)  # one finding a line
    assert lines[-1] == (
        "specs/x:y,z.md:3:4: SD111 100% odd\\r\\nsecond line: a, b (see here at 2:1) (warning)"
    )


def test_json_format_has_the_contract_keys() -> None:
    data = json.loads(render("json", Run(_findings(), [], "0")))
    assert isinstance(data, list) and data
    for item in data:
        assert {
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "code",
            "name",
            "severity",
            "message",
        } <= set(item)
        assert item["severity"] in ("error", "warning")
    assert data[0]["code"] == "SD004" and data[0]["line"] == 16


def test_github_format_escapes_like_the_actions_toolkit() -> None:
    finding = Finding(
        "a:b,c%.md", 3, 4, 3, 9, "SD111", "self-transition", Severity.WARNING, "100% odd\r\nx: a, b"
    )
    out = render("github", Run([finding], [], "0"))
    assert out == (
        "::warning file=a%3Ab%2Cc%25.md,line=3,col=4,endLine=3,endColumn=9,"
        "title=SD111 self-transition::SD111 100%25 odd%0D%0Ax: a, b\n"
    )


def test_github_errors_use_the_error_command() -> None:
    out = render("github", Run(_findings()[:1], [], "0"))
    assert out.startswith("::error file=specs/a b/door.md,line=16,col=1,")


def test_sarif_validates_against_the_official_schema() -> None:
    from jsonschema import validators

    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    validator = validators.validator_for(schema)(schema)
    log = json.loads(render("sarif", Run(_findings(), ["specs/a b/door.md"], "1.2.3")))
    errors = [e.message for e in validator.iter_errors(log)]
    assert errors == []
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    first = run["results"][0]
    assert (
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "specs/a%20b/door.md"
    )
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == 16


def test_sarif_schema_fixture_rejects_a_broken_log() -> None:
    """The schema check above can fail: a log without runs is rejected."""
    from jsonschema import validators

    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    validator = validators.validator_for(schema)(schema)
    assert list(validator.iter_errors({"version": "2.0"}))


def test_junit_is_well_formed_with_a_case_per_file() -> None:
    findings = _findings()
    findings.append(Finding("c.md", 1, 1, 1, 2, "SD003", "yaml-syntax", Severity.ERROR, "bad \x01"))
    xml = render("junit", Run(findings, ["specs/a b/door.md", "clean.md", "c.md"], "0"))
    root = ET.fromstring(xml.encode())
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"specs/a b/door.md", "clean.md", "c.md", "specs/x:y,z.md"}
    assert cases["clean.md"].find("failure") is None
    failure = cases["specs/a b/door.md"].find("failure")
    assert failure is not None and "SD004" in (failure.text or "")
    assert cases["specs/x:y,z.md"].find("failure") is None  # warnings only
    assert root.get("failures") == "2"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_empty_runs_render(fmt: str) -> None:
    out = render(fmt, Run([], ["a.md"], "0"))
    assert isinstance(out, str)
    if fmt in ("text", "github"):
        assert out == ""


def test_sarif_carries_a_code_no_rule_of_statedoc_has() -> None:
    """A plugin target reports codes of its own: the log stays valid, with no ruleIndex."""
    from jsonschema import validators

    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    validator = validators.validator_for(schema)(schema)
    finding = Finding(
        "specs/door.md", 1, 1, 1, 2, "CSV001", "csv-header", Severity.ERROR, "no header", ()
    )
    log = json.loads(render("sarif", Run([*_findings(), finding], ["specs/door.md"], "1.2.3")))
    assert [e.message for e in validator.iter_errors(log)] == []
    result = log["runs"][0]["results"][-1]
    assert result["ruleId"] == "CSV001" and "ruleIndex" not in result
    assert result["level"] == "error" and result["message"]["text"] == "no header"

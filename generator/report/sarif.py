"""SARIF 2.1.0, as GitHub code scanning and other tools read it.

Columns are code points (``columnKind: unicodeCodePoints``), the same numbers the text format
prints; paths are relative URIs so results survive checkouts in different folders.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from generator.core.findings import Finding, Severity
from generator.report import Run, json_text, printable

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    """A relative URI: the name's bytes percent-encoded (an undecodable byte of a file name,
    kept by surrogateescape, becomes ``%FF``, as RFC 3986 does for any octet)."""
    return quote(os.fsencode(path.replace("\\", "/")))


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _result(f: Finding, index: dict[str, int]) -> dict[str, object]:
    location = {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(f.path)},
            "region": _region(f.line, f.column, f.end_line, max(f.end_column, 1)),
        }
    }
    result: dict[str, object] = {"ruleId": f.code}
    if f.code in index:  # a plugin target's own code has no entry in statedoc's rule list
        result["ruleIndex"] = index[f.code]
    result |= {
        "level": "error" if f.severity is Severity.ERROR else "warning",
        "message": {"text": printable(f.message, keep_breaks=True)},
        "locations": [location],
    }
    if f.related:
        result["relatedLocations"] = [
            {
                "id": number,
                "message": {"text": printable(r.message, keep_breaks=True)},
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": r.line, "startColumn": r.column},
                },
            }
            for number, r in enumerate(f.related)
        ]
    return result


def render(run: Run) -> str:
    from generator.rules import all_rules

    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "statedoc",
                        "version": run.tool_version,
                        "informationUri": "https://github.com/statedoc/statedoc",
                        "rules": [
                            {
                                "id": r.code,
                                "name": r.name,
                                "shortDescription": {"text": r.summary},
                                "fullDescription": {"text": r.why},
                                "defaultConfiguration": {
                                    "level": "error" if r.severity is Severity.ERROR else "warning"
                                },
                            }
                            for r in rules
                        ],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "artifacts": [{"location": {"uri": _uri(p)}} for p in run.files],
                "results": [_result(f, index) for f in run.findings],
            }
        ],
    }
    return json_text(log)

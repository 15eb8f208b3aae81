"""Findings: what every stage reports, in one shape, so reporters need not care who found it."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class Severity(StrEnum):
    """Error findings fail the run (exit 1); warnings are shown but do not."""

    ERROR = "error"
    WARNING = "warning"


class Related(NamedTuple):
    """A second place that explains a finding (the first of two duplicate keys, say)."""

    line: int
    column: int
    message: str


class Finding(NamedTuple):
    """One diagnostic; lines and columns are 1-based and point into the original file.

    A NamedTuple, as the other records on the lint path: :mod:`dataclasses` would add its
    import and a compile per class to every start of ``statedoc lint``."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    severity: Severity
    message: str
    related: tuple[Related, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.message)

    def to_dict(self) -> dict[str, object]:
        """The JSON report shape of the contract (also what the cache stores)."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "related": [
                {"line": r.line, "column": r.column, "message": r.message} for r in self.related
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Finding:
        related = data.get("related") or []
        assert isinstance(related, list)
        return cls(
            path=str(data["path"]),
            line=int(str(data["line"])),
            column=int(str(data["column"])),
            end_line=int(str(data["end_line"])),
            end_column=int(str(data["end_column"])),
            code=str(data["code"]),
            name=str(data["name"]),
            severity=Severity(str(data["severity"])),
            message=str(data["message"]),
            related=tuple(
                Related(int(r["line"]), int(r["column"]), str(r["message"])) for r in related
            ),
        )

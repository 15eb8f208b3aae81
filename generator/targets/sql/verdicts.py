"""The verdict records of ``statedoc db check``: one problem per code and object, one listing
line per installed object, and the comment verdicts every object shares (SD123 missing, SD124
stale, SD128 newer). Shared by :mod:`.verify` and :mod:`.history_check`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from generator.targets.sql.compare import UNVERIFIED, Diff
from generator.targets.sql.installed import Comment
from generator.targets.sql.plan import SqlPlan

MISSING, STALE, UNKNOWN, NEWER = "SD123", "SD124", "SD127", "SD128"
APPLY = "apply the generated .postgresql.sql"


@dataclass(frozen=True)
class Problem:
    code: str
    spec_id: str | None  # None: no spec of the repository generates the object
    message: str


@dataclass(frozen=True)
class Entry:
    """One ``installed:`` line: an object the database holds and the codes found on it."""

    kind: str
    name: str
    provenance: str
    codes: tuple[str, ...]

    def line(self) -> str:
        if not self.codes:
            verdict = "matches the repository"
        elif all(code == UNVERIFIED for code in self.codes):
            verdict = f"matches as far as it could be verified ({UNVERIFIED})"
        else:
            verdict = f"does not match ({', '.join(self.codes)})"
        return f"installed: {self.kind} {self.name} ({self.provenance}): {verdict}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)


@dataclass
class Verdict:
    """What is found about one installed object while it is judged."""

    report: Report
    spec_id: str | None
    kind: str
    name: str
    provenance: str
    label: str  # "trigger x on public.t": how messages name it
    codes: list[str] = field(default_factory=list)
    diffs: dict[str, list[str]] = field(default_factory=dict)

    def add(self, code: str, message: str) -> None:
        self.report.problems.append(Problem(code, self.spec_id, message))
        if code not in self.codes:
            self.codes.append(code)

    def differ(self, diffs: Iterable[Diff]) -> None:
        for code, text in diffs:
            self.diffs.setdefault(code, []).append(text)

    def close(self) -> None:
        prefix = f"{self.spec_id}: " if self.spec_id else ""
        for code, texts in self.diffs.items():
            if code == UNVERIFIED:
                text = f"{prefix}the {self.label} could not be fully verified: {'; '.join(texts)}"
            else:
                text = f"{prefix}the {self.label} {'; '.join(texts)}: {APPLY}"
            self.add(code, text)
        self.report.entries.append(Entry(self.kind, self.name, self.provenance, tuple(self.codes)))


def provenance(comment: Comment | None) -> str:
    return comment.label if comment is not None else "no statedoc comment"


def comment_verdict(obj: Verdict, plan: SqlPlan, comment: Comment | None) -> bool:
    """SD128/SD124 from the comment; True when the definition must be judged too (the
    comment is current, or missing: then nothing explains a difference)."""
    spec, what = plan.spec, obj.label
    if comment is not None and comment.spec_id == spec.id and comment.revision > spec.revision:
        obj.add(
            NEWER,
            f"{spec.id}: the database holds revision {comment.revision} of this spec ({what}); "
            f"the repository has revision {spec.revision}: update the repository, or apply "
            "its file with statedoc.allow_downgrade = on to go back",
        )
        return False
    if comment is None:
        obj.add(
            STALE,
            f"{spec.id}: the {what} carries no statedoc comment, so nothing says which "
            f"revision it enforces: {APPLY}",
        )
        return True
    if comment.spec_id != spec.id:
        obj.add(
            STALE,
            f"{spec.id}: the {what} was generated from spec {comment.spec_id} revision "
            f"{comment.revision}, not from this one: {APPLY}",
        )
        return False
    if comment.sha256 != plan.sha256:
        obj.add(
            STALE,
            f"{spec.id}: the {what} was generated from sha256 {comment.sha256}, the spec now "
            f"has {plan.sha256}: {APPLY}",
        )
        return False
    return True


def missing(report: Report, plan: SqlPlan, label: str, why: str = APPLY) -> None:
    report.problems.append(
        Problem(MISSING, plan.spec.id, f"{plan.spec.id}: the {label} is not installed: {why}")
    )

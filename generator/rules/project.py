"""Rules that look across documents or across versions: registered here, run by the linter."""

from __future__ import annotations

from generator.core.findings import Severity
from generator.rules import Rule, register
from generator.rules.examples import BODY, DOOR, HEADER

register(
    Rule(
        "SD204",
        "duplicate-spec-id",
        Severity.ERROR,
        "two documents share an `id`",
        "Ids name specs across the repo (diffs, generated SPEC_ID); two documents with one id "
        "make every reference ambiguous. Reported on each document after the first (by path).",
        f"---\n{HEADER}{DOOR}---\n{BODY}\n(and another document with id: STATE-EX-DOR-001)\n",
        f"---\n{HEADER.replace('DOR-001', 'DOR-002')}{DOOR}---\n{BODY}",
        scope="project",
    )
)
register(
    Rule(
        "SD207",
        "revision-not-bumped",
        Severity.ERROR,
        "only with `lint --against GIT_REF`: the spec's semantics changed since that ref but "
        "`revision` did not increase",
        "Generated code exports SPEC_REVISION; services rely on it to notice a changed lifecycle.",
        f"---\n{HEADER}{DOOR}  - {{from: open, to: open, trigger: wedge}}\n---\n{BODY}"
        "\n(against a ref where the spec had revision 1 and no such transition)\n",
        f"---\n{HEADER.replace('revision: 1', 'revision: 2')}{DOOR}"
        f"  - {{from: open, to: open, trigger: wedge}}\n---\n{BODY}",
        scope="against",
    )
)

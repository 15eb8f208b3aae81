"""``db audit``'s own report: a table per spec for people, and JSON for dashboards.

The findings go through the shared reporters (every ``--format``); this is what they do not
carry: rows per state, how often each declared transition happened, the coverage. Every text
from the database or a spec is data here: escaped to one printable line in the table
(:func:`generator.report.printable`), a JSON string in the JSON.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from generator.targets.sql.audit_findings import (
    coverage,
    pair_text,
    percent,
    rows_text,
    total_coverage,
    window_label,
)
from generator.targets.sql.names import comment_line as printable

if TYPE_CHECKING:
    from generator.core.findings import Finding
    from generator.targets.sql.audit_model import SpecAudit, Window

#: The widest a name column of the table grows (longer names are cut).
WIDEST = 40
NO_STATE = "(no state)"


def _cell(text: str, width: int) -> str:
    text = printable(text)
    return text if len(text) <= width else text[: width - 3] + "..."


def _when(moment: dt.datetime | None) -> str:
    return "-" if moment is None else moment.isoformat(timespec="seconds")


def render_text(audits: Sequence[SpecAudit], window: Window, unbound: Sequence[str] = ()) -> str:
    """A block per spec: its table, rows per state, and with history the transitions."""
    lines: list[str] = []
    for audit in audits:
        plan = audit.plan
        assert plan.binding is not None
        head = f"{plan.spec.id} {plan.spec.title} (revision {plan.spec.revision})"
        if audit.table is None:
            lines.append(printable(f"{head}: not read"))
        else:
            where = f"{audit.table[0]}.{audit.table[1]}.{plan.binding.column}"
            lines.append(printable(f"{head}: {where}, {rows_text(audit.total)}"))
            names = [*plan.states, *([NO_STATE] if audit.unknown_rows else [])]
            width = min(WIDEST, max(len("state"), *(len(printable(n)) for n in names)))
            lines.append(f"  {'state':<{width}}  {'rows':>9}")
            for state in plan.states:
                lines.append(f"  {_cell(state, width):<{width}}  {audit.states[state]:>9}")
            if audit.unknown_rows:
                lines.append(f"  {NO_STATE:<{width}}  {audit.unknown_rows:>9}")
        lines += _history_lines(audit, window)
        lines += [printable(f"  not read: {problem}") for problem in audit.problems]
    lines += [printable(f"{spec_id}: no table bound to it: not audited") for spec_id in unbound]
    covered, total = total_coverage(audits)
    if any(a.history is not None for a in audits):
        lines.append(
            f"TOTAL production transition coverage {covered}/{total} "
            f"({percent(covered, total):.2f}%)"
        )
    return "".join(line + "\n" for line in lines)


def _history_lines(audit: SpecAudit, window: Window) -> list[str]:
    measured = coverage(audit)
    facts = audit.history
    if measured is None or facts is None:
        return ["  history: off (coverage not measured)"] if not audit.plan.history else []
    lines = [
        printable(
            f"  history {facts.table[0]}.{facts.table[1]}, {window_label(window)}: "
            f"{facts.inserts} inserts, {facts.updates} changes, {facts.migrations} migrated"
        )
    ]
    texts = [pair_text(*c.pair) for c in measured.transitions]
    width = min(WIDEST, max([len("transition"), *(len(printable(t)) for t in texts)]))
    lines.append(f"  {'transition':<{width}}  {'times':>9}  {'last':<25}  provenance")
    for item, text in zip(measured.transitions, texts, strict=True):
        claims = printable(", ".join(c or "-" for c in item.provenance))
        lines.append(
            f"  {_cell(text, width):<{width}}  {item.times:>9}  {_when(item.last):<25}  {claims}"
        )
    never = ", ".join(pair_text(*p) for p in measured.never) or "-"
    lines.append(
        printable(
            f"  coverage {measured.covered}/{measured.total} ({measured.percent:.2f}%); "
            f"never: {never}"
        )
    )
    if measured.self_loops:
        loops = ", ".join(pair_text(*p) for p in measured.self_loops)
        lines.append(printable(f"  not measurable (a self-loop changes no state): {loops}"))
    if facts.disallowed_pairs:
        lines.append(
            f"  not allowed: {facts.disallowed_pairs} pair(s) in {facts.disallowed_rows} "
            "history row(s) (SD142)"
        )
    return lines


def as_json(
    audits: Sequence[SpecAudit],
    window: Window,
    *,
    database: str,
    findings: Sequence[Finding],
    fail_under: float | None,
    unbound: Sequence[str] = (),
) -> dict[str, Any]:
    """The whole audit as one JSON value (``db audit --json FILE``)."""
    covered, total = total_coverage(audits)
    return {
        "database": database,
        "since": window.given,
        "window_start": None if window.start is None else window.start.isoformat(),
        "coverage": {
            "covered": covered,
            "total": total,
            "percent": round(percent(covered, total), 2),
            "fail_under": fail_under,
            "measured": any(a.history is not None for a in audits),
        },
        "specs": [_spec_json(audit) for audit in audits],
        "unbound": list(unbound),
        "findings": [f.to_dict() for f in findings],
    }


def _spec_json(audit: SpecAudit) -> dict[str, Any]:
    plan = audit.plan
    assert plan.binding is not None
    rows = None
    if audit.table is not None:
        rows = {
            "total": audit.total,
            "states": dict(audit.states),
            "unknown": {
                "rows": audit.unknown_rows,
                "values": audit.unknown_values,
                "shown": [
                    {"value": u.value, "rows": u.rows, "examples": list(u.examples)}
                    for u in audit.unknown
                ],
            },
        }
    return {
        "id": plan.spec.id,
        "title": plan.spec.title,
        "path": plan.source,
        "revision": plan.spec.revision,
        "table": {
            "schema": None if audit.table is None else audit.table[0],
            "name": plan.binding.table if audit.table is None else audit.table[1],
            "column": plan.binding.column,
            "key": list(plan.binding.key),
        },
        "rows": rows,
        "history": _history_json(audit) if plan.history else None,
        "problems": list(audit.problems),
    }


def _history_json(audit: SpecAudit) -> dict[str, Any] | None:
    measured = coverage(audit)
    facts = audit.history
    if measured is None or facts is None:
        return None
    return {
        "table": {"schema": facts.table[0], "name": facts.table[1]},
        "inserts": facts.inserts,
        "updates": facts.updates,
        "migrations": facts.migrations,
        "transitions": [
            {
                "from": c.pair[0],
                "to": c.pair[1],
                "times": c.times,
                "last": None if c.last is None else c.last.isoformat(),
                "provenance": list(c.provenance),
            }
            for c in measured.transitions
        ],
        "not_measurable": [{"from": a, "to": b} for a, b in measured.self_loops],
        "covered": measured.covered,
        "total": measured.total,
        "percent": round(measured.percent, 2),
        "never": [{"from": a, "to": b} for a, b in measured.never],
        "disallowed": {
            "pairs": facts.disallowed_pairs,
            "rows": facts.disallowed_rows,
            "shown": [
                {
                    "from": d.from_state,
                    "to": d.to_state,
                    "rows": d.rows,
                    "last": None if d.last is None else d.last.isoformat(),
                    "revisions": list(d.revisions),
                    "examples": list(d.examples),
                }
                for d in facts.disallowed
            ],
        },
    }


__all__ = ["as_json", "render_text"]

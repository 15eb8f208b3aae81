"""What ``db audit`` read, judged: production transition coverage and one finding a problem.

- SD140 a table or history that could not be read (missing, no privilege, timed out);
- SD141 rows holding a value that is no state of the repository's revision, one finding per
  value (NULL is one), with its row count and the first keys;
- SD142 a recorded change the spec does not allow, one finding per pair;
- SD143 a transition the spec calls ``planned`` (every transition of that pair) that
  production performed; SD144 a spec whose ``implementation_evidence`` is ``not-implemented``
  whose rows changed state; SD145 a transition the spec calls ``observed`` that never happened
  in the window (warnings: the spec's claims, held against production);
- SD146 production transition coverage below ``--fail-under``.

Coverage, as the pytest plugin's ``--statedoc-fail-under``: covered items over all items, of
every spec with history read, 100% when there are none to measure; the items are the declared
pairs (transitions that differ only by event share a pair, as in the generated SQL). A declared
self-loop is not measurable (the history records changes of state only) and is left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from generator.core.findings import Finding
from generator.targets.sql.audit_history import declared_pairs

if TYPE_CHECKING:
    import datetime as dt

    from generator.load.strict_yaml import Path
    from generator.model.document import Document
    from generator.model.spec import Transition
    from generator.targets.sql.audit_model import SpecAudit, Window

Pair = tuple[str, str]
#: Characters of one value or key a message quotes (they come from the database).
QUOTED = 60
NOT_IMPLEMENTED = "not-implemented"


@dataclass(frozen=True)
class Covered:
    """One declared pair in production: how often, when last, and what the spec claims."""

    pair: Pair
    times: int
    last: dt.datetime | None
    provenance: tuple[str, ...]  # of each transition with this pair ("" when not given)


@dataclass(frozen=True)
class SpecCoverage:
    transitions: tuple[Covered, ...]  # measurable pairs, in spec order
    self_loops: tuple[Pair, ...]  # declared, not measurable

    @property
    def covered(self) -> int:
        return sum(1 for t in self.transitions if t.times)

    @property
    def total(self) -> int:
        return len(self.transitions)

    @property
    def never(self) -> list[Pair]:
        return [t.pair for t in self.transitions if not t.times]

    @property
    def percent(self) -> float:
        return percent(self.covered, self.total)


def percent(covered: int, total: int) -> float:
    return 100.0 if total == 0 else 100.0 * covered / total


def transitions_by_pair(audit: SpecAudit) -> dict[Pair, list[Transition]]:
    found: dict[Pair, list[Transition]] = {}
    for transition in audit.plan.spec.transitions:
        found.setdefault(transition.pair, []).append(transition)
    return found


def coverage(audit: SpecAudit) -> SpecCoverage | None:
    """The spec's production coverage, or None without history read."""
    if audit.history is None:
        return None
    by_pair = transitions_by_pair(audit)
    measured: list[Covered] = []
    loops: list[Pair] = []
    for pair in declared_pairs(audit.plan):
        if pair[0] == pair[1]:
            loops.append(pair)
            continue
        times, last = audit.history.declared.get(pair, (0, None))
        claims = tuple(t.provenance or "" for t in by_pair.get(pair, ()))
        measured.append(Covered(pair, times, last, claims))
    return SpecCoverage(tuple(measured), tuple(loops))


def total_coverage(audits: Sequence[SpecAudit]) -> tuple[int, int]:
    """(covered, total) over every spec with history read."""
    found = [c for c in map(coverage, audits) if c is not None]
    return sum(c.covered for c in found), sum(c.total for c in found)


# --- wording -------------------------------------------------------------------------------


def quoted(value: object) -> str:
    """A value from the database as JSON text (NULL for None), cut to :data:`QUOTED`, with
    every character that is not printable (line and paragraph separators, bidi controls,
    C1 controls) written as a JSON ``\\uXXXX`` escape: one line in any report or terminal."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        cut = len(value) > QUOTED
        text = json.dumps(value[:QUOTED], ensure_ascii=False)
        return _visible(text[:-1] + '..."' if cut else text)
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return _visible(text if len(text) <= QUOTED else text[:QUOTED] + "...")


def _visible(text: str) -> str:
    return "".join(
        c if c.isprintable() else "".join(f"\\u{unit:04x}" for unit in _utf16(c)) for c in text
    )


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def pair_text(old: str | None, new: str) -> str:
    return f"{'INSERT' if old is None else quoted(old)} -> {quoted(new)}"


def window_text(window: Window) -> str:
    if window.start is None:
        return "the whole history"
    return f"the history since {window.start.isoformat()} (--since {window.given})"


def window_label(window: Window) -> str:
    """The window for a table heading: ``all rows`` or ``since ... (--since ...)``."""
    if window.start is None:
        return "all rows"
    return f"since {window.start.isoformat(timespec='seconds')} (--since {window.given})"


def _times(n: int) -> str:
    return f"{n} time{'s' if n != 1 else ''}"


def rows_text(n: int) -> str:
    return f"{n} row{'s' if n != 1 else ''}"


# --- findings ------------------------------------------------------------------------------

At = Callable[[str, "Path", str], Finding]


def audit_findings(audit: SpecAudit, document: Document, window: Window) -> list[Finding]:
    """Every finding about one spec (each at the front matter node it concerns)."""
    from generator.targets.sql.findings import finding_at

    def at(code: str, path: Path, message: str) -> Finding:
        return finding_at(document, code, path, f"{audit.plan.spec.id}: {message}")

    binding = ("storage",) if audit.plan.spec.storage is not None else ("id",)
    found = [at("SD140", binding, problem) for problem in audit.problems]
    found += _unknown_findings(audit, binding, at)
    if audit.history is not None:
        found += _history_findings(audit, window, at)
    return found


def _unknown_findings(audit: SpecAudit, binding: Path, at: At) -> list[Finding]:
    if audit.table is None or not audit.unknown_rows:
        return []
    assert audit.plan.binding is not None
    spec = audit.plan.spec
    where = f"{audit.table[0]}.{audit.table[1]}.{audit.plan.binding.column}"
    retired = {r.state: r for r in spec.retired}
    found = []
    for item in audit.unknown:
        note = ""
        entry = None if item.value is None else retired.get(item.value)
        if entry is not None and entry.to is not None:
            note = (
                f" (retired: the SQL of revision {spec.revision} moves them to {quoted(entry.to)})"
            )
        elif entry is not None:
            note = (
                f" (retired without a destination: the SQL of revision {spec.revision} refuses "
                "to apply while a row holds it)"
            )
        if audit.missing_keys:
            keys = f"no example keys: the table has no column {', '.join(audit.missing_keys)}"
        else:
            keys = "e.g. " + ", ".join(quoted(k) for k in item.examples)
        found.append(
            at(
                "SD141",
                binding,
                f"{rows_text(item.rows)} of {where} {'holds' if item.rows == 1 else 'hold'} "
                f"{quoted(item.value)}, no state of revision "
                f"{spec.revision}{note}; {keys}",
            )
        )
    rest = audit.unknown_values - len(audit.unknown)
    if rest > 0:
        rows = audit.unknown_rows - sum(u.rows for u in audit.unknown)
        found.append(
            at(
                "SD141",
                binding,
                f"{rest} more value{'s' if rest != 1 else ''} that are no state, in "
                f"{rows_text(rows)} of {where} (the {len(audit.unknown)} most frequent are "
                "reported)",
            )
        )
    return found


def _history_findings(audit: SpecAudit, window: Window, at: At) -> list[Finding]:
    facts = audit.history
    assert facts is not None
    plan = audit.plan
    states = set(plan.states)
    invalid = {i.pair: i for i in plan.spec.invalid}
    found = []
    for item in facts.disallowed:
        pair = (item.from_state, item.to_state)
        old = item.from_state
        forbidden = None if old is None else invalid.get((old, item.to_state))
        if forbidden is not None:
            why = f"which the spec forbids ({quoted(forbidden.why)})"
        elif item.from_state is None:
            why = "an INSERT in a state an INSERT may not use"
        else:
            why = "which is not a declared transition"
        strays = [s for s in pair if s is not None and s not in states]
        if strays:
            why += "; " + ", ".join(quoted(s) for s in dict.fromkeys(strays)) + " is no state"
        lo, hi = item.revisions
        revisions = f"revision {lo}" if lo == hi else f"revisions {lo} to {hi}"
        last = "" if item.last is None else f", last at {item.last.isoformat()}"
        found.append(
            at(
                "SD142",
                forbidden.path if forbidden is not None else ("id",),
                f"{window_text(window)} records {pair_text(*pair)} {_times(item.rows)} "
                f"({revisions}{last}), {why}; e.g. row "
                + ", ".join(quoted(k) for k in item.examples),
            )
        )
    rest = facts.disallowed_pairs - len(facts.disallowed)
    if rest > 0:
        rows = facts.disallowed_rows - sum(d.rows for d in facts.disallowed)
        found.append(
            at(
                "SD142",
                ("id",),
                f"{window_text(window)} records {rest} more change{'s' if rest != 1 else ''} "
                f"the spec does not allow, in {rows_text(rows)} (the {len(facts.disallowed)} most "
                "frequent are reported)",
            )
        )
    return found + _claim_findings(audit, window, at)


def _claim_findings(audit: SpecAudit, window: Window, at: At) -> list[Finding]:
    measured = coverage(audit)
    facts = audit.history
    assert measured is not None and facts is not None
    by_pair = transitions_by_pair(audit)
    spec = audit.plan.spec
    found = []
    evidence = spec.text_fields.get("implementation_evidence")
    if evidence is not None and evidence.strip() == NOT_IMPLEMENTED and facts.updates:
        found.append(
            at(
                "SD144",
                ("implementation_evidence",),
                f"implementation_evidence says {NOT_IMPLEMENTED}, but {window_text(window)} "
                f"records {rows_text(facts.updates)} changing state (and {facts.inserts} "
                f"INSERT{'s' if facts.inserts != 1 else ''}): something implements it",
            )
        )
    for item in measured.transitions:
        transitions = by_pair.get(item.pair, [])
        text = pair_text(*item.pair)
        if item.times and transitions and all(t.provenance == "planned" for t in transitions):
            last = "" if item.last is None else f", last at {item.last.isoformat()}"
            found.append(
                at(
                    "SD143",
                    transitions[0].path,
                    f"{text} is `provenance: planned`, but {window_text(window)} records it "
                    f"{_times(item.times)}{last}: production performs it",
                )
            )
        observed = next((t for t in transitions if t.provenance == "observed"), None)
        if not item.times and observed is not None:
            found.append(
                at(
                    "SD145",
                    observed.path,
                    f"{text} is `provenance: observed`, but {window_text(window)} never records it",
                )
            )
    return found


def fail_under_message(audits: Sequence[SpecAudit], under: float) -> str | None:
    """Why production coverage fails ``--fail-under`` (SD146), or None when it passes."""
    if not any(a.history is not None for a in audits):
        return (
            f"--fail-under={under:g}: no transition history was read (turn history on for "
            "the bound specs, or audit a database where it is installed)"
        )
    covered, total = total_coverage(audits)
    value = percent(covered, total)
    if value >= under:
        return None
    return (
        f"production transition coverage {value:.2f}% ({covered}/{total} declared "
        f"transitions) is below --fail-under={under:g}"
    )

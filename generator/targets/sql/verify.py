"""Judge what the database holds (:mod:`.installed`) against what the repository generates
(:mod:`.pg_functions`): pure, so every verdict can be tested on records.

Per object of a spec, in this order: missing (SD123); its comment names a newer revision of
the spec (SD128), or another document (SD124, which explains any difference in its
definition); otherwise, and also when the comment is missing, its definition must be
exactly the generated one (:mod:`.compare`): a function's body and settings, a domain's
constraint and what it accepts (SD126), a trigger's timing, level, event, columns, function
and ``WHEN`` (SD125). A trigger that is disabled or fires only for replication is SD125
whatever its comment says, as is a partition's copy of it, and a trigger attached by hand
to an unbound spec's trigger function. Where the server could not be asked what the
generated text means, the verdict is SD129 (a warning), never silence. Each object gets at
most one finding per code, naming every difference.

With ``sweep`` (the whole configured set of specs), every other object of the configured
schema, and every object anywhere whose comment statedoc wrote, is SD127 (SD128 when the
comment names a newer revision of a spec the repository has). A schema statedoc does not own
(``public``) is swept for commented objects only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from generator.targets.sql.compare import (
    NOT_FIRING,
    Accepts,
    domain_diffs,
    function_diffs,
    trigger_diffs,
)
from generator.targets.sql.history_check import InstalledHistory, judge_history
from generator.targets.sql.history_pg import PgHistory, pg_history
from generator.targets.sql.installed import Catalog, Comment, Trigger
from generator.targets.sql.names import ident
from generator.targets.sql.pg_functions import PgFunction, PgObjects, PgTrigger
from generator.targets.sql.plan import SqlPlan
from generator.targets.sql.probe import Probed
from generator.targets.sql.verdicts import (
    NEWER,
    UNKNOWN,
    Entry,
    Problem,
    Report,
    Verdict,
    comment_verdict,
    missing,
    provenance,
)

#: Schemas other objects live in too: only what statedoc commented is statedoc's there.
SHARED_SCHEMAS = frozenset({"public"})
_ENABLED = {"O", "A"}
_ENABLED_TEXT = {"D": "disabled", "R": "enabled for replication sessions only"}
_RELKIND = {
    "r": "table",
    "p": "table",
    "v": "view",
    "m": "materialized view",
    "S": "sequence",
    "f": "foreign table",
    "c": "type",  # CREATE TYPE ... AS (...): a composite type is a relation too
}

__all__ = ["Accepts", "Entry", "Expected", "Problem", "Report", "verify"]


@dataclass(frozen=True)
class Expected:
    """One spec as the repository generates it."""

    plan: SqlPlan
    objects: PgObjects

    @property
    def history(self) -> PgHistory | None:
        return pg_history(self.plan)

    @property
    def functions(self) -> tuple[PgFunction, ...]:
        """Every function of the spec, its history's included."""
        history = self.history
        return self.objects.functions + (() if history is None else history.functions)

    @property
    def triggers(self) -> tuple[PgTrigger, ...]:
        """Every trigger on the bound table, its history's recorders included."""
        history = self.history
        return self.objects.triggers + (() if history is None else history.triggers)


def verify(
    specs: Iterable[Expected],
    catalog: Catalog,
    probed: Probed,
    accepts: Mapping[int, Accepts],
    *,
    sweep: bool,
    known_ids: Iterable[str] = (),
    histories: Mapping[str, InstalledHistory] | None = None,
    executors: Mapping[int, tuple[str, ...]] | None = None,
) -> Report:
    """Every problem and listing line (see the module docstring). ``known_ids``: every spec
    id of the repository, including specs that could not be planned (not judged here).
    ``histories`` and ``executors``: what :mod:`.history_check` read."""
    report = Report()
    specs = list(specs)
    claimed: set[int] = set()
    for spec in specs:
        claimed |= _judge_spec(report, spec, catalog, probed, accepts)
        history = spec.history
        if history is not None:
            installed = (histories or {}).get(history.table.qualified)
            claimed |= judge_history(
                report, spec.plan, history, catalog, installed, dict(executors or {})
            )
    claimed |= _attached_by_hand(report, specs, catalog)
    if sweep:
        _sweep(report, specs, catalog, claimed, set(known_ids))
    return report


def _judge_spec(
    report: Report,
    spec: Expected,
    catalog: Catalog,
    probed: Probed,
    accepts: Mapping[int, Accepts],
) -> set[int]:
    """Judge one spec's objects; the oids of those found (they are not left-overs)."""
    plan, objects = spec.plan, spec.objects
    spec_id = plan.spec.id
    found: set[int] = set()
    expected_domain = objects.domain
    domain = catalog.domain(expected_domain.schema, expected_domain.name)
    label = f"domain {expected_domain.schema}.{expected_domain.name}"
    if domain is None:
        missing(report, plan, label)
    else:
        found.add(domain.oid)
        obj = Verdict(report, spec_id, "domain", domain.label, provenance(domain.comment), label)
        if comment_verdict(obj, plan, domain.comment):
            obj.differ(domain_diffs(expected_domain, domain, probed, accepts.get(domain.oid)))
        obj.close()
    for expected in spec.functions:
        function = catalog.function(expected.schema, expected.name, expected.arg_types)
        label = f"function {expected.schema}.{expected.name}({', '.join(expected.arg_types)})"
        if function is None:
            missing(report, plan, label)
            continue
        found.add(function.oid)
        where = provenance(function.comment)
        obj = Verdict(report, spec_id, "function", function.signature, where, label)
        if comment_verdict(obj, plan, function.comment):
            obj.differ(function_diffs(expected, function))
        obj.close()
    for trigger in spec.triggers:
        found |= _judge_trigger(report, plan, trigger, catalog, probed)
    return found


def _judge_trigger(
    report: Report, plan: SqlPlan, expected: PgTrigger, catalog: Catalog, probed: Probed
) -> set[int]:
    spec_id = plan.spec.id
    table = catalog.tables.get(expected.table_name)
    if table is None or table.oid is None:
        missing(
            report,
            plan,
            f"trigger {expected.name} on {expected.table_name}",
            f"the bound table {expected.table_name} does not exist (on this connection's "
            "search_path)",
        )
        return set()
    trigger = catalog.trigger(table.oid, expected.name)
    if trigger is None:
        missing(report, plan, f"trigger {expected.name} on {table.label}")
        return set()
    label = f"trigger {trigger.label}"
    obj = Verdict(report, spec_id, "trigger", trigger.label, provenance(trigger.comment), label)
    clones = _clones(catalog, trigger)
    for item in (trigger, *clones):
        _enabled(obj, item)
    if comment_verdict(obj, plan, trigger.comment):
        function = catalog.function(
            expected.function.schema, expected.function.name, expected.function.arg_types
        )
        obj.differ(trigger_diffs(expected, trigger, table, function, probed))
    obj.close()
    return {trigger.oid, *(c.oid for c in clones)}


def _enabled(obj: Verdict, trigger: Trigger) -> None:
    """SD125 unless the trigger fires in ordinary sessions (``O``) or always (``A``)."""
    if trigger.enabled in _ENABLED:
        return
    state = _ENABLED_TEXT.get(trigger.enabled, f"in state {trigger.enabled!r}")
    copy = "" if trigger.label == obj.name else f" (a partition's copy of {obj.label})"
    prefix = f"{obj.spec_id}: " if obj.spec_id else ""
    obj.add(
        NOT_FIRING,
        f"{prefix}the trigger {trigger.label}{copy} is {state}, so writes go through unchecked: "
        f"ALTER TABLE {trigger.table} ENABLE TRIGGER {ident(trigger.name)}",
    )


def _clones(catalog: Catalog, root: Trigger) -> list[Trigger]:
    """The partitions' copies of ``root`` (at any depth)."""
    out: list[Trigger] = []
    parents = {root.oid}
    grew = True
    while grew:
        grew = False
        for t in catalog.triggers:
            if t.parent_oid in parents and t.oid not in parents:
                parents.add(t.oid)
                out.append(t)
                grew = True
    return out


def _attached_by_hand(report: Report, specs: list[Expected], catalog: Catalog) -> set[int]:
    """Triggers executing an unbound spec's trigger function (the README shows how to attach
    it): each must fire, as must its partitions' copies. Their oids."""
    owners: dict[int, str] = {}
    for spec in specs:
        if not spec.objects.triggers:
            expected = spec.objects.functions[-1]
            function = catalog.function(expected.schema, expected.name, expected.arg_types)
            if function is not None:
                owners[function.oid] = spec.plan.spec.id
    found: set[int] = set()
    listed = {t.oid for t in catalog.triggers}
    for trigger in catalog.triggers:
        owner = owners.get(trigger.function_oid)
        if owner is None or trigger.parent_oid in listed:
            continue  # a partition's copy is judged with its parent
        label = f"trigger {trigger.label}"
        obj = Verdict(
            report, owner, "trigger", trigger.label, f"attached by hand for {owner}", label
        )
        clones = _clones(catalog, trigger)
        for item in (trigger, *clones):
            _enabled(obj, item)
        obj.close()
        found |= {trigger.oid, *(c.oid for c in clones)}
    return found


def _sweep(
    report: Report,
    specs: list[Expected],
    catalog: Catalog,
    claimed: set[int],
    known_ids: set[str],
) -> None:
    """SD127/SD128 for what no spec of the repository generates (module docstring)."""
    dedicated = catalog.schema not in SHARED_SCHEMAS
    planned = {s.plan.spec.id: s.plan for s in specs}
    skipped = known_ids - set(planned)  # specs with errors: their objects are not judged

    def judged(oid: int, comment: Comment | None) -> bool:
        return oid in claimed or (comment is not None and comment.spec_id in skipped)

    where = f"is in statedoc's schema {catalog.schema}"
    candidates: list[tuple[str, str, Comment | None, str]] = []
    ours = set()
    for function in catalog.functions:
        if dedicated or function.comment:
            ours.add(function.oid)
            if not judged(function.oid, function.comment):
                candidates.append(("function", function.signature, function.comment, where))
    for domain in catalog.domains:
        if (dedicated or domain.comment) and not judged(domain.oid, domain.comment):
            candidates.append(("domain", domain.label, domain.comment, where))
    if dedicated:
        candidates += [("type", f"{t.schema}.{t.name}", None, where) for t in catalog.types]
        candidates += [
            (_RELKIND.get(r.relkind, "relation"), f"{r.schema}.{r.name}", None, where)
            for r in catalog.relations
        ]
    parents = {t.oid for t in catalog.triggers}
    for trigger in catalog.triggers:
        if judged(trigger.oid, trigger.comment) or trigger.parent_oid in parents:
            continue  # a partition's copy: judged with (or reported as) its parent
        if trigger.function_oid in ours or trigger.comment is not None:
            runs = f"executes {trigger.function}"
            candidates.append(("trigger", trigger.label, trigger.comment, runs))
    for kind, name, comment, context in candidates:
        _left_over(report, kind, name, comment, context, planned)


def _left_over(
    report: Report,
    kind: str,
    name: str,
    comment: Comment | None,
    context: str,
    planned: Mapping[str, SqlPlan],
) -> None:
    plan = planned.get(comment.spec_id) if comment is not None else None
    label = f"{kind} {name}"
    obj = Verdict(report, plan.spec.id if plan else None, kind, name, provenance(comment), label)
    fix = "drop it, or add the spec that generates it"
    if comment is None:
        obj.add(
            UNKNOWN, f"the {label} {context}, but no spec of the repository generates it: {fix}"
        )
    elif plan is None:
        obj.add(
            UNKNOWN,
            f"the {label} belongs to spec {comment.spec_id} revision {comment.revision}, "
            f"which the repository does not have: {fix}",
        )
    elif comment.revision > plan.spec.revision:
        obj.add(
            NEWER,
            f"{plan.spec.id}: the database holds revision {comment.revision} of this spec (the "
            f"{label}); the repository has revision {plan.spec.revision}: update the repository",
        )
    else:
        obj.add(
            UNKNOWN,
            f"{plan.spec.id}: the {label} is left over from revision {comment.revision} of this "
            "spec; the current one does not generate it: drop it",
        )
    obj.close()

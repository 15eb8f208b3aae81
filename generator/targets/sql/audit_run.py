"""The parts of ``statedoc db audit`` between the lint run and the report: which specs are
audited, and every finding of the audit in the order reports show them.

A spec is audited when its document lints without errors and it has a binding (front matter
``storage`` or ``[tool.statedoc.sql.bindings]``); a bound document that cannot be written as
SQL (generate reports why) and a document with errors are not, as in ``db check``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from generator.core.findings import Finding

if TYPE_CHECKING:
    from generator.lint.files import LintRun
    from generator.load.config import Config
    from generator.model.document import Document
    from generator.targets.sql.audit_model import SpecAudit, Window
    from generator.targets.sql.plan import SqlPlan


def bound_plans(
    lint_run: LintRun, config: Config
) -> tuple[list[SqlPlan], dict[str, Document], list[str]]:
    """The plans to audit, their documents by spec id, and the ids of clean specs without a
    binding (listed, not audited)."""
    from generator.targets import source_path
    from generator.targets.sql.names import SqlError
    from generator.targets.sql.settings import sql_settings
    from generator.targets.sql.target import plan_for

    settings = sql_settings(config)
    plans: list[SqlPlan] = []
    documents: dict[str, Document] = {}
    unbound: list[str] = []
    for result in lint_run.results:
        document = result.document
        if document is None or not lint_run.clean(result.path):
            continue
        if document.spec.id in documents or document.spec.id in unbound:
            continue
        try:
            plan = plan_for(document, settings, source_path(document, config))
        except SqlError:
            continue
        if plan.binding is None:
            unbound.append(document.spec.id)
            continue
        documents[document.spec.id] = document
        plans.append(plan)
    return plans, documents, unbound


def all_findings(
    audits: Sequence[SpecAudit],
    documents: dict[str, Document],
    window: Window,
    *,
    fail_under: float | None,
    run_level: Callable[[str, str], Finding],
) -> list[Finding]:
    """Each spec's findings, then SD146 (``run_level(code, message)`` places a finding that
    belongs to no one spec)."""
    from generator.targets.sql.audit_findings import audit_findings, fail_under_message

    found: list[Finding] = []
    for audit in audits:
        found += audit_findings(audit, documents[audit.plan.spec.id], window)
    if fail_under is not None:
        message = fail_under_message(audits, fail_under)
        if message is not None:
            found.append(run_level("SD146", message))
    return found

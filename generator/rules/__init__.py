"""The rule catalogue: every code statedoc reports, and the checks that implement them.

A check is a small function over a :class:`~generator.model.document.Document` that yields
:class:`Hit` s; :func:`rule` registers it with its stable code, name, default severity and the
explanation ``statedoc explain`` prints. Loader codes (SD0xx) have no check function: the load
stage reports them, but they are registered here so the catalogue is complete in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from generator.core.findings import Finding, Related, Severity
from generator.load.source import Span
from generator.load.strict_yaml import Path
from generator.model.document import Document

Check = Callable[[Document], Iterable["Hit"]]


class Hit(NamedTuple):
    """What a check found: a message and where (a front matter path, or a span of the text)."""

    message: str
    path: Path = ()
    on_key: bool = False
    span: Span | None = None
    related: tuple[tuple[Span, str], ...] = ()


class Rule(NamedTuple):
    code: str
    name: str
    severity: Severity
    summary: str
    why: str
    bad: str
    good: str
    check: Check | None = None
    scope: str = "document"  # "load", "document" or "project"


REGISTRY: dict[str, Rule] = {}


def register(rule_: Rule) -> Rule:
    if rule_.code in REGISTRY:
        raise ValueError(f"rule {rule_.code} registered twice")
    REGISTRY[rule_.code] = rule_
    return rule_


def rule(
    code: str,
    name: str,
    summary: str,
    *,
    why: str,
    bad: str,
    good: str,
    severity: Severity = Severity.ERROR,
) -> Callable[[Check], Check]:
    """Register a document check under a stable code."""

    def decorate(check: Check) -> Check:
        register(Rule(code, name, severity, summary, why, bad, good, check))
        return check

    return decorate


def all_rules() -> list[Rule]:
    """Every rule, by code; importing the check modules fills the registry."""
    from generator.rules import (  # noqa: F401
        catalogue,
        confusables,
        diagram,
        events,
        graph,
        project,
        references,
        removals,
        retired,
        storage,
    )

    return [REGISTRY[code] for code in sorted(REGISTRY)]


def document_checks() -> Iterator[Rule]:
    for item in all_rules():
        if item.check is not None:
            yield item


def finding(
    code: str,
    path: str,
    at: tuple[int, int, int, int],
    message: str,
    related: tuple[Related, ...] = (),
) -> Finding:
    """A finding of rule ``code`` at ``(line, column, end_line, end_column)``, with the rule's
    name and severity: the one way every stage builds one."""
    if code not in REGISTRY:
        all_rules()
    found = REGISTRY[code]
    line, column, end_line, end_column = at
    return Finding(
        path,
        line,
        column,
        end_line,
        end_column,
        code,
        found.name,
        found.severity,
        message,
        related,
    )

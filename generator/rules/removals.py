"""SD208 removed-state-not-retired: ``lint --against GIT_REF``.

A state declared at the ref that the working tree neither declares nor retires would be
stranded: rows holding it stay, and the new triggers refuse to move them (the generated SQL
refuses to apply, SDM01, but only once it meets the database). The pure comparison lives
here; :mod:`generator.diffing.revision` matches the specs at the ref with the linted ones.
"""

from __future__ import annotations

from generator.core.findings import Finding, Severity
from generator.model.document import Document
from generator.model.spec import Spec
from generator.rules import Rule, finding, register
from generator.rules.examples import BODY, DOOR, HEADER

register(
    Rule(
        "SD208",
        "removed-state-not-retired",
        Severity.ERROR,
        "only with `lint --against GIT_REF`: a state declared at that ref is neither declared "
        "nor retired now",
        "Rows may hold the state: without a `retired` entry saying where they go (or that none "
        "may), the new revision's triggers refuse to move them and its SQL refuses to apply. "
        "Renaming a state is removing it: retire the old name with `to:` the new one.",
        f"---\n{HEADER}{DOOR}---\n{BODY}\n(against a ref where the spec also had state ajar)\n",
        f"---\n{HEADER}{DOOR}retired:\n  - {{state: ajar, to: closed, why: merged}}\n---\n{BODY}",
        scope="against",
    )
)


def removed_states(old: Spec, new: Spec) -> tuple[str, ...]:
    """States of ``old`` that ``new`` neither declares nor retires, in ``old``'s order."""
    kept = {*new.state_names, *(r.state for r in new.retired)}
    return tuple(name for name in old.state_names if name not in kept)


def removal_finding(
    old: Spec | None, new: Spec | None, document: Document, path: str, against: str
) -> Finding | None:
    """SD208 at the key ``states`` of ``document`` (the working tree's ``new``), or None
    (also when either side has no spec)."""
    if old is None or new is None:
        return None
    removed = removed_states(old, new)
    if not removed:
        return None
    added = [n for n in new.state_names if n not in set(old.state_names)]
    to = f", to: {added[0]!r}" if len(added) == 1 else ""
    names = ", ".join(repr(n) for n in removed)
    some = "state" if len(removed) == 1 else "states"
    message = (
        f"{some} {names} of {against} {'is' if len(removed) == 1 else 'are'} gone without a "
        "retirement entry, so rows holding it would be stranded: add to `retired` "
        f"{{state: {removed[0]!r}{to}, why: ...}} (no `to`: no row may hold it)"
    )
    span = document.span(("states",), key=True)
    start = document.source.position(span.start)
    end = document.source.position(max(span.end, span.start + 1))
    return finding("SD208", path, (*start, *end), message)

"""The vocabulary of a semantic diff: change classes, the stable change kinds, one change.

A change is *breaking* when code generated from the old version, or data written through it,
can stop working with the new one (a state or transition disappears, the entry points move, a
pair becomes forbidden); *compatible* when the new version only allows more; *wording* when
only text for people or metadata changed. Each change has a stable ``kind`` (the table
:data:`KINDS`), its class, the categories of those it breaks
(:mod:`generator.diffing.categories`), a one-line message and a ``subject`` (a state name, a
pair, a key).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from generator.diffing.categories import PLACEMENTS, Category, categories_of


class ChangeClass(StrEnum):
    BREAKING = "breaking"
    COMPATIBLE = "compatible"
    WORDING = "wording"


_B, _C, _W = ChangeClass.BREAKING, ChangeClass.COMPATIBLE, ChangeClass.WORDING

#: Every change kind, in report order, with its class. The kind strings are a stable contract.
KINDS: Mapping[str, ChangeClass] = {
    # breaking
    "spec-deleted": _B,
    "id-changed": _B,
    "state-removed": _B,
    "state-retired": _B,
    "transition-removed": _B,
    "event-removed": _B,
    "event-retargeted": _B,
    "initial-state-removed": _B,
    "initial-state-added": _B,
    "invalid-added": _B,
    "retirement-removed": _B,
    "retirement-destination-changed": _B,
    # compatible
    "spec-added": _C,
    "state-added": _C,
    "transition-added": _C,
    "event-added": _C,
    "invalid-removed": _C,
    "terminal-state-added": _C,
    "terminal-state-removed": _C,
    "retirement-added": _C,
    "retirement-destination-added": _C,
    # wording and metadata
    "spec-moved": _W,
    "state-meaning-changed": _W,
    "transition-trigger-changed": _W,
    "transition-guard-changed": _W,
    "transition-side-effects-changed": _W,
    "transition-who-changed": _W,
    "transition-provenance-changed": _W,
    "transition-source-changed": _W,
    "invalid-why-changed": _W,
    "retirement-why-changed": _W,
    "title-changed": _W,
    "object-changed": _W,
    "product-area-changed": _W,
    "module-changed": _W,
    "status-changed": _W,
    "revision-changed": _W,
    "design-intent-changed": _W,
    "implementation-evidence-changed": _W,
    "origin-changed": _W,
    "concurrency-changed": _W,
    "source-sha-changed": _W,
    "invariants-changed": _W,
    "evidence-changed": _W,
    "storage-changed": _W,
    "extension-changed": _W,
}
_ORDER = {kind: index for index, kind in enumerate(KINDS)}
_RANK = {_B: 0, _C: 1, _W: 2}

#: Top-level front matter keys the model covers; any other key is a team's extension.
MODEL_KEYS = frozenset(
    {
        "id",
        "title",
        "object",
        "product_area",
        "module",
        "revision",
        "status",
        "design_intent",
        "implementation_evidence",
        "origin",
        "source_sha",
        "initial",
        "states",
        "transitions",
        "invalid",
        "concurrency",
        "invariants",
        "evidence",
        "storage",
        "retired",
    }
)


@dataclass(frozen=True, slots=True)
class Change:
    kind: str
    change_class: ChangeClass
    message: str
    subject: str = ""
    #: Who it breaks (:data:`~generator.diffing.categories.PLACEMENTS`); none: no one.
    categories: tuple[Category, ...] = ()

    @property
    def semantic(self) -> bool:
        """A change to the state machine itself (what SD207 asks a revision bump for)."""
        return self.change_class is not ChangeClass.WORDING


def change(kind: str, message: str, subject: str = "") -> Change:
    """A change of a known kind (its class comes from :data:`KINDS`, its categories from
    :data:`~generator.diffing.categories.PLACEMENTS`)."""
    return Change(kind, KINDS[kind], message, subject, categories_of(kind))


def ordered(changes: Iterable[Change]) -> tuple[Change, ...]:
    """Breaking first, then compatible, then wording; by kind; declaration order within a kind."""
    return tuple(sorted(changes, key=lambda c: (_RANK[c.change_class], _ORDER[c.kind])))


def q(text: str) -> str:
    """A name quoted for a one-line message (newlines and quotes escaped)."""
    return repr(text)


def pair_text(pair: tuple[str, str]) -> str:
    return f"{q(pair[0])} -> {q(pair[1])}"


def placement_table() -> str:
    """The README's table of change kinds: class, who it breaks, why (Markdown)."""
    rows = ["| change kind | class | breaks | why |", "| --- | --- | --- | --- |"]
    for kind, change_class in KINDS.items():
        placement = PLACEMENTS[kind]
        breaks = ", ".join(c.value for c in placement.categories) or "no one"
        rows.append(f"| `{kind}` | {change_class.value} | {breaks} | {placement.rule} |")
    return "\n".join(rows) + "\n"

"""Who a change breaks, in categories a pipeline can gate on (``statedoc diff --fail-on``).

As buf files each breaking-change rule under FILE, PACKAGE or WIRE, every change kind here is
filed under the people it can break:

- ``code``: programs built on the generated APIs (the Python and TypeScript modules, the
  conformance tests): a name they may use disappears, or a call they make now does something
  else or is refused.
- ``data``: the database: rows already stored, or writers running against the new triggers.
  A row is stranded, a write that was accepted is refused, or applying the new SQL rewrites
  stored rows.
- ``wording``: only text for people or metadata changed; nothing generated behaves otherwise.

A change can be in several categories (a removed transition breaks both callers and
writers) and a compatible one in none (the new version only allows more: it breaks no one).
The category is a fact about the kind, written once in :data:`PLACEMENTS` with the reason;
the class (breaking / compatible / wording) stays the verdict of the default gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from generator.core.errors import ConfigError
from generator.core.suggest import did_you_mean


class Category(StrEnum):
    WORDING = "wording"
    CODE = "code"
    DATA = "data"


#: Report order of the categories.
CATEGORIES: tuple[Category, ...] = tuple(Category)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one change kind lands, and why (the README table is this, row by row)."""

    categories: tuple[Category, ...]
    rule: str


_W, _C, _D = Category.WORDING, Category.CODE, Category.DATA
_NO_ONE = "breaks no one: the new version only allows more"
_TEXT = "a text for people (generated code carries it as data); nothing behaves otherwise"
_MODULE_PATH = (
    "the generated modules live at `<product_area>/<module>/<title>`, so the import path of "
    "every module moves"
)

#: Every change kind with its categories and the rule. Keys are exactly the change kinds of
#: :data:`generator.diffing.changes.KINDS` (a test holds the two equal).
PLACEMENTS: Mapping[str, Placement] = {
    # --- breaking
    "spec-deleted": Placement(
        (_C,),
        "its generated modules and `SPEC_ID` are gone; the database keeps what was last "
        "applied (statedoc drops nothing), so stored rows and writers carry on",
    ),
    "id-changed": Placement(
        (_C, _D),
        "code: `SPEC_ID` and every reference to the old id change; data: the SQL objects "
        "carry the id (`COMMENT ON`, read back by `db check` and by a migration) and "
        "`[tool.statedoc.sql.bindings]` is keyed by it",
    ),
    "state-removed": Placement(
        (_C, _D),
        "code: its generated name is gone, and code that reads a row still holding it cannot "
        "parse it, even code that never names it; data: rows holding it are stranded, the new "
        "triggers refuse to move them and the new SQL refuses to apply while any remains "
        "(retire it to say where they go; `lint --against` reports SD208)",
    ),
    "state-retired": Placement(
        (_C, _D),
        "a removed state with a `retired` entry. code: its generated name is gone, so callers "
        "that name it break, and only those: with a destination no row keeps the old value, "
        "so code that never names it never meets it; data: applying the new SQL rewrites its "
        "rows to the destination (recorded in history as a migration) and writers that still "
        "write the old name are refused; without a destination the SQL refuses to apply while "
        "a row holds it",
    ),
    "transition-removed": Placement(
        (_C, _D),
        "code: the pair leaves `TRANSITIONS`, `check`, `can_transition` and the typed "
        "`Targets`/`Guards`, so callers performing it get a transition error; data: writers "
        "performing the UPDATE are refused by the triggers",
    ),
    "event-removed": Placement(
        (_C,),
        "`fire` of the event from that state is refused (and the `Event` member goes when no "
        "state uses it); the database checks pairs, not events (a pair that also went is "
        "reported as transition-removed)",
    ),
    "event-retargeted": Placement(
        (_C,),
        "`fire` of the event leads to another state; the database checks pairs, not events",
    ),
    "initial-state-removed": Placement(
        (_C, _D),
        "code: `INITIAL` shrinks and `Machine()` may start elsewhere; data: an INSERT in that "
        "state is refused (SDI01) while `insert_must_be_initial` is on (the default)",
    ),
    "initial-state-added": Placement(
        (_C,),
        "`INITIAL` grows and `Machine()` without a state refuses once several states are "
        "initial; the database only accepts more INSERTs",
    ),
    "invalid-added": Placement(
        (_C, _D),
        "the pair is refused as forbidden, with the spec's why: `ForbiddenTransitionError` "
        "for callers, SQLSTATE SDF01 for writers (a pair that was a declared transition is "
        "reported as transition-removed too)",
    ),
    "retirement-removed": Placement(
        (_D,),
        "a state that stays undeclared loses its `retired` entry: rows a database still holds "
        "in it (one that skipped a revision, rows written behind the triggers) have no "
        "destination, and the new SQL refuses to apply while any remains",
    ),
    "retirement-destination-changed": Placement(
        (_D,),
        "rows still holding the retired state move to another state or, with no destination "
        "now, make the new SQL refuse to apply",
    ),
    # --- compatible
    "spec-added": Placement((), _NO_ONE),
    "state-added": Placement(
        (),
        _NO_ONE + " (as buf treats a new enum value: a switch over every state must handle it)",
    ),
    "transition-added": Placement((), _NO_ONE),
    "event-added": Placement((), _NO_ONE),
    "invalid-removed": Placement(
        (), "the pair is still refused, as undeclared (`UndeclaredTransitionError`, SDU01)"
    ),
    "terminal-state-added": Placement(
        (), "follows from transitions removed, which are reported (and placed) themselves"
    ),
    "terminal-state-removed": Placement((), _NO_ONE + ": the state gains a way out"),
    "retirement-added": Placement(
        (),
        "a state neither version declares gets a `retired` entry: rows left in it get a "
        "destination (or are refused, as before)",
    ),
    "retirement-destination-added": Placement(
        (), "rows still holding the retired state, which made the SQL refuse, now move"
    ),
    # --- wording and metadata
    "spec-moved": Placement(
        (_W,), "the document's path; generated paths follow the front matter, not the file"
    ),
    "state-meaning-changed": Placement((_W,), _TEXT),
    "transition-trigger-changed": Placement((_W,), _TEXT),
    "transition-guard-changed": Placement(
        (_W,), _TEXT + " (guard functions are given by pair, not by this text)"
    ),
    "transition-side-effects-changed": Placement((_W,), _TEXT),
    "transition-who-changed": Placement((_W,), _TEXT),
    "transition-provenance-changed": Placement((_W,), _TEXT),
    "transition-source-changed": Placement((_W,), _TEXT),
    "invalid-why-changed": Placement((_W,), _TEXT),
    "retirement-why-changed": Placement((_W,), _TEXT),
    "title-changed": Placement(
        (_C, _D),
        f"code: {_MODULE_PATH} and the generated names follow the title; data: the SQL "
        "domain, functions and triggers are named after it, so the database gets objects "
        "under new names (the class stays wording: the default gate does not fail on it)",
    ),
    "object-changed": Placement((_W,), "metadata: a reference to the domain object"),
    "product-area-changed": Placement((_C,), f"code: {_MODULE_PATH} (the class stays wording)"),
    "module-changed": Placement((_C,), f"code: {_MODULE_PATH} (the class stays wording)"),
    "status-changed": Placement((_W,), "metadata"),
    "revision-changed": Placement(
        (_W,), "metadata: `SPEC_REVISION`, the SQL comments and history carry it"
    ),
    "design-intent-changed": Placement((_W,), "text for people"),
    "implementation-evidence-changed": Placement((_W,), "text for people"),
    "origin-changed": Placement((_W,), "text for people"),
    "concurrency-changed": Placement((_W,), "text for people"),
    "source-sha-changed": Placement((_W,), "metadata"),
    "invariants-changed": Placement((_W,), "metadata: references to invariants"),
    "evidence-changed": Placement((_W,), "text for people"),
    "storage-changed": Placement(
        (_D,),
        "data: the triggers guard another table or column, or record history otherwise "
        "(the class stays wording, as when `storage` was reported as an extension key)",
    ),
    "extension-changed": Placement((_W,), "a team's own front matter key; statedoc reads none"),
}


def categories_of(kind: str) -> tuple[Category, ...]:
    return PLACEMENTS[kind].categories


def parse_fail_on(values: Iterable[str]) -> frozenset[Category]:
    """``--fail-on`` values, each a category or a comma-separated list of them (ConfigError,
    exit 2, for anything else)."""
    found: set[Category] = set()
    names = [c.value for c in CATEGORIES]
    for value in values:
        parts = [part.strip() for part in value.split(",")]
        if not any(parts):
            raise ConfigError(f"--fail-on {value!r}: names no category ({', '.join(names)})")
        for part in parts:
            if not part:
                continue
            if part not in names:
                raise ConfigError(
                    f"--fail-on {part!r}: not a category; choose from {', '.join(names)}"
                    + did_you_mean(part, names)
                )
            found.add(Category(part))
    return frozenset(found)


def spelled(categories: Iterable[Category]) -> str:
    """``code,data`` in report order; ``-`` for none."""
    chosen = set(categories)
    return ",".join(c.value for c in CATEGORIES if c in chosen) or "-"

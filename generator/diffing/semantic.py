"""Classify what changed between two versions of a spec (pure: specs in, changes out).

A change is *breaking* when code generated from the old version, or data written through it,
can stop working with the new one (a state or transition disappears, the entry points move, a
pair becomes forbidden); *compatible* when the new version only allows more; *wording* when
only text for people or metadata changed. Each change has a stable ``kind`` (the table
:data:`KINDS`), its class, a one-line message and a ``subject`` (a state name, a pair, a key).

Two sets of specs (a git ref and the working tree) are matched by ``id``, so a moved file is
still the same spec; a spec whose ``id`` changed at the same path is reported as ``id-changed``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from generator.model.spec import Spec, Transition

_T = TypeVar("_T")
_K = TypeVar("_K")
_V = TypeVar("_V")


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
    "transition-removed": _B,
    "event-removed": _B,
    "event-retargeted": _B,
    "initial-state-removed": _B,
    "initial-state-added": _B,
    "invalid-added": _B,
    # compatible
    "spec-added": _C,
    "state-added": _C,
    "transition-added": _C,
    "event-added": _C,
    "invalid-removed": _C,
    "terminal-state-added": _C,
    "terminal-state-removed": _C,
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
    }
)


@dataclass(frozen=True, slots=True)
class Change:
    kind: str
    change_class: ChangeClass
    message: str
    subject: str = ""

    @property
    def semantic(self) -> bool:
        """A change to the state machine itself (what SD207 asks a revision bump for)."""
        return self.change_class is not ChangeClass.WORDING


def change(kind: str, message: str, subject: str = "") -> Change:
    """A change of a known kind (its class comes from :data:`KINDS`)."""
    return Change(kind, KINDS[kind], message, subject)


def ordered(changes: Iterable[Change]) -> tuple[Change, ...]:
    """Breaking first, then compatible, then wording; by kind; declaration order within a kind."""
    return tuple(sorted(changes, key=lambda c: (_RANK[c.change_class], _ORDER[c.kind])))


def q(text: str) -> str:
    """A name quoted for a one-line message (newlines and quotes escaped)."""
    return repr(text)


def pair_text(pair: tuple[str, str]) -> str:
    return f"{q(pair[0])} -> {q(pair[1])}"


# --- two versions of one spec --------------------------------------------------------------


def diff_specs(
    old: Spec,
    new: Spec,
    old_extras: Mapping[str, object] | None = None,
    new_extras: Mapping[str, object] | None = None,
) -> tuple[Change, ...]:
    """Every change from ``old`` to ``new``, ordered by :func:`ordered`.

    ``*_extras`` are the front matter keys outside :data:`MODEL_KEYS` (team extensions), if known.
    """
    found: list[Change] = []
    if old.id != new.id:
        found.append(
            change(
                "id-changed",
                f"id changed from {old.id} to {new.id}: SPEC_ID changes and every reference to "
                f"{old.id} loses its spec (the old spec counts as deleted, the new one as added)",
                f"{old.id} -> {new.id}",
            )
        )
    found += _states(old, new)
    found += _transitions(old, new)
    found += _entry_and_exit(old, new)
    found += _invalid(old, new)
    found += _metadata(old, new)
    found += _extras(old_extras or {}, new_extras or {})
    return ordered(found)


def _states(old: Spec, new: Spec) -> list[Change]:
    old_names, new_names = old.state_names, new.state_names
    removed = [n for n in old_names if n not in new_names]
    added = [n for n in new_names if n not in old_names]
    rename = len(removed) == 1 and len(added) == 1
    found = [
        change(
            "state-removed",
            f"state {q(n)} removed" + (f" (renamed to {q(added[0])}?)" if rename else ""),
            n,
        )
        for n in removed
    ]
    found += [
        change(
            "state-added",
            f"state {q(n)} added" + (f" (renamed from {q(removed[0])}?)" if rename else ""),
            n,
        )
        for n in added
    ]
    old_meaning = _first(old.states, lambda s: s.name, lambda s: s.meaning)
    new_meaning = _first(new.states, lambda s: s.name, lambda s: s.meaning)
    found += [
        change("state-meaning-changed", f"state {q(n)}: meaning changed", n)
        for n in new_names
        if n in old_meaning and old_meaning[n] != new_meaning[n]
    ]
    return found


_TRANSITION_TEXT: tuple[tuple[str, Callable[[Transition], object], bool], ...] = (
    # (field, getter, show the values in the message: short, enumerated values only)
    ("trigger", lambda t: t.trigger, False),
    ("guard", lambda t: t.guard, False),
    ("side-effects", lambda t: t.side_effects, False),
    ("who", lambda t: t.who, False),
    ("provenance", lambda t: t.provenance, True),
    ("source", lambda t: t.source, False),
)


def _event_text(state: str, event: str) -> str:
    return f"event {q(event)} from {q(state)}"


def _events(old: Spec, new: Spec) -> list[Change]:
    """What ``fire`` does from each state: an event that no longer fires from a state, or
    fires to another target, breaks callers; a new one only allows more."""
    old_on = _first(old.transitions, lambda t: (t.from_state, t.event), lambda t: t.to_state)
    new_on = _first(new.transitions, lambda t: (t.from_state, t.event), lambda t: t.to_state)
    found: list[Change] = []
    for (state, event), target in old_on.items():
        if event is None:
            continue
        subject = _event_text(state, event)
        now = new_on.get((state, event))
        if now is None:
            found.append(change("event-removed", f"{subject} removed", subject))
        elif now != target:
            found.append(
                change(
                    "event-retargeted", f"{subject} now leads to {q(now)}, not {q(target)}", subject
                )
            )
    found += [
        change("event-added", f"{_event_text(state, event)} added", _event_text(state, event))
        for state, event in new_on
        if event is not None and (state, event) not in old_on
    ]
    return found


def _transitions(old: Spec, new: Spec) -> list[Change]:
    old_by_pair = _first(old.transitions, lambda t: t.pair, lambda t: t)
    new_by_pair = _first(new.transitions, lambda t: t.pair, lambda t: t)
    found = _events(old, new) + [
        change("transition-removed", f"transition {pair_text(p)} removed", pair_text(p))
        for p in old_by_pair
        if p not in new_by_pair
    ]
    found += [
        change("transition-added", f"transition {pair_text(p)} added", pair_text(p))
        for p in new_by_pair
        if p not in old_by_pair
    ]
    # Texts are compared per transition: its pair and its event (None without events).
    old_by_key = _first(old.transitions, lambda t: (t.pair, t.event), lambda t: t)
    new_by_key = _first(new.transitions, lambda t: (t.pair, t.event), lambda t: t)
    for (pair, event), after in new_by_key.items():
        before = old_by_key.get((pair, event))
        if before is None:
            continue
        subject = pair_text(pair) + ("" if event is None else f" ({_event_text(pair[0], event)})")
        for name, get, show in _TRANSITION_TEXT:
            was, now = get(before), get(after)
            if was != now:
                detail = f" from {_value(was)} to {_value(now)}" if show else ""
                found.append(
                    change(
                        f"transition-{name}-changed",
                        f"transition {subject}: {name.replace('-', ' ')} changed{detail}",
                        subject,
                    )
                )
    return found


def _entry_and_exit(old: Spec, new: Spec) -> list[Change]:
    old_initial, new_initial = old.initial_states, new.initial_states
    found = [
        change("initial-state-removed", f"{q(n)} is no longer an initial state", n)
        for n in old_initial
        if n not in new_initial
    ]
    found += [
        change("initial-state-added", f"{q(n)} is now an initial state", n)
        for n in new_initial
        if n not in old_initial
    ]
    # Terminal-ness of states in both versions (new and removed states are reported already).
    both = [n for n in new.state_names if n in set(old.state_names)]
    old_terminal, new_terminal = set(old.terminal_states), set(new.terminal_states)
    found += [
        change("terminal-state-removed", f"{q(n)} is no longer terminal (it now has a way out)", n)
        for n in both
        if n in old_terminal and n not in new_terminal
    ]
    found += [
        change("terminal-state-added", f"{q(n)} is now terminal (no transition leaves it)", n)
        for n in both
        if n not in old_terminal and n in new_terminal
    ]
    return found


def _invalid(old: Spec, new: Spec) -> list[Change]:
    old_why = _first(old.invalid, lambda i: i.pair, lambda i: i.why)
    new_why = _first(new.invalid, lambda i: i.pair, lambda i: i.why)
    found = [
        change("invalid-added", f"{pair_text(p)} is now listed invalid", pair_text(p))
        for p in new_why
        if p not in old_why
    ]
    found += [
        change("invalid-removed", f"{pair_text(p)} is no longer listed invalid", pair_text(p))
        for p in old_why
        if p not in new_why
    ]
    found += [
        change("invalid-why-changed", f"invalid pair {pair_text(p)}: why changed", pair_text(p))
        for p, why in new_why.items()
        if p in old_why and old_why[p] != why
    ]
    return found


_MODULE_NOTE = " (the generated module's path and names follow it)"


def _metadata(old: Spec, new: Spec) -> list[Change]:
    found: list[Change] = []
    for kind, key, was, now, note in (
        ("title-changed", "title", old.title, new.title, _MODULE_NOTE),
        ("object-changed", "object", old.object, new.object, ""),
        ("product-area-changed", "product_area", old.product_area, new.product_area, _MODULE_NOTE),
        ("module-changed", "module", old.module, new.module, _MODULE_NOTE),
        ("status-changed", "status", old.status, new.status, ""),
    ):
        if was != now:
            found.append(change(kind, f"{key} changed from {q(was)} to {q(now)}{note}", key))
    if old.revision != new.revision:
        verb = "increased" if new.revision > old.revision else "decreased"
        found.append(
            change(
                "revision-changed",
                f"revision {verb} from {old.revision} to {new.revision}",
                "revision",
            )
        )
    for key in ("design_intent", "implementation_evidence", "origin", "concurrency"):
        was_text, now_text = old.text_fields.get(key), new.text_fields.get(key)
        if was_text != now_text:
            verb = "added" if was_text is None else "removed" if now_text is None else "changed"
            found.append(change(f"{key.replace('_', '-')}-changed", f"{key} {verb}", key))
    if dict(old.source_sha) != dict(new.source_sha):
        repos = sorted(
            r
            for r in set(old.source_sha) | set(new.source_sha)
            if old.source_sha.get(r) != new.source_sha.get(r)
        )
        found.append(
            change(
                "source-sha-changed",
                f"source_sha changed for {', '.join(map(q, repos))}",
                "source_sha",
            )
        )
    if old.invariants != new.invariants:
        found.append(
            change(
                "invariants-changed",
                "invariants changed" + _list_delta(old.invariants, new.invariants),
                "invariants",
            )
        )
    if old.evidence != new.evidence:
        found.append(change("evidence-changed", "evidence changed", "evidence"))
    return found


def _extras(old: Mapping[str, object], new: Mapping[str, object]) -> list[Change]:
    found: list[Change] = []
    for key in sorted(set(old) | set(new)):
        if key in old and key in new and old[key] == new[key]:
            continue
        verb = "added" if key not in old else "removed" if key not in new else "changed"
        found.append(change("extension-changed", f"extension key {q(key)} {verb}", key))
    return found


def _list_delta(old: Sequence[str], new: Sequence[str]) -> str:
    added = [x for x in new if x not in set(old)]
    removed = [x for x in old if x not in set(new)]
    parts = []
    if added:
        parts.append("added " + ", ".join(added))
    if removed:
        parts.append("removed " + ", ".join(removed))
    return f" ({'; '.join(parts)})" if parts else " (reordered)"


def _first(items: Iterable[_T], key: Callable[[_T], _K], value: Callable[[_T], _V]) -> dict[_K, _V]:
    """key -> value of the first item with that key (duplicates are lint's business)."""
    found: dict[_K, _V] = {}
    for item in items:
        found.setdefault(key(item), value(item))
    return found


def _value(value: object) -> str:
    if value is None:
        return "(none)"
    return q(value) if isinstance(value, str) else repr(value)


# --- two sets of specs ---------------------------------------------------------------------


@dataclass(frozen=True)
class Version:
    """One side of a comparison: a document at a path, read far enough to have a ``spec``.

    ``spec`` is None when the document does not lint past the schema stage; ``problem`` then
    says why. ``in_scope`` is False for old documents read only to recognise moved specs.
    """

    path: str
    spec: Spec | None
    problem: str | None = None
    extras: Mapping[str, object] = field(default_factory=dict)
    key: str | None = None  # where the document lives, comparable across sides (default: path)
    in_scope: bool = True

    @property
    def location(self) -> str:
        return self.path if self.key is None else self.key


@dataclass(frozen=True)
class SpecDiff:
    """One spec's changes; ``old`` or ``new`` is None for an added or deleted spec."""

    old: Version | None
    new: Version | None
    changes: tuple[Change, ...] = ()

    @property
    def spec(self) -> Spec | None:
        for version in (self.new, self.old):
            if version is not None and version.spec is not None:
                return version.spec
        return None

    @property
    def id(self) -> str | None:
        spec = self.spec
        return spec.id if spec is not None else None

    @property
    def path(self) -> str:
        version = self.new or self.old
        assert version is not None
        return version.path

    @property
    def old_path(self) -> str | None:
        return self.old.path if self.old is not None else None

    @property
    def status(self) -> str:
        """added, deleted, modified, unchanged, old-unreadable or new-unreadable."""
        if self.new is not None and self.new.spec is None:
            return "new-unreadable"
        if self.old is not None and self.old.spec is None:
            return "old-unreadable"
        if self.old is None:
            return "added"
        if self.new is None:
            return "deleted"
        return "modified" if self.changes else "unchanged"

    @property
    def moved(self) -> bool:
        return (
            self.old is not None and self.new is not None and self.old.location != self.new.location
        )

    @property
    def breaking(self) -> bool:
        return any(c.change_class is ChangeClass.BREAKING for c in self.changes)

    @property
    def reportable(self) -> bool:
        """Worth showing: something changed, or one side could not be read."""
        return bool(self.changes) or self.status.endswith("unreadable")


def compare_versions(old: Version, new: Version) -> SpecDiff:
    """Two given versions of one spec (``statedoc diff OLD NEW``), whatever their ids."""
    if old.spec is None or new.spec is None:
        return SpecDiff(old, new)
    return SpecDiff(old, new, diff_specs(old.spec, new.spec, old.extras, new.extras))


def match_by_id(
    old: Sequence[Version], new: Sequence[Version]
) -> list[tuple[Version | None, Version | None]]:
    """Pair versions of the same spec: by ``id`` (a moved file is the same spec), then by path.

    A path whose ``id`` changed pairs its old and new versions (an ``id-changed`` change), and an
    unreadable document pairs with the other side's version at its path, so a broken new
    version is not also reported as a deleted spec. Unpaired versions are added or deleted.
    """
    old_left, new_left = dict(enumerate(old)), dict(enumerate(new))
    pairs: list[tuple[Version | None, Version | None]] = []

    def pair_up(key: Callable[[Version], object]) -> None:
        waiting: dict[object, list[int]] = {}
        for i, o in old_left.items():
            k = key(o)
            if k is not None:
                waiting.setdefault(k, []).append(i)
        for j, n in list(new_left.items()):
            k = key(n)
            if k is not None and waiting.get(k):
                i = waiting[k].pop(0)
                pairs.append((old_left.pop(i), new_left.pop(j)))

    def spec_id(v: Version) -> str | None:
        return v.spec.id if v.spec is not None else None

    # Same id at the same path first, so duplicate ids (SD204) pair up as well as they can.
    pair_up(lambda v: None if v.spec is None else (v.spec.id, v.location))
    pair_up(spec_id)
    pair_up(lambda v: v.location)
    pairs += [(None, n) for n in new_left.values()]
    pairs += [(o, None) for o in old_left.values()]
    return pairs


def compare_sets(old: Sequence[Version], new: Sequence[Version]) -> list[SpecDiff]:
    """Every spec in either set with its changes, sorted by path; out-of-scope old-only
    versions (read only to recognise moves) are left out."""
    found: list[SpecDiff] = []
    for o, n in match_by_id(old, new):
        if n is None:
            assert o is not None
            if not o.in_scope:
                continue
            if o.spec is None:
                found.append(SpecDiff(o, None))
            else:
                found.append(
                    SpecDiff(
                        o,
                        None,
                        (
                            change(
                                "spec-deleted",
                                f"spec {o.spec.id} ({o.spec.title}) deleted",
                                o.spec.id,
                            ),
                        ),
                    )
                )
        elif o is None:
            if n.spec is None:
                found.append(SpecDiff(None, n))
            else:
                found.append(
                    SpecDiff(
                        None,
                        n,
                        (
                            change(
                                "spec-added", f"spec {n.spec.id} ({n.spec.title}) added", n.spec.id
                            ),
                        ),
                    )
                )
        else:
            diff = compare_versions(o, n)
            if o.spec is not None and n.spec is not None and o.location != n.location:
                moved = change("spec-moved", f"moved from {o.path} to {n.path}", o.path)
                diff = SpecDiff(o, n, ordered((*diff.changes, moved)))
            found.append(diff)
    return sorted(found, key=lambda d: (d.path, d.old_path or ""))

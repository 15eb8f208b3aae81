"""Classify what changed between two versions of a spec (pure: specs in, changes out).

The classes and kinds are those of :mod:`generator.diffing.changes`; two sets of specs are
matched by :mod:`generator.diffing.matching`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from generator.diffing.changes import Change, change, ordered, pair_text, q
from generator.diffing.retirement import added_hint, removed_states, retirement_changes
from generator.model.spec import Spec, Storage, Transition

_T = TypeVar("_T")
_K = TypeVar("_K")
_V = TypeVar("_V")


def diff_specs(
    old: Spec,
    new: Spec,
    old_extras: Mapping[str, object] | None = None,
    new_extras: Mapping[str, object] | None = None,
) -> tuple[Change, ...]:
    """Every change from ``old`` to ``new``, ordered by :func:`ordered`.

    ``*_extras`` are the front matter keys outside
    :data:`~generator.diffing.changes.MODEL_KEYS` (team extensions), if known.
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
    found = removed_states(old, new)
    found += [
        change("state-added", f"state {q(n)} added{added_hint(old, new, n)}", n)
        for n in new_names
        if n not in old_names
    ]
    found += retirement_changes(old, new)
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
    found = _events(old, new) + _pair_delta(
        old_by_pair,
        new_by_pair,
        ("transition-removed", "transition {} removed"),
        ("transition-added", "transition {} added"),
    )
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
    found = _pair_delta(
        old_why,
        new_why,
        ("invalid-removed", "{} is no longer listed invalid"),
        ("invalid-added", "{} is now listed invalid"),
    )
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
    found += _storage(old.storage, new.storage)
    return found


def _storage(old: Storage | None, new: Storage | None) -> list[Change]:
    """``storage`` compared field by field (its place in the file aside)."""
    was = {} if old is None else old._replace(path=())._asdict()
    now = {} if new is None else new._replace(path=())._asdict()
    if was == now:
        return []
    if not was or not now:
        verb = "added" if not was else "removed"
        return [change("storage-changed", f"storage {verb}", "storage")]
    fields = [
        f"{k} {_value(was.get(k))} -> {_value(now.get(k))}" for k in now if was.get(k) != now.get(k)
    ]
    return [change("storage-changed", f"storage changed: {', '.join(fields)}", "storage")]


def _extras(old: Mapping[str, object], new: Mapping[str, object]) -> list[Change]:
    found: list[Change] = []
    for key in sorted(set(old) | set(new)):
        if key in old and key in new and old[key] == new[key]:
            continue
        verb = "added" if key not in old else "removed" if key not in new else "changed"
        found.append(change("extension-changed", f"extension key {q(key)} {verb}", key))
    return found


def _pair_delta(
    old: Iterable[tuple[str, str]],
    new: Iterable[tuple[str, str]],
    removed: tuple[str, str],
    added: tuple[str, str],
) -> list[Change]:
    """A change per pair only in ``old`` (``removed``: kind, message with ``{}`` for the
    pair) and per pair only in ``new`` (``added``), in declaration order."""
    old_pairs, new_pairs = list(old), list(new)
    gone = [(removed, p) for p in old_pairs if p not in new_pairs]
    came = [(added, p) for p in new_pairs if p not in old_pairs]
    return [
        change(kind, text.format(pair_text(p)), pair_text(p)) for (kind, text), p in gone + came
    ]


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

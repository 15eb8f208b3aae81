"""Removed states and the ``retired`` list, compared (pure: specs in, changes out).

A state the new version no longer declares is ``state-retired`` when the new version's
``retired`` list says where its rows go (or that none may hold it), else ``state-removed``
(what ``lint --against`` reports as SD208). Changes to the list itself for states that were
not removed in this step (already gone before) have their own kinds.
"""

from __future__ import annotations

from collections.abc import Iterable

from generator.diffing.changes import Change, change, q
from generator.model.spec import Retired, Spec


def _by_state(items: Iterable[Retired]) -> dict[str, Retired]:
    """state -> its first entry (duplicates are lint's business, SD119)."""
    found: dict[str, Retired] = {}
    for item in items:
        found.setdefault(item.state, item)
    return found


def removed_states(old: Spec, new: Spec) -> list[Change]:
    """``state-removed`` or ``state-retired`` for each state of ``old`` that ``new`` does
    not declare, in ``old``'s order; a lone removal beside a lone addition is hinted as a
    rename when no retirement says otherwise."""
    old_names, new_names = old.state_names, new.state_names
    removed = [n for n in old_names if n not in new_names]
    added = [n for n in new_names if n not in old_names]
    retired = _by_state(new.retired)
    found = []
    for name in removed:
        entry = retired.get(name)
        if entry is None:
            hint = f" (renamed to {q(added[0])}?)" if len(removed) == len(added) == 1 else ""
            found.append(change("state-removed", f"state {q(name)} removed{hint}", name))
        elif entry.to is None:
            found.append(
                change("state-retired", f"state {q(name)} retired: no row may hold it", name)
            )
        else:
            found.append(
                change(
                    "state-retired",
                    f"state {q(name)} retired: its rows move to {q(entry.to)}",
                    name,
                )
            )
    return found


def added_hint(old: Spec, new: Spec, name: str) -> str:
    """What to say of a state added beside removed ones: whose rows move to it, or a guess."""
    moved_here = [r.state for r in new.retired if r.to == name and r.state in old.state_names]
    if moved_here and moved_here[0] not in new.state_names:
        return f" (rows of {', '.join(map(q, moved_here))} move to it)"
    removed = [n for n in old.state_names if n not in new.state_names]
    added = [n for n in new.state_names if n not in old.state_names]
    unretired = [n for n in removed if n not in {r.state for r in new.retired}]
    if len(removed) == len(added) == 1 and unretired:
        return f" (renamed from {q(removed[0])}?)"
    return ""


def retirement_changes(old: Spec, new: Spec) -> list[Change]:
    """Entries of ``retired`` added, removed or edited, for states not removed in this step."""
    before, after = _by_state(old.retired), _by_state(new.retired)
    just_removed = {n for n in old.state_names if n not in new.state_names}
    found: list[Change] = []
    for name, entry in after.items():
        if name in just_removed:
            continue  # state-retired says it
        was = before.get(name)
        if was is None:
            where = (
                f"its rows move to {q(entry.to)}" if entry.to is not None else "no row may hold it"
            )
            found.append(change("retirement-added", f"state {q(name)} retired: {where}", name))
            continue
        if was.to != entry.to:
            if was.to is None:
                assert entry.to is not None
                found.append(
                    change(
                        "retirement-destination-added",
                        f"retired state {q(name)}: its rows now move to {q(entry.to)}",
                        name,
                    )
                )
            else:
                now = f"to {q(entry.to)}" if entry.to is not None else "nowhere: none may hold it"
                found.append(
                    change(
                        "retirement-destination-changed",
                        f"retired state {q(name)}: its rows move {now}, not to {q(was.to)}",
                        name,
                    )
                )
        if was.why != entry.why:
            found.append(
                change("retirement-why-changed", f"retired state {q(name)}: why changed", name)
            )
    found += [
        change(
            "retirement-removed",
            f"state {q(name)} is no longer retired: rows still holding it have no destination",
            name,
        )
        for name in before
        if name not in after and name not in new.state_names
    ]
    return found

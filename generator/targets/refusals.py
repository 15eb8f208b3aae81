"""What no target may generate, whatever the lint configuration ignores: a transition naming an
undeclared state (SD102), a repeated transition (SD105), an invalid pair naming an undeclared
state (SD103), declared and listed invalid at once (SD104), listed twice (SD106), or an undeclared
initial state (SD112). Generation never renames, drops or merges anything silently.

Identifier collisions (SD110, SD116) depend on each target's naming: :func:`unique_members`
checks them with the naming a target passes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from generator.render.environment import RenderError

if TYPE_CHECKING:
    from generator.model.spec import Spec


def refuse_unfaithful(spec: Spec, error: type[Exception] = RenderError) -> None:
    """Raise ``error`` naming the first of those defects in ``spec``; return if there is none.
    (Identifier collisions, SD110, depend on each target's naming and are checked there.)"""
    states = set(spec.state_names)
    keyed: set[tuple[str, str, str | None]] = set()
    for t in spec.transitions:
        for name in t.pair:
            if name not in states:
                raise error(
                    f"transition {t.from_state!r} -> {t.to_state!r} names "
                    f"undeclared state {name!r} (SD102)"
                )
        key = (*t.pair, t.event)
        if key in keyed:
            raise error(f"transition {t.from_state!r} -> {t.to_state!r} is declared twice (SD105)")
        keyed.add(key)
    declared = {t.pair for t in spec.transitions}
    listed: set[tuple[str, str]] = set()
    for i in spec.invalid:
        for name in i.pair:
            if name not in states:
                raise error(
                    f"invalid pair {i.from_state!r} -> {i.to_state!r} names "
                    f"undeclared state {name!r} (SD103)"
                )
        if i.pair in declared:
            raise error(
                f"{i.from_state!r} -> {i.to_state!r} is both a declared "
                "transition and listed invalid (SD104)"
            )
        if i.pair in listed:
            raise error(f"invalid pair {i.from_state!r} -> {i.to_state!r} is listed twice (SD106)")
        listed.add(i.pair)
    for name in spec.initial_states:
        if name not in states:
            raise error(f"initial state {name!r} is not declared (SD112)")


def refuse_ambiguous_events(spec: Spec, error: type[Exception] = RenderError) -> None:
    """Raise ``error`` when an event leads from one state to two targets (SD115): ``fire``
    takes THE transition of an event, and a vectors file gives each (state, event) one."""
    target: dict[tuple[str, str], str] = {}
    for t in spec.transitions:
        if t.event is not None and target.setdefault((t.from_state, t.event), t.to_state) != (
            t.to_state
        ):
            raise error(f"event {t.event!r} leads from {t.from_state!r} to two targets (SD115)")


def unique_members(
    names: Iterable[str],
    naming: Callable[[str], str],
    what: str,
    code: str,
    *,
    error: type[Exception] = RenderError,
    noun: str = "member",
) -> dict[str, str]:
    """Name -> its identifier under ``naming``; raise ``error`` when two names (``what``:
    "states", "events") map to one identifier (``code``: SD110, SD116)."""
    members: dict[str, str] = {}
    owner: dict[str, str] = {}
    for name in names:
        member = naming(name)
        if member in owner:
            raise error(
                f"{what} {owner[member]!r} and {name!r} both map to the {noun} {member} ({code})"
            )
        owner[member] = name
        members[name] = member
    return members

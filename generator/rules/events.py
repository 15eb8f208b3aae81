"""SD115/SD116: named events (``event`` on a transition) and what ``fire`` can honour.

A guard in the spec is prose the generated code cannot evaluate, and runtime guards are bound
to a ``(from, to)`` pair: ``fire(event)`` must name exactly one transition from each state. So
SD115 reports one event leading from one state to two targets even when the guards differ;
distinguish them with two event names instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from generator.model.document import Document
from generator.model.events import event_member as _event_member
from generator.model.events import method_clash
from generator.rules import Hit, rule
from generator.rules.examples import DOOR

#: A pure function of the event name (see :mod:`generator.rules.graph`'s ``member_name``).
event_member = lru_cache(maxsize=4096)(_event_member)

_EVENTS = DOOR.replace("trigger: close}", "trigger: close, event: close}").replace(
    "trigger: open}", "trigger: open, event: push}"
)


@rule(
    "SD115",
    "nondeterministic-event",
    "one event leads from one state to two different targets",
    why="`fire(event)` takes the one transition the event names from the current state; two "
    "targets leave the choice to chance. Guards do not help: they are prose here and bound to a "
    "pair at runtime, so give each alternative its own event name.",
    bad=_EVENTS + "  - {from: closed, to: closed, trigger: jammed, event: push}\n",
    good=_EVENTS + "  - {from: closed, to: closed, trigger: jammed, event: push_jammed}\n",
)
def nondeterministic_event(doc: Document) -> Iterator[Hit]:
    seen: dict[tuple[str, str], int] = {}
    for index, item in enumerate(doc.spec.transitions):
        if item.event is None:
            continue
        key = (item.from_state, item.event)
        first = seen.setdefault(key, index)
        other = doc.spec.transitions[first]
        if first != index and other.to_state != item.to_state:
            yield Hit(
                f"event {item.event!r} leads from {item.from_state!r} to both "
                f"{other.to_state!r} and {item.to_state!r}",
                (*item.path, "event"),
                related=((doc.span((*other.path, "event")), "first declared here"),),
            )


@rule(
    "SD116",
    "event-name-collision",
    "an event name collides with another after identifier mapping, or with the generated API",
    why="Generated code names `Event` members and `Machine` methods after events; statedoc "
    "refuses to rename one silently.",
    bad=_EVENTS.replace("event: push}", "event: fire}"),
    good=_EVENTS,
)
def event_name_collision(doc: Document) -> Iterator[Hit]:
    owner: dict[str, tuple[str, int]] = {}
    reported: set[str] = set()
    for index, item in enumerate(doc.spec.transitions):
        event = item.event
        if event is None or event in reported:
            continue
        path = (*item.path, "event")
        member = event_member(event)
        other = owner.setdefault(member, (event, index))
        if other[0] != event:
            reported.add(event)
            first = doc.span((*doc.spec.transitions[other[1]].path, "event"))
            yield Hit(
                f"events {other[0]!r} and {event!r} both become Event.{member}",
                path,
                related=((first, f"{other[0]!r} declared here"),),
            )
            continue
        clash = method_clash(event)
        if clash is not None:
            reported.add(event)
            yield Hit(f"event {event!r} cannot be a Machine method: {clash}", path)

"""Identifiers the generated code makes from event names, and the names they may not take.

Lint (SD116) and the Python renderer share these, so a collision is refused before anything is
generated and the renderer never renames an event silently.
"""

from __future__ import annotations

import keyword

from generator.model.names import member_name

#: Attributes of a generated ``Machine``: a per-event method may not shadow any of them.
MACHINE_NAMES = frozenset(
    {
        "state",
        "is_terminal",
        "can",
        "can_fire",
        "events",
        "transition",
        "fire",
    }
)


def event_member(event: str) -> str:
    """The ``Event`` member: ``rcv_syn`` -> ``RCV_SYN`` (the state mapping, for one rule)."""
    return member_name(event)


def method_clash(event: str) -> str | None:
    """Why ``event`` cannot be a ``Machine`` method name, or None when it can."""
    if not event.isidentifier() or not event.isascii():
        return "it is not an ASCII identifier"
    if keyword.iskeyword(event):
        return "it is a Python keyword"
    if event.startswith("_"):
        return "it starts with an underscore"
    if event in MACHINE_NAMES:
        return f"Machine.{event} is part of the generated API"
    return None

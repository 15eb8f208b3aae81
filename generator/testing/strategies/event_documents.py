"""Named events, list sources and URL sources for random documents (``spec_drafts(events=True)``).

Valid by construction: an event leads from one state to one target (SD115), never twice the
same pair with the same event (SD105), and never takes a name of the generated API (SD116).
A transition sharing a pair with another gets its own event; transitions with the same target
and event may be merged into one item with a list ``from``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from generator.model.events import method_clash

#: Lower snake case event names, some short and likely to repeat across states.
EVENT_NAMES = st.sampled_from(("go", "stop", "retry", "rcv_ack", "time_out", "e2")) | st.from_regex(
    r"[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,3}){0,2}", fullmatch=True
).filter(lambda name: method_clash(name) is None)

URLS = st.sampled_from(
    (
        "https://www.rfc-editor.org/rfc/rfc9293#section-3.10",
        "http://example.com/docs/lifecycle",
        "https://docs.example.com/a%20b?x=1&y=[2]#frag",
    )
)


@st.composite
def with_events(draw: st.DrawFn, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``items`` (one per distinct pair, ``from`` a single state) with events drawn, a few
    extra transitions on existing pairs, URL sources and some items merged into a list ``from``."""
    used: dict[str, set[str]] = {}  # from state -> events taken
    out: list[dict[str, Any]] = []

    def fresh(source: str) -> str:
        taken = used.setdefault(source, set())
        name = draw(EVENT_NAMES.filter(lambda e: e not in taken))
        taken.add(name)
        return name

    for given in items:
        item = dict(given)
        if draw(st.booleans()):
            item["event"] = fresh(item["from"])
        if draw(st.integers(0, 3)) == 0:
            item["source"] = draw(URLS)
        out.append(item)
        if "event" in item and draw(st.integers(0, 3)) == 0:  # a second event on the pair
            again = {"from": item["from"], "to": item["to"], "trigger": item["trigger"] + "!"}
            again["event"] = fresh(item["from"])
            out.append(again)
    if draw(st.booleans()):
        out = _merged(out)
    return out


def _merged(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items with the same target and event become one item with a list ``from``."""
    merged: list[dict[str, Any]] = []
    by_key: dict[tuple[str, str | None], dict[str, Any]] = {}
    for item in items:
        key = (item["to"], item.get("event"))
        first = by_key.get(key)
        if first is None:
            by_key[key] = item
            merged.append(item)
            continue
        sources = first["from"] if isinstance(first["from"], list) else [first["from"]]
        first["from"] = [*sources, item["from"]]
    return merged


def expand(item: dict[str, Any]) -> list[str]:
    """The source states of a transition item (``from`` a state or a list)."""
    value = item["from"]
    return list(value) if isinstance(value, list) else [value]

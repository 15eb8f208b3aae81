"""SD117-SD119: retired states (front matter ``retired``), where the rows of a state a revision
removed or renamed go.

A retirement moves rows once, from the retired state straight to a declared state: a chain
(``a`` to ``b``, ``b`` to ``c``) or a cycle is refused rather than resolved, and the finding
names the state the chain ends in, so the fix is one edit and the generated SQL moves every
row with one UPDATE whose destination the new triggers accept. ``why`` is required by the
schema (SD010).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.core.suggest import did_you_mean
from generator.model.document import Document
from generator.model.spec import Retired
from generator.rules import Hit, rule
from generator.rules.examples import DOOR

#: The door once had ``ajar``; its rows are closed now.
_RETIRED = DOOR + "retired:\n  - {state: ajar, to: closed, why: merged into closed}\n"


def _first(retired: tuple[Retired, ...]) -> dict[str, Retired]:
    """Each retired name's first entry (later ones are SD119)."""
    first: dict[str, Retired] = {}
    for item in retired:
        first.setdefault(item.state, item)
    return first


@rule(
    "SD117",
    "retired-state-declared",
    "a retired state is also declared in `states`",
    why="A retired state is one the revision no longer has: its rows move away and the "
    "triggers refuse it. Declared as well, it would be both allowed and moved away from.",
    bad=_RETIRED.replace("  - name: closed\n", "  - name: closed\n  - name: ajar\n"),
    good=_RETIRED,
)
def retired_state_declared(doc: Document) -> Iterator[Hit]:
    declared = {s.name: s for s in doc.spec.states}
    for item in doc.spec.retired:
        state = declared.get(item.state)
        if state is not None:
            where = doc.span((*state.path, "name"))
            yield Hit(
                f"retired state {item.state!r} is also declared: remove it from `states`, "
                "or from `retired` if it stays",
                (*item.path, "state"),
                related=((where, "declared here"),),
            )


@rule(
    "SD118",
    "retired-destination",
    "a retired state's `to` is not a declared state (a chain or cycle of retirements included)",
    why="The generated SQL moves the rows of a retired state to its `to` in one step, and the "
    "new triggers accept only declared states: a destination that is unknown or itself retired "
    "would strand the rows. Point `to` at the declared state the chain ends in.",
    bad=_RETIRED.replace("ajar, to: closed", "ajar, to: shut"),
    good=_RETIRED,
)
def retired_destination(doc: Document) -> Iterator[Hit]:
    spec = doc.spec
    names = set(spec.state_names)
    retired = _first(spec.retired)
    for item in spec.retired:
        if item.to is None or item.to in names:
            continue  # no destination, or a declared one (SD117 covers a state declared too)
        if item.to not in retired:
            hint = did_you_mean(item.to, spec.state_names)
            message = f"retired state {item.state!r} moves to {item.to!r}: no such state{hint}"
            yield Hit(message, (*item.path, "to"))
            continue
        chain = [item.state, item.to]
        while chain[-1] in retired and chain.count(chain[-1]) == 1:
            following = retired[chain[-1]].to
            if following is None:
                break
            chain.append(following)
        path = " -> ".join(repr(n) for n in chain)
        last = chain[-1]
        if chain.count(last) > 1:
            message = f"retirements form a cycle ({path}): no declared state receives the rows"
        elif last in names:
            message = (
                f"{item.to!r} is itself retired ({path}): a retirement moves rows once, "
                f"so write `to: {last}`"
            )
        elif last in retired:
            message = f"{item.to!r} is itself retired ({path}) and {last!r} has no destination"
        else:
            message = f"{item.to!r} is itself retired ({path}) and {last!r} is no state"
        yield Hit(message, (*item.path, "to"))


@rule(
    "SD119",
    "duplicate-retired",
    "a state is retired twice",
    why="Two entries for one retired state would give its rows two destinations (or two "
    "reasons); which one was meant is a human decision.",
    bad=_RETIRED + "  - {state: ajar, why: never used}\n",
    good=_RETIRED,
)
def duplicate_retired(doc: Document) -> Iterator[Hit]:
    first = _first(doc.spec.retired)
    for item in doc.spec.retired:
        earlier = first[item.state]
        if earlier is not item:
            where = doc.span((*earlier.path, "state"))
            yield Hit(
                f"state {item.state!r} is retired twice",
                (*item.path, "state"),
                related=((where, "first retired here"),),
            )

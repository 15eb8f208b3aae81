"""SD1xx: the state graph itself (names, transitions, invalid pairs, reachability)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from generator.core.findings import Severity
from generator.core.suggest import did_you_mean
from generator.model.document import Document
from generator.model.names import member_name as _member_name
from generator.rules import Hit, rule
from generator.rules.examples import DOOR

#: A pure function of the name, and most names recur from one document to the next: a bounded
#: cache (memory stays flat) saves its NFKC and per-character work on every document.
member_name = lru_cache(maxsize=4096)(_member_name)

_DOOR_INVALID = DOOR + "invalid:\n  - {from: open, to: open, why: an open door cannot open}\n"


@rule(
    "SD101",
    "duplicate-state",
    "a state name is declared twice",
    why="Two declarations of one state leave its meaning ambiguous and its enum member doubled.",
    bad=DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: open\n"),
    good=DOOR,
)
def duplicate_state(doc: Document) -> Iterator[Hit]:
    first: dict[str, int] = {}
    for state in doc.spec.states:
        if state.name in first:
            where = doc.span((*doc.spec.states[first[state.name]].path, "name"))
            yield Hit(
                f"state {state.name!r} is declared twice",
                (*state.path, "name"),
                related=((where, "first declared here"),),
            )
        else:
            first[state.name] = state.path[1]  # type: ignore[assignment]


@rule(
    "SD102",
    "unknown-transition-state",
    "a transition's `from` or `to` is not a declared state",
    why="A transition to an undeclared state cannot be generated or drawn; usually a typo.",
    bad=DOOR.replace("to: closed,", "to: shut,"),
    good=DOOR,
)
def unknown_transition_state(doc: Document) -> Iterator[Hit]:
    names = set(doc.spec.state_names)
    for item in doc.spec.transitions:
        if item.from_state not in names:
            hint = did_you_mean(item.from_state, doc.spec.state_names)
            yield Hit(f"transition from {item.from_state!r}: no such state{hint}", item.from_path)
        # A list ``from`` expands to several transitions sharing one ``to``: report it once.
        if item.to_state not in names and not item.from_index:
            hint = did_you_mean(item.to_state, doc.spec.state_names)
            yield Hit(f"transition to {item.to_state!r}: no such state{hint}", (*item.path, "to"))


@rule(
    "SD103",
    "unknown-invalid-state",
    "an invalid pair's `from` or `to` is not a declared state",
    why="An invalid pair over an undeclared state protects nothing; usually a typo.",
    bad=_DOOR_INVALID.replace("to: open, why", "to: opened, why"),
    good=_DOOR_INVALID,
)
def unknown_invalid_state(doc: Document) -> Iterator[Hit]:
    names = set(doc.spec.state_names)
    for item in doc.spec.invalid:
        for key, value in (("from", item.from_state), ("to", item.to_state)):
            if value not in names:
                hint = did_you_mean(value, doc.spec.state_names)
                yield Hit(f"invalid pair {key} {value!r}: no such state{hint}", (*item.path, key))


@rule(
    "SD104",
    "invalid-contradicts-transition",
    "a pair is both a declared transition and listed invalid",
    why="The spec both allows and forbids the same move; generated code cannot honour both.",
    bad=DOOR + "invalid:\n  - {from: open, to: closed, why: doors stay open}\n",
    good=_DOOR_INVALID,
)
def invalid_contradicts_transition(doc: Document) -> Iterator[Hit]:
    declared = {t.pair: t for t in doc.spec.transitions}
    for item in doc.spec.invalid:
        transition = declared.get(item.pair)
        if transition is not None:
            yield Hit(
                f"{item.from_state!r} -> {item.to_state!r} is listed invalid "
                "but is a declared transition",
                item.path,
                related=((doc.span(transition.path), "declared as a transition here"),),
            )


@rule(
    "SD105",
    "duplicate-transition",
    "the same `from`/`to` pair is declared twice with the same event (or both without one)",
    why="Generated code maps each pair, or each pair and event, to one transition record; "
    "which one wins is a human decision. Several transitions may share a pair when each names "
    "a different `event`.",
    bad=DOOR + "  - {from: open, to: closed, trigger: slam}\n",
    good=DOOR.replace("trigger: close}", "trigger: close, event: close}")
    + "  - {from: open, to: closed, trigger: slam, event: slam}\n",
)
def duplicate_transition(doc: Document) -> Iterator[Hit]:
    seen: dict[tuple[str, str, str | None], int] = {}
    for index, item in enumerate(doc.spec.transitions):
        key = (*item.pair, item.event)
        if key in seen:
            first = doc.span(doc.spec.transitions[seen[key]].path)
            also = "" if item.event is None else f" for event {item.event!r}"
            yield Hit(
                f"transition {item.from_state!r} -> {item.to_state!r} is declared twice{also}",
                item.path,
                related=((first, "first declared here"),),
            )
        else:
            seen[key] = index


@rule(
    "SD106",
    "duplicate-invalid-pair",
    "the same invalid pair is listed twice",
    why="Two reasons for one forbidden move: the generated error can carry only one.",
    bad=_DOOR_INVALID + "  - {from: open, to: open, why: again}\n",
    good=_DOOR_INVALID,
)
def duplicate_invalid_pair(doc: Document) -> Iterator[Hit]:
    seen: dict[tuple[str, str], int] = {}
    for index, item in enumerate(doc.spec.invalid):
        if item.pair in seen:
            first = doc.span(doc.spec.invalid[seen[item.pair]].path)
            yield Hit(
                f"invalid pair {item.from_state!r} -> {item.to_state!r} is listed twice",
                item.path,
                related=((first, "first listed here"),),
            )
        else:
            seen[item.pair] = index


def _known_initial(doc: Document) -> tuple[str, ...]:
    names = set(doc.spec.state_names)
    return tuple(n for n in doc.spec.initial_states if n in names)


def _connected(doc: Document) -> set[str]:
    return {n for t in doc.spec.transitions for n in t.pair}


@rule(
    "SD107",
    "unreachable-state",
    "a state cannot be reached from any initial state",
    why="No sequence of declared transitions leads there: dead code in the lifecycle, or a "
    "missing transition.",
    bad="initial: open\nstates:\n  - name: open\n  - name: closed\n  - name: locked\n"
    "transitions:\n  - {from: open, to: closed, trigger: close}\n"
    "  - {from: locked, to: closed, trigger: unlock}\n",
    good="initial: open\nstates:\n  - name: open\n  - name: closed\n  - name: locked\n"
    "transitions:\n  - {from: open, to: closed, trigger: close}\n"
    "  - {from: closed, to: locked, trigger: lock}\n"
    "  - {from: locked, to: closed, trigger: unlock}\n",
)
def unreachable_state(doc: Document) -> Iterator[Hit]:
    start = _known_initial(doc)
    if not start:
        return  # SD108 or SD112 says why
    edges: dict[str, list[str]] = {}
    for item in doc.spec.transitions:
        edges.setdefault(item.from_state, []).append(item.to_state)
    reached = set(start)
    frontier = list(start)
    while frontier:
        for target in edges.get(frontier.pop(), ()):
            if target not in reached:
                reached.add(target)
                frontier.append(target)
    connected = _connected(doc)
    shown: set[str] = set()
    for state in doc.spec.states:
        name = state.name
        if name not in reached and name in connected and name not in shown:
            shown.add(name)
            yield Hit(
                f"state {name!r} cannot be reached from {_names(start)}", (*state.path, "name")
            )


#: How many initial states a message names; the rest are counted, so a finding per
#: unreachable state stays one line however many states start the machine.
_NAMED = 3


def _names(names: tuple[str, ...]) -> str:
    if len(names) == 1:
        return "the initial state " + repr(names[0])
    shown = ", ".join(repr(n) for n in names[:_NAMED])
    more = len(names) - _NAMED
    return f"the initial states {shown}" + (f" and {more} more" if more > 0 else "")


@rule(
    "SD108",
    "no-initial-state",
    "no initial state is declared and none can be inferred",
    why="Every state has an incoming transition, so statedoc cannot tell where the lifecycle "
    "starts; generated machines need a starting state. Declare `initial`.",
    bad=DOOR.replace("initial: closed\n", ""),
    good=DOOR,
)
def no_initial_state(doc: Document) -> Iterator[Hit]:
    if doc.spec.initial is None and not doc.spec.initial_states:
        yield Hit(
            "every state has an incoming transition: declare `initial: <state>`",
            ("states",),
            on_key=True,
        )


@rule(
    "SD109",
    "isolated-state",
    "a state takes part in no transition",
    why="A state nothing enters or leaves is either unfinished work or a leftover.",
    bad=DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: ajar\n"),
    good=DOOR,
)
def isolated_state(doc: Document) -> Iterator[Hit]:
    if len(doc.spec.state_names) < 2:
        return
    connected = _connected(doc)
    for state in doc.spec.states:
        if state.name not in connected:
            yield Hit(f"state {state.name!r} takes part in no transition", (*state.path, "name"))


@rule(
    "SD110",
    "identifier-collision",
    "two state names map to the same generated identifier",
    why="Generated code names enum members after states; statedoc refuses to rename one silently.",
    bad=DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: Open\n"),
    good=DOOR,
)
def identifier_collision(doc: Document) -> Iterator[Hit]:
    states = doc.spec.states
    first: dict[str, int] = {}  # spans only for a hit: a clean document never needs them
    for index, state in enumerate(states):
        member = member_name(state.name)
        other = states[first.setdefault(member, index)]
        if other.name != state.name:  # the same name twice is SD101
            yield Hit(
                f"states {other.name!r} and {state.name!r} both become State.{member}",
                (*state.path, "name"),
                related=((doc.span((*other.path, "name")), f"{other.name!r} declared here"),),
            )


@rule(
    "SD111",
    "self-transition",
    "a transition goes from a state to itself",
    why="Usually a copy-paste slip; when it is meant (a retry that stays put) ignore it inline.",
    bad=DOOR + "  - {from: open, to: open, trigger: wedge}\n",
    good=DOOR,
    severity=Severity.WARNING,
)
def self_transition(doc: Document) -> Iterator[Hit]:
    for item in doc.spec.transitions:
        if item.from_state == item.to_state:
            yield Hit(f"transition from {item.from_state!r} to itself", item.path)


@rule(
    "SD112",
    "unknown-initial-state",
    "`initial` names an undeclared state",
    why="The machine would start in a state that does not exist.",
    bad=DOOR.replace("initial: closed", "initial: ajar"),
    good=DOOR,
)
def unknown_initial_state(doc: Document) -> Iterator[Hit]:
    initial = doc.spec.initial
    if initial is None:
        return
    names = set(doc.spec.state_names)
    single = isinstance(doc.loaded.value, dict) and isinstance(doc.loaded.value.get("initial"), str)
    for index, name in enumerate(initial):
        if name not in names:
            path = ("initial",) if single else ("initial", index)
            hint = did_you_mean(name, doc.spec.state_names)
            yield Hit(f"initial state {name!r} is not declared{hint}", path)

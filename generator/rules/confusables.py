"""SD113/SD114: state names that look alike but differ (homoglyphs) or mix scripts.

A reviewer reads ``open`` and ``оpen`` (Cyrillic о) as one state; Python, the generator and
the diagram see two. The comparison is Unicode TR39's *skeleton*: NFD, each character mapped
to the prototype it is confusable with, NFD again (:mod:`generator.core.lookalike`).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.core.findings import Severity
from generator.core.lookalike import differences, scripts, skeleton
from generator.model.document import Document
from generator.model.names import member_name
from generator.rules import Hit, rule
from generator.rules.examples import DOOR


@rule(
    "SD113",
    "confusable-state-names",
    "two state names look the same but differ (homoglyphs such as Latin `o` and Cyrillic `о`)",
    why="Reviewers read both as one state while the generated code has two: a transition "
    "written with the look-alike goes somewhere else than it seems (TR39 skeletons).",
    bad=DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: \u043epen\n"),
    good=DOOR,
    severity=Severity.WARNING,
)
def confusable_state_names(doc: Document) -> Iterator[Hit]:
    names = doc.spec.state_names
    if all(name.isascii() for name in names):
        return  # ASCII names can only collide as 0/O, 1/l/I or rn/m: SD110 or deliberate
    states = doc.spec.states
    first: dict[str, int] = {}  # spans only for a hit: a clean document never needs them
    for index, state in enumerate(states):
        key = skeleton(state.name)
        first_state = states[first.setdefault(key, index)]
        other = first_state.name
        if other != state.name and member_name(other) != member_name(state.name):
            odd, plain = (other, state.name) if state.name.isascii() else (state.name, other)
            yield Hit(
                f"state {state.name!r} looks like {other!r} but differs "
                f"({differences(odd, plain)})",
                (*state.path, "name"),
                related=((doc.span((*first_state.path, "name")), f"{other!r} declared here"),),
            )


@rule(
    "SD114",
    "mixed-script-state-name",
    "a state name mixes letters of the Latin, Cyrillic or Greek scripts",
    why="A name such as `оpen` (Cyrillic о, Latin pen) is almost always a homoglyph slipped in "
    "by a keyboard layout or a paste; nobody can see it in review.",
    bad=DOOR.replace("name: open\n", "name: \u043epen\n")
    .replace("to: open,", "to: \u043epen,")
    .replace("from: open,", "from: \u043epen,"),
    good=DOOR,
    severity=Severity.WARNING,
)
def mixed_script_state_name(doc: Document) -> Iterator[Hit]:
    seen: set[str] = set()
    for state in doc.spec.states:
        name = state.name
        if name.isascii() or name in seen:
            continue
        seen.add(name)
        found = scripts(name)
        if len(found) > 1:
            yield Hit(
                f"state {name!r} mixes {' and '.join(s.title() for s in found)} letters "
                f"({differences(name, '')})",
                (*state.path, "name"),
            )

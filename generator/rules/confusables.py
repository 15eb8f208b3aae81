"""SD113/SD114: state names that look alike but differ (homoglyphs) or mix scripts.

A reviewer reads ``open`` and ``оpen`` (Cyrillic о) as one state; Python, the generator and
the diagram see two. The comparison is Unicode TR39's *skeleton*: NFD, each character mapped
to the prototype it is confusable with, NFD again. The map below holds the common Latin,
Cyrillic and Greek confusables of TR39's table (no new dependency for the full data).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from generator.findings import Severity
from generator.model.document import Document
from generator.model.names import member_name
from generator.rules import Hit, rule
from generator.rules.examples import DOOR

_PAIRS = (
    # Cyrillic lower case
    "аa ԁd еe һh іi јj ӏl оo рp ԛq ѕs ԝw хx уy сc ԍG ѵv үy"
    # Cyrillic upper case
    " АA ВB ЕE НH ІI ЈJ КK МM ОO РP СC ТT ХX УY ЅS ԚQ ԜW ӀI ҮY"
    # Greek
    " αa οo ρp νv ιi γy ϲc ϳj κĸ ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX"
    # Latin and common look-alikes (TR39 maps these to one prototype too)
    " 0O 1l Il |l ıi ſf"
)
_SKELETON: dict[int, str] = {}
for _pair in _PAIRS.split():
    _SKELETON[ord(_pair[0])] = _pair[1:]
_SKELETON[ord("m")] = "rn"  # TR39: m and rn are confusable
# A prototype may itself be mapped (Cyrillic І -> I -> l): resolve to the final one.
_SKELETON = {key: value.translate(_SKELETON) for key, value in _SKELETON.items()}

_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def skeleton(text: str) -> str:
    """TR39 skeleton of ``text`` (restricted to the map above)."""
    mapped = unicodedata.normalize("NFD", text).translate(_SKELETON)
    return unicodedata.normalize("NFD", mapped)


def scripts(text: str) -> list[str]:
    """The scripts of the letters of ``text`` among Latin, Cyrillic and Greek, in order."""
    found: list[str] = []
    for char in text:
        if not char.isalpha() or char.isascii():
            script = "LATIN" if char.isascii() and char.isalpha() else None
        else:
            name = unicodedata.name(char, "")
            script = next((s for s in _SCRIPTS if name.startswith(s + " ")), None)
        if script is not None and script not in found:
            found.append(script)
    return found


def differences(name: str, other: str) -> str:
    """The characters of ``name`` that are not plain ASCII, named (for messages)."""
    shown = [
        f"U+{ord(c):04X} {unicodedata.name(c, '?')}"
        for c in dict.fromkeys(name)
        if not c.isascii() and c not in other
    ]
    return ", ".join(shown[:3]) or "different code points"


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

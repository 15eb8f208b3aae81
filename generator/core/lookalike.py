"""Look-alike names (Unicode TR39 skeletons): what SD113/SD114 compare and what every
"did you mean" (rules and configuration) tries first.

The comparison is TR39's *skeleton*: NFD, each character mapped to the prototype it is
confusable with, NFD again. The map below holds the common Latin, Cyrillic and Greek
confusables of TR39's table (no new dependency for the full data).
"""

from __future__ import annotations

import unicodedata

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

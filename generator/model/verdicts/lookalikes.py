"""Names that are no state (or no event) but look like one: the variants every implementation
must refuse.

A service that compares names case-insensitively, trims them, folds full-width letters or
normalises Unicode accepts a name the spec does not declare. :func:`state_lookalikes` spells
such variants of every real name, each with the kind of variant it is, plus a few generic
non-names (empty, blank, NUL, names of object attributes that a map built on a plain object
would find). Pure functions of the names: the same list on every run, in every language.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal, NamedTuple

from generator.model.names import member_name

#: The kinds of variant, as the vectors file's ``variant`` field spells them.
CASE, PADDING, WIDTH, NORMALISATION, SEPARATOR, CONTROL = (
    "case",
    "padding",
    "width",
    "normalisation",
    "separator",
    "control",
)
EMPTY, ATTRIBUTE, OTHER = "empty", "attribute", "other"
VARIANTS = (CASE, PADDING, WIDTH, NORMALISATION, SEPARATOR, CONTROL, EMPTY, ATTRIBUTE, OTHER)

#: Names an implementation's own object model may answer to (Python attributes, the
#: properties every JavaScript object inherits).
_ATTRIBUTES = ("__class__", "__proto__", "constructor", "toString", "hasOwnProperty")
_FORMS: tuple[Literal["NFC", "NFD", "NFKC", "NFKD"], ...] = ("NFC", "NFD", "NFKC", "NFKD")
_FULL_WIDTH_OFFSET = 0xFEE0  # U+0021..U+007E -> U+FF01..U+FF5E
_BOLD_CAPITAL, _BOLD_SMALL = 0x1D400, 0x1D41A  # MATHEMATICAL BOLD CAPITAL A, SMALL A


class Lookalike(NamedTuple):
    """A name that is not one of the real names: ``of`` is the real name it varies (None for
    a generic non-name) and ``variant`` says how."""

    name: str
    variant: str
    of: str | None


def full_width(name: str) -> str:
    """``name`` with every printable ASCII character in its full-width form (NFKC folds it
    back, so a service that normalises compatibility forms accepts it)."""
    return "".join(
        chr(ord(c) + _FULL_WIDTH_OFFSET) if "!" <= c <= "~" else "\u3000" if c == " " else c
        for c in name
    )


def compatibility_form(name: str) -> str:
    """``name`` with its first ASCII letter in MATHEMATICAL BOLD (U+1D400...): NFKC folds it
    back, so even an ASCII-only name has a variant that only Unicode normalisation accepts."""
    for index, char in enumerate(name):
        if "a" <= char <= "z" or "A" <= char <= "Z":
            base = (
                _BOLD_SMALL + ord(char) - ord("a")
                if char.islower()
                else (_BOLD_CAPITAL + ord(char) - ord("A"))
            )
            return name[:index] + chr(base) + name[index + 1 :]
    return name


def _variants_of(name: str) -> Iterable[tuple[str, str]]:
    for cased in (name.upper(), name.lower(), name.swapcase(), name.capitalize(), name.casefold()):
        yield cased, CASE
    for padded in (
        name + " ",
        " " + name,
        name + "\t",
        name + "\n",
        name + "\u00a0",  # no-break space: str.strip() removes it, most SQL trims do not
        "\u200b" + name,  # zero-width space: invisible in logs and diffs
    ):
        yield padded, PADDING
    yield full_width(name), WIDTH
    for form in _FORMS:
        yield unicodedata.normalize(form, name), NORMALISATION
    yield compatibility_form(name), NORMALISATION
    yield member_name(name), SEPARATOR
    for a, b in (("-", "_"), ("_", "-"), (" ", "_"), ("_", " ")):
        yield name.replace(a, b), SEPARATOR
    head, *rest = name.replace("-", "_").split("_")
    yield head + "".join(part.capitalize() for part in rest), SEPARATOR  # camelCase
    yield name + "\x00", CONTROL


def lookalikes(names: Sequence[str], generic: Iterable[tuple[str, str]]) -> tuple[Lookalike, ...]:
    """The variants of every name in ``names`` (in order, each variant once, the first kind
    that produced it), then the generic ones; none of them is one of ``names``."""
    real = set(names)
    found: dict[str, Lookalike] = {}
    for name, variant in generic:
        if name not in real:
            found.setdefault(name, Lookalike(name, variant, None))
    generic_names = dict(found)
    found = {}
    for name in names:
        for candidate, variant in _variants_of(name):
            if candidate not in real and candidate not in generic_names:
                found.setdefault(candidate, Lookalike(candidate, variant, name))
    return (*found.values(), *generic_names.values())


def _generic(other: str) -> tuple[tuple[str, str], ...]:
    return (
        ("", EMPTY),
        (" ", EMPTY),
        ("\x00", CONTROL),
        (other, OTHER),
        *((name, ATTRIBUTE) for name in _ATTRIBUTES),
    )


def state_lookalikes(states: Sequence[str]) -> tuple[Lookalike, ...]:
    """Names that are no state: variants of every state, then generic non-names."""
    return lookalikes(states, _generic("no such state"))


def event_lookalikes(events: Sequence[str]) -> tuple[Lookalike, ...]:
    """Names that are no event: variants of every event, then generic ones (none without
    events: a module without events has no events API to try them on)."""
    if not events:
        return ()
    return lookalikes(events, _generic("no such event"))

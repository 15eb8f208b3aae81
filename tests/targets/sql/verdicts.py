"""What one statement on a bound table must do, computed from the generated Python module
(never typed in): the SQLSTATE of an UPDATE or INSERT, and the values worth probing."""

from __future__ import annotations

from types import ModuleType

#: The SQLSTATEs the generated triggers raise (None: the statement passes).
FORBIDDEN, UNDECLARED, UNKNOWN, NOT_INITIAL, OK = "SDF01", "SDU01", "SDS01", "SDI01", None


def expected_update(module: ModuleType, old: str | None, new: str | None) -> str | None:
    """The SQLSTATE an UPDATE from ``old`` to ``new`` must raise (None: it passes)."""
    if old == new:
        return OK
    names = {s.value for s in module.State}
    if old not in names or new not in names:
        return UNKNOWN
    try:
        module.check(old, new)
    except module.ForbiddenTransition:
        return FORBIDDEN
    except module.UndeclaredTransition:
        return UNDECLARED
    return OK


def expected_insert(
    module: ModuleType, new: str | None, must_be_initial: bool = True
) -> str | None:
    names = {s.value for s in module.State}
    if new not in names:
        return UNKNOWN
    allowed = {s.value for s in module.INITIAL} if must_be_initial else names
    return OK if new in allowed else NOT_INITIAL


def probe_names(module: ModuleType) -> list[str | None]:
    """Every state, plus names that are not states (NULL, a near miss, case-changed)."""
    states = [s.value for s in module.State]
    extra: list[str | None] = [None, "not a state", states[0] + " ", states[0].upper() + "X"]
    return states + [e for e in extra if e not in states]

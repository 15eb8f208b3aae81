""" "Did you mean" for a name that is not declared: look-alikes first, then close spellings."""

from __future__ import annotations

from collections.abc import Sequence

from generator.core.lookalike import differences, skeleton


def did_you_mean(value: str, known: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` for the declared name ``value`` most likely stands for, else
    ``""``. difflib is imported only here, when a name is unknown (never on a clean run)."""
    if not known:
        return ""
    key = skeleton(value)
    for name in known:
        if name != value and skeleton(name) == key:
            odd, plain = (name, value) if value.isascii() else (value, name)
            return f"; did you mean {name!r}? they look alike ({differences(odd, plain)})"
    folded = {name.casefold(): name for name in known}
    if value.casefold() in folded:
        return f"; did you mean {folded[value.casefold()]!r}?"
    import difflib

    close = difflib.get_close_matches(value, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""

"""One installed object against the one the repository generates: pure comparisons.

Each function returns ``(code, text)`` pairs: ``text`` completes "the <object> ...", so
:mod:`.verify` can gather every difference of one object into one finding per code.
Definitions are compared exactly (a function's ``prosrc`` with the generated body, its
settings with the generated ``SET``), conditions as the server deparses them (:mod:`.probe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from generator.targets.sql.installed import Domain, Function, Table, Trigger
from generator.targets.sql.pg_functions import PgDomain, PgFunction, PgTrigger
from generator.targets.sql.probe import Probed, Unverified

NOT_FIRING, DIFFERS, UNVERIFIED = "SD125", "SD126", "SD129"
Diff = tuple[str, str]
_VOLATILITY = {"i": "IMMUTABLE", "s": "STABLE", "v": "VOLATILE"}
_PARALLEL = {"s": "PARALLEL SAFE", "r": "PARALLEL RESTRICTED", "u": "PARALLEL UNSAFE"}
#: How many unexpected values a message lists before it counts the rest.
_SHOWN = 4


@dataclass(frozen=True)
class Accepts:
    """What casting values to an installed domain did (``probe.domain_accepts``)."""

    results: Mapping[str, bool] | Unverified
    states: tuple[str, ...]


def first_difference(want: str, got: str) -> str:
    """Where two texts part: the line, and both texts around the first character that
    differs (blanks collapsed), short enough for a message."""
    wanted, found = want.splitlines(), got.splitlines()
    for number, (line_want, line_got) in enumerate(zip(wanted, found, strict=False), start=1):
        if line_want != line_got:
            a, b = " ".join(line_want.split()), " ".join(line_got.split())
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            at = min(len(a), len(b)) if at is None else at
            return (
                f"line {number} has {_around(b, at)} where the generated one has {_around(a, at)}"
            )
    if len(found) != len(wanted):
        return f"{len(found)} lines instead of the generated {len(wanted)}"
    return "they differ in line endings or trailing blanks"


def _around(text: str, at: int, width: int = 40) -> str:
    start, end = max(0, at - width), at + width
    return repr(("..." if start else "") + text[start:end] + ("..." if end < len(text) else ""))


def _listed(values: list[str]) -> str:
    shown = ", ".join(map(repr, values[:_SHOWN]))
    more = len(values) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def function_diffs(expected: PgFunction, function: Function) -> list[Diff]:
    out: list[str] = []
    if function.body != expected.body:
        out.append(
            "has another body than the generated one "
            f"({first_difference(expected.body, function.body)})"
        )
    if function.config != expected.config:
        out.append(
            f"has settings {list(function.config)!r} instead of {list(expected.config)!r} (without "
            "SET search_path a caller's schema can shadow what the body calls)"
        )
    for got, want, words in (
        (function.volatility, expected.volatility, _VOLATILITY),
        (function.parallel, expected.parallel, _PARALLEL),
    ):
        if got != want:
            out.append(f"is {words.get(got, got)}, not {words.get(want, want)}")
    if function.language != expected.language:
        out.append(f"is written in {function.language}, not {expected.language}")
    if function.security_definer and not expected.security_definer:
        out.append("is SECURITY DEFINER (it would run with its owner's rights)")
    if expected.security_definer and not function.security_definer:
        out.append("is not SECURITY DEFINER (writers would need privileges on the history)")
    if function.strict:
        out.append("is STRICT (a NULL argument would skip the check)")
    if function.kind != "f" or function.returns_set or function.returns != expected.returns:
        returned = ("SETOF " if function.returns_set else "") + function.returns
        out.append(f"returns {returned}, not {expected.returns}")
    if function.arg_names != expected.arg_names or function.arg_modes or function.defaults:
        extra = " with modes or defaults" if function.arg_modes or function.defaults else ""
        out.append(
            f"takes arguments named {list(function.arg_names)!r}{extra}, "
            f"not {list(expected.arg_names)!r}"
        )
    return [(DIFFERS, text) for text in out]


def trigger_diffs(
    expected: PgTrigger,
    trigger: Trigger,
    table: Table,
    function: Function | None,
    probed: Probed,
) -> list[Diff]:
    """Everything that decides when the trigger fires and what it runs."""
    out: list[str] = []
    if not trigger.row:
        out.append("fires once per statement, not FOR EACH ROW")
    if trigger.timing != expected.timing:
        out.append(f"fires {trigger.timing}, not {expected.timing}, the row is written")
    columns = () if expected.event == "INSERT" else (expected.column,)
    if trigger.events != (expected.event,) or trigger.columns != columns:
        event = " OF ".join((expected.event, *columns))
        fires = " OR ".join(trigger.events) + (
            f" OF {', '.join(trigger.columns)}" if trigger.columns else ""
        )
        out.append(f"fires on {fires}, not on {event}")
    if function is None or trigger.function_oid != function.oid:
        out.append(f"executes {trigger.function}, not {expected.function.signature}")
    if trigger.args:
        out.append(f"passes arguments {list(trigger.args)!r} to its function")
    if trigger.constraint or trigger.transition_tables:
        out.append("is a constraint trigger or has transition tables, which statedoc never makes")
    diffs = [(NOT_FIRING, text) for text in out]
    if expected.when is None:  # nothing to probe: it must fire for every row
        if trigger.when is not None:
            text = f"has a WHEN condition ({trigger.when}), the generated one none"
            diffs.append((NOT_FIRING, text))
        return diffs
    want = probed.whens.get(trigger.oid)
    if isinstance(want, str):
        got = trigger.when
        if got is None:
            diffs.append((NOT_FIRING, "has no WHEN condition, the generated trigger has one"))
        elif got != want:
            where = first_difference(want, got)
            diffs.append(
                (NOT_FIRING, f"has another WHEN condition than the generated one ({where})")
            )
        return diffs
    if expected.column not in table.columns:
        reason = f"the table has no column {expected.column}"
    else:
        reason = want.reason if isinstance(want, Unverified) else "it was not probed"
    diffs.append((UNVERIFIED, f"its WHEN condition could not be compared ({reason})"))
    return diffs


def domain_diffs(
    expected: PgDomain, domain: Domain, probed: Probed, accepts: Accepts | None
) -> list[Diff]:
    """The base type, the constraint (as deparsed, and validated) and what it accepts."""
    out: list[Diff] = []
    if domain.base_type != "text":
        out.append((DIFFERS, f"is over {domain.base_type}, not text"))
    if domain.not_null:
        out.append((DIFFERS, "is NOT NULL, which the generated domain is not"))
    for other in domain.constraints:
        if other.name != expected.constraint:
            out.append((DIFFERS, f"has a constraint {other.name} statedoc does not generate"))
    mine = next((c for c in domain.constraints if c.name == expected.constraint), None)
    if mine is None:
        out.append((DIFFERS, f"has no constraint {expected.constraint}, so it accepts any text"))
    else:
        if not mine.validated:
            out.append((DIFFERS, f"has its constraint {mine.name} NOT VALID"))
        want = probed.constraints.get(domain.oid)
        got = mine.definition.removesuffix(" NOT VALID")
        if isinstance(want, str):
            if got != want:
                out.append((DIFFERS, f"has constraint {mine.name} {got} instead of {want}"))
        else:
            reason = want.reason if isinstance(want, Unverified) else "it was not probed"
            out.append((UNVERIFIED, f"its constraint could not be compared ({reason})"))
    if accepts is not None:
        out += _accepts_diffs(accepts)
    return out


def _accepts_diffs(accepts: Accepts) -> list[Diff]:
    results = accepts.results
    if isinstance(results, Unverified):
        return [(UNVERIFIED, f"casting values to it failed ({results.reason})")]
    states = set(accepts.states)
    rejected = [v for v in accepts.states if results.get(v) is False]
    accepted = [v for v, ok in results.items() if ok and v not in states]
    out: list[Diff] = []
    if rejected:
        out.append((DIFFERS, f"rejects the state(s) {_listed(rejected)}"))
    if accepted:
        out.append((DIFFERS, f"accepts {_listed(accepted)}, which are no states"))
    return out

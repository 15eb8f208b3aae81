"""The primitives the module checks share: a failure collector, a guarded call and the
check of one ``Transition`` record (kept apart so :mod:`.checks` and :mod:`.events` can both
use them without importing each other)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.testing.proofs.expected import ExpectedTransition

_MAX_REPORTED = 40


class Failures:
    def __init__(self, module: str, origin: str) -> None:
        self.module = module
        self.origin = origin
        self.items: list[str] = []

    def add(self, message: str) -> None:
        self.items.append(message)

    def raise_if_any(self) -> None:
        if not self.items:
            return
        shown = self.items[:_MAX_REPORTED]
        more = len(self.items) - len(shown)
        lines = [
            f"{self.module} does not behave as its {self.origin} says "
            f"({len(self.items)} problem{'s' if len(self.items) != 1 else ''}):",
            *(f"  - {item}" for item in shown),
        ]
        if more:
            lines.append(f"  ... and {more} more")
        raise AssertionError("\n".join(lines))


def _call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Exception | None]:
    try:
        return func(*args, **kwargs), None
    except Exception as exc:
        return None, exc


def describe(exc: BaseException | None) -> str:
    return "no exception" if exc is None else f"{type(exc).__name__}({exc})"


def check_transition_record(
    got: Any, want: ExpectedTransition, m: Any, failures: Failures, where: str
) -> None:
    """A returned or tabled ``Transition`` must carry exactly the spec's text."""
    if not isinstance(got, m.Transition):
        failures.add(f"{where}: expected a Transition, got {got!r}")
        return
    event = getattr(got, "event", None)
    if (event is None) != (want.event is None) or (
        event is not None and (not isinstance(event, m.Event) or event.value != want.event)
    ):
        failures.add(f"{where}: event is {event!r}, the spec says {want.event!r}")
    for name in ("trigger", "guard", "who", "provenance", "source"):
        value, wanted = getattr(got, name), getattr(want, name)
        if value != wanted or type(value) is not type(wanted):
            failures.add(f"{where}: {name} is {value!r}, the spec says {wanted!r}")
    if not isinstance(got.side_effects, tuple) or got.side_effects != want.side_effects:
        failures.add(f"{where}: side_effects {got.side_effects!r} != {want.side_effects!r}")
    for name, state in (("from_state", want.from_state), ("to_state", want.to_state)):
        value = getattr(got, name)
        if not isinstance(value, m.State) or value.value != state:
            failures.add(f"{where}: {name} is {value!r}, expected State({state!r})")

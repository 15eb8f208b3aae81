"""The pytest class of the conformance kit: the plans and the random walk against one adapter.

Every test and every example of the walk gets a fresh adapter; the oracle is loaded once per
class, when its first test runs. With ``pytest --statedoc-coverage`` every verdict the system
gives through the adapter counts as coverage of its spec (``coverage=False`` opts out).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.testing.conformance.core import (
    Adapter,
    Oracle,
    _close,
    collector_for,
    load_oracle,
    run_checks,
)
from generator.testing.conformance.plan import MAX_UNDECLARED, build_plan

if TYPE_CHECKING:
    import hypothesis

AdapterSource = Callable[[], Adapter] | str


def conformance_tests(
    *,
    spec: str | os.PathLike[str],
    adapter: AdapterSource,
    max_undeclared: int = MAX_UNDECLARED,
    settings: hypothesis.settings | None = None,
    name: str | None = None,
    coverage: bool = True,
) -> type:
    """A pytest class proving the system behind ``adapter`` against the spec document ``spec``.

    ``adapter``: a class or zero-argument factory making a fresh :class:`Adapter` (one per
    test and per Hypothesis example), or the name of a pytest fixture returning such a factory.
    ``spec``: the document's path; a relative path is tried from the working directory, then
    from the project root above the calling file (the folder of its ``pyproject.toml``).
    ``max_undeclared``: every undeclared pair is tried up to this many; beyond, a fixed
    sample of this size that tries every source state (:func:`.plan.sample_undeclared`).
    ``settings``: Hypothesis settings of the random walk (default: the active profile).
    ``coverage``: count the system's verdicts in the ``--statedoc-coverage`` report (when it
    is on; an adapter wrapped in a ``CoveringAdapter`` by hand is not counted twice).
    """
    frame = inspect.currentframe()
    caller = frame.f_back.f_code.co_filename if frame and frame.f_back else "."
    del frame  # no reference cycle through the frame
    cache: dict[str, Oracle] = {}

    def oracle() -> Oracle:
        if "o" not in cache:
            cache["o"] = load_oracle(_resolve(spec, caller))
        return cache["o"]

    def factory(request: Any) -> Callable[[], Adapter]:
        if isinstance(adapter, str):
            made = request.getfixturevalue(adapter)
            return made if callable(made) else (lambda: made)
        return adapter

    def plan_test(kind: str, doc: str) -> Callable[[Any, Any], None]:
        def test(self: object, request: Any) -> None:
            o = oracle()
            system = factory(request)()
            seeds = bool(getattr(system, "seeds_any_state", False))
            carry = str(getattr(system, "cannot_carry", ""))
            try:
                plan = build_plan(o.expected, seeds, max_undeclared, carry)
                run_checks(system, o, plan.of(kind), collector_for(system, coverage))
            finally:
                _close(system)

        test.__doc__ = doc
        return test

    def test_random_walk(self: object, request: Any) -> None:
        from generator.testing.conformance.walk import run_walk

        run_walk(oracle(), factory(request), settings, coverage)

    stem = Path(os.fspath(spec)).stem
    from generator.model.names import pascal_name

    return type(
        name or "Test" + pascal_name(stem, fallback="Spec") + "Conformance",
        (),
        {
            "__doc__": f"conformance of a system to {os.fspath(spec)}",
            "__test__": True,
            "test_reaches_every_state": plan_test(
                "reach", "A shortest path from an initial state reaches every state."
            ),
            "test_declared_transitions": plan_test(
                "declared", "Every declared transition is accepted and stored."
            ),
            "test_invalid_pairs_rejected": plan_test(
                "invalid", "Every listed invalid pair is rejected and leaves the state."
            ),
            "test_undeclared_rejected": plan_test(
                "undeclared",
                "Undeclared pairs (all up to the bound) and names that are no state are rejected.",
            ),
            "test_random_walk": test_random_walk,
        },
    )


def _resolve(spec: str | os.PathLike[str], caller: str) -> Path:
    path = Path(os.fspath(spec))
    if path.is_absolute() or path.exists():
        return path
    from generator.load.config import find_pyproject

    pyproject = find_pyproject(Path(caller).resolve().parent)
    if pyproject is not None and (pyproject.parent / path).exists():
        return pyproject.parent / path
    return path

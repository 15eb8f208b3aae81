"""Property tests for generated state machines: the proof behind statedoc's promise.

For any generated module ``m`` (and, best, the spec document it came from):

- :func:`check_module` checks ``check``, ``can_transition``, ``targets``, ``sources`` and
  ``Machine`` over all N^2 ordered pairs of states, and the tables and constants, against the
  spec (no Hypothesis needed);
- :func:`state_machine_for` returns a Hypothesis ``RuleBasedStateMachine`` that drives a
  ``Machine`` at random with random guards and checks every attempt and invariant;
- :func:`statedoc_tests` (alias :func:`make_tests`) packs both into a pytest class in one
  line, and :func:`render_test_module` writes such a test module (``generate --tests``);
- :mod:`generator.testing.documents` generates valid spec documents (written by
  :mod:`generator.testing.yaml_writer`), :mod:`generator.testing.breakers` broken ones;
- :func:`conformance_tests` proves *your service* against a spec through an :class:`Adapter`
  (:mod:`generator.testing.conformance`), and :mod:`generator.testing.coverage` measures which
  transitions your own tests exercised (pytest: ``--statedoc-coverage``).

Usage in a downstream project::

    from generator.testing import statedoc_tests
    from myproject.generated.doors import door

    TestDoor = statedoc_tests(door, spec="specs/doors/door.md")

Give the spec whenever you can: the expected behaviour then comes from the spec itself, so a
module whose tables and behaviour are wrong together still fails. Without it the module's
own tables are the model, which only proves the module consistent with itself.

Names are imported lazily: ``import generator.testing`` imports neither Hypothesis nor
Jinja2; :func:`state_machine_for` and the strategies import Hypothesis when first used.
Nothing on the lint path imports this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.testing.checks import check_against, check_module
    from generator.testing.conformance import (
        Adapter,
        ConformanceError,
        conformance_tests,
        render_conformance_skeleton,
    )
    from generator.testing.coverage import Collector, CoveringAdapter
    from generator.testing.expected import Expected, ExpectedTransition, SpecError, load_spec
    from generator.testing.machine import state_machine_for
    from generator.testing.pytest_plugin import (
        find_generated_modules,
        import_generated,
        make_tests,
        render_test_module,
        statedoc_tests,
    )

_WHERE = {
    "Adapter": "conformance",
    "ConformanceError": "conformance",
    "conformance_tests": "conformance",
    "render_conformance_skeleton": "conformance",
    "Collector": "coverage",
    "CoveringAdapter": "coverage",
    "Expected": "expected",
    "ExpectedTransition": "expected",
    "SpecError": "expected",
    "check_against": "checks",
    "check_module": "checks",
    "load_spec": "expected",
    "state_machine_for": "machine",
    "find_generated_modules": "pytest_plugin",
    "import_generated": "pytest_plugin",
    "make_tests": "pytest_plugin",
    "render_test_module": "pytest_plugin",
    "statedoc_tests": "pytest_plugin",
}

__all__ = [
    "Adapter",
    "Collector",
    "ConformanceError",
    "CoveringAdapter",
    "Expected",
    "ExpectedTransition",
    "SpecError",
    "check_against",
    "check_module",
    "conformance_tests",
    "find_generated_modules",
    "import_generated",
    "load_spec",
    "make_tests",
    "render_conformance_skeleton",
    "render_test_module",
    "state_machine_for",
    "statedoc_tests",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))

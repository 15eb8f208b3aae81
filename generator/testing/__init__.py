"""Property tests for generated state machines: the proof behind statedoc's promise.

For any generated module ``m`` (and, best, the spec document it came from):

- :func:`check_module` checks ``check``, ``can_transition``, ``targets``, ``sources`` and
  ``Machine`` over all N^2 ordered pairs of states, and the tables and constants, against the
  spec (no Hypothesis needed);
- :func:`state_machine_for` returns a Hypothesis ``RuleBasedStateMachine`` that drives a
  ``Machine`` at random with random guards and checks every attempt and invariant;
- :func:`statedoc_tests` (alias :func:`make_tests`) packs both into a pytest class in one
  line; ``statedoc generate --tests DIR`` writes one such test module per spec (the ``tests``
  target);
- every verdict these proofs expect is the spec's verdict vectors
  (:mod:`generator.model.verdicts`, the file the ``vectors`` target writes as
  ``<name>.vectors.json``), the same file the SQL and TypeScript tests and a team's own
  implementation are held to;
- :func:`conformance_tests` proves *your service* against a spec through an :class:`Adapter`
  (:mod:`.conformance`), and :mod:`.coverage` measures which transitions your own tests and
  your service exercised (pytest: ``--statedoc-coverage``, the plugin :mod:`.pytest_plugin`);
  statedoc's proofs of its own module count nothing there;
- :mod:`generator.targets.sql.testing` drives a database table through the generated SQL, and
  :mod:`.pgserver` starts a throwaway PostgreSQL for such tests;
- :mod:`.strategies` generates valid and broken spec documents for property tests.

The module proofs live in :mod:`.proofs`, the pytest helpers in :mod:`.generated_tests`.

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
    from generator.testing.conformance import (
        Adapter,
        ConformanceError,
        conformance_tests,
    )
    from generator.testing.coverage import Collector, CoveringAdapter
    from generator.testing.generated_tests import (
        find_generated_modules,
        import_generated,
        make_tests,
        statedoc_tests,
    )
    from generator.testing.proofs.checks import check_against, check_module
    from generator.testing.proofs.expected import Expected, ExpectedTransition, SpecError, load_spec
    from generator.testing.proofs.state_machine import state_machine_for

_WHERE = {
    "Adapter": "conformance",
    "ConformanceError": "conformance",
    "conformance_tests": "conformance",
    "Collector": "coverage",
    "CoveringAdapter": "coverage",
    "Expected": "proofs.expected",
    "ExpectedTransition": "proofs.expected",
    "SpecError": "proofs.expected",
    "check_against": "proofs.checks",
    "check_module": "proofs.checks",
    "load_spec": "proofs.expected",
    "state_machine_for": "proofs.state_machine",
    "find_generated_modules": "generated_tests",
    "import_generated": "generated_tests",
    "make_tests": "generated_tests",
    "statedoc_tests": "generated_tests",
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

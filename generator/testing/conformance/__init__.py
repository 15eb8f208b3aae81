"""Conformance tests of *your* service against a spec: does the code that changes stored rows
honour the lifecycle the spec document declares?

You write an adapter (:class:`Adapter`) that lets statedoc create an object in your system, read
its stored state and attempt a move to a state; :func:`conformance_tests` turns it into a pytest
class in one line::

    from generator.testing.conformance import conformance_tests

    TestDeliveries = conformance_tests(
        spec="specs/platform/queries/workspace-export-delivery.md", adapter=DeliveryRepoAdapter
    )

The expected behaviour (the *oracle*) comes from the spec document alone: it is linted with
statedoc's own loader and its Python module is generated in memory from it (the same
``Machine`` ``statedoc generate`` writes, never a file of your tree, so it cannot be stale).
Nothing is learnt from the system under test.

The class (:mod:`.suite`) runs generated plans (:mod:`.plan`) whose verdicts are the spec's
vectors (:mod:`generator.model.verdicts`): the shortest path from an initial state to every
state, every declared transition (its source reached along a shortest path), every pair the
spec lists as invalid attempted from its source, every undeclared pair up to
:data:`.plan.MAX_UNDECLARED` (beyond it a fixed sample trying every source state) and every
name that is no state (case, width, padding and normalisation variants of every state: each
must be rejected and leave the stored state unchanged); and a Hypothesis random walk
(:mod:`.walk`) comparing the system with the generated ``Machine`` after every step. With
``pytest --statedoc-coverage`` the system's verdicts count as coverage of the spec. The
adapter protocol, the oracle and the runner of plans are in :mod:`.core`. Every failure is
a :class:`ConformanceError` naming the path that led to it: a plan's path is a shortest one;
the walk's is shrunk by Hypothesis.

Imports neither Hypothesis nor Jinja2 until a test runs.
"""

from generator.testing.conformance.core import (
    Adapter,
    AsyncAdapter,
    ConformanceError,
    Oracle,
    Step,
    format_path,
    load_oracle,
    run_checks,
    sync_adapter,
)
from generator.testing.conformance.plan import Check, Plan, build_plan
from generator.testing.conformance.suite import conformance_tests

__all__ = [
    "Adapter",
    "AsyncAdapter",
    "Check",
    "ConformanceError",
    "Oracle",
    "Plan",
    "Step",
    "build_plan",
    "conformance_tests",
    "format_path",
    "load_oracle",
    "run_checks",
    "sync_adapter",
]

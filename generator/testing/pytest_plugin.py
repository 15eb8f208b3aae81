"""pytest plugin: transition coverage of your tests per spec (``--statedoc-coverage``).

Registered through the ``pytest11`` entry point ``statedoc``; it does nothing unless asked:

- ``--statedoc-coverage``: measure the specs of the project (``[tool.statedoc] specs`` of the
  nearest ``pyproject.toml`` above the rootdir) or those given with ``--statedoc-coverage-spec``;
  print a table per spec at the end of the run;
- ``--statedoc-fail-under=N``: fail the run (exit 1) when the total is below N percent;
- ``--statedoc-coverage-json=PATH``: also write the report as JSON (for CI).

Every generated ``Machine`` is instrumented the moment its class is created, however its
module is loaded (:func:`generator.testing.coverage.hook_class_creation`), and those already
imported when the run starts are instrumented then (and again before each test, a cheap
safety net). statedoc's proof of its own generated module (the ``test_<...>.py`` that
``generate --tests`` writes, ``check_module``, ``run_machine``) counts nothing: it runs none
of your code. The conformance kit (:func:`~generator.testing.conformance_tests`) counts the
verdicts your system gives through its adapter by default; record anything else with
:class:`~generator.testing.coverage.CoveringAdapter` and
:func:`~generator.testing.coverage.active`.
Imports nothing of statedoc until coverage is asked for.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_KEY = pytest.StashKey[Any]()
_SEEN = pytest.StashKey[set[int]]()
_UNDO = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("statedoc", "statedoc transition coverage")
    group.addoption(
        "--statedoc-coverage",
        action="store_true",
        default=False,
        help="measure which declared transitions, states and invalid pairs of each spec the "
        "tests exercised, and print a table per spec",
    )
    group.addoption(
        "--statedoc-coverage-spec",
        action="append",
        default=[],
        metavar="PATH",
        help="a spec document or folder to measure (repeatable; default: the project's specs)",
    )
    group.addoption(
        "--statedoc-fail-under",
        type=float,
        default=None,
        metavar="N",
        help="fail the run when statedoc transition coverage is below N percent",
    )
    group.addoption(
        "--statedoc-coverage-json",
        default=None,
        metavar="PATH",
        help="write the statedoc coverage report as JSON to PATH",
    )


def _wanted(config: pytest.Config) -> bool:
    return bool(
        config.getoption("statedoc_coverage")
        or config.getoption("statedoc_fail_under") is not None
        or config.getoption("statedoc_coverage_json")
    )


def pytest_configure(config: pytest.Config) -> None:
    if not _wanted(config):
        return
    from generator.run.config import load_config
    from generator.testing import coverage

    collector = coverage.Collector()
    given = [Path(p) for p in config.getoption("statedoc_coverage_spec")]
    settings = load_config(Path(str(config.rootpath)))
    problems = collector.add_specs(given or list(settings.specs), settings.root)
    config.stash[_KEY] = (collector, problems)
    config.stash[_SEEN] = set()
    config.stash[_UNDO] = coverage.hook_class_creation(collector)
    coverage.instrument_loaded(collector, config.stash[_SEEN])
    coverage.ACTIVE = collector


def pytest_unconfigure(config: pytest.Config) -> None:
    if _KEY in config.stash:
        from generator.testing import coverage

        config.stash[_UNDO]()
        coverage.ACTIVE = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    if _KEY in item.config.stash:
        from generator.testing.coverage import instrument_loaded

        collector, _ = item.config.stash[_KEY]
        instrument_loaded(collector, item.config.stash[_SEEN])
    return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if _KEY not in config.stash:
        return
    collector, _ = config.stash[_KEY]
    path = config.getoption("statedoc_coverage_json")
    if path:
        collector.write_json(path)
    under = config.getoption("statedoc_fail_under")
    if under is not None and collector.percent() < under and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _KEY not in config.stash:
        return
    collector, problems = config.stash[_KEY]
    terminalreporter.write_sep("-", "statedoc transition coverage")
    for problem in problems:
        terminalreporter.write_line(f"not measured: {problem}")
    terminalreporter.write_line(collector.table())
    under = config.getoption("statedoc_fail_under")
    if under is not None:
        percent = collector.percent()
        if percent < under:
            terminalreporter.write_line(
                f"FAIL statedoc coverage {percent:.2f}% is below --statedoc-fail-under={under:g}",
                red=True,
            )
        else:
            terminalreporter.write_line(
                f"statedoc coverage {percent:.2f}% reaches --statedoc-fail-under={under:g}"
            )
    path = config.getoption("statedoc_coverage_json")
    if path:
        terminalreporter.write_line(f"statedoc coverage JSON written to {path}")

"""Hypothesis profiles and the thorough/default split (see ``tests/profiles.py``).

- ``default``: fast, for local runs; failing examples are shrunk to a minimal one, saved in
  ``.hypothesis/`` (git-ignored) and replayed first on the next run. Tests marked ``slow``
  run scaled down (``profiles.scaled``).
- ``ci``: thorough (``.ci/run`` exports ``HYPOTHESIS_PROFILE=ci``; ``CI=true`` selects it
  too): five times the examples, every slow test at full size, no example database (CI
  starts from a fresh clone, so every run explores new inputs), and no shrinking: a failing
  example is reported exactly as found, with a ``@reproduce_failure`` blob (``print_blob``);
  rerun the test locally to get it shrunk. Shrinking one failure may take Hypothesis up to
  five minutes, so a regression that fails several property tests at once could otherwise
  blow the CI time budget. A thorough run refuses ``-m``/``-k`` selections and turns any skip
  into a failure: a green CI run means every test ran.

Both disable the per-example deadline: a deadline is a wall-clock assertion and flakes on a
loaded two-core CI machine. Expensive tests scale from ``settings().max_examples``
(e.g. the random-spec pipeline runs a fifth of it: 10 locally, 50 in CI).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

# The renderer's self-checks (every literal and module re-parsed with ``ast``) are off in
# normal runs and on under test, in this process and in every statedoc process it starts.
os.environ["STATEDOC_SELF_CHECK"] = "1"

import pytest
from hypothesis import Phase, settings
from postgres_fixtures import pg, pg_contrib, pg_contrib_dsn, pg_dsn  # noqa: F401 - one of each
from profiles import PROFILE, THOROUGH

settings.register_profile("default", max_examples=50, deadline=None, print_blob=True)
settings.register_profile(
    "ci",
    max_examples=250,
    deadline=None,
    database=None,
    print_blob=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target),
)
settings.load_profile(PROFILE)


@pytest.fixture(autouse=True)
def _renderer_self_checks() -> None:
    """Also when ``generator`` was imported before this file set the variable."""
    from generator.targets.python import literals

    literals.SELF_CHECK = True


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Without pytest-xdist (``-p no:xdist``, or not installed) the ``addopts`` that spread the
    run over worker processes (pyproject.toml) still parse: they then mean one process."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("statedoc", "statedoc test suite")
    text = "pytest-xdist's option, accepted and ignored without it (one process)"
    for flag in ("--numprocesses", "--maxprocesses", "--dist"):
        group.addoption(flag, dest=f"statedoc_ignored_{flag[2:]}", help=text)


def pytest_report_header(config: pytest.Config) -> str:
    size = "thorough: full size, nothing skipped" if THOROUGH else "default: slow tests scaled"
    return f"statedoc tests: Hypothesis profile {PROFILE!r} ({size})"


def pytest_configure(config: pytest.Config) -> None:
    """A thorough run is the whole suite: no marker or keyword selection may shrink it.

    Checked at start-up, in the process pytest was started in: under pytest-xdist that is
    the controller, which then refuses before any worker starts (workers collect, so a check
    at collection would only fail them one by one)."""
    if not THOROUGH:
        return
    options = (
        ("-m", config.option.markexpr),
        ("-k", config.option.keyword),
        ("--deselect", config.getoption("deselect", None)),
    )
    chosen = [f"{flag} {value!r}" for flag, value in options if value]
    if chosen:
        raise pytest.UsageError(
            "a thorough run (CI or HYPOTHESIS_PROFILE=ci) runs every test; "
            f"drop {', '.join(chosen)}"
        )


def _fail_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    """Turn a skip into a failure that says why it was skipped."""
    report.outcome = "failed"
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
    report.longrepr = f"skipped in a thorough run (CI or HYPOTHESIS_PROFILE=ci): {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """A whole module skipped while it is collected (``importorskip``, ``skip(allow_module_level=
    True)``) is a failure in a thorough run too: the test-level hook below never sees it."""
    report = yield
    if THOROUGH and report.skipped:
        _fail_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """In a thorough run a skip is a failure: CI must not go green on tests that never ran."""
    report = yield
    if THOROUGH and report.skipped and not hasattr(report, "wasxfail"):
        _fail_skip(report)
    return report

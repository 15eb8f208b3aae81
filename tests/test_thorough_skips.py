"""In a thorough run (CI) nothing may pass by not running: a skipped test and a module skipped
while it is collected (``importorskip`` of a missing package) are both failures, and a ``-m`` or
``-k`` selection is refused. The suite runs under pytest-xdist (pyproject.toml's addopts), so
the skips are also proven where they happen in workers, and the refusal where it must come
from the controller."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["pytester"]

CONFTEST = """
import importlib.util, sys
sys.path.insert(0, {tests!r})
spec = importlib.util.spec_from_file_location("statedoc_tests_conftest", {conftest!r})
real = importlib.util.module_from_spec(spec)
spec.loader.exec_module(real)
pytest_addoption = real.pytest_addoption
pytest_configure = real.pytest_configure
pytest_make_collect_report = real.pytest_make_collect_report
pytest_runtest_makereport = real.pytest_runtest_makereport
"""
SKIPS = """
import pytest
pytest.importorskip("statedoc_no_such_package")

def test_never_runs():
    pass
"""
SKIPPED_TEST = """
import pytest

def test_skipped():
    pytest.skip("missing work")
"""


def _run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    thorough: bool,
) -> pytest.RunResult:
    """The repository's own conftest hooks, in a pytest run of their own (a subprocess, which
    reads CI from the environment as CI does)."""
    tests = os.path.dirname(os.path.abspath(__file__))
    conftest = os.path.join(tests, "conftest.py")
    pytester.makeconftest(CONFTEST.format(tests=tests, conftest=conftest))
    pytester.makepyfile(test_module_skip=SKIPS, test_test_skip=SKIPPED_TEST)
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    if thorough:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    # A worker's environment names it (PYTEST_XDIST_WORKER): the inner run is a fresh one.
    for name in [k for k in os.environ if k.startswith("PYTEST_")]:
        monkeypatch.delenv(name)
    return pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", "no:cacheprovider", "--continue-on-collection-errors", *args
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_a_thorough_run_fails_on_a_module_skipped_at_collection(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    """Under pytest-xdist the skips happen in the workers: their reports reach the controller
    as failures all the same."""
    result = _run(pytester, monkeypatch, *workers, thorough=True)
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(["*skipped in a thorough run*statedoc_no_such_package*"])
    result.stdout.fnmatch_lines(["*skipped in a thorough run*missing work*"])
    if workers:
        result.stdout.fnmatch_lines(["*2 workers*"])


def test_a_default_run_still_skips_also_without_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyproject.toml's addopts name pytest-xdist's options: ``-p no:xdist`` must still run
    (one process), and a default run skips."""
    options = ("--numprocesses=2", "--maxprocesses=4", "--dist=worksteal")
    result = _run(pytester, monkeypatch, "-p", "no:xdist", *options, thorough=False)
    result.assert_outcomes(skipped=2)
    assert "workers" not in result.stdout.str()


def test_a_thorough_run_under_xdist_refuses_a_selection_before_any_worker_starts(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The controller refuses (a usage error); were it left to the workers' collection, each
    would fail on its own and the controller would stop on an internal error."""
    result = _run(pytester, monkeypatch, "-n", "2", "-m", "slow", "-k", "skipped", thorough=True)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines(["*a thorough run*runs every test; drop -m 'slow', -k 'skipped'"])
    assert "workers" not in result.stdout.str()

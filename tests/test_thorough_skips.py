"""In a thorough run (CI) nothing may pass by not running: a skipped test and a module skipped
while it is collected (``importorskip`` of a missing package) are both failures."""

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
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *, thorough: bool
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
    return pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", "no:cacheprovider", "--continue-on-collection-errors"
    )


def test_a_thorough_run_fails_on_a_module_skipped_at_collection(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(pytester, monkeypatch, thorough=True)
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(["*skipped in a thorough run*statedoc_no_such_package*"])


def test_a_default_run_still_skips(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(pytester, monkeypatch, thorough=False)
    result.assert_outcomes(skipped=2)

"""How thorough a test run is: the developer default, or the full run CI makes.

The run is *thorough* when ``HYPOTHESIS_PROFILE=ci`` (``.ci/run`` exports it) or when ``CI``
is set (GitHub Actions, GitLab, ... set ``CI=true``): every test then runs at full size, and
nothing may be skipped or deselected (``tests/conftest.py`` enforces it). Otherwise the tests
marked ``slow`` run scaled down (about a fifth) instead of being skipped, so the default
``python -m pytest`` still exercises every path, just with fewer examples.
"""

from __future__ import annotations

import os

#: A CI service sets ``CI``; a developer may ask for the same run with the profile alone.
IN_CI = bool(os.environ.get("CI"))
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "default")
THOROUGH = PROFILE == "ci" or IN_CI
#: The default run does about this share of a slow test's full work.
FRACTION = 5

#: A conftest for a pytest run in a fresh interpreter (a downstream project's tests): the
#: default run keeps those examples few and does not shrink a failure it expects anyway.
_DOWNSTREAM_CONFTEST = """\
from hypothesis import Phase, settings

settings.register_profile(
    "statedoc-quick",
    max_examples=20,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
settings.load_profile("statedoc-quick")
"""


def scaled(full: int, minimum: int = 1) -> int:
    """``full`` in a thorough run, else about a fifth of it (at least ``minimum``)."""
    return full if THOROUGH else max(minimum, full // FRACTION)


def fuzz_examples(default: int) -> int:
    """Examples for a hostile-input property: ``STATEDOC_FUZZ_EXAMPLES`` when set (a long
    campaign on demand, e.g. 100000), else ``default``."""
    return int(os.environ.get("STATEDOC_FUZZ_EXAMPLES") or 0) or default


def downstream_conftest() -> str:
    """The ``conftest.py`` text for a fresh-interpreter pytest run: empty when thorough (the
    downstream run then uses Hypothesis' own defaults, as a real project would)."""
    return "" if THOROUGH else _DOWNSTREAM_CONFTEST

"""Hypothesis profiles, chosen by the environment variable ``HYPOTHESIS_PROFILE``.

- ``default``: fast, for local runs; failing examples are shrunk to a minimal one, saved in
  ``.hypothesis/`` (git-ignored) and replayed first on the next run.
- ``ci``: thorough (``.ci/run`` exports ``HYPOTHESIS_PROFILE=ci``): five times the examples,
  no example database (CI starts from a fresh clone, so every run explores new inputs), and
  no shrinking: a failing example is reported exactly as found, with a
  ``@reproduce_failure`` blob (``print_blob``); rerun the test locally to get it shrunk.
  Shrinking one failure may take Hypothesis up to five minutes, so a regression that fails
  several property tests at once could otherwise blow the CI time budget.

Both disable the per-example deadline: a deadline is a wall-clock assertion and flakes on a
loaded two-core CI machine. Expensive tests scale from ``settings().max_examples``
(e.g. the random-spec pipeline runs a fifth of it: 10 locally, 50 in CI).
"""

from __future__ import annotations

import os

from hypothesis import Phase, settings

settings.register_profile("default", max_examples=50, deadline=None, print_blob=True)
settings.register_profile(
    "ci",
    max_examples=250,
    deadline=None,
    database=None,
    print_blob=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

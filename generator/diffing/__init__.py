"""Semantic diff of state documents: what a change means for code built from them.

- :mod:`.semantic` (pure): classify the changes between two specs, and match two sets of specs
  by ``id`` so that a moved file is still the same spec.
- :mod:`.gitref` (I/O): read specs from the working tree and from a git ref (no checkout).
- :mod:`.report`: text, JSON and Markdown renderings of a diff.
- :mod:`.revision`: SD207, ``lint --against GIT_REF``.
"""

FORMATS = ("text", "json", "markdown")

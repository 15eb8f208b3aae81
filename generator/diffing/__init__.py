"""Semantic diff of state documents: what a change means for code built from them.

- :mod:`.categories`: who a change breaks (code, data, wording), per change kind, and the
  ``--fail-on`` values.
- :mod:`.changes`: the vocabulary (change classes, the stable change kinds, one change).
- :mod:`.classify` (pure): classify the changes between two versions of a spec;
  :mod:`.retirement` (pure) the removed states and the ``retired`` list.
- :mod:`.matching` (pure): match two sets of specs by ``id`` (a moved file is still the same
  spec) and diff each pair.
- :mod:`.gitref` (I/O): read specs from the working tree and from a git ref (no checkout).
- :mod:`.report`: text, JSON and Markdown renderings of a diff.
- :mod:`.compare`: ``statedoc diff`` as one function, request in, outcome out.
- :mod:`.revision`: SD207, ``lint --against GIT_REF``.
"""

FORMATS = ("text", "json", "markdown")

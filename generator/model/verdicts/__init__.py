"""The verdicts of one spec, computed from its model alone, and the vectors file read back.

The ``vectors`` target (:mod:`generator.targets.vectors`) writes them as
``<area>/<module>/<name>.vectors.json``; the Python proofs, the SQL property tests and the
conformance kits check their implementation against them. They live in the model stage so
that every stage after it (the testing kit above all) uses them without importing a target.

Reading the file (any language): it is one JSON object, ASCII only, with

- ``format``: ``1``. The shape changes only with a new number; a reader refuses any other.
- ``spec``: ``{"id", "revision", "title", "source", "sha256"}`` of the document;
- ``states``, ``initial``, ``terminal``, ``events``: names in the spec's order;
- ``pairs``: every ordered pair, ``states x states`` from-state major, self pairs included:
  ``{"from", "to", "verdict"}`` with ``verdict`` one of ``"allowed"``, ``"undeclared"`` and
  ``"forbidden"`` (then also ``"why"``, the text the error must carry). A write that leaves
  the state unchanged is no transition: a store may accept it as a no-op whatever the pair
  says (the SQL triggers do); ``Machine.transition`` follows the pair;
- ``fires``: every ``(state, event)``, states major (empty without events): ``{"from",
  "event", "verdict": "allowed", "to"}`` or ``{"from", "event", "verdict": "undeclared"}``;
- ``not_states``: ``{"name", "variant", "of"}``, names that are no state: variants of every
  real state (``case``, ``padding``, ``width``, ``normalisation``, ``separator``, ``control``;
  ``of`` names the state) and generic ones (``empty``, ``attribute``, ``other``; ``of`` is
  null). Naming one anywhere a state is named must be refused as not a state;
- ``not_events``: the same for events (empty without events).

:mod:`.vectors` decides every verdict (:func:`build_vectors`, :func:`vectors_of_spec`) and
compares two sets of them (:func:`differences`); :mod:`.lookalikes` spells the names that are
no state; :mod:`.reading` reads a file back (:func:`load_vectors`, checked against
:data:`SCHEMA_FILE`; a ``VectorsError`` says what is wrong).
"""

from __future__ import annotations

from generator.model.verdicts.lookalikes import Lookalike, event_lookalikes, state_lookalikes
from generator.model.verdicts.reading import SCHEMA_FILE, load_vectors, schema_text
from generator.model.verdicts.vectors import (
    ALLOWED,
    FORBIDDEN,
    FORMAT,
    NOT_A_STATE,
    UNDECLARED,
    VERDICTS,
    FireVector,
    PairVector,
    SpecInfo,
    Vectors,
    VectorsError,
    build_vectors,
    differences,
    vectors_of_spec,
)

__all__ = [
    "ALLOWED",
    "FORBIDDEN",
    "FORMAT",
    "NOT_A_STATE",
    "SCHEMA_FILE",
    "UNDECLARED",
    "VERDICTS",
    "FireVector",
    "Lookalike",
    "PairVector",
    "SpecInfo",
    "Vectors",
    "VectorsError",
    "build_vectors",
    "differences",
    "event_lookalikes",
    "load_vectors",
    "schema_text",
    "state_lookalikes",
    "vectors_of_spec",
]

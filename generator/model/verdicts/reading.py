"""Reading a vectors file back (:func:`load_vectors`), checked against its published JSON
Schema (:data:`SCHEMA_FILE`).

Here with the model of verdicts rather than with the ``vectors`` target that writes the file:
the testing kit holds a file to its spec, and no stage outside the targets imports one.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from generator.model.verdicts.lookalikes import Lookalike
from generator.model.verdicts.vectors import (
    FORMAT,
    FireVector,
    PairVector,
    SpecInfo,
    Vectors,
    VectorsError,
)

SCHEMA_FILE = Path(__file__).with_name("vectors.schema.json")


@cache
def schema_text() -> str:
    """The JSON Schema of the file (``statedoc schema --target vectors``)."""
    return SCHEMA_FILE.read_text(encoding="utf-8")


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_text()))


def load_vectors(source: str | os.PathLike[str] | bytes) -> Vectors:
    """A vectors file read back: a path, or the file's bytes. ``VectorsError`` names what is
    wrong (not JSON, another ``format``, a value the schema refuses, pairs missing)."""
    where = "vectors"
    if isinstance(source, bytes):
        data = source
    else:
        where = os.fspath(source)
        try:
            data = Path(where).read_bytes()
        except OSError as exc:
            raise VectorsError(f"cannot read the vectors file {where}: {exc}") from None
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise VectorsError(f"{where} is not JSON: {exc}") from None
    if isinstance(parsed, dict) and parsed.get("format") not in (None, FORMAT):
        raise VectorsError(
            f"{where} is vectors format {parsed.get('format')!r}; "
            f"this statedoc reads format {FORMAT}"
        )
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(parsed))
    if error is not None:
        at = "".join(f"[{p!r}]" for p in error.absolute_path) or "the top level"
        raise VectorsError(f"{where} at {at}: {error.message}")
    vectors = _from_json(parsed)
    expected = [(a, b) for a in vectors.states for b in vectors.states]
    if [(v.from_state, v.to_state) for v in vectors.pairs] != expected:
        raise VectorsError(f"{where}: pairs must list states x states in order")
    fired = [(s, e) for s in vectors.states for e in vectors.events]
    if [(v.from_state, v.event) for v in vectors.fires] != fired:
        raise VectorsError(f"{where}: fires must list states x events in order")
    return vectors


def _from_json(parsed: dict[str, Any]) -> Vectors:
    spec = parsed["spec"]
    return Vectors(
        states=tuple(parsed["states"]),
        initial=tuple(parsed["initial"]),
        terminal=tuple(parsed["terminal"]),
        events=tuple(parsed["events"]),
        pairs=tuple(
            PairVector(p["from"], p["to"], p["verdict"], p.get("why")) for p in parsed["pairs"]
        ),
        fires=tuple(
            FireVector(f["from"], f["event"], f["verdict"], f.get("to")) for f in parsed["fires"]
        ),
        not_states=tuple(Lookalike(n["name"], n["variant"], n["of"]) for n in parsed["not_states"]),
        not_events=tuple(Lookalike(n["name"], n["variant"], n["of"]) for n in parsed["not_events"]),
        spec=SpecInfo(spec["id"], spec["revision"], spec["title"], spec["source"], spec["sha256"]),
        format=parsed["format"],
    )

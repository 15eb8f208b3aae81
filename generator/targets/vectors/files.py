"""The vectors file: its canonical bytes (:func:`render_vectors`) and reading one back
(:func:`load_vectors`, checked against the published JSON Schema).

The bytes are a pure function of the vectors: ASCII only (every other character is a JSON
``\\u`` escape, so no bidi control or invisible character reaches a diff), one record per
line, keys in a fixed order. The first line carries statedoc's header as ``$comment``.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from generator.render.environment import comment_text, header_line
from generator.targets.vectors.model import (
    FireVector,
    PairVector,
    SpecInfo,
    Vectors,
    VectorsError,
)
from generator.targets.vectors.names import Lookalike

SCHEMA_FILE = Path(__file__).with_name("vectors.schema.json")
#: The first line's start, as :func:`generator.render.environment.has_header` recognises it.
COMMENT_KEY = "$comment"


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=True)


def _pair(v: PairVector) -> dict[str, object]:
    record: dict[str, object] = {"from": v.from_state, "to": v.to_state, "verdict": v.verdict}
    if v.why is not None:
        record["why"] = v.why
    return record


def _fire(v: FireVector) -> dict[str, object]:
    record: dict[str, object] = {"from": v.from_state, "event": v.event, "verdict": v.verdict}
    if v.to_state is not None:
        record["to"] = v.to_state
    return record


def _lookalike(v: Lookalike) -> dict[str, object]:
    return {"name": v.name, "variant": v.variant, "of": v.of}


def _records(key: str, records: list[dict[str, object]], last: bool = False) -> list[str]:
    end = "" if last else ","
    if not records:
        return [f"  {_dump(key)}: []{end}"]
    body = [f"    {_dump(r)}," for r in records]
    body[-1] = body[-1][:-1]
    return [f"  {_dump(key)}: [", *body, f"  ]{end}"]


def render_vectors(vectors: Vectors) -> str:
    """The file's text (``spec`` must be set: the header names the document)."""
    spec = vectors.spec
    if spec is None:
        raise VectorsError("a vectors file names its spec document: build it from a spec")
    header = header_line("", spec.source, escape=comment_text).lstrip()
    info = {
        "id": spec.id,
        "revision": spec.revision,
        "title": spec.title,
        "source": spec.source,
        "sha256": spec.sha256,
    }
    lines = [
        f"{{{_dump(COMMENT_KEY)}: {_dump(header)},",
        f'  "format": {vectors.format:d},',
        f'  "spec": {_dump(info)},',
        *(
            f"  {_dump(name)}: {_dump(list(getattr(vectors, name)))},"
            for name in ("states", "initial", "terminal", "events")
        ),
        *_records("pairs", [_pair(v) for v in vectors.pairs]),
        *_records("fires", [_fire(v) for v in vectors.fires]),
        *_records("not_states", [_lookalike(v) for v in vectors.not_states]),
        *_records("not_events", [_lookalike(v) for v in vectors.not_events], last=True),
        "}",
    ]
    return "\n".join(lines) + "\n"


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
    if isinstance(parsed, dict) and parsed.get("format") not in (None, 1):
        raise VectorsError(
            f"{where} is vectors format {parsed.get('format')!r}; this statedoc reads format 1"
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

"""The vectors file's canonical bytes (:func:`render_vectors`); reading one back is the
model's (:func:`generator.model.verdicts.load_vectors`), so the testing kit needs no target.

The bytes are a pure function of the vectors: ASCII only (every other character is a JSON
``\\u`` escape, so no bidi control or invisible character reaches a diff), one record per
line, keys in a fixed order. The first line carries statedoc's header as ``$comment``.
"""

from __future__ import annotations

import json

from generator.model.verdicts import FireVector, Lookalike, PairVector, Vectors, VectorsError
from generator.render.environment import comment_text, header_line

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

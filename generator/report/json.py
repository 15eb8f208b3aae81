"""A JSON array of finding objects, stable key order for diffing; an undecodable file-name
byte is a ``\\udcXX`` escape (``os.fsencode`` of the loaded path gives the name back)."""

from __future__ import annotations

from generator.report import Run, json_text


def render(run: Run) -> str:
    return json_text([f.to_dict() for f in run.findings])

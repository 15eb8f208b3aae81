"""Outputs too long for the file system, refused before planning (see
:mod:`generator.core.limits`).

A document with any output whose name or path the file system cannot take is refused whole
(SD409 at the front matter key that makes the name, its title most often), on every run
alike: none of its files is written, the other documents are generated as usual. A file of no
document (``__init__.py``, ``py.typed``) too long is refused at its own path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from generator.core.limits import Overlong, Room, shortened
from generator.model.document import Document
from generator.output.plan import REFUSED, Output, Problem, display
from generator.output.rendered import Pending, span_at


def refuse_overlong(
    outputs: dict[str, list[Output]],
    folders: Mapping[str, Path | None],
    kept: Mapping[str, tuple[Pending, Document | None]],
    package_files: Callable[[], None],
) -> tuple[list[Problem], set[str]]:
    """Drop from ``outputs`` (by root) every document with an output too long for its root's
    folder (then ``package_files`` adds anew the files the paths left need), and every file
    of no document too long; returns
    the refusals and the documents refused (display paths). ``kept``: each document with its
    parsed document (None when the render cache served it), by display path."""
    rooms = {root: Room(os.fspath(folder)) for root, folder in folders.items() if folder}
    refused: dict[str, tuple[str, Overlong]] = {}
    for root, listed in outputs.items():
        room = rooms.get(root)
        if room is None:
            continue
        for output in listed:
            if output.owner is not None and output.owner not in refused:
                why = room.too_long(output.relative)
                if why is not None:
                    refused[output.owner] = (output.relative, why)
    if refused:  # the package files again, for the paths left
        for listed in outputs.values():
            listed[:] = [o for o in listed if o.owner is not None and o.owner not in refused]
        package_files()
    problems = [overlong(*kept[owner], relative, why) for owner, (relative, why) in refused.items()]
    for root, listed in outputs.items():
        room = rooms.get(root)
        if room is None:
            continue
        for output in [o for o in listed if o.owner is None]:
            why = room.too_long(output.relative)
            if why is not None:
                listed.remove(output)
                shown = display(Path(room.folder, output.relative))
                text = f"refused: {_text(why, output.relative)}"
                problems.append(Problem(shown, 1, 1, text, REFUSED))
    return problems, set(refused)


def overlong(doc: Pending, document: Document | None, relative: str, why: Overlong) -> Problem:
    """The refusal of a document with an output too long to write, at the front matter key
    that makes the name at fault (the whole document when it was not parsed)."""
    area, module, _ = doc.parts
    key = "title"
    if why.kind == "name" and 0 <= why.index < relative.count("/"):
        key = {area: "product_area", module: "module"}.get(why.text, key)
    line, column, end_line, end_column = span_at(document, key) if document is not None else doc.at
    message = f"refused: {_text(why, relative, key)}"
    return Problem(doc.spec_file.display, line, column, message, REFUSED, (end_line, end_column))


def _text(why: Overlong, relative: str, key: str | None = None) -> str:
    """What is too long, by how much, and what to shorten (``key``: the front matter key)."""
    shorten = f"shorten `{key}`" if key else "choose a shorter output folder"
    if why.kind == "path":
        return (
            f"the path of {shortened(display(Path(why.text)))} and the temporary file written "
            f"beside it would take {why.size} bytes, more than the {why.limit} bytes this "
            f"system allows in a path; choose a shorter output folder"
            + (f" or {shorten}" if key else "")
        )
    last = relative.count("/")
    what = "output folder's" if why.index < 0 else "file" if why.index == last else "folder"
    fix = "choose an output folder with a shorter name" if why.index < 0 else shorten
    return (
        f"the {what} name {shortened(why.text)!r} would be {why.size} bytes, more than the "
        f"{why.limit} bytes a name may have on this file system; {fix}"
    )

"""The documents ``generate`` renders: served by the render cache or parsed and rendered.

A clean document whose bytes, path, targets and their settings (the ``context``) and
statedoc's code are those of a cached rendering is not parsed: the cache gives its module
parts, its ``id`` position and the SHA-256 of each file it renders, and when the files on
disk hold exactly those bytes they are what rendering would write. Anything else (a file
missing, edited or not ours; another context; no entry) parses the document
(:class:`~generator.output.sources.Sources`) and renders it, and the new rendering is cached
with whether its Mermaid block is in sync (a fact of the bytes, for ``build``/``check``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.cache.signatures import Signatures, now
from generator.cache.store import RenderCache
from generator.lint.document import FileResult
from generator.load.config import Config
from generator.load.discover import SpecFile
from generator.model.document import Document
from generator.output.plan import REFUSED, At, Problem
from generator.output.sources import Sources
from generator.targets import Target, module_parts


def span_at(document: Document, key: str) -> At:
    """Where a top-level front matter value stands: the position findings point at."""
    span = document.span((key,))
    start = document.source.position(span.start)
    return (*start, *document.source.position(max(span.end, span.start + 1)))


def cache_context(targets: Sequence[Target], settings: Config) -> str:
    """What besides the document decides the rendered bytes: the targets, each with its
    :meth:`~generator.targets.Target.context` and its ``[tool.statedoc.<name>]`` table as
    read, and the output folder (the test modules import from it)."""
    out = settings.out.resolve()
    try:
        package = out.relative_to(settings.root.resolve()).as_posix()
    except ValueError:
        package = "/" + out.name
    tables = settings.target_tables
    names = ",".join(f"{t.name}:{t.context()}:{tables.get(t.name)!r}" for t in targets)
    return f"{names}\0{package}"


def render_files(
    targets: Sequence[Target], document: Document, settings: Config
) -> dict[str, dict[str, bytes]]:
    return {target.name: target.files(document, settings) for target in targets}


def digests_of(rendered: dict[str, dict[str, bytes]]) -> dict[str, dict[str, str]]:
    return {
        target: {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
        for target, files in rendered.items()
    }


def served(
    digests: dict[str, dict[str, str]],
    roots: dict[str, str],
    folders: dict[str, Path | None],
    signatures: Signatures | None = None,
) -> dict[str, dict[str, bytes]] | None:
    """The files a cached rendering names, if every one on disk holds exactly the bytes it
    hashed (they are then what rendering would write); None: render (a file is missing,
    edited, or not ours). A regular file whose stat signature ``signatures`` trusts is not
    read: its bytes come back empty (planning then need not read it either)."""
    served: dict[str, dict[str, bytes]] = {}
    signatures = signatures or Signatures()
    for target, files in digests.items():
        folder = folders.get(roots.get(target, ""))
        if folder is None:
            return None
        base = os.path.abspath(folder)
        served[target] = {}
        for relative, digest in files.items():
            path = os.path.join(base, relative)
            at = now()
            try:
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):
                    return None  # a symlink, FIFO or device: never read; planning refuses it
                if signatures.digest(path, info) == digest:
                    served[target][relative] = b""
                    continue
                data = Path(path).read_bytes()
            except (OSError, ValueError):
                return None
            if hashlib.sha256(data).hexdigest() != digest:
                return None
            signatures.record(path, info, digest, at)
            served[target][relative] = data
    return served


def in_sync(document: Document) -> bool:
    """Whether ``diagram --write`` would leave the document as it is (cached with its
    renderings, so a no-op ``build``/``check`` need not parse it to know)."""
    from generator.diagram.sync import plan

    edit = plan(document)
    return edit.new is None and edit.refused is None


@dataclass
class Pending:
    """A document to generate: its module parts and ``id`` position, and its files when the
    render cache served them (``files`` None: render ``sources``' parsed document)."""

    spec_file: SpecFile
    result: FileResult
    parts: tuple[str, str, str]
    at: At
    key: str = ""
    files: dict[str, dict[str, str]] | None = None  # cached: SHA-256 per target and path


def unloadable(path: str, sources: Sources) -> Problem:
    from generator.output.sources import CHANGED

    why = (
        CHANGED
        if path in sources.changed
        else "the front matter did not load far enough to build a model (see `statedoc lint`)"
    )
    return Problem(path, 1, 1, f"refused: {why}", REFUSED)


def prepare(
    candidates: Sequence[tuple[SpecFile, FileResult]],
    sources: Sources,
    cache: RenderCache | None,
    context: str,
) -> tuple[list[Pending], list[Problem]]:
    """Each clean document from the render cache (same bytes, path, context and code), else
    parsed (when the lint run served it from the lint cache) for rendering."""
    docs: list[Pending] = []
    problems: list[Problem] = []
    for spec_file, result in candidates:
        key = ""
        if cache is not None:
            sha = sources.sha256(result)
            key = "" if sha is None else cache.key(sha, spec_file.relative)
            entry = cache.get(key) if key else None
            if entry is not None and entry.context == context:
                docs.append(Pending(spec_file, result, entry.parts, entry.at, key, entry.files))
                continue
        document = sources.document(result)
        if document is None:
            problems.append(unloadable(result.path, sources))
            continue
        at = span_at(document, "id")
        docs.append(Pending(spec_file, result, module_parts(document), at, key))
    return docs, problems

"""Content-addressed cache of per-file lint results in ``.statedoc_cache/``.

The key is the file's bytes plus everything else that can change its findings: statedoc's
version, a fingerprint of statedoc's own source files (so a development checkout never serves
results from older code) and the file-size limit. Selection and per-file ignores are applied
after the cache, so they are not part of the key. Entries are rows of one SQLite database per
folder (:mod:`generator.cache.database`), each written in its own transaction, so concurrent
runs can share the folder; a corrupt entry is a miss. Deleting the folder is always safe.

Trust model: the folder is trusted as the working tree is. Whoever can write it (the
checkout's user, a CI job that restores it from its cache store) can also write the specs,
the generated code and the CI configuration, so entries are not authenticated: a key kept in
the folder would travel with a restored copy, and one kept anywhere else would make every CI
run cold. Each entry starts with the SHA-256 of its key and body (:func:`seal`), so one that
is corrupt, edited by hand or copied under another key is a miss. That is an integrity check,
not a signature: whoever rewrites an entry can rewrite its digest. The render cache holds
digests of files, never their bytes, so nothing in it is ever written to ``generated/``. A
check that must not trust the folder it was given runs with ``--no-cache``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from contextlib import AbstractContextManager
from functools import cache
from pathlib import Path
from typing import NamedTuple

from generator import __version__
from generator.cache.database import Database, batched
from generator.core.findings import Finding
from generator.lint.document import SpecFacts

FOLDER = ".statedoc_cache"
_LAYOUT = "v4"  # v4: one SQLite database for both caches, not a file per entry


def _dependencies() -> str:
    """The installed PyYAML and jsonschema (their dist-info names carry the version) and
    whether libyaml is in use: they decide SD003 and SD010. Found without importing
    jsonschema or importlib.metadata, which would cost the warm path more than a lint."""
    import importlib.util

    import yaml

    found = [f"libyaml={yaml.__with_libyaml__}"]
    for module, dist in (("yaml", "pyyaml-"), ("jsonschema", "jsonschema-")):
        spec = importlib.util.find_spec(module)
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        if origin is None:
            found.append(f"{module}=?")
            continue
        site = origin.parent.parent
        with contextlib.suppress(OSError):
            found.extend(
                sorted(
                    n
                    for n in os.listdir(site)
                    if n.lower().startswith(dist) and n.endswith(".dist-info")
                )
            )
    return ";".join(found)


@cache
def code_fingerprint() -> str:
    """Names, sizes and mtimes of statedoc's own modules and the versions of the libraries
    that decide findings: cheap, and changes with any of them."""
    digest = hashlib.sha256(__version__.encode())
    digest.update(_dependencies().encode())
    for relative in _fingerprinted():
        stat = os.stat(os.path.join(_PACKAGE, relative))
        digest.update(f"{relative}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


#: The ``generator`` package (this module lives in ``generator/cache``): every module, schema
#: and template under it decides findings or renderings.
_PACKAGE = Path(__file__).resolve().parent.parent


_FINGERPRINTED = (".py", ".json", ".j2")


def fingerprinted_files() -> list[Path]:
    """The files :func:`code_fingerprint` covers, in a stable order."""
    return [_PACKAGE / relative for relative in _fingerprinted()]


def _fingerprinted() -> list[str]:
    """Their paths relative to the package, sorted as paths (``os.walk``: a ``pathlib`` glob
    costs a cold run more than the fingerprint is worth); symlinked folders are not entered."""
    found: list[str] = []
    for folder, folders, files in os.walk(_PACKAGE):
        folders[:] = [name for name in folders if name != "__pycache__"]  # bytecode only
        below = os.path.relpath(folder, _PACKAGE)
        prefix = "" if below == "." else below.replace(os.sep, "/") + "/"
        found.extend(prefix + name for name in files if name.endswith(_FINGERPRINTED))
    return sorted(found, key=lambda relative: relative.split("/"))


_IGNORED: set[Path] = set()


def _ignore(folder: Path) -> None:
    """Keep the cache out of git without asking the user to edit .gitignore (looked at once
    per folder and process)."""
    if folder in _IGNORED:
        return
    gitignore = folder / ".gitignore"
    if not gitignore.exists():
        folder.mkdir(parents=True, exist_ok=True)
        gitignore.write_text("# created by statedoc\n*\n", encoding="utf-8")
    _IGNORED.add(folder)


def _digest(key: str, body: bytes) -> bytes:
    return hashlib.sha256(key.encode() + b"\0" + body).hexdigest().encode()


def seal(key: str, body: bytes) -> bytes:
    """An entry's bytes: the digest of its key and body on the first line, then the body."""
    return _digest(key, body) + b"\n" + body


def unseal(key: str, data: bytes) -> bytes | None:
    """The body of an entry :func:`seal` made under ``key``; None for anything else (a
    corrupt or hand-edited entry, or one stored under another key)."""
    digest, _, body = data.partition(b"\n")
    return body if digest == _digest(key, body) else None


def layout_folder(root: Path) -> Path:
    """Where both caches of the project at ``root`` keep their database (and the signature
    index, :mod:`generator.cache.signatures`)."""
    return root / FOLDER / _LAYOUT


class Cache:
    """One cache folder; ``get``/``put`` by file content."""

    def __init__(self, root: Path, *, max_file_size: int) -> None:
        self.folder = layout_folder(root)
        self._entries = Database(os.fspath(self.folder))
        self.salt = f"{code_fingerprint()}:{max_file_size}:".encode()

    def key(self, data: bytes) -> str:
        return hashlib.sha256(self.salt + data).hexdigest()

    def batched(self) -> AbstractContextManager[None]:
        """A block whose puts are written in one transaction (:func:`.database.batched`)."""
        return batched()

    def get(self, key: str, path: str) -> tuple[list[Finding], SpecFacts | None] | None:
        entry = self._entries.get("lint", key)
        if entry is None:
            return None
        try:
            body = unseal(key, entry)
            if body is None:
                return None
            raw = json.loads(body.decode("utf-8", "surrogatepass"))
            findings = [Finding.from_dict({**item, "path": path}) for item in raw["findings"]]
            facts = SpecFacts(**raw["facts"]) if raw["facts"] is not None else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return findings, facts

    def put(self, key: str, findings: list[Finding], facts: SpecFacts | None) -> None:
        entry = {
            "findings": [{**f.to_dict(), "path": ""} for f in findings],
            "facts": None if facts is None else facts._asdict(),
        }
        with contextlib.suppress(OSError):  # a read-only checkout still lints
            _ignore(self.folder.parent)  # the database is made with its first entry
        body = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")
        self._entries.put("lint", key, seal(key, body))


class Rendered(NamedTuple):
    """What the render cache knows about one document (by its bytes and path): its module
    parts, where its ``id`` stands, whether its Mermaid block is in sync with its front matter
    (a fact of the bytes alone), and its files per target as rendered under ``context`` (the
    targets and their settings; ``files`` serve only a run with the same context)."""

    parts: tuple[str, str, str]
    at: tuple[int, int, int, int]
    diagram: bool
    context: str
    files: dict[str, dict[str, str]]


class RenderCache:
    """Rendered files by what they are rendered from: the document's SHA-256 and its
    config-relative path (the key), statedoc's own code (the salt), and the targets and their
    settings (``context``: the target names, ``[tool.statedoc.sql]``, the output folder's
    package path; stored in the entry and compared on use). A no-op ``generate``/``build``/
    ``check`` then compares cached bytes with the tree instead of parsing and rendering
    every document again; one entry per document and path, replaced when the context
    changes."""

    def __init__(self, root: Path) -> None:
        self.folder = layout_folder(root)
        self._entries = Database(os.fspath(self.folder))
        self.salt = code_fingerprint()
        self._project = os.path.isfile(root / "pyproject.toml")
        self._read: dict[str, Rendered | None] = {}  # the diagram and generate steps share

    def key(self, document_sha256: str, relative: str) -> str:
        text = f"{self.salt}\0{document_sha256}\0{relative}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def batched(self) -> AbstractContextManager[None]:
        """A block whose puts are written in one transaction (:func:`.database.batched`)."""
        return batched()

    def get(self, key: str) -> Rendered | None:
        """The entry :meth:`put` stored under ``key``; a missing, corrupt or edited one is
        None. Read once per instance (keys name content, so an entry never changes)."""
        if key not in self._read:
            self._read[key] = self._load(key)
        return self._read[key]

    def _load(self, key: str) -> Rendered | None:
        stored = self._entries.get("render", key)
        if stored is None:
            return None
        try:
            body = unseal(key, stored)
            if body is None:
                return None
            raw = json.loads(body.decode("utf-8"))
            area, module, name = (str(part) for part in raw["parts"])
            line, column, end_line, end_column = (int(n) for n in raw["at"])
            files = {
                str(target): {str(path): str(text) for path, text in files.items()}
                for target, files in raw["files"].items()
            }
            return Rendered(
                (area, module, name),
                (line, column, end_line, end_column),
                raw["diagram"] is True,
                str(raw["context"]),
                files,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, entry: Rendered) -> None:
        if not self._project:
            return  # never create a cache in a folder that is not a project
        with contextlib.suppress(OSError):
            _ignore(self.folder.parent)
        raw = {
            "parts": entry.parts,
            "at": entry.at,
            "diagram": entry.diagram,
            "context": entry.context,
            "files": entry.files,
        }
        self._entries.put("render", key, seal(key, json.dumps(raw).encode("utf-8")))
        self._read[key] = entry

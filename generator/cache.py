"""Content-addressed cache of per-file lint results in ``.statedoc_cache/``.

The key is the file's bytes plus everything else that can change its findings: statedoc's
version, a fingerprint of statedoc's own source files (so a development checkout never serves
results from older code) and the file-size limit. Selection and per-file ignores are applied
after the cache, so they are not part of the key. Entries are written atomically (temp file +
rename), so concurrent runs can share the folder; a corrupt entry is a miss. Deleting the
folder is always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import asdict
from functools import cache
from pathlib import Path

from generator import __version__
from generator.findings import Finding
from generator.lint import SpecFacts
from generator.write import replace_file

FOLDER = ".statedoc_cache"
_LAYOUT = "v1"


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
    package = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    digest.update(_dependencies().encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json", ".j2"):
            stat = path.stat()
            digest.update(
                f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()[:16]


def _ignore(folder: Path) -> None:
    """Keep the cache out of git without asking the user to edit .gitignore."""
    gitignore = folder / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("# created by statedoc\n*\n", encoding="utf-8")


class Cache:
    """One cache folder; ``get``/``put`` by file content."""

    def __init__(self, root: Path, *, max_file_size: int) -> None:
        self.folder = root / FOLDER / _LAYOUT
        self.salt = f"{code_fingerprint()}:{max_file_size}:".encode()

    def key(self, data: bytes) -> str:
        return hashlib.sha256(self.salt + data).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key[2:]}.json"

    def get(self, key: str, path: str) -> tuple[list[Finding], SpecFacts | None] | None:
        try:
            raw = json.loads(self._path(key).read_text(encoding="utf-8"))
            findings = [Finding.from_dict({**item, "path": path}) for item in raw["findings"]]
            facts = SpecFacts(**raw["facts"]) if raw["facts"] is not None else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return findings, facts

    def put(self, key: str, findings: list[Finding], facts: SpecFacts | None) -> None:
        entry = {
            "findings": [{**f.to_dict(), "path": ""} for f in findings],
            "facts": None if facts is None else asdict(facts),
        }
        target = self._path(key)
        with contextlib.suppress(OSError):  # a read-only checkout still lints
            target.parent.mkdir(parents=True, exist_ok=True)
            _ignore(self.folder.parent)
            data = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")
            replace_file(target, data, durable=False)


class RenderCache:
    """Rendered modules and diagrams by what they are rendered from: the document's SHA-256,
    its config-relative path, the module name and statedoc's own code. A no-op ``generate``
    then compares cached bytes with the tree instead of rendering every template again."""

    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER / _LAYOUT / "render"
        self.salt = code_fingerprint()

    def key(self, document_sha256: str, relative: str, module: str) -> str:
        text = f"{self.salt}\0{document_sha256}\0{relative}\0{module}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> tuple[str, str] | None:
        try:
            raw = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
            return str(raw["module"]), str(raw["diagram"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, module: str, diagram: str) -> None:
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            _ignore(self.folder.parent.parent)
            data = json.dumps({"module": module, "diagram": diagram}).encode("utf-8")
            replace_file(self.folder / f"{key}.json", data, durable=False)

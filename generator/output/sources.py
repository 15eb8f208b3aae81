"""The bytes and parsed documents of linted files, for the steps after lint.

A lint run that reuses the lint cache (``lint_files(..., keep_documents=True, reuse=True)``)
has no parsed document for the files the cache served. The diagram and generate steps first
try the render cache (:class:`~generator.cache.store.RenderCache`, keyed by the file's bytes and
path); only what it cannot serve is parsed here, once, and kept on the lint result for the
steps that follow. So a no-op ``build``/``check`` costs about a warm lint, and a document
that changed is parsed like any other. The lint run already read every document: one whose
stat signature is unchanged (:mod:`generator.cache.signatures`) is not read again to be hashed.

A file read here is linted again before its document is used: should it have changed since
the lint run (an editor saving while statedoc runs), a version with errors is never
generated; it is reported as changed instead.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Sequence

from generator.cache.signatures import Signatures, now
from generator.core.findings import Severity
from generator.lint.document import FileResult
from generator.lint.files import Settings, lint_data
from generator.load.discover import SpecFile
from generator.load.source import read_bounded
from generator.model.document import Document

#: The refusal for a file whose new bytes no longer lint clean.
CHANGED = "the file changed while statedoc ran and no longer lints clean; run it again"


class Sources:
    """Bytes (read once) and documents (parsed once) of the linted files, by display path."""

    def __init__(
        self,
        files: Sequence[SpecFile],
        settings: Settings,
        signatures: Signatures | None = None,
        opened: int | None = None,
    ) -> None:
        self.files = {spec.display: spec for spec in files}
        self.settings = settings
        #: Stat signatures: an unchanged document's hash without reading it a second time.
        self.signatures = signatures or Signatures()
        #: A time before the lint run read any document (None: unknown, record nothing read
        #: by lint).
        self.opened = opened
        self._sha256: dict[str, tuple[FileResult, str | None]] = {}
        self._data: dict[str, bytes] = {}
        #: Display paths whose bytes changed since the lint run into ones with errors.
        self.changed: set[str] = set()

    def sha256(self, result: FileResult) -> str | None:
        """SHA-256 of the file's bytes: those of its parsed document, else read now (None:
        unreadable). Remembered per result: a result linted again from other bytes (``check``
        lints the documents ``build`` would redraw) is hashed afresh."""
        known = self._sha256.get(result.path)
        if known is None or known[0] is not result:
            known = (result, self._digest(result))
            self._sha256[result.path] = known
        return known[1]

    def _digest(self, result: FileResult) -> str | None:
        if result.document is not None and result.sha256 is not None:
            self._record_linted(result, result.sha256)
            return result.sha256
        if result.document is not None:
            from generator.load.source import BOM

            source = result.document.source
            data = ((BOM if source.had_bom else "") + source.text).encode("utf-8")
            return hashlib.sha256(data).hexdigest()
        spec = self.files.get(result.path)
        if spec is None or spec.error:
            return None
        path = os.path.abspath(spec.path)
        at = now()
        try:
            info = os.stat(path)
        except OSError:
            return None
        digest = self.signatures.digest(path, info)
        if digest is None:
            read = self._read(result)
            if read is None:
                return None
            digest = hashlib.sha256(read).hexdigest()
            self.signatures.record(path, info, digest, at)
        return digest

    def _record_linted(self, result: FileResult, digest: str) -> None:
        """Record the signature the file has now for the bytes lint read, dated when the run
        began (before that read): a change made since dates the file later, within a tick,
        so the next run finds it racy and reads it, whenever the change came."""
        spec = self.files.get(result.path)
        if self.opened is None or spec is None or spec.error:
            return
        path = os.path.abspath(spec.path)
        try:
            info = os.stat(path)
        except OSError:
            return
        self.signatures.record(path, info, digest, self.opened)

    def _read(self, result: FileResult) -> bytes | None:
        """The file's bytes now (None: unreadable or too large), kept for :meth:`document`."""
        spec = self.files[result.path]
        limit = self.settings.max_file_size
        try:
            data, size = read_bounded(spec.path, limit)
        except OSError:
            return None
        if size > limit:
            return None
        self._data[result.path] = data
        return data

    def document(self, result: FileResult, tolerate: Collection[str] = ()) -> Document | None:
        """The parsed document of a result that linted clean but for ``tolerate`` (error codes
        the caller repairs itself; parsed now when the lint run served it from its cache);
        None if the file cannot be read or now has another error (then in :attr:`changed`)."""
        if result.document is not None:
            return result.document
        sha = self.sha256(result)
        if sha is None:
            return None
        data = self._data.pop(result.path, None)
        if data is None:  # hashed by its signature: read it now, as hashed
            data = self._read(result)
            if data is None or hashlib.sha256(data).hexdigest() != sha:
                self._data.pop(result.path, None)
                self.changed.add(result.path)
                return None
            del self._data[result.path]
        spec = self.files[result.path]
        run = lint_data(spec, data, self.settings)
        errors = [
            f
            for f in run.findings
            if f.severity is Severity.ERROR and f.code not in tolerate and f.path == spec.display
        ]
        if errors or run.results[0].document is None:
            self.changed.add(result.path)
            return None
        fresh = run.results[0]
        result.document, result.suppressions = fresh.document, fresh.suppressions
        return result.document

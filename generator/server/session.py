"""What the analysis process knows: the open buffers, the settings, and what was computed for
each buffer's version (lint outcome, analysis), so one keystroke costs one lint."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlparse

from generator.core.errors import ConfigError
from generator.lint.document import SpecFacts
from generator.load.config import DEFAULT_MAX_FILE_SIZE
from generator.server.analysis import Analysis, load_document
from generator.server.diagnostics import Outcome, Projects, own, target_for, with_project
from generator.server.positions import UTF16, Lines
from generator.server.settings import Settings


class StaleError(Exception):
    """The request was made on a version of the document that is no longer the current one:
    answered with LSP's ContentModified."""


class RefusedError(Exception):
    """A request statedoc will not carry out (a rename that collides): the message says why."""


class Buffer(NamedTuple):
    version: int | None
    text: str


def uri_path(uri: str) -> Path | None:
    """The file a ``file:`` URI names (None for an unsaved ``untitled:`` buffer and the like)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return Path(path)


class Session:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.buffers: dict[str, Buffer] = {}
        self.settings = Settings()
        self.encoding = UTF16
        self.document_changes = True  # the client takes versioned TextDocumentEdits
        self.projects = Projects(cwd)
        self._outcomes: dict[str, tuple[int | None, int, Outcome]] = {}
        self._own: dict[str, tuple[int | None, Outcome]] = {}
        self._analyses: dict[str, tuple[int | None, Analysis | None]] = {}
        self.last_good: dict[str, Analysis] = {}
        self.last_ids: dict[str, str | None] = {}  # each buffer's spec id at its last diagnose
        self.generation = 0  # moved by anything that can change a project rule's outcome

    # -- state changes (sent by the protocol process, in order) ------------------------------
    def open(self, uri: str, version: int | None, text: str) -> None:
        self.buffers[uri] = Buffer(version, text)
        self.files_changed()

    def change(self, uri: str, version: int | None, text: str) -> None:
        self.buffers[uri] = Buffer(version, text)
        self.generation += 1

    def close(self, uri: str) -> None:
        self.buffers.pop(uri, None)
        for cache in (self._outcomes, self._own, self._analyses, self.last_good, self.last_ids):
            cache.pop(uri, None)
        self.files_changed()

    def files_changed(self) -> None:
        self.projects.forget()
        self.generation += 1

    def configure(self, settings: Settings) -> None:
        self.settings = settings
        self._own.clear()
        self.files_changed()

    # -- lookups -------------------------------------------------------------------------------
    def buffer(self, uri: str, version: int | None = None, *, check: bool = True) -> Buffer:
        """The buffer, or :class:`StaleError` when ``version`` is given and is not its version."""
        buffer = self.buffers.get(uri)
        if buffer is None:
            raise StaleError(f"{uri} is not open")
        if check and version is not None and buffer.version != version:
            raise StaleError(f"{uri} changed since version {version}")
        return buffer

    def lines(self, text: str) -> Lines:
        return Lines(text, self.encoding)

    def own(self, uri: str, buffer: Buffer) -> Outcome:
        """The buffer's lint without project rules (cached per version)."""
        known = self._own.get(uri)
        if known is not None and known[0] == buffer.version:
            return known[1]
        try:
            outcome = own(buffer.text, target_for(uri_path(uri), self.settings, self.cwd))
        except ConfigError as exc:
            outcome = Outcome([], error=str(exc))
        self._own[uri] = (buffer.version, outcome)
        return outcome

    def open_facts(self, path: Path) -> SpecFacts | bool | None:
        for uri in list(self.buffers):
            buffer = self.buffers.get(uri)
            if buffer is not None and uri_path(uri) == path:
                return self.own(uri, buffer).facts
        return False

    def outcome(self, uri: str, buffer: Buffer) -> Outcome:
        """What ``statedoc lint`` reports for the buffer (cached per version and project
        state)."""
        generation = self.generation
        known = self._outcomes.get(uri)
        if known is not None and known[0] == buffer.version and known[1] == generation:
            return known[2]
        first = self.own(uri, buffer)
        outcome = first
        if first.error is None:
            try:
                outcome = with_project(
                    first, buffer.text, self.settings, self.projects, self.open_facts
                )
            except ConfigError as exc:  # the ref of ``against`` is missing, say
                outcome = Outcome([], error=str(exc))
        self._outcomes[uri] = (buffer.version, generation, outcome)
        return outcome

    def max_file_size(self, uri: str) -> int:
        """The configured limit for the file (without linting it)."""
        try:
            target = target_for(uri_path(uri), self.settings, self.cwd)
        except ConfigError:
            return DEFAULT_MAX_FILE_SIZE
        return target.settings.max_file_size

    def analysis(self, uri: str, buffer: Buffer) -> Analysis | None:
        """The buffer's :class:`Analysis` (None where lint stops before the model)."""
        known = self._analyses.get(uri)
        if known is not None and known[0] == buffer.version:
            return known[1]
        document = load_document(buffer.text, uri, self.max_file_size(uri))
        analysis = Analysis(document) if document is not None else None
        self._analyses[uri] = (buffer.version, analysis)
        if analysis is not None:
            self.last_good[uri] = analysis
        return analysis

"""A real LSP client (pytest-lsp's, on pygls) driving ``python -m generator server`` over stdio,
wrapped for plain synchronous tests (and Hypothesis): its event loop runs in a thread of its own.

Positions are computed here independently of the server (UTF-16 from ``str.encode``, lines at
LF, CRLF and CR), so a test compares the server with the LSP rules, not with itself.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any, TypeVar

# pygls and pytest-lsp are in the test extra: without them these tests fail to import, never skip.
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
#: A guard against a hung server, not a performance limit: a broken server fails the test.
DEADLOCK = 300.0
_BREAK = re.compile(r"\r\n|\r|\n")


def utf16_position(text: str, offset: int) -> types.Position:
    """The LSP position of a code-point offset, by the protocol's own rules."""
    starts = [0, *(m.end() for m in _BREAK.finditer(text))]
    line = max(i for i, start in enumerate(starts) if start <= offset)
    before = text[starts[line] : offset]
    return types.Position(line, len(before.encode("utf-16-le")) // 2)


def utf16_offset(text: str, position: types.Position) -> int:
    """The code-point offset of an LSP position (inverse of :func:`utf16_position`)."""
    starts = [0, *(m.end() for m in _BREAK.finditer(text))]
    start = starts[position.line]
    units = 0
    offset = start
    while units < position.character and offset < len(text) and text[offset] not in "\r\n":
        units += len(text[offset].encode("utf-16-le")) // 2
        offset += 1
    return offset


def line_texts(text: str) -> list[str]:
    return _BREAK.split(text)


def finding_range(text: str, finding: dict[str, Any]) -> types.Range:
    """A JSON finding's 1-based code-point range as LSP's 0-based UTF-16 range."""
    lines = line_texts(text)

    def point(line: int, column: int) -> types.Position:
        before = lines[line - 1][: column - 1]
        return types.Position(line - 1, len(before.encode("utf-16-le")) // 2)

    return types.Range(
        point(finding["line"], finding["column"]), point(finding["end_line"], finding["end_column"])
    )


def lint_stdin(text: str, filename: Path, cwd: Path) -> list[dict[str, Any]]:
    """``statedoc lint --stdin-filename FILE - --format json`` on ``text``, in this process."""
    from generator.cli.main import main

    data = text.encode("utf-8", "surrogatepass")
    stdin, out = sys.stdin, io.StringIO()
    before = Path.cwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    os.chdir(cwd)
    try:
        with redirect_stdout(out):
            main(["lint", "--stdin-filename", str(filename), "-", "--format", "json", "--no-cache"])
    finally:
        sys.stdin = stdin
        os.chdir(before)
    found: list[dict[str, Any]] = json.loads(out.getvalue() or "[]")
    return found


def expected_diagnostics(text: str, findings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What an LSP client must see for ``findings``: code, severity, message, range."""
    severity = {
        "error": types.DiagnosticSeverity.Error,
        "warning": types.DiagnosticSeverity.Warning,
    }
    return [
        (f["code"], severity[f["severity"]], f["message"], finding_range(text, f)) for f in findings
    ]


def seen(diagnostics: list[types.Diagnostic]) -> list[tuple[Any, ...]]:
    return [(d.code, d.severity, d.message, d.range) for d in diagnostics]


class Client:
    """One server process and its client; ``open``/``change`` wait for the diagnostics of the
    version they sent."""

    def __init__(
        self,
        cwd: Path = ROOT,
        options: dict[str, Any] | None = None,
        capabilities: types.ClientCapabilities | None = None,
    ) -> None:
        self.cwd = cwd
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.published: dict[tuple[str, int | None], list[types.Diagnostic]] = {}
        self.latest: dict[str, list[types.Diagnostic]] = {}
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.condition = threading.Condition()
        self.client = self.run(self._start(options, capabilities))

    async def _start(
        self, options: dict[str, Any] | None, capabilities: types.ClientCapabilities | None
    ) -> Any:
        client = pytest_lsp.LanguageClient(converter_factory=default_converter)

        def publish(ls: Any, params: types.PublishDiagnosticsParams) -> None:
            with self.condition:
                self.published[(params.uri, params.version)] = list(params.diagnostics)
                self.latest[params.uri] = list(params.diagnostics)
                self.condition.notify_all()

        def register(ls: Any, params: types.RegistrationParams) -> None:
            return None

        features = {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.CLIENT_REGISTER_CAPABILITY: register,
        }
        register_lsp_features(client, features)
        await client.start_io(sys.executable, "-m", "generator", "server", cwd=str(self.cwd))
        caps = capabilities or pytest_lsp.client_capabilities("visual-studio-code")
        await client.initialize_session(
            types.InitializeParams(
                capabilities=caps,
                root_uri=self.cwd.as_uri(),
                initialization_options=options,
            )
        )
        return client

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(DEADLOCK)

    def call(self, method: str, params: Any) -> Any:
        """A request by its client method name, e.g. ``text_document_hover_async``."""

        async def ask() -> Any:
            return await getattr(self.client, method)(params)

        return self.run(ask())

    def diagnostics(self, uri: str, version: int | None) -> list[types.Diagnostic]:
        with self.condition:
            if not self.condition.wait_for(lambda: (uri, version) in self.published, DEADLOCK):
                raise AssertionError(f"no diagnostics for {uri} version {version}")
            return self.published[(uri, version)]

    def wait_until(self, predicate: Callable[[], bool]) -> bool:
        """Poll ``predicate`` (for state the client keeps without telling us, such as log
        messages) until it holds or the deadlock guard runs out."""
        deadline = time.monotonic() + DEADLOCK
        while not predicate():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = path.as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri], self.texts[uri] = version, text
        with self.condition:  # what an earlier opening of the same file was told is stale
            for key in [k for k in self.published if k[0] == uri]:
                del self.published[key]
        item = types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)
        self.loop.call_soon_threadsafe(
            self.client.text_document_did_open, types.DidOpenTextDocumentParams(item)
        )
        return uri

    def edit(self, uri: str, start: int, end: int, new: str) -> int:
        """Replace code points ``start:end`` of the client's text, sent as a UTF-16 ranged
        change; returns the new version."""
        text = self.texts[uri]
        change = types.TextDocumentContentChangePartial(
            range=types.Range(utf16_position(text, start), utf16_position(text, end)), text=new
        )
        return self.change(uri, [change], text[:start] + new + text[end:])

    def replace_all(self, uri: str, text: str) -> int:
        return self.change(uri, [types.TextDocumentContentChangeWholeDocument(text=text)], text)

    def change(self, uri: str, changes: list[Any], text: str) -> int:
        version = self.versions[uri] + 1
        self.versions[uri], self.texts[uri] = version, text
        params = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes,
        )
        self.loop.call_soon_threadsafe(self.client.text_document_did_change, params)
        return version

    def save(self, uri: str) -> None:
        params = types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
        self.loop.call_soon_threadsafe(self.client.text_document_did_save, params)

    def close_document(self, uri: str) -> None:
        """Close, and wait for the server's clearing of its diagnostics: whatever it published
        for this opening has arrived by then (a later opening starts clean)."""
        with self.condition:
            self.published.pop((uri, None), None)
        params = types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
        self.loop.call_soon_threadsafe(self.client.text_document_did_close, params)
        assert self.diagnostics(uri, None) == []
        with self.condition:
            for key in [k for k in self.published if k[0] == uri]:
                del self.published[key]

    @property
    def process(self) -> Any:
        return self.client._server

    def shutdown(self) -> int | None:
        async def stop() -> int | None:
            await self.client.shutdown_session()
            await self.client.stop()
            return self.process.returncode if self.process is not None else None

        try:
            return self.run(stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(DEADLOCK)


@contextmanager
def client(**options: Any) -> Iterator[Client]:
    session = Client(**options)
    try:
        yield session
    finally:
        session.shutdown()


def apply_edit(text: str, edit: types.WorkspaceEdit, uri: str) -> str:
    """``text`` after the workspace edit's edits of ``uri`` (applied from the end)."""
    edits: list[types.TextEdit] = []
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        if change.text_document.uri == uri:
            edits.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    edits.extend((edit.changes or {}).get(uri, []))
    spans = sorted(
        (
            (utf16_offset(text, e.range.start), utf16_offset(text, e.range.end), e.new_text)
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text

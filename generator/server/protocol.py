"""The LSP side of ``statedoc server``: pygls, the open buffers, and the analysis process.

This process speaks the protocol and keeps the text of every open buffer (applying
incremental edits with LSP's own line breaks and UTF-16 units, not pygls' ``splitlines``,
which also breaks at U+2028 and form feeds). Everything that reads a document runs in the
analysis processes (:mod:`generator.server.worker`): one lints, one answers requests, so
no lint ever blocks this loop nor a request on another document: a
request waits for its answer, an edit is never lost, ``exit`` is honoured at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from generator import __version__
from generator.server import settings as server_settings
from generator.server.actions import FIX_ALL
from generator.server.positions import UTF16, apply_change
from generator.server.process import JobFailedError, Worker, WorkerGoneError
from generator.server.session import Buffer

_REQUEST_FAILED = -32803  # LSP's RequestFailed: a rename statedoc refuses, with the reason
_PARENT_CHECK = 5.0  # seconds between checks that the editor that started us is alive


class _Protocol(LanguageServerProtocol):
    """pygls' protocol without its own copy of the documents (see the module docstring)."""

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class StatedocServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "statedoc",
            __version__,
            protocol_cls=_Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.buffers: dict[str, Buffer] = {}
        self.encoding = UTF16
        self.document_changes = False
        self.settings = server_settings.Settings()
        self.linter: Worker | None = None  # diagnostics
        self.answerer: Worker | None = None  # requests: hover, rename, code actions ...
        self.shutdown_requested = False
        self._diagnosing: set[str] = set()
        self._dirty: set[str] = set()
        self._gave_up: dict[str, int | None] = {}
        #: How many times each buffer was opened: a version number is only unique per opening.
        self.openings: dict[str, int] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` on the loop, keeping a reference until it ends (the loop keeps only
        a weak one)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the analysis process ------------------------------------------------------------------
    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        with contextlib.suppress(Exception):  # the client is gone: nothing left to tell
            self.window_log_message(types.LogMessageParams(type=kind, message=message))

    @property
    def workers(self) -> list[Worker]:
        return [w for w in (self.linter, self.answerer) if w is not None]

    def broadcast(self, *message: object) -> None:
        """A state message for both analysis processes."""
        for worker in self.workers:
            worker.send(*message)

    def start_workers(self) -> None:
        loop = asyncio.get_running_loop()
        self.linter, self.answerer = Worker(loop, self.log), Worker(loop, self.log)
        for worker in self.workers:
            worker.timeout = self.settings.timeout
            worker.on_restart = self._replay_soon(worker)
            worker.start()
            self.replay(worker)
            self.spawn(self._warm(worker))

    def _replay_soon(self, worker: Worker) -> Callable[[], None]:
        """Replay into ``worker`` after the callbacks of the jobs its old process failed (a
        timed-out lint records that it gave up first, so the replay does not start it
        again)."""

        def soon() -> None:
            worker.loop.call_soon(self.replay, worker)

        return soon

    async def _warm(self, worker: Worker) -> None:
        with contextlib.suppress(WorkerGoneError, JobFailedError):
            await worker.call("warm")

    def replay(self, worker: Worker) -> None:
        """Tell a (new) analysis process everything it must know (the linter then lints
        every buffer)."""
        worker.send("client", self.encoding, self.document_changes)
        worker.send("configure", self.settings)
        for uri, buffer in self.buffers.items():
            worker.send("open", uri, buffer.version, buffer.text)
        if worker is self.linter:
            for uri in list(self.buffers):
                self.schedule(uri)

    async def ask(self, name: str, uri: str, params: object) -> Any:
        """A request's answer from the analysis process, on the version the request saw."""
        buffer = self.buffers.get(uri)
        if buffer is None or self.answerer is None:
            return None
        try:
            return await self.answerer.call(name, uri, buffer.version, params, key=uri)
        except WorkerGoneError as exc:
            raise JsonRpcContentModified(str(exc)) from None
        except JobFailedError as exc:
            if exc.kind == "stale":
                raise JsonRpcContentModified(exc.message) from None
            if exc.kind == "refused":
                raise JsonRpcException(exc.message, code=_REQUEST_FAILED) from None
            self.log(f"statedoc: {name} failed: {exc.message}", types.MessageType.Warning)
            return None

    # -- diagnostics ---------------------------------------------------------------------------
    def schedule(self, uri: str) -> None:
        """Lint ``uri`` soon: at most one run per buffer at a time, the latest text wins."""
        buffer = self.buffers.get(uri)
        if buffer is None or self._gave_up.get(uri, object()) == buffer.version:
            return
        if uri in self._diagnosing:
            self._dirty.add(uri)
            return
        self._diagnosing.add(uri)
        self.spawn(self._diagnose(uri))

    async def _diagnose(self, uri: str) -> None:
        try:
            while uri in self.buffers and self.linter is not None:
                self._dirty.discard(uri)
                opening = self.openings.get(uri)
                sent = self.buffers[uri].version  # linted: this version or a later one
                try:
                    version, diagnostics, _, id_changed = await self.linter.call(
                        "diagnose", uri, key=uri
                    )
                except WorkerGoneError:
                    return  # a new process replays and lints every buffer
                except JobFailedError as exc:
                    if exc.kind == "timeout":  # not again for that text; a newer one is tried
                        self._gave_up[uri] = sent
                    self.log(f"statedoc: no diagnostics for {uri}: {exc.message}")
                    return
                buffer = self.buffers.get(uri)
                current = buffer is not None and self.openings.get(uri) == opening
                if buffer is not None and current and buffer.version == version:
                    self.text_document_publish_diagnostics(
                        types.PublishDiagnosticsParams(
                            uri=uri, diagnostics=diagnostics, version=version
                        )
                    )
                if id_changed:  # another document's SD204 may come or go
                    for other in self.buffers:
                        if other != uri:
                            self.schedule(other)
                if uri not in self._dirty:
                    return
        finally:
            self._diagnosing.discard(uri)
            if uri in self._dirty:  # an edit came while this run failed: lint it now
                self._dirty.discard(uri)
                self.schedule(uri)

    def files_changed(self) -> None:
        self.broadcast("files")
        for uri in list(self.buffers):
            self.schedule(uri)

    def configure(self, options: object) -> None:
        settings, problems = server_settings.read(options)
        for problem in problems:
            self.log(f"statedoc: {problem}", types.MessageType.Warning)
        self.settings = settings
        self._gave_up.clear()
        for worker in self.workers:
            worker.timeout = settings.timeout
        self.broadcast("configure", settings)
        for uri in list(self.buffers):
            self.schedule(uri)

    def close_workers(self) -> None:
        for worker in self.workers:
            worker.close()
        self.linter = self.answerer = None

    def exit_now(self) -> None:
        """Stop the analysis processes and leave (LSP: 0 after ``shutdown``, else 1)."""
        self.close_workers()
        try:
            sys.stdout.flush()
        finally:
            os._exit(0 if self.shutdown_requested else 1)


SERVER_FEATURES = (
    (types.TEXT_DOCUMENT_HOVER, "hover", None),
    (types.TEXT_DOCUMENT_DEFINITION, "definition", None),
    (types.TEXT_DOCUMENT_REFERENCES, "references", None),
    (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, "symbols", None),
    (
        types.TEXT_DOCUMENT_COMPLETION,
        "completion",
        types.CompletionOptions(trigger_characters=[":", "[", ","]),
    ),
    (types.TEXT_DOCUMENT_PREPARE_RENAME, "prepare_rename", None),
    (types.TEXT_DOCUMENT_RENAME, "rename", types.RenameOptions(prepare_provider=True)),
    (
        types.TEXT_DOCUMENT_CODE_ACTION,
        "code_actions",
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    ),
)


def _forward(server: StatedocServer, method: str, name: str, options: object) -> None:
    async def handler(ls: StatedocServer, params: Any) -> Any:
        return await ls.ask(name, params.text_document.uri, params)

    handler.__name__ = name
    server.feature(method, options)(handler)


def build() -> StatedocServer:
    """The server with every feature registered."""
    server = StatedocServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: StatedocServer, params: types.InitializeParams) -> None:
        ls.encoding = str(ls.workspace.position_encoding or UTF16)
        capabilities = params.capabilities.workspace
        edits = capabilities.workspace_edit if capabilities is not None else None
        ls.document_changes = bool(edits is not None and edits.document_changes)
        settings, problems = server_settings.read(params.initialization_options)
        ls.settings = settings
        for problem in problems:
            ls.log(f"statedoc: {problem}", types.MessageType.Warning)
        ls.start_workers()

    @server.feature(types.INITIALIZED)
    def initialized(ls: StatedocServer, params: types.InitializedParams) -> None:
        _watch_files(ls)
        if ls.process_id:
            ls.spawn(_watch_parent(ls, ls.process_id))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: StatedocServer, params: None) -> None:
        ls.shutdown_requested = True
        ls.close_workers()

    @server.feature(types.EXIT)
    def exit_(ls: StatedocServer, params: None) -> None:
        ls.exit_now()

    _documents(server)
    for method, name, options in SERVER_FEATURES:
        _forward(server, method, name, options)
    return server


def _documents(server: StatedocServer) -> None:
    """The notifications that keep the buffers and the analysis process in step."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: StatedocServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        ls.buffers[document.uri] = Buffer(document.version, document.text)
        ls.openings[document.uri] = ls.openings.get(document.uri, 0) + 1
        ls.broadcast("open", document.uri, document.version, document.text)
        ls.files_changed()  # a new document may be one of a project's specs

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: StatedocServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        buffer = ls.buffers.get(uri)
        if buffer is None:
            return
        text = buffer.text
        for change in params.content_changes:
            text = apply_change(text, change, ls.encoding)
        ls.buffers[uri] = Buffer(params.text_document.version, text)
        ls.broadcast("change", uri, params.text_document.version, text)
        if ls.linter is not None:
            ls.linter.supersede(uri)
        ls.schedule(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: StatedocServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.files_changed()  # other documents' SD204 read this one from disk

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: StatedocServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.buffers.pop(uri, None)
        ls._gave_up.pop(uri, None)
        ls.broadcast("close", uri)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        ls.files_changed()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: StatedocServer, params: types.DidChangeConfigurationParams
    ) -> None:
        if isinstance(params.settings, dict) and params.settings:
            ls.configure(params.settings)
        else:
            ls.spawn(_pull_configuration(ls))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: StatedocServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        ls.files_changed()


def _watch_files(ls: StatedocServer) -> None:
    """Ask the client for events on configs and documents (where it can register them)."""
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[
            types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
            types.FileSystemWatcher(glob_pattern="**/*.md"),
        ]
    )
    registration = types.Registration(
        id="statedoc-files",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    ls.client_register_capability(types.RegistrationParams(registrations=[registration]))


async def _pull_configuration(ls: StatedocServer) -> None:
    capabilities = ls.client_capabilities.workspace
    if capabilities is None or not capabilities.configuration:
        return
    try:
        found = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="statedoc")])
        )
    except Exception as exc:  # a client that cannot answer keeps the settings it gave
        ls.log(f"statedoc: workspace/configuration failed: {exc}")
        return
    if found and isinstance(found[0], dict):
        ls.configure(found[0])


async def _watch_parent(ls: StatedocServer, pid: int) -> None:
    """LSP: exit when the process that started the server is gone (an editor killed hard
    may leave our stdin open)."""
    while True:
        await asyncio.sleep(_PARENT_CHECK)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            ls.exit_now()
        except PermissionError:  # alive, someone else's
            pass


def serve() -> int:
    """Serve on stdin/stdout until the client exits or closes the stream."""
    server = build()
    try:
        server.start_io()
    finally:
        server.close_workers()
    return 0 if server.shutdown_requested else 1

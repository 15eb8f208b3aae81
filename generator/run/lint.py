"""The lint step every command runs first: :func:`lint` keeps the run (for generate, build,
check, diagram, db), :func:`stream` hands ``statedoc lint`` each file's findings as soon as it
is done. Both are the one driver of :mod:`generator.lint.files` with the process pool of
:mod:`generator.run.pool`, plus the findings against a git ref (``--against``).

Kept apart from :mod:`generator.run.pipeline` (and free of ``dataclasses``): a one-document
``statedoc lint`` imports only this.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from generator.core.findings import Finding
    from generator.lint.document import FileResult
    from generator.lint.files import LintRun
    from generator.load.discover import SpecFile
    from generator.run.progress import Progress
    from generator.run.workspace import Workspace


#: How many documents are linted between two freezes of what the run keeps (see _Spared).
_FREEZE_EVERY = 64


class _Spared:
    """A lint progress callback that also moves what the run has kept so far (its parsed
    documents, some 500 objects each) out of the cyclic collector's way with ``gc.freeze``:
    otherwise every full collection scans all of them, and a run keeping thousands of
    documents spends a fifth of its time there. :func:`release` gives them back. Nothing is
    frozen when someone else (the host process) already froze objects: releasing would
    unfreeze theirs too."""

    #: Whether the collector's permanent generation holds what this module froze.
    frozen: ClassVar[bool] = False

    def __init__(self, progress: Callable[[int], None] | None) -> None:
        self.progress = progress
        self.since = 0

    @classmethod
    def freeze(cls) -> None:
        if cls.frozen or gc.get_freeze_count() == 0:
            gc.freeze()
            cls.frozen = True

    def __call__(self, done: int) -> None:
        if self.progress is not None:
            self.progress(done)
        self.since += done
        if self.since >= _FREEZE_EVERY:
            self.since = 0
            self.freeze()


def _pool(
    work: Callable[[SpecFile], FileResult],
    todo: list[SpecFile],
    jobs: int,
    tick: Callable[[int], None],
) -> Generator[FileResult, None, None]:
    """:func:`generator.run.pool.lint_in_pool`, imported only when a run goes parallel
    (multiprocessing is start-up cost a one-document lint never uses)."""
    from generator.run.pool import lint_in_pool

    return lint_in_pool(work, todo, jobs, tick)


def release() -> None:
    """Give what :func:`lint` (with ``spare``) froze back to the cyclic collector; the
    later steps call it when they end, a caller that stops after lint calls it itself."""
    if _Spared.frozen:
        _Spared.frozen = False
        gc.unfreeze()


def lint(
    workspace: Workspace,
    *,
    keep_documents: bool = True,
    reuse: bool = False,
    progress: Progress | None = None,
    spare: bool = False,
) -> LintRun:
    """Lint the workspace's documents (``keep_documents``: keep each parsed document, as the
    later steps need, which bypasses the cache and worker processes; ``reuse``: still serve
    unchanged documents from the cache, without their document, for :func:`sync_diagrams`
    and :func:`generate`, which load what their render cache cannot serve), plus SD207
    against ``options.against``. ``spare``: freeze the kept documents for the collector
    until :func:`release` (which :func:`generate` calls when it ends)."""
    from contextlib import nullcontext

    from generator.lint.files import LintRun, lint_files

    if not workspace.files or workspace.settings is None:
        return LintRun([], [])
    spared = _Spared(progress) if spare and keep_documents else None
    cache = workspace.lint_cache(keep_documents=keep_documents, reuse=reuse)
    with nullcontext() if cache is None else cache.batched():  # one write for the entries
        run = lint_files(
            workspace.files,
            workspace.settings,
            jobs=workspace.jobs(),
            cache=cache,
            keep_documents=keep_documents,
            reuse=reuse,
            progress=spared or progress,
            pool=_pool,
        )
    if spared is not None:
        spared.freeze()
    extra = against_findings(workspace)
    if extra:
        run.findings = sorted(run.findings + extra, key=lambda f: f.sort_key())
    return run


def stream(workspace: Workspace, *, progress: Progress | None = None) -> Iterator[list[Finding]]:
    """``statedoc lint``'s run: each file's reported findings as soon as it is done (keeping
    nothing per file: no document, no result), then the findings against
    ``options.against`` as one last list. The same driver as :func:`lint`."""
    from generator.lint.files import stream_files

    if workspace.settings is None:
        return
    if workspace.files:
        yield from stream_files(
            workspace.files,
            workspace.settings,
            jobs=workspace.jobs(),
            cache=workspace.lint_cache(keep_documents=False),
            progress=progress,
            pool=_pool,
        )
    extra = against_findings(workspace)
    if extra:
        yield extra


def against_findings(workspace: Workspace) -> list[Finding]:
    """SD207 and the other findings against ``options.against`` (a git ref), selected."""
    against = workspace.options.against
    if not against or workspace.settings is None:
        return []
    from generator.diffing.revision import revision_findings

    selection = workspace.settings.selection
    return [
        f
        for f in revision_findings(workspace.files, against, workspace.config)
        if selection.enabled(f.code)
    ]

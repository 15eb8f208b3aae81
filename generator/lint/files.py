"""Lint many files: read, cache, lint each (in worker processes when it pays), cross-file
rules, selection and inline suppression. The I/O edge around :mod:`generator.lint.document`."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from functools import partial
from typing import NamedTuple, Protocol

from generator.core.findings import Finding, Severity
from generator.lint.document import (
    FileResult,
    SpecFacts,
    duplicate_id,
    lint_bytes,
    project_findings,
)
from generator.lint.selection import Selection
from generator.lint.suppression import Suppressions
from generator.load.config import Config
from generator.load.discover import SpecFile
from generator.load.source import read_bounded

#: Below this many files to lint from scratch, a process pool costs more than it saves.
PARALLEL_MIN = 48


class Cache(Protocol):
    """What the driver needs of a lint cache (:class:`generator.cache.store.Cache` is one):
    declared here so the per-document stage does not import the cache layer above it."""

    def key(self, data: bytes) -> str: ...

    def get(self, key: str, path: str) -> tuple[list[Finding], SpecFacts | None] | None: ...

    def put(self, key: str, findings: list[Finding], facts: SpecFacts | None) -> None: ...


#: Lints files in worker processes, in order: ``(work, files, jobs, tick)`` -> results.
#: :func:`generator.run.pool.lint_in_pool` is the one statedoc runs; without one, files
#: are linted in this process whatever ``jobs`` says.
Pool = Callable[
    [Callable[[SpecFile], "FileResult"], list[SpecFile], int, Callable[[int], None]],
    Generator["FileResult", None, None],
]


class Settings(NamedTuple):
    """Everything besides a file's bytes that decides what is reported for it."""

    selection: Selection
    max_file_size: int


class LintRun:
    """Every file's result and the findings of the run, selected and sorted."""

    __slots__ = ("findings", "results")

    def __init__(self, results: list[FileResult], findings: list[Finding]) -> None:
        self.results = results
        self.findings = findings

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def internal_error(self) -> bool:
        return any(f.code == "SD000" for f in self.findings)

    def clean(self, path: str) -> bool:
        """No error-severity finding for this file (warnings do not block generation)."""
        return not any(f.path == path and f.severity is Severity.ERROR for f in self.findings)


class LintTally:
    """What ``statedoc lint`` keeps of a streamed run: counts for the exit code and the
    summary, and the findings only when the report is one document written at the end
    (``keep``: json, sarif, junit, ``--output``, ``--statistics``). Nothing per file."""

    def __init__(self, *, keep: bool) -> None:
        self.keep = keep
        self.findings: list[Finding] = []
        self.errors = 0
        self.warnings = 0
        self.internal_error = False

    def add(self, findings: Sequence[Finding]) -> None:
        for finding in findings:
            if finding.severity is Severity.ERROR:
                self.errors += 1
            else:
                self.warnings += 1
            if finding.code == "SD000":
                self.internal_error = True
        if self.keep:
            self.findings.extend(findings)

    @property
    def has_errors(self) -> bool:
        return self.errors > 0


def settings_for(
    config: Config, select: Sequence[str] = (), ignore: Sequence[str] = ()
) -> Settings:
    """Command-line choices are a layer over the configuration, as in ruff: ``--select``
    replaces the configured ``select`` and ``ignore`` (so it can bring back a code the config
    ignores), ``--ignore`` adds to whichever applies; per-file ignores always apply."""
    selection = Selection(
        select=tuple(select) or config.select,
        ignore=tuple(ignore) if select else config.ignore + tuple(ignore),
        per_file=dict(config.per_file_ignores),
    )
    return Settings(selection, config.max_file_size)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _unsuppressed(findings: list[Finding], suppressions: Suppressions | None) -> list[Finding]:
    """Drop findings whose reported line carries ``statedoc: ignore[CODE]`` in a real YAML
    comment of the front matter or a ``%%`` comment of a diagram
    (see :mod:`generator.lint.suppression`).
    Internal errors are never silenced; a file with no front matter has no such comments."""
    if not findings or suppressions is None or not suppressions.lines:
        return findings
    return [f for f in findings if f.code == "SD000" or not suppressions.ignores(f.line, f.code)]


def shown(
    findings: Sequence[Finding],
    selection: Selection,
    relative: Mapping[str, str],
    suppressions: Mapping[str, Suppressions | None],
) -> list[Finding]:
    """The findings a run reports out of ``findings`` raised after lint (a target's SD121/
    SD122): what lint's own findings go through, ``select``/``ignore`` and ``per-file-ignores``
    by each file's config-relative path (``relative``, by display path) and inline ignores
    (``suppressions``, by display path), so a code is silenced the same way wherever it is
    raised."""
    kept = []
    for finding in findings:
        if not selection.enabled(finding.code, relative.get(finding.path, "")):
            continue
        if _unsuppressed([finding], suppressions.get(finding.path)):
            kept.append(finding)
    return kept


def _unreadable(spec: SpecFile, exc: OSError) -> FileResult:
    import errno

    if exc.errno == errno.ELOOP:
        reason = "a symbolic link loop (too many levels of symbolic links)"
    else:
        reason = exc.strerror or str(exc)
    return _file_finding(spec, "SD008", f"cannot read the file: {reason}")


def _file_finding(spec: SpecFile, code: str, message: str) -> FileResult:
    """A finding about the file as a whole (unreadable, too large), at 1:1."""
    from generator.rules import REGISTRY, all_rules

    all_rules()
    rule = REGISTRY[code]
    finding = Finding(
        spec.display,
        1,
        1,
        1,
        2,
        rule.code,
        rule.name,
        rule.severity,
        message,
    )
    return FileResult(spec.display, [finding])


def _lint_one(
    spec: SpecFile, max_file_size: int, cache: Cache | None, keep_document: bool
) -> FileResult:
    """Read and lint one file from scratch; findings are unfiltered but inline ignores."""
    data = _read(spec, max_file_size)
    if isinstance(data, FileResult):
        return data
    key = cache.key(data) if cache is not None else None
    return _lint_read(spec, data, max_file_size, cache, key, keep_document)


def _served(spec: SpecFile, max_file_size: int, cache: Cache, keep_document: bool) -> FileResult:
    """From the cache or linted: the file is read and its key computed once for both."""
    data = _read(spec, max_file_size)
    if isinstance(data, FileResult):
        return data
    key = cache.key(data)
    hit = cache.get(key, spec.display)
    if hit is not None:
        findings, facts = hit
        return FileResult(spec.display, findings, facts)
    return _lint_read(spec, data, max_file_size, cache, key, keep_document)


def _read(spec: SpecFile, max_file_size: int) -> bytes | FileResult:
    """The file's bytes, or the finding saying why they cannot be linted (SD007, SD008)."""
    if spec.error:
        return _file_finding(spec, "SD008", spec.error)
    try:
        data, size = read_bounded(spec.path, max_file_size)
    except OSError as exc:
        return _unreadable(spec, exc)
    if size > max_file_size:  # read no further than the limit: the size comes from fstat
        return _file_finding(
            spec, "SD007", f"the file has {size} bytes; the limit is {max_file_size}"
        )
    return data


def _lint_read(
    spec: SpecFile,
    data: bytes,
    max_file_size: int,
    cache: Cache | None,
    key: str | None,
    keep_document: bool,
) -> FileResult:
    """Lint bytes already read; ``key`` is their cache key (None without a cache)."""
    result = _lint_data(spec, data, max_file_size)
    if cache is not None and key is not None:
        cache.put(key, result.findings, result.facts)
    if keep_document and result.document is not None:
        import hashlib

        from generator.model.document import remember_sha256

        result.sha256 = hashlib.sha256(data).hexdigest()
        remember_sha256(result.document.source, result.sha256)  # the targets' headers need it
    if not keep_document:  # cheap to ship back from a worker and to keep to the end
        result.document = None
        result.suppressions = None  # applied above; only generation and diff read them again
    return result


def _lint_data(spec: SpecFile, data: bytes, max_file_size: int) -> FileResult:
    result = lint_bytes(data, spec.display, max_file_size=max_file_size)
    result.findings = _unsuppressed(result.findings, result.suppressions)
    if (
        result.facts is not None
        and result.suppressions is not None
        and result.suppressions.ignores(result.facts.id_line, "SD204")
    ):
        result.facts = result.facts._replace(suppressed=True)
    return result


def lint_data(spec: SpecFile, data: bytes, settings: Settings) -> LintRun:
    """Lint one document given as bytes (``lint -``: stdin) as if it were ``spec``."""
    result = _lint_data(spec, data, settings.max_file_size)
    shown = [f for _, found in _checked([spec], settings, iter([result])) for f in found]
    return LintRun([result], shown)


def _cached(spec: SpecFile, cache: Cache, max_file_size: int) -> FileResult | None:
    if spec.error:
        return None
    try:
        data, size = read_bounded(spec.path, max_file_size)
    except OSError:
        return None
    if size > max_file_size:
        return None
    hit = cache.get(cache.key(data), spec.display)
    if hit is None:
        return None
    findings, facts = hit
    return FileResult(spec.display, findings, facts)


def lint_files(
    files: Sequence[SpecFile],
    settings: Settings,
    *,
    jobs: int = 1,
    cache: Cache | None = None,
    keep_documents: bool = False,
    reuse: bool = False,
    progress: Callable[[int], None] | None = None,
    pool: Pool | None = None,
) -> LintRun:
    """Lint ``files`` together (SD204 looks across them), keeping every file's result.

    ``keep_documents`` (for generation) lints in this process without the cache, so every
    clean file comes back with its parsed :class:`~generator.model.document.Document`;
    with ``reuse`` too the cache still serves unchanged files, without their document (the
    steps after lint load one only when their own caches cannot serve it).
    ``progress`` is called with the number of files just finished. It is
    :func:`stream_results` kept whole; ``statedoc lint`` itself uses :func:`stream_files`,
    which keeps nothing per file.
    """
    if keep_documents and not reuse:
        cache = None
    results: list[FileResult] = []
    findings: list[Finding] = []
    checked = stream_results(
        files,
        settings,
        jobs=jobs,
        cache=cache,
        keep_documents=keep_documents,
        progress=progress,
        pool=pool,
    )
    for result, shown in checked:
        results.append(result)
        findings.extend(shown)
    findings.sort(key=Finding.sort_key)  # already in order when ``files`` is (linear then)
    return LintRun(results, findings)


def stream_files(
    files: Sequence[SpecFile],
    settings: Settings,
    *,
    jobs: int = 1,
    cache: Cache | None = None,
    progress: Callable[[int], None] | None = None,
    pool: Pool | None = None,
) -> Iterator[list[Finding]]:
    """Each file's reported findings (selected, sorted, SD204 included), in the order of
    ``files``, as soon as that file is done; nothing per file is kept once it is yielded
    (SD204 keeps each id's first place). When ``files`` are :func:`in_order`, the yielded
    lists joined are :func:`lint_files`'s findings; close the iterator to stop early."""
    found = stream_results(files, settings, jobs=jobs, cache=cache, progress=progress, pool=pool)
    with contextlib.closing(found):
        for _, shown in found:
            yield shown


def stream_results(
    files: Sequence[SpecFile],
    settings: Settings,
    *,
    jobs: int = 1,
    cache: Cache | None = None,
    keep_documents: bool = False,
    progress: Callable[[int], None] | None = None,
    pool: Pool | None = None,
) -> Generator[tuple[FileResult, list[Finding]], None, None]:
    """The one lint driver: each file's result with the findings it reports, in the order of
    ``files``, as soon as it is done (from the cache, in this process, or in ``pool``)."""
    results = _results(files, settings, jobs, cache, keep_documents, progress, pool)
    with contextlib.closing(results):
        yield from _checked(files, settings, results)


def in_order(files: Sequence[SpecFile]) -> bool:
    """Whether ``files`` are strictly sorted by display path (as discovery returns them): then
    each file's findings come before the next file's in the report, and the first of two
    documents with the same id is the one linted first."""
    return all(a.display < b.display for a, b in itertools.pairwise(files))


def _results(
    files: Sequence[SpecFile],
    settings: Settings,
    jobs: int,
    cache: Cache | None,
    keep_documents: bool,
    progress: Callable[[int], None] | None,
    pool: Pool | None,
) -> Generator[FileResult, None, None]:
    """Each file's :class:`FileResult`, in the order of ``files``, from the cache or linted
    (in ``pool``'s worker processes when ``jobs`` > 1 and enough files miss the cache)."""
    work = partial(
        _lint_one, max_file_size=settings.max_file_size, cache=cache, keep_document=keep_documents
    )
    tick = progress or _no_progress
    if pool is None or jobs <= 1 or keep_documents or len(files) < PARALLEL_MIN:
        for spec in files:  # one at a time: no hit is held while others are linted
            if cache is None:
                yield work(spec)
            else:
                yield _served(spec, settings.max_file_size, cache, keep_documents)
            tick(1)
        return
    hits: dict[int, FileResult] = {}
    todo: list[SpecFile] = []
    for index, spec in enumerate(files):
        hit = _cached(spec, cache, settings.max_file_size) if cache is not None else None
        if hit is not None:
            hits[index] = hit
        else:
            todo.append(spec)
    tick(len(hits))
    linted: Generator[FileResult, None, None]
    if len(todo) >= PARALLEL_MIN:
        linted = pool(work, todo, jobs, tick)
    else:
        linted = _one_by_one(work, todo, tick)
    with contextlib.closing(linted):
        for index in range(len(files)):
            hit = hits.pop(index, None)
            yield hit if hit is not None else next(linted)


def _one_by_one(
    work: Callable[[SpecFile], FileResult], todo: list[SpecFile], tick: Callable[[int], None]
) -> Generator[FileResult, None, None]:
    for spec in todo:
        yield work(spec)
        tick(1)


def _no_progress(done: int) -> None:
    pass


def _checked(
    files: Sequence[SpecFile], settings: Settings, results: Iterator[FileResult]
) -> Iterator[tuple[FileResult, list[Finding]]]:
    """Each result with the findings it reports: the selection applied and SD204 added.

    Files in display order are checked as they come (the first of two documents with one id
    is the one seen first, as when sorted by path); otherwise every result is gathered first.
    """
    selection = settings.selection
    if not in_order(files):
        yield from _checked_together(files, list(results), selection)
        return
    first: dict[str, tuple[str, int, int]] = {}  # id -> where it first appeared
    for spec, result in zip(files, results, strict=True):
        shown = [f for f in result.findings if selection.enabled(f.code, spec.relative)]
        facts = result.facts
        if facts is not None:
            seen = first.get(facts.id)
            if seen is None:
                # the spec's own string, kept with ``files`` anyway: a result from a worker
                # process carries an equal copy that would otherwise be kept per id
                first[facts.id] = (spec.display, facts.id_line, facts.id_column)
            elif not facts.suppressed and selection.enabled("SD204", spec.relative):
                shown.append(duplicate_id(result.path, facts, seen))
        if len(shown) > 1:
            shown.sort(key=Finding.sort_key)
        yield result, shown


def _checked_together(
    files: Sequence[SpecFile], results: list[FileResult], selection: Selection
) -> Iterator[tuple[FileResult, list[Finding]]]:
    relative = {spec.display: spec.relative for spec in files}
    facts: dict[str, SpecFacts | None] = {r.path: r.facts for r in results}
    extra: dict[str, list[Finding]] = {}
    for finding in project_findings(results):
        fact = facts[finding.path]
        if selection.enabled(finding.code, relative[finding.path]) and not (
            fact and fact.suppressed
        ):
            extra.setdefault(finding.path, []).append(finding)
    for result in results:
        shown = [f for f in result.findings if selection.enabled(f.code, relative[result.path])]
        shown.extend(extra.pop(result.path, ()))
        shown.sort(key=Finding.sort_key)
        yield result, shown

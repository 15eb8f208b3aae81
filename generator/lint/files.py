"""Lint many files: read, cache, lint each (in worker processes when it pays), cross-file
rules, selection and inline suppression. The I/O edge around :mod:`generator.lint.document`."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from generator.config import Config
from generator.findings import Finding, Severity
from generator.lint.document import FileResult, SpecFacts, lint_bytes, project_findings
from generator.lint.selection import Selection
from generator.lint.suppression import Suppressions
from generator.load.discover import SpecFile
from generator.load.source import read_bounded

if TYPE_CHECKING:
    from generator.lint.cache import Cache

#: Below this many files to lint from scratch, a process pool costs more than it saves.
PARALLEL_MIN = 48


@dataclass(frozen=True)
class Settings:
    """Everything besides a file's bytes that decides what is reported for it."""

    selection: Selection
    max_file_size: int


@dataclass
class LintRun:
    results: list[FileResult]
    findings: list[Finding]

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def internal_error(self) -> bool:
        return any(f.code == "SD000" for f in self.findings)

    def clean(self, path: str) -> bool:
        """No error-severity finding for this file (warnings do not block generation)."""
        return not any(f.path == path and f.severity is Severity.ERROR for f in self.findings)


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
    result = _lint_data(spec, data, max_file_size)
    if cache is not None:
        cache.put(cache.key(data), result.findings, result.facts)
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
        result.facts = replace(result.facts, suppressed=True)
    return result


def lint_data(spec: SpecFile, data: bytes, settings: Settings) -> LintRun:
    """Lint one document given as bytes (``lint -``: stdin) as if it were ``spec``."""
    return _select([spec], [_lint_data(spec, data, settings.max_file_size)], settings.selection)


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
) -> LintRun:
    """Lint ``files`` together (SD204 looks across them).

    ``keep_documents`` (for generation) lints in this process without the cache, so every
    clean file comes back with its parsed :class:`~generator.model.document.Document`;
    with ``reuse`` too the cache still serves unchanged files, without their document (the
    steps after lint load one only when their own caches cannot serve it).
    ``progress`` is called with the number of files just finished.
    """
    if keep_documents and not reuse:
        cache = None
    results: dict[SpecFile, FileResult] = {}
    todo: list[SpecFile] = []
    for spec in files:
        hit = _cached(spec, cache, settings.max_file_size) if cache is not None else None
        if hit is not None:
            results[spec] = hit
        else:
            todo.append(spec)
    work = partial(
        _lint_one, max_file_size=settings.max_file_size, cache=cache, keep_document=keep_documents
    )
    tick = progress or _no_progress
    tick(len(results))
    if jobs > 1 and len(todo) >= PARALLEL_MIN and not keep_documents:
        results.update(zip(todo, _in_pool(work, todo, jobs, tick), strict=True))
    else:
        for spec in todo:
            results[spec] = work(spec)
            tick(1)
    ordered = [results[spec] for spec in files]
    return _select(files, ordered, settings.selection)


def _no_progress(done: int) -> None:
    pass


def _in_pool(
    work: Callable[[SpecFile], FileResult],
    todo: list[SpecFile],
    jobs: int,
    tick: Callable[[int], None],
) -> list[FileResult]:
    """Lint ``todo`` in worker processes, in order (stopped cleanly on Ctrl-C or SIGTERM)."""
    from generator.lint.workers import run_parallel

    workers = max(2, min(jobs, len(todo) // (PARALLEL_MIN // 2)))
    chunk = max(1, min(64, len(todo) // (workers * 4)))  # small enough for a live progress bar
    return run_parallel(work, todo, workers, chunk, tick)


def _select(files: Sequence[SpecFile], results: list[FileResult], selection: Selection) -> LintRun:
    relative = {spec.display: spec.relative for spec in files}
    facts: dict[str, SpecFacts | None] = {r.path: r.facts for r in results}
    findings = [
        f for r in results for f in r.findings if selection.enabled(f.code, relative[r.path])
    ]
    for finding in project_findings(results):
        fact = facts[finding.path]
        if selection.enabled(finding.code, relative[finding.path]) and not (
            fact and fact.suppressed
        ):
            findings.append(finding)
    findings.sort(key=Finding.sort_key)
    return LintRun(results, findings)

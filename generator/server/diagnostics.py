"""Diagnostics: what ``statedoc lint`` reports for an editor's unsaved text.

Nothing here checks anything itself. One buffer is linted by the pipeline ``lint -`` uses
(:func:`generator.lint.files.lint_data`: inline ignores, ``select``/``ignore``,
``per-file-ignores``) with the configuration found from the file's folder as the CLI finds it;
a file ``exclude`` leaves out gets none. The project rules come from the same functions as a
whole-project lint: SD204 over the documents discovered for that configuration (open buffers
in place of their files), SD207 from :func:`generator.diffing.revision.revision_findings`
when the settings name a ref.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from lsprotocol import types

from generator.core.errors import ConfigError
from generator.core.findings import Finding, Severity
from generator.lint.document import FileResult, SpecFacts, project_findings
from generator.lint.files import Settings as LintSettings
from generator.lint.files import lint_data, settings_for
from generator.load.config import Config
from generator.load.discover import SpecFile, discover, excluded
from generator.load.source import read_bounded
from generator.server.analysis import encode
from generator.server.positions import Lines
from generator.server.settings import Settings

SOURCE = "statedoc"


class Target(NamedTuple):
    """What a buffer is linted as: its config, its file as discovery names it, the selection."""

    config: Config
    spec: SpecFile
    settings: LintSettings
    excluded: bool


class Outcome(NamedTuple):
    """One buffer's lint: the findings it reports, its facts, or why it cannot be linted."""

    findings: list[Finding]
    facts: SpecFacts | None = None
    target: Target | None = None
    error: str | None = None


def target_for(path: Path | None, settings: Settings, cwd: Path) -> Target:
    """As ``lint --stdin-filename PATH -`` resolves PATH (``ConfigError`` when the config or
    a code in the settings is wrong)."""
    from generator.lint.selection import validate_codes
    from generator.run.config import load_config

    config = load_config(path.parent if path is not None else cwd)
    validate_codes(settings.select, "statedoc.select")
    validate_codes(settings.ignore, "statedoc.ignore")
    lint = settings_for(config, settings.select, settings.ignore)
    if path is None:
        return Target(config, SpecFile("-", cwd / "-", "-"), lint, False)
    try:
        display = path.relative_to(cwd).as_posix()
    except ValueError:
        display = path.as_posix()
    try:
        relative = path.relative_to(config.root).as_posix()
    except ValueError:
        relative = path.as_posix()
    return Target(
        config, SpecFile(display, path, relative), lint, excluded(relative, config.exclude)
    )


class Projects:
    """The documents discovered per configuration, and the SD204 facts of those on disk, kept
    until a file event (:meth:`forget`): a keystroke must not walk the specs folder."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._files: dict[tuple[Path, tuple[Path, ...]], list[SpecFile]] = {}
        self._facts: dict[str, tuple[tuple[int, int], SpecFacts | None]] = {}

    def forget(self) -> None:
        self._files.clear()

    def files(self, config: Config) -> list[SpecFile]:
        key = (config.root, config.specs)
        found = self._files.get(key)
        if found is None:
            try:
                found = discover([], config, cwd=self.cwd)
            except (ConfigError, OSError):
                found = []
            self._files[key] = found
        return found

    def disk_facts(self, spec: SpecFile, target: Target) -> SpecFacts | None:
        """The facts of a document as saved (re-read only when its size or mtime moved)."""
        path = spec.path
        try:
            info = os.stat(path)
        except OSError:
            return None
        stamp = (info.st_mtime_ns, info.st_size)
        known = self._facts.get(str(path))
        if known is not None and known[0] == stamp:
            return known[1]
        facts = None
        try:
            data, size = read_bounded(path, target.settings.max_file_size)
        except OSError:
            data, size = b"", target.settings.max_file_size + 1
        if size <= target.settings.max_file_size:
            facts = lint_data(spec, data, target.settings).results[0].facts
        self._facts[str(path)] = (stamp, facts)
        return facts


def own(text: str, target: Target) -> Outcome:
    """The buffer's own findings (no project rule yet)."""
    if target.excluded:
        return Outcome([], None, target)
    run = lint_data(target.spec, encode(text), target.settings)
    return Outcome(list(run.findings), run.results[0].facts, target)


def with_project(
    outcome: Outcome,
    text: str,
    settings: Settings,
    projects: Projects,
    open_facts: Callable[[Path], SpecFacts | bool | None],
) -> Outcome:
    """``outcome`` plus SD204 and SD207 as a whole-project ``statedoc lint`` reports them for
    this document. ``open_facts(path)``: the facts of another open buffer, or False when the
    path is not open (its file's facts are used)."""
    target = outcome.target
    if target is None or target.excluded:
        return outcome
    findings = list(outcome.findings)
    spec, selection = target.spec, target.settings.selection
    files = projects.files(target.config)
    if outcome.facts is not None and any(f.display == spec.display for f in files):
        results = []
        for file in files:
            if file.display == spec.display:
                facts: SpecFacts | None = outcome.facts
            else:
                given = open_facts(file.path)
                if given is False:
                    facts = projects.disk_facts(file, target)
                else:
                    facts = given if isinstance(given, SpecFacts) else None
            results.append(FileResult(file.display, [], facts))
        if not outcome.facts.suppressed and selection.enabled("SD204", spec.relative):
            findings.extend(f for f in project_findings(results) if f.path == spec.display)
    if settings.against and spec.display != "-":
        from generator.diffing.revision import revision_findings

        found = revision_findings(
            [spec], settings.against, target.config, texts={spec.path: encode(text)}
        )
        findings.extend(f for f in found if selection.enabled(f.code))
    findings.sort(key=Finding.sort_key)
    return outcome._replace(findings=findings)


def to_lsp(outcome: Outcome, lines: Lines, uri: str) -> list[types.Diagnostic]:
    """The findings as LSP diagnostics (UTF-16 ranges; related places in the same file)."""
    if outcome.error is not None:
        start = types.Position(0, 0)
        return [
            types.Diagnostic(
                range=types.Range(start, start),
                message=f"statedoc cannot lint this file: {outcome.error}",
                severity=types.DiagnosticSeverity.Error,
                source=SOURCE,
            )
        ]
    return [diagnostic(finding, lines, uri) for finding in outcome.findings]


def diagnostic(finding: Finding, lines: Lines, uri: str) -> types.Diagnostic:
    severity = (
        types.DiagnosticSeverity.Error
        if finding.severity is Severity.ERROR
        else types.DiagnosticSeverity.Warning
    )
    related = [
        types.DiagnosticRelatedInformation(
            types.Location(uri, lines.point(r.line, r.column)), r.message
        )
        for r in finding.related
    ]
    return types.Diagnostic(
        range=lines.finding_range(finding),
        message=finding.message,
        severity=severity,
        code=finding.code,
        source=SOURCE,
        related_information=related or None,
        data={"name": finding.name},
    )

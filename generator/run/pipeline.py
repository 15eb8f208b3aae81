"""The pipeline steps, in the one order every entry point uses: lint -> sync diagrams ->
generate; ``build`` and ``check`` chain them. The lint step is :mod:`generator.run.lint`'s
(one driver for every command), offered here with the others.

The CLI commands and the hatchling hook call these with a :class:`~generator.run.workspace.
Workspace` and print or raise what comes back; nothing here prints or reads arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.run.lint import against_findings, lint, release, stream
from generator.run.workspace import Workspace

if TYPE_CHECKING:
    from generator.core.findings import Finding
    from generator.lint.files import LintRun
    from generator.load.discover import SpecFile
    from generator.output.diagrams import DiagramOutcome
    from generator.output.sources import Sources
    from generator.run.tree import GenerateOutcome


__all__ = [
    "BuildOutcome",
    "against_findings",
    "build",
    "check",
    "generate",
    "lint",
    "release",
    "sources",
    "stream",
    "sync_diagrams",
]


def sources(workspace: Workspace, previous: Sources | None = None) -> Sources:
    """The bytes and documents of one lint run's files (a new one after each lint; the stat
    signatures loaded once per run: ``previous``'s, else the render cache's)."""
    from generator.cache.signatures import Signatures
    from generator.lint.files import settings_for
    from generator.output.sources import Sources

    settings = workspace.settings or settings_for(workspace.config)
    if previous is not None:
        return Sources(workspace.files, settings, previous.signatures, workspace.opened)
    signatures = Signatures(workspace.render_cache())
    return Sources(workspace.files, settings, signatures, workspace.opened)


def sync_diagrams(
    workspace: Workspace,
    run: LintRun,
    *,
    write: bool,
    force: bool = False,
    loaded: Sources | None = None,
) -> DiagramOutcome:
    """Redraw (``write``) or check each document's Mermaid block; documents the lint run did
    not keep are skipped when the render cache knows their block is in sync, else parsed
    (``loaded``: the run's :func:`sources`)."""
    from generator.output.diagrams import sync_diagrams as sync

    if any(result.document is None for result in run.results):
        run = _diagram_run(workspace, run, loaded or sources(workspace))
    return sync(run, workspace.paths, write=write, force=force)


def _diagram_run(workspace: Workspace, run: LintRun, loaded: Sources) -> LintRun:
    from generator.lint.files import LintRun
    from generator.output.diagrams import REPAIRS, blocking

    cache = workspace.render_cache()
    kept = []
    for result in run.results:
        if result.document is None and not blocking(run, result.path):
            sha = loaded.sha256(result)
            spec = loaded.files.get(result.path)
            if cache is not None and sha is not None and spec is not None:
                entry = cache.get(cache.key(sha, spec.relative))
                if entry is not None and entry.diagram:
                    continue  # the same bytes were in sync: nothing to check or write
            loaded.document(result, tolerate=REPAIRS)
        kept.append(result)
    return LintRun(kept, run.findings)


def generate(
    workspace: Workspace,
    run: LintRun,
    *,
    out: Path | None = None,
    check: bool = False,
    tests: Path | None = None,
    targets: Sequence[str] | None = None,
    loaded: Sources | None = None,
) -> GenerateOutcome:
    """Generate the clean documents of ``run`` for the chosen targets (stale files are only
    looked for when the workspace is the whole configured set); ends with :func:`release`."""
    from generator.run.tree import generate as generate_tree

    try:
        return generate_tree(
            run,
            workspace.files,
            workspace.config,
            out=out,
            check=check,
            prune=workspace.whole,
            cache=workspace.render_cache(),
            tests=tests,
            targets=targets,
            sources=loaded or sources(workspace),
        )
    finally:
        release()


@dataclass
class BuildOutcome:
    """What ``build`` or ``check`` found: the (last) lint run, the diagrams, the outputs."""

    run: LintRun
    diagrams: DiagramOutcome
    outputs: GenerateOutcome
    run_files: list[SpecFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def internal_error(self) -> bool:
        return self.run.internal_error or self.diagrams.internal_error

    def findings(self, *, check: bool) -> list[Finding]:
        # The lint findings already hold what blocked a diagram: add the diagram stage's own.
        own = [p.finding() for p in self.diagrams.problems]
        if check:
            own += self.diagrams.drift
        return self.run.findings + own + self.outputs.findings()


def build(workspace: Workspace, *, force: bool = False) -> BuildOutcome:
    """Lint, redraw drifted diagrams, lint again if any was redrawn, generate (the main job).
    Overlapping output roots are refused before the first write."""
    from generator.run.tree import check_roots

    check_roots(workspace.config.out, workspace.config)
    try:
        run = lint(workspace, reuse=True, spare=True)
        loaded = sources(workspace)
        diagrams = sync_diagrams(workspace, run, write=True, force=force, loaded=loaded)
        if diagrams.written:
            run = lint(workspace, reuse=True, spare=True)
            loaded = sources(workspace, loaded)
        outputs = generate(workspace, run, loaded=loaded)
    finally:
        release()
    return BuildOutcome(run, diagrams, outputs, workspace.files, list(outputs.plan.notes))


def check(workspace: Workspace) -> BuildOutcome:
    """Lint, and check diagrams and generated files without writing (the CI job).

    Generated files are checked against the documents as ``build`` would leave them: a
    document whose diagram ``build`` would redraw is linted again from the redrawn bytes (in
    memory), so every diff ``check`` shows is the change ``build`` makes."""
    try:
        run = lint(workspace, reuse=True, spare=True)
        loaded = sources(workspace)
        diagrams = sync_diagrams(workspace, run, write=False, loaded=loaded)
        redrawn = _as_redrawn(workspace, run, diagrams)
        outputs = generate(workspace, redrawn, check=True, loaded=loaded)
    finally:
        release()
    return BuildOutcome(run, diagrams, outputs, workspace.files, list(outputs.plan.notes))


def _as_redrawn(workspace: Workspace, run: LintRun, diagrams: DiagramOutcome) -> LintRun:
    """``run`` with each document the diagram plan would rewrite linted again from its new
    bytes; findings the run added beyond a file's own (SD204 across files, SD207 against a
    ref) are kept, as a redraw changes neither ids nor revisions."""
    changed = {c.relative: c.new for c in diagrams.plan.changes if c.new is not None}
    if not changed or workspace.settings is None:
        return run
    from generator.lint.files import LintRun, lint_data

    specs = {spec.display: spec for spec in workspace.files}
    results = []
    findings = [f for f in run.findings if f.path not in changed]
    for result in run.results:
        new = changed.get(result.path)
        if new is None:
            results.append(result)
            continue
        again = lint_data(specs[result.path], new, workspace.settings)
        results.extend(again.results)
        own = set(result.findings)
        findings += again.findings
        findings += [f for f in run.findings if f.path == result.path and f not in own]
    return LintRun(results, sorted(findings, key=lambda f: f.sort_key()))

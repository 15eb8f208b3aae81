"""The output tree: what ``generate`` should write for the chosen targets, and the entry
point that writes it.

Every target (:mod:`generator.targets`) writes below ``<out>/<area>/<module>/<name>``, the
parts being ``snake_name`` of ``product_area``, ``module`` and ``title``: ``python`` the
module (``.py``, plus ``__init__.py`` files and ``py.typed``), ``mermaid`` the ``.mmd``
diagram, ``sql`` the ``.postgresql.sql``/``.sqlite.sql`` files. The ``tests`` target
(``generate --tests DIR``) writes ``DIR/test_<area>_<module>_<name>.py``. Every file starts
with statedoc's header line, and each target says which existing files are its own, which is
how cleanup recognises them.

Planning and applying (atomic, only-if-changed, header ownership, symlink and path-escape
refusal) live in :mod:`generator.output.plan`. Rules specific to this tree:

* two documents whose outputs land on one path (compared case-insensitively, for macOS and
  Windows checkouts) are both refused; neither overwrites the other;
* output roots must not overlap each other, the specs folders or the project root (a usage
  error): cleanup in one root would otherwise delete the files of another;
* stale files (carrying the header, produced by no document) are only looked for when the
  whole configured set of documents was generated (``prune``), with none skipped for lint
  errors: otherwise a file of a document that was not part of this run would look stale.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from generator.config import Config, ConfigError
from generator.findings import Finding
from generator.lint.cache import RenderCache, Rendered
from generator.lint.document import FileResult
from generator.lint.files import LintRun
from generator.load.discover import SpecFile
from generator.model.document import Document
from generator.output.fitting import refuse_overlong
from generator.output.plan import (
    COLLISION,
    REFUSED,
    Change,
    Output,
    Plan,
    Problem,
    apply_plan,
    diff,
    display,
    plan_outputs,
)
from generator.output.rendered import (
    Pending,
    cache_context,
    digests_of,
    in_sync,
    prepare,
    render_files,
    served,
    span_at,
    unloadable,
)
from generator.output.signatures import now
from generator.output.sources import Sources
from generator.records import dataclass, field, replace
from generator.targets import (
    DEFAULT_TARGETS,
    PackageFiles,
    Target,
    get_target,
    module_parts,
    target_root,
    unknown_targets,
)
from generator.templating import RenderError

__all__ = [
    "Change",
    "GenerateOutcome",
    "Output",
    "Plan",
    "Problem",
    "apply_plan",
    "check_roots",
    "diff",
    "expected_outputs",
    "generate",
    "module_parts",
    "plan_outputs",
    "resolve_targets",
]


@dataclass
class GenerateOutcome:
    """What ``generate`` found and did; ``written``/``deleted`` stay 0 with ``check``.

    ``tests`` is the plan of the ``--tests`` folder (None without it); ``reported`` holds
    the findings targets report about the whole set (the SQL target's SD121/SD122).
    """

    plan: Plan
    generated: list[str]  # display paths of the documents generated
    blocked: list[str]  # display paths of the documents skipped for lint errors
    check: bool
    written: int = 0
    deleted: int = 0
    tests: Plan | None = None
    tests_written: int = 0
    reported: list[Finding] = field(default_factory=list)

    @property
    def plans(self) -> list[Plan]:
        return [self.plan] + ([self.tests] if self.tests is not None else [])

    @property
    def problems(self) -> list[Problem]:
        return [p for plan in self.plans for p in plan.problems]

    @property
    def changes(self) -> list[Change]:
        return [c for plan in self.plans for c in plan.changes]

    @property
    def diffs(self) -> list[str]:
        return [d for plan in self.plans for d in plan.diffs]

    def findings(self) -> list[Finding]:
        """Every refusal, the targets' own findings, and with ``check`` every file that
        would change (SD4xx)."""
        found = [f for plan in self.plans for f in plan.findings(pending=self.check)]
        return sorted(found + self.reported, key=lambda f: f.sort_key())

    @property
    def ok(self) -> bool:
        """Exit 0: nothing blocked or refused, no error finding, and with ``check`` nothing
        to change."""
        from generator.findings import Severity

        pending = self.check and any(plan.changes for plan in self.plans)
        errors = any(f.severity is Severity.ERROR for f in self.reported)
        return not self.blocked and not self.problems and not pending and not errors


# --- targets -----------------------------------------------------------------------------


def resolve_targets(
    names: Sequence[str] | None, config: Config, *, tests: Path | None = None
) -> list[Target]:
    """The targets to run: ``names`` (``--target``), else the configured ones; ``tests``
    (``--tests DIR``) adds the ``tests`` target, and each chosen target's own test target where
    it has one (``tests_target(folder)``, e.g. TypeScript's fast-check tests). Unknown names are
    a usage error."""
    chosen = list(dict.fromkeys(names or config.targets or DEFAULT_TARGETS))
    if tests is not None and "tests" not in chosen:
        chosen.append("tests")
    unknown = unknown_targets(chosen)
    if unknown:
        from generator.targets import REGISTRY

        raise ConfigError(
            f"unknown target(s) {', '.join(unknown)}; known: {', '.join(sorted(REGISTRY))}"
        )
    if tests is None:
        for name in chosen:
            if target_root(get_target(name)) == "tests":
                raise ConfigError(
                    f"the {name} target writes into a folder of its own: pass --tests DIR"
                )
    resolved = [get_target(name) for name in chosen]
    if tests is not None:
        for target in list(resolved):
            companion = getattr(target, "tests_target", None)
            if companion is not None:
                resolved.append(companion(tests))
    return resolved


def _collision(doc: Pending, claimants: list[Pending], sources: Sources) -> Problem:
    rest = [d.spec_file.display for d in claimants if d is not doc]
    # Name a few: a message per document listing all others grows quadratically.
    others = ", ".join(rest[:3]) + (f" and {len(rest) - 3} more" if len(rest) > 3 else "")
    area, module, name = doc.parts
    document = sources.document(doc.result)
    line, column, end_line, end_column = (
        span_at(document, "title") if document is not None else (1, 1, 1, 1)
    )
    return Problem(
        doc.spec_file.display,
        line,
        column,
        f"refused: the module {area}/{module}/{name}.py would also be "
        f"written for {others}; give the documents distinct titles",
        COLLISION,
        (end_line, end_column),
    )


def expected_outputs(
    candidates: Sequence[tuple[SpecFile, FileResult]],
    settings: Config,
    targets: Sequence[Target],
    cache: RenderCache | None = None,
    sources: Sources | None = None,
    folders: dict[str, Path | None] | None = None,
) -> tuple[dict[str, list[Output]], list[Problem], list[str]]:
    """Render every clean document (a lint result and its file) for every target; returns
    the outputs by root (``"out"``, ``"tests"``), the refusals and the documents generated.

    ``settings.out`` is the output folder (its name goes into the package files); ``cache``
    serves renderings of documents rendered before (same bytes, path, targets and code);
    ``sources`` parses the documents the lint run did not keep; ``folders`` (root name ->
    folder) is where a cached rendering's files are read back (compared by SHA-256).
    """
    folders = folders or {"out": settings.out}
    if sources is None:
        from generator.lint.files import settings_for

        sources = Sources([f for f, _ in candidates], settings_for(settings))
    context = cache_context(targets, settings) if cache is not None else ""
    docs, problems = prepare(candidates, sources, cache, context)
    claims: dict[str, list[Pending]] = {}
    for doc in docs:
        claims.setdefault("/".join(doc.parts).casefold(), []).append(doc)
    roots = {target.name: target_root(target) for target in targets}
    create_only = {t.name for t in targets if getattr(t, "create_only", False)}
    outputs: dict[str, list[Output]] = {root: [] for root in roots.values()}
    generated: list[str] = []
    kept: dict[str, tuple[Pending, Document | None]] = {}  # by display path: for refusals
    for claimants in claims.values():
        if len(claimants) > 1:
            problems.extend(_collision(doc, claimants, sources) for doc in claimants)
            continue
        doc = claimants[0]
        rendered = (
            None if doc.files is None else served(doc.files, roots, folders, sources.signatures)
        )
        current = rendered is not None
        document: Document | None = None
        if rendered is None:
            document = sources.document(doc.result)
            if document is None:
                problems.append(unloadable(doc.spec_file.display, sources))
                continue
            try:
                rendered = render_files(targets, document, settings)
            except (RenderError, ValueError) as exc:  # a target's refusal (SqlError: ValueError)
                problems.append(Problem(doc.spec_file.display, 1, 1, f"refused: {exc}", REFUSED))
                continue
            if cache is not None and doc.key:
                entry = Rendered(
                    doc.parts, doc.at, in_sync(document), context, digests_of(rendered)
                )
                cache.put(doc.key, entry)
        for target_name, files in rendered.items():
            for relative, data in files.items():
                outputs[roots[target_name]].append(
                    Output(
                        relative,
                        data,
                        doc.spec_file.display,
                        doc.at,
                        create_only=target_name in create_only,
                        current=current,
                    )
                )
        generated.append(doc.spec_file.display)
        kept[doc.spec_file.display] = (doc, document)
    _package_files(outputs, targets, roots, settings)
    refusals, refused = refuse_overlong(
        outputs, folders, kept, lambda: _package_files(outputs, targets, roots, settings)
    )
    problems.extend(refusals)
    generated = [shown for shown in generated if shown not in refused]
    for listed in outputs.values():
        listed.sort(key=lambda o: o.relative)
    problems.sort(key=lambda p: (p.path, p.line, p.column, p.message))
    return outputs, problems, sorted(generated)


def _package_files(
    outputs: dict[str, list[Output]],
    targets: Sequence[Target],
    roots: dict[str, str],
    settings: Config,
) -> None:
    """Add the files that follow from the set of generated paths (``__init__.py``...)."""
    for target in targets:
        if isinstance(target, PackageFiles):
            root = roots[target.name]
            paths = [o.relative for o in outputs[root]]
            for relative, data in target.package_files(paths, settings.out.name).items():
                outputs[root].append(Output(relative, data))


# --- output roots ------------------------------------------------------------------------


def _overlap(one: Path, two: Path) -> bool:
    a, b = os.path.realpath(one), os.path.realpath(two)
    return (
        a == b or a.startswith(b.rstrip(os.sep) + os.sep) or b.startswith(a.rstrip(os.sep) + os.sep)
    )


def check_roots(out: Path, config: Config, *, tests: Path | None = None) -> None:
    """Refuse (usage error) output roots that overlap what they must not touch.

    Cleanup in ``out`` deletes files with statedoc's header that ``out``'s layout could hold;
    a second output root nested in it (the configured ``out`` under ``--out`` or the other way
    round), a specs folder or the project root inside it would lose files that way. A
    ``--tests`` folder may be ``out`` itself or a folder just below it (its modules then lie
    outside the layout cleanup looks at), not deeper.
    """
    shown = display(out)
    out_real, root_real = os.path.realpath(out), os.path.realpath(config.root)
    if root_real == out_real or root_real.startswith(out_real.rstrip(os.sep) + os.sep):
        raise ConfigError(
            f"the output folder {shown} contains the project root {display(config.root)}; "
            "stale-file cleanup would treat the whole project as its own: choose a sub-folder"
        )
    if out_real != os.path.realpath(config.out) and _overlap(out, config.out):
        raise ConfigError(
            f"--out {shown} overlaps the configured output folder {display(config.out)}: "
            "one output root nested in another would delete the other's files as stale; "
            "choose a folder outside it"
        )
    for specs in config.specs:
        if _overlap(out, specs):
            raise ConfigError(
                f"the output folder {shown} overlaps the specs folder {display(specs)}; "
                "keep generated files and specs in separate folders"
            )
    if tests is not None:
        try:
            depth = len(Path(os.path.realpath(tests)).relative_to(out_real).parts)
        except ValueError:
            depth = 0
        if depth > 1:
            raise ConfigError(
                f"--tests {display(tests)} lies {depth} folders deep in the output folder "
                f"{shown}, where its test modules would look like stale generated modules; "
                "use the output folder itself, a folder directly in it, or one outside it"
            )


# --- the entry point ---------------------------------------------------------------------


def _owned_by(targets: Sequence[Target]) -> Callable[[str, str], bool]:
    """Whether one of ``targets`` owns an existing file (relative path, first line)."""
    return lambda relative, line: any(t.owns(relative, line) for t in targets)


def generate(
    run: LintRun,
    files: Sequence[SpecFile],
    config: Config,
    *,
    out: Path | None = None,
    check: bool = False,
    prune: bool = True,
    cache: RenderCache | None = None,
    tests: Path | None = None,
    targets: Sequence[str] | None = None,
    sources: Sources | None = None,
) -> GenerateOutcome:
    """Generate the documents of ``run`` that linted clean into ``out`` (default: config).

    ``run`` comes from ``lint_files(..., keep_documents=True)``; a clean result without its
    document (served by the lint cache with ``reuse``) is served by the render ``cache`` or
    parsed by ``sources`` (default: one over ``files``).
    ``files`` are the linted files (for their config-relative paths); ``prune`` asks for
    stale-file cleanup (each target's own files, in its own folder) and is only honoured
    when every document could be generated, so pass it only when ``files`` is the whole
    configured set. With ``check`` nothing is written. ``targets``: the target names
    (default: ``[tool.statedoc] targets``); ``tests``: also write a pytest module per
    generated document in that folder. Overlapping output roots and unknown targets raise
    :class:`ConfigError` before anything is read or written.
    """
    out = out if out is not None else config.out
    check_roots(out, config, tests=tests)
    chosen = resolve_targets(targets, config, tests=tests)
    settings = config if out == config.out else replace(config, out=out)
    by_display = {f.display: f for f in files}
    if sources is None:
        from generator.lint.files import settings_for

        sources = Sources(files, settings_for(config))
    candidates: list[tuple[SpecFile, FileResult]] = []
    blocked: list[str] = []
    unreadable: list[Problem] = []
    for result in run.results:
        if not run.clean(result.path):
            blocked.append(result.path)
        elif result.path not in by_display:
            unreadable.append(unloadable(result.path, sources))
        else:
            candidates.append((by_display[result.path], result))
    folders: dict[str, Path | None] = {"out": out, "tests": tests}
    outputs, problems, generated = expected_outputs(
        candidates, settings, chosen, cache, sources, folders
    )
    complete = not blocked and not unreadable and not problems
    plans: dict[str, Plan] = {}
    for root, listed in outputs.items():
        folder = folders[root]
        assert folder is not None  # resolve_targets refuses the tests target without a folder
        owners = [t for t in chosen if target_root(t) == root]
        plans[root] = plan_outputs(
            listed,
            folder,
            prune=prune and complete,
            root=config.root,
            owns=_owned_by(owners),
            other_roots=[r for r in (out, tests, config.out) if r is not None and r != folder],
        )
    plan = plans.get("out") or plan_outputs([], out, prune=False, root=config.root)
    plan.problems[:0] = sorted(unreadable + problems, key=lambda p: (p.path, p.line, p.column))
    if prune and not complete:
        plan.notes.append("stale files were not looked for: some documents were not generated")
    outcome = GenerateOutcome(plan, generated, sorted(blocked), check)
    outcome.tests = plans.get("tests")
    if outcome.tests is not None:
        outcome.tests.fix = f"statedoc generate --tests {display(folders['tests'] or out)}"
    outcome.reported = _target_findings(
        chosen, candidates, set(generated), files, sources, settings
    )
    if not check:
        outcome.written, outcome.deleted = _apply(plan, sources)
        if outcome.tests is not None:
            tests_written, tests_deleted = _apply(outcome.tests, sources)
            outcome.tests_written = tests_written
            outcome.deleted += tests_deleted
    sources.signatures.save()
    return outcome


def _target_findings(
    chosen: Sequence[Target],
    candidates: Sequence[tuple[SpecFile, FileResult]],
    done: set[str],
    files: Sequence[SpecFile],
    sources: Sources,
    settings: Config,
) -> list[Finding]:
    """What the targets find about the whole set of generated documents (the SQL target's
    SD121/SD122), silenced as lint findings are: the run's ``select``/``ignore`` (the
    configuration's and the command line's), ``per-file-ignores`` and inline ignores."""
    reports = [r for t in chosen if (r := getattr(t, "findings", None)) is not None]
    if not reports:
        return []
    from generator.lint.files import shown

    documents = [  # every generated document, parsed
        document
        for _, result in candidates
        if result.path in done and (document := sources.document(result)) is not None
    ]
    relative = {f.display: f.relative for f in files}
    ignores = {result.path: result.suppressions for _, result in candidates}
    selection = sources.settings.selection
    found: list[Finding] = []
    for report in reports:
        found.extend(shown(report(documents, settings), selection, relative, ignores))
    return found


def _apply(plan: Plan, sources: Sources) -> tuple[int, int]:
    """Apply ``plan``, then record the signature of each file written (as git's checkout
    does): the next run need not read back what this one wrote. A failed write is reported
    as a problem of the plan and not recorded; nor is a file that no longer holds what was
    written when it is read back here (an editor, a formatter or another run wrote it since
    the rename: its signature must not vouch for statedoc's bytes)."""
    import hashlib

    before = len(plan.problems)
    done = apply_plan(plan)
    failed = {p.path for p in plan.problems[before:]}
    base = os.path.abspath(plan.out)
    for change in plan.changes:
        if change.new is None:
            continue
        if failed and display(plan.out / change.relative) in failed:
            continue
        path = os.path.join(base, change.relative)
        at = now()
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size != len(change.new):
                continue
            with open(path, "rb") as handle:
                if handle.read() != change.new:
                    continue
        except OSError:
            continue
        digest = hashlib.sha256(change.new).hexdigest()
        sources.signatures.record(path, info, digest, at)
    return done

"""The output tree: what ``generate`` should write for the chosen targets, and the entry
point that writes it.

Every built-in target (:mod:`generator.targets`) writes below
``<out>/<area>/<module>/<name>``, the parts being ``snake_name`` of ``product_area``,
``module`` and ``title``: ``python`` the module (``.py``, plus ``__init__.py`` files and
``py.typed``), ``mermaid`` the ``.mmd`` diagram, ``sql`` the ``.postgresql.sql``/``.sqlite.sql``
files, ``typescript`` the ``.ts`` module. ``<out>`` is ``[tool.statedoc] out`` or the target's
own ``[tool.statedoc.<target>] out``; the chosen targets' tests (Python's
``test_<area>_<module>_<name>.py``, TypeScript's ``.test.ts``) go to ``--tests DIR`` or the
configured ``tests`` folder (:mod:`generator.run.folders`). Every file starts with statedoc's
header line, and each target says which existing files are its own, which is how cleanup
recognises them. Each folder has a plan of its own, cleaned only of the files of the targets
writing there.

What each document renders, and the refusals before planning (two documents on one path, a
path too long), live in :mod:`generator.run.expected`; planning (header ownership,
symlink and path-escape refusal, the diffs) in :mod:`generator.output.plan` and applying
(atomic, only-if-changed, the same checks again at write time) in
:mod:`generator.output.apply`. Rules specific to this tree:

* output roots must not overlap each other, the specs folders or the project root (a usage
  error for ``out``, ``--out`` and ``--tests``; SD410-SD414 findings at the key for a target's
  own folders): cleanup in one root would otherwise delete the files of another;
* stale files (carrying the header, produced by no document) are only looked for when the
  whole configured set of documents was generated (``prune``), with none skipped for lint
  errors: otherwise a file of a document that was not part of this run would look stale.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

from generator.cache.store import RenderCache
from generator.core.errors import ConfigError
from generator.core.findings import Finding
from generator.lint.document import FileResult
from generator.lint.files import LintRun
from generator.load.config import Config
from generator.load.discover import SpecFile
from generator.model.document import Document
from generator.output.apply import apply_recorded
from generator.output.plan import (
    Change,
    Output,
    Plan,
    Problem,
    diff,
    display,
    plan_outputs,
)
from generator.output.rendered import unloadable
from generator.output.sources import Sources
from generator.run.expected import expected_outputs
from generator.run.folders import Placement, folder_key, place
from generator.targets import Target, module_parts

__all__ = [
    "Change",
    "GenerateOutcome",
    "Output",
    "Plan",
    "Problem",
    "check_roots",
    "diff",
    "expected_outputs",
    "generate",
    "module_parts",
    "plan_outputs",
]


@dataclass
class GenerateOutcome:
    """What ``generate`` found and did; ``written``/``deleted`` stay 0 with ``check``.

    ``tests`` is the plan of the ``--tests`` (or configured ``tests``) folder, None without
    one; ``more`` the plans of the folders targets have of their own (``[tool.statedoc.<name>]
    out``/``tests``), whose writes and deletions count in ``written``/``tests_written`` and
    ``deleted``; ``reported`` holds the findings targets report about the whole set (the SQL
    target's SD121/SD122).
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
    more: list[Plan] = field(default_factory=list)

    @property
    def plans(self) -> list[Plan]:
        return [self.plan] + ([self.tests] if self.tests is not None else []) + self.more

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
        from generator.core.findings import Severity

        pending = self.check and any(plan.changes for plan in self.plans)
        errors = any(f.severity is Severity.ERROR for f in self.reported)
        return not self.blocked and not self.problems and not pending and not errors


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
    given = out
    out = out if out is not None else config.out
    check_roots(out, config, tests=tests)
    placement = place(targets, config, out=given, tests=tests)
    _check_given(placement, out if given is not None else None, tests)
    settings = config if out == config.out else config._replace(out=out)
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
    main = folder_key("out", out)
    if placement.blocked:  # a configured folder is unsafe: read and write nothing
        plan = plan_outputs([], out, prune=False, root=config.root)
        plan.problems[:] = sorted(placement.problems, key=lambda p: (p.line, p.column))
        return GenerateOutcome(plan, [], sorted(blocked), check)
    chosen = placement.targets
    roots = {target.name: placement.key(target.name) for target in chosen}
    folders: dict[str, Path | None] = {roots[t.name]: placement.folders[t.name] for t in chosen}
    outputs, problems, generated = expected_outputs(
        candidates, settings, chosen, cache, sources, folders, roots, placement.settings
    )
    complete = not blocked and not unreadable and not problems
    plans = _plans(outputs, placement, roots, folders, prune=prune and complete, root=config.root)
    plan = (
        plans.pop(main) if main in plans else plan_outputs([], out, prune=False, root=config.root)
    )
    plan.problems[:0] = sorted(unreadable + problems, key=lambda p: (p.path, p.line, p.column))
    plan.problems.extend(placement.problems)  # SD414: reported, not blocking
    if prune and not complete:
        plan.notes.append("stale files were not looked for: some documents were not generated")
    outcome = GenerateOutcome(plan, generated, sorted(blocked), check)
    tests_folder = tests if tests is not None else config.tests
    if tests_folder is not None:
        outcome.tests = plans.pop(folder_key("tests", tests_folder), None)
    if outcome.tests is not None and tests is not None:
        outcome.tests.fix = f"statedoc generate --tests {display(tests)}"
    outcome.more = [plans[key] for key in sorted(plans)]
    of_tests = {id(plans[key]) for key in plans if key.startswith("tests\0")}
    outcome.reported = _target_findings(
        chosen, candidates, set(generated), files, sources, settings
    )
    if not check:
        if outcome.tests is not None:
            of_tests.add(id(outcome.tests))
        _apply_all(outcome, of_tests, sources)
    sources.signatures.save()
    return outcome


def _plans(
    outputs: dict[str, list[Output]],
    placement: Placement,
    roots: dict[str, str],
    folders: dict[str, Path | None],
    *,
    prune: bool,
    root: Path,
) -> dict[str, Plan]:
    """One plan per folder (and kind), cleaned only of its own targets' files and never
    walking into another known folder."""
    plans: dict[str, Plan] = {}
    for key, listed in outputs.items():
        folder = folders[key]
        assert folder is not None  # every chosen target has a folder
        here = os.path.realpath(folder)
        plans[key] = plan_outputs(
            listed,
            folder,
            prune=prune,
            root=root,
            owns=_owned_by([t for t in placement.targets if roots[t.name] == key]),
            other_roots=[r for r in placement.known if os.path.realpath(r) != here],
        )
    return plans


def _apply_all(outcome: GenerateOutcome, of_tests: set[int], sources: Sources) -> None:
    """Apply every plan, counting writes of test folders apart."""
    outcome.written, outcome.deleted = apply_recorded(outcome.plan, sources.signatures)
    for extra in ([outcome.tests] if outcome.tests is not None else []) + outcome.more:
        written, deleted = apply_recorded(extra, sources.signatures)
        if id(extra) in of_tests:
            outcome.tests_written += written
        else:
            outcome.written += written
        outcome.deleted += deleted


def _check_given(placement: Placement, out: Path | None, tests: Path | None) -> None:
    """``--out`` and ``--tests`` against the folders the configuration gives the chosen
    targets (usage errors, as :func:`check_roots`' are)."""
    if out is not None:
        for (name, key), folder in sorted(placement.configured.items()):
            chosen = name in placement.folders
            if key == "out" and chosen and folder != out and _overlap(out, folder):
                raise ConfigError(
                    f"--out {display(out)} overlaps the output folder {display(folder)} of "
                    f"[tool.statedoc.{name}] out: one output root nested in another would "
                    "delete the other's files as stale; choose a folder outside it"
                )
    if tests is None:
        return
    for target in placement.targets:
        if target.root != "out":
            continue
        folder = placement.folders[target.name]
        try:
            depth = len(Path(os.path.realpath(tests)).relative_to(os.path.realpath(folder)).parts)
        except ValueError:
            continue
        if depth > 1:
            raise ConfigError(
                f"--tests {display(tests)} lies {depth} folders deep in the output folder "
                f"{display(folder)}, where its test modules would look like stale generated "
                "modules; use the output folder itself, a folder directly in it, or one "
                "outside it"
            )


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
    documents = _Parsed(
        lambda: [  # every generated document, parsed
            document
            for _, result in candidates
            if result.path in done and (document := sources.document(result)) is not None
        ]
    )
    reported = [f for target in chosen for f in target.findings(documents, settings)]
    if not reported:
        return []
    from generator.lint.files import shown

    relative = {f.display: f.relative for f in files}
    ignores = {result.path: result.suppressions for _, result in candidates}
    return shown(reported, sources.settings.selection, relative, ignores)


class _Parsed(Sequence[Document]):
    """The generated documents, parsed on first access: the targets that report nothing
    (all but SQL) cost a run no parse."""

    def __init__(self, load: Callable[[], list[Document]]) -> None:
        self._load = load
        self._items: list[Document] | None = None

    def _all(self) -> list[Document]:
        if self._items is None:
            self._items = self._load()
        return self._items

    @overload
    def __getitem__(self, index: int) -> Document: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Document]: ...

    def __getitem__(self, index: int | slice) -> Document | Sequence[Document]:
        return self._all()[index]

    def __iter__(self) -> Iterator[Document]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

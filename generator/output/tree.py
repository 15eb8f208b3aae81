"""The output tree: what ``generate`` should write, and the entry point that writes it.

Layout: ``<out>/<area>/<module>/<name>.py`` and ``<name>.mmd`` next to it, where the parts
are ``snake_name`` of ``product_area``, ``module`` and ``title``; an ``__init__.py`` in every
package folder (``<out>`` included) and ``py.typed`` at the top. Every file starts with
statedoc's header line, which is how cleanup recognises its own files. ``generate --tests DIR``
adds ``DIR/test_<area>_<module>_<name>.py`` per document, through the same plan.

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator.config import Config, ConfigError
from generator.findings import Finding
from generator.lint.cache import RenderCache
from generator.lint.files import LintRun
from generator.load.discover import SpecFile
from generator.model.document import Document
from generator.model.names import snake_name
from generator.output.plan import (
    COLLISION,
    REFUSED,
    At,
    Change,
    Output,
    Plan,
    Problem,
    apply_plan,
    diff,
    display,
    plan_outputs,
)
from generator.targets.python import (
    RenderError,
    document_sha256,
    render_diagram,
    render_module,
    render_package_init,
    render_py_typed,
)

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
    "test_outputs",
]

_MARKER = "py.typed"
_INIT = "__init__.py"


@dataclass
class GenerateOutcome:
    """What ``generate`` found and did; ``written``/``deleted`` stay 0 with ``check``.

    ``tests`` is the plan of the ``--tests`` folder (None without ``--tests``).
    """

    plan: Plan
    generated: list[str]  # display paths of the documents generated
    blocked: list[str]  # display paths of the documents skipped for lint errors
    check: bool
    written: int = 0
    deleted: int = 0
    tests: Plan | None = None
    tests_written: int = 0

    @property
    def plans(self) -> list[Plan]:
        return [self.plan] + ([self.tests] if self.tests is not None else [])

    @property
    def problems(self) -> list[Problem]:
        return [p for plan in self.plans for p in plan.problems]

    @property
    def changes(self) -> list[Change]:
        return self.plan.changes

    @property
    def diffs(self) -> list[str]:
        return [d for plan in self.plans for d in plan.diffs]

    def findings(self) -> list[Finding]:
        """Every refusal, and with ``check`` every file that would change (SD4xx)."""
        found = [f for plan in self.plans for f in plan.findings(pending=self.check)]
        return sorted(found, key=lambda f: f.sort_key())

    @property
    def ok(self) -> bool:
        """Exit 0: nothing blocked or refused, and with ``check`` nothing to change."""
        pending = self.check and any(plan.changes for plan in self.plans)
        return not self.blocked and not self.problems and not pending


# --- layout ------------------------------------------------------------------------------


def module_parts(document: Document) -> tuple[str, str, str]:
    """``(area, module, name)``: identifiers, so never ``..``, ``/`` or empty."""
    spec = document.spec
    return snake_name(spec.product_area), snake_name(spec.module), snake_name(spec.title)


def span_at(document: Document, key: str) -> At:
    """Where a top-level front matter value stands: the position findings point at."""
    span = document.span((key,))
    start = document.source.position(span.start)
    return (*start, *document.source.position(max(span.end, span.start + 1)))


def expected_outputs(
    documents: Sequence[tuple[SpecFile, Document]],
    out_name: str,
    cache: RenderCache | None = None,
) -> tuple[list[Output], list[Problem], list[str]]:
    """Render every document; returns the outputs, the refusals and the documents generated.

    ``out_name`` is the output folder's own name (its ``__init__.py`` may need a noqa);
    ``cache`` serves renderings of documents rendered before (same bytes, path and code).
    """
    problems: list[Problem] = []
    claims: dict[str, list[tuple[SpecFile, Document]]] = {}
    for spec_file, document in documents:
        area, module, name = module_parts(document)
        claims.setdefault(f"{area}/{module}/{name}".casefold(), []).append((spec_file, document))
    outputs: list[Output] = []
    generated: list[str] = []
    packages: set[str] = set()
    for claimants in claims.values():
        if len(claimants) > 1:
            for spec_file, document in claimants:
                rest = [f.display for f, _ in claimants if f is not spec_file]
                # Name a few: a message per document listing all others grows quadratically.
                others = ", ".join(rest[:3]) + (
                    f" and {len(rest) - 3} more" if len(rest) > 3 else ""
                )
                area, module, name = module_parts(document)
                line, column, end_line, end_column = span_at(document, "title")
                problems.append(
                    Problem(
                        spec_file.display,
                        line,
                        column,
                        f"refused: the module {area}/{module}/{name}.py would also be "
                        f"written for {others}; give the documents distinct titles",
                        COLLISION,
                        (end_line, end_column),
                    )
                )
            continue
        spec_file, document = claimants[0]
        area, module, name = module_parts(document)
        sha256 = document_sha256(document.source)
        key = cache.key(sha256, spec_file.relative, name) if cache is not None else ""
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            source, diagram = hit
        else:
            try:
                source = render_module(
                    document.spec, relative=spec_file.relative, sha256=sha256, module=name
                )
                diagram = render_diagram(document.spec, relative=spec_file.relative)
            except (RenderError, ValueError) as exc:
                problems.append(Problem(spec_file.display, 1, 1, f"refused: {exc}", REFUSED))
                continue
            if cache is not None:
                cache.put(key, source, diagram)
        base = f"{area}/{module}/{name}"
        at = span_at(document, "id")
        outputs.append(Output(f"{base}.py", source.encode("utf-8"), spec_file.display, at))
        outputs.append(Output(f"{base}.mmd", diagram.encode("utf-8"), spec_file.display, at))
        packages.update((area, f"{area}/{module}"))
        generated.append(spec_file.display)
    outputs.append(Output(_INIT, render_package_init(out_name).encode("utf-8")))
    outputs.append(Output(_MARKER, render_py_typed().encode("utf-8")))
    for package in sorted(packages):
        folder = package.rsplit("/", 1)[-1]
        outputs.append(Output(f"{package}/{_INIT}", render_package_init(folder).encode("utf-8")))
    outputs.sort(key=lambda o: o.relative)
    problems.sort(key=lambda p: (p.path, p.line, p.column, p.message))
    return outputs, problems, sorted(generated)


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


# --- test modules (``generate --tests``) ---------------------------------------------------


def test_outputs(
    documents: Sequence[tuple[SpecFile, Document]], out: Path, config: Config
) -> list[Output]:
    """One pytest module per document: ``test_<area>_<module>_<name>.py``.

    The module imports the generated module by its dotted path below the project root (or by
    the output folder's name when the folder lies outside the project).
    """
    from generator.testing.pytest_plugin import render_test_module

    try:
        package = out.resolve().relative_to(config.root.resolve()).parts
    except ValueError:
        package = (out.name,)
    outputs = []
    for spec_file, document in documents:
        area, module, name = module_parts(document)
        text = render_test_module(".".join((*package, area, module, name)), spec_file.relative)
        outputs.append(
            Output(
                f"test_{area}_{module}_{name}.py",
                text.encode("utf-8"),
                spec_file.display,
                span_at(document, "id"),
            )
        )
    return outputs


# --- the entry point ---------------------------------------------------------------------


def _in_layout(relative: str) -> bool:
    """Only files where generate writes can be stale: ``py.typed``, ``__init__.py`` at the top
    and in ``<area>/`` and ``<area>/<module>/``, and ``<area>/<module>/<name>.{py,mmd}``."""
    parts = relative.split("/")
    if parts[-1] in (_INIT, _MARKER):
        return len(parts) <= (1 if parts[-1] == _MARKER else 3)
    return len(parts) == 3 and parts[-1].endswith((".py", ".mmd"))


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
) -> GenerateOutcome:
    """Generate the documents of ``run`` that linted clean into ``out`` (default: config).

    ``run`` must come from ``lint_files(..., keep_documents=True)`` (``lint_specs`` does
    that by default): a result without its document cannot be generated and is refused.
    ``files`` are the linted files (for their config-relative paths); ``prune`` asks for
    stale-file cleanup and is only honoured when every document could be generated, so pass
    it only when ``files`` is the whole configured set. With ``check`` nothing is written.
    ``tests``: also plan (and write) a pytest module per generated document in that folder.
    Overlapping output roots raise :class:`ConfigError` before anything is read or written.
    """
    out = out if out is not None else config.out
    check_roots(out, config, tests=tests)
    by_display = {f.display: f for f in files}
    documents: list[tuple[SpecFile, Document]] = []
    blocked: list[str] = []
    unreadable: list[Problem] = []
    for result in run.results:
        if not run.clean(result.path):
            blocked.append(result.path)
        elif result.document is None or result.path not in by_display:
            unreadable.append(
                Problem(
                    result.path,
                    1,
                    1,
                    "refused: the front matter did not load far enough to build a model "
                    "(see `statedoc lint`)",
                    REFUSED,
                )
            )
        else:
            documents.append((by_display[result.path], result.document))
    outputs, problems, generated = expected_outputs(documents, out.name, cache)
    complete = not blocked and not unreadable and not problems
    plan = plan_outputs(
        outputs,
        out,
        prune=prune and complete,
        root=config.root,
        stale_candidate=_in_layout,
        other_roots=[r for r in (tests, config.out) if r is not None],
    )
    plan.problems[:0] = sorted(unreadable + problems, key=lambda p: (p.path, p.line, p.column))
    if prune and not complete:
        plan.notes.append("stale files were not looked for: some documents were not generated")
    outcome = GenerateOutcome(plan, generated, sorted(blocked), check)
    if tests is not None:
        done = set(generated)
        chosen = [(f, d) for f, d in documents if f.display in done]
        outcome.tests = plan_outputs(
            test_outputs(chosen, out, config), tests, prune=False, root=config.root
        )
        outcome.tests.fix = f"statedoc generate --tests {display(tests)}"
    if not check:
        outcome.written, outcome.deleted = apply_plan(plan)
        if outcome.tests is not None:
            outcome.tests_written = apply_plan(outcome.tests)[0]
    return outcome

"""The output tree: what ``generate`` should write, what is stale, and applying it safely.

Planning is separate from applying: :func:`plan_outputs` reads the tree and returns every
create/update/delete with old and new bytes (``--check`` prints them as diffs and writes
nothing); :func:`apply_plan` performs them. :func:`generate` is the entry point for the
``generate``, ``build`` and ``check`` commands.

Layout: ``<out>/<area>/<module>/<name>.py`` and ``<name>.mmd`` next to it, where the parts
are ``snake_name`` of ``product_area``, ``module`` and ``title``; an ``__init__.py`` in every
package folder (``<out>`` included) and ``py.typed`` at the top. Every file starts with
statedoc's header line, which is how cleanup recognises its own files.

Safety rules, each refused with a message rather than worked around:

* two documents whose outputs land on one path (compared case-insensitively, for macOS and
  Windows checkouts) are both refused; neither overwrites the other;
* a path is written only if it resolves inside ``<out>`` and no folder or file on the way
  below ``<out>`` is a symlink;
* a file without statedoc's header is never overwritten or deleted (an ``__init__.py`` or
  ``py.typed`` of the user's is simply kept: it does the same job);
* stale files (carrying the header, produced by no document) are only looked for when the
  whole configured set of documents was generated (``prune``), with none skipped for lint
  errors: otherwise a file of a document that was not part of this run would look stale.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from generator.cache import RenderCache
from generator.config import Config
from generator.discover import SpecFile
from generator.document import Document
from generator.linter import LintRun
from generator.names import snake_name
from generator.render import (
    RenderError,
    document_sha256,
    has_header,
    render_diagram,
    render_module,
    render_package_init,
    render_py_typed,
)
from generator.write import unified_diff

Action = Literal["create", "update", "delete"]
_MANAGED_SUFFIXES = (".py", ".mmd")
_MARKER = "py.typed"
_INIT = "__init__.py"
_SKIP_DIRS = {"__pycache__", "node_modules"}


@dataclass(frozen=True)
class Output:
    """One file the tree should hold; ``relative`` is a POSIX path below ``out``."""

    relative: str
    data: bytes
    owner: str | None = None  # display path of the document it comes from; None: package file


@dataclass(frozen=True)
class Change:
    action: Action
    relative: str
    old: bytes | None
    new: bytes | None


@dataclass(frozen=True)
class Problem:
    """A refusal, printed like a finding: ``path:line:col: message``."""

    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


@dataclass
class Plan:
    out: Path
    label: str  # how diffs name ``out`` (relative to the config root when inside it)
    outputs: list[Output] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class GenerateOutcome:
    """What ``generate`` found and did; ``written``/``deleted`` stay 0 with ``check``."""

    plan: Plan
    generated: list[str]  # display paths of the documents generated
    blocked: list[str]  # display paths of the documents skipped for lint errors
    check: bool
    written: int = 0
    deleted: int = 0

    @property
    def problems(self) -> list[Problem]:
        return self.plan.problems

    @property
    def changes(self) -> list[Change]:
        return self.plan.changes

    @property
    def diffs(self) -> list[str]:
        return [diff(change, self.plan.label) for change in self.plan.changes]

    @property
    def ok(self) -> bool:
        """Exit 0: nothing blocked or refused, and with ``check`` nothing to change."""
        return not self.blocked and not self.problems and not (self.check and self.changes)


# --- layout ------------------------------------------------------------------------------


def module_parts(document: Document) -> tuple[str, str, str]:
    """``(area, module, name)``: identifiers, so never ``..``, ``/`` or empty."""
    spec = document.spec
    return snake_name(spec.product_area), snake_name(spec.module), snake_name(spec.title)


def _position(document: Document, key: str) -> tuple[int, int]:
    return document.source.position(document.span((key,)).start)


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
                line, column = _position(document, "title")
                problems.append(
                    Problem(
                        spec_file.display,
                        line,
                        column,
                        f"generate: refused: the module {area}/{module}/{name}.py would also be "
                        f"written for {others}; give the documents distinct titles",
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
                problems.append(Problem(spec_file.display, 1, 1, f"generate: refused: {exc}"))
                continue
            if cache is not None:
                cache.put(key, source, diagram)
        base = f"{area}/{module}/{name}"
        outputs.append(Output(f"{base}.py", source.encode("utf-8"), spec_file.display))
        outputs.append(Output(f"{base}.mmd", diagram.encode("utf-8"), spec_file.display))
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


# --- reading the tree safely -------------------------------------------------------------


def _first_line(data: bytes) -> str:
    return data.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")


def _ours(path: Path) -> bool:
    """Whether a regular file (not a symlink) starts with statedoc's header line."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with path.open("rb") as handle:
            return has_header(_first_line(handle.readline(4096)))
    except OSError:
        return False


def _inside(path: Path, out_real: str) -> bool:
    real = os.path.realpath(path)
    return real == out_real or real.startswith(out_real.rstrip(os.sep) + os.sep)


def _unsafe(out: Path, relative: str, out_real: str) -> str | None:
    """Why writing ``out/relative`` is unsafe, or None."""
    parts = relative.split("/")
    if any(p in ("", ".", "..") or "\x00" in p or os.sep in p for p in parts) or (
        os.altsep and any(os.altsep in p for p in parts)
    ):
        return "not a plain relative path"
    current = out
    for index, part in enumerate(parts):
        current = current / part
        if current.is_symlink():
            return f"{_display(current)} is a symlink; statedoc does not write through symlinks"
        if index < len(parts) - 1 and current.exists() and not current.is_dir():
            return f"{_display(current)} is a file, not a folder"
    if not _inside(current, out_real):
        return "it resolves outside the output folder"
    return None


def _display(path: Path) -> str:
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.absolute().as_posix()


def _label(out: Path, root: Path) -> str:
    """``out`` as diffs name it: relative to the config root when inside it (``generated``)."""
    for candidate, base in ((out.absolute(), root.absolute()), (out.resolve(), root.resolve())):
        try:
            label = candidate.relative_to(base).as_posix()
        except ValueError:
            continue
        return "" if label == "." else label
    return out.absolute().as_posix().lstrip("/")


def plan_outputs(outputs: Iterable[Output], out: Path, *, prune: bool, root: Path) -> Plan:
    """Compare ``outputs`` with the tree under ``out``; with ``prune``, also find stale files.

    Reads only; nothing is written.
    """
    plan = Plan(out=out, label=_label(out, root))
    plan.outputs = list(outputs)
    if out.exists() and not out.is_dir():
        problem = Problem(_display(out), 1, 1, "generate: the output path is not a folder")
        plan.problems.append(problem)
        return plan
    out_real = os.path.realpath(out)
    root_real = os.path.realpath(root)
    if root_real == out_real or root_real.startswith(out_real.rstrip(os.sep) + os.sep):
        # Stale-file cleanup would treat the whole project (specs, other outputs) as its own.
        problem = Problem(
            _display(out), 1, 1, "generate: refused: the output folder contains the project root"
        )
        plan.problems.append(problem)
        plan.outputs = []
        return plan
    expected: set[str] = set()
    for output in plan.outputs:
        expected.add(output.relative)
        where = _display(out / output.relative)
        reason = _unsafe(out, output.relative, out_real)
        if reason is not None:
            plan.problems.append(Problem(where, 1, 1, f"generate: refused to write: {reason}"))
            continue
        path = out / output.relative
        if path.is_dir():
            plan.problems.append(Problem(where, 1, 1, "generate: refused: a folder is in the way"))
            continue
        try:
            old = path.read_bytes()
        except FileNotFoundError:
            plan.changes.append(Change("create", output.relative, None, output.data))
            continue
        except OSError as exc:
            plan.problems.append(Problem(where, 1, 1, f"generate: cannot read: {exc}"))
            continue
        if old == output.data:
            plan.unchanged += 1
        elif not has_header(_first_line(old)):
            if output.owner is None:  # the user's own __init__.py / py.typed: keep it
                plan.notes.append(f"kept {where}: it has no statedoc header")
                plan.unchanged += 1
            else:
                plan.problems.append(
                    Problem(
                        where,
                        1,
                        1,
                        "generate: refused to overwrite a file statedoc did not write (it has "
                        f"no header line); move it away to generate {output.owner}",
                    )
                )
        else:
            plan.changes.append(Change("update", output.relative, old, output.data))
    if prune:
        _find_stale(plan, expected, out_real)
    plan.changes.sort(key=lambda c: c.relative)
    return plan


def _in_layout(relative: str) -> bool:
    """Only files where generate writes can be stale: ``py.typed``, ``__init__.py`` at the top
    and in ``<area>/`` and ``<area>/<module>/``, and ``<area>/<module>/<name>.{py,mmd}``."""
    parts = relative.split("/")
    if parts[-1] in (_INIT, _MARKER):
        return len(parts) <= (1 if parts[-1] == _MARKER else 3)
    return len(parts) == 3


def _find_stale(plan: Plan, expected: set[str], out_real: str) -> None:
    if not plan.out.is_dir():
        return
    for folder, dirs, files in os.walk(plan.out):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and not os.path.islink(os.path.join(folder, d))
        )
        for name in sorted(files):
            if not (name.endswith(_MANAGED_SUFFIXES) or name == _MARKER):
                continue
            path = Path(folder) / name
            relative = path.relative_to(plan.out).as_posix()
            if not _in_layout(relative):
                continue  # e.g. test modules from `generate --tests` kept inside the tree
            if relative in expected or not _inside(path, out_real) or not _ours(path):
                continue
            plan.changes.append(Change("delete", relative, path.read_bytes(), None))


# --- diffs and applying -----------------------------------------------------------------


def diff(change: Change, label: str) -> str:
    """A git-style unified diff (``/dev/null`` for the missing side of a create or delete)."""
    name = f"{label}/{change.relative}" if label else change.relative
    return unified_diff(change.old, change.new, name)


def apply_plan(plan: Plan) -> tuple[int, int]:
    """Perform the plan's changes: ``(written, deleted)``. Safety is checked again for each
    file just before it is touched; a file that cannot be written or deleted becomes a
    problem of the plan, and the other changes still happen."""
    from generator.write import atomic_write  # lazy: planning alone never writes

    written = deleted = 0
    for change in plan.changes:
        path = plan.out / change.relative
        try:
            if change.new is not None:
                plan.out.mkdir(parents=True, exist_ok=True)
                reason = _unsafe(plan.out, change.relative, os.path.realpath(plan.out))
                if reason is not None:
                    raise OSError(f"refused to write: {reason}")
                if atomic_write(path, change.new):
                    written += 1
            elif _inside(path, os.path.realpath(plan.out)) and _ours(path):
                path.unlink()
                deleted += 1
                _remove_empty_parents(path.parent, plan.out)
        except OSError as exc:
            plan.problems.append(Problem(_display(path), 1, 1, f"generate: {exc}"))
    return written, deleted


def _remove_empty_parents(folder: Path, out: Path) -> None:
    """Remove folders left empty by deletions, up to (not including) ``out``."""
    while folder != out and out in folder.parents:
        with contextlib.suppress(OSError):
            folder.rmdir()
        if folder.exists():
            return
        folder = folder.parent


# --- the entry point ---------------------------------------------------------------------


def generate(
    run: LintRun,
    files: Sequence[SpecFile],
    config: Config,
    *,
    out: Path | None = None,
    check: bool = False,
    prune: bool = True,
    cache: RenderCache | None = None,
) -> GenerateOutcome:
    """Generate the documents of ``run`` that linted clean into ``out`` (default: config).

    ``run`` must come from ``lint_files(..., keep_documents=True)`` (``lint_specs`` does
    that by default): a result without its document cannot be generated and is refused.
    ``files`` are the linted files (for their config-relative paths); ``prune`` asks for
    stale-file cleanup and is only honoured when every document could be generated, so pass
    it only when ``files`` is the whole configured set. With ``check`` nothing is written.
    """
    out = out if out is not None else config.out
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
                    "generate: refused: the front matter did not load "
                    "far enough to build a model (see `statedoc lint`)",
                )
            )
        else:
            documents.append((by_display[result.path], result.document))
    outputs, problems, generated = expected_outputs(documents, out.name, cache)
    complete = not blocked and not unreadable and not problems
    plan = plan_outputs(outputs, out, prune=prune and complete, root=config.root)
    plan.problems[:0] = sorted(unreadable + problems, key=lambda p: (p.path, p.line, p.column))
    if prune and not complete:
        plan.notes.append("stale files were not looked for: some documents were not generated")
    outcome = GenerateOutcome(plan, generated, sorted(blocked), check)
    if not check:
        outcome.written, outcome.deleted = apply_plan(plan)
    return outcome

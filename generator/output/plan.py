"""One plan/apply layer for every file statedoc writes into an output folder.

``generate`` (modules, diagrams, ``--tests`` modules) plans its writes here: :func:`plan_outputs`
reads the folder and returns every create/update/delete with old and new bytes (``--check``
prints them as diffs and writes nothing); :func:`apply_plan` performs them. Every refusal is a
:class:`Problem` and every pending change can be turned into a finding (SD4xx), so CI reports
carry them in every format.

Safety rules, each refused with a message rather than worked around:

* a path is written only if it resolves inside the output folder and no folder or file on the
  way below it is a symlink;
* a file without statedoc's header is never overwritten or deleted (an ``__init__.py`` or
  ``py.typed`` of the user's is simply kept: it does the same job);
* stale files (carrying the header, produced by nothing) are only looked for when asked, never
  below another output root nested in the folder.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from generator.findings import Finding, Severity
from generator.output.files import unified_diff
from generator.templating import has_header

if TYPE_CHECKING:
    from generator.output.files import Batch

Action = Literal["create", "update", "delete"]
_SKIP_DIRS = {"__pycache__", "node_modules"}

#: Codes of the output stage (catalogue: :mod:`generator.rules.catalogue`).
STALE, MISSING, LEFT_OVER, FOREIGN, UNSAFE, COLLISION, DRIFT, WRITE_FAILED, REFUSED = (
    f"SD40{n}" for n in range(1, 10)
)
#: A position in a file: ``(line, column, end_line, end_column)``, 1-based.
At = tuple[int, int, int, int]
_TOP: At = (1, 1, 1, 1)


@dataclass(frozen=True)
class Output:
    """One file the folder should hold; ``relative`` is a POSIX path below it."""

    relative: str
    data: bytes
    owner: str | None = None  # display path of the document it comes from; None: package file
    at: At = _TOP  # where in the owner a finding about this file points
    create_only: bool = False  # written when missing, then the user's (a skeleton to fill in)


@dataclass(frozen=True)
class Change:
    action: Action
    relative: str
    old: bytes | None
    new: bytes | None
    owner: str | None = None
    at: At = _TOP


@dataclass(frozen=True)
class Problem:
    """A refusal: printed like a finding (``path:line:col: message``), reported as one."""

    path: str
    line: int
    column: int
    message: str
    code: str = REFUSED
    end: tuple[int, int] | None = None  # (end_line, end_column); None: the start position

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    def finding(self) -> Finding:
        end_line, end_column = self.end or (self.line, self.column)
        return make_finding(
            self.code, self.path, (self.line, self.column, end_line, end_column), self.message
        )


@dataclass
class Plan:
    out: Path
    label: str  # how diffs name ``out`` (relative to the config root when inside it)
    outputs: list[Output] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fix: str = "statedoc generate"  # the command that brings the folder up to date

    @property
    def diffs(self) -> list[str]:
        return [diff(change, self.label) for change in self.changes]

    def findings(self, *, pending: bool) -> list[Finding]:
        """Refusals, and with ``pending`` (a ``--check`` run) each change still to be made."""
        found = [p.finding() for p in self.problems]
        if pending:
            found.extend(self.change_finding(change) for change in self.changes)
        return found

    def change_finding(self, change: Change) -> Finding:
        name = display(self.out / change.relative)
        source = "this document" if change.owner else "statedoc"
        if change.action == "create":
            code, what = MISSING, f"{name} is missing (generated from {source})"
        elif change.action == "update":
            code, what = STALE, f"{name} is stale: it differs from what {source} generates"
        else:
            code, what = LEFT_OVER, f"{name} is left over: no document generates it any more"
        message = f"{what}; run `{self.fix}` (the diff shows the change)"
        return make_finding(code, change.owner or name, change.at, message)


def make_finding(code: str, path: str, at: At, message: str) -> Finding:
    """A finding of the output stage (always an error: CI must see it)."""
    from generator.rules import finding

    found = finding(code, path, at, message)
    assert found.severity is Severity.ERROR, code  # catalogue: every SD4xx is an error
    return found


# --- reading the folder safely ----------------------------------------------------------


def first_line(data: bytes) -> str:
    return data.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", errors="replace")


def ours(path: Path) -> bool:
    """Whether a regular file (not a symlink) starts with statedoc's header line."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with path.open("rb") as handle:
            return has_header(first_line(handle.readline(4096)))
    except OSError:
        return False


def inside(path: Path | str, folder_real: str) -> bool:
    """Whether ``path`` resolves to ``folder_real`` (a realpath) or below it."""
    real = os.path.realpath(path)
    return real == folder_real or real.startswith(folder_real.rstrip(os.sep) + os.sep)


def unsafe(out: Path, relative: str, out_real: str) -> str | None:
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
            return f"{display(current)} is a symlink; statedoc does not write through symlinks"
        if index < len(parts) - 1 and current.exists() and not current.is_dir():
            return f"{display(current)} is a file, not a folder"
    if not inside(current, out_real):
        return "it resolves outside the output folder"
    return None


def display(path: Path) -> str:
    """``path`` as findings print it: relative to the working directory when inside it."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.absolute().as_posix()


def label_for(out: Path, root: Path) -> str:
    """``out`` as diffs name it: relative to the config root when inside it (``generated``)."""
    for candidate, base in ((out.absolute(), root.absolute()), (out.resolve(), root.resolve())):
        try:
            label = candidate.relative_to(base).as_posix()
        except ValueError:
            continue
        return "" if label == "." else label
    return out.absolute().as_posix().lstrip("/")


def plan_outputs(
    outputs: Iterable[Output],
    out: Path,
    *,
    prune: bool,
    root: Path,
    stale_candidate: Callable[[str], bool] = lambda relative: True,
    owns: Callable[[str, str], bool] | None = None,
    other_roots: Iterable[Path] = (),
) -> Plan:
    """Compare ``outputs`` with the folder ``out``; with ``prune``, also find stale files.

    Reads only; nothing is written. ``stale_candidate`` says which relative paths the layout
    could have written and ``owns`` (relative path, first line) which existing files the
    targets writing here own (only those can be stale; default: any file with statedoc's
    header); nothing below ``other_roots`` (another output folder nested in this one) is
    ever looked at for cleanup.
    """
    plan = Plan(out=out, label=label_for(out, root))
    plan.outputs = list(outputs)
    if out.exists() and not out.is_dir():
        plan.problems.append(Problem(display(out), 1, 1, "the output path is not a folder", UNSAFE))
        return plan
    out_real = os.path.realpath(out)
    expected: set[str] = set()
    for output in plan.outputs:
        expected.add(output.relative)
        _plan_one(plan, output, out_real)
    if prune:
        skip = {os.path.realpath(r) for r in other_roots} - {out_real}
        _find_stale(plan, expected, out_real, stale_candidate, skip, owns)
    plan.changes.sort(key=lambda c: c.relative)
    return plan


def _plan_one(plan: Plan, output: Output, out_real: str) -> None:
    out = plan.out
    where = display(out / output.relative)
    reason = unsafe(out, output.relative, out_real)
    if reason is not None:
        plan.problems.append(Problem(where, 1, 1, f"refused to write: {reason}", UNSAFE))
        return
    path = out / output.relative
    if output.create_only and os.path.lexists(path):
        plan.unchanged += 1  # the user's file now, whatever it holds
        return
    if path.is_dir():
        plan.problems.append(Problem(where, 1, 1, "refused: a folder is in the way", UNSAFE))
        return
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        plan.changes.append(
            Change("create", output.relative, None, output.data, output.owner, output.at)
        )
        return
    except OSError as exc:
        plan.problems.append(Problem(where, 1, 1, f"cannot read: {exc}", WRITE_FAILED))
        return
    if old == output.data:
        plan.unchanged += 1
    elif not has_header(first_line(old)):
        if output.owner is None:  # the user's own __init__.py / py.typed: keep it
            plan.notes.append(f"kept {where}: it has no statedoc header")
            plan.unchanged += 1
        else:
            plan.problems.append(
                Problem(
                    where,
                    1,
                    1,
                    "refused to overwrite a file statedoc did not write (it has no statedoc "
                    f"header line); move it away to generate it from {output.owner}",
                    FOREIGN,
                )
            )
    else:
        plan.changes.append(
            Change("update", output.relative, old, output.data, output.owner, output.at)
        )


def _find_stale(
    plan: Plan,
    expected: set[str],
    out_real: str,
    candidate: Callable[[str], bool],
    skip: set[str],
    owns: Callable[[str, str], bool] | None = None,
) -> None:
    if not plan.out.is_dir():
        return
    for folder, dirs, files in os.walk(plan.out):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and not os.path.islink(os.path.join(folder, d))
            and os.path.realpath(os.path.join(folder, d)) not in skip
        )
        for name in sorted(files):
            path = Path(folder) / name
            relative = path.relative_to(plan.out).as_posix()
            if not candidate(relative) or relative in expected:
                continue
            if not inside(path, out_real) or not ours(path):
                continue
            try:
                old = path.read_bytes()
            except OSError as exc:
                plan.problems.append(
                    Problem(display(path), 1, 1, f"cannot read: {exc}", WRITE_FAILED)
                )
                continue
            if owns is not None and not owns(relative, first_line(old)):
                continue  # another target's file (or one no active target writes)
            plan.changes.append(Change("delete", relative, old, None))


# --- diffs and applying -----------------------------------------------------------------


def diff(change: Change, label: str) -> str:
    """A git-style unified diff (``/dev/null`` for the missing side of a create or delete)."""
    name = f"{label}/{change.relative}" if label else change.relative
    return unified_diff(change.old, change.new, name)


def apply_plan(plan: Plan) -> tuple[int, int]:
    """Perform the plan's changes: ``(written, deleted)``. Safety is checked again for each
    file just before it is touched; a file that cannot be written or deleted becomes a
    problem of the plan (SD408), and the other changes still happen."""
    from generator.output.files import Batch  # lazy: planning alone never writes

    batch = Batch()  # one flush for every file written (output/files.py)
    try:
        written, deleted = _apply(plan, batch)
    except BaseException:
        batch.abort()
        raise
    for path, exc in batch.commit():
        written -= 1
        plan.problems.append(
            Problem(display(path), 1, 1, f"cannot write: {_reason(exc)}", WRITE_FAILED)
        )
    return written, deleted


def _apply(plan: Plan, batch: Batch) -> tuple[int, int]:
    written = deleted = 0
    for change in plan.changes:
        path = plan.out / change.relative
        try:
            if change.new is not None:
                plan.out.mkdir(parents=True, exist_ok=True)
                reason = unsafe(plan.out, change.relative, os.path.realpath(plan.out))
                if reason is not None:
                    plan.problems.append(
                        Problem(display(path), 1, 1, f"refused to write: {reason}", UNSAFE)
                    )
                    continue
                if change.old is None and path.exists():
                    # Created since planning: never replace what we have not read.
                    raise FileExistsError(f"{display(path)} appeared while generating")
                if batch.write(path, change.new):
                    written += 1
            elif inside(path, os.path.realpath(plan.out)) and ours(path):
                path.unlink()
                deleted += 1
                _remove_empty_parents(path.parent, plan.out)
        except OSError as exc:
            verb = "delete" if change.new is None else "write"
            plan.problems.append(
                Problem(display(path), 1, 1, f"cannot {verb}: {_reason(exc)}", WRITE_FAILED)
            )
    return written, deleted


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) if exc.filename is not None else str(exc)


def _remove_empty_parents(folder: Path, out: Path) -> None:
    """Remove folders left empty by deletions, up to (not including) ``out``."""
    while folder != out and out in folder.parents:
        with contextlib.suppress(OSError):
            folder.rmdir()
        if folder.exists():
            return
        folder = folder.parent

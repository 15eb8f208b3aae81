"""The plan of every file statedoc writes: what to create, update, delete or refuse, and why.

``generate`` (modules, diagrams, ``--tests`` modules) plans its writes into an output folder
here: :func:`plan_outputs` reads the folder and returns every create/update/delete with old and
new bytes (``--check`` prints them as diffs and writes nothing). The diagram step (``diagram
--write``, ``build``) plans its in-place edits of the user's documents with :func:`plan_edits`.
Planning only reads; :func:`generator.output.apply.apply_plan` performs either plan. Every
refusal is a :class:`Problem` and every pending change can be turned into a finding (SD4xx), so
CI reports carry them in every format.

Safety rules for output folders, each refused with a message rather than worked around:

* a path is written only if it resolves inside the output folder and no folder or file on the
  way below it is a symlink;
* a file without statedoc's header is never overwritten or deleted (an ``__init__.py`` or
  ``py.typed`` of the user's is simply kept: it does the same job);
* stale files (carrying the header, produced by nothing) are only looked for when asked, never
  below another output root nested in the folder;
* a file is replaced only while it still holds the bytes that were planned against (and
  created only while still missing): nothing is overwritten that the diff did not show
  (checked again when applying).

An edit of a user's document (:class:`DocumentEdit`, the one kind that needs no header) is
only made from a document linted in this run, and only while the file still holds exactly
the bytes that were linted; a read-only document is refused unless forced; a symlinked
document is written through to its target; the file keeps its mode.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from generator.core.files import unified_diff
from generator.core.findings import Finding, Severity
from generator.load.source import BOM
from generator.output.paths import display, first_line, inside, label_for, ours, unsafe
from generator.render.environment import has_header

if TYPE_CHECKING:
    from generator.model.document import Document

__all__ = [  # ``display`` too: callers name paths as the plan's findings do
    "Action",
    "At",
    "Change",
    "DocumentEdit",
    "Output",
    "Plan",
    "Problem",
    "diff",
    "display",
    "linted_bytes",
    "make_finding",
    "plan_edits",
    "plan_outputs",
]

#: ``edit``: an in-place edit of a user's document (:class:`DocumentEdit`).
Action = Literal["create", "update", "delete", "edit"]
_SKIP_DIRS = {"__pycache__", "node_modules"}

# Codes of the output stage (catalogue: :mod:`generator.rules.catalogue`).
STALE = "SD401"
MISSING = "SD402"
LEFT_OVER = "SD403"
FOREIGN = "SD404"
UNSAFE = "SD405"
COLLISION = "SD406"
DRIFT = "SD407"
WRITE_FAILED = "SD408"
REFUSED = "SD409"

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
    #: The file was found holding exactly the rendered bytes just before planning (a cached
    #: rendering checked against the tree, by reading it or by its stat signature, when
    #: ``data`` is left empty): planning does not read it again.
    current: bool = False


@dataclass(frozen=True)
class DocumentEdit:
    """New bytes for a document of the user's, linted in this run, edited in place.

    Build it with :meth:`of`: ``linted`` (the bytes lint read) comes from the linted
    document, so no file statedoc did not lint can be planned this way. ``subject`` names
    what is edited in refusals ("diagram not rewritten: ..."); ``pending`` is the finding's
    message while the edit is not made (``--check``), reported as ``code``.
    """

    shown: str  # display path: findings and diff names
    path: Path  # as discovered; a symlink is written through to its target
    linted: bytes
    new: bytes
    at: At  # the edited part of the document: where findings point
    subject: str
    pending: str
    code: str = DRIFT

    @classmethod
    def of(
        cls,
        document: Document,
        path: Path,
        new: bytes,
        *,
        at: At,
        subject: str,
        pending: str,
        code: str = DRIFT,
    ) -> DocumentEdit:
        return cls(document.path, path, linted_bytes(document), new, at, subject, pending, code)

    def problem(self, message: str, *, at_edit: bool = False) -> Problem:
        """A refusal of this edit: ``"<subject> not rewritten: <message>"``, at the edited
        part (``at_edit``) or at the top of the file."""
        line, column, end_line, end_column = self.at if at_edit else _TOP
        text = f"{self.subject} not rewritten: {message}"
        end = (end_line, end_column)
        return Problem(self.shown, line, column, text, WRITE_FAILED, end, reason=message)


def linted_bytes(document: Document) -> bytes:
    """The bytes lint read for ``document`` (what an edit of it is planned against)."""
    source = document.source
    return ((BOM if source.had_bom else "") + source.text).encode("utf-8")


@dataclass(frozen=True)
class Change:
    action: Action
    relative: str  # below the plan's folder; an ``edit``: the document's display path
    old: bytes | None
    new: bytes | None
    owner: str | None = None
    at: At = _TOP
    edit: DocumentEdit | None = None  # set exactly for ``edit``


@dataclass(frozen=True)
class Problem:
    """A refusal: printed like a finding (``path:line:col: message``), reported as one."""

    path: str
    line: int
    column: int
    message: str
    code: str = REFUSED
    end: tuple[int, int] | None = None  # (end_line, end_column); None: the start position
    reason: str | None = None  # a document edit's refusal without its subject (``lint --fix``)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    def finding(self) -> Finding:
        end_line, end_column = self.end or (self.line, self.column)
        return make_finding(
            self.code, self.path, (self.line, self.column, end_line, end_column), self.message
        )


@dataclass
class Plan:
    out: Path  # the output folder; a plan of document edits: the working directory
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
        if change.edit is not None:
            edit = change.edit
            return make_finding(edit.code, edit.shown, edit.at, edit.pending)
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
    if os.path.exists(out) and not os.path.isdir(out):  # os.path: never raises
        plan.problems.append(Problem(display(out), 1, 1, "the output path is not a folder", UNSAFE))
        return plan
    out_real = os.path.realpath(out)
    expected: set[str] = set()
    folders: dict[str, str | None] = {}  # unsafe()'s verdicts on the folders on the way
    for output in plan.outputs:
        expected.add(output.relative)
        _plan_one(plan, output, folders)
    if prune:
        skip = {os.path.realpath(r) for r in other_roots} - {out_real}
        _find_stale(plan, expected, out_real, stale_candidate, skip, owns)
    plan.changes.sort(key=lambda c: c.relative)
    return plan


def _plan_one(plan: Plan, output: Output, folders: dict[str, str | None]) -> None:
    out = plan.out
    reason = unsafe(out, output.relative, folders)
    if output.current and reason is None:  # unsafe() refused a symlink or a file in the way
        plan.unchanged += 1
        return
    path = out / output.relative  # not before: a Path per output costs more than unsafe()
    if reason is not None:
        plan.problems.append(Problem(display(path), 1, 1, f"refused to write: {reason}", UNSAFE))
        return
    if output.create_only and os.path.lexists(path):
        plan.unchanged += 1  # the user's file now, whatever it holds
        return
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        plan.changes.append(
            Change("create", output.relative, None, output.data, output.owner, output.at)
        )
        return
    except IsADirectoryError:
        plan.problems.append(
            Problem(display(path), 1, 1, "refused: a folder is in the way", UNSAFE)
        )
        return
    except OSError as exc:
        plan.problems.append(Problem(display(path), 1, 1, f"cannot read: {exc}", WRITE_FAILED))
        return
    if old == output.data:
        plan.unchanged += 1
    elif not has_header(first_line(old)):
        if output.owner is None:  # the user's own __init__.py / py.typed: keep it
            plan.notes.append(f"kept {display(path)}: it has no statedoc header")
            plan.unchanged += 1
        else:
            plan.problems.append(
                Problem(
                    display(path),
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
    if not os.path.isdir(plan.out):
        return
    base = os.fspath(plan.out)
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and not os.path.islink(os.path.join(folder, d))
            and os.path.realpath(os.path.join(folder, d)) not in skip
        )
        below = os.path.relpath(folder, base).replace(os.sep, "/")
        for name in sorted(files):
            relative = name if below == "." else f"{below}/{name}"
            if relative in expected or not candidate(relative):
                continue  # most files: what this run generates, told by strings alone
            path = Path(folder) / name
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


def plan_edits(
    edits: Iterable[DocumentEdit],
    *,
    problems: Iterable[Problem] = (),
    refuse_read_only: bool = False,
    fix: str = "statedoc diagram --write",
) -> Plan:
    """Compare each document with its edit: one ``edit`` change per document whose bytes
    differ. Reads only. ``problems``: refusals found before planning (kept in order).
    With ``refuse_read_only`` a document this process cannot write is refused here already, so
    a preview never shows an edit that no flag can make (``lint`` has no ``--force``)."""
    plan = Plan(out=Path(os.curdir), label="", fix=fix)
    plan.problems.extend(problems)
    for edit in edits:
        target = Path(os.path.realpath(edit.path))
        try:
            old = target.read_bytes()
        except OSError as exc:
            plan.problems.append(
                Problem(edit.shown, 1, 1, f"cannot read: {exc.strerror or exc}", WRITE_FAILED)
            )
            continue
        if old == edit.new:
            plan.unchanged += 1
        elif old != edit.linted:
            plan.problems.append(edit.problem(CHANGED))
        elif refuse_read_only and not _writable(target):
            plan.problems.append(edit.problem("the file is read-only", at_edit=True))
        else:
            plan.changes.append(
                Change("edit", edit.shown, old, edit.new, edit.shown, edit.at, edit)
            )
    return plan


#: Why an edit is refused when its document no longer holds what was planned against.
CHANGED = "the file changed while statedoc ran; run it again"


def _writable(path: Path) -> bool:
    """A write bit is set and this process may write the file (``os.access``: the owner's
    bit alone says nothing for another user's file)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # gone since reading: applying reports it
    return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) and os.access(path, os.W_OK)

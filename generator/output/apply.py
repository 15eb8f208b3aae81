"""Applying a plan (:mod:`generator.output.plan`): the only code that writes or deletes what a
plan holds.

Planning reads; this module acts on what was planned, and checks each file again at the moment
it is touched, because the tree may have changed since the plan (and its diff) was made:

* a generated file is written only through a path that is still safe (inside the output
  folder, no symlink on the way) and only while it still holds the bytes planned against
  (created only while still missing); a file deleted as stale must still carry statedoc's
  header and lie inside the folder;
* the files of an output folder are written as one :class:`~generator.core.files.Batch`
  (one flush for all of them), a document edit atomically on its own;
* a document is edited only while it holds exactly the linted bytes, and a read-only one only
  with ``force``; it keeps its mode, and a symlinked one is written through to its target.

Each failure becomes a :class:`~generator.output.plan.Problem` of the plan (SD405, SD408) and
the other changes still happen.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

from generator.cache.signatures import Signatures, now
from generator.core.files import Batch, atomic_write, read_current
from generator.output.paths import display, inside, ours, unsafe
from generator.output.plan import (
    CHANGED,
    UNSAFE,
    WRITE_FAILED,
    Change,
    DocumentEdit,
    Plan,
    Problem,
)

__all__ = ["apply_plan", "apply_recorded"]


def apply_plan(plan: Plan, *, force: bool = False) -> tuple[int, int]:
    """Perform the plan's changes: ``(written, deleted)``. Safety is checked again for each
    file just before it is touched; a file that cannot be written or deleted becomes a
    problem of the plan (SD408), and the other changes still happen. ``force``: also edit
    documents whose file is read-only."""
    batch = Batch()  # one flush for every file written
    try:
        written, deleted = _apply(plan, batch, force)
    except BaseException:
        batch.abort()
        raise
    for path, exc in batch.commit():
        written -= 1
        plan.problems.append(
            Problem(display(path), 1, 1, f"cannot write: {_reason(exc)}", WRITE_FAILED)
        )
    return written, deleted


def apply_recorded(plan: Plan, signatures: Signatures) -> tuple[int, int]:
    """Apply ``plan``, then record the signature of each file written (as git's checkout
    does): the next run need not read back what this one wrote. A failed write is reported
    as a problem of the plan and not recorded; nor is a file that no longer holds what was
    written when it is read back here (an editor, a formatter or another run wrote it since
    the rename: its signature must not vouch for statedoc's bytes)."""
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
        signatures.record(path, info, digest, at)
    return done


def _apply(plan: Plan, batch: Batch, force: bool) -> tuple[int, int]:
    written = deleted = 0
    made = False  # the output folder, made before the first file is written into it
    for change in plan.changes:
        if change.edit is not None:
            written += _apply_edit(plan, change, change.edit, force)
            continue
        path = plan.out / change.relative
        try:
            if change.new is not None:
                if not made:
                    plan.out.mkdir(parents=True, exist_ok=True)
                    made = True
                reason = unsafe(plan.out, change.relative)
                if reason is not None:
                    plan.problems.append(
                        Problem(display(path), 1, 1, f"refused to write: {reason}", UNSAFE)
                    )
                    continue
                now = read_current(path)
                if (None if now is None else now[0]) != change.old:
                    # Created or edited since planning: never replace what the plan (and
                    # its diff) did not show.
                    what = "appeared" if change.old is None else "changed"
                    raise FileExistsError(f"{display(path)} {what} while generating")
                # Read just now and differing (a plan holds no change to the same bytes).
                batch.stage(path, change.new, None if now is None else now[1])
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


def _apply_edit(plan: Plan, change: Change, edit: DocumentEdit, force: bool) -> int:
    """Replace one document (through a symlink) if it still holds the planned bytes; 1 if
    written."""
    target = Path(os.path.realpath(edit.path))
    try:
        if _current(target) != change.old:
            plan.problems.append(edit.problem(CHANGED))
            return 0
        if not force and not os.stat(target).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            message = "the file is read-only; make it writable or pass --force"
            plan.problems.append(edit.problem(message, at_edit=True))
            return 0
        assert change.new is not None
        return int(atomic_write(target, change.new))
    except OSError as exc:
        plan.problems.append(edit.problem(f"cannot write: {exc.strerror or exc}", at_edit=True))
        return 0


def _current(path: Path) -> bytes | None:
    """The file's bytes now (None: missing); a folder in the way raises."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) if exc.filename is not None else str(exc)


def _remove_empty_parents(folder: Path, out: Path) -> None:
    """Remove folders left empty by deletions, up to (not including) ``out``."""
    while folder != out and out in folder.parents:
        with contextlib.suppress(OSError):
            folder.rmdir()
        if os.path.exists(folder):
            return
        folder = folder.parent

"""Atomic writes that happen only when bytes change (so mtimes of unchanged files survive).

A temp file in the target's own folder, fsync, then ``os.replace``: readers see the old file or
the new one, never half of one, and a crash leaves the old file intact.

A crash (SIGKILL, power loss) between creating the temp file and renaming it leaves an orphan
``.<name>.<pid>.<random>.tmp``. The first write into a folder removes the orphans there: names of
exactly that pattern whose creating process is gone (or, should the pid have been reused, that
are older than an hour). A concurrent live run's temp file is never touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

#: Our temp names: ``.`` + target name + ``.`` + pid + ``.`` + mkstemp's 8 characters + ``.tmp``.
TEMP_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>[1-9][0-9]{0,9})\.[a-z0-9_]{8}\.tmp")
#: An orphan whose pid is alive belongs to a live run, unless older than this (pid reuse).
REUSED_PID_AGE = 3600.0
_swept: set[str] = set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or an absurd number): leave it
    return True


def sweep_orphans(folder: Path) -> list[str]:
    """Remove our own temp files left in ``folder`` by killed runs (once per folder and
    process); returns the names removed."""
    key = os.path.realpath(folder)
    if key in _swept:
        return []
    _swept.add(key)
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = TEMP_NAME.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        if _alive(int(match["pid"])) and now - info.st_mtime < REUSED_PID_AGE:
            continue  # a live run (maybe this one) is writing it right now
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(entry.name)
    return removed


def atomic_write(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` unless it already holds exactly that; True if written."""
    sweep_orphans(path.parent)
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise IsADirectoryError(f"{path} is a directory") from None
    replace_file(path, data)
    return True


def replace_file(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Temp file beside ``path``, then rename over it (keeping its permissions).

    ``durable`` fsyncs first, for files users keep; caches skip it (a lost entry is a miss).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    sweep_orphans(path.parent)
    mode = None
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o7777
    import tempfile  # here: it pulls shutil, random, bz2 and lzma into every lint start-up

    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def unified_diff(old: bytes | None, new: bytes | None, name: str) -> str:
    """A git-style unified diff for check modes (``/dev/null`` for a missing side), marking
    a last line without a line break as git does.

    Lines end at LF only, as git reads a patch: a CR, form feed or Unicode line separator
    inside a line stays part of it, so ``git apply`` of the diff gives the new bytes."""
    import difflib

    def lines(data: bytes | None) -> list[str]:
        if not data:
            return []
        text = data.decode("utf-8", "replace").split("\n")
        last = text.pop()  # "" when the data ends with a line break
        return [line + "\n" for line in text] + ([last] if last else [])

    before = "/dev/null" if old is None else f"a/{name}"
    after = "/dev/null" if new is None else f"b/{name}"
    text = []
    for line in difflib.unified_diff(lines(old), lines(new), before, after):
        text.append(line)
        if not line.endswith("\n"):
            text.append("\n\\ No newline at end of file\n")
    return "".join(text)

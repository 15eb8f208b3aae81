"""Atomic writes that happen only when bytes change (so mtimes of unchanged files survive).

A temp file in the target's own folder, its data made durable, then ``os.replace``: readers
see the old file or the new one, never half of one, and a crash (even a power loss) leaves the
old file or the whole new one, never a truncated one.

The write policy: the data must be on disk before the rename, but not one flush per file.
:func:`atomic_write` (a single file: a redrawn diagram) fsyncs its temp file. A
:class:`Batch` (``generate`` writing a tree) writes every temp file first, then flushes them
all at once (Linux: one ``syncfs`` per file system they are on, which waits for the data;
elsewhere one fsync per temp file, after all were written), then renames each over its
target. One flush per batch instead of one per file is most of what writing costs a cold
``generate`` (an fsync per file costs about as much CPU as rendering the file); a crash
before the renames leaves only temp files (removed by the next run, below), never a
partly written target.

A crash (SIGKILL, power loss) between creating the temp file and renaming it leaves an orphan
``.<name>.<pid>.<random>.tmp`` (``name`` cut short where the whole would be too long for the
file system: :func:`temp_name`). The first write into a folder removes the orphans there: names of
exactly that pattern whose creating process is gone (or, should the pid have been reused, that
are older than an hour). A concurrent live run's temp file is never touched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import time
from collections.abc import Callable
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
    given = str(folder)
    if given in _swept:  # the path as given: realpath costs more than this check
        return []
    key = os.path.realpath(folder)
    seen = key in _swept
    _swept.update((given, key))
    if seen:
        return []
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
    if _unchanged(path, data):
        return False
    replace_file(path, data)
    return True


def _unchanged(path: Path, data: bytes) -> bool:
    sweep_orphans(path.parent)
    try:
        return path.read_bytes() == data
    except FileNotFoundError:
        return False
    except IsADirectoryError:
        raise IsADirectoryError(f"{path} is a directory") from None


def read_current(path: Path) -> tuple[bytes, int] | None:
    """The file's bytes and permissions now (None: missing), read with one open; a folder in
    the way raises :class:`IsADirectoryError`."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        chunks = []
        while chunk := os.read(fd, max(info.st_size + 1, 65536)):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks), info.st_mode & 0o7777


def replace_file(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Temp file beside ``path``, then rename over it (keeping its permissions).

    ``durable`` fsyncs first, for files users keep; caches skip it (a lost entry is a miss),
    and their entries stay private to the user (0600).
    """
    tmp = _temp_file(path, data, durable=durable) if durable else _private_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _temp_file(path: Path, data: bytes, *, durable: bool) -> str:
    """``data`` in a new temp file beside ``path``, with ``path``'s permissions (0644 for a
    new file); returns its name."""
    mode = None
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        mode = path.stat().st_mode & 0o7777
    return _new_temp(path, data, mode=0o644 if mode is None else mode, durable=durable)


def _private_temp(path: Path, data: bytes) -> str:
    """A cache entry's temp file: private to the user (0600), no fsync."""
    return _new_temp(path, data, mode=None, durable=False)


_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _new_temp(path: Path, data: bytes, *, mode: int | None, durable: bool) -> str:
    """A new temp file named ``.<name>.<pid>.<8 random>.tmp`` beside ``path`` (the name the
    orphan sweep knows), created 0600 and then given ``mode``; the folder is created when
    missing. No ``tempfile``: it costs more than the write of a small file."""
    folder = os.fspath(path.parent)
    for _ in range(100):
        tmp = os.path.join(folder, temp_name(folder, path.name))
        try:
            fd = os.open(tmp, _FLAGS, 0o600)
        except FileExistsError:
            continue
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, _FLAGS, 0o600)
            # Made just now: no orphan to look for (a new cache shard costs no realpath).
            _swept.add(str(path.parent))
        break
    else:  # pragma: no cover - 100 collisions of 32 random bits
        raise FileExistsError(f"no free temp name beside {path}")
    try:
        try:
            sweep_orphans(path.parent)  # after the create: a live run's temp file stays
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None and mode != 0o600 and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if mode is not None and mode != 0o600 and not hasattr(os, "fchmod"):  # Windows
            os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def temp_name(folder: str, name: str) -> str:
    """``.<name>.<pid>.<8 random>.tmp``, with ``name`` cut (at a character) as far as the
    temp file needs to fit the file system's limits in ``folder``: a file whose name is
    close to ``NAME_MAX`` (or whose path is close to ``PATH_MAX``) is still written through
    a temp file beside it (:mod:`generator.core.limits`)."""
    suffix = f".{os.getpid()}.{os.urandom(4).hex()}.tmp"
    whole = f".{name}{suffix}"
    size, base = len(os.fsencode(whole)), len(os.fsencode(folder))
    if size < 128 and base + size < 1024:  # within every file system's limits
        return whole
    from generator.core.limits import limits_for

    limits = limits_for(folder)
    room = min(limits.name, limits.path - 2 - base) - len(suffix) - 1
    if size - len(suffix) - 1 <= room:
        return whole
    kept: list[str] = []
    used = 0
    for char in name:
        width = len(os.fsencode(char))
        if used + width > room and kept:
            break
        kept.append(char)
        used += width
    return f".{''.join(kept)}{suffix}"


class Batch:
    """Many atomic writes for one flush (see the module docstring): :meth:`stage` each file,
    then :meth:`commit` (or :meth:`abort`, which removes the temp files)."""

    def __init__(self) -> None:
        self._pending: list[tuple[str, Path]] = []

    def stage(self, path: Path, data: bytes, mode: int | None) -> None:
        """Stage ``data`` for ``path``, which the caller has just read (:func:`read_current`)
        and found to differ: it is not read or stat'ed again. ``mode``: the permissions to
        keep (None: a new file, 0644)."""
        temp = _new_temp(path, data, mode=0o644 if mode is None else mode, durable=False)
        self._pending.append((temp, path))

    def commit(self) -> list[tuple[Path, OSError]]:
        """Flush every staged file, then rename each over its target; returns the targets
        that could not be written (a failed flush fails them all: nothing is renamed)."""
        pending, self._pending = self._pending, []
        failed: list[tuple[Path, OSError]] = []
        try:
            _flush([tmp for tmp, _ in pending])
        except OSError as exc:
            for tmp, path in pending:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                failed.append((path, exc))
            return failed
        for tmp, path in pending:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                failed.append((path, exc))
        return failed

    def abort(self) -> None:
        pending, self._pending = self._pending, []
        for tmp, _ in pending:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _flush(names: list[str]) -> None:
    """Make the data of the files ``names`` durable: one ``syncfs`` per file system on
    Linux, else an fsync per file."""
    if not names:
        return
    syncfs = _syncfs()
    if syncfs is None:
        for name in names:
            fd = os.open(name, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        return
    devices: dict[int, str] = {}
    for name in names:
        devices.setdefault(os.stat(name).st_dev, name)
    for name in devices.values():
        fd = os.open(name, os.O_RDONLY)
        try:
            if syncfs(fd) != 0:
                import ctypes

                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), name)
        finally:
            os.close(fd)


_SYNCFS: list[Callable[[int], int] | None] = []


def _syncfs() -> Callable[[int], int] | None:
    """Linux's ``syncfs(2)`` (flushes one file system and waits for it), or None."""
    if not _SYNCFS:
        found = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                found = ctypes.CDLL(None, use_errno=True).syncfs
                found.argtypes = [ctypes.c_int]
                found.restype = ctypes.c_int
            except (OSError, AttributeError):
                found = None
        _SYNCFS.append(found)
    return _SYNCFS[0]


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

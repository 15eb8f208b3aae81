"""Atomic writes that happen only when bytes change (so mtimes of unchanged files survive).

A temp file in the target's own folder, fsync, then ``os.replace``: readers see the old file or
the new one, never half of one, and a crash leaves the old file intact.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` unless it already holds exactly that; True if written."""
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
    mode = None
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
    a last line without a line break as git does."""
    import difflib

    def lines(data: bytes | None) -> list[str]:
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    before = "/dev/null" if old is None else f"a/{name}"
    after = "/dev/null" if new is None else f"b/{name}"
    text = []
    for line in difflib.unified_diff(lines(old), lines(new), before, after):
        text.append(line)
        if not line.endswith(("\n", "\r")):
            text.append("\n\\ No newline at end of file\n")
    return "".join(text)

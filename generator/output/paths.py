"""Reading an output folder safely: where a path really leads, whether a file is statedoc's,
and how findings and diffs name paths (used by :mod:`generator.output.plan` when planning and
by :mod:`generator.output.apply` again at write time)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from generator.render.environment import has_header


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


def unsafe(out: Path, relative: str, folders: dict[str, str | None] | None = None) -> str | None:
    """Why writing ``out/relative`` is unsafe, or None.

    Every existing step below ``out`` is looked at with ``lstat``: a symlink, or a file where
    a folder must be, is refused. With no ``..`` and no symlink below ``out`` the path cannot
    lead outside it, so no ``realpath`` is needed. ``folders``
    remembers the verdict on each folder already looked at (a plan writes many files into
    the same few folders)."""
    parts = relative.split("/")
    if any(p in ("", ".", "..") or "\x00" in p or os.sep in p for p in parts) or (
        os.altsep and any(os.altsep in p for p in parts)
    ):
        return "not a plain relative path"
    base = os.fspath(out)
    current = base
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        last = index == len(parts) - 1
        if not last and folders is not None and current in folders:
            reason = folders[current]
        else:
            reason = _step(current, last)
        if not last and folders is not None:
            folders.setdefault(current, reason)
        if reason is _MISSING:
            break  # nothing below a missing step exists
        if reason is not None:
            return reason
    return None


_MISSING = "missing"


def _step(path: str, last: bool) -> str | None:
    """Why ``path`` (one step of an output path) is unsafe; :data:`_MISSING` if absent."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return _MISSING
    except NotADirectoryError:
        return _MISSING  # pragma: no cover - the step above was checked to be a folder
    except OSError as exc:  # too long a name or path, no permission to look, ...
        return f"{display(Path(path))} cannot be looked at: {exc.strerror or exc}"
    if stat.S_ISLNK(mode):
        return f"{display(Path(path))} is a symlink; statedoc does not write through symlinks"
    if not last and not stat.S_ISDIR(mode):
        return f"{display(Path(path))} is a file, not a folder"
    if last and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # a FIFO would block the read of what it holds forever, a device could be endless
        return f"{display(Path(path))} is not a regular file"
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

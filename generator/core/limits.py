"""How long a name and a path the file system takes, so that an output too long to write is
refused where it comes from (the document whose title makes it) instead of failing the run.

A file name longer than ``NAME_MAX`` bytes (255 on most file systems, counted in UTF-8
bytes, not characters) or a path of ``PATH_MAX`` bytes or more (4096 on Linux, its NUL
included) cannot be created, opened or even looked at: every call fails with
``ENAMETOOLONG``. statedoc writes each file through a temp file beside it
(:mod:`generator.core.files`), whose name is cut to fit, but which needs
:data:`TEMP_ROOM` bytes in its folder at the least; a path counts as writable only when that
temp file fits too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: Linux's limits (ext4, tmpfs, ...), used when ``pathconf`` cannot say.
NAME_MAX = 255
PATH_MAX = 4096
#: The most bytes the shortest temp name takes: ``.`` + one character of the name (4 bytes of
#: UTF-8 at most) + ``.`` + a pid (10 digits at most) + ``.`` + 8 random characters + ``.tmp``.
TEMP_ROOM = 1 + 4 + 1 + 10 + 1 + 8 + 4


@dataclass(frozen=True)
class Limits:
    """``name``: the most bytes of one name; ``path``: ``PATH_MAX`` (a path must be shorter)."""

    name: int = NAME_MAX
    path: int = PATH_MAX


_KNOWN: dict[str, Limits] = {}


def limits_for(folder: str) -> Limits:
    """The limits of the file system ``folder`` is (or would be created) on: asked of its
    nearest existing ancestor, once per folder and process."""
    known = _KNOWN.get(folder)
    if known is not None:
        return known
    current = os.path.abspath(folder)
    found = Limits()
    while True:
        try:
            found = Limits(
                _conf(current, "PC_NAME_MAX", NAME_MAX), _conf(current, "PC_PATH_MAX", PATH_MAX)
            )
            break
        except OSError:  # missing (or itself too long): ask the folder above
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    _KNOWN[folder] = found
    return found


def _conf(path: str, name: str, default: int) -> int:
    if not hasattr(os, "pathconf") or name not in os.pathconf_names:
        os.stat(path)  # still tell a missing folder apart
        return default
    value = os.pathconf(path, name)
    return value if value > 0 else default


@dataclass(frozen=True)
class Overlong:
    """What is too long: one name (``kind`` ``"name"``; ``index`` its position among the
    relative path's names, -1 for a name of the folder) or the whole path (``"path"``, its
    ``size`` counting the temp file beside the file when that name is the longer)."""

    kind: str
    index: int
    text: str
    size: int
    limit: int


class Room:
    """What an output folder leaves for the files below it: :meth:`too_long` says which
    relative path cannot be written there for its length."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)
        self.limits = limits_for(self.folder)
        encoded = os.fsencode(self.folder)
        self._size = len(encoded) + 1  # with the separator after it
        self._own: Overlong | None = None  # a name of the folder itself too long
        for part in encoded.split(b"/"):
            if len(part) > self.limits.name:
                self._own = Overlong("name", -1, os.fsdecode(part), len(part), self.limits.name)
                break

    def too_long(self, relative: str) -> Overlong | None:
        """Why the file ``relative`` (POSIX) cannot be written below the folder for its length
        (a name over ``NAME_MAX``, the path and its temp file's at ``PATH_MAX`` or over); None
        when it fits, decided from its length in characters alone for most paths (a character
        is 4 bytes of UTF-8 at most)."""
        limits = self.limits
        if self._own is not None:
            return self._own
        bound = 4 * len(relative)
        if bound <= limits.name and self._size + bound + TEMP_ROOM < limits.path:
            return None
        parts = relative.split("/")
        sizes = [len(os.fsencode(part)) for part in parts]
        for index, (part, size) in enumerate(zip(parts, sizes, strict=True)):
            if size > limits.name:
                return Overlong("name", index, part, size, limits.name)
        whole = self._size + sum(sizes) + len(sizes) - 1 - sizes[-1] + max(sizes[-1], TEMP_ROOM)
        if whole >= limits.path:
            path = os.path.join(self.folder, *parts)
            return Overlong("path", -1, path, whole, limits.path - 1)
        return None


def shortened(text: str, keep: int = 24) -> str:
    """``text`` cut in its middle for a message (``abc...xyz``), when longer than twice
    ``keep``."""
    return text if len(text) <= 2 * keep + 3 else f"{text[:keep]}...{text[-keep:]}"

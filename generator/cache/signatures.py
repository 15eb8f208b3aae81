"""Stat signatures of the files a no-op run would otherwise read and hash again, as git's index
keeps them: a document's bytes (for the render cache's key) and each generated file a cached
rendering names (to know it still holds what rendering would write).

An entry is the file's ``lstat``/``stat`` signature (size, mtime, ctime, inode, device), when
it was recorded, and the SHA-256 of the bytes read (or just written) under it. It is trusted
only when the signature is unchanged and the file's mtime and ctime are safely older than the
moment the entry was recorded and than the index file itself: a "racy" file, modified within
one timestamp tick of that moment, could change again within the same tick and keep its
signature, so it is read again (and recorded anew, then no longer racy). "Safely": by more than
:data:`TICK` on a file system with fine timestamps, by :data:`COARSE_TICK` where they are whole
seconds (FAT, HFS+, ext3). Anything else is read and hashed. The index lives in the cache
folder and is trusted as the cache is (see :mod:`generator.cache.store`): it carries the same
digest as the cache entries, so a corrupt or hand-edited index is ignored; deleting it only
costs reading again.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import TYPE_CHECKING

from generator.load.source import read_bounded

if TYPE_CHECKING:
    from generator.cache.store import RenderCache

#: The key its digest covers (the entries name paths and bytes, not statedoc's code: no salt).
_KEY = "signatures-v1"
_NAME = "signatures.json"
_MAX = 64 * 1024 * 1024

Signature = tuple[int, int, int, int, int]
#: How much older than its recording a file's times must be: Linux dates files by a clock
#: that advances once per kernel tick (<= 10 ms) and lags the real time by at most one tick.
TICK = 20_000_000
#: The same where timestamps are whole seconds (FAT keeps mtimes in steps of 2 seconds).
COARSE_TICK = 3_000_000_000


def now() -> int:
    """The recording time of an entry: take it before the ``stat`` whose signature is kept."""
    return time.time_ns()


def signature(info: os.stat_result) -> Signature:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


class Signatures:
    """The index of one cache folder, loaded once per run and saved when it learned something."""

    def __init__(self, cache: RenderCache | None = None) -> None:
        self._cache = cache
        self._known: dict[str, tuple[Signature, int, str]] = {}
        self._used: dict[str, tuple[Signature, int, str]] = {}
        self._since = 0  # the index file's mtime: entries must be older
        self._dirty = False
        if cache is not None:
            self._load(cache)

    def _load(self, cache: RenderCache) -> None:
        from generator.cache.store import unseal

        path = cache.folder / _NAME
        try:
            data, size = read_bounded(path, _MAX)
            since = os.stat(path).st_mtime_ns
            body = unseal(_KEY, data) if size <= _MAX else None
            if body is None:
                return
            raw = json.loads(body)
            known = {
                str(name): ((int(a), int(b), int(c), int(d), int(e)), int(at), str(digest))
                for name, (a, b, c, d, e, at, digest) in raw.items()
            }
        except (OSError, ValueError, TypeError):
            return
        self._known, self._since = known, since

    def digest(self, path: str, info: os.stat_result) -> str | None:
        """The SHA-256 recorded for ``path`` (absolute) if ``info`` is its recorded signature
        and the entry is not racy; None: read the file."""
        entry = self._known.get(path)
        if entry is None or entry[0] != signature(info):
            return None
        changed = max(info.st_mtime_ns, info.st_ctime_ns)
        tick = COARSE_TICK if info.st_mtime_ns % 1_000_000_000 == 0 else TICK
        if changed >= self._since or changed >= entry[1] - tick:
            return None  # racy: read it again
        self._used[path] = entry
        return entry[2]

    def record(self, path: str, info: os.stat_result, digest: str, at: int) -> None:
        """``path`` (absolute) held bytes with ``digest`` when it had the signature ``info``,
        taken before those bytes were read; ``at`` (:func:`now`) is taken before ``info``: a
        change after it dates the file no earlier than ``at`` (within a tick), so it is racy."""
        if self._cache is not None:
            self._used[path] = (signature(info), at, digest)
            self._dirty = True  # new, changed or racy: saving makes it trusted next time

    def save(self) -> None:
        """Write the entries this run used or recorded (entries of files it did not look at
        are dropped: the index never outgrows one run), if any is new; never where the
        caches left no folder (not a project, or a read-only one)."""
        cache = self._cache
        if cache is None or not self._dirty or not os.path.isdir(cache.folder):
            return
        from generator.cache.store import seal
        from generator.core.files import replace_file

        raw = {path: [*sig, at, digest] for path, (sig, at, digest) in self._used.items()}
        with contextlib.suppress(OSError):
            data = seal(_KEY, json.dumps(raw).encode("utf-8", "surrogatepass"))
            replace_file(cache.folder / _NAME, data, durable=False)
        self._dirty = False

"""The one file both caches keep their entries in: an SQLite database (the standard library's
``sqlite3``) in the cache folder, one table per cache, an entry a row.

Why not a file per entry: a cold run wrote two per document, and creating a file (its inode,
its folder entry, the rename that made it atomic) costs the kernel as much as the document's
lint; a row costs a few microseconds. SQLite keeps what the files gave: readers see an entry whole
or not at all, concurrent runs and worker processes share the file through SQLite's locks, and
a busy or broken database is a miss, never a failure. A put is its own transaction, except
inside :func:`batched` (a run's lint or render step), whose puts are kept in memory and written
in one transaction when the block ends (or every :data:`BATCH` rows): a transaction per entry
cost more than the entry (a killed run then loses the rows of the batch it was in, which are
misses). It runs without fsync (a lost entry is
a miss) and with a persistent rollback journal (no file created per transaction; unlike WAL
it needs no shared memory, so a cache on a network file system still works).

The database is created private to the user (0600, its journal gets the same mode) and only
ever opened when it (and its journal, if any) is a regular file: a symlink, FIFO or device
planted in their place turns the cache off for the run. A file that is not a database
(corrupt, truncated, planted) is a miss; the first write that meets it replaces it with an
empty database.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

#: The database's file name in the cache folder.
NAME = "entries.sqlite3"
#: One table per cache.
TABLES = ("lint", "render")
#: How long a put or get waits for another process's transaction before it is a miss (s).
BUSY_TIMEOUT = 10.0
#: Rows a :func:`batched` block keeps before it writes them (bounds what it holds in memory).
BATCH = 1024

_SCHEMA = "".join(
    f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, entry BLOB NOT NULL) WITHOUT ROWID;"
    for table in TABLES
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

#: How many databases a process keeps open (a test session or the language server meets
#: many projects); the least recently used one is closed.
_KEEP_OPEN = 4


class _Open(NamedTuple):
    """A connection, the process that opened it and the file it opened (inode, device)."""

    pid: int
    file: tuple[int, int]
    connection: sqlite3.Connection


#: Open connections by database path, most recently used last. A connection is never used
#: across a fork (SQLite's rule): one inherited from the parent is kept, unused and unclosed,
#: so closing it cannot drop locks the child's own connection holds. Nor once its file is
#: gone or replaced (the folder deleted): deleting the cache takes effect at once.
_OPEN: dict[str, _Open] = {}
_INHERITED: list[sqlite3.Connection] = []
_RESET: set[str] = set()  # databases this process replaced (once each)
#: Serializes every use of a connection (the language server shares one across threads).
_LOCK = threading.RLock()


class _Batch:
    """The puts kept by the open :func:`batched` blocks of one process: by database path, the
    entry of each (table, key), in the order first put."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.depth = 0
        self.rows: dict[str, dict[tuple[str, str], bytes]] = {}
        self.count = 0


_BATCH: list[_Batch] = []  # the open one, if any (a forked child never uses its parent's)


def _open_batch() -> _Batch | None:
    batch = _BATCH[0] if _BATCH else None
    return batch if batch is not None and batch.pid == os.getpid() else None


@contextmanager
def batched() -> Iterator[None]:
    """Within the block, this process's puts are written together: one transaction per
    database when the outermost block ends, or as soon as :data:`BATCH` rows wait. A get
    sees the rows still waiting. Blocks nest; a forked child writes each put at once."""
    with _LOCK:
        batch = _open_batch()
        if batch is None:
            batch = _Batch(os.getpid())
            _BATCH[:] = [batch]
        batch.depth += 1
    try:
        yield
    finally:
        with _LOCK:
            batch.depth -= 1
            if batch.depth == 0:
                _BATCH.clear()
                _flush(batch)


def _flush(batch: _Batch) -> None:
    """Write every waiting row, one transaction per database (each failure a miss)."""
    rows, batch.rows, batch.count = batch.rows, {}, 0
    for path, entries in rows.items():
        _write(path, [(table, key, entry) for (table, key), entry in entries.items()])


class Database:
    """The entries of one cache folder; every failure is a miss (``get``) or a no-op
    (``put``)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.path = os.path.join(folder, NAME)

    def get(self, table: str, key: str) -> bytes | None:
        """The entry stored under ``key``; None when there is none or it cannot be read.
        Never creates the database."""
        with _LOCK:
            batch = _open_batch()
            waiting = batch.rows.get(self.path) if batch is not None else None
            if waiting is not None and (_table(table), key) in waiting:
                return waiting[table, key]
            try:
                connection = _connection(self.path, create=False)
                if connection is None:
                    return None
                row = connection.execute(
                    f"SELECT entry FROM {_table(table)} WHERE key = ?", (key,)
                ).fetchone()
            except (sqlite3.Error, OSError):
                return None
        return bytes(row[0]) if row is not None and isinstance(row[0], bytes) else None

    def keys(self, table: str) -> list[str]:
        """Every key ``table`` holds (those waiting in a :func:`batched` block included),
        sorted (for tests and for looking into a cache)."""
        with _LOCK:
            batch = _open_batch()
            waiting = batch.rows.get(self.path, {}) if batch is not None else {}
            name = _table(table)
            found = {key for kind, key in waiting if kind == name}
            try:
                connection = _connection(self.path, create=False)
                if connection is not None:
                    rows = connection.execute(f"SELECT key FROM {name} ORDER BY key")
                    found.update(str(key) for (key,) in rows.fetchall())
            except (sqlite3.Error, OSError):
                pass
            return sorted(found)

    def put(self, table: str, key: str, entry: bytes) -> None:
        """Store ``entry`` under ``key`` (replacing any), creating the database (and its
        folder) when missing; a read-only, busy or planted database keeps nothing. Inside
        :func:`batched` the row waits for the block's one transaction."""
        _table(table)
        with _LOCK:
            batch = _open_batch()
            if batch is None:
                _write(self.path, [(table, key, entry)])
                return
            batch.rows.setdefault(self.path, {})[table, key] = entry
            batch.count += 1
            if batch.count >= BATCH:
                _flush(batch)


def _write(path: str, rows: list[tuple[str, str, bytes]]) -> None:
    """Store ``rows`` (table, key, entry) in one transaction; nothing on failure (a database
    that is not one is replaced by an empty one once, then written)."""
    for attempt in (1, 2):
        try:
            connection = _connection(path, create=True)
            if connection is None:
                return
            if len(rows) == 1:
                ((table, key, entry),) = rows
                connection.execute(
                    f"INSERT OR REPLACE INTO {_table(table)} (key, entry) VALUES (?, ?)",
                    (key, entry),
                )
                return
            _write_all(connection, rows)
            return
        except sqlite3.DatabaseError as exc:
            if attempt == 2 or not _not_a_database(exc) or not _reset(path):
                return
        except (sqlite3.Error, OSError):
            return


def _write_all(connection: sqlite3.Connection, rows: list[tuple[str, str, bytes]]) -> None:
    """Many rows in one transaction: all of them or, on any error, none."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        for table in TABLES:
            connection.executemany(
                f"INSERT OR REPLACE INTO {table} (key, entry) VALUES (?, ?)",
                [(key, entry) for name, key, entry in rows if name == table],
            )
        connection.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise


def _table(name: str) -> str:
    if name not in TABLES:  # never formatted into SQL unless it is one of ours
        raise ValueError(f"no cache table {name!r}")
    return name


def _not_a_database(exc: sqlite3.DatabaseError) -> bool:
    """Whether the file itself is broken (not a database, malformed), as opposed to busy,
    read-only or full (:class:`sqlite3.OperationalError` and its kin)."""
    return type(exc) is sqlite3.DatabaseError


def _connection(path: str, *, create: bool) -> sqlite3.Connection | None:
    """This process's connection to the database at ``path`` as it is now (opened on first
    use, again when the file was replaced); None when it is missing (and not to be created)
    or is not a regular file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        _forget(path)
        if not create:
            return None
        _create(path)
        info = os.lstat(path)
    file = (info.st_ino, info.st_dev)
    found = _OPEN.pop(path, None)
    if found is not None:
        if found.pid == os.getpid() and found.file == file:
            _OPEN[path] = found  # now the most recently used
            return found.connection
        _OPEN[path] = found
        _forget(path)
    if not stat.S_ISREG(info.st_mode) or not _plain_or_missing(f"{path}-journal"):
        return None
    connection = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
    )
    try:
        connection.execute("PRAGMA journal_mode=PERSIST")
        connection.execute("PRAGMA synchronous=OFF")
        connection.executescript(_SCHEMA)
    except BaseException:
        connection.close()
        raise
    _OPEN[path] = _Open(os.getpid(), file, connection)
    while len(_OPEN) > _KEEP_OPEN:
        _forget(next(iter(_OPEN)))
    return connection


def _forget(path: str) -> None:
    """Drop the connection to ``path``: closed if this process opened it, else kept unused."""
    found = _OPEN.pop(path, None)
    if found is None:
        return
    if found.pid != os.getpid():
        _INHERITED.append(found.connection)
        return
    with contextlib.suppress(sqlite3.Error):
        found.connection.close()


def _plain_or_missing(path: str) -> bool:
    """SQLite opens the journal by name, following links: one planted as a symlink (or a
    FIFO) turns the cache off instead."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True


def _create(path: str) -> None:
    """An empty database file, private to the user (SQLite gives its journal the same mode)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with contextlib.suppress(FileExistsError):  # another run made it first
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600))


def _reset(path: str) -> bool:
    """Replace a database that is not one by an empty one (once per process); True if done."""
    if path in _RESET:
        return False
    _RESET.add(path)
    _forget(path)
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return False
        os.unlink(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}-journal")
    except OSError:
        return False
    return True

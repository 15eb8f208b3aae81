"""A run's cache entries written together (generator/cache/database.py ``batched``): one
transaction for a step's puts instead of one per entry, with nothing else given up: the run
reads its own waiting entries, another process sees all of them or none, a forked worker
still writes at once, and a broken database is still replaced."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import DOOR, HEADER, document

from generator.cache import database as database_module
from generator.cache.database import NAME, Database, batched
from generator.cache.store import layout_folder

ROOT = Path(__file__).resolve().parents[2]


def _rows(database: Database, table: str) -> list[str]:
    """The keys another connection sees (as another process would), not this process's."""
    if not os.path.exists(database.path):
        return []
    with sqlite3.connect(database.path) as other:
        return [key for (key,) in other.execute(f"SELECT key FROM {table} ORDER BY key")]


def _statements(database: Database) -> list[str]:
    """Trace what this process's connection to ``database`` sends to SQLite."""
    connection = database_module._connection(database.path, create=True)
    assert connection is not None
    sent: list[str] = []
    connection.set_trace_callback(sent.append)
    return sent


def test_puts_in_a_block_wait_for_its_end_and_are_read_back_meanwhile(tmp_path: Path) -> None:
    database = Database(os.fspath(tmp_path / "cache"))
    sent = _statements(database)
    with batched():
        database.put("lint", "b", b"2")
        database.put("render", "a", b"1")
        database.put("lint", "a", b"0")
        database.put("lint", "b", b"3")  # replaced while waiting: the last put wins
        assert _rows(database, "lint") == [] and _rows(database, "render") == []
        assert database.get("lint", "b") == b"3"
        assert database.keys("lint") == ["a", "b"]
        assert [s for s in sent if not s.startswith("SELECT")] == []  # nothing written yet
    assert _rows(database, "lint") == ["a", "b"] and _rows(database, "render") == ["a"]
    assert database.get("lint", "b") == b"3"
    writes = [s.split(" (")[0] for s in sent if not s.startswith("SELECT")]
    assert writes == [
        "BEGIN IMMEDIATE",
        *["INSERT OR REPLACE INTO lint"] * 2,
        "INSERT OR REPLACE INTO render",
        "COMMIT",
    ]


def test_outside_a_block_each_put_is_written_at_once(tmp_path: Path) -> None:
    database = Database(os.fspath(tmp_path / "cache"))
    database.put("lint", "a", b"0")
    assert _rows(database, "lint") == ["a"]


def test_nested_blocks_write_when_the_outermost_ends(tmp_path: Path) -> None:
    database = Database(os.fspath(tmp_path / "cache"))
    with batched():
        with batched():
            database.put("render", "inner", b"1")
        assert _rows(database, "render") == []
        database.put("render", "outer", b"2")
    assert _rows(database, "render") == ["inner", "outer"]


def test_a_full_batch_is_written_before_the_block_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database_module, "BATCH", 3)
    database = Database(os.fspath(tmp_path / "cache"))
    with batched():
        for index in range(4):
            database.put("lint", f"k{index}", b"x")
        assert _rows(database, "lint") == ["k0", "k1", "k2"]
    assert _rows(database, "lint") == ["k0", "k1", "k2", "k3"]


def test_an_error_in_the_block_still_writes_what_was_put(tmp_path: Path) -> None:
    """A put is a cache entry: a run that fails later keeps the entries it made."""
    database = Database(os.fspath(tmp_path / "cache"))
    with pytest.raises(RuntimeError), batched():
        database.put("lint", "kept", b"1")
        raise RuntimeError("the run failed")
    assert _rows(database, "lint") == ["kept"]


def test_a_forked_child_writes_at_once_inside_its_parents_block(tmp_path: Path) -> None:
    """A lint worker forked while the parent's block is open has no end of block to wait
    for: its entries go to the database as it makes them."""
    database = Database(os.fspath(tmp_path / "cache"))
    database.put("lint", "parent", b"0")
    with batched():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child reports through its exit status
            ok = False  # what the child reports if anything in it raises
            try:
                database.put("lint", "child", b"1")
                ok = _rows(database, "lint") == ["child", "parent"]
            finally:
                os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        database.put("lint", "waiting", b"2")
        assert _rows(database, "lint") == ["child", "parent"]
    assert _rows(database, "lint") == ["child", "parent", "waiting"]


def test_a_block_meeting_a_file_that_is_not_a_database_replaces_it(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / NAME).write_bytes(b"not a database\n" * 200)
    database = Database(os.fspath(folder))
    with batched():
        database.put("lint", "a", b"1")
        database.put("render", "b", b"2")
    assert _rows(database, "lint") == ["a"] and _rows(database, "render") == ["b"]


def test_a_cold_generate_writes_each_cache_in_one_transaction(tmp_path: Path) -> None:
    """The lint step's entries and the render step's: two write transactions for a run of
    four documents (one per entry before), and every entry is there afterwards."""
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    for index in range(4):
        header = HEADER.replace("DOR-001\ntitle: Door", f"DOR-{index:03d}\ntitle: Door {index}")
        (tmp_path / "specs" / f"door{index}.md").write_text(document(DOOR, header=header))
    script = """
import sqlite3, sys
from generator.cache import database
opened = database._connection
traced = []
def connection(path, *, create):
    found = opened(path, create=create)
    if found is not None:
        found.set_trace_callback(traced.append)
    return found
database._connection = connection
from generator.cli.main import main
try:
    main(["generate", "-q"])
finally:
    for statement in traced:
        if statement.startswith(("BEGIN", "COMMIT", "INSERT")):
            print(statement.split(" (")[0])
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    one = ["BEGIN IMMEDIATE", *["INSERT OR REPLACE INTO {}"] * 4, "COMMIT"]
    expected = [s.format("lint") for s in one] + [s.format("render") for s in one]
    assert done.stdout.splitlines() == expected
    database = Database(os.fspath(layout_folder(tmp_path)))
    assert len(_rows(database, "lint")) == 4 and len(_rows(database, "render")) == 4

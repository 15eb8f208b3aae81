"""The caches' one SQLite file (generator/cache/database.py): what the file per entry gave
(whole entries, sharing between processes, a corrupt entry a miss) without a file per entry,
and nothing planted in the folder is ever written through."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sample_documents import DOOR, HEADER, document

from generator.cache import database as database_module
from generator.cache.database import NAME, Database
from generator.cache.store import FOLDER, Cache, layout_folder

BROKEN = DOOR.replace("to: closed,", "to: shut,")
ROOT = Path(__file__).resolve().parents[2]


def _statedoc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _project(root: Path, count: int = 3, front: str = DOOR) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (root / "specs").mkdir(parents=True)
    for index in range(count):
        header = HEADER.replace("DOR-001\ntitle: Door", f"DOR-{index:03d}\ntitle: Door {index}")
        (root / "specs" / f"door{index}.md").write_text(document(front, header=header))
    return root


def _database(root: Path) -> Database:
    return Database(os.fspath(layout_folder(root)))


def test_a_cold_generate_writes_one_database_not_a_file_per_entry(tmp_path: Path) -> None:
    root = _project(tmp_path, count=5)
    assert _statedoc(root, "generate", "-q").returncode == 0
    files = sorted(p.name for p in (root / FOLDER).rglob("*") if p.is_file())
    assert files == sorted([".gitignore", NAME, f"{NAME}-journal", "signatures.json"])
    assert len(_database(root).keys("lint")) == 5
    assert len(_database(root).keys("render")) == 5
    warm = _statedoc(root, "generate", "-q")
    assert warm.returncode == 0 and warm.stderr == ""


def test_the_database_and_its_journal_are_private_to_the_user(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert _statedoc(root, "lint").returncode == 0
    for name in (NAME, f"{NAME}-journal"):
        mode = stat.S_IMODE(os.stat(layout_folder(root) / name).st_mode)
        assert mode == 0o600, (name, oct(mode))


def test_deleting_the_folder_takes_effect_at_once_in_a_running_process(tmp_path: Path) -> None:
    """A connection kept open must not serve (or store into) a database that was deleted or
    replaced: the language server and a test session live across such deletions."""
    root = _project(tmp_path, count=2)
    cache = Cache(root, max_file_size=10**6)
    key = cache.key(b"door")
    cache.put(key, [], None)
    assert cache.get(key, "door.md") == ([], None)
    shutil.rmtree(root / FOLDER)
    assert cache.get(key, "door.md") is None
    cache.put(key, [], None)
    assert _database(root).keys("lint") == [key]
    shutil.rmtree(root / FOLDER)
    assert _statedoc(root, "lint").returncode == 0  # another process makes a new one
    assert cache.get(key, "door.md") is None
    assert len(_database(root).keys("lint")) == 2 and key not in _database(root).keys("lint")


@pytest.mark.parametrize("planted", ["database", "journal"])
def test_a_symlink_planted_in_the_folder_is_never_written_through(
    tmp_path: Path, planted: str
) -> None:
    root = _project(tmp_path / "project", front=BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    assert first.returncode == 1
    victim = tmp_path / "victim"  # empty: SQLite would take it for an empty database
    victim.write_bytes(b"")
    folder = layout_folder(root)
    shutil.rmtree(folder)
    folder.mkdir()
    (folder / (NAME if planted == "database" else f"{NAME}-journal")).symlink_to(victim)
    for _ in range(2):
        again = _statedoc(root, "lint", "--format", "json")
        assert (again.returncode, again.stdout) == (1, first.stdout)
    assert victim.read_bytes() == b""


def test_a_file_that_is_not_a_database_is_a_miss_and_then_replaced(tmp_path: Path) -> None:
    root = _project(tmp_path, front=BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    database = layout_folder(root) / NAME
    database.write_bytes(b"not a database\n" * 200)
    again = _statedoc(root, "lint", "--format", "json")
    assert (again.returncode, again.stdout, again.stderr) == (1, first.stdout, "")
    assert len(_database(root).keys("lint")) == 3  # the run that met it cached anew


def test_threads_sharing_one_database_keep_every_entry(tmp_path: Path) -> None:
    database = Database(os.fspath(tmp_path / "cache"))
    errors: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            for index in range(50):
                key = f"{thread:02d}-{index:03d}"
                database.put("lint", key, key.encode())
                assert database.get("lint", key) == key.encode()
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(database.keys("lint")) == 300


def test_more_databases_than_are_kept_open_all_still_work(tmp_path: Path) -> None:
    many = [Database(os.fspath(tmp_path / f"c{n}")) for n in range(database_module._KEEP_OPEN * 3)]
    for round_ in range(2):
        for index, database in enumerate(many):
            database.put("render", f"k{round_}", f"{index}".encode())
    assert len(database_module._OPEN) <= database_module._KEEP_OPEN
    for index, database in enumerate(many):
        assert database.keys("render") == ["k0", "k1"]
        assert database.get("render", "k1") == f"{index}".encode()


def test_a_forked_child_opens_its_own_connection(tmp_path: Path) -> None:
    """SQLite's rule: never use a connection across fork. The child's entry is stored through
    a connection of its own, and the parent's keeps working."""
    database = Database(os.fspath(tmp_path / "cache"))
    database.put("lint", "parent", b"1")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        ok = False  # what the child reports if anything in it raises
        try:
            database.put("lint", "child", b"2")
            ok = database.get("lint", "child") == b"2" and database.get("lint", "parent") == b"1"
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    database.put("lint", "parent again", b"3")
    assert database.keys("lint") == ["child", "parent", "parent again"]


def test_an_unknown_table_is_refused_not_formatted_into_sql() -> None:
    with pytest.raises(ValueError, match="no cache table"):
        database_module._table("lint; DROP TABLE render")

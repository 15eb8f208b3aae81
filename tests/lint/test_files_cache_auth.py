"""The cache's trust model: the folder is trusted as the working tree is, and each entry carries
the digest of its key and body, so a corrupt, hand-edited or misplaced entry is a miss, never
a result; ``--no-cache`` trusts nothing in the folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import DOOR, document

from generator.cache.database import NAME, Database
from generator.cache.store import FOLDER, layout_folder, seal

BROKEN = DOOR.replace("to: closed,", "to: shut,")
EVIL = "import os\nos.system('echo owned')\n"


def _statedoc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _project(root: Path, front: str) -> Path:
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (root / "specs").mkdir()
    (root / "specs/door.md").write_text(document(front))
    return root


class _Entry:
    """One entry of the cache database (a row of ``table``), read and written by hand."""

    def __init__(self, root: Path, table: str, key: str) -> None:
        self.database = Database(os.fspath(layout_folder(root)))
        self.table, self.key = table, key

    def read_bytes(self) -> bytes:
        found = self.database.get(self.table, self.key)
        assert found is not None
        return found

    def write_bytes(self, data: bytes) -> None:
        self.database.put(self.table, self.key, data)


def _entries(root: Path, table: str) -> list[_Entry]:
    keys = Database(os.fspath(layout_folder(root))).keys(table)
    return [_Entry(root, table, key) for key in keys]


def _files(root: Path) -> list[Path]:
    return sorted(p for p in (root / FOLDER).rglob("*") if p.is_file())


def _key(entry: _Entry) -> str:
    return entry.key


def _edit(entry: _Entry, edit: dict[str, object], *, keep_digest: bool) -> None:
    """Edit an entry's JSON body by hand, keeping its digest line (now stale) or dropping it."""
    digest, _, body = entry.read_bytes().partition(b"\n")
    edited = json.dumps({**json.loads(body), **edit}).encode()
    entry.write_bytes(digest + b"\n" + edited if keep_digest else edited)


@pytest.mark.parametrize("keep_digest", [True, False], ids=["stale-digest", "no-digest"])
def test_a_hand_edited_lint_entry_cannot_hide_findings(tmp_path: Path, keep_digest: bool) -> None:
    root = _project(tmp_path, BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    assert first.returncode == 1 and json.loads(first.stdout)
    (entry,) = _entries(root, "lint")
    _edit(entry, {"findings": []}, keep_digest=keep_digest)
    again = _statedoc(root, "lint", "--format", "json")
    assert (again.returncode, again.stdout) == (1, first.stdout)


@pytest.mark.parametrize("keep_digest", [True, False], ids=["stale-digest", "no-digest"])
def test_a_hand_edited_render_entry_never_reaches_generated(
    tmp_path: Path, keep_digest: bool
) -> None:
    root = _project(tmp_path, DOOR)
    assert _statedoc(root, "generate", "-q").returncode == 0
    outputs = {p: p.read_bytes() for p in (root / "generated").rglob("*.py")}
    renders = _entries(root, "render")
    assert renders
    for entry in renders:
        _edit(entry, {"module": EVIL}, keep_digest=keep_digest)
    for path in outputs:
        path.unlink()
    assert _statedoc(root, "generate", "-q").returncode == 0
    assert {p: p.read_bytes() for p in (root / "generated").rglob("*.py")} == outputs


def test_an_entry_copied_under_another_key_is_a_miss(tmp_path: Path) -> None:
    """The digest covers the key: a genuine entry (here a clean document's) stored where
    another document's result belongs is not that document's result."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    broken = _project(tmp_path / "a", BROKEN)
    clean = _project(tmp_path / "b", DOOR)
    first = _statedoc(broken, "lint", "--format", "json")
    assert _statedoc(clean, "lint").returncode == 0
    (clean_entry,) = _entries(clean, "lint")
    (broken_entry,) = _entries(broken, "lint")
    broken_entry.write_bytes(clean_entry.read_bytes())
    again = _statedoc(broken, "lint", "--format", "json")
    assert (again.returncode, again.stdout) == (1, first.stdout)


def test_an_entry_rewritten_with_its_digest_is_trusted_but_not_with_no_cache(
    tmp_path: Path,
) -> None:
    """The documented model: the digest is an integrity check, not a signature. Whoever can
    write the folder can make a lint pass (as they could by editing the specs), and a check
    that must not trust the folder it was given runs with ``--no-cache``."""
    root = _project(tmp_path, BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    assert first.returncode == 1 and json.loads(first.stdout)
    (entry,) = _entries(root, "lint")
    entry.write_bytes(seal(_key(entry), json.dumps({"findings": [], "facts": None}).encode()))
    assert _statedoc(root, "lint", "--format", "json").returncode == 0
    gate = _statedoc(root, "lint", "--no-cache", "--format", "json")
    assert (gate.returncode, gate.stdout) == (1, first.stdout)


def test_the_cache_keeps_no_key_to_travel_with_it(tmp_path: Path) -> None:
    """Every file statedoc leaves in the folder is the entries' database (and its journal),
    the signature index or the ``.gitignore``: nothing in a restored or committed copy claims
    to vouch for the rest."""
    root = _project(tmp_path, DOOR)
    assert _statedoc(root, "generate", "-q").returncode == 0
    assert _statedoc(root, "check", "-q").returncode == 0
    layout = layout_folder(root).name
    names = {p.relative_to(root / FOLDER).as_posix() for p in _files(root)}
    database = {f"{layout}/{NAME}", f"{layout}/{NAME}-journal"}
    assert {".gitignore", f"{layout}/signatures.json", f"{layout}/{NAME}"} <= names
    assert names <= {".gitignore", f"{layout}/signatures.json", *database}
    assert _entries(root, "lint") and _entries(root, "render")


def test_a_fifo_planted_as_an_entry_is_a_miss_not_a_hang(tmp_path: Path) -> None:
    root = _project(tmp_path, BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    database = layout_folder(root) / NAME
    assert database.is_file()
    database.unlink()
    os.mkfifo(database)
    again = _statedoc(root, "lint", "--format", "json")  # the 300 s timeout guards a hang
    assert (again.returncode, again.stdout) == (1, first.stdout)

"""The cache is authenticated: a forged or edited entry is a miss, never a result."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import DOOR, document

from generator.lint.cache import FOLDER, Cache

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


def _entries(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in (root / FOLDER).rglob(pattern) if p.is_file())


def _forge(entry: Path, edit: dict[str, object], *, keep_mac: bool) -> None:
    """Rewrite an entry's JSON body, keeping its authentication line (a tampered entry) or
    dropping it (an entry in the unauthenticated layout an attacker can write by hand)."""
    raw = entry.read_bytes()
    mac, _, body = raw.partition(b"\n") if not raw.startswith(b"{") else (b"", b"", raw)
    forged = json.dumps({**json.loads(body), **edit}).encode()
    entry.write_bytes(mac + b"\n" + forged if keep_mac and mac else forged)


@pytest.mark.parametrize("keep_mac", [True, False], ids=["tampered", "unauthenticated"])
def test_a_forged_lint_entry_cannot_hide_findings(tmp_path: Path, keep_mac: bool) -> None:
    root = _project(tmp_path, BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    assert first.returncode == 1 and json.loads(first.stdout)
    (entry,) = _entries(root, "*.json")
    _forge(entry, {"findings": []}, keep_mac=keep_mac)
    again = _statedoc(root, "lint", "--format", "json")
    assert (again.returncode, again.stdout) == (1, first.stdout)


@pytest.mark.parametrize("keep_mac", [True, False], ids=["tampered", "unauthenticated"])
def test_a_forged_render_entry_never_reaches_generated(tmp_path: Path, keep_mac: bool) -> None:
    root = _project(tmp_path, DOOR)
    assert _statedoc(root, "generate", "-q").returncode == 0
    outputs = {p: p.read_bytes() for p in (root / "generated").rglob("*.py")}
    renders = _entries(root, "render/*/*.json")
    assert renders
    for entry in renders:
        _forge(entry, {"module": EVIL}, keep_mac=keep_mac)
    for path in outputs:
        path.unlink()
    assert _statedoc(root, "generate", "-q").returncode == 0
    assert {p: p.read_bytes() for p in (root / "generated").rglob("*.py")} == outputs


def test_an_entry_from_another_cache_is_a_miss(tmp_path: Path) -> None:
    """Copying a genuine entry from a cache with another secret (another checkout, a CI cache)
    does not authenticate it here."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    broken = _project(tmp_path / "a", BROKEN)
    clean = _project(tmp_path / "b", DOOR)
    first = _statedoc(broken, "lint", "--format", "json")
    assert _statedoc(clean, "lint").returncode == 0
    (clean_entry,) = _entries(clean, "*.json")
    (broken_entry,) = _entries(broken, "*.json")
    broken_entry.write_bytes(clean_entry.read_bytes())
    again = _statedoc(broken, "lint", "--format", "json")
    assert (again.returncode, again.stdout) == (1, first.stdout)


def test_the_secret_is_private_and_a_shared_one_is_not_trusted(tmp_path: Path) -> None:
    from generator.lint.cache import SECRET

    root = _project(tmp_path, DOOR)
    assert _statedoc(root, "lint").returncode == 0
    (secret,) = list((root / FOLDER).rglob(SECRET))
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert len(secret.read_bytes()) == 32
    store = Cache(root, max_file_size=4 * 1024 * 1024)
    (entry,) = _entries(root, "*.json")
    key = entry.parent.name + entry.stem
    assert store.keyed.open(key, entry.read_bytes()) is not None
    os.chmod(secret, 0o644)  # anyone could have read it: nothing it signed is trusted
    assert Cache(root, max_file_size=1).keyed.open(key, entry.read_bytes()) is None


def test_a_checked_in_secret_and_entries_signed_with_it_are_not_trusted(tmp_path: Path) -> None:
    """A pull request can commit a cache folder, secret included, with entries correctly
    signed by that secret; git checks files out world-readable, so none of it is trusted,
    and the cache gets a private secret of its own."""
    import hmac
    from hashlib import sha256

    from generator.lint.cache import SECRET

    root = _project(tmp_path, BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    assert first.returncode == 1
    (secret,) = list((root / FOLDER).rglob(SECRET))
    (entry,) = _entries(root, "*.json")
    known = b"k" * 32
    secret.write_bytes(known)
    os.chmod(secret, 0o644)
    body = json.dumps({"findings": [], "facts": None}).encode()
    key = (entry.parent.name + entry.stem).encode()
    mac = hmac.new(known, key + b"\0" + body, sha256).hexdigest().encode()
    entry.write_bytes(mac + b"\n" + body)
    again = _statedoc(root, "lint", "--format", "json")
    assert (again.returncode, again.stdout) == (1, first.stdout)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert secret.read_bytes() != known
    assert _statedoc(root, "lint", "--format", "json").stdout == first.stdout


def test_a_fifo_planted_as_an_entry_is_a_miss_not_a_hang(tmp_path: Path) -> None:
    root = _project(tmp_path, BROKEN)
    first = _statedoc(root, "lint", "--format", "json")
    (entry,) = _entries(root, "*.json")
    entry.unlink()
    os.mkfifo(entry)
    again = _statedoc(root, "lint", "--format", "json")  # the 300 s timeout guards a hang
    assert (again.returncode, again.stdout) == (1, first.stdout)

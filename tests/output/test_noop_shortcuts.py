"""The shortcuts of a no-op ``generate``/``build``/``check``: a served output is not read a
second time by planning, and unchanged documents and outputs are known by their stat
signatures (:mod:`generator.output.signatures`). Each test fails when its shortcut trusts
what it must not."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from targets.test_generate_support import SEED_MODULES, run_cli, tree

import generator.output.sources as sources_module
from generator.lint.cache import FOLDER, RenderCache
from generator.output.signatures import Signatures

QUERIES_PY = f"generated/{SEED_MODULES['queries']}.py"


def warm(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    """Build, then check twice: both caches filled and every signature trusted."""
    for command in ("build", "check", "check"):
        assert run_cli(capsys, command, "-q")[0] == 0
    assert list((repo / FOLDER).rglob("signatures.json"))
    return tree(repo / "generated")


def codes(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    return code, sorted(f["code"] for f in json.loads(out))


def test_noop_runs_read_no_document_a_second_time(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    warm(repo, capsys)
    reads: list[str] = []
    real = sources_module.read_bounded

    def counting(path, limit):  # type: ignore[no-untyped-def]
        reads.append(os.fspath(path))
        return real(path, limit)

    monkeypatch.setattr(sources_module, "read_bounded", counting)
    for command in ("check", "generate", "build"):
        assert run_cli(capsys, command, "-q")[0] == 0
    assert reads == []


def test_a_served_output_replaced_by_a_symlink_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The symlink leads to the very bytes the rendering names: serving it is right, planning
    must still refuse to treat a symlink as the output."""
    before = warm(repo, capsys)
    module = repo / QUERIES_PY
    outside = tmp_path_factory.mktemp("outside") / "module.py"
    outside.write_bytes(module.read_bytes())
    module.unlink()
    module.symlink_to(outside)
    assert codes(capsys, "check") == (1, ["SD405"])
    assert outside.read_bytes() == before[QUERIES_PY.removeprefix("generated/")]


def test_a_same_size_hand_edit_is_stale(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warm(repo, capsys)
    module = repo / QUERIES_PY
    data = module.read_bytes()
    edited = data.replace(b"class State", b"class Stat_", 1)
    assert edited != data and len(edited) == len(data)
    module.write_bytes(edited)
    assert codes(capsys, "check") == (1, ["SD401"])
    assert codes(capsys, "check") == (1, ["SD401"])  # and again, with the index saved since


def test_a_document_renamed_in_place_is_regenerated(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warm(repo, capsys)
    spec = repo / "specs/platform/queries/workspace-export-delivery.md"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace("title: ", "title: Renamed ", 1), encoding="utf-8")
    assert codes(capsys, "check")[0] == 1
    assert run_cli(capsys, "build", "-q")[0] == 0
    code, found = codes(capsys, "check")
    assert code == 0 and not [c for c in found if c.startswith("SD4")]


def _recorded(root: Path, file: Path) -> Signatures:
    """An index holding ``file``'s signature and digest "abc", saved, then loaded again."""
    (root / "pyproject.toml").write_text("[tool.statedoc]\n")
    cache = RenderCache(root)
    cache.folder.mkdir(parents=True)
    index = Signatures(cache)
    index.record(os.fspath(file), os.stat(file), "abc")
    index.save()
    return Signatures(RenderCache(root))


def test_a_signature_is_trusted_once_older_than_the_index(tmp_path: Path) -> None:
    """The control for the two tests below: the same steps with a settled file."""
    file = tmp_path / "a.txt"
    file.write_text("a")
    old = os.stat(file).st_mtime_ns - 10**9
    os.utime(file, ns=(old, old))
    loaded = _recorded(tmp_path, file)
    assert loaded.digest(os.fspath(file), os.stat(file)) == "abc"


def test_a_racy_signature_is_not_trusted(tmp_path: Path) -> None:
    """A file modified as late as the index was written may change again unseen within the
    same timestamp: it is read again."""
    file = tmp_path / "a.txt"
    file.write_text("a")
    future = os.stat(file).st_mtime_ns + 3600 * 10**9
    os.utime(file, ns=(future, future))
    loaded = _recorded(tmp_path, file)
    assert loaded.digest(os.fspath(file), os.stat(file)) is None


def test_a_forged_index_is_not_trusted(tmp_path: Path) -> None:
    file = tmp_path / "a.txt"
    file.write_text("a")
    old = os.stat(file).st_mtime_ns - 10**9
    os.utime(file, ns=(old, old))
    _recorded(tmp_path, file)
    index = RenderCache(tmp_path).folder.parent / "signatures.json"
    mac, _, body = index.read_bytes().partition(b"\n")
    index.write_bytes(mac[:-1] + (b"0" if mac[-1:] != b"0" else b"1") + b"\n" + body)
    past = os.stat(file).st_mtime_ns - 10**9
    os.utime(index, ns=(past + 2 * 10**9, past + 2 * 10**9))
    assert Signatures(RenderCache(tmp_path)).digest(os.fspath(file), os.stat(file)) is None

"""The shortcuts of a no-op ``generate``/``build``/``check``: a served output is not read a
second time by planning, and unchanged documents and outputs are known by their stat
signatures (:mod:`generator.cache.signatures`). Each test fails when its shortcut trusts
what it must not."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from targets.test_generate_support import SEED_MODULES, run_cli, tree

import generator.output.apply as apply_module
import generator.output.sources as sources_module
from generator.cache.signatures import TICK, Signatures
from generator.cache.store import FOLDER, RenderCache
from generator.run import pipeline

QUERIES_PY = f"generated/{SEED_MODULES['queries']}.py"


def warm(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    """Build, then (once every file is older than a timestamp tick) check twice: both caches
    filled and every signature trusted."""
    assert run_cli(capsys, "build", "-q")[0] == 0
    time.sleep(2 * TICK / 10**9)
    for _ in range(2):
        assert run_cli(capsys, "check", "-q")[0] == 0
    assert list((repo / FOLDER).rglob("signatures.json"))
    return tree(repo / "generated")


def codes(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    return code, sorted(f["code"] for f in json.loads(out))


def _document_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the steps after lint read documents from, from now on."""
    reads: list[str] = []
    real = sources_module.read_bounded

    def counting(path, limit):  # type: ignore[no-untyped-def]
        reads.append(os.fspath(path))
        return real(path, limit)

    monkeypatch.setattr(sources_module, "read_bounded", counting)
    return reads


def test_noop_runs_read_no_document_a_second_time(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    warm(repo, capsys)
    reads = _document_reads(monkeypatch)
    for command in ("check", "generate", "build"):
        assert run_cli(capsys, command, "-q")[0] == 0
    assert reads == []


def test_the_first_noop_run_after_generate_reads_no_document_again(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold generate records each document's signature for the bytes its lint read, so
    the run after it need not read them a second time either."""
    time.sleep(3 * TICK / 10**9)  # the documents just copied in are no longer racy
    assert run_cli(capsys, "generate", "-q")[0] == 0
    time.sleep(3 * TICK / 10**9)
    reads = _document_reads(monkeypatch)
    assert run_cli(capsys, "generate", "-q")[0] == 0
    assert reads == []


def test_a_document_saved_after_lint_read_it_is_read_again_next_time(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built as A, edited to B; generate lints B, then (before the signatures are taken)
    the file is saved back to A with its old mtime, and a tick passes. A's lint and render
    entries are cached, so only the signature can tell which bytes the file holds: it is
    dated before lint read B, so the save is racy, and the next check reads A and finds the
    modules (B's) stale."""
    spec = repo / "specs/platform/queries/workspace-export-delivery.md"
    time.sleep(3 * TICK / 10**9)
    assert run_cli(capsys, "build", "-q")[0] == 0
    first = spec.read_bytes()
    edited = first.replace(b"awaits processing", b"awaits PROCESSING", 1)
    assert edited != first and len(edited) == len(first)
    spec.write_bytes(edited)
    real = pipeline.sources

    def saving_back(workspace, previous=None):  # type: ignore[no-untyped-def]
        old = spec.stat().st_mtime_ns - 10 * 10**9
        spec.write_bytes(first)
        os.utime(spec, ns=(old, old))
        time.sleep(3 * TICK / 10**9)
        return real(workspace, previous)

    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "sources", saving_back)
        assert run_cli(capsys, "generate", "-q")[0] == 0
    time.sleep(3 * TICK / 10**9)
    assert codes(capsys, "check") == (1, ["SD401"])


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


def test_an_output_rewritten_just_after_generate_wrote_it_is_stale(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor or a second run rewrites a file (same size) after generate renamed it into
    place and before generate recorded its signature, then time passes (more than a tick):
    the signature must not vouch for generate's bytes."""
    assert run_cli(capsys, "build", "-q")[0] == 0
    module = repo / QUERIES_PY
    module.unlink()
    real = apply_module.apply_plan

    def racing(plan):  # type: ignore[no-untyped-def]
        done = real(plan)
        if module.exists():
            data = module.read_bytes()
            module.write_bytes(data.replace(b"class State", b"class Stat_", 1))
            time.sleep(3 * TICK / 10**9)
        return done

    with monkeypatch.context() as patched:
        patched.setattr(apply_module, "apply_plan", racing)
        assert run_cli(capsys, "generate", "-q")[0] == 0
    assert b"class Stat_" in module.read_bytes()
    time.sleep(3 * TICK / 10**9)
    assert codes(capsys, "check") == (1, ["SD401"])


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


def _recorded(
    root: Path,
    file: Path,
    *,
    mtime: int,
    saved: int = 0,
    at: int | None = None,
) -> Signatures:
    """An index holding ``file`` (its mtime set to ``mtime`` ns before the recording) with
    the digest "abc", recorded ``at`` (default: ten seconds from now, as the file's ctime, now,
    cannot be set back), its file dated that moment plus ``saved`` ns; then loaded again."""
    (root / "pyproject.toml").write_text("[tool.statedoc]\n")
    cache = RenderCache(root)
    cache.folder.mkdir(parents=True, exist_ok=True)
    at = at or time.time_ns() + 10 * 10**9
    os.utime(file, ns=(at - mtime, at - mtime))
    index = Signatures(cache)
    index.record(os.fspath(file), os.stat(file), "abc", at)
    index.save()
    os.utime(cache.folder / "signatures.json", ns=(at + saved, at + saved))
    return Signatures(RenderCache(root))


def _digest(tmp_path: Path, mtime: int, saved: int = 0, at: int = 0) -> str | None:
    file = tmp_path / "a.txt"
    file.write_text("a")
    loaded = _recorded(tmp_path, file, mtime=mtime, saved=saved, at=at or None)
    return loaded.digest(os.fspath(file), os.stat(file))


def test_a_signature_is_trusted_once_safely_older_than_its_recording(
    tmp_path: Path,
) -> None:
    """The control for the tests below: the same steps with a settled file."""
    assert _digest(tmp_path, mtime=10**9 + 123) == "abc"


def test_a_file_changed_within_a_tick_of_its_recording_is_read_again(
    tmp_path: Path,
) -> None:
    """It may change again within the same timestamp tick, keeping its signature."""
    assert _digest(tmp_path, mtime=TICK // 5 + 123) is None


def test_whole_second_timestamps_need_seconds_of_age(
    tmp_path: Path,
) -> None:
    """mtimes in whole seconds (a coarse file system): one second is within one tick."""
    at = time.time_ns() + 10 * 10**9
    whole = (at - 10**9) // 10**9 * 10**9  # one to two seconds before the recording
    assert _digest(tmp_path, mtime=at - whole, at=at) is None
    assert _digest(tmp_path, mtime=at - whole - 7, at=at) == "abc"  # control


def test_a_file_not_older_than_the_index_file_is_read_again(
    tmp_path: Path,
) -> None:
    """git's rule, on the file system's own clock: an index file dated before the file."""
    assert _digest(tmp_path, mtime=10**9 + 123, saved=-2 * 10**9) is None


def test_an_index_whose_digest_does_not_match_is_not_trusted(tmp_path: Path) -> None:
    file = tmp_path / "a.txt"
    file.write_text("a")
    _recorded(tmp_path, file, mtime=10**9 + 123)
    index = RenderCache(tmp_path).folder / "signatures.json"
    stamp = os.stat(index).st_mtime_ns
    digest, _, body = index.read_bytes().partition(b"\n")
    index.write_bytes(digest[:-1] + (b"0" if digest[-1:] != b"0" else b"1") + b"\n" + body)
    os.utime(index, ns=(stamp, stamp))
    assert Signatures(RenderCache(tmp_path)).digest(os.fspath(file), os.stat(file)) is None

"""The lint cache and worker processes change how fast findings arrive, never which."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from sample_documents import DOOR, HEADER, document

from generator.cache import store as cache_module
from generator.cache.database import Database
from generator.cache.store import Cache, layout_folder, unseal
from generator.cli import main
from generator.lint.files import PARALLEL_MIN, lint_files, settings_for
from generator.load.config import Config
from generator.load.discover import discover

BROKEN = DOOR.replace("to: closed,", "to: shut,") + "  - {from: open, to: open, trigger: x}\n"


def _entries(root: Path) -> Database:
    """The project's cache database (both caches' entries: tables ``lint`` and ``render``)."""
    return Database(os.fspath(layout_folder(root)))


def _corpus(root: Path, count: int) -> Config:
    for index in range(count):
        header = HEADER.replace("DOR-001\ntitle", f"DOR-{index:03d}\ntitle")
        front = BROKEN if index % 3 == 0 else DOOR
        folder = root / "specs" / f"f{index % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"d{index}.md").write_text(document(front, header=header))
    (root / "specs/dup.md").write_text(document())  # same id (and bytes) as d1.md: SD204
    return Config(root=root, specs=(root / "specs",), out=root / "out")


def _lint(config: Config, **kwargs: object) -> list[object]:
    files = discover([], config, cwd=config.root)
    return lint_files(files, settings_for(config), **kwargs).findings  # type: ignore[arg-type]


def test_warm_cache_gives_identical_findings(tmp_path: Path) -> None:
    config = _corpus(tmp_path, 12)
    cold = _lint(config)
    store = Cache(tmp_path, max_file_size=config.max_file_size)
    assert _lint(config, cache=store) == cold
    entries = _entries(tmp_path).keys("lint")
    assert len(entries) == 12  # keyed by content: dup.md has d1.md's bytes
    assert _lint(config, cache=store) == cold  # served from the cache


def test_a_changed_file_is_linted_again(tmp_path: Path) -> None:
    config = _corpus(tmp_path, 3)
    store = Cache(tmp_path, max_file_size=config.max_file_size)
    _lint(config, cache=store)
    target = tmp_path / "specs/f1/d1.md"
    target.write_text(target.read_text().replace("to: closed,", "to: ajar,"))
    assert any("ajar" in f.message for f in _lint(config, cache=store))  # type: ignore[attr-defined]


def test_corrupt_entries_are_misses(tmp_path: Path) -> None:
    config = _corpus(tmp_path, 3)
    store = Cache(tmp_path, max_file_size=config.max_file_size)
    cold = _lint(config, cache=store)
    entries = _entries(tmp_path)
    assert entries.keys("lint")
    for key in entries.keys("lint"):
        entries.put("lint", key, b"{not json")
    assert _lint(config, cache=store) == cold


def test_the_key_covers_statedoc_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Cache(tmp_path, max_file_size=10)
    key = store.key(b"x")
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "another-version")
    assert Cache(tmp_path, max_file_size=10).key(b"x") != key
    assert Cache(tmp_path, max_file_size=11).key(b"x") != key


def test_cache_is_git_ignored_and_no_cache_bypasses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _corpus(tmp_path, 2)
    (tmp_path / "pyproject.toml").write_text("[tool.statedoc]\n")
    monkeypatch.chdir(tmp_path)
    main(["lint", "--no-cache"])
    assert not (tmp_path / ".statedoc_cache").exists()
    uncached = capsys.readouterr().out
    first = main(["lint"])
    out1 = capsys.readouterr().out
    assert (tmp_path / ".statedoc_cache/.gitignore").read_text().endswith("*\n")
    assert out1 == uncached
    assert main(["lint"]) == first
    assert capsys.readouterr().out == out1


def test_an_unwritable_cache_still_lints(tmp_path: Path) -> None:
    config = _corpus(tmp_path, 2)
    (tmp_path / ".statedoc_cache").write_text("a file where the folder should be")
    assert _lint(config, cache=Cache(tmp_path, max_file_size=10**6)) == _lint(config)


def test_worker_processes_give_identical_findings(tmp_path: Path) -> None:
    from generator.run.pool import lint_in_pool

    config = _corpus(tmp_path, PARALLEL_MIN + 10)
    pooled: list[int] = []

    def pool(work: Any, todo: list[Any], jobs: int, tick: Any) -> Any:
        pooled.append(len(todo))
        return lint_in_pool(work, todo, jobs, tick)

    assert _lint(config, jobs=2, pool=pool) == _lint(config, jobs=1)
    assert pooled == [PARALLEL_MIN + 11]  # every file (and dup.md) went to the workers


def test_render_cache_serves_identical_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _corpus(tmp_path, 3)
    (tmp_path / "specs/dup.md").unlink()
    for index, spec in enumerate(sorted((tmp_path / "specs").rglob("*.md"))):
        spec.write_text(spec.read_text().replace("title: Door", f"title: Door {index}"))
    (tmp_path / "pyproject.toml").write_text("[tool.statedoc]\n")
    monkeypatch.chdir(tmp_path)
    main(["generate", "-q", "--no-cache", "specs/f1", "specs/f2"])
    uncached = {p: p.read_bytes() for p in (tmp_path / "generated").rglob("*") if p.is_file()}
    shutil.rmtree(tmp_path / "generated")
    assert main(["generate", "-q", "specs/f1", "specs/f2"]) == 0  # fills the render cache
    renders = _entries(tmp_path).keys("render")
    assert len(renders) == 2
    shutil.rmtree(tmp_path / "generated")
    _entries(tmp_path).put("render", renders[0], b"{broken")  # a corrupt entry is rendered again
    assert main(["generate", "-q", "specs/f1", "specs/f2"]) == 0
    cached = {p: p.read_bytes() for p in (tmp_path / "generated").rglob("*") if p.is_file()}
    assert cached == uncached
    capsys.readouterr()


def test_concurrent_runs_share_the_cache_safely(tmp_path: Path) -> None:
    """Two linters filling one cache at once: same findings, and every entry is whole."""
    import json
    import subprocess
    import sys

    _corpus(tmp_path, 60)
    (tmp_path / "pyproject.toml").write_text("[tool.statedoc]\n")
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "generator", "lint", "-j1", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    runs = [
        subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert outputs[0] == outputs[1] == outputs[2]
    assert json.loads(outputs[0])
    entries = _entries(tmp_path)
    assert entries.keys("lint")
    for key in entries.keys("lint"):  # never half-written, and every entry's digest matches
        body = unseal(key, entries.get("lint", key) or b"")
        assert body is not None
        json.loads(body)


def test_the_code_fingerprint_covers_the_whole_generator_package() -> None:
    """Regression: after a layout change moved the cache into a subpackage the fingerprint only
    covered that folder, so a changed template or renderer served stale cached modules."""
    import generator
    from generator.cache.store import fingerprinted_files

    root = Path(generator.__file__).resolve().parent
    covered = {path.relative_to(root).as_posix() for path in fingerprinted_files()}
    assert "targets/python/templates/module.py.j2" in covered
    assert "targets/python/render.py" in covered
    assert "load/schema/front-matter.schema.json" in covered
    assert "cache/store.py" in covered


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_fresh_process_served_wholly_from_the_cache_reports_the_same(
    tmp_path: Path, jobs: str
) -> None:
    """A second ``statedoc lint`` lints nothing itself (every file is a cache hit, also in the
    workers), yet reports what the cold run did, the cross-file SD204 included."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    _corpus(tmp_path, 6)

    def run() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "generator", "lint", "-j", jobs, "--format", "json"]
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)

    cold, warm = run(), run()
    assert (tmp_path / ".statedoc_cache").is_dir()
    assert '"SD204"' in cold.stdout and cold.returncode == 1
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, "")

"""No-op ``generate``/``build``/``check`` with warm lint and render caches: unchanged documents
are served without parsing, and the tree on disk is still compared with what would be
generated (a hand-edited file is stale, a deleted one missing, a left-over one deleted), while
a changed document, configuration, target set or statedoc version is never served from the
cache."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from targets.test_generate_support import PYPROJECT, SEED_MODULES, run_cli, tree

import generator.lint.files as files_module
from generator.cache import store as cache_module
from generator.cache.database import Database
from generator.cache.store import RenderCache, seal, unseal

QUERIES = "specs/platform/queries/workspace-export-delivery.md"
QUERIES_PY = f"generated/{SEED_MODULES['queries']}.py"
QUERIES_MMD = f"generated/{SEED_MODULES['queries']}.mmd"


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The display paths parsed, by lint or by the steps after it (the real parser, counted)."""
    seen: list[str] = []
    real = files_module.lint_bytes

    def counting(data, path, **options):  # type: ignore[no-untyped-def]
        seen.append(path)
        return real(data, path, **options)

    monkeypatch.setattr(files_module, "lint_bytes", counting)
    yield seen


def warm(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    """Build twice (fills both caches); the tree as built."""
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert Database(os.fspath(RenderCache(repo).folder)).keys("render")
    return tree(repo / "generated")


def codes(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    return code, sorted(f["code"] for f in json.loads(out))


def test_noop_runs_parse_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str], parsed: list[str]
) -> None:
    before = warm(repo, capsys)
    parsed.clear()
    for command in ("check", "generate", "build"):
        assert run_cli(capsys, command, "-q")[0] == 0
    assert parsed == []
    assert tree(repo / "generated") == before


def test_a_changed_document_alone_is_parsed(
    repo: Path, capsys: pytest.CaptureFixture[str], parsed: list[str]
) -> None:
    warm(repo, capsys)
    spec = repo / QUERIES
    spec.write_text(spec.read_text().replace("title: ", "title: Renamed "), encoding="utf-8")
    parsed.clear()
    assert codes(capsys, "check")[0] == 1
    assert parsed == [QUERIES]


def test_hand_edited_output_is_stale_then_rewritten(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = warm(repo, capsys)
    module = repo / QUERIES_PY
    module.write_bytes(module.read_bytes() + b"# hand edit\n")
    assert codes(capsys, "check") == (1, ["SD401"])
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert tree(repo / "generated") == before
    module.write_bytes(module.read_bytes().replace(b"class State", b"class Stat"))
    assert run_cli(capsys, "generate", "-q")[0] == 0
    assert tree(repo / "generated") == before


def test_deleted_output_is_missing_then_recreated(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = warm(repo, capsys)
    (repo / QUERIES_MMD).unlink()
    (repo / "generated/py.typed").unlink()
    assert codes(capsys, "check") == (1, ["SD402", "SD402"])
    assert run_cli(capsys, "generate", "-q")[0] == 0
    assert tree(repo / "generated") == before


def test_left_over_output_is_deleted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = warm(repo, capsys)
    extra = repo / "generated/platform/queries/gone.py"
    extra.write_bytes(before[f"{SEED_MODULES['queries']}.py"])
    assert codes(capsys, "check") == (1, ["SD403"])
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert tree(repo / "generated") == before


def _poison(repo: Path) -> None:
    """Hand-edit every generated module and rewrite its render entry (with a matching digest)
    to name the edited bytes: an entry served where it must not be then hides the edit."""
    import hashlib

    entries = Database(os.fspath(RenderCache(repo).folder))
    assert entries.keys("render")
    for key in entries.keys("render"):
        body = unseal(key, entries.get("render", key) or b"")
        assert body is not None
        raw = json.loads(body)
        for name in raw["files"]["python"]:
            module = repo / "generated" / name
            module.write_bytes(module.read_bytes() + b"# poisoned\n")
            raw["files"]["python"][name] = hashlib.sha256(module.read_bytes()).hexdigest()
        entries.put("render", key, seal(key, json.dumps(raw).encode()))


def test_a_new_statedoc_version_is_not_served(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    warm(repo, capsys)
    _poison(repo)
    monkeypatch.setattr(cache_module, "__version__", "999.0")
    cache_module.code_fingerprint.cache_clear()
    try:
        assert codes(capsys, "check") == (1, ["SD401"] * 2)
    finally:
        cache_module.code_fingerprint.cache_clear()


def test_a_drifted_diagram_is_found_with_a_warm_cache_every_time(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the drift rules ignored the document lints clean, so generate caches it: the
    cached fact must say its diagram drifted."""
    (repo / "pyproject.toml").write_text(f'{PYPROJECT}ignore = ["SD303", "SD304", "SD305"]\n')
    warm(repo, capsys)
    spec = repo / QUERIES
    text = spec.read_text()
    start = text.index("```mermaid")
    end = text.index("```", start + 3)
    spec.write_text(text[:start] + "```mermaid\nstateDiagram-v2\n" + text[end:])
    assert run_cli(capsys, "generate", "-q")[0] == 0  # caches the renderings and the fact
    for _ in range(2):
        # SD401 too: check compares the module with what build generates after the redraw.
        assert codes(capsys, "check") == (1, ["SD401", "SD407"])
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert run_cli(capsys, "check", "-q")[0] == 0
    assert "stateDiagram-v2\n" in spec.read_text() and spec.read_text() != text


def test_poisoned_entries_are_served_only_to_the_same_run(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The proof that the tests below would see a wrongly served entry: the same code and
    settings trust their own sealed entries."""
    warm(repo, capsys)
    _poison(repo)
    assert codes(capsys, "check") == (0, [])


def test_changed_targets_are_not_served(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = warm(repo, capsys)
    _poison(repo)
    (repo / "pyproject.toml").write_text(f'{PYPROJECT}targets = ["python"]\n')
    assert codes(capsys, "check") == (1, ["SD401"] * 2)
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert tree(repo / "generated") == before


def test_changed_target_settings_are_not_served(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same targets under another table of a chosen target (each chosen target's
    ``[tool.statedoc.<name>]`` is part of every rendering's context): nothing cached for the
    old settings is served, so the poisoned modules show (as the SQL files of the new schema
    do)."""
    targets = 'targets = ["python", "sql"]\n'
    (repo / "pyproject.toml").write_text(PYPROJECT + targets)
    before = warm(repo, capsys)
    _poison(repo)
    (repo / "pyproject.toml").write_text(
        f'{PYPROJECT}{targets}[tool.statedoc.sql]\nschema = "other"\n'
    )
    code, out, _ = run_cli(capsys, "check", "--format", "json")
    stale = sorted(f["message"].split()[0] for f in json.loads(out) if f["code"] == "SD401")
    files = [f"generated/{name}" for name in before if name.count("/") == 2]
    assert code == 1 and stale == sorted(n for n in files if not n.endswith("__init__.py"))
    (repo / "pyproject.toml").write_text(PYPROJECT + targets)
    assert run_cli(capsys, "build", "-q")[0] == 0
    assert tree(repo / "generated") == before


def test_a_table_of_a_target_not_chosen_is_no_part_of_the_context(
    repo: Path, capsys: pytest.CaptureFixture[str], parsed: list[str]
) -> None:
    """``[tool.statedoc.sql]`` does not decide what the python and mermaid targets write:
    editing it leaves their renderings served (nothing parsed, nothing to change)."""
    before = warm(repo, capsys)
    (repo / "pyproject.toml").write_text(f'{PYPROJECT}\n[tool.statedoc.sql]\nschema = "other"\n')
    parsed.clear()
    assert codes(capsys, "check") == (0, [])
    assert parsed == []
    assert tree(repo / "generated") == before
